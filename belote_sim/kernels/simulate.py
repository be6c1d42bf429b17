"""The simulation loops: many independent deals, or whole games, in parallel.

Deal ``i`` is a pure function of ``seeds[i]`` (its RNG is seeded from it), so the
output does not depend on how ``prange`` splits the work between threads.  Each
deal writes one row of ``out`` (columns ``COL_*``), its calls to ``calls[i]`` and,
when a trick log is kept, its 32 cards in playing order to ``plays[i]``.

Arguments that travel together are passed as tuples:

- ``policies = (bid_ids, bid_params, play_ids, play_params, announce_mask, menu)``:
  each seat's bidding and play policy ids (P,) and parameters (P, k), the mask of the
  seats that announce their belote (bit s set: seat s announces), and the menu of the
  policies the kernels may call (``switchboard.policy_menu``: one compiled version per
  menu, holding only those policies);
- ``conditions = (predeal, cons, check_cons, max_tries)``: the conditions of the deal
  (see ``dealing.deal_conditioned``);
- ``work = (deal, bid, search)``: the buffers of one thread (``thread_buffers``):
  the ``records.DEAL`` record every deal is played on, the bidding cards (4,) and
  the play policies' scratch (``switchboard.policy_buffers``).

A deal whose policy gave no legal card or call (an id with no policy: the Python
layer never passes one) leaves its row as a thrown-in deal and is counted: the
drivers return the count, and the callers raise when it is not zero.
"""

import numpy as np
from numba import prange

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.atomics import fetch_add
from belote_sim.kernels.auction import run_auction
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.dealing import (
    TURNED_POSITION,
    cut_deck,
    deal_conditioned,
    french_hands,
    hands_from_deck,
    shuffle_deck,
    solo_deck,
    solo_hands_from_deck,
)
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import deal_record
from belote_sim.kernels.rng import random_below, reseed, seed_state
from belote_sim.kernels.scoring import game_step, solo_game_step
from belote_sim.kernels.switchboard import policy_buffers
from belote_sim.kernels.tables import (
    BIDDING_TWO_ROUND,
    DEALING_CUT,
    OUTCOME_HANGING,
    OUTCOME_THROWN_IN,
    R_BIDDING,
    R_DEALING,
    R_PLAYERS,
    R_VARIANT,
    VARIANT_OPEN,
)

(
    COL_DEALER,
    COL_HAND0,
    COL_HAND1,
    COL_HAND2,
    COL_HAND3,
    COL_BID0,
    COL_BID1,
    COL_BID2,
    COL_BID3,
    COL_STRAIN,
    COL_TAKER,
    COL_DOUBLING,
    COL_OUTCOME,
    COL_CARD0,
    COL_CARD1,
    COL_DECL0,
    COL_DECL1,
    COL_BELOTE0,
    COL_BELOTE1,
    COL_RAW0,
    COL_RAW1,
    COL_MP0,
    COL_MP1,
    COL_HELD0,
    COL_HELD1,
    COL_TRICKS0,
    COL_TRICKS1,
    COL_VALAT,
    COL_TURNED,
    COL_TRIES,
) = range(30)
NUM_COLS = 30


@lean_kernel
def split_columns(out, wide, narrow):
    """Copy the kernels' ``(n, NUM_COLS)`` int64 rows ``out`` into columns: ``wide``
    (k, n) uint32 takes columns 0..k-1, ``narrow`` (NUM_COLS - k, n) int16 the others
    (truncating, as numpy's ``astype``).  One pass over ``out``, row by row, each row
    feeding ``NUM_COLS`` sequential write streams: give ``wide`` and ``narrow`` rows
    that do not start a multiple of 4 KiB apart (``deal_table.kernel_columns`` pads
    them), or the streams share one set of the L1 cache and evict each other (~8x
    slower).  Tiles of rows written column by column measured 3-4x slower."""
    n = out.shape[0]
    n_wide = wide.shape[0]
    n_narrow = narrow.shape[0]
    for i in range(n):
        for k in range(n_wide):
            wide[k, i] = np.uint32(out[i, k] & 0xFFFFFFFF)
        for k in range(n_narrow):
            narrow[k, i] = np.int16(out[i, n_wide + k])


