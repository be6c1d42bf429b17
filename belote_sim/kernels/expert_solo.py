"""The ``expert`` player in the games where every player is alone: 3 players, 2
players and open belot (docs/rules.md section 11).

The network and the rules of ``expert_model`` / ``expert`` are made for the 4-player
game (a partner, 8 cards each, 32 cards); here every decision is a Monte Carlo
search over the deals the player cannot tell apart from the real one:

* **What it infers** (``solo_forbidden``): for every card another player played,
  the cards he cannot hold -- each card ``x`` that, held beside the card he played,
  would have made that card illegal (``core.legal_mask`` on the two-card hand: the
  one home of the rules of section 5; the duties of belote are "if you hold a card
  of this class, play one", so the two-card test is exact).  Announced declarations
  and the other card of an announced belote are known to be in their owner's hand.
* **What it draws** (``sample_world``): the unseen cards dealt at random to the
  places they can be -- the other hands (not a card a player cannot hold), the 6
  cards left out of the 2-player deal, open belot's face-down table cards (which
  nobody has seen, their owner included) -- uniformly among the deals consistent
  with all of that (in the 3-player game each unseen card is either forced to one
  opponent or free, so a uniform draw is a random split of the free ones).
* **How it scores a card**: on each drawn deal the card is played and the deal is
  finished -- exactly when ``params[0]`` tricks or fewer are left (``solve_exact``:
  alpha-beta, every hand visible), else by ``greedy`` at every seat
  (``play_out``, the rollout of a known-good base policy) -- and what the deal's
  card points from the current trick on (the last trick's 10 included) are worth to
  the player is summed over the drawn deals: to the taker his points; to another
  player, after a rollout, his own points minus the taker's (in the 3-player game an
  opponent keeps his own MP and shares an inside taker's: +0.3 MP per deal over
  playing for the taker's fewest points alone, and the taker playing for his points
  minus the best opponent's measured the same as for his points), in the exact
  endgame the taker's fewest (the opponents together: a two-sided search).  The card
  with the best sum is played; equal sums go to the cheapest card.

Parameters are the ``expert`` policy's: ``params[0]`` (endgame tricks solved
exactly) and ``params[1]`` (deals drawn per decision) are read; the card model and
rule switches (``params[2..5]``) belong to the 4-player game and are not read here.
The draws are seeded from a hash of what the player has seen, so a decision is a
pure function of the observation (``state``, the deal's generator, is not used).
"""

import numpy as np

from belote_sim.kernels._jit import lean_kernel
from belote_sim.kernels.bits import lowest_card, nth_card, popcount
from belote_sim.kernels.core import NO_PARTNER, add_to_trick, legal_mask
from belote_sim.kernels.greedy import card_cost, greedy_choice
from belote_sim.kernels.records import announced_cards
from belote_sim.kernels.rng import below, mix_step, xorshift_step
from belote_sim.kernels.tables import CARD_POINTS, LAST_TRICK_BONUS, R_VARIANT, VARIANT_OPEN

ALL_CARDS = 0xFFFFFFFF
#: Fields of a ply of ``solve_exact``'s stack (rows of the solver's ``ws`` scratch).
(
    F_H0,
    F_H1,
    F_H2,
    F_UP0,
    F_UP1,
    F_LEADER,
    F_POS,
    F_LED,
    F_WC,
    F_WP,
    F_PTS,
    F_BANK,
    F_LEFT,
    F_PLAYED,
    F_MOVES,
    F_BEST,
    F_ALPHA,
    F_BETA,
    F_MAX,
) = range(19)
#: Larger than any card points of a deal (an open window's upper end).
INFINITE = 1 << 20


