"""Play policies: which legal card a simulated player plays.

Every policy is an integer id plus a float64 parameter vector, dispatched in
``choose_card`` -- adding a policy is one new id, one function here, and one entry
in ``belote_sim.policies``.  A policy sees only what its player sees: its own hand,
the cards played so far (``played``, the current trick included), the trick state
and the contract.

``random`` (id 0, no parameters): uniform among the legal cards.

``greedy`` (id 1, parameters ``[draw_trumps, give_points]``, default ``[1, 1]``):
a rule-based player.  Leading: on the taker's side in a suit contract with
``draw_trumps`` set, it leads its highest trump if that is the master trump, else
its lowest trump, while opponents may still hold trumps; otherwise it leads a
master card (the highest card left in its suit), the one worth most points; else
the lowest card of its longest side suit.  Following: when its partner is winning
and is sure to keep the trick (it plays last, or the partner's card cannot be
beaten by any card still out) it gives points (``give_points``: its legal card
worth most, avoiding trumps), otherwise it plays its cheapest card; when it can
win, it plays its cheapest winning card that no card still out can beat, or if
there is none, its cheapest winning card; when it cannot win it discards its
cheapest card (fewest points, then lowest rank), keeping trumps when it can.
"""

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.core import lowest_card, nth_card, popcount
from belote_sim.kernels.rng import random_below
from belote_sim.kernels.tables import BEATERS, CARD_POINTS, HIGHER_IN_SUIT, STRAIN_NT, WIN_KEY

POLICY_NONE = -1  # replay only: stop when the recorded cards run out
POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_DD = 2  # double-dummy (all hands visible); played in kernels.play with the solver
POLICY_PIMC = 3  # perfect-information Monte Carlo; params [samples]
POLICY_EXPERT = 4  # rules + exact endgame (kernels.expert); played in kernels.play
NUM_PLAY_POLICIES = 5
#: Parameter indices: greedy ``[draw_trumps, give_points]``, pimc ``[samples]``.
GREEDY_DRAW_TRUMPS, GREEDY_GIVE_POINTS = 0, 1
PIMC_SAMPLES = 0


@kernel
def _cost(card, strain):
    """Ordering key for 'cheapest': card points first, then rank in play order."""
    return CARD_POINTS[strain, card] * 32 + WIN_KEY[strain, card]


@kernel
def _extreme(cards, strain, avoid_mask, richest):
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
        cost = _cost(card, strain)
        if best < 0 or (cost > best_cost if richest else cost < best_cost):
            best_cost = cost
            best = card
    return best


@kernel
def _cheapest(cards, strain, avoid_mask):
    """Cheapest card of ``cards`` (fewest points, then lowest rank)."""
    return _extreme(cards, strain, avoid_mask, False)


@kernel
def _richest(cards, strain, avoid_mask):
    """Card of ``cards`` worth most points."""
    return _extreme(cards, strain, avoid_mask, True)


@kernel
def _is_master(card, out_mask, strain):
    """Whether no card still out (``out_mask``) of the same suit ranks above ``card``."""
    return out_mask & HIGHER_IN_SUIT[strain, card] == 0


@kernel
def _trump_mask(strain):
    if strain < STRAIN_NT:
        return 0xFF << (8 * strain)
    return 0


@lean_kernel
def greedy_card(
    params, hand, legal, n_played, led_suit, win_card, win_pos, played, strain, seat, taker
):
    """The ``greedy`` policy (see the module docstring)."""
    out_mask = 0xFFFFFFFF & ~played & ~hand  # cards other players may still hold
    trumps = _trump_mask(strain)
    if n_played == 0:
        my_trumps = legal & trumps
        if (
            params[GREEDY_DRAW_TRUMPS] >= 0.5
            and (seat & 1) == (taker & 1)
            and my_trumps
            and out_mask & trumps
        ):
            best = -1
            while my_trumps:
                card = lowest_card(my_trumps)
                my_trumps &= my_trumps - 1
                if best < 0 or WIN_KEY[strain, card] > WIN_KEY[strain, best]:
                    best = card
            if _is_master(best, out_mask, strain):
                return best
            return _cheapest(legal & trumps, strain, 0)
        masters = 0
        cards = legal
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            if _is_master(card, out_mask, strain):
                masters |= 1 << card
        side_masters = masters & ~trumps
        if side_masters:
            return _richest(side_masters, strain, 0)
        # lowest card of the longest side suit
        best_suit = -1
        best_len = 0
        for suit in range(4):
            length = popcount((legal & ~trumps) & (0xFF << (8 * suit)))
            if length > best_len:
                best_len = length
                best_suit = suit
        if best_suit < 0:
            return _cheapest(legal, strain, 0)
        return _cheapest(legal & (0xFF << (8 * best_suit)), strain, 0)

    partner_winning = n_played >= 2 and win_pos == n_played - 2
    if partner_winning:
        safe = n_played == 3
        if not safe:
            # The partner's card is safe if nothing still out beats it: no higher card of
            # its suit, and (if it is not a trump) no trump an opponent could ruff with.
            safe = _is_master(win_card, out_mask, strain)
            if safe and (win_card >> 3) != strain and out_mask & trumps:
                safe = False
        if safe and params[GREEDY_GIVE_POINTS] >= 0.5:
            return _richest(legal, strain, trumps)
        return _cheapest(legal, strain, trumps)
    winners = legal & BEATERS[strain, led_suit, win_card]  # the cards that ``beats``
    if winners:
        sure = 0
        if n_played < 3:
            cards = winners
            while cards:
                card = lowest_card(cards)
                cards &= cards - 1
                if _is_master(card, out_mask, strain) and (
                    (card >> 3) == strain or out_mask & trumps == 0
                ):
                    sure |= 1 << card
        if sure:
            return _cheapest(sure, strain, 0)
        return _cheapest(winners, strain, 0)
    return _cheapest(legal, strain, trumps)


@lean_kernel
def choose_card(
    policy,
    params,
    hand,
    legal,
    n_played,
    led_suit,
    win_card,
    win_pos,
    played,
    strain,
    seat,
    taker,
    state,
):
    """The card a play policy picks from the ``legal`` mask (dispatch on ``policy``).

    ``expert`` needs the whole deal so far: ``kernels.play.play_deal`` calls
    ``kernels.expert.expert_card``; here (no history) it plays as ``greedy``.
    """
    if policy in (POLICY_GREEDY, POLICY_EXPERT):
        return greedy_card(
            params, hand, legal, n_played, led_suit, win_card, win_pos, played, strain, seat, taker
        )
    return nth_card(legal, random_below(state, popcount(legal)))
