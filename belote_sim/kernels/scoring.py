"""Deal scoring (docs/rules.md sections 7, 8, 10, 14.9-14.15) and game accumulation (9).

Units: *card points* are the points of the cards in tricks (plus 10 for the last
trick); *raw points* add declarations and belote (and are doubled in NT when
``nt_double_raw``); *match points* (MP) are raw points divided by ten with the
rounding of section 8.2.  With ``french`` scoring the "MP" arrays hold French points.
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.tables import (
    DEAL_CARD_TOTAL,
    OUTCOME_HANGING,
    OUTCOME_INSIDE,
    OUTCOME_MADE,
    R_CAPOT_POINTS,
    R_GAME_TARGET,
    R_KIRTIK,
    R_NT_DOUBLE_RAW,
    R_SCORING,
    R_THIRD_DOUBLE,
    R_VALAT_NT_DOUBLE,
    ROUNDING_LIMIT,
    SCORING_FRENCH,
    STRAIN_NT,
    SUIT_DEAL_CARD_TOTAL,
)

#: Valat bonus in MP (section 8.6) and the kirtik loss (14.10).
VALAT_MP = 9
KIRTIK_MP = 10


@kernel
def round_mp(raw0, raw1, strain):
    """Raw points of both teams -> match points (section 8.2, 14.12)."""
    limit = ROUNDING_LIMIT[strain]
    q0 = raw0 // 10
    r0 = raw0 - 10 * q0
    q1 = raw1 // 10
    r1 = raw1 - 10 * q1
    m0 = q0 + (1 if r0 > limit else 0)
    m1 = q1 + (1 if r1 > limit else 0)
    if r0 == limit and r1 == limit:
        # Both at the limit: the team with fewer raw points rounds up.
        if raw0 < raw1:
            m0 += 1
        elif raw1 < raw0:
            m1 += 1
    return m0, m1


@lean_kernel
def valat_bonus(strain, rules):
    """MP for taking every trick (8.6): 9, or 18 in NT with ``valat_nt_double``."""
    if strain == STRAIN_NT and rules[R_VALAT_NT_DOUBLE]:
        return 2 * VALAT_MP
    return VALAT_MP


@lean_kernel
def score_deal(
    card0,
    card1,
    decl0,
    decl1,
    belote0,
    belote1,
    tricks0,
    tricks1,
    strain,
    taker_team,
    doubling,
    n_tricks,
    rules,
):
    """Score one played deal.

    Parameters: card points per team (last trick included), scored declaration
    points per team (runs and carrés), belote points per team, tricks won per team,
    the strain code, the taker's team, the doubling level (0..3), the number of
    tricks in a deal and the rules array.

    Returns ``(raw0, raw1, outcome, valat, mp0, mp1, held0, held1)``: raw points,
    the ``OUTCOME_*`` code seen from the taker's team, the team that won every trick
    (-1 if none), what each team adds to its score now (MP, or French points) and
    what is held as hanging points.
    """
    valat = -1
    if tricks0 == n_tricks:
        valat = 0
    elif tricks1 == n_tricks:
        valat = 1
    defender_team = 1 - taker_team
    if rules[R_SCORING] == SCORING_FRENCH:
        # A capot replaces the card total by the capot total (10, 14.15).
        capot_total = DEAL_CARD_TOTAL[strain] + rules[R_CAPOT_POINTS] - SUIT_DEAL_CARD_TOTAL
        if valat == 0:
            card0 = capot_total
        elif valat == 1:
            card1 = capot_total
    raw0 = card0 + decl0 + belote0
    raw1 = card1 + decl1 + belote1
    if strain == STRAIN_NT and rules[R_NT_DOUBLE_RAW]:
        raw0 *= 2
        raw1 *= 2
    raw_taker = raw0 if taker_team == 0 else raw1
    raw_def = raw1 if taker_team == 0 else raw0
    if raw_taker > raw_def:
        outcome = OUTCOME_MADE
    elif raw_taker < raw_def:
        outcome = OUTCOME_INSIDE
    else:
        outcome = OUTCOME_HANGING
    # Scalars, not (2,) arrays: no allocation per deal.  ``t`` is the taker's
    # team; a value "for team x" is selected with x == 0.
    mp0 = mp1 = held0 = held1 = 0
    if rules[R_SCORING] == SCORING_FRENCH:
        factor = 2 if strain == STRAIN_NT and rules[R_NT_DOUBLE_RAW] else 1
        belote_taker = belote0 if taker_team == 0 else belote1
        belote_def = belote1 if taker_team == 0 else belote0
        if outcome == OUTCOME_MADE:
            mp0 = raw0
            mp1 = raw1
        else:
            if outcome == OUTCOME_INSIDE:
                # "162, or 250 for a capot" (14.14): the card total of the deal, which
                # is the capot total when either team won every trick.
                card_total = DEAL_CARD_TOTAL[strain]
                if valat >= 0:
                    card_total += rules[R_CAPOT_POINTS] - SUIT_DEAL_CARD_TOTAL
                mp_def = factor * (card_total + decl0 + decl1 + belote_def)
                held_taker = 0
            else:
                mp_def = raw_def
                held_taker = raw_taker - factor * belote_taker
            mp_taker = factor * belote_taker
            if taker_team == 0:
                mp0, mp1, held0 = mp_taker, mp_def, held_taker
            else:
                mp1, mp0, held1 = mp_taker, mp_def, held_taker
        return raw0, raw1, outcome, valat, mp0, mp1, held0, held1

    m0, m1 = round_mp(raw0, raw1, strain)
    multiplier = 1 << doubling
    if outcome == OUTCOME_HANGING:
        if doubling > 0:
            held0 = m0 * multiplier
            held1 = m1 * multiplier
        elif taker_team == 0:
            held0 = m0
            mp1 = m1
        else:
            held1 = m1
            mp0 = m0
    elif doubling > 0 or outcome == OUTCOME_INSIDE:
        # The team with fewer raw points is inside: the other takes both teams' MP.
        winner = taker_team if outcome == OUTCOME_MADE else defender_team
        if winner == 0:
            mp0 = (m0 + m1) * multiplier
        else:
            mp1 = (m0 + m1) * multiplier
    else:
        mp0 = m0
        mp1 = m1
    if valat == 0:
        mp0 += valat_bonus(strain, rules)
    elif valat == 1:
        mp1 += valat_bonus(strain, rules)
    if rules[R_KIRTIK]:
        for team in range(2):
            inside = (outcome == OUTCOME_INSIDE and team == taker_team) or (
                outcome == OUTCOME_MADE and doubling > 0 and team == defender_team
            )
            if inside or valat == 1 - team:
                if team == 0:
                    mp0 -= KIRTIK_MP
                else:
                    mp1 -= KIRTIK_MP
    return raw0, raw1, outcome, valat, mp0, mp1, held0, held1


@kernel
def round_mp_players(raw, n_players, strain, out_mp):
    """Raw points of every player -> MP when each plays alone (section 8.2 for P players).

    r < L rounds down, r > L up; of the players with r == L, when there are two or
    more, the one with strictly the fewest raw points rounds up and the others down
    (a tie for the fewest: all down); a lone player at the limit rounds down.  For two
    players this is exactly ``round_mp``.
    """
    limit = ROUNDING_LIMIT[strain]
    at_limit = 0
    lowest = -1
    tie = False
    for p in range(n_players):
        q = raw[p] // 10
        r = raw[p] - 10 * q
        out_mp[p] = q + (1 if r > limit else 0)
        if r == limit:
            at_limit += 1
            if lowest < 0 or raw[p] < raw[lowest]:
                lowest = p
                tie = False
            elif raw[p] == raw[lowest]:
                tie = True
    if at_limit >= 2 and not tie:
        out_mp[lowest] += 1


@kernel
def score_players(
    card,
    decl,
    belote,
    tricks,
    n_players,
    strain,
    taker,
    doubling,
    n_tricks,
    first_seat,
    rules,
    out_raw,
    out_mp,
    out_held,
):
    """Score a deal of a game where every player is alone (docs/rules.md section 11).

    Inputs per player (P,): card points (last trick included), scored declaration
    points, belote points, tricks won; ``first_seat`` is dealer + 1.  Two players
    score exactly as two teams (``score_deal``).  Three players: the taker is
    ``made`` only with strictly more raw points than each opponent, else ``inside``
    (never hanging); made, each player adds his own MP; inside, the taker adds
    nothing and his MP are split between the opponents, an odd MP to the one with more
    raw points (equal: the first in playing order from ``first_seat``).  Doubling
    multiplies MP by 2 per level; a valat adds 9 MP (18 in NT with
    ``valat_nt_double``) to its player, unmultiplied; ``kirtik`` takes 10 MP from the
    inside taker and from every player who suffered a valat, once each.

    Writes raw points, MP added now and MP held (per player) and returns
    ``(outcome, valat)``: the ``OUTCOME_*`` code and the player who won every trick
    (-1 if none).
    """
    if n_players == 2:
        raw0, raw1, outcome, valat, mp0, mp1, held0, held1 = score_deal(
            card[0],
            card[1],
            decl[0],
            decl[1],
            belote[0],
            belote[1],
            tricks[0],
            tricks[1],
            strain,
            taker,
            doubling,
            n_tricks,
            rules,
        )
        out_raw[0] = raw0
        out_raw[1] = raw1
        out_mp[0] = mp0
        out_mp[1] = mp1
        out_held[0] = held0
        out_held[1] = held1
        return outcome, valat
    valat = -1
    for p in range(n_players):
        out_raw[p] = card[p] + decl[p] + belote[p]
        if strain == STRAIN_NT and rules[R_NT_DOUBLE_RAW]:
            out_raw[p] *= 2
        out_held[p] = 0
        if tricks[p] == n_tricks:
            valat = p
    outcome = OUTCOME_MADE
    for p in range(n_players):
        if p != taker and out_raw[p] >= out_raw[taker]:
            outcome = OUTCOME_INSIDE
    round_mp_players(out_raw, n_players, strain, out_mp)
    if outcome == OUTCOME_INSIDE:
        share = out_mp[taker]
        out_mp[taker] = 0
        # The two opponents, ``first`` before ``second`` in playing order from first_seat.
        first = -1
        second = -1
        for i in range(n_players):
            p = (first_seat + i) % n_players
            if p != taker:
                if first < 0:
                    first = p
                else:
                    second = p
        odd_to = second if out_raw[second] > out_raw[first] else first
        out_mp[first] += share // 2
        out_mp[second] += share // 2
        out_mp[odd_to] += share % 2
    multiplier = 1 << doubling
    for p in range(n_players):
        out_mp[p] *= multiplier
    if valat >= 0:
        out_mp[valat] += valat_bonus(strain, rules)
    if rules[R_KIRTIK]:
        for p in range(n_players):
            if (outcome == OUTCOME_INSIDE and p == taker) or (valat >= 0 and p != valat):
                out_mp[p] -= KIRTIK_MP
    return outcome, valat


@kernel
def game_step(totals, outcome, taker_team, doubling, valat, mp0, mp1, held0, held1, rules):
    """Add one scored deal to a game in progress (section 9).

    ``totals``: int64 (3,) array ``[score0, score1, pot]`` updated in place; the pot
    holds hanging points until the next deal that is neither hanging nor thrown in,
    whose winner takes it.  Returns the winning team if the game ends after this
    deal, else -1: it ends when a team has reached the target, nothing is held and
    the deal was not a valat (equal totals play on); with ``third_double`` a made or
    inside deal at doubling 3 decides the game.
    """
    totals[0] += mp0
    totals[1] += mp1
    totals[2] += held0 + held1
    deal_winner = -1
    if outcome == OUTCOME_MADE:
        deal_winner = taker_team
    elif outcome == OUTCOME_INSIDE:
        deal_winner = 1 - taker_team
    if deal_winner >= 0 and totals[2] > 0:
        totals[deal_winner] += totals[2]
        totals[2] = 0
    if rules[R_THIRD_DOUBLE] and doubling == 3 and deal_winner >= 0:
        return deal_winner
    # A thrown-in deal is a deal too (rules section 9): after a valat that passed the
    # target, an all-pass deal with nothing held ends the game.
    target = rules[R_GAME_TARGET]
    if (
        (totals[0] >= target or totals[1] >= target)
        and totals[2] == 0
        and valat < 0
        and totals[0] != totals[1]
    ):
        return 0 if totals[0] > totals[1] else 1
    return -1


@kernel
def solo_game_step(totals, outcome, taker, valat, mp, held, n_players, rules):
    """Add one scored deal to a game where every player is alone (section 9, 11).

    Two players: exactly ``game_step`` with ``totals = [score0, score1, pot]``.  Three
    players (never hanging): ``totals[p]`` += MP; after a deal that was not a valat
    (thrown-in deals included, section 9), the game ends when a player has reached the
    target and has strictly the most points (equal leaders play on).  Returns the winner or -1.
    """
    if n_players == 2:
        return game_step(totals, outcome, taker, 0, valat, mp[0], mp[1], held[0], held[1], rules)
    for p in range(n_players):
        totals[p] += mp[p]
    if valat >= 0:
        return -1
    best = 0
    for p in range(1, n_players):
        if totals[p] > totals[best]:
            best = p
    if totals[best] < rules[R_GAME_TARGET]:
        return -1
    for p in range(n_players):
        if p != best and totals[p] == totals[best]:
            return -1
    return best


@kernel
def play_game(outcomes, taker_teams, doublings, valats, mp, held, rules):
    """Accumulate a game over a sequence of scored deals (see ``game_step``).

    Inputs are per deal (n,): ``OUTCOME_*`` codes (``OUTCOME_THROWN_IN`` for an
    all-pass deal), taker team, doubling level, valat team (-1 none), and (n, 2)
    arrays of MP added now and MP held.  Returns ``(score0, score1, pot,
    ended_after, winner)`` (-1 while not ended); deals after the end are ignored.
    """
    totals = np.zeros(3, dtype=np.int64)
    for i in range(outcomes.shape[0]):
        winner = game_step(
            totals,
            outcomes[i],
            taker_teams[i],
            doublings[i],
            valats[i],
            mp[i, 0],
            mp[i, 1],
            held[i, 0],
            held[i, 1],
            rules,
        )
        if winner >= 0:
            return totals[0], totals[1], totals[2], i, winner
    return totals[0], totals[1], totals[2], -1, -1


__all__ = [
    "KIRTIK_MP",
    "VALAT_MP",
    "game_step",
    "play_game",
    "round_mp",
    "round_mp_players",
    "score_deal",
    "score_players",
    "solo_game_step",
    "valat_bonus",
]
