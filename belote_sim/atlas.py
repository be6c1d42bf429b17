"""The hand atlas: every 5-card bidding hand answered once, for every strain and position.

A *cell* is (hand class, strain kind, taker's position): the classes are the 5-card
hands up to the interchangeable suits (``simulation.atlas_table``: 38,304 suit classes,
10,808 NT/AT classes, multiplicities summing to 201,376 each), the kinds are suit
(played with clubs trumps: every suit plays alike), NT and AT, and the position is
1 (first after the dealer, who leads) .. 4 (the dealer).  Each cell is measured by
``kernels.atlas.atlas_cells``: deals with the class's hand as the taker's bidding
cards, the rest uniform, the contract fixed, played by the play policy and scored at
x1, x2 and x4.

Building is adaptive: round 0 gives every cell ``first_deals`` deals; each later round
tops a cell up to the deals its P(made) needs for a standard error of ``se_target``
(``p(1 - p) / se_target**2`` with p estimated as (made + 0.5) / (n + 1)), at most
``max_deals``, and, where the sign of net MP x1 is not settled (|mean| < 2 s.e.), to
the deals its standard error needs to reach ``net_se_target`` (0.25 MP), at most
``net_max_deals`` (5,000): precision where the bid-or-pass call is decided
(``needed_deals``), until no cell needs more or ``rounds`` is reached.  Every deal is
played under a random relabelling of the suits (``kernels.suit_symmetry``), so a cell's
value is the average over every member of its class, not that of its representative
hand.  Round r, chunk c
(``chunk_cells`` cells) takes its cell seeds from ``SeedSequence(seed, spawn_key=(r,
c))``; the allocation of a round depends only on earlier rounds, so a build is a pure
function of its arguments (any thread count, any number of workers).  With a work
directory every chunk's sums are kept in a file, and a rerun resumes from them.

``atlas_frame`` turns the sums into one row per cell (means, standard errors,
intervals); ``hand_from_atlas`` answers one hand in milliseconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from belote_sim._version import __version__
from belote_sim.cards import format_cards, parse_cards
from belote_sim.kernels import atlas as KA
from belote_sim.kernels.numba_internals import is_cached
from belote_sim.policies import menu_of, search_bits
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_prior import corrected_stats, table_priors
from belote_sim.simulation.atlas_table import (
    DEFAULT_ATLAS,
    KIND_STRAIN,
    KINDS,
    AtlasTable,
    hand_classes,
    key_hands,
    kind_of,
    load_atlas,
    shipped_atlas,
    write_atlas,
)
from belote_sim.simulation.compiling import compile_notice
from belote_sim.simulation.output import Output, RunInterrupted, check_destination, remove_path
from belote_sim.simulation.runner import make_study, numba_threads
from belote_sim.simulation.safe_io import atomic_write, is_temp, run_lock, signals_deferred
from belote_sim.simulation.study import Study
from belote_sim.stats import Z95, wilson_interval

STRAIN_NAMES = ["C", "D", "H", "S", "NT", "AT"]
#: Seed of the shipped atlas (``analyses/build_atlas.py``).
DEFAULT_SEED = 2026
#: Standard error (MP) that net MP x1 is topped up to where its sign is not settled.
NET_SE_TARGET = 0.25
#: The most deals a cell gets for its net MP x1 (the cap of that top-up).
NET_MAX_DEALS = 5000


def cell_grid(
    kinds: Sequence[int], positions: Sequence[int], class_rows: Sequence[int] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kind, class row, position) of every cell, kind-major."""
    parts = []
    for kind in kinds:
        n = len(hand_classes(kind)[0])
        rows = (
            np.arange(n) if class_rows is None else np.unique([r for r in class_rows if 0 <= r < n])
        )
        k, r, p = np.meshgrid([kind], rows, positions, indexing="ij")
        parts.append(np.stack([k.ravel(), r.ravel(), p.ravel()], axis=1))
    cells = np.concatenate(parts)
    return cells[:, 0], cells[:, 1], cells[:, 2]


def needed_deals(
    totals: np.ndarray,
    se_target: float,
    max_deals: int,
    net_se_target: float | None = None,
    net_max_deals: int = 0,
) -> np.ndarray:
    """Deals each cell still needs (``totals``: cell sums (n, NUM_FIELDS)).

    P(made): until its standard error reaches ``se_target`` (``p(1 - p) /
    se_target**2`` deals, p estimated as (made + 0.5) / (n + 1)), at most
    ``max_deals``.  Net MP x1 (with ``net_se_target``, MP): where its sign is not
    settled (|mean| < 2 s.e.), until its standard error reaches ``net_se_target``
    (``variance / net_se_target**2`` deals), at most ``net_max_deals``.
    """
    n = totals[:, KA.F_N].astype(np.float64)
    made = totals[:, KA.F_MADE]
    p = (made + 0.5) / (n + 1.0)
    want = np.minimum(np.ceil(p * (1 - p) / se_target**2), max_deals).astype(np.int64)
    if net_se_target is not None:
        safe_n = np.maximum(n, 1.0)
        mean = totals[:, KA.F_LEVEL + KA.L_NET] / safe_n
        var = np.maximum(totals[:, KA.F_LEVEL + KA.L_NET2] / safe_n - mean * mean, 0.0)
        var *= safe_n / np.maximum(safe_n - 1.0, 1.0)  # the unbiased variance
        se = np.sqrt(var / safe_n)
        unsettled = (n > 1) & (np.abs(mean) < 2 * se)
        net_want = np.minimum(np.ceil(var / net_se_target**2), net_max_deals).astype(np.int64)
        want = np.where(unsettled, np.maximum(want, net_want), want)
    return np.clip(want - totals[:, KA.F_N], 0, None)


@dataclass(frozen=True)
class AtlasPlay:
    """What every cell is played with, as ``kernels.atlas.atlas_cells`` takes it: the
    rules array, the play policies (kernel ids and parameters), the seats that
    announce a belote, and the search bits of the play policies."""

    rules: np.ndarray
    play_ids: np.ndarray
    play_params: np.ndarray
    announce_mask: int
    search_bits: int
    menu: np.ndarray

    @classmethod
    def of(cls, study: Study) -> AtlasPlay:
        play_ids, play_params = study.play_arrays
        return cls(
            study.rules.to_array(),
            play_ids,
            play_params,
            study.announce_mask,
            search_bits(study.play),
            menu_of(
                study.play,
                players=study.rules.players,
                forms=[] if study.rules.solo else ["four"],
            ),
        )


