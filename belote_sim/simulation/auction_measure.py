"""Measuring the ``atlas_auction`` gains table by self-play (``kernels.auction_samples``).

Kept apart from ``auction_table`` (which the study loads) because it drives a study
itself: four ``atlas`` players, one auction call per deal replayed every legal way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from belote_sim.kernels.auction_atlas import GAINS
from belote_sim.kernels.auction_samples import NUM_SAMPLE_COLS, auction_samples
from belote_sim.kernels.switchboard import BID_POLICIES
from belote_sim.policies import menu_of, search_bits
from belote_sim.simulation.auction_table import empty_gains
from belote_sim.simulation.runner import numba_threads
from belote_sim.simulation.study import AUCTION_ATLAS, make_study

__all__ = ["measure"]


def measure(
    rules: Any = "common",
    deals: int = 100_000,
    seed: int = 0,
    play: Any = None,
    threads: int | None = None,
    chunk_size: int = 200_000,
    progress: Any = None,
) -> np.ndarray:
    """Sample rows (deals, ``auction_samples.NUM_SAMPLE_COLS``) of ``deals`` deals:
    one auction call each, played every legal way (module docstring).  ``play``: the
    play policy of every seat (default: the rules' default play); chunk ``c``'s deals
    come from ``SeedSequence(seed, spawn_key=(c,))``: the rows do not depend on the
    number of threads.  ``progress(n)`` is called as ``n`` more deals are done."""
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    study = make_study(rules, "atlas", play, seed, chunk_size=chunk_size)
    rules_array = study.rules.to_array()
    if study.rules.players != 4 or study.rules.bidding != "auction":
        raise ValueError(
            "atlas_auction listens to the 4-player auction; the "
            f"{study.rules.name} rules bid otherwise"
        )
    policy_id = next(p.id for p in BID_POLICIES if p.name == AUCTION_ATLAS)
    tables = (*study.atlas_arrays[:GAINS], empty_gains())
    play_ids, play_params = study.play_arrays
    # the menu: the play policies and atlas_auction, the bidder the samples measure
    menu = menu_of(study.play, players=4, forms=["four"], bid_names=[AUCTION_ATLAS])
    play_arrays = (play_ids, play_params, study.announce_mask, menu)
    bits = search_bits(study.play)
    out = np.empty((deals, NUM_SAMPLE_COLS), dtype=np.float64)
    with numba_threads(threads):
        for chunk, start in enumerate(range(0, deals, chunk_size)):
            stop = min(deals, start + chunk_size)
            seeds = study.chunk_seeds(chunk, stop - start).view(np.int64)
            rows = out[start:stop]
            auction_samples(seeds, rules_array, policy_id, play_arrays, bits, tables, rows)
            if progress is not None:
                progress(stop - start)
    return out
