"""The one play loop: a deal played, declared and scored, for every game.

``play_deal`` plays a ``records.DEAL`` record: the recorded cards first (checking
each against the legal-move rules of section 5), then each seat's play policy
through the switchboard (``switchboard.play_card``), for the 4-player game and for
the games where every player is alone (2 and 3 players, open belot with its table
cards: a player plays from his hand and his face-up table cards, and playing a
face-up card turns up the one beneath it).  It keeps the trick winners, card points
and belote announcements, and when every card is played it scores the deal
(``score_deal_record``: declarations, raw points, outcome, MP).  A lean kernel: it
allocates nothing, so simulation loops call it once per deal on one record.

Every deal is played under a random relabelling of its suits (``suit_symmetry``), so
that a policy's ties by index fall on a per-deal random suit order and no result
depends on which physical suits hold the cards.

The random number generator is a xorshift64* kept in a uint64[1] array, so a deal is
a pure function of its seed.
"""

from numba.extending import overload

from belote_sim.kernels._jit import lean_kernel
from belote_sim.kernels.bits import popcount
from belote_sim.kernels.core import DUTY_NONE, NO_PARTNER, add_to_trick, broken_duty, legal_mask
from belote_sim.kernels.declarations import (
    DECL_BEST_KEY,
    DECL_BEST_RUN_KEY,
    DECL_CARRE_POINTS,
    DECL_CARRE_RANKS,
    DECL_RUN_CARDS,
    DECL_RUN_POINTS,
    NUM_DECL_FIELDS,
    announces_belote,
    belote_suits,
    hand_declarations,
    player_declarations,
    team_declarations,
)
from belote_sim.kernels.records import Turn
from belote_sim.kernels.scoring import score_deal, score_players
from belote_sim.kernels.suit_symmetry import (
    INVERSE_PERM,
    random_suit_perm,
    relabel_deal_in,
    relabel_deal_out,
)
from belote_sim.kernels.switchboard import (
    FORM_PREFIX,
    LEAN_PREFIX,
    PLAY_PREFIX,
    POLICY_NONE,
    menu_names,
    play_card,
)
from belote_sim.kernels.tables import (
    BELOTE_POINTS,
    CARD_POINTS,
    DECK24_MASK,
    LAST_TRICK_BONUS,
    OUTCOME_THROWN_IN,
    R_BELOTE_ON_DISCARD,
    R_PLAYERS,
    R_VARIANT,
    RANK_K,
    RANK_Q,
    VARIANT_OPEN,
)

#: XOR of a K and a Q of one suit: ``card ^ KQ_SWAP`` is the other card of a belote.
KQ_SWAP = RANK_K ^ RANK_Q


@lean_kernel
def table_cards(deal, seat, face_up):
    """Open belot: the mask of ``seat``'s table cards as dealt (face-up ones, or with
    ``face_up`` false every table card)."""
    cards = 0
    if seat < 2:
        for pile in range(4):
            for layer in range(2):
                card = deal.table[seat, pile, layer]
                if card >= 0 and (layer == 1 or not face_up):
                    cards |= 1 << card
    return cards


@lean_kernel
def beneath(deal, seat, card):
    """Open belot: the face-down card under ``card`` on ``seat``'s table (-1: none)."""
    for pile in range(4):
        if deal.table[seat, pile, 1] == card:
            return deal.table[seat, pile, 0]
    return -1


@lean_kernel
def stop_deal(deal, n_played, duty, next_legal):
    """End the play before the deal is over: what was played stands, nothing is
    scored (``outcome`` = thrown in, no valat)."""
    deal.n_played = n_played
    deal.duty = duty
    deal.next_legal = next_legal
    deal.outcome = OUTCOME_THROWN_IN
    deal.valat = -1
    deal.decl_scored = 0
    for side in range(4):
        deal.decl_points[side] = 0
        deal.raw[side] = 0
        deal.mp[side] = 0
        deal.held[side] = 0


