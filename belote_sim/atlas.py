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
import io
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from belote_sim._version import __version__
from belote_sim.cards import format_cards, parse_cards
from belote_sim.kernels import atlas as KA
from belote_sim.policies import search_bits
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import (
    DEFAULT_ATLAS,
    KIND_STRAIN,
    KINDS,
    AtlasTable,
    hand_classes,
    key_hands,
    kind_of,
    load_atlas,
    write_atlas,
)
from belote_sim.simulation.output import Output, RunInterrupted, check_destination, remove_path
from belote_sim.simulation.runner import make_study, numba_threads
from belote_sim.simulation.safe_io import atomic_write, is_temp, run_lock
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

    @classmethod
    def of(cls, study: Study) -> AtlasPlay:
        play_ids, play_params = study.play_arrays
        return cls(
            study.rules.to_array(),
            play_ids,
            play_params,
            study.announce_mask,
            search_bits(study.play),
        )


def run_cells(
    hands: np.ndarray,
    strains: np.ndarray,
    positions: np.ndarray,
    counts: np.ndarray,
    seeds: np.ndarray,
    play: AtlasPlay,
    threads: int | None = None,
) -> np.ndarray:
    """The sums (``len(hands)``, ``NUM_FIELDS``) of ``counts[i]`` deals of each cell i
    (the taker's bidding hand, strain and position), seeded by ``seeds[i]``."""
    out = np.zeros((len(hands), KA.NUM_FIELDS), dtype=np.int64)
    with numba_threads(threads):
        KA.atlas_cells(
            hands,
            strains,
            positions,
            counts,
            seeds,
            play.rules,
            (play.play_ids, play.play_params, play.announce_mask),
            play.search_bits,
            out,
        )
    return out


def build_atlas(
    path: str | os.PathLike | None,
    rules: Rules | str = "common",
    play: Any = "greedy",
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
    when complete.  Ctrl-C (or SIGTERM) raises ``RunInterrupted``, which says what is
    kept.
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
        work = _WorkDir(work_dir, stack) if work_dir is not None else None
        start = time.perf_counter()
        try:
            table = _build(
                study, seed, se_target, first_deals, max_deals, rounds, chunk_cells, threads,
                workers, scheduler, work, progress, kinds, positions, class_rows,
                net_se_target, net_max_deals, (kind, row, pos), start,
            )  # fmt: skip
        except KeyboardInterrupt:
            raise RunInterrupted(_atlas_interrupted(out, work)) from None
        if out is not None:
            table.path = str(path)
            with open(out.tmp, "wb") as f:
                write_atlas(table, f)
            out.commit()
            load_atlas.cache_clear()
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
            f"chunks are kept in {work.path}: run the same command again to resume"
        )
    return (
        f"interrupted: the atlas was not written{written}, nothing kept (with --work-dir "
        "the finished chunks are kept and a rerun resumes); the same command starts over"
    )


class _WorkDir:
    """The work directory of a build: one ``.npy`` file of sums per chunk, the build's
    stamp (``build.json``), a lock (one build at a time), files written atomically.
    A chunk file that does not hold the chunk's sums (unreadable, empty, another
    shape, other deal counts) is computed again and replaced."""

    LOCK = "_belote_sim.lock"

    def __init__(self, path: str | os.PathLike, stack: contextlib.ExitStack):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"{self.path} is a file: --work-dir is a directory")
        self.path.mkdir(parents=True, exist_ok=True)
        check_destination(str(self.path / self.LOCK))  # a folder we may write in
        stack.enter_context(run_lock(str(self.path / self.LOCK), str(self.path)))
        for name in os.listdir(self.path):  # leftovers of dead builds (under the lock)
            if is_temp(name) or name.endswith(".tmp.npy"):
                remove_path(str(self.path / name))
        self.loaded = self.written = self.redone = 0

    def check_stamp(self, stamp: dict[str, Any]) -> None:
        """``ValueError`` if the directory holds the chunks of another build."""
        stamp_path = self.path / "build.json"
        stamp = json.loads(json.dumps(stamp))
        if stamp_path.exists():
            try:
                old = json.loads(stamp_path.read_text())
            except (OSError, ValueError):
                old = None  # a damaged stamp: its chunk files are checked one by one
            if old is not None and old != stamp:
                raise ValueError(f"{self.path} holds the chunks of another atlas build")
        atomic_write(str(stamp_path), json.dumps(stamp).encode())

    def file(self, r: int, c: int) -> Path:
        return self.path / f"round{r}_chunk{c:05d}.npy"

    def load(self, r: int, c: int, counts: np.ndarray) -> np.ndarray | None:
        """The sums of chunk c of round r if its file holds them (``counts`` deals of
        each of its cells), else None."""
        file = self.file(r, c)
        if not file.exists():
            return None
        try:
            part = np.load(file, allow_pickle=False)
            good = (
                part.dtype == np.int64
                and part.shape == (len(counts), KA.NUM_FIELDS)
                and (part[:, KA.F_N] == counts).all()
            )
        except (OSError, ValueError, EOFError):
            good = False
        if not good:
            self.redone += 1
            return None
        self.loaded += 1
        return part

    def store(self, r: int, c: int, part: np.ndarray) -> None:
        buffer = io.BytesIO()
        np.save(buffer, part, allow_pickle=False)
        atomic_write(str(self.file(r, c)), buffer.getbuffer())
        self.written += 1

    def kept(self) -> int:
        return self.loaded + self.written


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
                run_cells(
                    cell_hands[:1],
                    cell_strains[:1],
                    pos[:1],
                    np.ones(1, np.int64),
                    np.zeros(1, np.int64),
                    play,
                )  # compile before the workers load
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
                part = work.load(r, c, counts[idx]) if work is not None else None
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
                    part = run_cells(*args, threads=threads)
                    if work is not None:
                        work.store(r, c, part)
                    _add(part, totals, idx, progress, counts)
            if client is not None:
                from belote_sim.simulation.distributed import require_dask

                _, _, as_completed = require_dask()

                for future in as_completed(list(pending)):
                    c, idx = pending.pop(future)
                    part = future.result()
                    if work is not None:
                        work.store(r, c, part)
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


