"""Playing a whole deal: replaying recorded cards or choosing them by policy.

``play_deal`` is the one loop that plays 32 cards: it takes the cards of a record
while there are any, then (if a policy is given) asks the policy, checks every card
against the legal-move rules, keeps the trick winners, card points and belote
announcements.  ``score_played_deal`` adds declarations and scoring.
``play_solo_deal`` is the same loop for the games where every player is alone
(2 and 3 players, open belot with its table cards).  The random
number generator is a xorshift64* kept in a uint64[1] array, so a deal is a pure
function of its seed.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.core import (
    DUTY_NONE,
    NO_PARTNER,
    add_to_trick,
    broken_duty,
    legal_mask,
    lowest_card,
    nth_card,
    popcount,
)
from belote_sim.kernels.dealing import shuffle_deal_into
from belote_sim.kernels.declarations import (
    DECL_BEST_KEY,
    DECL_BEST_RUN_KEY,
    DECL_CARRE_POINTS,
    DECL_RUN_POINTS,
    NUM_DECL_FIELDS,
    announces_belote,
    belote_suits,
    hand_declarations,
    team_declarations,
)
from belote_sim.kernels.expert_model import MODEL_SCRATCH
from belote_sim.kernels.expert_seat import declared_cards, expert_move
from belote_sim.kernels.policies import (
    PIMC_SAMPLES,
    POLICY_DD,
    POLICY_EXPERT,
    POLICY_NONE,
    POLICY_RANDOM,
    choose_card,
)
from belote_sim.kernels.rng import next_random, random_below, reseed
from belote_sim.kernels.scoring import score_deal
from belote_sim.kernels.solver import MAX_PLY, NUM_FIELDS, dd_best_card, pimc_best_card
from belote_sim.kernels.tables import (
    ALL_SEATS_MASK,
    BELOTE_POINTS,
    CARD_POINTS,
    DECK24_MASK,
    LAST_TRICK_BONUS,
    NUM_TRICKS,
    R_BELOTE_ON_DISCARD,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
    RANK_K,
    RANK_Q,
    STRAIN_AT,
    STRAIN_NT,
)

#: Rows of ``play_solo_deal``'s per-player output array (NUM_PLAYER_FIELDS, P).
PLAYER_BELOTE_SUITS, PLAYER_CARD, PLAYER_TRICKS, PLAYER_BELOTE = range(4)
NUM_PLAYER_FIELDS = 4


@kernel
def announced_cards(dealt, left, belote, first_leader, n_played, strain, rules, out_known):
    """Cards every player has seen announced and that are still in each hand.

    Runs and carrés are announced with a player's first card (every simulated player
    announces them; 6.2), so once seat s has played a card the cards of its declared
    runs and carrés are known; an announced belote shows the other of its K/Q.
    ``dealt``/``left``: (4,) hands as dealt / now; ``belote``: (4,) suits of the
    belotes announced.  Writes ``out_known`` (4,) masks.
    """
    for seat in range(4):
        known = 0
        if n_played > ((seat - first_leader) & 3):
            ranks, known, _, _, _, _ = hand_declarations(dealt[seat], strain, rules)
            for rank in range(8):
                if (ranks >> rank) & 1:
                    known |= 0x01010101 << rank
        for suit in range(4):
            if (belote[seat] >> suit) & 1:
                known |= (1 << (8 * suit + RANK_K)) | (1 << (8 * suit + RANK_Q))
        out_known[seat] = known & left[seat]


@kernel
def hands_left(dealt, played):
    """(4,) hands still held: each seat's dealt hand less the cards ``played``."""
    left = np.empty(4, dtype=np.int64)
    for seat in range(4):
        left[seat] = dealt[seat] & ~played
    return left


@kernel(inline="never")
def search_card(
    policy,
    params,
    played,
    dealt,
    belote,
    leader,
    n_in_trick,
    plays,
    n_played,
    first_leader,
    strain,
    rules,
    state,
    search,
):
    """The card of a search policy (``dd`` with every hand visible, ``pimc`` sampling the
    unseen cards consistent with what the player has seen: the cards played, the voids
    shown and the announced declarations); kept out of line so the plain policies'
    loop stays small; ``played``: the mask of the cards played so far."""
    hands = hands_left(dealt, played)
    seat = (leader + n_in_trick) & 3
    raise_op = rules[R_RAISE_OVER_PARTNER]
    undertrump = rules[R_UNDERTRUMP]
    if policy == POLICY_DD:
        trick = np.zeros(4, dtype=np.int64)
        for k in range(n_in_trick):
            trick[k] = plays[n_played - n_in_trick + k]
        return dd_best_card(
            hands,
            leader,
            trick,
            n_in_trick,
            strain,
            raise_op,
            undertrump,
            search[0],
            search[1],
            search[2],
        )[0]
    known = np.zeros(4, dtype=np.int64)
    announced_cards(dealt, hands, belote, first_leader, n_played, strain, rules, known)
    known[seat] = 0
    return pimc_best_card(
        hands[seat],
        known,
        plays,
        n_played,
        first_leader,
        strain,
        raise_op,
        undertrump,
        np.int64(params[PIMC_SAMPLES]),
        next_random(state),
        search[0],
        search[1],
        search[2],
    )