@lean_kernel
def solo_forbidden(deal, n_played, players, strain, rules, out):
    """The cards each seat cannot hold, from the first ``n_played`` cards of ``deal``
    (``out`` (4,): per seat, each card that, held beside the card the seat played,
    would have made that card illegal), and the trick in progress.  Returns
    ``(leader, pos, led, win_card, win_pos, points)``: its leader, the cards already in
    it, their led suit, winning card and its position, and their card points."""
    for s in range(4):
        out[s] = 0
    leader = deal.leader
    pos = 0
    led = -1
    wc = -1
    wp = -1
    pts = 0
    for i in range(n_played):
        card = deal.cards[i]
        seat = leader + pos
        if seat >= players:
            seat -= players
        if pos > 0:
            bit = 1 << card
            rest = ALL_CARDS & ~bit & ~out[seat]
            while rest:
                x = lowest_card(rest)
                rest &= rest - 1
                if not (legal_mask(bit | (1 << x), led, pos, wc, NO_PARTNER, strain, rules) & bit):
                    out[seat] |= 1 << x
        led, wc, wp = add_to_trick(card, pos, led, wc, wp, strain)
        pts += CARD_POINTS[strain, card]
        pos += 1
        if pos == players:
            leader += wp
            if leader >= players:
                leader -= players
            pos = 0
            led = -1
            wc = -1
            wp = -1
            pts = 0
    return leader, pos, led, wc, wp, pts


@lean_kernel
def face_up(deal, seat, played, under):
    """Open belot: ``seat``'s table cards face up after the cards ``played`` (a top
    card not yet played; the card under a played one), and how many of his table
    cards are face down (one under every top card not yet played: ``under[top]`` is
    set to -2, a card to draw)."""
    up = 0
    down = 0
    for pile in range(4):
        top = deal.table[seat, pile, 1]
        if top >= 0 and not (played >> top) & 1:
            up |= 1 << top
            if deal.table[seat, pile, 0] >= 0:
                down += 1
                under[top] = -2
        elif top >= 0:
            bottom = deal.table[seat, pile, 0]
            if bottom >= 0 and not (played >> bottom) & 1:
                up |= 1 << bottom
    return up, down


@lean_kernel(inline="always")
def _take(pool, k, x):
    """``k`` cards drawn at random from ``pool``: ``(taken, x)`` with the generator's
    new state (all of ``pool`` when it holds ``k`` or fewer)."""
    taken = 0
    n = popcount(pool)
    if k >= n:
        return pool, x
    for _ in range(k):
        x = xorshift_step(x)
        card = nth_card(pool, below(x, n))
        pool &= ~(1 << card)
        taken |= 1 << card
        n -= 1
    return taken, x


@lean_kernel
def sample_world(deal, seat, players, open_table, pool, need, known, forbidden, world, under, x):
    """Deal the unseen cards ``pool`` into ``world`` (4,): each other seat's hand its
    announced cards ``known[s]`` and ``need[s]`` more (``need`` packed 8 bits a seat),
    none of ``forbidden[s]`` when that is possible; open belot: the rest under the
    face-up cards not yet played (``under[top]``); the 2-player game: the rest left
    out.  Returns the generator's new state."""
    a = seat + 1
    if a >= players:
        a -= players
    need_a = (need >> (8 * a)) & 0xFF
    if players == 3:
        b = a + 1
        if b >= players:
            b -= players
        need_b = (need >> (8 * b)) & 0xFF
        to_a = pool & forbidden[b]  # what b cannot hold is a's
        to_b = pool & forbidden[a]
        free = pool & ~to_a & ~to_b
        k = need_a - popcount(to_a)
        if to_a & to_b or k < 0 or k > popcount(free) or popcount(pool) != need_a + need_b:
            to_a = 0  # no consistent deal (cannot happen in a legal play): forget
            free = pool
            k = need_a
        taken, x = _take(free, k, x)
        world[a] |= known[a] | to_a | taken
        world[b] |= known[b] | (pool & ~to_a & ~taken)
        return x
    allowed = pool & ~forbidden[a]
    if popcount(allowed) < need_a:
        allowed = pool
    taken, x = _take(allowed, need_a, x)
    world[a] |= known[a] | taken
    rest = pool & ~taken
    if open_table:
        for s in range(2):
            for pile in range(4):
                top = deal.table[s, pile, 1]
                if top >= 0 and under[top] == -2:  # face up, a face-down card under it
                    x = xorshift_step(x)
                    card = nth_card(rest, below(x, popcount(rest)))
                    rest &= ~(1 << card)
                    under[top] = card
    return x