# Columns of the games where every player is alone (2 and 3 players, open belot):
# three slots per per-player quantity (unused ones stay 0); open belot's table as masks
# of face-up / face-down cards and as piles (pile k: bits 12k.. face-down card, 12k+6..
# face-up card).
(
    S_DEALER,
    S_STRAIN,
    S_TAKER,
    S_DOUBLING,
    S_OUTCOME,
    S_VALAT,
    S_UP0,
    S_UP1,
    S_DOWN0,
    S_DOWN1,
    S_TABLE0,
    S_TABLE1,
) = range(12)
S_HAND, S_BID, S_CARD, S_DECL, S_BELOTE, S_RAW, S_MP, S_HELD, S_TRICKS = range(12, 39, 3)
NUM_SOLO_COLS = 39

(
    G_DEALS,
    G_SCORE0,
    G_SCORE1,
    G_HELD,
    G_WINNER,
    G_THROWN_IN,
    G_HANGING,
    G_VALATS,
    G_FIRST_DEALER,
) = range(9)
NUM_GAME_COLS = 9
G_SCORE2 = 9  # third player's score (3-player games)
NUM_SOLO_GAME_COLS = 10


#: ``deal_and_play`` results: the deal was played, thrown in, or a policy failed.
#: (The per-deal steps below are inlined into the drivers' loops: as calls, the
#: tuples of arrays they pass cost ~10% of a random deal, measured.)
PLAYED, THROWN_IN, FAILED = 1, 0, -1


@kernel
def thread_buffers(search_bits):
    """The ``work`` tuple ``(deal, bid, search)`` of one thread (see the module
    docstring): a ``DEAL`` record with no table cards, the bidding cards (4,) and the
    policies' scratch with a ``2**search_bits``-entry table."""
    return deal_record(), np.zeros(4, dtype=np.int64), policy_buffers(search_bits)


@lean_kernel(inline="always")
def deal_and_play(deck, dealer, rules, policies, state, calls, deal, bid, search, atlas):
    """Deal a dealt ``deck`` (the 4-player deal, the french deal after the bidding, or
    the deal of a game where every player is alone), run the bidding and play the
    contract on ``deal`` (its hands, table and, when played, every play and score
    field).  ``policies``: see the module docstring; ``calls`` receives the bidding.
    Returns ``(status, strain, taker, doubling)``: ``PLAYED``, ``THROWN_IN`` (strain
    -1) or ``FAILED``.  A lean kernel: it allocates nothing."""
    bid_ids, bid_params, play_ids, play_params, announce_mask, menu = policies
    players = rules[R_PLAYERS]
    turned = -1
    if players == 4:
        hands_from_deck(deck, dealer, deal.hands, bid)
        if rules[R_BIDDING] == BIDDING_TWO_ROUND:
            turned = deck[TURNED_POSITION]
    else:
        solo_hands_from_deck(
            deck, dealer, players, rules[R_VARIANT] == VARIANT_OPEN, deal.hands, bid, deal.table
        )
    strain, taker, doubling, n_calls = run_auction(
        bid, dealer, turned, rules, (bid_ids, bid_params, menu), calls, atlas, state
    )
    if n_calls < 0:
        return FAILED, -1, -1, 0
    if strain < 0:
        return THROWN_IN, -1, -1, 0
    if turned >= 0:
        french_hands(deck, dealer, taker, deal.hands)
    deal.leader = dealer + 1 if dealer + 1 < players else 0
    deal.strain = strain
    deal.taker = taker
    deal.doubling = doubling
    deal.announce = announce_mask
    deal.n_given = 0
    play_deal(deal, (play_ids, play_params, menu), rules, state, search)
    if deal.failed_seat >= 0:
        return FAILED, strain, taker, doubling
    return PLAYED, strain, taker, doubling