def cell_stats(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Means, standard errors and intervals from cell sums (..., NUM_FIELDS).

    Keys: ``n``, ``p_made`` with ``p_made_low``/``p_made_high`` (Wilson 95%) and
    ``p_made_se``, ``p_inside``, ``p_hanging``, ``p_valat_by``, ``p_valat_against``,
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
        out["p_made_se"] = np.sqrt(p * (1 - p) / nn)
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
    return out


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
            stats = cell_stats(table.sums[k][:, position - 1])
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


def hand_from_atlas(
    hand: str,
    position: int = 1,
    table: AtlasTable | None = None,
    rules: Rules | str = "common",
    play: Any = "greedy",
    options: dict[str, Any] | None = None,
) -> pd.DataFrame | None:
    """Answer one 5-card hand from the atlas, or None when the atlas does not cover the
    rules (preset and options) and play policy asked for.

    Returns one row per strain allowed by the rules: ``strain``, ``n``, ``p_made`` with
    ``p_made_low``/``p_made_high`` (Wilson 95%), ``net_mp_x1``, ``net_mp_x2`` (taker's
    team's MP minus the defenders', added now, per deal), ``source`` = "atlas".
    """
    cards = parse_cards(hand)
    if len(cards) != 5:
        return None
    if position not in (1, 2, 3, 4):
        raise ValueError(f"position must be 1..4, got {position!r}")
    rules = Rules.from_spec(rules, options)
    if table is None:
        if not DEFAULT_ATLAS.exists():
            return None
        table = load_atlas(None)
    from belote_sim.policies import PLAY_POLICIES, parse_policy

    if not table.covers(rules) or str(parse_policy(play, PLAY_POLICIES, "play")) != table.meta.get(
        "play"
    ):
        return None
    mask = sum(1 << c for c in cards)
    rows = []
    for strain, name in enumerate(STRAIN_NAMES):
        if not rules.strain_allowed(strain):
            continue
        stats = cell_stats(table.lookup(mask, strain, position))
        if stats["n"] == 0:
            return None
        rows.append(
            {
                "strain": name,
                "n": int(stats["n"]),
                "p_made": float(stats["p_made"]),
                "p_made_low": float(stats["p_made_low"]),
                "p_made_high": float(stats["p_made_high"]),
                "net_mp_x1": float(stats["net_mp_x1"]),
                "net_mp_x2": float(stats["net_mp_x2"]),
                "source": "atlas",
            }
        )
    return pd.DataFrame(rows)


def hand_by_simulation(
    hand: str,
    seat: int = 0,
    dealer: int = 3,
    deals: int = 20_000,
    rules: Rules | str = "common",
    play: Any = "greedy",
    seed: int = 0,
    options: dict[str, Any] | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """The columns of ``hand_from_atlas`` by direct simulation (``source`` =
    "simulation"): per strain, ``deals`` deals with the hand predealt to ``seat`` (5
    bidding cards or all 8), that seat taking undoubled and, on the same deals (same
    seed, so the same cards and the same play), doubled; NaN for x2 where the rules
    have no doubling."""
    from belote_sim.simulation.runner import simulate

    rules = Rules.from_spec(rules, options)
    team = seat % 2
    rows = []
    for strain, name in enumerate(STRAIN_NAMES):
        if not rules.strain_allowed(strain):
            continue
        nets = []
        for doubling in (0, 1):
            if doubling > rules.max_doubling:
                nets.append(float("nan"))
                continue
            df = simulate(
                deals,
                rules=rules,
                bidding=f"fixed:{seat},{strain},{doubling}",
                play=play,
                seed=seed,
                predeal={seat: hand},
                dealer=dealer,
                threads=threads,
            )
            net = (df[f"mp{team}"] - df[f"mp{1 - team}"]).to_numpy(float)
            nets.append(float(net.mean()))
            if doubling == 0:
                made = int((df["outcome"] == "made").sum())
        low, high = wilson_interval(made, deals)
        rows.append(
            {
                "strain": name,
                "n": int(deals),
                "p_made": made / deals,
                "p_made_low": float(low),
                "p_made_high": float(high),
                "net_mp_x1": nets[0],
                "net_mp_x2": nets[1],
                "source": "simulation",
            }
        )
    return pd.DataFrame(rows)


def best_call(table: pd.DataFrame) -> str:
    """The call with the best expected net MP at x1 (``pass`` when none is positive)."""
    best = table.loc[table["net_mp_x1"].idxmax()]
    return str(best["strain"]) if best["net_mp_x1"] > 0 else "pass"


__all__ = [
    "DEFAULT_ATLAS",
    "NET_MAX_DEALS",
    "NET_SE_TARGET",
    "Z95",
    "AtlasPlay",
    "atlas_frame",
    "best_call",
    "build_atlas",
    "cell_grid",
    "cell_stats",
    "hand_by_simulation",
    "hand_from_atlas",
    "kind_of",
    "load_atlas",
    "needed_deals",
    "position_of",
    "run_cells",
]