@lean_kernel(inline="always")
def _turn_up(card, up, under):
    """Open belot: the face-up cards after ``card`` is played from them."""
    up &= ~(1 << card)
    if under[card] >= 0:
        up |= 1 << under[card]
    return up


@lean_kernel(inline="always")
def _cards_left(hands, up0, up1, under, players):
    """The cards still to play: in the hands, face up, and face down under the
    face-up ones (open belot)."""
    n = 0
    for s in range(players):
        n += popcount(hands[s])
    up = up0 | up1
    n += popcount(up)
    while up:
        card = lowest_card(up)
        up &= up - 1
        if under[card] >= 0:
            n += 1
    return n


@lean_kernel
def play_out(first, hands, up0, up1, under, leader, pos, led, wc, wp, pts, played,
             strain, taker, players, rules, gparams):  # fmt: skip
    """The card points seats 0, 1 and 2 win from the trick in progress on (its cards
    included, the last trick's 10 too) when the player to move plays ``first`` and
    everyone then plays ``greedy`` with every hand as in ``hands`` (4,): a rollout.
    ``up0``/``up1``: open belot's face-up cards, ``under`` the card under each; the
    trick state and ``played`` (every card out of play) as ``core`` has them.  ``hands``
    is scratch: its hands are played out."""
    n_left = _cards_left(hands, up0, up1, under, players)
    won0 = 0
    won1 = 0
    won2 = 0
    card = first
    while n_left > 0:
        seat = leader + pos
        if seat >= players:
            seat -= players
        if card < 0:
            avail = hands[seat] | (up0 if seat == 0 else up1)
            legal = legal_mask(avail, led, pos, wc, NO_PARTNER, strain, rules)
            if legal & (legal - 1) == 0:
                card = lowest_card(legal)
            else:
                card = greedy_choice(
                    gparams, avail, legal, pos, led, wc, NO_PARTNER, played, strain,
                    seat == taker,
                )  # fmt: skip
        bit = 1 << card
        if hands[seat] & bit:
            hands[seat] &= ~bit
        elif seat == 0:
            up0 = _turn_up(card, up0, under)
        else:
            up1 = _turn_up(card, up1, under)
        played |= bit
        pts += CARD_POINTS[strain, card]
        led, wc, wp = add_to_trick(card, pos, led, wc, wp, strain)
        card = -1
        pos += 1
        n_left -= 1
        if pos == players:
            leader += wp
            if leader >= players:
                leader -= players
            if n_left == 0:
                pts += LAST_TRICK_BONUS
            if leader == 0:
                won0 += pts
            elif leader == 1:
                won1 += pts
            else:
                won2 += pts
            pos = 0
            led = -1
            wc = -1
            wp = -1
            pts = 0
    return won0, won1, won2


@lean_kernel(inline="always")
def rollout_value(won0, won1, won2, seat, taker):
    """What a rollout is worth to ``seat`` (``play_out``'s card points won by seats 0,
    1, 2): the taker's points to the taker, another player's own points minus the
    taker's to him (with 2 players: the same order of cards as the taker's fewest)."""
    taker_won = won0 if taker == 0 else (won1 if taker == 1 else won2)
    if seat == taker:
        return taker_won
    mine = won0 if seat == 0 else (won1 if seat == 1 else won2)
    return mine - taker_won


@lean_kernel(inline="always")
def _legal_at(ws, d, players, strain, rules):
    """The legal cards of the player to move at ply ``d`` of ``solve_exact``."""
    seat = ws[d, F_LEADER] + ws[d, F_POS]
    if seat >= players:
        seat -= players
    avail = ws[d, F_H0 + seat]
    if seat == 0:
        avail |= ws[d, F_UP0]
    elif seat == 1:
        avail |= ws[d, F_UP1]
    legal = legal_mask(avail, ws[d, F_LED], ws[d, F_POS], ws[d, F_WC], NO_PARTNER, strain, rules)
    return seat, legal