@lean_kernel(inline="always")
def write_row(row, dealer, turned, status, deal, bid):
    """The columns ``COL_*`` of a 4-player deal (``deal_and_play``'s ``status``) into
    ``row`` (NUM_COLS,); ``COL_TRIES`` is left as it is."""
    row[COL_DEALER] = dealer
    thrown_french = status != PLAYED and turned >= 0  # no final hands: the bidding cards
    for seat in range(4):
        row[COL_HAND0 + seat] = bid[seat] if thrown_french else deal.hands[seat]
        row[COL_BID0 + seat] = bid[seat]
    row[COL_TURNED] = turned
    for k in range(COL_STRAIN, NUM_COLS):
        if k != COL_TURNED and k != COL_TRIES:
            row[k] = 0
    if status != PLAYED:
        row[COL_STRAIN] = -1
        row[COL_TAKER] = -1
        row[COL_OUTCOME] = OUTCOME_THROWN_IN
        row[COL_VALAT] = -1
        return
    row[COL_STRAIN] = deal.strain
    row[COL_TAKER] = deal.taker
    row[COL_DOUBLING] = deal.doubling
    row[COL_CARD0] = deal.card_points[0]
    row[COL_CARD1] = deal.card_points[1]
    row[COL_TRICKS0] = deal.tricks[0]
    row[COL_TRICKS1] = deal.tricks[1]
    row[COL_BELOTE0] = deal.belote_points[0]
    row[COL_BELOTE1] = deal.belote_points[1]
    row[COL_DECL0] = deal.decl_points[0]
    row[COL_DECL1] = deal.decl_points[1]
    row[COL_RAW0] = deal.raw[0]
    row[COL_RAW1] = deal.raw[1]
    row[COL_OUTCOME] = deal.outcome
    row[COL_VALAT] = deal.valat
    row[COL_MP0] = deal.mp[0]
    row[COL_MP1] = deal.mp[1]
    row[COL_HELD0] = deal.held[0]
    row[COL_HELD1] = deal.held[1]


@lean_kernel(inline="always")
def play_one_deal(deck, dealer, rules, policies, state, row, calls, work, atlas):
    """Bid, deal the rest, play and score one 4-player deal from a dealt ``deck`` and
    write its row (NUM_COLS,); ``calls`` receives the auction, ``work[0][0].cards``
    the cards in playing order.  Returns ``deal_and_play``'s status."""
    deals, bid, search = work
    deal = deals[0]
    turned = deck[TURNED_POSITION] if rules[R_BIDDING] == BIDDING_TWO_ROUND else -1
    status, _, _, _ = deal_and_play(
        deck, dealer, rules, policies, state, calls, deal, bid, search, atlas
    )
    write_row(row, dealer, turned, status, deal, bid)
    return status


@lean_kernel
def deal_block(
    start, stop, seeds, dealers, rules, policies, conditions, out, calls, plays, keep_plays,
    buffers, work, atlas,
):  # fmt: skip
    """Deals ``start..stop-1`` of ``simulate_deals`` with one thread's buffers
    (``buffers = (deck, free_pos, free_cards, state)``, ``work``): a lean kernel, so
    the rows and arrays it hands on per deal cost no reference counting.  Returns the
    number of deals in which a policy failed."""
    predeal, cons, check_cons, max_tries = conditions
    deck, free_pos, free_cards, state = buffers
    deals, bid, _ = work
    deal = deals[0]
    failed = 0
    for i in range(start, stop):
        reseed(state, seeds[i])
        dealer = dealers[i]
        tries = deal_conditioned(
            state,
            dealer,
            predeal,
            cons,
            check_cons,
            max_tries,
            deck,
            free_pos,
            free_cards,
            deal.hands,
            bid,
        )
        out[i, COL_TRIES] = tries
        if tries < 0:
            out[i, COL_STRAIN] = -1
            out[i, COL_OUTCOME] = OUTCOME_THROWN_IN
            continue
        status = play_one_deal(deck, dealer, rules, policies, state, out[i], calls[i], work, atlas)
        failed += status == FAILED
        if keep_plays:
            for k in range(32):
                plays[i, k] = deal.cards[k]
    return failed


@kernel(parallel=True)
def simulate_deals(
    seeds, dealers, rules, policies, conditions, out, calls, plays, keep_plays, search_bits, atlas
):
    """Simulate ``len(seeds)`` independent deals in parallel.

    ``dealers`` (n,): each deal's dealer; ``policies`` and ``conditions``: see the
    module docstring.  Fills ``out`` (n, NUM_COLS), ``calls`` (n, MAX_CALLS) and,
    when ``keep_plays``, ``plays`` (n, 32).  A deal whose constraints could not be met
    in ``max_tries`` gets ``COL_TRIES = -1``.  ``search_bits``: log2 of the solver's
    table size (1 without a search policy); ``atlas``: the ``atlas`` bidding policy's
    tables (``bidding.atlas_value``; tiny arrays when no seat uses it).  Returns the
    number of deals in which a policy failed (see the module docstring).
    """
    predeal, cons, check_cons, max_tries = conditions
    bid_ids, bid_params, play_ids, play_params, announce_mask, menu = policies
    n = seeds.shape[0]
    # Blocks are a fixed split of the deals, so the output does not depend on the
    # thread count.  Each iteration of the parallel loop allocates work buffers, then
    # takes the next block from a shared counter until none is left: the first
    # iteration of each thread does nearly all the work, and a thread that another
    # process slows down takes fewer blocks instead of holding the others up at the end
    # of a static split (the later iterations find the counter spent).
    n_blocks = min(n, 256)
    next_block = np.zeros(1, dtype=np.int64)
    failed = np.zeros(n_blocks, dtype=np.int64)  # per block
    for _ in prange(n_blocks):
        deck = np.empty(32, dtype=np.int64)
        free_pos = np.empty(8, dtype=np.int64)
        free_cards = np.empty(32, dtype=np.int64)
        state = np.empty(1, dtype=np.uint64)
        work = thread_buffers(search_bits)
        # Rebuilt per block from its arrays: measured faster than handing the tuple
        # captured by the parallel loop to every deal.
        block_policies = (bid_ids, bid_params, play_ids, play_params, announce_mask, menu)
        b = fetch_add(next_block, 0, 1)
        while b < n_blocks:
            failed[b] = deal_block(
                b * n // n_blocks,
                (b + 1) * n // n_blocks,
                seeds,
                dealers,
                rules,
                block_policies,
                (predeal, cons, check_cons, max_tries),
                out,
                calls,
                plays,
                keep_plays,
                (deck, free_pos, free_cards, state),
                work,
                atlas,
            )
            b = fetch_add(next_block, 0, 1)
    return failed.sum()


