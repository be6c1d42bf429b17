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
from belote_sim.simulation.safe_io import (
    check_free_space,
    completion_mark,
    fsync_dir,
    fsync_file,
    human_bytes,
    run_lock,
)
from belote_sim.simulation.study import (
    DEFAULT_CHUNK,
    MAX_TRIES,
    Study,
    check_no_failed,
    make_study,
)
from belote_sim.simulation.table_checksum import seal_table

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


def iter_chunks(
    study: Study, n_deals: int, threads: int | None = None, keep_plays: bool = False
) -> Iterator[pd.DataFrame]:
    """Simulate ``n_deals`` deals chunk by chunk, yielding one DataFrame per chunk."""
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 0:
        raise ValueError(f"n_deals must be a non-negative integer, got {n_deals!r}")
    study.check_feasible()
    with numba_threads(threads):
        n_chunks = -(-n_deals // study.chunk_size)
        for chunk in range(n_chunks):
            length = min(study.chunk_size, n_deals - chunk * study.chunk_size)
            yield deals_frame(study.run_chunk(chunk, length, keep_plays))


def simulate(
    n_deals: int,
    rules: Rules | str = "common",
    bidding: Any = None,
    play: Any = "greedy",
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
    play : play policy spec (``"greedy"``, ``"random"``, ``"greedy:1,0"``), or four.
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


@contextlib.contextmanager
def _signals_deferred(redeliver: bool = True) -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while a file and its counts are updated; a signal
    that came meanwhile is raised again at the end (unless ``redeliver`` is False:
    already stopping)."""
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


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM turned into ``KeyboardInterrupt``) after it
    kept what it had finished; ``str()`` says what was kept and how to resume."""


def output_paths(path: str) -> dict[str, str]:
    """The files beside a single-file output ``DIR/NAME``: ``partial`` (``.NAME.partial``,
    an interrupted run's finished chunks, resumable), ``writing`` (``.NAME.writing``,
    the file being written; never complete) and ``lock`` (``.NAME.lock``)."""
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    return {
        key: os.path.join(directory, f".{name}.{key}") for key in ("partial", "writing", "lock")
    }


def _same_study(
    status: dict[str, Any], provenance: dict[str, Any], trick_log: bool, names: list[str]
) -> bool:
    return status["provenance"] == provenance and ("plays" in names) == bool(trick_log)


def _resumable(
    partial: str, provenance: dict[str, Any], trick_log: bool, chunk_size: int, n_chunks: int
):
    """(chunks kept, ParquetFile) of an interrupted run's partial file of this study;
    (0, None) if it is unreadable (a killed run); ``ValueError`` for another study."""
    import pyarrow.parquet as pq

    try:
        status = table_status(partial)
        pf = pq.ParquetFile(partial)
    except (ValueError, OSError):
        return 0, None
    if not _same_study(status, provenance, trick_log, pf.schema_arrow.names):
        raise ValueError(
            f"{partial} holds an interrupted run of a different study; add "
            "--overwrite (overwrite=True) to discard it, or use another output"
        )
    kept = status["chunks"]
    if status["complete"] or not 0 <= kept < n_chunks or status["rows"] != kept * chunk_size:
        return 0, None
    return kept, pf


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
) -> dict[str, Any]:
    """Stream a simulation to a Parquet file chunk by chunk (bounded memory), crash-safe.

    A file under ``path`` is always a complete study.  The chunks are written to
    ``.NAME.writing`` beside it (one row group per chunk) and the file is renamed to
    ``path`` only when every chunk is in, with the completion mark
    ``belote_sim_complete = {"complete": true, "rows": n, ...}`` in its key-value
    metadata (``deal_table.table_status`` checks it).

    * An existing ``path`` is never replaced unless ``overwrite`` (and even then only
      when the new table is complete); if it already holds this very study, complete,
      nothing is simulated (the summary has ``already_complete``).
    * Interrupted (``KeyboardInterrupt``, e.g. Ctrl-C, or any error), the finished
      chunks are kept in ``.NAME.partial`` (a valid Parquet file marked
      ``"complete": false``) and ``RunInterrupted`` says so.  The same call resumes
      from there: chunk c's seeds depend only on (seed, c), so a resumed file is the
      same, byte for byte, as an uninterrupted one.  ``overwrite`` discards it.  A run
      killed with SIGKILL leaves only ``.NAME.writing``, deleted by the next run.
    * One run per output at a time (lock ``.NAME.lock``; a dead run's lock is stale);
      the disk must have room for the estimated output (``safe_io.estimated_bytes``).

    Returns a summary: deals, computed (deals simulated in this run), resumed_chunks,
    seconds, deals per second (simulated in this run), contract mix and success.

    The steps: check the arguments (``_checked_output``), return at once for a complete
    table of this study (``_already_complete``), find the chunks to resume
    (``_resumable``), write the chunks (``_write_chunks`` into a ``_ChunkFile``), then
    rename the finished file into place (``_ChunkFile.complete``) or keep what was
    finished (``_ChunkFile.keep_partial``).
    """
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"n_deals must be a positive integer, got {n_deals!r}")
    n_deals = int(n_deals)
    path = os.fspath(path)
    directory = _checked_output(path)
    side = output_paths(path)
    provenance = json.loads(json.dumps(study.provenance(n_deals)))
    size = study.chunk_size
    n_chunks = -(-n_deals // size)
    start = time.perf_counter()
    with run_lock(side["lock"], path):
        if os.path.lexists(path) and not overwrite:
            summary = _already_complete(path, provenance, trick_log)
            return {
                "deals": n_deals,
                "computed": 0,
                "resumed_chunks": n_chunks,
                "already_complete": True,
                "seconds": time.perf_counter() - start,
                "deals_per_s": 0.0,
                **summary,
            }
        with contextlib.suppress(FileNotFoundError):
            os.unlink(side["writing"])  # a killed run's file: never complete
        kept, old = 0, None
        if os.path.lexists(side["partial"]):
            if overwrite:
                os.unlink(side["partial"])
            else:
                kept, old = _resumable(side["partial"], provenance, trick_log, size, n_chunks)
        check_free_space(directory, n_deals - kept * size, trick_log)
        study.check_feasible()
        out = _ChunkFile(
            side["writing"],
            json.dumps(study.provenance(n_deals)).encode(),
            # to append fresh chunks to a resumed file (computed here: kernels run in this
            # thread only)
            _fresh_schema(study, trick_log) if old is not None else None,
        )
        try:
            computed = _write_chunks(out, study, n_deals, old, kept, threads, trick_log, progress)
            out.complete(n_chunks, path)
        except BaseException as exc:
            with _signals_deferred(redeliver=False):
                saved = out.keep_partial(side["partial"], kept, n_chunks)
            if not isinstance(exc, KeyboardInterrupt):
                raise
            raise RunInterrupted(
                _interrupted_message(saved, n_chunks, size, n_deals, side["partial"], path)
            ) from None
        finally:
            if old is not None:
                old.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(side["partial"])
        fsync_dir(directory)
    elapsed = time.perf_counter() - start
    return {
        "deals": n_deals,
        "computed": computed,
        "resumed_chunks": kept,
        "seconds": elapsed,
        "deals_per_s": computed / elapsed if elapsed > 0 else float("inf"),
        **out.counts,
    }


def _checked_output(path: str) -> str:
    """The directory of a single-file output ``path``; ``ValueError`` for a directory
    given as the file, or a file in a directory that does not exist."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(
            f"{path} is a directory: give a file name (or a dataset directory "
            "with --workers/--scheduler)"
        )
    if not os.path.isdir(directory):
        raise ValueError(f"{directory}: no such directory")
    return directory


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


class _ChunkFile:
    """The file being written (``.NAME.writing``): one or more row groups per chunk, the
    study's provenance in its schema metadata, and the counts of what it holds
    (``done`` chunks, ``rows``, the contract ``counts`` of the summary)."""

    def __init__(self, path: str, provenance: bytes, fresh_schema: Any = None):
        self.path = path
        self.provenance = provenance
        self.fresh_schema = fresh_schema  # reading a resumed file back gives other types
        self.writer: Any = None
        self.done = self.rows = self.synced = 0
        self.counts: dict[str, Any] = {}

    def write(self, table: Any) -> None:
        """Append one chunk (an Arrow table); signals wait, so that the counts are
        those of the file."""
        with _signals_deferred():
            self._write(table)

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

    def complete(self, n_chunks: int, path: str) -> None:
        """Mark the file complete, flush it to disk and rename it to ``path``."""
        with _signals_deferred():
            self.writer.add_key_value_metadata(completion_mark(self.rows, self.done, n_chunks))
            self.writer.close()
            seal_table(self.path)  # the file's SHA-256 into its completion mark
            fsync_file(self.path)
            os.replace(self.path, path)

    def keep_partial(self, partial: str, kept: int, n_chunks: int) -> int:
        """After an interruption: close the file with an "incomplete" mark and keep it
        as ``partial`` if it has more chunks than the ``kept`` ones resumed from.
        Returns the number of chunks the partial file now holds."""
        saved = kept
        try:
            if self.writer is not None:
                self.writer.add_key_value_metadata(completion_mark(self.rows, self.done, n_chunks))
                self.writer.close()
                if self.done > kept:
                    fsync_file(self.path)
                    os.replace(self.path, partial)
                    saved = self.done
        except BaseException:  # keep the older partial file; the writing one is unusable
            pass
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        return saved


def _write_chunks(
    out: _ChunkFile,
    study: Study,
    n_deals: int,
    old: Any,
    kept: int,
    threads: int | None,
    trick_log: bool,
    progress: Callable[[int], None] | None,
) -> int:
    """Write the ``kept`` chunks of the file resumed from (``old``, or None), then
    simulate and write the others; returns the number of deals simulated."""
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
                raw = study.run_chunk(chunk, length, trick_log)
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


def _interrupted_message(
    saved: int, n_chunks: int, size: int, n_deals: int, partial: str, path: str
) -> str:
    """What an interrupted run kept (``saved`` chunks in ``partial``) and how to resume."""
    if saved:
        what = (
            f"kept {saved} of {n_chunks} chunks ({saved * size:,} of "
            f"{n_deals:,} deals) in {partial}; run the same command "
            "again to resume, or add --overwrite to start over"
        )
    else:
        what = "no chunk was finished, nothing kept; run the same command again"
    return f"interrupted: {what}" + (f" ({path} is untouched)" if os.path.exists(path) else "")


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
    play: Any = "greedy",
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
