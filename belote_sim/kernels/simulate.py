"""The simulation loops: many independent deals, or whole games, in parallel.

Deal ``i`` is a pure function of ``seeds[i]`` (its RNG is seeded from it), so the
output does not depend on how ``prange`` splits the work between threads.  Each
deal writes one row of ``out`` (columns ``COL_*``), its calls to ``calls[i]`` and,
when a trick log is kept, its 32 cards in playing order to ``plays[i]``.

Arguments that travel together are passed as tuples:

- ``policies = (bid_ids, bid_params, play_ids, play_params, announce_mask)``: each
  seat's bidding and play policy ids (P,) and parameters (P, k), and the mask of the
  seats that announce their belote (bit s set: seat s announces);
- ``conditions = (predeal, cons, check_cons, max_tries)``: the conditions of the deal
  (see ``dealing.deal_conditioned``);
- ``work = (hands, bid, winners, belote, decl)``: the work buffers of one thread
  (``deal_buffers``), allocated once per block of deals.
"""

import numpy as np
from numba import prange

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.atomics import fetch_add
from belote_sim.kernels.bidding import (
    BID_FIXED,
    CALL_FIXED,
    FIXED_DOUBLING,
    FIXED_SEAT,
    FIXED_STRAIN,
    MAX_CALLS,
    french_take,
    run_auction,
    take_or_pass,
)
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
from belote_sim.kernels.declarations import NUM_DECL_FIELDS, player_declarations
from belote_sim.kernels.play import (
    NUM_PLAYER_FIELDS,
    PLAYER_BELOTE,
    PLAYER_CARD,
    PLAYER_TRICKS,
    deal_declarations,
    play_deal,
    play_solo_deal,
    score_played_deal,
    search_buffers,
    solo_declarations,
)
from belote_sim.kernels.rng import random_below, reseed, seed_state
from belote_sim.kernels.scoring import game_step, score_players, solo_game_step
from belote_sim.kernels.tables import (
    ALL_SEATS_MASK,
    BIDDING_TWO_ROUND,
    DEALING_CUT,
    NUM_TRICKS,
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


@kernel
def deal_buffers():
    """The ``work`` tuple ``(hands, bid, winners, belote, decl)`` of ``play_one_deal``."""
    return (
        np.empty(4, dtype=np.int64),
        np.empty(4, dtype=np.int64),
        np.empty(8, dtype=np.int64),
        np.empty(4, dtype=np.int64),
        np.empty((4, NUM_DECL_FIELDS), dtype=np.int64),
    )


@lean_kernel
def play_one_deal(deck, dealer, rules, policies, state, row, calls, plays, work, search, atlas):
    """Bid, deal the rest, play and score one deal from a dealt ``deck``.

    ``policies`` and ``work``: see the module docstring (runs and carrés are always
    announced; ``announce_mask`` is about belotes).  ``row`` (NUM_COLS,) receives the
    results; ``calls`` the auction characters; ``plays`` (32,) the cards in playing
    order.  ``atlas``: the ``atlas`` bidding policy's tables
    (``bidding.atlas_value``; tiny arrays when no seat uses it).  Returns whether a
    contract was played.  A lean kernel: it allocates nothing.
    """
    bid_ids, bid_params, play_ids, play_params, announce_mask = policies
    hands, bid, winners, belote, decl = work
    two_round = rules[R_BIDDING] == BIDDING_TWO_ROUND
    hands_from_deck(deck, dealer, hands, bid)
    turned = -1
    for k in range(MAX_CALLS):
        calls[k] = 0
    if bid_ids[0] == BID_FIXED:
        taker = np.int64(bid_params[0, FIXED_SEAT])
        strain = np.int64(bid_params[0, FIXED_STRAIN])
        doubling = np.int64(bid_params[0, FIXED_DOUBLING])
        calls[0] = CALL_FIXED
        if two_round:
            turned = deck[TURNED_POSITION]
            french_hands(deck, dealer, taker, hands)
    elif two_round:
        turned = deck[TURNED_POSITION]
        strain, taker, _ = french_take(
            bid, turned, dealer, rules, bid_ids, bid_params, calls, atlas
        )
        doubling = 0
        if strain >= 0:
            french_hands(deck, dealer, taker, hands)
    else:
        strain, taker, doubling, _ = run_auction(
            bid, dealer, rules, bid_ids, bid_params, calls, atlas
        )
    row[COL_DEALER] = dealer
    for seat in range(4):
        row[COL_HAND0 + seat] = hands[seat] if strain >= 0 or not two_round else bid[seat]
        row[COL_BID0 + seat] = bid[seat]
    row[COL_TURNED] = turned
    for k in range(COL_STRAIN, NUM_COLS):
        if k != COL_TURNED and k != COL_TRIES:
            row[k] = 0
    if strain < 0:
        row[COL_STRAIN] = -1
        row[COL_TAKER] = -1
        row[COL_OUTCOME] = OUTCOME_THROWN_IN
        row[COL_VALAT] = -1
        return False
    leader = (dealer + 1) & 3
    _, _, _, card0, card1, tricks0, tricks1, belote0, belote1 = play_deal(
        hands,
        leader,
        strain,
        taker,
        rules,
        announce_mask,
        plays,
        0,
        play_ids,
        play_params,
        state,
        plays,
        winners,
        belote,
        search,
    )
    # Runs and carrés are always announced; announce_mask is about belotes only.
    deal_declarations(hands, strain, ALL_SEATS_MASK, rules, decl)
    _, decl0, decl1, raw0, raw1, outcome, valat, mp0, mp1, held0, held1 = score_played_deal(
        decl,
        tricks0,
        tricks1,
        card0,
        card1,
        belote0,
        belote1,
        strain,
        taker & 1,
        doubling,
        leader,
        NUM_TRICKS,
        rules,
    )
    row[COL_STRAIN] = strain
    row[COL_TAKER] = taker
    row[COL_DOUBLING] = doubling
    row[COL_CARD0] = card0
    row[COL_CARD1] = card1
    row[COL_TRICKS0] = tricks0
    row[COL_TRICKS1] = tricks1
    row[COL_BELOTE0] = belote0
    row[COL_BELOTE1] = belote1
    row[COL_DECL0] = decl0
    row[COL_DECL1] = decl1
    row[COL_RAW0] = raw0
    row[COL_RAW1] = raw1
    row[COL_OUTCOME] = outcome
    row[COL_VALAT] = valat
    row[COL_MP0] = mp0
    row[COL_MP1] = mp1
    row[COL_HELD0] = held0
    row[COL_HELD1] = held1
    return True


@lean_kernel
def deal_block(
    start,
    stop,
    seeds,
    dealers,
    rules,
    policies,
    conditions,
    out,
    calls,
    plays,
    keep_plays,
    buffers,
    work,
    search,
    atlas,
):
    """Deals ``start..stop-1`` of ``simulate_deals`` with one thread's buffers
    (``buffers = (deck, free_pos, free_cards, deal_plays, state)``, ``work``,
    ``search``): a lean kernel, so the rows and arrays it hands on per deal cost no
    reference counting."""
    predeal, cons, check_cons, max_tries = conditions
    deck, free_pos, free_cards, deal_plays, state = buffers
    hands = work[0]
    bid = work[1]
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
            hands,
            bid,
        )
        out[i, COL_TRIES] = tries
        if tries < 0:
            out[i, COL_STRAIN] = -1
            out[i, COL_OUTCOME] = OUTCOME_THROWN_IN
            continue
        play_one_deal(
            deck,
            dealer,
            rules,
            policies,
            state,
            out[i],
            calls[i],
            deal_plays,
            work,
            search,
            atlas,
        )
        if keep_plays:
            for k in range(32):
                plays[i, k] = deal_plays[k]


