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
from belote_sim.simulation.deal_table import deals_frame, games_frame
from belote_sim.simulation.study import (
    DEFAULT_CHUNK,
    MAX_TRIES,
    Study,
    make_study,
)

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

    from belote_sim.simulation.deal_table import table_status

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

    from belote_sim.simulation.deal_table import summary_counts

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
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from belote_sim.simulation.deal_table import (
        PROVENANCE_KEY,
        deals_table,
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
        run_lock,
    )

    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 1:
        raise ValueError(f"n_deals must be a positive integer, got {n_deals!r}")
    n_deals = int(n_deals)
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(
            f"{path} is a directory: give a file name (or a dataset directory "
            "with --workers/--scheduler)"
        )
    if not os.path.isdir(directory):
        raise ValueError(f"{directory}: no such directory")
    side = output_paths(path)
    provenance = json.loads(json.dumps(study.provenance(n_deals)))
    size = study.chunk_size
    n_chunks = -(-n_deals // size)
    start = time.perf_counter()
    with run_lock(side["lock"], path):
        if os.path.lexists(path) and not overwrite:
            try:
                status = table_status(path)
                same = status["complete"] and _same_study(
                    status, provenance, trick_log, pq.read_schema(path).names
                )
            except (ValueError, OSError):
                same = False
            if same:
                return {
                    "deals": n_deals,
                    "computed": 0,
                    "resumed_chunks": n_chunks,
                    "already_complete": True,
                    "seconds": time.perf_counter() - start,
                    "deals_per_s": 0.0,
                    **_summary_of(path),
                }
            raise ValueError(
                f"{path} exists (not a complete table of this study); add --overwrite "
                "(overwrite=True) to replace it (it is kept until the new table "
                "is complete), or choose another output"
            )
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
        writer: Any = None
        done = rows = computed = synced = 0
        counts: dict[str, Any] = {}
        in_flight: Any = None  # the writer thread's job under way
        fresh_schema = None  # a fresh chunk's schema, to append to a resumed file
        if old is not None:  # computed here: kernels run in this thread only
            fresh_schema = pa.Table.from_pandas(
                deals_frame(study.run_chunk(0, 1, trick_log)), preserve_index=False
            ).schema

        def write(table) -> None:
            with _signals_deferred():  # the counts must be those of the file
                _write(table)

        def _write(table) -> None:
            nonlocal writer, done, rows, synced
            if writer is None:
                schema = table.schema
                if fresh_schema is not None:  # reading back gives other types
                    schema = fresh_schema
                schema = parquet_schema(schema)  # never-null columns: required
                meta = dict(schema.metadata or {})
                meta[PROVENANCE_KEY] = json.dumps(study.provenance(n_deals)).encode()
                writer = pq.ParquetWriter(
                    side["writing"],
                    schema.with_metadata(meta),
                    **parquet_write_options(schema.names),
                )
            table = table.replace_schema_metadata(writer.schema.metadata)
            if table.schema != writer.schema:
                table = table.cast(writer.schema)
            writer.write_table(table)
            done += 1
            rows += table.num_rows
            if rows - synced >= _SYNC_ROWS:  # to disk while computing, not all at the end
                fsync_file(side["writing"])
                synced = rows

        def convert_and_write(raw: dict[str, Any]) -> int:
            if raw.get("rules") is not None and raw["rules"].solo:
                table = deals_table(raw)  # through pandas
                write(table)
                summary_counts(table.select(["strain", "outcome"]).to_pandas(), counts)
                return table.num_rows
            cols = kernel_columns(raw["out"])  # contiguous columns, once
            table = deals_table(raw, cols)  # from the kernel arrays, no DataFrame on the way
            write(table)
            summary_counts_of_codes(cols[COL_STRAIN], cols[COL_OUTCOME], counts)
            return table.num_rows

        def finish(job) -> int:
            n = job.result()
            if progress:
                progress(n)
            return n

        try:
            if old is not None:
                for table in _old_chunks(old, kept, size):
                    write(table)
                    summary_counts(table.select(["strain", "outcome"]).to_pandas(), counts)
                    if progress:
                        progress(table.num_rows)
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
                    in_flight = pool.submit(convert_and_write, raw)
                if in_flight is not None:
                    in_flight, job = None, in_flight
                    computed += finish(job)
            with _signals_deferred():
                writer.add_key_value_metadata(completion_mark(rows, done, n_chunks))
                writer.close()
                fsync_file(side["writing"])
                os.replace(side["writing"], path)
        except BaseException as exc:
            if in_flight is not None:  # let the write under way end: its chunk is kept
                with contextlib.suppress(BaseException):
                    in_flight.result()
            with _signals_deferred(redeliver=False):
                saved = _keep_partial(writer, side, rows, done, kept, n_chunks)
            if not isinstance(exc, KeyboardInterrupt):
                raise
            if saved:
                what = (
                    f"kept {saved} of {n_chunks} chunks ({saved * size:,} of "
                    f"{n_deals:,} deals) in {side['partial']}; run the same command "
                    "again to resume, or add --overwrite to start over"
                )
            else:
                what = "no chunk was finished, nothing kept; run the same command again"
            raise RunInterrupted(
                f"interrupted: {what}" + (f" ({path} is untouched)" if os.path.exists(path) else "")
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
        **counts,
    }


def _keep_partial(
    writer, side: dict[str, str], rows: int, done: int, kept: int, n_chunks: int
) -> int:
    """After an interruption: close the file being written with an "incomplete" mark
    and keep it as the partial file if it has more chunks than the one resumed from.
    Returns the number of chunks the partial file now holds."""
    from belote_sim.simulation.safe_io import completion_mark, fsync_file

    saved = kept
    try:
        if writer is not None:
            writer.add_key_value_metadata(completion_mark(rows, done, n_chunks))
            writer.close()
            if done > kept:
                fsync_file(side["writing"])
                os.replace(side["writing"], side["partial"])
                saved = done
    except BaseException:  # keep the older partial file; the writing one is unusable
        pass
    with contextlib.suppress(OSError):
        os.unlink(side["writing"])
    return saved


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
    seeds = np.random.SeedSequence(int(seed), spawn_key=(0,)).generate_state(
        n_games, dtype=np.uint64
    )
    solo = study.rules.solo
    out = np.zeros((n_games, NUM_SOLO_GAME_COLS if solo else NUM_GAME_COLS), dtype=np.int64)
    log = np.zeros(
        (n_games, max_deals if deal_log else 0, NUM_SOLO_COLS if solo else NUM_COLS), dtype=np.int64
    )
    with numba_threads(threads):
        if solo:
            simulate_solo_games(
                seeds.view(np.int64), study.rules.to_array(), study.policies, max_deals, out, log
            )
        else:
            _games_kernel(
                seeds.view(np.int64),
                study.rules.to_array(),
                study.policies,
                max_deals,
                out,
                log,
                search_bits(study.play),
                study.atlas_arrays,
            )
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