@kernel(parallel=True)
def simulate_games(seeds, rules, policies, max_deals, out, log, search_bits, atlas):
    """Play ``len(seeds)`` whole games (section 9) in parallel, one row of ``out`` each.

    The first dealer is drawn from the game's seed and the deal passes to the right
    (dealer + 1) after every deal.  With ``dealing = cut`` the next deck is the cards
    in the order they were played (a thrown-in deal: in the order they were dealt),
    cut at a uniform position; otherwise every deal is a fresh shuffle.  Columns
    ``G_*``: deals played, final scores, points still held, winner (-1 if the game
    did not end within ``max_deals``), thrown-in, hanging and valat deals, first dealer.
    ``log`` (n, L, NUM_COLS) receives the rows of the first L deals of each game (L may
    be 0).  ``policies``: see the module docstring; ``atlas``: see ``simulate_deals``.
    Returns the number of deals in which a policy failed.
    """
    n = seeds.shape[0]
    failed = np.zeros(n, dtype=np.int64)
    for g in prange(n):
        state = seed_state(seeds[g])
        deck = np.arange(32)
        cut_work = np.empty(32, dtype=np.int64)
        work = thread_buffers(search_bits)
        deal = work[0][0]
        row = np.zeros(NUM_COLS, dtype=np.int64)
        calls = np.zeros(MAX_CALLS, dtype=np.uint8)
        totals = np.zeros(3, dtype=np.int64)
        dealer = random_below(state, 4)
        out[g, G_FIRST_DEALER] = dealer
        shuffle_deck(state, deck)
        cut = rules[R_DEALING] == DEALING_CUT
        winner = -1
        thrown = 0
        hanging = 0
        valats = 0
        k = 0
        while k < max_deals and winner < 0:
            if k > 0:
                if cut:
                    cut_deck(state, deck, cut_work)
                else:
                    shuffle_deck(state, deck)
            status = play_one_deal(deck, dealer, rules, policies, state, row, calls, work, atlas)
            failed[g] += status == FAILED
            if status == PLAYED and cut:
                for j in range(32):
                    deck[j] = deal.cards[j]
            if k < log.shape[1]:
                for j in range(NUM_COLS):
                    log[g, k, j] = row[j]
            outcome = row[COL_OUTCOME]
            thrown += outcome == OUTCOME_THROWN_IN
            hanging += outcome == OUTCOME_HANGING
            valats += row[COL_VALAT] >= 0
            winner = game_step(
                totals,
                outcome,
                row[COL_TAKER] & 1,
                row[COL_DOUBLING],
                row[COL_VALAT],
                row[COL_MP0],
                row[COL_MP1],
                row[COL_HELD0],
                row[COL_HELD1],
                rules,
            )
            dealer = (dealer + 1) & 3
            k += 1
        out[g, G_DEALS] = k
        out[g, G_SCORE0] = totals[0]
        out[g, G_SCORE1] = totals[1]
        out[g, G_HELD] = totals[2]
        out[g, G_WINNER] = winner
        out[g, G_THROWN_IN] = thrown
        out[g, G_HANGING] = hanging
        out[g, G_VALATS] = valats
    return failed.sum()