@kernel(parallel=True)
def simulate_deals(
    seeds, dealers, rules, policies, conditions, out, calls, plays, keep_plays, search_bits, atlas
):
    """Simulate ``len(seeds)`` independent deals in parallel.

    ``dealers`` (n,): each deal's dealer; ``policies`` and ``conditions``: see the
    module docstring.  Fills ``out`` (n, NUM_COLS), ``calls`` (n, MAX_CALLS) and,
    when ``keep_plays``, ``plays`` (n, 32).  A deal whose constraints could not be met
    in ``max_tries`` gets ``COL_TRIES = -1``.  ``search_bits``: log2 of the solver's
    table size (1 without a search policy); ``atlas``: see ``play_one_deal``.
    """
    predeal, cons, check_cons, max_tries = conditions
    bid_ids, bid_params, play_ids, play_params, announce_mask = policies
    n = seeds.shape[0]
    # Blocks are a fixed split of the deals, so the output does not depend on the
    # thread count.  Each iteration of the parallel loop allocates work buffers, then
    # takes the next block from a shared counter until none is left: the first
    # iteration of each thread does nearly all the work, and a thread that another
    # process slows down takes fewer blocks instead of holding the others up at the end
    # of a static split (the later iterations find the counter spent).
    n_blocks = min(n, 256)
    next_block = np.zeros(1, dtype=np.int64)
    for _ in prange(n_blocks):
        deck = np.empty(32, dtype=np.int64)
        free_pos = np.empty(8, dtype=np.int64)
        free_cards = np.empty(32, dtype=np.int64)
        deal_plays = np.zeros(32, dtype=np.int64)
        hands = np.empty(4, dtype=np.int64)
        bid = np.empty(4, dtype=np.int64)
        work = (
            hands,
            bid,
            np.empty(8, dtype=np.int64),
            np.empty(4, dtype=np.int64),
            np.empty((4, NUM_DECL_FIELDS), dtype=np.int64),
        )
        # Rebuilt per block from its arrays: measured faster than handing the tuple
        # captured by the parallel loop to every deal.
        block_policies = (bid_ids, bid_params, play_ids, play_params, announce_mask)
        search = search_buffers(search_bits)
        state = np.empty(1, dtype=np.uint64)
        b = fetch_add(next_block, 0, 1)
        while b < n_blocks:
            deal_block(
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
                (deck, free_pos, free_cards, deal_plays, state),
                work,
                search,
                atlas,
            )
            b = fetch_add(next_block, 0, 1)


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
    be 0).  ``policies``: see the module docstring; ``atlas``: see ``play_one_deal``.
    """
    n = seeds.shape[0]
    for g in prange(n):
        state = seed_state(seeds[g])
        deck = np.arange(32)
        cut_work = np.empty(32, dtype=np.int64)
        plays = np.zeros(32, dtype=np.int64)
        work = deal_buffers()
        row = np.zeros(NUM_COLS, dtype=np.int64)
        calls = np.zeros(MAX_CALLS, dtype=np.uint8)
        totals = np.zeros(3, dtype=np.int64)
        search = search_buffers(search_bits)
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
            played = play_one_deal(
                deck, dealer, rules, policies, state, row, calls, plays, work, search, atlas
            )
            if played and cut:
                for j in range(32):
                    deck[j] = plays[j]
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


@kernel
def play_one_solo_deal(
    deck, dealer, n_players, open_table, rules, policies, state, row, calls, plays
):
    """Deal, bid (take-or-pass), play and score one deal where every player is alone.

    ``deck``: the dealt deck (24 cards, or 32 for open belot); ``policies``: see the
    module docstring; ``row`` (NUM_SOLO_COLS,) receives the results (``S_*`` columns),
    ``calls`` the bidding, ``plays`` the cards in playing order.  Returns whether a
    contract was played.
    """
    bid_ids, bid_params, play_ids, play_params, announce_mask = policies
    hands = np.zeros(n_players, dtype=np.int64)
    bid = np.zeros(n_players, dtype=np.int64)
    table = np.full((n_players, 4, 2), -1, dtype=np.int64)
    solo_hands_from_deck(deck, dealer, n_players, open_table, hands, bid, table)
    for k in range(MAX_CALLS):
        calls[k] = 0
    for k in range(NUM_SOLO_COLS):
        row[k] = 0
    if bid_ids[0] == BID_FIXED:
        taker = np.int64(bid_params[0, FIXED_SEAT])
        strain = np.int64(bid_params[0, FIXED_STRAIN])
        doubling = np.int64(bid_params[0, FIXED_DOUBLING])
        calls[0] = CALL_FIXED
    else:
        strain, taker, _ = take_or_pass(bid, dealer, n_players, bid_params, calls)
        doubling = 0
    row[S_DEALER] = dealer
    for p in range(n_players):
        row[S_HAND + p] = hands[p]
        row[S_BID + p] = bid[p]
    if open_table:
        for p in range(2):
            for pile in range(4):
                row[S_DOWN0 + p] |= 1 << table[p, pile, 0]
                row[S_UP0 + p] |= 1 << table[p, pile, 1]
                row[S_TABLE0 + p] |= (table[p, pile, 0] | table[p, pile, 1] << 6) << (12 * pile)
    if strain < 0:
        row[S_STRAIN] = -1
        row[S_TAKER] = -1
        row[S_OUTCOME] = OUTCOME_THROWN_IN
        row[S_VALAT] = -1
        return False
    leader = (dealer + 1) % n_players
    winners = np.zeros(16, dtype=np.int64)
    per_player = np.zeros((NUM_PLAYER_FIELDS, n_players), dtype=np.int64)
    play_solo_deal(
        hands,
        table,
        n_players,
        leader,
        strain,
        taker,
        rules,
        announce_mask,
        plays,
        0,
        play_ids,
        play_params,
        state,
        plays,
        winners,
        per_player,
    )
    card = per_player[PLAYER_CARD]
    tricks = per_player[PLAYER_TRICKS]
    belote_pts = per_player[PLAYER_BELOTE]
    decl = np.zeros((n_players, NUM_DECL_FIELDS), dtype=np.int64)
    solo_declarations(hands, table, n_players, strain, rules, decl)
    decl_pts = np.zeros(n_players, dtype=np.int64)
    player_declarations(decl, tricks, n_players, leader, rules, decl_pts)
    raw = np.zeros(n_players, dtype=np.int64)
    mp = np.zeros(n_players, dtype=np.int64)
    held = np.zeros(n_players, dtype=np.int64)
    n_tricks = (32 if open_table else 24 if n_players == 3 else 18) // n_players
    outcome, valat = score_players(
        card,
        decl_pts,
        belote_pts,
        tricks,
        n_players,
        strain,
        taker,
        doubling,
        n_tricks,
        leader,
        rules,
        raw,
        mp,
        held,
    )
    row[S_STRAIN] = strain
    row[S_TAKER] = taker
    row[S_DOUBLING] = doubling
    row[S_OUTCOME] = outcome
    row[S_VALAT] = valat
    for p in range(n_players):
        row[S_CARD + p] = card[p]
        row[S_DECL + p] = decl_pts[p]
        row[S_BELOTE + p] = belote_pts[p]
        row[S_RAW + p] = raw[p]
        row[S_MP + p] = mp[p]
        row[S_HELD + p] = held[p]
        row[S_TRICKS + p] = tricks[p]
    return True


@kernel(parallel=True)
def simulate_solo_deals(seeds, dealers, rules, policies, out, calls, plays, keep_plays):
    """Simulate ``len(seeds)`` independent deals of a game where every player is alone.

    The number of players and the variant come from the rules (``players``,
    ``variant``): a uniformly shuffled 24-card deck for 2 and 3 players, 32 cards for
    open belot.  Fills ``out`` (n, NUM_SOLO_COLS), ``calls`` (n, MAX_CALLS) and, when
    ``keep_plays``, ``plays`` (n, 32).  Deal i is a pure function of ``seeds[i]``.
    """
    n = seeds.shape[0]
    n_players = rules[R_PLAYERS]
    open_table = rules[R_VARIANT] == VARIANT_OPEN
    n_blocks = min(n, 256)
    next_block = np.zeros(1, dtype=np.int64)  # blocks taken dynamically, as simulate_deals
    for _ in prange(n_blocks):
        base = solo_deck(open_table)
        deck = np.empty_like(base)
        deal_plays = np.zeros(32, dtype=np.int64)
        state = np.empty(1, dtype=np.uint64)
        b = fetch_add(next_block, 0, 1)
        while b < n_blocks:
            for i in range(b * n // n_blocks, (b + 1) * n // n_blocks):
                reseed(state, seeds[i])
                deck[:] = base
                shuffle_deck(state, deck)
                play_one_solo_deal(
                    deck,
                    dealers[i],
                    n_players,
                    open_table,
                    rules,
                    policies,
                    state,
                    out[i],
                    calls[i],
                    deal_plays,
                )
                if keep_plays:
                    for k in range(32):
                        plays[i, k] = deal_plays[k]
            b = fetch_add(next_block, 0, 1)


@kernel(parallel=True)
def simulate_solo_games(seeds, rules, policies, max_deals, out, log):
    """Play ``len(seeds)`` whole games where every player is alone, one row of ``out``
    (n, NUM_SOLO_GAME_COLS) each: the ``G_*`` columns, the third player's score in
    ``G_SCORE2``.  Every deal is a fresh shuffle; the first dealer is drawn from the
    game's seed and the deal passes to dealer + 1.  ``log`` (n, L, NUM_SOLO_COLS)
    receives the rows of the first L deals of each game.
    """
    n = seeds.shape[0]
    n_players = rules[R_PLAYERS]
    open_table = rules[R_VARIANT] == VARIANT_OPEN
    for g in prange(n):
        state = seed_state(seeds[g])
        base = solo_deck(open_table)
        deck = np.empty_like(base)
        plays = np.zeros(32, dtype=np.int64)
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
            play_one_solo_deal(
                deck, dealer, n_players, open_table, rules, policies, state, row, calls, plays
            )
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