def run_cells(
    hands: np.ndarray,
    strains: np.ndarray,
    positions: np.ndarray,
    counts: np.ndarray,
    seeds: np.ndarray,
    play: AtlasPlay,
    threads: int | None = None,
    stop: np.ndarray | None = None,
) -> np.ndarray:
    """The sums (``len(hands)``, ``NUM_FIELDS``) of ``counts[i]`` deals of each cell i
    (the taker's bidding hand, strain and position), seeded by ``seeds[i]``.  ``stop``
    (an int64 array of one): set non-zero from another thread, the kernel returns
    before its threads' next deals and the sums are incomplete."""
    out, args = cells_call(hands, strains, positions, counts, seeds, play, stop)
    with numba_threads(threads):
        KA.atlas_cells(*args)
    return out


def cells_call(
    hands: np.ndarray,
    strains: np.ndarray,
    positions: np.ndarray,
    counts: np.ndarray,
    seeds: np.ndarray,
    play: AtlasPlay,
    stop: np.ndarray | None = None,
) -> tuple[np.ndarray, tuple[Any, ...]]:
    """The sums array of ``run_cells`` and the arguments of its kernel call."""
    out = np.zeros((len(hands), KA.NUM_FIELDS), dtype=np.int64)
    if stop is None:
        stop = np.zeros(1, dtype=np.int64)
    policies = (play.play_ids, play.play_params, play.announce_mask, play.menu)
    return out, (hands, strains, positions, counts, seeds, play.rules, policies,
                 play.search_bits, out, stop)  # fmt: skip


#: how often (seconds) the main thread looks for a signal while a chunk computes
_POLL_S = 0.05