@lean_kernel(inline="always")
def write_solo_row(row, dealer, status, deal, bid, players, open_table):
    """The columns ``S_*`` of a deal where every player is alone into ``row``."""
    for k in range(NUM_SOLO_COLS):
        row[k] = 0
    row[S_DEALER] = dealer
    for p in range(players):
        row[S_HAND + p] = deal.hands[p]
        row[S_BID + p] = bid[p]
    if open_table:
        for p in range(2):
            for pile in range(4):
                down = deal.table[p, pile, 0]
                face_up = deal.table[p, pile, 1]
                row[S_DOWN0 + p] |= 1 << down
                row[S_UP0 + p] |= 1 << face_up
                row[S_TABLE0 + p] |= (down | face_up << 6) << (12 * pile)
    if status != PLAYED:
        row[S_STRAIN] = -1
        row[S_TAKER] = -1
        row[S_OUTCOME] = OUTCOME_THROWN_IN
        row[S_VALAT] = -1
        return
    row[S_STRAIN] = deal.strain
    row[S_TAKER] = deal.taker
    row[S_DOUBLING] = deal.doubling
    row[S_OUTCOME] = deal.outcome
    row[S_VALAT] = deal.valat
    for p in range(players):
        row[S_CARD + p] = deal.card_points[p]
        row[S_DECL + p] = deal.decl_points[p]
        row[S_BELOTE + p] = deal.belote_points[p]
        row[S_RAW + p] = deal.raw[p]
        row[S_MP + p] = deal.mp[p]
        row[S_HELD + p] = deal.held[p]
        row[S_TRICKS + p] = deal.tricks[p]


@lean_kernel(inline="always")
def play_one_solo_deal(deck, dealer, rules, policies, state, row, calls, work, atlas):
    """``play_one_deal`` for a game where every player is alone: ``deck`` the dealt
    24 (or, open belot, 32) cards, ``row`` (NUM_SOLO_COLS,) its ``S_*`` columns."""
    deals, bid, search = work
    deal = deals[0]
    status, _, _, _ = deal_and_play(
        deck, dealer, rules, policies, state, calls, deal, bid, search, atlas
    )
    write_solo_row(
        row, dealer, status, deal, bid, rules[R_PLAYERS], rules[R_VARIANT] == VARIANT_OPEN
    )
    return status