@lean_kernel
def play_deal(deal, policies, rules, state, search):
    """Play, declare and score the deal of ``deal`` (a ``records.DEAL`` record).

    ``deal``'s deal fields are read (hands, table, leader, contract, belote
    announcers, ``cards[:n_given]`` to replay); ``policies = (ids (4,), params (4,
    k), menu)``: each seat's play policy id and parameters for the cards after the record
    (``switchboard.POLICY_NONE`` stops when the record ends) and the menu of the
    policies it may call (``switchboard.policy_menu``); ``state``: the random
    generator; ``search``: the policies' scratch (``switchboard.policy_buffers``).
    The number of players and the table come from ``rules`` (``players``,
    ``variant``).  Fills the play fields: ``cards`` in playing order, ``n_played``,
    ``duty`` (the rule card ``n_played`` broke; 0 if none), ``next_legal`` (legal
    cards of the next decision, 0 when the deal is over), ``failed_seat`` (a seat whose
    policy gave no legal card: the play stops there), ``winners``, ``belote_suits``,
    ``declarations``, ``declared_cards`` and per side ``tricks``, ``card_points``,
    ``belote_points``; when every card is legally played, the scores
    (``score_deal_record`` at ``deal.doubling``).

    Runs and carrés are declared by every player, with his first card (6.2), from
    what he then holds (in open belot his hand and face-up table cards); a belote
    counts for a seat of ``deal.announce`` when the first of its K/Q of trump is
    played while the other one is still his to play (in hand, or face up on his
    table), if ``belote_on_discard`` allows the card (6.2).
    """
    players = rules[R_PLAYERS]
    open_table = rules[R_VARIANT] == VARIANT_OPEN
    play_game(policies[2], deal, policies, rules, state, search, players, open_table)


def play_game(menu, deal, policies, rules, state, search, players, open_table):
    """``play_cards`` for the game of ``rules``: the 4-player version when the menu
    names the form ``four`` (the only one compiled then), else the version the rules
    ask for at run time.  Callable from kernels only (its body is made from the menu)."""
    raise TypeError("play_game is called from compiled kernels only")


# Not inlined: the record ``deal`` that ``play_cards`` writes to must be the caller's
# (inlined as an overload, the writes were lost to the caller's relabelling back: deals
# whose plays did not match their hands, found by replaying them; tests/test_switchboard.py).
@overload(play_game)
def _play_game_body(menu, deal, policies, rules, state, search, players, open_table):
    four = "four" in menu_names(menu, FORM_PREFIX)
    # Played under a random relabelling of the suits (``suit_symmetry``): a policy's
    # ties by card or suit index fall on a per-deal random suit order, so no hand
    # plays better for being in clubs.  A menu whose only play policy is ``random``
    # (or none: replays) has no such ties: uniform among the legal cards is the same
    # law under every relabelling, so its deals are played as dealt (~4% of a random
    # deal saved).
    relabel = bool(menu_names(menu, PLAY_PREFIX) - {"random"} or menu_names(menu, LEAN_PREFIX))

    # The form is chosen here, in Python: only the chosen body is compiled.
    if four:

        def play_form(menu, deal, policies, rules, state, search, players, open_table):
            if players != 4 or open_table:  # rules the menu was not made for: no play
                deal.failed_seat = deal.leader
                stop_deal(deal, 0, DUTY_NONE, 0)
                return
            play_cards(deal, policies, rules, state, search, 4, False)

    else:

        def play_form(menu, deal, policies, rules, state, search, players, open_table):
            if players == 4:
                play_cards(deal, policies, rules, state, search, 4, False)
            else:
                play_cards(deal, policies, rules, state, search, players, open_table)

    if not relabel:
        return play_form
    play_plain = lean_kernel(inline="always")(play_form)

    def play_relabelled(menu, deal, policies, rules, state, search, players, open_table):
        perm = random_suit_perm(state)
        relabel_deal_in(deal, perm, open_table)
        play_plain(menu, deal, policies, rules, state, search, players, open_table)
        relabel_deal_out(deal, INVERSE_PERM[perm], open_table)

    return play_relabelled