@lean_kernel(inline="always")
def _back_up(ws, d, value):
    """A child's value into ply ``d``'s best value and window."""
    if ws[d, F_MAX]:
        if value > ws[d, F_BEST]:
            ws[d, F_BEST] = value
        if value > ws[d, F_ALPHA]:
            ws[d, F_ALPHA] = value
    else:
        if value < ws[d, F_BEST]:
            ws[d, F_BEST] = value
        if value < ws[d, F_BETA]:
            ws[d, F_BETA] = value


@lean_kernel
def solve_exact(first, hands, up0, up1, under, leader, pos, led, wc, wp, pts, played,
                strain, taker, players, rules, ws):  # fmt: skip
    """The card points the taker wins from the trick in progress on (``play_out``'s
    arguments) when, after ``first``, every player plays perfectly with every hand
    visible: the taker for the most of them, the others for the fewest.  An
    alpha-beta search over an explicit stack (``ws`` rows, fields ``F_*``; numba's
    on-disk cache does not reload recursive functions safely); values are absolute
    (points banked since the root plus those still to come), so a window passes down
    unchanged."""
    n_left = _cards_left(hands, up0, up1, under, players)
    for s in range(players):
        ws[0, F_H0 + s] = hands[s]
    ws[0, F_UP0] = up0
    ws[0, F_UP1] = up1
    ws[0, F_LEADER] = leader
    ws[0, F_POS] = pos
    ws[0, F_LED] = led
    ws[0, F_WC] = wc
    ws[0, F_WP] = wp
    ws[0, F_PTS] = pts
    ws[0, F_BANK] = 0
    ws[0, F_LEFT] = n_left
    ws[0, F_PLAYED] = played
    ws[0, F_MOVES] = 1 << first
    seat = leader + pos
    if seat >= players:
        seat -= players
    ws[0, F_MAX] = seat == taker
    ws[0, F_BEST] = -INFINITE if seat == taker else INFINITE
    ws[0, F_ALPHA] = -INFINITE
    ws[0, F_BETA] = INFINITE
    d = 0
    while True:
        moves = ws[d, F_MOVES]
        if moves == 0 or ws[d, F_ALPHA] >= ws[d, F_BETA]:
            value = ws[d, F_BEST]
            if d == 0:
                return value
            d -= 1
            _back_up(ws, d, value)
            continue
        card = lowest_card(moves)
        ws[d, F_MOVES] = moves & ~(1 << card)
        # the child: ply d with ``card`` played
        c = d + 1
        for f in range(F_MOVES):
            ws[c, f] = ws[d, f]
        seat = ws[c, F_LEADER] + ws[c, F_POS]
        if seat >= players:
            seat -= players
        bit = 1 << card
        if ws[c, F_H0 + seat] & bit:
            ws[c, F_H0 + seat] &= ~bit
        else:
            ws[c, F_UP0 + seat] = _turn_up(card, ws[c, F_UP0 + seat], under)
        ws[c, F_PLAYED] |= bit
        ws[c, F_PTS] += CARD_POINTS[strain, card]
        led_c, wc_c, wp_c = add_to_trick(
            card, ws[c, F_POS], ws[c, F_LED], ws[c, F_WC], ws[c, F_WP], strain
        )
        ws[c, F_POS] += 1
        ws[c, F_LEFT] -= 1
        if ws[c, F_POS] == players:
            winner = ws[c, F_LEADER] + wp_c
            if winner >= players:
                winner -= players
            if winner == taker:
                ws[c, F_BANK] += ws[c, F_PTS]
                if ws[c, F_LEFT] == 0:
                    ws[c, F_BANK] += LAST_TRICK_BONUS
            ws[c, F_LEADER] = winner
            ws[c, F_POS] = 0
            ws[c, F_LED] = -1
            ws[c, F_WC] = -1
            ws[c, F_WP] = -1
            ws[c, F_PTS] = 0
        else:
            ws[c, F_LED] = led_c
            ws[c, F_WC] = wc_c
            ws[c, F_WP] = wp_c
        if ws[c, F_LEFT] == 0:
            _back_up(ws, d, ws[c, F_BANK])
            continue
        seat, legal = _legal_at(ws, c, players, strain, rules)
        ws[c, F_MOVES] = legal
        ws[c, F_MAX] = seat == taker
        ws[c, F_BEST] = -INFINITE if seat == taker else INFINITE
        ws[c, F_ALPHA] = ws[d, F_ALPHA]
        ws[c, F_BETA] = ws[d, F_BETA]
        d = c


