"""The simple play policies: ``random`` and ``greedy``.

A policy sees only what its player sees (``records.Turn``: its cards, the legal ones,
the cards played, the trick state; the contract from the ``DEAL`` record).  Both
are kernels of the switchboard's signature ``(params, turn, deal, rules, state,
search) -> card`` (``switchboard.PLAY_POLICIES``).

``random`` (no parameters): uniform among the legal cards.

``greedy`` (parameters ``[draw_trumps, give_points]``, default ``[1, 1]``): a
rule-based player.  Leading: on the taker's side in a suit contract with
``draw_trumps`` set, it leads its highest trump if that is the master trump, else
its lowest trump, while opponents may still hold trumps; otherwise it leads a
master card (the highest card left in its suit), the one worth most points; else
the lowest card of its longest side suit.  Following: when its partner is winning
and is sure to keep the trick (it plays last, or the partner's card cannot be
beaten by any card still out) it gives points (``give_points``: its legal card
worth most, avoiding trumps), otherwise it plays its cheapest card; when it can
win, it plays its cheapest winning card that no card still out can beat, or if
there is none, its cheapest winning card; when it cannot win it discards its
cheapest card (fewest points, then lowest rank), keeping trumps when it can.  When
every player is alone, "the taker's side" is the taker himself and no partner is
ever winning.
"""

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card, nth_card, popcount
from belote_sim.kernels.rng import random_below
from belote_sim.kernels.tables import BEATERS, CARD_POINTS, HIGHER_IN_SUIT, STRAIN_NT, WIN_KEY

#: Parameter indices of ``greedy``: ``[draw_trumps, give_points]``.
GREEDY_DRAW_TRUMPS, GREEDY_GIVE_POINTS = 0, 1


@kernel
def card_cost(card, strain):
    """Ordering key for 'cheapest': card points first, then rank in play order."""
    return CARD_POINTS[strain, card] * 32 + WIN_KEY[strain, card]


@kernel
def extreme_card(cards, strain, avoid_mask, richest):
    """Cheapest (or, with ``richest``, most valuable) card of ``cards``, taken outside
    ``avoid_mask`` when possible."""
    pool = cards & ~avoid_mask
    if pool == 0:
        pool = cards
    best = -1
    best_cost = 0
    while pool:
        card = lowest_card(pool)
        pool &= pool - 1
        cost = card_cost(card, strain)
        if best < 0 or (cost > best_cost if richest else cost < best_cost):
            best_cost = cost
            best = card
    return best


@kernel
def cheapest_card(cards, strain, avoid_mask):
    """Cheapest card of ``cards`` (fewest points, then lowest rank)."""
    return extreme_card(cards, strain, avoid_mask, False)


@kernel
def richest_card(cards, strain, avoid_mask):
    """Card of ``cards`` worth most points."""
    return extreme_card(cards, strain, avoid_mask, True)


@kernel
def is_master(card, out_mask, strain):
    """Whether no card still out (``out_mask``) of the same suit ranks above ``card``."""
    return out_mask & HIGHER_IN_SUIT[strain, card] == 0


@kernel
def trump_mask(strain):
    """The trump suit's cards of a suit contract (0 in NT and AT)."""
    if strain < STRAIN_NT:
        return 0xFF << (8 * strain)
    return 0


@kernel(inline="always")
def random_card(params, turn, deal, rules, state, search):
    """The ``random`` policy: a uniformly random legal card."""
    return nth_card(turn.legal, random_below(state, popcount(turn.legal)))


@kernel(inline="always")
def greedy_card(params, turn, deal, rules, state, search):
    """The ``greedy`` policy (see the module docstring)."""
    taker = deal.taker
    # the taker's side: his partner too in the 4-player game
    taker_side = turn.seat == taker or (turn.players == 4 and turn.seat == (taker ^ 2))
    return greedy_choice(
        params,
        turn.hand,
        turn.legal,
        turn.pos,
        turn.led_suit,
        turn.win_card,
        turn.win_pos,
        turn.played,
        deal.strain,
        taker_side,
    )


@lean_kernel
def greedy_choice(
    params, hand, legal, n_played, led_suit, win_card, win_pos, played, strain, taker_side
):
    """``greedy``'s card from the decision's scalars (``n_played``: the player's position
    in the trick; ``taker_side``: whether the player is on the taker's side)."""
    out_mask = 0xFFFFFFFF & ~played & ~hand  # cards other players may still hold
    trumps = trump_mask(strain)
    if n_played == 0:
        my_trumps = legal & trumps
        if params[GREEDY_DRAW_TRUMPS] >= 0.5 and taker_side and my_trumps and out_mask & trumps:
            best = -1
            while my_trumps:
                card = lowest_card(my_trumps)
                my_trumps &= my_trumps - 1
                if best < 0 or WIN_KEY[strain, card] > WIN_KEY[strain, best]:
                    best = card
            if is_master(best, out_mask, strain):
                return best
            return cheapest_card(legal & trumps, strain, 0)
        masters = 0
        cards = legal
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            if is_master(card, out_mask, strain):
                masters |= 1 << card
        side_masters = masters & ~trumps
        if side_masters:
            return richest_card(side_masters, strain, 0)
        # lowest card of the longest side suit
        best_suit = -1
        best_len = 0
        for suit in range(4):
            length = popcount((legal & ~trumps) & (0xFF << (8 * suit)))
            if length > best_len:
                best_len = length
                best_suit = suit
        if best_suit < 0:
            return cheapest_card(legal, strain, 0)
        return cheapest_card(legal & (0xFF << (8 * best_suit)), strain, 0)

    partner_winning = n_played >= 2 and win_pos == n_played - 2
    if partner_winning:
        safe = n_played == 3
        if not safe:
            # The partner's card is safe if nothing still out beats it: no higher card of
            # its suit, and (if it is not a trump) no trump an opponent could ruff with.
            safe = is_master(win_card, out_mask, strain)
            if safe and (win_card >> 3) != strain and out_mask & trumps:
                safe = False
        if safe and params[GREEDY_GIVE_POINTS] >= 0.5:
            return richest_card(legal, strain, trumps)
        return cheapest_card(legal, strain, trumps)
    winners = legal & BEATERS[strain, led_suit, win_card]  # the cards that ``beats``
    if winners:
        sure = 0
        if n_played < 3:
            cards = winners
            while cards:
                card = lowest_card(cards)
                cards &= cards - 1
                if is_master(card, out_mask, strain) and (
                    (card >> 3) == strain or out_mask & trumps == 0
                ):
                    sure |= 1 << card
        if sure:
            return cheapest_card(sure, strain, 0)
        return cheapest_card(winners, strain, 0)
    return cheapest_card(legal, strain, trumps)


__all__ = [
    "GREEDY_DRAW_TRUMPS",
    "GREEDY_GIVE_POINTS",
    "card_cost",
    "cheapest_card",
    "extreme_card",
    "greedy_card",
    "greedy_choice",
    "is_master",
    "random_card",
    "richest_card",
    "trump_mask",
]