@kernel(parallel=True)
def simulate_solo_deals(seeds, dealers, rules, policies, out, calls, plays, keep_plays, atlas):
    """Simulate ``len(seeds)`` independent deals of a game where every player is alone.

    The number of players and the variant come from the rules (``players``,
    ``variant``): a uniformly shuffled 24-card deck for 2 and 3 players, 32 cards for
    open belot.  Fills ``out`` (n, NUM_SOLO_COLS), ``calls`` (n, MAX_CALLS) and, when
    ``keep_plays``, ``plays`` (n, 32).  Deal i is a pure function of ``seeds[i]``.
    Returns the number of deals in which a policy failed.
    """
    n = seeds.shape[0]
    open_table = rules[R_VARIANT] == VARIANT_OPEN
    n_blocks = min(n, 256)
    next_block = np.zeros(1, dtype=np.int64)  # blocks taken dynamically, as simulate_deals
    failed = np.zeros(n_blocks, dtype=np.int64)  # per block
    for _ in prange(n_blocks):
        base = solo_deck(open_table)
        deck = np.empty_like(base)
        state = np.empty(1, dtype=np.uint64)
        work = thread_buffers(1)
        deal = work[0][0]
        b = fetch_add(next_block, 0, 1)
        while b < n_blocks:
            for i in range(b * n // n_blocks, (b + 1) * n // n_blocks):
                reseed(state, seeds[i])
                deck[:] = base
                shuffle_deck(state, deck)
                status = play_one_solo_deal(
                    deck, dealers[i], rules, policies, state, out[i], calls[i], work, atlas
                )
                failed[b] += status == FAILED
                if keep_plays:
                    for k in range(32):
                        plays[i, k] = deal.cards[k]
            b = fetch_add(next_block, 0, 1)
    return failed.sum()


@kernel(parallel=True)
def simulate_solo_games(seeds, rules, policies, max_deals, out, log, atlas):
    """Play ``len(seeds)`` whole games where every player is alone, one row of ``out``
    (n, NUM_SOLO_GAME_COLS) each: the ``G_*`` columns, the third player's score in
    ``G_SCORE2``.  Every deal is a fresh shuffle; the first dealer is drawn from the
    game's seed and the deal passes to dealer + 1.  ``log`` (n, L, NUM_SOLO_COLS)
    receives the rows of the first L deals of each game.  Returns the number of deals
    in which a policy failed.
    """
    n = seeds.shape[0]
    n_players = rules[R_PLAYERS]
    open_table = rules[R_VARIANT] == VARIANT_OPEN
    failed = np.zeros(n, dtype=np.int64)
    for g in prange(n):
        state = seed_state(seeds[g])
        base = solo_deck(open_table)
        deck = np.empty_like(base)
        work = thread_buffers(1)
        row = np.zeros(NUM_SOLO_COLS, dtype=np.int64)
        calls = np.zeros(MAX_CALLS, dtype=np.uint8)
        totals = np.zeros(4, dtype=np.int64)
        dealer = random_below(state, n_players)
        out[g, G_FIRST_DEALER] = dealer
        winner = -1
        thrown = 0
        hanging = 0
        valats = 0
        k = 0
        while k < max_deals and winner < 0:
            deck[:] = base
            shuffle_deck(state, deck)
            status = play_one_solo_deal(
                deck, dealer, rules, policies, state, row, calls, work, atlas
            )
            failed[g] += status == FAILED
            if k < log.shape[1]:
                for j in range(NUM_SOLO_COLS):
                    log[g, k, j] = row[j]
            outcome = row[S_OUTCOME]
            thrown += outcome == OUTCOME_THROWN_IN
            hanging += outcome == OUTCOME_HANGING
            valats += row[S_VALAT] >= 0
            winner = solo_game_step(
                totals,
                outcome,
                row[S_TAKER],
                row[S_VALAT],
                row[S_MP : S_MP + n_players],
                row[S_HELD : S_HELD + n_players],
                n_players,
                rules,
            )
            dealer = (dealer + 1) % n_players
            k += 1
        out[g, G_DEALS] = k
        out[g, G_SCORE0] = totals[0]
        out[g, G_SCORE1] = totals[1]
        if n_players == 3:
            out[g, G_SCORE2] = totals[2]
        else:
            out[g, G_HELD] = totals[2]
        out[g, G_WINNER] = winner
        out[g, G_THROWN_IN] = thrown
        out[g, G_HANGING] = hanging
        out[g, G_VALATS] = valats
    return failed.sum()


__all__ = [
    "COL_BELOTE0",
    "COL_BELOTE1",
    "COL_BID0",
    "COL_BID1",
    "COL_BID2",
    "COL_BID3",
    "COL_CARD0",
    "COL_CARD1",
    "COL_DEALER",
    "COL_DECL0",
    "COL_DECL1",
    "COL_DOUBLING",
    "COL_HAND0",
    "COL_HAND1",
    "COL_HAND2",
    "COL_HAND3",
    "COL_HELD0",
    "COL_HELD1",
    "COL_MP0",
    "COL_MP1",
    "COL_OUTCOME",
    "COL_RAW0",
    "COL_RAW1",
    "COL_STRAIN",
    "COL_TAKER",
    "COL_TRICKS0",
    "COL_TRICKS1",
    "COL_TRIES",
    "COL_TURNED",
    "COL_VALAT",
    "FAILED",
    "G_DEALS",
    "G_FIRST_DEALER",
    "G_HANGING",
    "G_HELD",
    "G_SCORE0",
    "G_SCORE1",
    "G_SCORE2",
    "G_THROWN_IN",
    "G_VALATS",
    "G_WINNER",
    "NUM_COLS",
    "NUM_GAME_COLS",
    "NUM_SOLO_COLS",
    "NUM_SOLO_GAME_COLS",
    "PLAYED",
    "S_BELOTE",
    "S_BID",
    "S_CARD",
    "S_DEALER",
    "S_DECL",
    "S_DOUBLING",
    "S_DOWN0",
    "S_DOWN1",
    "S_HAND",
    "S_HELD",
    "S_MP",
    "S_OUTCOME",
    "S_RAW",
    "S_STRAIN",
    "S_TABLE0",
    "S_TABLE1",
    "S_TAKER",
    "S_TRICKS",
    "S_UP0",
    "S_UP1",
    "S_VALAT",
    "THROWN_IN",
    "deal_and_play",
    "deal_block",
    "play_one_deal",
    "play_one_solo_deal",
    "simulate_deals",
    "simulate_games",
    "simulate_solo_deals",
    "simulate_solo_games",
    "split_columns",
    "thread_buffers",
    "write_row",
    "write_solo_row",
]