@lean_kernel(inline="never")
def solo_expert_card(params, turn, deal, rules, search):
    """The ``expert`` card at ``turn`` in a game where every player is alone (see the
    module docstring); ``search`` is ``switchboard.policy_buffers``' scratch."""
    players = turn.players
    open_table = rules[R_VARIANT] == VARIANT_OPEN
    seat = turn.seat
    strain = deal.strain
    taker = deal.taker
    n_played = turn.n_played
    played = turn.played  # every card out of play (the 24-card games' 7s and 8s too)
    ws = search[1]
    sums = search[2]  # a card's total over the drawn deals: sums[card >> 4, card & 15]
    work = search[3]
    gparams = search[4]
    under = search[5]
    known, forbidden, world, scratch = work[0], work[1], work[2], work[3]
    gparams[0] = 1.0  # greedy's defaults: draw trumps, give points
    gparams[1] = 1.0
    leader, pos, led, wc, wp, pts = solo_forbidden(
        deal, n_played, players, strain, rules, forbidden
    )
    announced_cards(deal, n_played, played, seat, known, players)
    up0 = 0
    up1 = 0
    down = 0
    for card in range(32):
        under[card] = -1
    if open_table:
        up0, down0 = face_up(deal, 0, played, under)
        up1, down1 = face_up(deal, 1, played, under)
        down = down0 + down1
    mine = deal.hands[seat] & ~played
    pool = ALL_CARDS & ~played & ~mine & ~up0 & ~up1
    need = 0
    n_left = popcount(mine) + popcount(up0) + popcount(up1) + down
    for s in range(players):
        if s != seat:
            held = popcount(deal.hands[s] & ~played)
            n_left += held
            pool &= ~known[s]
            need |= (held - popcount(known[s])) << (8 * s)
    tricks_left = (n_left + pos) // players
    exact = params[0] > 0 and tricks_left <= params[0]
    n_samples = max(1, np.int64(params[1]))
    legal = turn.legal
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        sums[card >> 4, card & 15] = 0
    # the draws: seeded from what the player has seen
    x = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(mine)
    for i in range(n_played):
        x = mix_step(x, deal.cards[i] + 1)
    x = mix_step(x, seat + 64)
    x = mix_step(x, np.uint64(up0) | (np.uint64(up1) << np.uint64(32)))
    if x == np.uint64(0):
        x = np.uint64(1)
    for _ in range(n_samples):
        for s in range(4):
            world[s] = 0
        world[seat] = mine
        for card in range(32):
            if under[card] >= 0:
                under[card] = -2
        x = sample_world(
            deal, seat, players, open_table, pool, need, known, forbidden, world, under, x
        )
        cards = legal
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            for s in range(4):
                scratch[s] = world[s]
            if exact:
                value = solve_exact(
                    card, scratch, up0, up1, under, leader, pos, led, wc, wp, pts, played,
                    strain, taker, players, rules, ws,
                )  # fmt: skip
                sums[card >> 4, card & 15] += value if seat == taker else -value
            else:
                won0, won1, won2 = play_out(
                    card, scratch, up0, up1, under, leader, pos, led, wc, wp, pts, played,
                    strain, taker, players, rules, gparams,
                )  # fmt: skip
                sums[card >> 4, card & 15] += rollout_value(won0, won1, won2, seat, taker)
    best = -1
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        if best < 0:
            best = card
            continue
        gain = sums[card >> 4, card & 15] - sums[best >> 4, best & 15]
        if gain > 0 or (gain == 0 and card_cost(card, strain) < card_cost(best, strain)):
            best = card
    return best


__all__ = [
    "face_up",
    "play_out",
    "rollout_value",
    "sample_world",
    "solo_expert_card",
    "solo_forbidden",
    "solve_exact",
]
