"""Monte Carlo simulation of many deals (or whole games) into a columnar table.

``simulate(n_deals, rules=..., bidding=..., play=..., seed=...)`` returns a pandas
DataFrame, one row per deal (columns in ``belote_sim.simulation.deal_table``).  Deals are made in
chunks of ``chunk_size``; chunk c takes its seeds from
``SeedSequence(seed, spawn_key=(c,))`` (the c-th child of ``SeedSequence(seed)``),
one 64-bit seed per deal, and a deal is a pure function of its seed.  The table is
therefore the same whatever the number of threads.  ``simulate_to_parquet`` streams
chunks to a Parquet file in bounded memory; ``simulate_games`` plays whole games.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
import pandas as pd

from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.simulate import (
    COL_OUTCOME,
    COL_STRAIN,
    G_DEALS,
    NUM_COLS,
    NUM_GAME_COLS,
    NUM_SOLO_COLS,
    NUM_SOLO_GAME_COLS,
    simulate_solo_games,
)
from belote_sim.kernels.simulate import simulate_games as _games_kernel
from belote_sim.policies import (
    search_bits,
)
from belote_sim.rules import Rules
from belote_sim.simulation.compiling import prepare
from belote_sim.simulation.deal_table import (
    PROVENANCE_KEY,
    deals_frame,
    deals_table,
    games_frame,
    kernel_columns,
    parquet_schema,
    parquet_write_options,
    summary_counts,
    summary_counts_of_codes,
    table_status,
)
from belote_sim.simulation.output import Output, RunInterrupted, WriteFailed
from belote_sim.simulation.safe_io import (
    bytes_per_deal,
    completion_mark,
    estimated_bytes,
    fsync_dir,
    fsync_file,
    human_bytes,
    signals_deferred,
)
from belote_sim.simulation.study import (
    DEFAULT_CHUNK,
    MAX_TRIES,
    Pacer,
    Study,
    check_no_failed,
    make_study,
)
from belote_sim.simulation.table_checksum import GrowingDigest, seal_table

# Study, make_study and their constants re-exported: the runner is where studies are run
__all__ = [
    "DEFAULT_CHUNK",
    "MAX_TRIES",
    "RunInterrupted",
    "Study",
    "iter_chunks",
    "make_study",
    "numba_threads",
    "output_paths",
    "simulate",
    "simulate_games",
    "simulate_to_parquet",
]


@contextlib.contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Run the block with ``threads`` numba threads (None: all), then restore the
    previous number; yields the number used.  ``ValueError`` outside 1..the maximum."""
    previous = numba.get_num_threads()
    if threads is None:
        threads = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(f"threads must be 1..{numba.config.NUMBA_NUM_THREADS}, got {threads}")
    numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        numba.set_num_threads(previous)


def _nobody(n: int) -> None:
    """Reports to no one (a ``Pacer`` that only cuts chunks into parts)."""


