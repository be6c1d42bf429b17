"""Run a study on a Dask cluster into a partitioned Parquet dataset; read it back.

``run_study(study, n_deals, out_dir, scheduler=...)`` runs the chunks of a ``Study``
as ``dask.distributed`` tasks, one task per chunk.  Chunk c is simulated exactly as
``Study.run_chunk`` does it locally (per-deal seeds from
``SeedSequence(study.seed, spawn_key=(c,))``), so the dataset holds the same table as
``simulate()`` with the same seed and chunk size, whatever the cluster.

The output directory holds one Parquet file per chunk, ``part-{c:06d}.parquet``, each
with the study's provenance in its metadata (key ``belote_sim``), and
``_manifest.json`` (a name Parquet readers skip, so that pandas, pyarrow.dataset,
dask and duckdb open the directory as it is; datasets of older versions have
``manifest.json``, still read): the study's provenance, and for each finished chunk its id, seed
(entropy and spawn key), first deal, row count, the SHA-256 of its file and its
aggregates (contract mix, made counts, match points per strain).

Nothing lost, nothing doubled:

* a task writes its part to a temporary name in the directory, fsyncs it and renames
  it into place (``os.replace``); a chunk's file has one name, so a chunk run twice
  (a retried task) is still one file;
* a chunk counts only once the client has its task's result (rows, checksum,
  aggregates) in the manifest, which is itself replaced atomically; temporary files
  left by a crash are never read, and deleted by the run itself once every chunk is in
  (a killed worker's) or by the next run (a crashed run's);
* rerunning the same study into the same directory resumes: a chunk whose part file
  is there with the checksum recorded in the manifest is skipped (the check runs on
  the workers), every other chunk is simulated again;
* dask reschedules the tasks of a worker that dies, and ``retries`` re-runs a task
  that raised;
* one run per directory at a time: a run holds ``_belote_sim.lock`` (pid, host, start
  time); another run is refused while that process lives, and a dead run's lock is
  taken over;
* a lost manifest is rebuilt from the intact parts by ``rebuild_manifest`` (``belote-sim
  dataset rebuild-manifest DIR``).

Readers (``read_dataset``, ``dataset_summary``, ``belote-sim report DIR``) use only the
parts listed in the manifest (stray files are ignored) and check each one's footer
against it (row count, chunk id and first deal, file size) before reading: an
unfinished dataset or a part that does not match is an error unless
``allow_incomplete`` (which still drops the parts that do not match).

The summary is reduced from the tasks' small aggregates: no deal row travels to the
client.  ``read_dataset`` opens the parts listed in the manifest as a
``pyarrow.dataset.Dataset`` (larger than memory is fine); ``dataset_summary``
computes the aggregates by streaming record batches.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from belote_sim.simulation.dataset import (
    SUMMARY_COLUMNS,
    dataset_summary,
    empty_aggregates,
    frame_aggregates,
    merge_aggregates,
    rebuild_manifest,
    with_means,
)
from belote_sim.simulation.deal_table import PROVENANCE_KEY, deals_frame, read_dataset
from belote_sim.simulation.manifest import (
    CHUNK_KEY,
    LEGACY_MANIFEST,
    LOCK,
    MANIFEST,
    MANIFEST_FORMAT,
    PART_RE,
    PART_TEMPLATE,
    dataset_status,
    file_sha256,
    load_manifest,
    new_manifest,
    verify_dataset,
    write_manifest,
)
from belote_sim.simulation.output import RunInterrupted, WriteFailed, check_destination, check_space
from belote_sim.simulation.safe_io import (
    TEMP_MARK,
    atomic_write,
    estimated_bytes,
    is_temp,
    run_lock,
)

# run_study, and re-exported, the readers and names of a dataset (this module is the
# door to datasets: ``manifest``, ``dataset`` and ``deal_table.read_dataset``)
__all__ = [
    "CHUNK_KEY",
    "LEGACY_MANIFEST",
    "LOCK",
    "MANIFEST",
    "MANIFEST_FORMAT",
    "PART_RE",
    "PART_TEMPLATE",
    "SUMMARY_COLUMNS",
    "TEMP_MARK",
    "DaskMissing",
    "dataset_status",
    "dataset_summary",
    "file_sha256",
    "frame_aggregates",
    "load_manifest",
    "local_cluster",
    "quiet_dask",
    "read_dataset",
    "rebuild_manifest",
    "remove_temps",
    "require_dask",
    "run_study",
    "verify_dataset",
]


def _check_visible(path: str, size: int) -> None:
    """The client sees the part a worker wrote or checked (shared filesystem)."""
    try:
        seen = os.path.getsize(path)
    except OSError:
        seen = None
    if seen != size:
        raise RuntimeError(
            f"{path}: a worker wrote or checked this part ({size} bytes) but the client "
            f"{'does not see it' if seen is None else f'sees {seen} bytes'}: the output "
            "directory must be on a filesystem shared by the client and every worker, at "
            "the same path"
        )


def _chunk_task(
    study,
    chunk: int,
    length: int,
    out_dir: str,
    provenance: bytes,
    expected_sha256: str | None,
    trick_log: bool,
    numba_threads: int,
) -> dict[str, Any]:
    """Simulate one chunk into its part file (on a worker); return its small aggregate.

    With ``expected_sha256`` (the chunk is in the manifest) and a part file with that
    checksum, nothing is simulated: ``{"chunk": c, "skipped": True}``.
    """
    import numba
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = PART_TEMPLATE.format(chunk)
    path = os.path.join(out_dir, name)
    if expected_sha256 is not None and os.path.exists(path):
        if file_sha256(path) == expected_sha256:
            return {"chunk": chunk, "skipped": True}
    start = time.perf_counter()
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(numba_threads, numba.config.NUMBA_NUM_THREADS)))
    try:
        raw = study.run_chunk(chunk, length, keep_plays=trick_log)
    finally:
        numba.set_num_threads(previous)
    df = deals_frame(raw)
    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[PROVENANCE_KEY] = provenance
    meta[CHUNK_KEY] = json.dumps(
        {"chunk": chunk, "first_deal": chunk * study.chunk_size, "rows": length}
    ).encode()
    table = table.replace_schema_metadata(meta)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data = sink.getvalue()
    sha = hashlib.sha256(memoryview(data)).hexdigest()
    try:
        if shutil.disk_usage(out_dir).free < data.size + (1 << 20):  # no file half-written
            raise OSError(errno.ENOSPC, "disk full")
        atomic_write(path, memoryview(data))
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise
        # a full disk is the run's end, not the task's failure: returned, so that the
        # worker logs no "Compute Failed" traceback; the client raises it (one line)
        return {"chunk": chunk, "disk_full": [exc.errno, exc.strerror or "disk full"]}
    return {
        "chunk": chunk,
        "skipped": False,
        "rows": len(df),
        "sha256": sha,
        "bytes": int(data.size),
        "aggregates": frame_aggregates(df),
        "seconds": time.perf_counter() - start,
    }


def _check_same_study(out_dir: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    diffs = []
    for key in ("n_deals", "chunk_size", "trick_log"):
        if old.get(key) != new[key]:
            diffs.append(f"{key}: {old.get(key)!r} there, {new[key]!r} now")
    old_prov, new_prov = old.get("provenance", {}), new["provenance"]
    for key in sorted(set(old_prov) | set(new_prov)):
        if key in ("n", "chunk_size"):
            continue
        if old_prov.get(key) != new_prov.get(key):
            diffs.append(f"{key}: {old_prov.get(key)!r} there, {new_prov.get(key)!r} now")
    if diffs:
        raise ValueError(
            f"{out_dir} holds a different study ({'; '.join(diffs)}); "
            "use another output directory, or delete it to start over"
        )


def _prepare_dir(out_dir: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """Create or check the output directory; return the manifest to continue from."""
    os.makedirs(out_dir, exist_ok=True)
    old = load_manifest(out_dir)
    names = os.listdir(out_dir)
    if old is None:
        parts = [n for n in names if PART_RE.match(n)]
        if parts:
            raise ValueError(
                f"{out_dir} has part files but no {MANIFEST}: rebuild it from "
                "the parts with 'belote-sim dataset rebuild-manifest DIR' (or "
                "rebuild_manifest), or use another output directory"
            )
    else:
        _check_same_study(out_dir, old, manifest)
        manifest["chunks"] = [
            e for e in old.get("chunks", []) if 0 <= e["chunk"] < manifest["n_chunks"]
        ]
    remove_temps(out_dir, names)
    return manifest


def remove_temps(out_dir: str, names: list[str] | None = None) -> None:
    """Delete the temporaries of ``out_dir`` (``names``: its listing, if already read):
    left by a crashed run or a killed worker, never counted."""
    for name in os.listdir(out_dir) if names is None else names:
        if is_temp(name):
            try:
                os.unlink(os.path.join(out_dir, name))
            except OSError:
                pass


def require_dask():
    """``(Client, LocalCluster, as_completed)`` of dask.distributed, or a one-line error.

    dask is an optional extra (``pip install 'belote-sim[dask]'``): only cluster runs
    need it.  Raises ``ImportError`` subclass ``DaskMissing`` (caught by the CLI).
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise DaskMissing(
            "cluster runs (--workers, --scheduler) need dask: pip install 'belote-sim[dask]'"
        ) from None
    return Client, LocalCluster, as_completed


