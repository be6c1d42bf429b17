"""Crash-safe output helpers: run locks, the completion mark, free-space checks.

* ``run_lock(path, what)``: one run at a time on an output.  The lock is a small JSON
  file (pid, host, start time, command) created atomically; a lock whose process is
  gone (same host, dead pid) is stale and taken over, any other one is refused with a
  one-line message naming its owner.
* ``COMPLETE_KEY``: the Parquet key-value metadata of a finished single-file table,
  ``{"complete": true, "rows": n, "chunks": k, "n_chunks": k}`` (JSON); an
  interrupted run's resumable file has ``"complete": false``.  Readers refuse a file
  without it or whose row count differs (``table_status``).
* ``estimated_bytes(n_deals, ...)``: the disk space a deals table needs (measured).
* ``atomic_write(path, data)``: a file appears whole or not at all (a fsynced
  temporary, ``.NAME.tmp-...``, renamed over it).
* ``signals_deferred()``: SIGINT and SIGTERM wait until a block is done (a file and
  its counts updated together, a rename finished).

* ``read_limited(path, limit, what)``: an input file read whole, refused beyond its
  documented size limit (``RULE_FILE_LIMIT``, ``MANIFEST_LIMIT``; a record line:
  ``RECORD_LINE_LIMIT``): input files are untrusted, and ``/dev/zero`` never ends.

``output.Output`` puts these together into the discipline every writer follows.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

from belote_sim.input_limits import (
    MANIFEST_LIMIT,
    RECORD_LINE_LIMIT,
    RULE_FILE_LIMIT,
    limit_words,
    read_limited,
)

__all__ = [
    "CHUNK_OVERHEAD",
    "COMPLETE_KEY",
    "ESTIMATE_MARGIN",
    "MANIFEST_LIMIT",
    "MEASURED_BYTES_PER_DEAL",
    "RECORD_LINE_LIMIT",
    "RULE_FILE_LIMIT",
    "TEMP_MARK",
    "atomic_write",
    "bytes_per_deal",
    "completion_mark",
    "estimated_bytes",
    "fsync_dir",
    "fsync_file",
    "human_bytes",
    "is_temp",
    "limit_words",
    "read_limited",
    "read_lock",
    "read_mark",
    "run_lock",
    "signals_deferred",
]

#: the mark of ``atomic_write``'s temporary files
TEMP_MARK = ".tmp-"

#: key of the completion mark in a single-file table's Parquet key-value metadata
COMPLETE_KEY = b"belote_sim_complete"

#: Parquet bytes per deal measured on 65,536-deal chunks (``benchmarks/bytes_per_deal.py``),
#: by game (players, variant): (single file, with the trick log) as ``simulate -o``
#: writes it (``deal_table.parquet_write_options``), and the same for a dataset part
#: (pyarrow's default options).
MEASURED_BYTES_PER_DEAL: dict[tuple[int, str], tuple[tuple[float, float], tuple[float, float]]] = {
    (4, "standard"): ((40.0, 67.8), (72.4, 114.0)),
    (3, "standard"): ((34.4, 55.1), (59.4, 90.9)),
    (2, "standard"): ((27.3, 43.3), (48.3, 72.8)),
    (2, "open"): ((52.2, 81.7), (85.5, 130.0)),
}
#: the estimate's margin over the measured sizes (small chunks, other policies and
#: rules: measured within 5% of these)
ESTIMATE_MARGIN = 1.25
#: bytes of a chunk's row group beyond its deals (page headers, footer entries)
CHUNK_OVERHEAD = 8192


# The input size limits live one layer down (``belote_sim.input_limits``: the rule
# files and records are read below the simulation layer); re-exported here.
def fsync_dir(path: str) -> None:
    """fsync a directory (so that a rename in it is durable); best effort."""
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` via a fsynced temporary file and ``os.replace``."""
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}{TEMP_MARK}{uuid.uuid4().hex}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(directory)


def is_temp(name: str) -> bool:
    """Whether ``name`` is a temporary file left by ``atomic_write``."""
    return name.startswith(".") and TEMP_MARK in name