def iter_chunks(
    study: Study,
    n_deals: int,
    threads: int | None = None,
    keep_plays: bool = False,
    *,
    ticks: Callable[[int], None] | None = None,
) -> Iterator[pd.DataFrame]:
    """Simulate ``n_deals`` deals chunk by chunk, yielding one DataFrame per chunk.

    ``ticks(n)``: called as every ``n`` deals are computed, about once a second
    (``study.Pacer``: each chunk in timed parts; the same deals)."""
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 0:
        raise ValueError(f"n_deals must be a non-negative integer, got {n_deals!r}")
    prepare(study, keep_plays)  # before the first chunk's clock (and its ticks)
    study.check_feasible()
    # in parts of about a second even with no one to report to: Ctrl-C and SIGTERM are
    # handled between two parts (a kernel call holds them), not after a whole chunk
    pacer = Pacer(ticks if ticks is not None else _nobody)
    with numba_threads(threads):
        n_chunks = -(-n_deals // study.chunk_size)
        for chunk in range(n_chunks):
            length = min(study.chunk_size, n_deals - chunk * study.chunk_size)
            yield deals_frame(study.run_chunk(chunk, length, keep_plays, pacer=pacer))


def simulate(
    n_deals: int,
    rules: Rules | str = "common",
    bidding: Any = None,
    play: Any = None,
    seed: int = 0,
    threads: int | None = None,
    predeal: Mapping[int, Any] | None = None,
    constraints: Mapping[int, Mapping[str, Any]] | None = None,
    dealer: int | None = None,
    trick_log: bool = False,
    chunk_size: int = DEFAULT_CHUNK,
    options: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
    belote_silent: Sequence[int] = (),
) -> pd.DataFrame:
    """Simulate ``n_deals`` deals and return them as a DataFrame (one row per deal).

    Parameters
    ----------
    rules, options : a ``Rules`` or preset name, and option overrides.
    bidding : bidding policy spec -- ``"threshold"`` (default), ``"fixed:seat,strain,
        doubling"``, ``"take"`` (french); one for all seats or a list of four.
    play : play policy spec (``"greedy"``, ``"random"``, ``"expert:0"``), or four; None:
        ``policies.default_play`` (``expert:0``; ``greedy`` in the 2/3-player games).
    seed : the study's seed (``SeedSequence`` entropy).
    threads : numba threads (default: all); the table does not depend on it.
    predeal : ``{seat: "JH 9H AH TS 7C"}`` cards fixed in a seat's hand, in dealing
        order (the first five are its bidding cards).
    constraints : ``{seat: {"require": "JH", "exclude": "AS", "min": {"H": 3},
        "max": {"S": 2}, "strength": (20, 60)}}``; strength is the plain card points
        of the 8 cards (A 11, T 10, K 4, Q 3, J 2).  Deals are exactly uniform among
        those that meet them; impossible constraints raise ``ValueError``.
    dealer : fixed dealer seat, or None to rotate (dealer = deal_id % 4).
    trick_log : keep the 32 cards of each deal in playing order (column ``plays``).
    belote_silent : seats that do not announce a belote they hold (docs/rules.md 6.2; by
        default every player announces every declaration).

    The DataFrame's ``attrs["belote_sim"]`` holds the study's provenance.
    """
    study = make_study(
        rules, bidding, play, seed, predeal, constraints, dealer, chunk_size, options, belote_silent
    )
    frames = []
    for frame in iter_chunks(study, n_deals, threads, trick_log):
        frames.append(frame)
        if progress:
            progress(len(frame))
    df = pd.concat(frames, ignore_index=True) if frames else deals_frame(None)
    df.attrs["belote_sim"] = study.provenance(n_deals)
    return df


def output_paths(path: str) -> dict[str, str]:
    """The files beside a single-file output ``DIR/NAME``: ``partial`` (``.NAME.partial``,
    an interrupted run's finished chunks, resumable), ``lock`` (``.NAME.lock``) and
    ``writing`` (``.NAME.writing``, the file older versions wrote to: a leftover, deleted
    by the next run).  The table is written to a temporary name unique to the run
    (``output.Output.tmp``)."""
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    return {
        key: os.path.join(directory, f".{name}.{key}") for key in ("partial", "writing", "lock")
    }


def _same_study(
    status: dict[str, Any], provenance: dict[str, Any], trick_log: bool, names: list[str]
) -> bool:
    return status["provenance"] == provenance and ("plays" in names) == bool(trick_log)


def _partial_state(
    partial: str, provenance: dict[str, Any], trick_log: bool
) -> tuple[str, dict[str, Any] | None]:
    """What a ``.NAME.partial`` file is: ``("none", None)`` (not there), ``("dead",
    None)`` (unreadable: no use to anyone), ``("other", status)`` (a run of another
    study) or ``("same", status)`` (a run of this study)."""
    import pyarrow.parquet as pq

    if not os.path.lexists(partial):
        return "none", None
    try:
        status = table_status(partial)
        names = pq.read_schema(partial).names
    except (ValueError, OSError):
        return "dead", None
    return ("same" if _same_study(status, provenance, trick_log, names) else "other"), status


def _resumable(
    partial: str,
    provenance: dict[str, Any],
    trick_log: bool,
    chunk_size: int,
    n_chunks: int,
    overwrite: bool,
) -> int:
    """The chunks of this study that ``partial`` holds (0 when there is none); a file of
    no use (unreadable, not whole chunks) is deleted, and so is one of another study
    with ``overwrite`` (``ValueError`` without).  A partial file of this study is
    resumed with or without ``overwrite``: it holds what a fresh run would compute."""
    state, status = _partial_state(partial, provenance, trick_log)
    if state == "other" and not overwrite:
        raise ValueError(
            f"{partial} holds an interrupted run of a different study; add "
            "--overwrite (overwrite=True) to discard it, or use another output"
        )
    kept = status["chunks"] if state == "same" and status is not None else 0
    usable = (
        state == "same"
        and status is not None
        and 0 < kept <= n_chunks
        and (status["complete"] or status["rows"] == kept * chunk_size)
    )
    if not usable:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        return 0
    return kept


def _old_chunks(pf, kept: int, chunk_size: int):
    """The first ``kept`` chunks of a partial file, one Arrow table per chunk (a chunk is
    one or more whole row groups)."""
    import pyarrow as pa

    group, n_groups = 0, pf.metadata.num_row_groups
    for _ in range(kept):
        tables, rows = [], 0
        while rows < chunk_size and group < n_groups:
            tables.append(pf.read_row_group(group))
            rows += tables[-1].num_rows
            group += 1
        if rows != chunk_size:
            raise ValueError(f"{pf}: row groups do not match the chunks")
        yield pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def _summary_of(path: str) -> dict[str, Any]:
    import pyarrow.parquet as pq

    counts: dict[str, Any] = {}
    for batch in pq.ParquetFile(path).iter_batches(
        columns=["strain", "outcome"], batch_size=1 << 20
    ):
        summary_counts(batch.to_pandas(), counts)
    return counts


#: ``simulate_to_parquet`` flushes the file being written to disk every so many rows
#: (~10 MB), in the writer thread while the kernels compute, so that the final fsync
#: (before the rename) has little left to do.
_SYNC_ROWS = 1 << 18


def simulate_to_parquet(
    path: str,
    n_deals: int,
    study: Study,
    threads: int | None = None,
    trick_log: bool = False,
    progress: Callable[[int], None] | None = None,
    *,
    overwrite: bool = False,
    ticks: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Stream a simulation to a Parquet file chunk by chunk (bounded memory), crash-safe.

    The output follows the discipline of ``output.Output`` (checks before the work, a
    lock, a temporary name unique to the run, the final name only when complete).  A
    file under ``path`` is always a complete study: the chunks are written to the
    temporary (one row group per chunk) and it is renamed to ``path`` once every chunk
    is in, with the completion mark ``belote_sim_complete = {"complete": true, "rows":
    n, ...}`` in its key-value metadata (``deal_table.table_status`` checks it).

    * An existing ``path`` is never replaced unless ``overwrite`` (and even then only
      when the new table is complete); if it already holds this very study, complete,
      nothing is simulated (the summary has ``already_complete``).
    * Interrupted (``KeyboardInterrupt``, e.g. Ctrl-C, or an error such as a full
      disk), the finished chunks are kept in ``.NAME.partial`` (a valid Parquet file
      marked ``"complete": false``) and ``RunInterrupted`` (or the error) says so.  The
      same call resumes from there, ``overwrite`` or not: chunk c's seeds depend only
      on (seed, c), so a resumed file is the same, byte for byte, as an uninterrupted
      one.  A partial file of another study is an error, discarded with ``overwrite``.
      A signal after the last chunk does not stop the end: the table is renamed into
      place and the message says it is complete.  A run killed with SIGKILL leaves
      only its temporary, deleted by the next run.
    * Before writing, the disk must have room for the table (``safe_io.estimated_bytes``;
      a resumed run writes the whole table again before the partial file goes); before
      each chunk, for that chunk: a disk that fills up stops the run with a valid
      partial file, resumed once space is freed.

    ``progress(n)`` is called as each chunk of ``n`` deals is written (or kept from
    the resumed file); ``ticks(n)``, when given, as every ``n`` deals are computed,
    about once a second (a progress bar that moves for the slow policies too; the
    deals are the same).

    Before the first chunk the kernels are compiled (``compiling.prepare``, which says
    so when they are not cached): ``seconds`` and the rate leave the compile out, and
    ``compile_s`` says how long it took.

    Returns a summary: deals, computed (deals simulated in this run), resumed_chunks,
    seconds, deals per second (simulated in this run), compile_s, contract mix and
    success.
    """
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"n_deals must be a positive integer, got {n_deals!r}")
    n_deals = int(n_deals)
    path = os.fspath(path)
    side = output_paths(path)
    provenance = json.loads(json.dumps(study.provenance(n_deals)))
    size = study.chunk_size
    n_chunks = -(-n_deals // size)
    start = time.perf_counter()
    with Output(
        path,
        what="the table",
        overwrite=overwrite,
        exists_ok=True,
        leftovers=[side["writing"]],
        hint=" (or a dataset directory with --workers/--scheduler)",
    ) as out:
        kept = 0
        if out.existed and not overwrite:
            summary = _already_complete(path, provenance, trick_log)
            if _partial_state(side["partial"], provenance, trick_log)[0] == "same":
                os.unlink(side["partial"])  # of no use: the table is complete
        else:
            kept = _resumable(side["partial"], provenance, trick_log, size, n_chunks, overwrite)
        if kept == n_chunks:  # a complete table parked as partial (by an older version)
            with signals_deferred():
                os.replace(side["partial"], path)
                fsync_dir(out.directory)
            summary = _summary_of(path)
        if (out.existed and not overwrite) or kept == n_chunks:
            return {
                "deals": n_deals,
                "computed": 0,
                "resumed_chunks": n_chunks,
                "already_complete": True,
                "seconds": time.perf_counter() - start,
                "deals_per_s": 0.0,
                "compile_s": 0.0,
                **summary,
            }
        players, variant = study.rules.players, study.rules.variant
        out.check_space(
            estimated_bytes(n_deals, trick_log, players, variant, size) + _footer_room(n_chunks),
            f"{n_deals:,} deals",
        )
        compile_s = prepare(study, trick_log)
        start += compile_s  # the rate and the seconds leave the compile out
        study.check_feasible()
        old = _open_parquet(side["partial"]) if kept else None
        chunks = _ChunkFile(
            out.tmp,
            json.dumps(study.provenance(n_deals)).encode(),
            n_chunks,
            bytes_per_deal(trick_log, players, variant),
            # to append fresh chunks to a resumed file (computed here: kernels run in this
            # thread only)
            _fresh_schema(study, trick_log) if old is not None else None,
        )
        try:
            computed = _write_chunks(
                chunks, study, n_deals, old, kept, threads, trick_log, progress, ticks
            )
            chunks.finish(out, side["partial"])
        except BaseException as exc:
            with signals_deferred(redeliver=False):
                state = chunks.stop(out, side["partial"], kept, size)
            full = isinstance(exc, OSError) and exc.errno == errno.ENOSPC
            message = _what_is_kept(
                state,
                n_deals,
                side["partial"],
                path,
                out.existed,
                "free some space, then " if full else "",
            )
            if isinstance(exc, KeyboardInterrupt):
                raise RunInterrupted(f"interrupted{message}") from None
            if isinstance(exc, OSError):
                what = "disk full" if full else (exc.strerror or str(exc))
                raise WriteFailed(exc, f"{what} writing {path}{message}") from exc
            raise
        finally:
            if old is not None:
                old.close()
    elapsed = time.perf_counter() - start
    return {
        "deals": n_deals,
        "computed": computed,
        "resumed_chunks": kept,
        "seconds": elapsed,
        "deals_per_s": computed / elapsed if elapsed > 0 else float("inf"),
        "compile_s": compile_s,
        **chunks.counts,
    }


def _open_parquet(path: str) -> Any:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path)


def _what_is_kept(
    state: tuple[str, int, int, int],
    n_deals: int,
    partial: str,
    path: str,
    existed: bool,
    then: str = "",
) -> str:
    """What a stopped run left (``_ChunkFile.stop``), and what the same command does
    (after ``then``: what to do first)."""
    what, chunks, rows, n_chunks = state
    if what == "complete":
        return f" after the last chunk: {path} is complete ({n_deals:,} deals), nothing left to do"
    untouched = f"; {path} is untouched until then" if existed else ""
    if chunks:
        return (
            f": kept {chunks} of {n_chunks} chunks ({rows:,} of {n_deals:,} deals) in "
            f"{partial} (a valid Parquet file); {then}run the same command again to resume"
            f"{untouched}"
        )
    return f": no chunk was finished, nothing kept; {then}the same command starts over{untouched}"


def _already_complete(path: str, provenance: dict[str, Any], trick_log: bool) -> dict[str, Any]:
    """The contract counts of an existing ``path`` that is a complete table of this
    study; ``ValueError`` for any other existing file (it is not replaced without
    ``overwrite``)."""
    import pyarrow.parquet as pq

    try:
        status = table_status(path)
        same = status["complete"] and _same_study(
            status, provenance, trick_log, pq.read_schema(path).names
        )
    except (ValueError, OSError):
        same = False
    if not same:
        raise ValueError(
            f"{path} exists (not a complete table of this study); add --overwrite "
            "(overwrite=True) to replace it (it is kept until the new table "
            "is complete), or choose another output"
        )
    return _summary_of(path)


def _fresh_schema(study: Study, trick_log: bool) -> Any:
    """The Arrow schema of a freshly simulated chunk (one deal)."""
    import pyarrow as pa

    return pa.Table.from_pandas(
        deals_frame(study.run_chunk(0, 1, trick_log)), preserve_index=False
    ).schema


#: room kept on the disk for a file's footer (per chunk, and at least): a reserve file
#: of that size is held while the table is written, and deleted before the footer is
_FOOTER_PER_CHUNK = 8192
_FOOTER_MIN = 1 << 16


def _footer_room(n_chunks: int) -> int:
    return min(_FOOTER_MIN + n_chunks * _FOOTER_PER_CHUNK, 1 << 26)


class _ChunkFile:
    """The file being written (the run's temporary): one or more row groups per chunk,
    the study's provenance in its schema metadata, and the counts of what it holds
    (``done`` chunks of ``n_chunks``, ``rows``, the contract ``counts`` of the
    summary).  ``per_deal``: the estimated bytes of a deal, for the first chunk's room."""

    def __init__(
        self,
        path: str,
        provenance: bytes,
        n_chunks: int,
        per_deal: float,
        fresh_schema: Any = None,
    ):
        self.path = path
        self.provenance = provenance
        self.n_chunks = n_chunks
        self.per_deal = per_deal
        self.fresh_schema = fresh_schema  # reading a resumed file back gives other types
        self.writer: Any = None
        self.reserve = path + ".reserve"  # room for the footer, whatever fills the disk
        self.healthy = True  # False once a write failed: the file's end is unknown
        self.done = self.rows = self.synced = 0
        self.counts: dict[str, Any] = {}
        # the SHA-256 of the row groups, hashed in the writer thread as they are written
        # (while the kernels compute), so that sealing the file reads only its footer
        self.written = GrowingDigest(path)

    def write(self, table: Any) -> None:
        """Append one chunk (an Arrow table); signals wait, so that the counts are
        those of the file."""
        if self.writer is None:
            _hold(self.reserve, _footer_room(self.n_chunks))
        self._check_room(table.num_rows)
        with signals_deferred():
            try:
                self._write(table)
            except BaseException:
                self.healthy = False
                raise

    def _check_room(self, rows: int) -> None:
        """``OSError`` (ENOSPC) before a chunk that might not fit on the disk (the room
        for the footer is held apart): the file stays whole, and closes as a valid
        partial file."""
        import errno
        import shutil

        try:
            per_deal = os.path.getsize(self.path) / self.rows if self.rows else 0.0
            free = shutil.disk_usage(os.path.dirname(self.path)).free
        except OSError:
            return
        if rows * max(per_deal, self.per_deal) * 1.5 > free:
            raise OSError(errno.ENOSPC, "disk full (the next chunk might not fit)")

    def _write(self, table: Any) -> None:
        import pyarrow.parquet as pq

        if self.writer is None:
            schema = table.schema if self.fresh_schema is None else self.fresh_schema
            schema = parquet_schema(schema)  # never-null columns: required
            meta = dict(schema.metadata or {})
            meta[PROVENANCE_KEY] = self.provenance
            self.writer = pq.ParquetWriter(
                self.path,
                schema.with_metadata(meta),
                **parquet_write_options(schema.names),
            )
        table = table.replace_schema_metadata(self.writer.schema.metadata)
        if table.schema != self.writer.schema:
            table = table.cast(self.writer.schema)
        self.writer.write_table(table)
        self.done += 1
        self.rows += table.num_rows
        if self.rows - self.synced >= _SYNC_ROWS:  # to disk while computing, not at the end
            fsync_file(self.path)
            self.synced = self.rows
        self.written.update()

    def write_kept(self, table: Any) -> int:
        """Append a chunk of the file resumed from; its number of deals."""
        self.write(table)
        summary_counts(table.select(["strain", "outcome"]).to_pandas(), self.counts)
        return table.num_rows

    def write_raw(self, raw: dict[str, Any]) -> int:
        """Append a chunk from the kernel arrays of ``Study.run_chunk``; its number of
        deals.  Runs in the writer thread."""
        if raw.get("rules") is not None and raw["rules"].solo:
            return self.write_kept(deals_table(raw))  # through pandas
        cols = kernel_columns(raw["out"])  # contiguous columns, once
        table = deals_table(raw, cols)  # from the kernel arrays, no DataFrame on the way
        self.write(table)
        summary_counts_of_codes(cols[COL_STRAIN], cols[COL_OUTCOME], self.counts)
        return table.num_rows

    def _close(self) -> None:
        """Close the file with its completion mark (complete when every chunk is in) and
        flush it to disk."""
        writer, self.writer = self.writer, None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.reserve)  # room for the footer
        try:
            try:
                writer.add_key_value_metadata(completion_mark(self.rows, self.done, self.n_chunks))
            finally:
                writer.close()
            seal_table(self.path, self.written)  # the file's SHA-256 into its completion mark
        finally:
            self.written.close()  # its read handle, whatever happened
        fsync_file(self.path)

    def finish(self, out: Output, partial: str) -> None:
        """The end of a run, atomic: close the complete file, rename it to the output and
        delete the partial file resumed from; a signal waits until it is all done."""
        with signals_deferred():
            if not out.committed:
                self._close()
                out.commit()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)
            fsync_dir(out.directory)

    def stop(
        self, out: Output, partial: str, kept: int, chunk_size: int
    ) -> tuple[str, int, int, int]:
        """After an interruption or an error: finish a file that has every chunk, or keep
        the finished chunks as ``partial`` when they are more than the ``kept`` ones
        resumed from (and the file closes as a valid Parquet file).  Returns what is on
        disk: ``("complete" or "partial", chunks, rows, n_chunks)``."""
        if not out.committed and self.healthy and self.writer is not None:
            if self.done == self.n_chunks:
                with contextlib.suppress(Exception):
                    self.finish(out, partial)
        if out.committed:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            return "complete", self.done, self.rows, self.n_chunks
        saved = ("partial", kept, kept * chunk_size, self.n_chunks)
        try:
            if self.writer is not None:
                self._close()
            if self.done > kept and _whole(self.path, self.rows):
                os.replace(self.path, partial)
                fsync_dir(out.directory)
                saved = ("partial", self.done, self.rows, self.n_chunks)
        except Exception:  # the older partial file stays; this one is unusable
            pass
        for name in (self.path, self.reserve):
            with contextlib.suppress(OSError):
                os.unlink(name)
        return saved


def _hold(path: str, size: int) -> None:
    """Take ``size`` bytes of the disk in the file ``path`` (really allocated)."""
    with open(path, "wb") as f:
        try:
            os.posix_fallocate(f.fileno(), 0, size)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise
            f.write(bytes(size))  # a filesystem without fallocate


def _whole(path: str, rows: int) -> bool:
    """Whether a closed file is a valid Parquet file of ``rows`` rows whose last row
    group reads (a write that failed, e.g. on a full disk, can leave a broken end)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        n = pf.metadata.num_row_groups
        width = len(pf.schema_arrow)
        if pf.metadata.num_rows != rows or any(
            pf.metadata.row_group(g).num_columns != width for g in range(n)
        ):
            return False
        return n == 0 or pf.read_row_group(n - 1).num_rows == pf.metadata.row_group(n - 1).num_rows
    except (OSError, ValueError, pa.ArrowException):
        return False


def _write_chunks(
    out: _ChunkFile,
    study: Study,
    n_deals: int,
    old: Any,
    kept: int,
    threads: int | None,
    trick_log: bool,
    progress: Callable[[int], None] | None,
    ticks: Callable[[int], None] | None = None,
) -> int:
    """Write the ``kept`` chunks of the file resumed from (``old``, or None), then
    simulate and write the others; returns the number of deals simulated."""
    # in parts of about a second even with no one to report to: Ctrl-C and SIGTERM are
    # handled between two parts (a kernel call holds them), not after a whole chunk
    pacer = Pacer(ticks if ticks is not None else _nobody)
    size = study.chunk_size
    n_chunks = -(-n_deals // size)
    computed = 0
    in_flight: Any = None  # the writer thread's job under way

    def finish(job: Any) -> int:
        n = job.result()
        if progress:
            progress(n)
        return n

    try:
        if old is not None:
            for table in _old_chunks(old, kept, size):
                n = out.write_kept(table)
                if progress:
                    progress(n)
        with numba_threads(threads), ThreadPoolExecutor(1) as pool:
            # The writer thread turns chunk c into a table and writes it while the
            # kernels (which release the GIL) compute chunk c + 1.  A chunk counts
            # (progress, the partial file) once its write is over.
            for chunk in range(kept, n_chunks):
                length = min(size, n_deals - chunk * size)
                raw = study.run_chunk(chunk, length, trick_log, pacer=pacer)
                if in_flight is not None:
                    in_flight, job = None, in_flight
                    computed += finish(job)
                in_flight = pool.submit(out.write_raw, raw)
            if in_flight is not None:
                in_flight, job = None, in_flight
                computed += finish(job)
    except BaseException:
        if in_flight is not None:  # let the write under way end: its chunk is kept
            with contextlib.suppress(BaseException):
                in_flight.result()
        raise
    return computed


def _check_games_memory(n_games: int, words: int) -> None:
    """``ValueError`` when ``n_games`` games (``words`` int64 words of kernel output
    each, plus their seeds and the table: ~3x) cannot fit in this machine's memory:
    the games are played in one go, in memory."""
    need = 3 * n_games * 8 * (words + 1)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return
    if need > total:
        raise ValueError(
            f"{n_games:,} games need about {human_bytes(need)} of memory, more than this "
            f"machine's {human_bytes(total)}: play fewer games (several runs with other "
            "seeds)"
        )


def simulate_games(
    n_games: int,
    rules: Rules | str = "common",
    bidding: Any = None,
    play: Any = None,
    seed: int = 0,
    threads: int | None = None,
    max_deals: int = 200,
    options: Mapping[str, Any] | None = None,
    deal_log: bool = False,
) -> Any:  # the games table, or (games, deals) with deal_log=True
    """Play ``n_games`` whole games to the target; one row per game.

    Dealing follows the rules' ``dealing`` option (``shuffle`` or ``cut``).  Columns:
    ``game_id``, ``seed``, ``first_dealer``, ``deals``, ``score0``, ``score1``
    (final scores: MP, or French points), ``held`` (points still held), ``winner``
    (team, or null if no end within ``max_deals``), ``thrown_in``, ``hanging``,
    ``valats`` (deal counts); the 3-player game has ``score0..score2`` (``winner`` a
    player) and the 2-player games score per player as two teams; in these games every
    deal is a fresh shuffle.  With ``deal_log`` it returns ``(games, deals)`` where
    ``deals`` is a deals table of every deal played (columns as ``simulate``, without
    ``seed`` and ``auction``, plus ``game_id`` and ``deal_no``) -- e.g. to compare
    declaration frequencies of the shuffled and the cut deck.
    """
    study = make_study(rules, bidding, play, seed, options=options)
    if study.python_bidding:
        raise ValueError(
            "bidding by a Python function plays deals (simulate, duel, study), not whole "
            "games: its auctions run outside the kernels"
        )
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games must be a non-negative integer, got {n_games!r}")
    if not 1 <= max_deals <= 100_000:
        raise ValueError("max_deals must be 1..100000")
    solo = study.rules.solo
    _check_games_memory(
        int(n_games),
        (NUM_SOLO_GAME_COLS if solo else NUM_GAME_COLS)
        + (max_deals * (NUM_SOLO_COLS if solo else NUM_COLS) if deal_log else 0),
    )
    seeds = np.random.SeedSequence(int(seed), spawn_key=(0,)).generate_state(
        n_games, dtype=np.uint64
    )
    out = np.zeros((n_games, NUM_SOLO_GAME_COLS if solo else NUM_GAME_COLS), dtype=np.int64)
    log = np.zeros(
        (n_games, max_deals if deal_log else 0, NUM_SOLO_COLS if solo else NUM_COLS), dtype=np.int64
    )
    with numba_threads(threads):
        if solo:
            failed = simulate_solo_games(
                seeds.view(np.int64),
                study.rules.to_array(),
                study.policies,
                max_deals,
                out,
                log,
                study.atlas_arrays,
            )
        else:
            failed = _games_kernel(
                seeds.view(np.int64),
                study.rules.to_array(),
                study.policies,
                max_deals,
                out,
                log,
                search_bits(study.play),
                study.atlas_arrays,
            )
        check_no_failed(failed)
    df = games_frame(seeds, out, 3 if study.rules.players == 3 else 2)
    df.attrs["belote_sim"] = study.provenance(n_games, mode="games")
    if not deal_log:
        return df
    n_deals = out[:, G_DEALS]
    game_id = np.repeat(np.arange(n_games), n_deals)
    deal_no = np.concatenate([np.arange(k) for k in n_deals]) if n_games else np.zeros(0, int)
    rows = log[game_id, deal_no]
    deals = deals_frame(
        {
            "deal_id": np.arange(len(rows)),
            "seed": np.zeros(len(rows), np.uint64),
            "out": rows,
            "calls": np.zeros((len(rows), MAX_CALLS), np.uint8),
            "plays": None,
            "rules": study.rules,
        }
    ).drop(columns=["seed", "auction"])
    deals.insert(1, "game_id", game_id)
    deals.insert(2, "deal_no", deal_no)
    deals.attrs["belote_sim"] = df.attrs["belote_sim"]
    return df, deals