@lean_kernel
def play_deal(
    hands,
    leader,
    strain,
    taker,
    rules,
    announce_mask,
    plays,
    n_given,
    policies,
    params,
    state,
    out_plays,
    out_winners,
    out_belote,
    search,
):
    """Play a deal from its start.

    ``hands``: (4,) masks (not modified); ``leader``: seat that leads trick 0;
    ``taker``: the taker's seat (policies use it); ``announce_mask``: bit s set if seat s
    announces its belote; ``plays``/``n_given``: recorded cards to take first;
    ``policies`` (4,) and ``params`` (4, k): each seat's play policy id and parameters
    for the rest (``POLICY_NONE`` stops when the record ends); ``state``: RNG state.
    Fills ``out_plays`` (32,) with the cards in order, ``out_winners`` (8,) with the
    seat that won each completed trick and ``out_belote`` (4,) with the suits in which
    each seat announced a belote.  ``search``: the buffers of the search policies
    (``dd``, ``pimc``, ``expert``; ``search_buffers``, a tiny table will do for the others).

    Returns ``(n_played, duty, next_legal, card0, card1, tricks0, tricks1, belote0,
    belote1)``: cards legally played, the broken duty of card ``n_played`` (0 if
    none), the legal mask of the next decision (0 when the deal is over), card
    points per team (last trick included, complete tricks only), tricks won per
    team and belote points per team.
    """
    # Per-deal state in scalars (no allocation: a lean kernel): a seat's hand left is
    # its dealt hand less ``played``; ``pending`` holds each seat's unannounced belote
    # suits in bits 4*seat..4*seat+3.
    pending = 0
    for seat in range(4):
        if (announce_mask >> seat) & 1:
            pending |= belote_suits(hands[seat], strain) << (4 * seat)
        out_belote[seat] = 0
    raise_op = rules[R_RAISE_OVER_PARTNER]
    undertrump = rules[R_UNDERTRUMP]
    on_discard = rules[R_BELOTE_ON_DISCARD]
    card0 = card1 = tricks0 = tricks1 = belote0 = belote1 = 0
    n_cards = popcount(hands[0]) * 4
    n_played = 0
    played = 0
    first_leader = leader
    # the declared cards of the four hands, for the expert (worked out at its first card)
    have_declared = False
    declared_lo = declared_hi = 0
    for trick in range(n_cards // 4):
        led_suit = -1
        win_card = -1
        win_pos = -1
        trick_pts = 0
        for pos in range(4):
            seat = (leader + pos) & 3
            hand = hands[seat] & ~played
            legal = legal_mask(hand, led_suit, pos, win_card, win_pos, strain, raise_op, undertrump)
            if n_played < n_given:
                card = plays[n_played]
                duty = broken_duty(
                    hand, card, led_suit, pos, win_card, win_pos, strain, raise_op, undertrump
                )
                if duty != DUTY_NONE:
                    return (n_played, duty, legal, card0, card1, tricks0, tricks1, belote0, belote1)
            elif policies[seat] == POLICY_RANDOM:  # the common case, kept inline
                card = nth_card(legal, random_below(state, popcount(legal)))
            elif policies[seat] == POLICY_NONE:
                return (
                    n_played,
                    DUTY_NONE,
                    legal,
                    card0,
                    card1,
                    tricks0,
                    tricks1,
                    belote0,
                    belote1,
                )
            elif policies[seat] == POLICY_EXPERT and legal & (legal - 1) == 0:
                card = lowest_card(legal)  # forced: no need to look
            elif policies[seat] == POLICY_EXPERT:
                if not have_declared:  # the first expert card of the deal
                    have_declared = True
                    declared_lo = declared_cards(hands[0], strain, rules) | (
                        declared_cards(hands[1], strain, rules) << 32
                    )
                    declared_hi = declared_cards(hands[2], strain, rules) | (
                        declared_cards(hands[3], strain, rules) << 32
                    )
                card = expert_move(
                    params[seat],
                    hands,
                    played,
                    declared_lo,
                    declared_hi,
                    out_belote,
                    leader,
                    pos,
                    out_plays,
                    n_played,
                    first_leader,
                    strain,
                    taker,
                    rules,
                    search,
                )
            elif policies[seat] >= POLICY_DD:
                card = search_card(
                    policies[seat],
                    params[seat],
                    played,
                    hands,
                    out_belote,
                    leader,
                    pos,
                    out_plays,
                    n_played,
                    first_leader,
                    strain,
                    rules,
                    state,
                    search,
                )
                if card < 0:  # no consistent deal (cannot happen in a legal deal)
                    card = choose_card(
                        POLICY_RANDOM,
                        params[seat],
                        hand,
                        legal,
                        pos,
                        led_suit,
                        win_card,
                        win_pos,
                        played,
                        strain,
                        seat,
                        taker,
                        state,
                    )
            else:
                card = choose_card(
                    policies[seat],
                    params[seat],
                    hand,
                    legal,
                    pos,
                    led_suit,
                    win_card,
                    win_pos,
                    played,
                    strain,
                    seat,
                    taker,
                    state,
                )
            suit = card >> 3
            rank = card & 7
            if (pending >> (4 * seat + suit)) & 1 and rank in (RANK_Q, RANK_K):
                # First card of a belote pair: announce it or forfeit it (6.2).
                pending &= ~(1 << (4 * seat + suit))
                if announces_belote(card, led_suit, pos, strain, on_discard):
                    out_belote[seat] |= 1 << suit
                    if seat & 1:
                        belote1 += BELOTE_POINTS
                    else:
                        belote0 += BELOTE_POINTS
            played |= 1 << card
            out_plays[n_played] = card
            n_played += 1
            trick_pts += CARD_POINTS[strain, card]
            led_suit, win_card, win_pos = add_to_trick(
                card, pos, led_suit, win_card, win_pos, strain
            )
        winner = (leader + win_pos) & 3
        out_winners[trick] = winner
        if winner & 1:
            tricks1 += 1
            card1 += trick_pts
        else:
            tricks0 += 1
            card0 += trick_pts
        leader = winner
    if leader & 1:
        card1 += LAST_TRICK_BONUS
    else:
        card0 += LAST_TRICK_BONUS
    return (n_played, DUTY_NONE, 0, card0, card1, tricks0, tricks1, belote0, belote1)


@kernel
def play_solo_deal(
    hands,
    table,
    n_players,
    leader,
    strain,
    taker,
    rules,
    announce_mask,
    plays,
    n_given,
    policies,
    params,
    state,
    out_plays,
    out_winners,
    out_player,
):
    """Play a deal of a game where every player is alone (docs/rules.md section 11).

    ``hands`` (P,) masks; ``table`` (P, 4, 2): open belot's piles ``[face-down,
    face-up]`` (cards, or -1 for games without a table).  A player chooses from his
    hand and his face-up table cards; playing a face-up card turns up the one beneath
    it.  Legal moves are those of section 5 with no partner.  A belote counts when
    the first of its K/Q is played while the other one is in the player's hand or
    face up on his table (for 2 and 3 players: both in the hand from the start), the
    player announces belotes (``announce_mask``) and ``belote_on_discard`` allows
    it.  ``plays``/``n_given``, ``policies``/``params`` (``random``, ``greedy``,
    ``POLICY_NONE``) and ``state`` as ``play_deal``.  Fills ``out_plays`` (cards in
    order), ``out_winners`` (winner of each completed trick) and ``out_player``
    (NUM_PLAYER_FIELDS, P), per player: row ``PLAYER_BELOTE_SUITS`` the suits of the
    announced belotes, ``PLAYER_CARD`` card points of completed tricks (last-trick 10
    included), ``PLAYER_TRICKS`` tricks won, ``PLAYER_BELOTE`` belote points.

    Returns ``(n_played, duty, next_legal)`` as ``play_deal``.
    """
    out_belote = out_player[PLAYER_BELOTE_SUITS]
    out_card = out_player[PLAYER_CARD]
    out_tricks = out_player[PLAYER_TRICKS]
    out_belote_pts = out_player[PLAYER_BELOTE]
    left = np.empty(n_players, dtype=np.int64)
    up = np.zeros(n_players, dtype=np.int64)
    beneath = np.full(32, -1, dtype=np.int64)
    done = np.zeros(n_players, dtype=np.int64)
    n_cards = 0
    for p in range(n_players):
        left[p] = hands[p]
        n_cards += popcount(hands[p])
        out_belote[p] = 0
        out_card[p] = 0
        out_tricks[p] = 0
        out_belote_pts[p] = 0
        for pile in range(4):
            if table[p, pile, 1] >= 0:
                up[p] |= 1 << table[p, pile, 1]
                beneath[table[p, pile, 1]] = table[p, pile, 0]
                n_cards += 1 + (table[p, pile, 0] >= 0)
    # What every player knows is not in play: the 7s and 8s of the 24-card deck.
    if n_players == 3 or (n_players == 2 and table[0, 0, 1] < 0):
        known_absent = ~DECK24_MASK & 0xFFFFFFFF
    else:
        known_absent = 0
    raise_op = rules[R_RAISE_OVER_PARTNER]
    undertrump = rules[R_UNDERTRUMP]
    on_discard = rules[R_BELOTE_ON_DISCARD]
    n_played = 0
    played = known_absent
    for trick in range(n_cards // n_players):
        led_suit = -1
        win_card = -1
        win_pos = -1
        trick_pts = 0
        for pos in range(n_players):
            seat = (leader + pos) % n_players
            avail = left[seat] | up[seat]
            legal = legal_mask(
                avail, led_suit, pos, win_card, NO_PARTNER, strain, raise_op, undertrump
            )
            if n_played < n_given:
                card = plays[n_played]
                duty = broken_duty(
                    avail, card, led_suit, pos, win_card, NO_PARTNER, strain, raise_op, undertrump
                )
                if duty != DUTY_NONE:
                    return n_played, duty, legal
            elif policies[seat] == POLICY_NONE:
                return n_played, DUTY_NONE, legal
            else:
                # greedy draws trumps "on the taker's side": pass a seat of the same
                # parity only for the taker himself.
                side = seat if seat == taker else seat + 1
                card = choose_card(
                    policies[seat],
                    params[seat],
                    avail,
                    legal,
                    pos,
                    led_suit,
                    win_card,
                    NO_PARTNER,
                    played,
                    strain,
                    seat,
                    side,
                    state,
                )
            suit = card >> 3
            rank = card & 7
            if (
                (rank in (RANK_Q, RANK_K))
                and strain != STRAIN_NT
                and (strain == STRAIN_AT or suit == strain)
                and not (done[seat] >> suit) & 1
            ):
                # First card of a K/Q pair of trump this player plays (6.2).
                done[seat] |= 1 << suit
                other = 8 * suit + RANK_K + RANK_Q - rank
                if (
                    (avail >> other) & 1
                    and (announce_mask >> seat) & 1
                    and announces_belote(card, led_suit, pos, strain, on_discard)
                ):
                    out_belote[seat] |= 1 << suit
                    out_belote_pts[seat] += BELOTE_POINTS
            bit = 1 << card
            if left[seat] & bit:
                left[seat] &= ~bit
            else:
                up[seat] &= ~bit
                if beneath[card] >= 0:
                    up[seat] |= 1 << beneath[card]
            played |= bit
            out_plays[n_played] = card
            n_played += 1
            trick_pts += CARD_POINTS[strain, card]
            led_suit, win_card, win_pos = add_to_trick(
                card, pos, led_suit, win_card, win_pos, strain
            )
        winner = (leader + win_pos) % n_players
        out_winners[trick] = winner
        out_tricks[winner] += 1
        out_card[winner] += trick_pts
        leader = winner
    out_card[leader] += LAST_TRICK_BONUS
    return n_played, DUTY_NONE, 0


@kernel
def solo_declarations(hands, table, n_players, strain, rules, out_decl):
    """``hand_declarations`` of every player of a solo game into ``out_decl`` (P, 6).

    Runs and carrés are announced with the first card, from what the player then
    holds: his hand, plus (open belot) his four face-up table cards.
    """
    for p in range(n_players):
        cards = hands[p]
        for pile in range(4):
            if table[p, pile, 1] >= 0:
                cards |= 1 << table[p, pile, 1]
        d = hand_declarations(cards, strain, rules)
        for k in range(NUM_DECL_FIELDS):
            out_decl[p, k] = d[k]


@kernel
def search_buffers(bits):
    """Buffers of the search policies ``(tt, ws, moves, work, feats)``: the solver's, with
    a ``2**bits``-entry transposition table (bits = 1 for deals without a search
    policy), and the ``expert``'s scratch (``expert_seat.expert_move``), so that a deal
    allocates nothing."""
    return (
        np.zeros((1 << bits, 3), dtype=np.int64),
        np.zeros((MAX_PLY + 1, NUM_FIELDS), dtype=np.int64),
        np.zeros((MAX_PLY, 16), dtype=np.int64),
        np.zeros((6, 4), dtype=np.int64),
        np.zeros(MODEL_SCRATCH, dtype=np.float64),
    )


@lean_kernel
def deal_declarations(hands, strain, announce_mask, rules, out_decl):
    """``hand_declarations`` for the four seats into ``out_decl`` (4, 6).

    A seat whose bit in ``announce_mask`` is clear declares nothing (zeros).
    """
    for seat in range(4):
        if (announce_mask >> seat) & 1:
            d = hand_declarations(hands[seat], strain, rules)
            for k in range(NUM_DECL_FIELDS):
                out_decl[seat, k] = d[k]
        else:
            for k in range(NUM_DECL_FIELDS):
                out_decl[seat, k] = 0


@lean_kernel
def score_played_deal(
    decl,
    tricks0,
    tricks1,
    card0,
    card1,
    belote0,
    belote1,
    strain,
    taker_team,
    doubling,
    first_seat,
    n_tricks,
    rules,
):
    """Team declarations then ``score_deal`` for a fully played deal.

    ``decl``: (4, 6) from ``deal_declarations``.  Returns ``(scored, decl0, decl1, raw0,
    raw1, outcome, valat, mp0, mp1, held0, held1)``: the team whose declarations score
    and the scored declaration points per team, then the 8 values of ``score_deal``.
    """
    d0, d1, scored = team_declarations(
        decl[:, DECL_RUN_POINTS],
        decl[:, DECL_CARRE_POINTS],
        decl[:, DECL_BEST_RUN_KEY],
        decl[:, DECL_BEST_KEY],
        (tricks0, tricks1),
        first_seat,
        rules,
    )
    raw0, raw1, outcome, valat, mp0, mp1, held0, held1 = score_deal(
        card0,
        card1,
        d0,
        d1,
        belote0,
        belote1,
        tricks0,
        tricks1,
        strain,
        taker_team,
        doubling,
        n_tricks,
        rules,
    )
    return scored, d0, d1, raw0, raw1, outcome, valat, mp0, mp1, held0, held1


@kernel
def random_playouts(n_deals, seed, rules, out):
    """Benchmark / property-test loop: ``n_deals`` uniform random deals played out.

    Each deal: uniform shuffle, random strain (C D H S NT AT), random taker and
    dealer, declarations of all four hands, 32 uniformly random legal cards, scoring
    to MP.  Deal i is a pure function of ``(seed, i)``.  Fills ``out`` (n_deals, 8)
    with strain, card0, card1, raw0, raw1, mp0, mp1, a checksum of the cards played.
    """
    hands = np.empty(4, dtype=np.int64)
    cards = np.empty(32, dtype=np.int64)
    state = np.empty(1, dtype=np.uint64)
    plays = np.empty(32, dtype=np.int64)
    winners = np.empty(8, dtype=np.int64)
    belote = np.empty(4, dtype=np.int64)
    decl = np.empty((4, 6), dtype=np.int64)
    policies = np.full(4, POLICY_RANDOM, dtype=np.int64)
    params = np.zeros((4, 1), dtype=np.float64)
    search = search_buffers(1)
    for i in range(n_deals):
        reseed(state, seed * 0x100000001 + i)
        shuffle_deal_into(state, hands, cards)
        strain = random_below(state, 6)
        taker = random_below(state, 4)
        dealer = random_below(state, 4)
        leader = (dealer + 1) & 3
        _, _, _, card0, card1, tricks0, tricks1, belote0, belote1 = play_deal(
            hands,
            leader,
            strain,
            taker,
            rules,
            ALL_SEATS_MASK,
            plays,
            0,
            policies,
            params,
            state,
            plays,
            winners,
            belote,
            search,
        )
        deal_declarations(hands, strain, ALL_SEATS_MASK, rules, decl)
        _, _, _, raw0, raw1, _, _, mp0, mp1, _, _ = score_played_deal(
            decl,
            tricks0,
            tricks1,
            card0,
            card1,
            belote0,
            belote1,
            strain,
            taker & 1,
            0,
            leader,
            NUM_TRICKS,
            rules,
        )
        checksum = 0
        for k in range(32):
            checksum = checksum * 31 + plays[k] & 0xFFFFFFFF
        out[i, 0] = strain
        out[i, 1] = card0
        out[i, 2] = card1
        out[i, 3] = raw0
        out[i, 4] = raw1
        out[i, 5] = mp0
        out[i, 6] = mp1
        out[i, 7] = checksum
