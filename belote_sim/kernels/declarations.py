"""Declarations (docs/rules.md section 6): runs, carrés, belote and the team comparison.

A hand's declarations are summarised by five ints (see ``hand_declarations``):
the ranks of its declared carrés (a byte), the mask of cards in its declared runs,
its run points, its carré points and two comparison keys.  Keys are
``points * 256 + carre * 128 + order * 2 + trump`` where ``order`` is the top rank
of a run (sequence order) or the plain strength of a carré's rank: comparing keys
is comparing declarations in the order of section 6.3 ``french`` (points, then carré
over run, then rank / top card, then trump over non-trump).
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.tables import (
    CARRE_POINTS,
    COMPARE_BEST_RUN,
    KEY_CARRE_BIT,
    KEY_TRUMP_BIT,
    NT_FOUR_ACES_POINTS,
    PLAIN_STRENGTH,
    R_CARD_IN_ONE_DECLARATION,
    R_DECLARATIONS_COMPARE,
    R_DECLARATIONS_NEED_TRICK,
    R_NT_FOUR_ACES,
    RANK_A,
    RANK_K,
    RANK_Q,
    RUN_BEST_KEY_BYTE,
    RUN_CARDS_BYTE,
    RUN_POINTS_BYTE,
    STRAIN_AT,
    STRAIN_NT,
)

#: Ranks that can form a scoring carré: 9 T J Q K A (bits 2..7).
CARRE_RANKS_MASK = 0xFC

#: Fields of the ``hand_declarations`` tuple (and columns of its (n, 6) arrays).
(
    DECL_CARRE_RANKS,
    DECL_RUN_CARDS,
    DECL_RUN_POINTS,
    DECL_CARRE_POINTS,
    DECL_BEST_RUN_KEY,
    DECL_BEST_KEY,
) = range(6)
NUM_DECL_FIELDS = 6


@kernel
def carre_key(rank):
    """Comparison key of a carré of ``rank`` (see module docstring)."""
    return CARRE_POINTS[rank] * 256 + KEY_CARRE_BIT + PLAIN_STRENGTH[rank] * 2


@kernel
def _carres(rank_bits):
    """(points, best key) of the carrés of the ranks set in ``rank_bits``."""
    points = 0
    best = 0
    while rank_bits:
        rank = 0
        while not (rank_bits >> rank) & 1:
            rank += 1
        rank_bits &= rank_bits - 1
        points += CARRE_POINTS[rank]
        best = max(best, carre_key(rank))
    return points, best


@kernel
def _runs_without(hand, removed_ranks, strain):
    """Runs of ``hand`` once the ranks ``removed_ranks`` are taken out of every suit.

    Returns (run points, declared run cards mask, best run key incl. trump bit).
    """
    keep = ~removed_ranks & 0xFF
    points = 0
    cards = 0
    best = 0
    for suit in range(4):
        byte = (hand >> (8 * suit)) & keep
        if RUN_POINTS_BYTE[byte] == 0:
            continue
        points += RUN_POINTS_BYTE[byte]
        cards |= RUN_CARDS_BYTE[byte] << (8 * suit)
        key = RUN_BEST_KEY_BYTE[byte]
        if suit == strain:
            key += KEY_TRUMP_BIT
        if key > best:
            best = key
    return points, cards, best


@lean_kernel
def hand_declarations(hand, strain, rules):
    """Runs and carrés one hand declares (section 6.1, 14.1-14.4, 14.7).

    Returns ``(carre_ranks, run_cards, run_points, carre_points, best_run_key,
    best_key)``: ``carre_ranks`` is a byte of the ranks of declared carrés,
    ``run_cards`` the mask of cards in declared runs, points are declaration points,
    ``best_run_key`` the key of the best run (0 if none) and ``best_key`` the key
    of the best declaration of the set (0 if none).
    """
    if strain == STRAIN_NT:
        # Only four aces, with the nt_four_aces option, worth 200 (14.7).
        if rules[R_NT_FOUR_ACES] and (hand >> RANK_A) & 0x01010101 == 0x01010101:
            return (
                1 << RANK_A,
                0,
                0,
                NT_FOUR_ACES_POINTS,
                0,
                NT_FOUR_ACES_POINTS * 256 + KEY_CARRE_BIT + PLAIN_STRENGTH[RANK_A] * 2,
            )
        return 0, 0, 0, 0, 0, 0
    quads = hand & (hand >> 8) & (hand >> 16) & (hand >> 24) & CARRE_RANKS_MASK
    if quads == 0 or not rules[R_CARD_IN_ONE_DECLARATION]:
        carre_points, carre_best = _carres(quads)
        run_points, run_cards, run_best = _runs_without(hand, 0, strain)
        return (quads, run_cards, run_points, carre_points, run_best, max(run_best, carre_best))
    # A card in one declaration only: try every subset of the carrés (at most 2
    # carrés fit in 8 cards) and keep the most points; equal points, the better
    # best declaration (14.2).
    best_total = -1
    best = (0, 0, 0, 0, 0, 0)
    subset = quads
    while True:
        carre_points, carre_best = _carres(subset)
        run_points, run_cards, run_best = _runs_without(hand, subset, strain)
        total = carre_points + run_points
        top = max(run_best, carre_best)
        if total > best_total or (total == best_total and top > best[5]):
            best_total = total
            best = (subset, run_cards, run_points, carre_points, run_best, top)
        if subset == 0:
            break
        subset = (subset - 1) & quads
    return best


@kernel
def belote_suits(hand, strain):
    """Byte of the suits in which ``hand`` holds a belote (K+Q of trump; every suit in AT)."""
    kq = (hand >> RANK_Q) & (hand >> RANK_K) & 0x01010101  # bit 8*s: K and Q of suit s
    suits = 0
    for suit in range(4):
        if (kq >> (8 * suit)) & 1 and (strain in (STRAIN_AT, suit)):
            suits |= 1 << suit
    return suits


@lean_kernel
def team_declarations(
    run_points, carre_points, best_run_keys, best_keys, tricks, first_seat, rules
):
    """Which team scores which declarations (section 6.3, 14.5, 14.6).

    ``run_points``, ``carre_points``, ``best_run_keys``, ``best_keys``: per-seat
    arrays (4,) from ``hand_declarations`` (zeros for a seat that does not
    announce); ``tricks``: tricks won per team (2,); ``first_seat``: dealer + 1,
    the seat that wins a french tie.  Returns ``(points0, points1, scored)`` where
    points are declaration points (runs + carrés, belote excluded) and ``scored``
    has bit ``t`` set if team t scores its runs and bit ``2 + t`` if it scores its
    carrés.
    """
    scored = 0
    if rules[R_DECLARATIONS_COMPARE] == COMPARE_BEST_RUN:
        # Best run per team; the trump bit does not break a tie (14.5).
        best0 = max(best_run_keys[0], best_run_keys[2]) >> 1
        best1 = max(best_run_keys[1], best_run_keys[3]) >> 1
        if best0 > best1:
            scored |= 1
        elif best1 > best0:
            scored |= 2
        scored |= 4 | 8  # carrés are always scored by their holder
    else:
        # The single highest declaration decides; ties go to the first seat in
        # playing order from dealer + 1.
        top_key = 0
        top_seat = -1
        for i in range(4):
            seat = (first_seat + i) & 3
            if best_keys[seat] > top_key:
                top_key = best_keys[seat]
                top_seat = seat
        if top_seat >= 0:
            team = top_seat & 1
            scored |= (1 | 4) << team
    if rules[R_DECLARATIONS_NEED_TRICK]:
        # Applied after the comparison (14.6): the cancelled team stays cancelled.
        for team in range(2):
            if tricks[team] == 0:
                scored &= ~((1 | 4) << team)
    points0 = 0
    points1 = 0
    for seat in range(4):
        team = seat & 1
        pts = 0
        if (scored >> team) & 1:
            pts += run_points[seat]
        if (scored >> (2 + team)) & 1:
            pts += carre_points[seat]
        if team == 0:
            points0 += pts
        else:
            points1 += pts
    return points0, points1, scored


@kernel
def player_declarations(decl, tricks, n_players, first_seat, rules, out_points):
    """Which player scores which declarations when every player is alone (section 11).

    Each player is his own team of section 6.3: ``best_run`` -- the one player whose
    best run is strictly better than every other's scores all his runs (a tie at the
    top cancels every run), carrés are scored by their holder; ``best_declaration``
    -- the player with the single highest declaration (ties: first in playing order
    from ``first_seat``) scores all his runs and carrés.  ``declarations_need_trick``
    then takes them from a player without a trick.  ``decl``: (P, 6) rows of
    ``hand_declarations``; ``tricks``: (P,) tricks won.  Writes each player's scored
    declaration points (runs + carrés) to ``out_points`` and returns ``scored``: bit
    ``p`` if player p scores his runs, bit ``8 + p`` if he scores his carrés.
    """
    scored = 0
    if rules[R_DECLARATIONS_COMPARE] == COMPARE_BEST_RUN:
        top = 0
        top_player = -1
        for p in range(n_players):
            key = decl[p, 4] >> 1  # the trump bit never breaks a tie (14.5)
            if key > top:
                top = key
                top_player = p
            elif key == top and key > 0:
                top_player = -1
        if top_player >= 0:
            scored |= 1 << top_player
        for p in range(n_players):
            scored |= 1 << (8 + p)
    else:
        top = 0
        top_player = -1
        for i in range(n_players):
            p = (first_seat + i) % n_players
            if decl[p, 5] > top:
                top = decl[p, 5]
                top_player = p
        if top_player >= 0:
            scored |= (1 | 256) << top_player
    for p in range(n_players):
        if rules[R_DECLARATIONS_NEED_TRICK] and tricks[p] == 0:
            scored &= ~((1 | 256) << p)
        pts = 0
        if (scored >> p) & 1:
            pts += decl[p, 2]
        if (scored >> (8 + p)) & 1:
            pts += decl[p, 3]
        out_points[p] = pts
    return scored


@kernel
def announces_belote(card, led_suit, n_played, strain, rules_belote_on_discard):
    """Whether the first belote card played as ``card`` announces the belote (6.2).

    With ``belote_on_discard`` off the card must be led, follow the led suit or be a
    trump of a suit contract; in AT a K or Q played on another led suit is a discard.
    """
    if rules_belote_on_discard or n_played == 0:
        return True
    suit = card >> 3
    return suit == led_suit or (strain != STRAIN_AT and strain != STRAIN_NT and suit == strain)


@kernel
def hand_declarations_batch(hands, strains, rules):
    """``hand_declarations`` over (n,) hands and strains -> (n, 6) int64 array (columns
    ``DECL_*``)."""
    n = hands.shape[0]
    out = np.empty((n, NUM_DECL_FIELDS), dtype=np.int64)
    for i in range(n):
        d = hand_declarations(hands[i], strains[i], rules)
        for k in range(NUM_DECL_FIELDS):
            out[i, k] = d[k]
    return out


__all__ = [
    "CARRE_RANKS_MASK",
    "DECL_BEST_KEY",
    "DECL_BEST_RUN_KEY",
    "DECL_CARRE_POINTS",
    "DECL_CARRE_RANKS",
    "DECL_RUN_CARDS",
    "DECL_RUN_POINTS",
    "NUM_DECL_FIELDS",
    "announces_belote",
    "belote_suits",
    "carre_key",
    "hand_declarations",
    "hand_declarations_batch",
    "player_declarations",
    "team_declarations",
]
