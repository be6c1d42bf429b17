"""Measuring the ``atlas_auction`` gains: one auction decision per deal, played every way.

For each deal (its generator seeded from ``seeds[i]``; a random dealer; four
``atlas_auction`` players whose table is empty, i.e. four ``atlas`` players) the deal
is bid and played once as the atlas bids it; one call ``t`` of that auction is drawn
uniformly; then for each other action legal at call ``t`` (``auction_atlas.ACT_*``)
the same deal is bid again with that action forced at call ``t`` (everything else as
the atlas bids) and played with the generator restored to the same state, so the two
plays differ only by the forced call and what follows from it.  The row of the deal
holds the situation of call ``t`` (``auction_atlas.auction_key``), the atlas's action
there and, per action, the caller's team's net MP (its MP minus the other team's,
added now; 0 for a thrown-in deal) after the action minus after the atlas's call:
0 for the atlas's own action, NaN for an action not legal there or a turn where
the policy does not listen (``auction_atlas.listens``: key -1).
"""

import numpy as np
from numba import prange

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.atomics import fetch_add
from belote_sim.kernels.auction import auction_turn_at
from belote_sim.kernels.auction_atlas import (
    FORCE_ACTION,
    FORCE_CALL,
    NUM_ACTIONS,
    action_legal,
    action_of_call,
    auction_key,
    listens,
)
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.dealing import shuffle_deck
from belote_sim.kernels.rng import random_below, reseed
from belote_sim.kernels.simulate import PLAYED, deal_and_play, thread_buffers
from belote_sim.kernels.switchboard import MAX_PARAMS

#: Columns of a sample row: the situation's key, the caller's seat, the atlas's
#: action, then the gain of each action.
S_KEY, S_SEAT, S_BASE = range(3)
S_GAIN = 3
NUM_SAMPLE_COLS = S_GAIN + NUM_ACTIONS


@kernel
def team_net(status, deal, team):
    """Net MP of ``team`` in a played deal (its MP minus the other's); 0 when thrown in."""
    if status != PLAYED:
        return 0.0
    return float(deal.mp[team] - deal.mp[1 - team])


@kernel
def sample_deal(seed, rules, bid_ids, play, atlas, row, work, deck, calls, state, params):
    """One deal's row of ``auction_samples`` (module docstring); ``bid_ids`` (4,): the
    ``atlas_auction`` policy's id at every seat; ``params`` (4, MAX_PARAMS): its
    parameters, set here."""
    play_ids, play_params, announce_mask, menu = play
    deals, bid, search = work
    deal = deals[0]
    for k in range(row.shape[0]):
        row[k] = np.nan
    reseed(state, seed)
    dealer = random_below(state, 4)
    for i in range(32):
        deck[i] = i
    shuffle_deck(state, deck)
    start = state[0]
    params[:, :] = 0.0
    policies = (bid_ids, params, play_ids, play_params, announce_mask, menu)
    status, _, _, _ = deal_and_play(
        deck, dealer, rules, policies, state, calls, deal, bid, search, atlas
    )
    n_calls = 0
    while n_calls < calls.shape[0] and calls[n_calls] != 0:
        n_calls += 1
    t = random_below(state, n_calls)
    turn = auction_turn_at(bid, dealer, rules, calls, t)
    if not listens(turn):
        row[S_KEY] = -1
        return
    key, best, _ = auction_key(turn, atlas)
    team = turn.seat & 1
    base_net = team_net(status, deal, team)
    base = action_of_call(calls[t])
    row[S_KEY] = key
    row[S_SEAT] = turn.seat
    row[S_BASE] = base
    for action in range(NUM_ACTIONS):
        if not action_legal(turn, action, best):
            continue
        if action == base:
            row[S_GAIN + action] = 0.0
            continue
        for seat in range(4):
            params[seat, FORCE_CALL] = t + 1
            params[seat, FORCE_ACTION] = action
        state[0] = start
        status, _, _, _ = deal_and_play(
            deck, dealer, rules, policies, state, calls, deal, bid, search, atlas
        )
        row[S_GAIN + action] = team_net(status, deal, team) - base_net


@kernel(parallel=True)
def auction_samples(seeds, rules, policy_id, play, search_bits, atlas, out):
    """Fill ``out`` (n, NUM_SAMPLE_COLS) float64 with one sample row per seed (module
    docstring).  ``policy_id``: the ``atlas_auction`` policy's id; ``play = (play_ids
    (4,), play_params (4, k), announce_mask, menu)`` (the menu names the play policies
    and ``atlas_auction``); ``atlas``: the bidding tables with an
    empty gains table.  Row ``i`` depends only on ``seeds[i]``: the same rows whatever
    the number of threads."""
    play_ids, play_params, announce_mask, menu = play
    n = seeds.shape[0]
    n_blocks = min(n, 256)
    next_block = np.zeros(1, dtype=np.int64)
    for _ in prange(n_blocks):
        work = thread_buffers(search_bits)
        deck = np.empty(32, dtype=np.int64)
        calls = np.zeros(MAX_CALLS, dtype=np.uint8)
        state = np.empty(1, dtype=np.uint64)
        params = np.zeros((4, MAX_PARAMS), dtype=np.float64)
        bid_ids = np.full(4, policy_id, dtype=np.int64)
        block_play = (play_ids, play_params, announce_mask, menu)
        b = fetch_add(next_block, 0, 1)
        while b < n_blocks:
            for i in range(b * n // n_blocks, (b + 1) * n // n_blocks):
                sample_deal(
                    seeds[i], rules, bid_ids, block_play, atlas, out[i], work, deck, calls,
                    state, params,
                )  # fmt: skip
            b = fetch_add(next_block, 0, 1)


__all__ = [
    "NUM_SAMPLE_COLS",
    "S_BASE",
    "S_GAIN",
    "S_KEY",
    "S_SEAT",
    "auction_samples",
    "sample_deal",
    "team_net",
]