def run_cells_interruptibly(
    args: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, AtlasPlay],
    threads: int | None = None,
) -> np.ndarray:
    """``run_cells(*args)`` in a worker thread (the kernel releases the GIL) while the
    main thread waits in short steps, so that Ctrl-C or SIGTERM is handled at once
    rather than when the chunk ends (minutes with the expert): the kernel is then
    told to stop (each of its threads before its next deal), the unfinished chunk is
    thrown away and the interruption raised.  Outside the main thread: ``run_cells``."""
    if threading.current_thread() is not threading.main_thread():
        return run_cells(*args, threads=threads)
    stop = np.zeros(1, dtype=np.int64)
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["part"] = run_cells(*args, threads=threads, stop=stop)
        except BaseException as exc:  # raised again in the main thread
            result["error"] = exc

    worker = threading.Thread(target=work, name="belote-sim-atlas-chunk", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(_POLL_S)
    except BaseException:
        stop[0] = 1
        with signals_deferred(redeliver=False):  # a second Ctrl-C: stopping already
            worker.join()
        raise
    if "error" in result:
        raise result["error"]
    return result["part"]


def build_atlas(
    path: str | os.PathLike | None,
    rules: Rules | str = "common",
    play: Any = None,
    seed: int = DEFAULT_SEED,
    se_target: float = 0.02,
    first_deals: int = 200,
    max_deals: int = 1000,
    rounds: int = 16,
    chunk_cells: int = 4096,
    threads: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    work_dir: str | os.PathLike | None = None,
    progress: Callable[[int], None] | None = None,
    options: dict[str, Any] | None = None,
    kinds: Sequence[str] = KINDS,
    positions: Sequence[int] = (1, 2, 3, 4),
    class_rows: Sequence[int] | None = None,
    net_se_target: float | None = NET_SE_TARGET,
    net_max_deals: int = NET_MAX_DEALS,
    *,
    overwrite: bool = False,
) -> AtlasTable:
    """Build an atlas (module docstring) and write it to ``path`` (if given).

    ``kinds``/``positions``/``class_rows`` (rows of ``hand_classes``) restrict the cells
    (tests, previews);
    cells left out have no deals.  ``workers``/``scheduler`` run the chunks on a local
    dask cluster / a dask.distributed scheduler; ``work_dir`` keeps every chunk's sums
    (resumable: a chunk file that is missing, unreadable or not the chunk's is computed
    again).  ``progress(n)`` is called with the deals of each finished chunk.
    Returns the ``AtlasTable``; its ``meta`` records the rules, play policy, seed,
    deals and build seconds.

    ``path`` is written under the output discipline (``simulation.output.Output``):
    checked (its folder, an existing file: replaced only with ``overwrite``, the free
    space) and locked before the build starts, written to a temporary name and renamed
    when complete.  Without ``work_dir`` the finished chunks are kept in
    ``.NAME.chunks`` beside ``path`` until the atlas is written (then deleted), so an
    interrupted build resumes too.  Ctrl-C (or SIGTERM) stops the build within a deal
    of each thread (the chunk being computed runs in a worker thread,
    ``run_cells_interruptibly``) and raises ``RunInterrupted``, which says what is kept.
    """
    study = make_study(rules, "fixed:0,0,0", play, seed, options=options)
    if study.rules.solo:
        raise ValueError("the atlas is for the 4-player game")
    if not 0 < se_target < 0.5:
        raise ValueError(f"se_target must be in (0, 0.5), got {se_target!r}")
    if not 1 <= first_deals <= max_deals:
        raise ValueError("need 1 <= first_deals <= max_deals")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(
            f"rounds must be at least 1 (round 0 gives every cell its deals), got {rounds!r}"
        )
    if isinstance(chunk_cells, bool) or not isinstance(chunk_cells, int) or chunk_cells < 1:
        raise ValueError(f"chunk_cells must be a positive integer, got {chunk_cells!r}")
    if net_se_target is not None and not (net_se_target > 0 and net_max_deals >= 1):
        raise ValueError("need net_se_target > 0 and net_max_deals >= 1 (or net_se_target None)")
    bad = set(kinds) - set(KINDS)
    if bad or not kinds:
        raise ValueError(f"kinds must be among {', '.join(KINDS)}, got {sorted(bad)}")
    if not positions or set(positions) - {1, 2, 3, 4}:
        raise ValueError("positions must be among 1..4")
    kind_ids = [
        KINDS.index(k) for k in kinds if study.rules.strain_allowed(KIND_STRAIN[KINDS.index(k)])
    ]
    if not kind_ids:
        raise ValueError(f"the {study.rules.name} rules play none of the kinds {', '.join(kinds)}")
    kind, row, pos = cell_grid(kind_ids, sorted(set(positions)), class_rows)
    if len(kind) == 0:
        raise ValueError("no cell to build: class_rows selects no hand class")
    with contextlib.ExitStack() as stack:
        out = None
        if path is not None:
            out = stack.enter_context(
                Output(
                    path,
                    what="the atlas",
                    overwrite=overwrite,
                    need=_atlas_bytes(),
                    leftovers=[f"{os.fspath(path)}.tmp.npz"],  # older versions' temporary
                )
            )
        own = work_dir is None and out is not None
        if own:  # the finished chunks are kept beside the output until it is written
            assert out is not None
            work_dir = os.path.join(out.directory, f".{out.name}.chunks")
        work = _WorkDir(work_dir, stack, own=own) if work_dir is not None else None
        start = time.perf_counter()
        try:
            table = _build(
                study, seed, se_target, first_deals, max_deals, rounds, chunk_cells, threads,
                workers, scheduler, work, progress, kinds, positions, class_rows,
                net_se_target, net_max_deals, (kind, row, pos), start,
            )  # fmt: skip
            if out is not None:
                table.path = str(path)
                with open(out.tmp, "wb") as f:
                    write_atlas(table, f)
                out.commit()
                load_atlas.cache_clear()
        except KeyboardInterrupt as exc:
            if isinstance(exc, RunInterrupted) or (out is not None and out.committed):
                raise  # the atlas is complete: ``Output`` says so
            raise RunInterrupted(_atlas_interrupted(out, work)) from None
        if own and work is not None:
            work.clear()  # under its lock
    if own and work is not None:
        with contextlib.suppress(OSError):  # empty now, unless another run came meanwhile
            os.rmdir(work.path)
    return table


def _atlas_bytes() -> int:
    """The size of an atlas file, generously: its arrays uncompressed (int32 sums)."""
    cells = sum(len(hand_classes(k)[0]) for k in range(3)) * 4 * KA.NUM_FIELDS
    return 4 * cells + (1 << 20)


def _atlas_interrupted(out: Output | None, work: _WorkDir | None) -> str:
    """What an interrupted build leaves, and what the same command does."""
    written = ""
    if out is not None:
        written = f" ({out.shown} {'left untouched' if out.existed else 'not created'})"
    if work is not None:
        return (
            f"interrupted: the atlas was not written{written}; the {work.kept()} finished "
            f"chunks are kept in {work.path}: run the same command again to resume from them"
        )
    return (
        f"interrupted: the atlas was not written{written}, nothing kept (with --work-dir "
        "the finished chunks are kept and a rerun resumes); the same command starts over"
    )


class _WorkDir:
    """The work directory of a build: one ``.npz`` file per chunk (its sums, and its
    identity: the build (a hash of the stamp), round, chunk, cells and the sums'
    SHA-256), the build's stamp (``build.json``), a lock (one build at a time), files
    written atomically.  A chunk file that does not hold the chunk's sums (unreadable,
    empty, another chunk's or another build's file copied over it, flipped bytes) is
    computed again and replaced."""

    LOCK = "_belote_sim.lock"

    def __init__(self, path: str | os.PathLike, stack: contextlib.ExitStack, own: bool = False):
        self.own = own  # the build's default directory: another build's chunks are cleared
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"{self.path} is a file: --work-dir is a directory")
        self.path.mkdir(parents=True, exist_ok=True)
        check_destination(str(self.path / self.LOCK))  # a folder we may write in
        stack.enter_context(run_lock(str(self.path / self.LOCK), str(self.path)))
        for name in os.listdir(self.path):  # leftovers of dead builds (under the lock)
            if is_temp(name) or name.endswith(".npy"):  # (.npy: older versions' chunks)
                remove_path(str(self.path / name))
        self.loaded = self.written = self.redone = 0
        self.build = ""  # the hash of the build's stamp (``check_stamp``)

    def check_stamp(self, stamp: dict[str, Any]) -> None:
        """``ValueError`` if the directory holds the chunks of another build."""
        stamp_path = self.path / "build.json"
        stamp = json.loads(json.dumps(stamp))
        text = json.dumps(stamp, sort_keys=True)
        self.build = hashlib.sha256(text.encode()).hexdigest()[:16]
        if stamp_path.exists():
            try:
                old = json.loads(stamp_path.read_text())
            except (OSError, ValueError):
                old = None  # a damaged stamp: its chunk files are checked one by one
            if old is not None and old != stamp:
                if not self.own:
                    raise ValueError(f"{self.path} holds the chunks of another atlas build")
                for name in os.listdir(self.path):  # an earlier build's, for this output
                    if name != self.LOCK:
                        remove_path(str(self.path / name))
        atomic_write(str(stamp_path), json.dumps(stamp).encode())

    def file(self, r: int, c: int) -> Path:
        return self.path / f"round{r}_chunk{c:05d}.npz"

    def identity(self, r: int, c: int, idx: np.ndarray, counts: np.ndarray) -> dict[str, Any]:
        """What a chunk file must say it holds: this build (a hash of its stamp), the
        round and chunk, and its cells and their deal counts (a hash)."""
        cells = hashlib.sha256(np.ascontiguousarray(idx, dtype=np.int64).tobytes())
        cells.update(np.ascontiguousarray(counts, dtype=np.int64).tobytes())
        return {"build": self.build, "round": r, "chunk": c, "cells": cells.hexdigest()[:32]}

    def load(self, r: int, c: int, idx: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
        """The sums of chunk c of round r (cells ``idx``, ``counts`` deals each) if its
        file holds them: its identity is this chunk's and the checksum of its sums
        matches; else None (the chunk is computed again: a damaged file, or another
        chunk's or another build's copied over it)."""
        file = self.file(r, c)
        if not file.exists():
            return None
        try:
            with np.load(file, allow_pickle=False) as z:
                part = z["sums"]
                label = json.loads(z["identity"].tobytes().decode("utf-8"))
            good = (
                isinstance(label, dict)
                and {k: label.get(k) for k in ("build", "round", "chunk", "cells")}
                == self.identity(r, c, idx, counts)
                and part.dtype == np.int64
                and part.shape == (len(counts), KA.NUM_FIELDS)
                and label.get("sha256") == hashlib.sha256(part.tobytes()).hexdigest()
                and (part[:, KA.F_N] == counts).all()
            )
        except (OSError, ValueError, EOFError, KeyError, RecursionError, zipfile.BadZipFile):
            good = False
        if not good:
            self.redone += 1
            return None
        self.loaded += 1
        return part

    def store(self, r: int, c: int, idx: np.ndarray, counts: np.ndarray, part: np.ndarray) -> None:
        label = {
            **self.identity(r, c, idx, counts),
            "sha256": hashlib.sha256(np.ascontiguousarray(part).tobytes()).hexdigest(),
        }
        buffer = io.BytesIO()
        np.savez(
            buffer,
            sums=part,
            identity=np.frombuffer(json.dumps(label).encode(), dtype=np.uint8),
        )
        atomic_write(str(self.file(r, c)), buffer.getbuffer())
        self.written += 1

    def kept(self) -> int:
        return self.loaded + self.written

    def clear(self) -> None:
        """Delete the chunks and the stamp (the atlas is written; the lock is released
        when the build ends)."""
        for name in os.listdir(self.path):
            if name != self.LOCK:
                remove_path(str(self.path / name))


def _build(
    study: Study,
    seed: int,
    se_target: float,
    first_deals: int,
    max_deals: int,
    rounds: int,
    chunk_cells: int,
    threads: int | None,
    workers: int | None,
    scheduler: str | None,
    work: _WorkDir | None,
    progress: Callable[[int], None] | None,
    kinds: Sequence[str],
    positions: Sequence[int],
    class_rows: Sequence[int] | None,
    net_se_target: float | None,
    net_max_deals: int,
    cells: tuple[np.ndarray, np.ndarray, np.ndarray],
    start: float,
) -> AtlasTable:
    """The rounds of ``build_atlas`` (its arguments checked); the atlas, not written."""
    kind, row, pos = cells
    hands = np.concatenate([key_hands(hand_classes(k)[0], k) for k in range(3)])
    offsets = np.cumsum([0] + [len(hand_classes(k)[0]) for k in range(3)])
    cell_hands = hands[offsets[kind] + row]
    cell_strains = np.array(KIND_STRAIN, dtype=np.int64)[kind]
    totals = np.zeros((len(kind), KA.NUM_FIELDS), dtype=np.int64)
    play = AtlasPlay.of(study)
    if work is not None:
        work.check_stamp(
            {
                "rules": study.rules.name,
                "options": study.rules.options(),
                "play": str(study.play[0]),
                "seed": seed,
                "se_target": se_target,
                "first_deals": first_deals,
                "max_deals": max_deals,
                "net_se_target": net_se_target,
                "net_max_deals": net_max_deals,
                "chunk_cells": chunk_cells,
                "kinds": list(kinds),
                "positions": sorted(set(positions)),
                "class_rows": None if class_rows is None else [int(r) for r in class_rows],
            }
        )
    client = cluster = None
    try:
        if workers or scheduler:
            from belote_sim.simulation.distributed import local_cluster, require_dask

            Client, _, _ = require_dask()
        if scheduler is None:
            # compile here, in the main thread (a Ctrl-C stops a compile at once), before
            # the chunks run in a worker thread and before dask workers load
            hand, strain, at = cell_hands[:1], cell_strains[:1], pos[:1]
            one, seed0 = np.ones(1, np.int64), np.zeros(1, np.int64)
            cached = is_cached(KA.atlas_cells, cells_call(hand, strain, at, one, seed0, play)[1])
            with compile_notice(cached, play.menu):
                run_cells(hand, strain, at, one, seed0, play)
        if workers or scheduler:
            if scheduler is None:
                cluster = local_cluster(workers or 1)
            client = Client(cluster if cluster is not None else scheduler)
        for r in range(rounds):
            counts = (
                np.full(len(kind), first_deals, dtype=np.int64)
                if r == 0
                else needed_deals(totals, se_target, max_deals, net_se_target, net_max_deals)
            )
            todo = np.flatnonzero(counts)
            if len(todo) == 0:
                break
            chunks = [todo[i : i + chunk_cells] for i in range(0, len(todo), chunk_cells)]
            pending = {}
            for c, idx in enumerate(chunks):
                part = work.load(r, c, idx, counts[idx]) if work is not None else None
                if part is not None:
                    _add(part, totals, idx, progress, counts)
                    continue
                seeds = (
                    np.random.SeedSequence(int(seed), spawn_key=(r, c))
                    .generate_state(len(idx), dtype=np.uint64)
                    .view(np.int64)
                )
                args = (cell_hands[idx], cell_strains[idx], pos[idx], counts[idx], seeds, play)
                if client is not None:
                    pending[client.submit(run_cells, *args, pure=False)] = (c, idx)
                else:
                    part = run_cells_interruptibly(args, threads=threads)
                    if work is not None:
                        work.store(r, c, idx, counts[idx], part)
                    _add(part, totals, idx, progress, counts)
            if client is not None:
                from belote_sim.simulation.distributed import require_dask

                _, _, as_completed = require_dask()

                for future in as_completed(list(pending)):
                    c, idx = pending.pop(future)
                    part = future.result()
                    if work is not None:
                        work.store(r, c, idx, counts[idx], part)
                    _add(part, totals, idx, progress, counts)
    except KeyboardInterrupt:
        if client is not None or cluster is not None:
            from belote_sim.simulation.distributed import quiet_dask

            quiet_dask()  # the complaints of the closing cluster
        raise
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    elapsed = time.perf_counter() - start
    sums = [np.zeros((len(hand_classes(k)[0]), 4, KA.NUM_FIELDS), dtype=np.int64) for k in range(3)]
    for k in range(3):
        sel = kind == k
        sums[k][row[sel], pos[sel] - 1] = totals[sel]
    meta = {
        "belote_sim": __version__,
        "ruleset": study.rules.name,
        "options": study.rules.options(),
        "play": str(study.play[0]),
        "seed": int(seed),
        "se_target": se_target,
        "first_deals": first_deals,
        "max_deals": max_deals,
        "net_se_target": net_se_target,
        "net_max_deals": net_max_deals,
        "rounds": rounds,
        "chunk_cells": chunk_cells,
        "kinds": list(kinds),
        "positions": sorted(set(positions)),
        "class_rows": None if class_rows is None else len(class_rows),
        "deals": int(totals[:, KA.F_N].sum()),
        "cells": len(kind),
        "build_seconds": round(elapsed, 1),
    }
    keys = [hand_classes(0)[0], hand_classes(1)[0], hand_classes(2)[0]]
    mult = [hand_classes(k)[1] for k in range(3)]
    return AtlasTable(json.loads(json.dumps(meta)), keys, mult, sums, None)


def _add(part, totals, idx, progress, counts) -> None:
    totals[idx] += part
    if progress:
        progress(int(counts[idx].sum()))


def cell_stats(sums: np.ndarray, prior: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Means, standard errors and intervals from cell sums (..., NUM_FIELDS).

    With ``prior`` (the atlas's prior of P(made) for these cells' strain kind,
    ``table_priors``): the values an atlas publishes, which do not depend on when a
    cell stopped (``simulation.atlas_prior``): ``p_made`` the posterior mean,
    ``p_made_se`` its posterior sd, ``p_made_low``/``p_made_high`` the 95% posterior
    interval, ``net_mp_x1/x2/x4`` and their ``_se`` corrected (MP per deal); the plain
    estimates stay in ``p_made_raw`` and ``net_mp_x1_raw``.  Without: the plain
    estimates of the sums (for sums of deals all drawn at once, as by simulation).

    Keys: ``n``, ``p_made`` with ``p_made_low``/``p_made_high`` (Wilson 95%) and
    ``p_made_se`` (the larger of sqrt(p (1 - p) / n) and the Wilson half-width / 1.96:
    never 0, also at P(made) 0 or 1), ``p_inside``, ``p_hanging``, ``p_valat_by``,
    ``p_valat_against``,
    ``card_points`` (taker's team, with ``_se``), and for x = 1, 2, 4: ``taker_mp_x``,
    ``defender_mp_x``, ``net_mp_x`` (MP added now) each with ``_se``.  NaN where n = 0.
    """
    s = np.asarray(sums, dtype=np.float64)
    n = s[..., KA.F_N]
    out: dict[str, np.ndarray] = {"n": n.astype(np.int64)}
    with np.errstate(invalid="ignore", divide="ignore"):
        nn = np.where(n > 0, n, np.nan)
        p = s[..., KA.F_MADE] / nn
        out["p_made"] = p
        low, high = wilson_interval(s[..., KA.F_MADE], n)
        out["p_made_low"], out["p_made_high"] = low, high
        # never 0 at P(made) 0 or 1: at least the Wilson 95% half-width / Z95
        denom = 1 + Z95 * Z95 / n
        half = Z95 * np.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / denom
        out["p_made_se"] = np.maximum(np.sqrt(p * (1 - p) / nn), half / Z95)
        out["p_inside"] = s[..., KA.F_INSIDE] / nn
        out["p_hanging"] = s[..., KA.F_HANGING] / nn
        out["p_valat_by"] = s[..., KA.F_VALAT_BY] / nn
        out["p_valat_against"] = s[..., KA.F_VALAT_AGAINST] / nn

        def mean_se(col, col2):
            mean = s[..., col] / nn
            var = (s[..., col2] - nn * mean * mean) / np.where(n > 1, n - 1, np.nan)
            return mean, np.sqrt(np.maximum(var, 0) / nn)

        out["card_points"], out["card_points_se"] = mean_se(KA.F_CARD, KA.F_CARD2)
        for level, x in enumerate((1, 2, 4)):
            base = KA.F_LEVEL + 6 * level
            for name, off in (
                ("taker_mp", KA.L_TAKER),
                ("defender_mp", KA.L_DEF),
                ("net_mp", KA.L_NET),
            ):
                mean, se = mean_se(base + off, base + off + 1)
                out[f"{name}_x{x}"], out[f"{name}_x{x}_se"] = mean, se
    if prior is not None:
        out["p_made_raw"], out["net_mp_x1_raw"] = out["p_made"], out["net_mp_x1"]
        measured = n > 0
        fixed = corrected_stats(s[measured], prior)
        for key, value in fixed.items():
            column = np.full(n.shape, np.nan)
            column[measured] = value
            out[key] = column
    return out


def table_stats(table: AtlasTable, kind: int, sums: np.ndarray) -> dict[str, np.ndarray]:
    """``cell_stats`` of cells of ``table`` of strain kind ``kind`` (0 suit, 1 NT, 2 AT)
    with the atlas's prior: the values an atlas publishes."""
    return cell_stats(sums, table_priors(table)[kind])


def atlas_frame(
    table: AtlasTable, kinds: Sequence[str] = KINDS, positions: Sequence[int] = (1, 2, 3, 4)
) -> pd.DataFrame:
    """One row per cell: ``kind``, ``key``, ``hand`` (a representative; suit classes
    with clubs trumps), ``multiplicity``, ``position`` and the ``cell_stats`` columns."""
    frames = []
    for name in kinds:
        k = KINDS.index(name)
        keys = table.keys[k]
        hands = key_hands(keys, k)
        for position in positions:
            stats = table_stats(table, k, table.sums[k][:, position - 1])
            df = pd.DataFrame(
                {
                    "kind": name,
                    "key": keys,
                    "hand": [" ".join(format_cards(int(h))) for h in hands],
                    "multiplicity": table.mult[k],
                    "position": position,
                    **stats,
                }
            )
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def position_of(seat: int, dealer: int) -> int:
    """Bidding position 1..4 of a seat (1 = first after the dealer, 4 = the dealer)."""
    return (seat - dealer - 1) % 4 + 1


#: A bidding position in words (1 = first after the dealer .. 4 = the dealer).
POSITION_WORDS = {
    1: "speaks first and leads",
    2: "speaks second: the dealer's partner",
    3: "speaks third: the leader's partner",
    4: "speaks last: the dealer",
}
#: Deals per strain of ``hand_by_simulation`` when none are asked for.
HAND_DEALS = 20_000
#: The columns of a hand's table, whichever path answers (``hand_from_atlas``,
#: ``hand_by_simulation``): per strain the rules allow, the deals ``n``, P(made) with
#: its 95% interval (by simulation: the plain estimate and its Wilson interval; from
#: the atlas: the published values of ``table_stats``, a posterior mean and interval
#: that do not depend on when the cell stopped), the net MP per deal (the taker's
#: team's MP minus the defenders', added now) at x1, x2 and x4 with their standard
#: errors (from the atlas: corrected likewise; NaN where the
#: rules do not double that far), the paired difference of net MP x1 from the best
#: strain on the same deals with its s.e. (simulation only: NaN from the atlas, whose
#: cells are measured on separate deals) and ``source`` ("atlas" or "simulation").
HAND_COLUMNS = (
    "strain",
    "n",
    "p_made",
    "p_made_low",
    "p_made_high",
    "net_mp_x1",
    "net_mp_x1_se",
    "net_mp_x2",
    "net_mp_x2_se",
    "net_mp_x4",
    "net_mp_x4_se",
    "vs_best",
    "vs_best_se",
    "source",
)
_NAN = float("nan")


def play_spec(play: Any, rules: Rules) -> str:
    """The play policy of all four seats as a full spec (``"expert:0"`` ->
    ``"expert:0,24,32,0,3"``, the form an atlas's ``meta["play"]`` records); None:
    ``policies.default_play`` for these rules."""
    from belote_sim.policies import PLAY_POLICIES, default_play, parse_policy

    if play is None:
        play = default_play(rules.players, rules.variant)
    return str(parse_policy(play, PLAY_POLICIES, "play"))


def atlas_play(table: AtlasTable, rules: Rules) -> str:
    """The play policy an atlas's ``meta["play"]`` records, as a full spec (``play_spec``:
    parameters the atlas predates take their defaults, so ``expert:0,24,32,0,2`` is
    ``expert:0,24,32,0,2,0``); the recorded text when it names no policy."""
    have = table.meta.get("play")
    try:
        return play_spec(have, rules) if isinstance(have, str) else str(have)
    except ValueError:
        return str(have)


def rules_words(rules: Rules) -> str:
    """``common rules`` or ``common rules with kirtik=true`` (the options that differ
    from the preset's)."""
    changed = _options_diff(Rules.preset(rules.name).options(), rules.options())
    return f"{rules.name} rules" + (f" with {changed}" if changed else "")


def _options_diff(base: dict[str, Any], other: dict[str, Any]) -> str:
    base, other = json.loads(json.dumps(base)), json.loads(json.dumps(other))
    return ", ".join(
        f"{k}={json.dumps(other.get(k))}" for k in sorted(other) if base.get(k) != other.get(k)
    )


def atlas_gaps(hand: str, position: int, table: AtlasTable, rules: Rules, play: Any) -> list[str]:
    """Why the atlas ``table`` cannot answer ``hand`` at ``position`` under ``rules`` and
    ``play`` (every seat): one phrase per reason, [] when it can."""
    gaps = []
    cards = parse_cards(hand)
    if len(cards) != 5:
        gaps.append(f"the atlas holds 5-card bidding hands, not {len(cards)}-card hands")
    if not table.covers(rules):
        name = table.meta.get("ruleset")
        if name != rules.name:
            gaps.append(f"the atlas covers the {name} rules, not the {rules.name} rules")
        else:
            theirs = _options_diff(rules.options(), table.meta.get("options") or {})
            gaps.append(
                f"the atlas covers the {name} rules with {theirs or 'other options'}, "
                f"not {_options_diff(table.meta.get('options') or {}, rules.options())}"
            )
    want, have = play_spec(play, rules), atlas_play(table, rules)
    if want != have:
        gaps.append(f"the atlas's players play {have}, not {want}")
    if not gaps:
        mask = sum(1 << c for c in cards)
        for strain in range(6):
            if rules.strain_allowed(strain) and table.lookup(mask, strain, position)[KA.F_N] == 0:
                gaps.append(f"the atlas has no deals for this hand at position {position}")
                break
    return gaps


def hand_from_atlas(
    hand: str,
    position: int = 1,
    table: AtlasTable | None = None,
    rules: Rules | str = "common",
    play: Any = None,
    options: dict[str, Any] | None = None,
) -> pd.DataFrame | None:
    """Answer one 5-card hand from the atlas (default: the shipped one), or None when
    the atlas does not cover the hand size, the rules (preset and options), the play
    policy (None: the default play) or this hand's cells (``atlas_gaps``).

    Returns one row per strain allowed by the rules, the columns ``HAND_COLUMNS``
    (``source`` = "atlas"; ``vs_best`` NaN).
    """
    if position not in (1, 2, 3, 4):
        raise ValueError(f"position must be 1..4, got {position!r}")
    rules = Rules.from_spec(rules, options)
    if table is None:
        if not shipped_atlas(rules).exists():
            return None
        table = load_atlas(str(shipped_atlas(rules)))
    if atlas_gaps(hand, position, table, rules, play):
        return None
    mask = sum(1 << c for c in parse_cards(hand))
    rows = []
    for strain, name in enumerate(STRAIN_NAMES):
        if not rules.strain_allowed(strain):
            continue
        stats = table_stats(table, kind_of(strain), table.lookup(mask, strain, position))
        row: dict[str, Any] = {"strain": name, "n": int(stats["n"])}
        for key in ("p_made", "p_made_low", "p_made_high", "net_mp_x1", "net_mp_x1_se"):
            row[key] = float(stats[key])
        for level, x in ((1, 2), (2, 4)):
            ok = level <= rules.max_doubling
            row[f"net_mp_x{x}"] = float(stats[f"net_mp_x{x}"]) if ok else _NAN
            row[f"net_mp_x{x}_se"] = float(stats[f"net_mp_x{x}_se"]) if ok else _NAN
        row.update(vs_best=_NAN, vs_best_se=_NAN, source="atlas")
        rows.append(row)
    return pd.DataFrame(rows, columns=list(HAND_COLUMNS))


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else _NAN


def hand_by_simulation(
    hand: str,
    seat: int = 0,
    dealer: int = 3,
    deals: int = HAND_DEALS,
    rules: Rules | str = "common",
    play: Any = None,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """The table of ``hand_from_atlas`` by direct simulation (``source`` =
    "simulation"), for 5 bidding cards or all 8, any rules and play policy: per
    strain, ``deals`` deals with the hand predealt to ``seat``, that seat taking
    undoubled, every strain on the same deals (the same seed: the same cards); each
    deal's play is scored again at x2 and x4 (as the atlas does: the play does not
    depend on the doubling; NaN where the rules do not double that far).
    ``vs_best``/``vs_best_se``: the paired difference of net MP x1 from the best
    strain (``best_strain``) on the same deals."""
    from belote_sim.kernels.scoring import score_deal
    from belote_sim.simulation.runner import simulate

    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 2:
        raise ValueError(f"deals must be an integer of at least 2, got {deals!r}")
    cards = parse_cards(hand)
    if len(cards) not in (5, 8):
        raise ValueError(f"hand: give the 5 bidding cards or all 8 cards, got {len(cards)}")
    rules = Rules.from_spec(rules, options)
    rules_array = rules.to_array()
    team = seat % 2
    fields = ["card_points", "decl", "belote", "tricks"]
    rows, nets = [], {}
    for strain, name in enumerate(STRAIN_NAMES):
        if not rules.strain_allowed(strain):
            continue
        df = simulate(
            deals,
            rules=rules,
            bidding=f"fixed:{seat},{strain},0",
            play=play,
            seed=seed,
            predeal={seat: hand},
            dealer=dealer,
            threads=threads,
        )
        made = int((df["outcome"] == "made").sum())
        low, high = wilson_interval(made, deals)
        net = (df[f"mp{team}"] - df[f"mp{1 - team}"]).to_numpy(float)
        nets[name] = net
        row: dict[str, Any] = {
            "strain": name,
            "n": int(deals),
            "p_made": made / deals,
            "p_made_low": float(low),
            "p_made_high": float(high),
        }
        row["net_mp_x1"], row["net_mp_x1_se"] = _mean_se(net)
        # the same play scored at x2 and x4, once per distinct tally of the deals
        tallies = np.stack(
            [df[f"{f}{t}"].to_numpy(np.int64) for f in fields for t in (0, 1)], axis=1
        )
        distinct, inverse = np.unique(tallies, axis=0, return_inverse=True)
        for level, x in ((1, 2), (2, 4)):
            if level > rules.max_doubling:
                row[f"net_mp_x{x}"], row[f"net_mp_x{x}_se"] = _NAN, _NAN
                continue
            scored = np.array(
                [
                    score_deal(*(int(v) for v in t), strain, team, level, 8, rules_array)[4:6]
                    for t in distinct
                ],
                dtype=np.float64,
            )
            per_deal = (scored[:, team] - scored[:, 1 - team])[inverse.reshape(-1)]
            row[f"net_mp_x{x}"], row[f"net_mp_x{x}_se"] = _mean_se(per_deal)
        row["source"] = "simulation"
        rows.append(row)
    out = pd.DataFrame(rows)
    best = best_strain(out)
    for i, name in enumerate(out["strain"]):
        out.loc[i, "vs_best"], out.loc[i, "vs_best_se"] = (
            _mean_se(nets[name] - nets[best]) if name != best else (0.0, 0.0)
        )
    return out[list(HAND_COLUMNS)]


def best_strain(table: pd.DataFrame) -> str:
    """The strain with the highest expected net MP x1 (whatever its sign)."""
    return str(table.loc[table["net_mp_x1"].idxmax(), "strain"])


def best_call(table: pd.DataFrame) -> str:
    """The call a hand's table advises: ``pass`` unless a strain's expected net MP x1 is
    above 0, else the strain with the highest net MP x1."""
    best = table.loc[table["net_mp_x1"].idxmax()]
    return str(best["strain"]) if best["net_mp_x1"] > 0 else "pass"


def within_noise(table: pd.DataFrame) -> bool:
    """Whether bid-or-pass is within noise: the best strain's (the call's, or for
    ``pass`` the best strain's) |net MP x1| < 1.96 s.e. (True when no s.e.)."""
    best = table.loc[table["net_mp_x1"].idxmax()]
    se = best["net_mp_x1_se"]
    return not bool(abs(best["net_mp_x1"]) >= Z95 * se)


def runner_up(table: pd.DataFrame) -> str | None:
    """The strain with the second-highest expected net MP x1 (None with one strain)."""
    if len(table) < 2:
        return None
    order = table["net_mp_x1"].to_numpy(float).argsort(kind="stable")[::-1]
    return str(table["strain"].iloc[order[1]])


def strain_margin(table: pd.DataFrame) -> tuple[float, float, bool]:
    """(margin, s.e., paired): how much the best strain's net MP x1 beats the
    runner-up's (``runner_up``), MP per deal, with its standard error.  Paired (the
    simulation path, every strain on the same deals): minus the runner-up's
    ``vs_best`` and its ``vs_best_se``.  Unpaired (the atlas, whose cells are measured
    on separate deals): the difference of the two values, s.e. sqrt(se1**2 + se2**2)
    (conservative: it ignores what pairing would cancel).  NaN without a runner-up."""
    second = runner_up(table)
    if second is None:
        return _NAN, _NAN, False
    rows = table.set_index("strain")
    best, other = rows.loc[best_strain(table)], rows.loc[second]
    if np.isfinite(other["vs_best"]) and np.isfinite(other["vs_best_se"]):
        return -float(other["vs_best"]), float(other["vs_best_se"]), True
    margin = float(best["net_mp_x1"] - other["net_mp_x1"])
    return margin, float(np.hypot(best["net_mp_x1_se"], other["net_mp_x1_se"])), False


def strain_clear(table: pd.DataFrame) -> bool | None:
    """Whether the best strain beats the runner-up beyond noise: its margin
    (``strain_margin``) >= 1.96 s.e. of the difference (paired on the simulation path,
    unpaired from the atlas: then False means "cannot tell from the atlas").  None
    with a single strain."""
    margin, se, _ = strain_margin(table)
    if not np.isfinite(margin):
        return None
    return bool(margin >= Z95 * se)


@dataclass
class HandAnswer:
    """One hand's answer, whichever path gave it (``answer_hand``)."""

    hand: str
    seat: int
    dealer: int
    rules: Rules
    play: str
    table: pd.DataFrame
    source: str
    reason: str
    deals: int | None = None
    seed: int | None = None
    atlas: str | None = None

    @property
    def position(self) -> int:
        return position_of(self.seat, self.dealer)

    @property
    def best_strain(self) -> str:
        return best_strain(self.table)

    @property
    def best_call(self) -> str:
        return best_call(self.table)

    @property
    def within_noise(self) -> bool:
        """Whether bid-or-pass is within noise (``within_noise``)."""
        return within_noise(self.table)

    @property
    def bid_clear(self) -> bool:
        """Whether bid-or-pass is clear: not ``within_noise``."""
        return not within_noise(self.table)

    @property
    def runner_up(self) -> str | None:
        return runner_up(self.table)

    @property
    def strain_clear(self) -> bool | None:
        """Whether the best strain beats the runner-up beyond noise (``strain_clear``)."""
        return strain_clear(self.table)

    def records(self) -> list[dict[str, Any]]:
        """JSON-ready rows (``HAND_COLUMNS``; NaN as None) with ``best_call``,
        ``within_noise`` and ``bid_clear`` (bid-or-pass), ``runner_up``,
        ``strain_margin`` and ``strain_margin_se`` (MP per deal, the best strain's net
        x1 over the runner-up's), ``strain_paired`` (whether that difference was
        measured on the same deals), ``strain_clear`` (the margin >= 1.96 s.e.; from
        the atlas, unpaired, false means it cannot tell), ``reason`` (the path and
        why), ``position`` and ``play`` repeated on every row."""
        margin, margin_se, paired = strain_margin(self.table)
        extra = {
            "best_call": self.best_call,
            "within_noise": self.within_noise,
            "bid_clear": self.bid_clear,
            "runner_up": self.runner_up,
            "strain_margin": _plain(margin),
            "strain_margin_se": _plain(margin_se),
            "strain_paired": paired,
            "strain_clear": self.strain_clear,
            "reason": self.reason,
            "position": self.position,
            "play": self.play,
        }
        return [
            {k: _plain(v) for k, v in row.items()} | extra for row in self.table.to_dict("records")
        ]


def _plain(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if np.isfinite(v) else None
    return v


def answer_hand(
    hand: str,
    seat: int = 0,
    dealer: int = 3,
    rules: Rules | str = "common",
    options: dict[str, Any] | None = None,
    play: Any = None,
    deals: int | None = None,
    seed: int | None = None,
    simulate: bool = False,
    atlas: AtlasTable | str | os.PathLike | None = None,
    threads: int | None = None,
    allow_simulation: bool = True,
) -> HandAnswer:
    """One answer for one hand (5 bidding cards or all 8) at ``seat`` with ``dealer``.

    From the atlas (``atlas``: a table or a file, default the shipped one) when it
    covers the hand size, the rules, the play policy (None: the default play) and the
    hand's cells, and nothing asks for what it cannot honour: ``simulate``, a number of
    ``deals`` or a ``seed`` (its cells have their own).  Otherwise by simulation
    (``hand_by_simulation``, ``deals`` default ``HAND_DEALS``, ``seed`` default 0), or,
    with ``allow_simulation`` False, ``ValueError`` naming what the atlas lacks.  The
    answer's ``reason`` names the path and why.
    """
    rules = Rules.from_spec(rules, options)
    play = play_spec(play, rules)
    cards = parse_cards(hand)
    if len(cards) not in (5, 8):
        raise ValueError(f"hand: give the 5 bidding cards or all 8 cards, got {len(cards)}")
    text = " ".join(format_cards(cards))
    position = position_of(seat, dealer)
    reasons = []
    table = None
    if simulate:
        reasons.append("--simulate was given")
    else:
        if deals is not None:
            reasons.append(f"--deals {deals} was given (the atlas's cells have their own deals)")
        if seed is not None:
            reasons.append(f"--seed {seed} was given (the atlas was built from its own seed)")
        if isinstance(atlas, AtlasTable):
            table = atlas
        elif atlas is not None:
            table = load_atlas(str(atlas))
        elif shipped_atlas(rules).exists():
            table = load_atlas(str(shipped_atlas(rules)))
        else:
            reasons.append("no atlas is installed")
        if table is not None:
            reasons += atlas_gaps(text, position, table, rules, play)
    if not reasons and table is not None:
        found = hand_from_atlas(text, position, table, rules, play)
        assert found is not None
        name = Path(table.path).name if table.path else "(in memory)"
        return HandAnswer(
            text,
            seat,
            dealer,
            rules,
            play,
            found,
            "atlas",
            f"from the atlas {name}: it covers these rules ({rules_words(rules)}), this "
            f"play policy ({play}) and a 5-card hand",
            atlas=table.path,
        )
    if not allow_simulation:
        raise ValueError("the atlas cannot answer this hand: " + "; ".join(reasons))
    deals = HAND_DEALS if deals is None else deals
    seed = 0 if seed is None else seed
    found = hand_by_simulation(text, seat, dealer, deals, rules, play, seed, threads=threads)
    return HandAnswer(
        text,
        seat,
        dealer,
        rules,
        play,
        found,
        "simulation",
        f"by simulation ({deals:,} deals per strain, the same deals for every strain, "
        f"seed {seed}): " + "; ".join(reasons),
        deals=deals,
        seed=seed,
    )


def measured_cells(table: AtlasTable) -> pd.DataFrame:
    """One row per measured cell (n > 0) of an atlas: ``kind`` (``suit``, ``NT``,
    ``AT``), ``position`` (1..4), ``hand`` (the class's canonical hand as text: for suit
    classes trump is clubs, the other suits' holdings on diamonds, hearts, spades in
    descending order; for NT/AT the four suit holdings in descending order from
    clubs), ``key`` (the class key, ``simulation.atlas_table``), ``multiplicity``
    (hands in the class), then every ``cell_stats`` column (``n``, ``p_made``,
    ``p_made_low``, ``p_made_high``, ``p_made_se``, ``net_mp_x1``, ``net_mp_x1_se``,
    ``net_mp_x2``, ``net_mp_x4``, ...)."""
    frames = []
    for k, name in enumerate(("suit", "NT", "AT")):
        measured = np.flatnonzero((table.sums[k][..., KA.F_N] > 0).any(axis=1))
        keys = table.keys[k][measured]
        text = np.array([" ".join(format_cards(int(h))) for h in key_hands(keys, k)], dtype=object)
        for position in range(1, 5):
            sums = table.sums[k][measured, position - 1]
            keep = sums[:, KA.F_N] > 0
            frames.append(
                pd.DataFrame(
                    {
                        "kind": name,
                        "position": position,
                        "hand": text[keep],
                        "key": keys[keep],
                        "multiplicity": table.mult[k][measured][keep],
                        **table_stats(table, k, sums[keep]),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def atlas_parquet(table: AtlasTable, path: str | os.PathLike) -> int:
    """Write ``measured_cells`` (one row per measured cell) to a Parquet file (via a
    temporary file, replaced atomically); returns the number of rows.  The atlas's
    ``meta`` is kept as the file's metadata (key ``belote_sim_atlas``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from belote_sim.simulation.safe_io import atomic_write

    frame = measured_cells(table)
    first = ["kind", "position", "hand", "key", "multiplicity"]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    frame = frame.astype({"position": np.int8, "multiplicity": np.int32, "key": np.int64})
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    arrow = arrow.replace_schema_metadata(
        {**(arrow.schema.metadata or {}), b"belote_sim_atlas": json.dumps(table.meta).encode()}
    )
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink, compression="zstd")
    atomic_write(str(path), sink.getvalue().to_pybytes())
    return len(frame)


__all__ = [
    "DEFAULT_ATLAS",
    "HAND_COLUMNS",
    "HAND_DEALS",
    "NET_MAX_DEALS",
    "NET_SE_TARGET",
    "POSITION_WORDS",
    "Z95",
    "AtlasPlay",
    "HandAnswer",
    "answer_hand",
    "atlas_frame",
    "atlas_gaps",
    "atlas_parquet",
    "atlas_play",
    "best_call",
    "best_strain",
    "build_atlas",
    "cell_grid",
    "cell_stats",
    "hand_by_simulation",
    "hand_from_atlas",
    "kind_of",
    "load_atlas",
    "measured_cells",
    "needed_deals",
    "play_spec",
    "position_of",
    "rules_words",
    "run_cells",
    "run_cells_interruptibly",
    "runner_up",
    "shipped_atlas",
    "strain_clear",
    "strain_margin",
    "table_stats",
    "within_noise",
]