class DaskMissing(ImportError):
    """dask.distributed is not installed (the ``dask`` extra)."""


def local_cluster(n_workers: int, threads_per_worker: int = 1):
    """A ``LocalCluster`` of ``n_workers`` processes, started so that Ctrl-C works:

    * its worker processes never see SIGINT (it is blocked in the threads that start
      them, and a process inherits that): a Ctrl-C in a terminal reaches the whole
      process group, and the client, not each worker, stops the run (else every worker
      prints a traceback);
    * a Ctrl-C or SIGTERM while it starts (a few seconds) waits until it is up; then the
      cluster is closed and the signal raised (``KeyboardInterrupt``);
    * its workers log critical errors only.
    """
    import signal
    import threading

    from dask.distributed import LocalCluster

    main = threading.current_thread() is threading.main_thread()
    pending: list[int] = []
    previous = {}
    if main:
        # multiprocessing's resource tracker, when it starts (with the first worker),
        # blocks then unblocks SIGINT in its thread, which would undo the block below in
        # the thread that starts the workers: it is started here first
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda s, f: pending.append(s))
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # the workers log critical errors only: not the warnings of tasks cancelled by a
    # Ctrl-C, nor the heartbeat errors of a worker whose scheduler closed first (a run
    # stopped by a full disk printed one, with its traceback, under its one line); a
    # task's own error reaches the client, which reports it
    env = os.environ.get("DASK_LOGGING__DISTRIBUTED")
    os.environ["DASK_LOGGING__DISTRIBUTED"] = "critical"
    cluster = None
    try:
        cluster = LocalCluster(
            n_workers=n_workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        )
    finally:
        if env is None:
            del os.environ["DASK_LOGGING__DISTRIBUTED"]
        else:
            os.environ["DASK_LOGGING__DISTRIBUTED"] = env
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a held one: now
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    if pending:
        if cluster is not None:
            quiet_dask()
            cluster.close()
        for signum in dict.fromkeys(pending):
            signal.raise_signal(signum)
    return cluster