def fsync_file(path: str) -> None:
    """fsync a closed file's data to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB", "EB"):
        if abs(n) < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} ZB"


def estimated_bytes(
    n_deals: int,
    trick_log: bool = False,
    players: int = 4,
    variant: str = "standard",
    chunk_size: int = 1 << 16,
    dataset: bool = False,
) -> int:
    """The disk space of ``n_deals`` deals of a game (``players``, ``variant``) in bytes:
    the measured size (``MEASURED_BYTES_PER_DEAL``, a single file or ``dataset`` parts)
    times ``ESTIMATE_MARGIN``, plus ``CHUNK_OVERHEAD`` per chunk of ``chunk_size``."""
    per_deal = bytes_per_deal(trick_log, players, variant, dataset)
    n_chunks = -(-int(n_deals) // max(int(chunk_size), 1))
    return int(int(n_deals) * per_deal) + n_chunks * CHUNK_OVERHEAD


def bytes_per_deal(
    trick_log: bool = False, players: int = 4, variant: str = "standard", dataset: bool = False
) -> float:
    """The estimated bytes of a deal on disk: measured (``MEASURED_BYTES_PER_DEAL``)
    times ``ESTIMATE_MARGIN``."""
    sizes = MEASURED_BYTES_PER_DEAL.get((players, variant), MEASURED_BYTES_PER_DEAL[(2, "open")])
    return sizes[bool(dataset)][bool(trick_log)] * ESTIMATE_MARGIN


@contextlib.contextmanager
def signals_deferred(redeliver: bool = True) -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while the block runs (a file and its counts are
    updated, a file renamed); a signal that came meanwhile is raised again at the end
    (unless ``redeliver`` is False: already stopping).  Outside the main thread (where
    signals are not handled) it does nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {
        sig: signal.signal(sig, lambda s, f: pending.append(s))
        for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if redeliver:
            for signum in dict.fromkeys(pending):
                signal.raise_signal(signum)


# --------------------------------------------------------------------------- locks


def _lock_failed(exc: OSError, what: str, directory: str) -> str:
    """One line for a lock that cannot be written: what, where and why (not the lock's
    temporary file's name)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return (
            f"disk full: nothing was written for {what} (no space left in "
            f"{os.path.abspath(directory)}); free some space, then run the same command again"
        )
    reason = exc.strerror or type(exc).__name__
    return f"cannot write {what}: no file can be created in {os.path.abspath(directory)} ({reason})"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return True


def read_lock(lock_path: str) -> dict[str, Any] | None:
    """The owner recorded in a lock file, or None if there is none (or it is unreadable)."""
    try:
        with open(lock_path, encoding="utf-8") as f:
            owner = json.load(f)
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) else None


def _is_stale(owner: dict[str, Any] | None, lock_path: str) -> bool:
    if owner is None:  # unreadable: stale once it is old (a crash while writing it)
        try:
            return time.time() - os.path.getmtime(lock_path) > 60
        except OSError:
            return True
    if owner.get("host") != socket.gethostname():
        return False
    pid = owner.get("pid")
    return not isinstance(pid, int) or not _pid_alive(pid)


@contextlib.contextmanager
def run_lock(lock_path: str, what: str) -> Iterator[None]:
    """Hold ``lock_path`` while a run writes ``what``; ``ValueError`` if another live run
    holds it.  A lock left by a dead process on this host is taken over."""
    owner = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join(sys.argv[:8])[:300],
    }
    directory = os.path.dirname(lock_path) or "."
    tmp = os.path.join(directory, f".{os.path.basename(lock_path)}.{uuid.uuid4().hex}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(owner, f)
    except OSError as exc:  # a full disk, a folder we may not write in (/proc, ...)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise ValueError(_lock_failed(exc, what, directory)) from None
    try:
        for _ in range(3):
            try:
                os.link(tmp, lock_path)  # atomic: fails if the lock exists
                break
            except FileExistsError:
                held = read_lock(lock_path)
                if not _is_stale(held, lock_path):
                    who = (
                        f"pid {held.get('pid')} on {held.get('host')} since {held.get('time')}"
                        if held
                        else "an unknown process"
                    )
                    raise ValueError(
                        f"{what} is being written by another run ({who}); wait "
                        f"for it, or delete {lock_path} if that run is gone"
                    ) from None
                with contextlib.suppress(OSError):
                    os.unlink(lock_path)
            except OSError as exc:
                raise ValueError(_lock_failed(exc, what, directory)) from None
        else:
            raise ValueError(f"cannot take the lock {lock_path}")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    try:
        yield
    finally:
        if (read_lock(lock_path) or {}).get("pid") == owner["pid"]:
            with contextlib.suppress(OSError):
                os.unlink(lock_path)


# --------------------------------------------------------------------------- completion


def completion_mark(rows: int, chunks: int, n_chunks: int) -> dict[bytes, bytes]:
    """The key-value metadata that marks a table finished (``chunks == n_chunks``) or
    resumable (fewer)."""
    mark = {
        "complete": chunks == n_chunks,
        "rows": int(rows),
        "chunks": int(chunks),
        "n_chunks": int(n_chunks),
    }
    return {COMPLETE_KEY: json.dumps(mark).encode()}


def read_mark(file_metadata: dict[bytes, bytes] | None) -> dict[str, Any] | None:
    """The completion mark of a Parquet file's key-value metadata, or None."""
    raw = (file_metadata or {}).get(COMPLETE_KEY)
    if raw is None:
        return None
    try:
        mark = json.loads(raw)
    except ValueError:
        return None
    return mark if isinstance(mark, dict) else None