@lean_kernel
def play_cards(deal, policies, rules, state, search, players, open_table):
    """``play_deal``'s body for a game of ``players`` players (with open belot's table
    or not).  Called with the constants of the 4-player game (4, False), numba compiles
    a version of its own for them (literal arguments), where the compiler unrolls a
    trick's four cards and drops every test of the other games: measured ~20% faster
    than one version with the number of players unknown."""
    play_ids, play_params, menu = policies
    strain = deal.strain
    on_discard = rules[R_BELOTE_ON_DISCARD]
    # Per-deal state in scalars: ``pending`` holds each seat's belote suits not yet
    # decided in bits 4*seat..4*seat+3; ``up`` open belot's face-up table cards
    # (player 0 in bits 0..31, player 1 in bits 32..63).
    pending = 0
    up = 0
    n_cards = 0
    for seat in range(players):
        held = deal.hands[seat]
        n_cards += popcount(held)
        if open_table:
            face_up = table_cards(deal, seat, True)
            every = table_cards(deal, seat, False)
            n_cards += popcount(every)
            up |= face_up << (32 * seat)
            if (deal.announce >> seat) & 1:
                pending |= belote_suits(held | every, strain) << (4 * seat)
            held |= face_up
        elif (deal.announce >> seat) & 1:
            pending |= belote_suits(held, strain) << (4 * seat)
        d = hand_declarations(held, strain, rules)
        for k in range(NUM_DECL_FIELDS):
            deal.declarations[seat, k] = d[k]
        shown = d[DECL_RUN_CARDS]
        carres = d[DECL_CARRE_RANKS]
        if carres:
            for rank in range(8):
                if (carres >> rank) & 1:
                    shown |= 0x01010101 << rank
        deal.declared_cards[seat] = shown & held
    for seat in range(4):
        deal.belote_suits[seat] = 0
        deal.tricks[seat] = 0
        deal.card_points[seat] = 0
        deal.belote_points[seat] = 0
        if seat >= players:
            deal.declared_cards[seat] = 0
            for k in range(NUM_DECL_FIELDS):
                deal.declarations[seat, k] = 0
    deal.failed_seat = -1
    # The 7s and 8s are out of play in the 24-card games: every player knows it.
    played = 0
    if players == 3 or (players == 2 and not open_table):
        played = ~DECK24_MASK & 0xFFFFFFFF
    side_mask = 1 if players != 3 else 3  # a seat's side: its team, or itself
    n_given = deal.n_given
    n_played = 0
    leader = deal.leader
    for trick in range(n_cards // players):
        led_suit = -1
        win_card = -1
        win_pos = -1
        trick_pts = 0
        for pos in range(players):
            seat = leader + pos
            if seat >= players:
                seat -= players
            avail = deal.hands[seat] & ~played
            if open_table:
                avail |= (up >> (32 * seat)) & 0xFFFFFFFF
            partner_pos = win_pos if players == 4 else NO_PARTNER
            legal = legal_mask(avail, led_suit, pos, win_card, partner_pos, strain, rules)
            if n_played < n_given:
                card = deal.cards[n_played]
                duty = broken_duty(avail, card, led_suit, pos, win_card, partner_pos, strain, rules)
                if duty != DUTY_NONE:
                    stop_deal(deal, n_played, duty, legal)
                    return
            else:
                policy = play_ids[seat]
                if policy == POLICY_NONE:
                    stop_deal(deal, n_played, DUTY_NONE, legal)
                    return
                turn = Turn(
                    seat,
                    pos,
                    leader,
                    led_suit,
                    win_card,
                    partner_pos,
                    avail,
                    legal,
                    played,
                    n_played,
                    players,
                )
                card = play_card(menu, policy, play_params[seat], turn, deal, rules, state, search)
                if card < 0 or card > 31 or not (legal >> card) & 1:
                    deal.failed_seat = seat
                    stop_deal(deal, n_played, DUTY_NONE, legal)
                    return
            suit = card >> 3
            if (pending >> (4 * seat + suit)) & 1 and (
                (card & 7) == RANK_K or (card & 7) == RANK_Q
            ):
                # The first card of a belote pair: announce it or forfeit it (6.2).
                pending &= ~(1 << (4 * seat + suit))
                if (avail >> (card ^ KQ_SWAP)) & 1 and announces_belote(
                    card, led_suit, pos, strain, on_discard
                ):
                    deal.belote_suits[seat] |= 1 << suit
                    deal.belote_points[seat & side_mask] += BELOTE_POINTS
            if open_table and (up >> (32 * seat + card)) & 1:
                up &= ~(1 << (32 * seat + card))
                under = beneath(deal, seat, card)
                if under >= 0:
                    up |= 1 << (32 * seat + under)
            played |= 1 << card
            deal.cards[n_played] = card
            n_played += 1
            trick_pts += CARD_POINTS[strain, card]
            led_suit, win_card, win_pos = add_to_trick(
                card, pos, led_suit, win_card, win_pos, strain
            )
        winner = leader + win_pos
        if winner >= players:
            winner -= players
        deal.winners[trick] = winner
        deal.tricks[winner & side_mask] += 1
        deal.card_points[winner & side_mask] += trick_pts
        leader = winner
    deal.card_points[leader & side_mask] += LAST_TRICK_BONUS
    deal.n_played = n_played
    deal.duty = DUTY_NONE
    deal.next_legal = 0
    score_deal_record(deal, deal.doubling, rules)


@lean_kernel
def score_deal_record(deal, doubling, rules):
    """Score a fully played ``deal`` at ``doubling`` (0..3): which declarations count
    (section 6.3; 11 when every player is alone), then raw points, the outcome, a
    valat and the MP (sections 7-8, 11).  Fills ``decl_scored``, ``decl_points``,
    ``raw``, ``mp``, ``held``, ``outcome`` and ``valat`` from the play fields (so the
    same play can be scored again at another doubling level)."""
    players = rules[R_PLAYERS]
    n_tricks = 0
    for side in range(4):
        n_tricks += deal.tricks[side]
    decl = deal.declarations
    if players == 4:
        d0, d1, scored = team_declarations(
            decl[:, DECL_RUN_POINTS],
            decl[:, DECL_CARRE_POINTS],
            decl[:, DECL_BEST_RUN_KEY],
            decl[:, DECL_BEST_KEY],
            (deal.tricks[0], deal.tricks[1]),
            deal.leader,
            rules,
        )
        raw0, raw1, outcome, valat, mp0, mp1, held0, held1 = score_deal(
            deal.card_points[0],
            deal.card_points[1],
            d0,
            d1,
            deal.belote_points[0],
            deal.belote_points[1],
            deal.tricks[0],
            deal.tricks[1],
            deal.strain,
            deal.taker & 1,
            doubling,
            n_tricks,
            rules,
        )
        deal.decl_scored = scored
        deal.decl_points[0] = d0
        deal.decl_points[1] = d1
        deal.raw[0] = raw0
        deal.raw[1] = raw1
        deal.mp[0] = mp0
        deal.mp[1] = mp1
        deal.held[0] = held0
        deal.held[1] = held1
        deal.outcome = outcome
        deal.valat = valat
        return
    deal.decl_scored = player_declarations(
        decl, deal.tricks, players, deal.leader, rules, deal.decl_points
    )
    outcome, valat = score_players(
        deal.card_points,
        deal.decl_points,
        deal.belote_points,
        deal.tricks,
        players,
        deal.strain,
        deal.taker,
        doubling,
        n_tricks,
        deal.leader,
        rules,
        deal.raw,
        deal.mp,
        deal.held,
    )
    deal.outcome = outcome
    deal.valat = valat


__all__ = [
    "KQ_SWAP",
    "beneath",
    "play_cards",
    "play_deal",
    "play_game",
    "score_deal_record",
    "stop_deal",
    "table_cards",
]