def _what_is_recorded(
    out_dir: str, done: dict[int, Any], n_chunks: int, recorded: bool, full: bool
) -> str:
    """What a stopped dataset run left, and what the same command does."""
    then = "free some space, then " if full else ""
    if recorded:
        return (
            f"{len(done)} of {n_chunks} chunks finished, recorded in "
            f"{os.path.join(out_dir, MANIFEST)}; {then}run the same command again to resume"
        )
    return (
        f"{len(done)} of {n_chunks} chunks finished but the manifest could not be updated "
        f"(the last {MANIFEST} stands, the chunks it lacks are redone); {then}run the same "
        "command again to resume"
    )


def quiet_dask() -> None:
    import logging

    for name in ("distributed", "tornado", "asyncio"):
        # above CRITICAL: the in-process scheduler logs its closing comms as CRITICAL
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def run_study(
    study,
    n_deals: int,
    out_dir: str | os.PathLike,
    scheduler: str | None = None,
    workers: int | None = None,
    threads_per_worker: int = 1,
    progress: Callable[[int], None] | None = None,
    *,
    trick_log: bool = False,
    retries: int = 3,
    numba_threads: int = 1,
    manifest_interval: float = 1.0,
) -> dict[str, Any]:
    """Run ``n_deals`` deals of ``study`` as chunk tasks on dask.distributed.

    Parameters
    ----------
    study : a ``belote_sim.simulation.runner.Study`` (``make_study(...)``).
    out_dir : output directory (created); on a cluster, a path every worker and the
        client see (shared filesystem).  Rerunning into it resumes.
    scheduler : address of a running scheduler (``tcp://HOST:8786``); or None to
        start a ``LocalCluster`` of ``workers`` processes (default: one per core) with
        ``threads_per_worker`` threads each, closed at the end.
    progress : called with the number of deals of each chunk as it finishes (skipped
        chunks included), on the calling thread.
    trick_log : keep the playing order (column ``plays``).
    retries : re-runs of a task that raised (a task lost with its worker is
        rescheduled by dask anyway).
    numba_threads : numba threads a task uses (1: one chunk per dask thread).
    manifest_interval : seconds between manifest updates while chunks finish (longer
        for a manifest of many thousand chunks); a crash of the client loses the record
        of the chunks finished since the last update, which the next run redoes.

    Raises ``ValueError`` for bad arguments or a different study in ``out_dir``,
    ``OSError`` when the scheduler cannot be reached, and the task's exception (after
    ``retries``) or ``distributed.KilledWorker`` when a chunk cannot be done; the
    manifest then records the chunks finished so far.

    Returns a summary: ``deals``, ``seconds``, ``deals_per_s`` (deals simulated in this
    run per second), ``contracts``, ``made``, ``thrown_in`` (as
    ``simulate_to_parquet``; ``results.format_summary`` prints it), ``mp`` and
    ``mean_mp`` per strain, ``chunks``, ``computed_chunks``, ``skipped_chunks``,
    ``out_dir``, ``manifest``.
    """
    Client, _, as_completed = require_dask()

    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 0:
        raise ValueError(f"n_deals must be a non-negative integer, got {n_deals!r}")
    if scheduler is not None and workers is not None:
        raise ValueError("give either a scheduler address or a number of local workers, not both")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if threads_per_worker < 1:
        raise ValueError(f"threads_per_worker must be positive, got {threads_per_worker!r}")
    n_deals = int(n_deals)
    study.check_feasible()
    out_dir = os.path.abspath(os.fspath(out_dir))
    provenance = study.provenance(n_deals)
    provenance = json.loads(json.dumps(provenance))  # as it reads back from JSON
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ValueError(f"{out_dir} is a file: a study on dask writes a dataset directory")
    os.makedirs(out_dir, exist_ok=True)
    check_destination(os.path.join(out_dir, MANIFEST))  # a folder we may write in
    with run_lock(os.path.join(out_dir, LOCK), out_dir):
        manifest = new_manifest(provenance, n_deals, study.chunk_size, study.seed, trick_log)
        manifest = _prepare_dir(out_dir, manifest)
        left = n_deals - sum(e["rows"] for e in manifest["chunks"])
        rules = study.rules
        need = estimated_bytes(
            left, trick_log, rules.players, rules.variant, study.chunk_size, dataset=True
        )
        check_space(out_dir, need, f"{left:,} deals")
        write_manifest(out_dir, manifest)

        start = time.perf_counter()
        n_chunks = manifest["n_chunks"]
        done = {e["chunk"]: e for e in manifest["chunks"]}
        prov_bytes = json.dumps(provenance).encode()
        computed: list[int] = []
        skipped: list[int] = []
        computed_deals = 0

        if n_chunks:
            cluster = None
            recorded = True
            try:
                if scheduler is None:
                    # compile or load the kernels here first, so that the local workers
                    # load them from numba's disk cache instead of each compiling them
                    study.run_chunk(0, 1, keep_plays=bool(trick_log))
                    n_workers = workers or max(1, (os.cpu_count() or 1) // threads_per_worker)
                    cluster = local_cluster(n_workers, threads_per_worker)
                with Client(cluster if cluster is not None else scheduler) as client:
                    run_id = uuid.uuid4().hex[:12]
                    futures = []
                    for c in range(n_chunks):
                        length = min(study.chunk_size, n_deals - c * study.chunk_size)
                        expected = done[c]["sha256"] if c in done else None
                        futures.append(
                            client.submit(
                                _chunk_task,
                                study,
                                c,
                                length,
                                out_dir,
                                prov_bytes,
                                expected,
                                bool(trick_log),
                                numba_threads,
                                key=f"belote-sim-chunk-{run_id}-{c:06d}",
                                retries=retries,
                                pure=False,
                            )
                        )
                    next_write = time.monotonic() + manifest_interval
                    all_in = False
                    try:
                        for future in as_completed(futures):
                            result = future.result()
                            future.release()
                            if "disk_full" in result:
                                raise OSError(*result["disk_full"])
                            c = result["chunk"]
                            first = c * study.chunk_size
                            length = min(study.chunk_size, n_deals - first)
                            path = os.path.join(out_dir, PART_TEMPLATE.format(c))
                            if result["skipped"]:
                                skipped.append(c)
                                _check_visible(path, done[c]["bytes"])
                            else:
                                if result["rows"] != length:
                                    raise RuntimeError(
                                        f"chunk {c}: {result['rows']} rows, expected {length}"
                                    )
                                _check_visible(path, result["bytes"])
                                computed.append(c)
                                computed_deals += result["rows"]
                                done[c] = {
                                    "chunk": c,
                                    "file": PART_TEMPLATE.format(c),
                                    "first_deal": first,
                                    "rows": result["rows"],
                                    "entropy": int(study.seed),
                                    "spawn_key": [c],
                                    "sha256": result["sha256"],
                                    "bytes": result["bytes"],
                                    "seconds": round(result["seconds"], 3),
                                    "aggregates": result["aggregates"],
                                }
                                if time.monotonic() >= next_write:
                                    took = time.monotonic()
                                    manifest["chunks"] = list(done.values())
                                    write_manifest(out_dir, manifest)
                                    took = time.monotonic() - took
                                    # a big manifest: keep its rewriting under ~5% of the time
                                    next_write = time.monotonic() + max(
                                        manifest_interval, 20 * took
                                    )
                            if progress:
                                progress(length)
                        all_in = True
                    except BaseException:
                        client.cancel([f for f in futures if not f.done()])
                        raise
                    finally:
                        manifest["chunks"] = list(done.values())
                        manifest["complete"] = len(computed) + len(skipped) == n_chunks
                        try:
                            write_manifest(out_dir, manifest)
                        except OSError:
                            recorded = False
                            if all_in:
                                raise
            except (KeyboardInterrupt, OSError) as exc:
                quiet_dask()  # the workers' complaints about the closing cluster
                if cluster is not None:
                    cluster.close()
                    cluster = None
                full = isinstance(exc, OSError) and exc.errno == errno.ENOSPC
                message = _what_is_recorded(out_dir, done, n_chunks, recorded, full)
                if isinstance(exc, KeyboardInterrupt):
                    raise RunInterrupted(f"interrupted: {message}") from None
                what = "disk full" if full else (exc.strerror or str(exc))
                raise WriteFailed(exc, f"{what} writing {out_dir}: {message}") from exc
            finally:
                if cluster is not None:
                    cluster.close()
        else:
            manifest["complete"] = True
            write_manifest(out_dir, manifest)
        if manifest["complete"]:
            # a worker killed while writing its part leaves its temporary behind; every
            # chunk is now in and this run holds the directory: it is garbage
            remove_temps(out_dir)

    elapsed = time.perf_counter() - start
    total = empty_aggregates()
    for c in sorted(done):
        merge_aggregates(total, done[c]["aggregates"])
    return {
        "deals": n_deals,
        "computed": computed_deals,
        "seconds": elapsed,
        "deals_per_s": computed_deals / elapsed if elapsed > 0 else float("inf"),
        **with_means(total),
        "chunks": n_chunks,
        "computed_chunks": sorted(computed),
        "skipped_chunks": sorted(skipped),
        "out_dir": out_dir,
        "manifest": os.path.join(out_dir, MANIFEST),
    }
