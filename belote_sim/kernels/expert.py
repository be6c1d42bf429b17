"""The ``expert`` play policy: what its player infers, rules or a learned card model,
and an optional exact endgame.

How it chooses a card (``params[4]``, ``model``): 3 (the default), the network of
``suit_net`` over raw facts (where every card is as far as the player knows it);
2 and 1, the card models of ``expert_model`` (a network, or a linear score, over
hand-made features of each legal card); all fitted to double-dummy values; 0, the
hand-written rules below.

The policy sees only what its player sees (``expert_card`` takes nothing else): its
own hand, every card played so far in order, the contract (strain, taker), the
cards other players announced (declarations still in their hands, the other card of
an announced belote) and the play options.  Its choice is a pure function of that
observation: the random draws of the endgame are seeded from a hash of it.

What it infers (``infer_forbidden`` of the solver, docs/rules.md 5): a player who did not
follow suit holds none of the led suit; one who did not raise on a trump lead holds
no higher trump; one who had to trump and discarded holds no trump (or none above
the winning trump when undertrumping is not required); one who trumped under an
opponent's trump holds no higher trump.  From that and the cards played it keeps,
for every other seat, the cards it may still hold, hence the masters (no higher card
of the suit still out) and who may still ruff.

How it plays (the rules, ``_rule_card``):

* leading, taker's side of a suit contract, while an opponent may hold trumps: the
  master trump if it holds it, else its lowest trump (draw trumps);
* leading a master that no opponent can beat or ruff (a sure trick), the side suits
  first, most points first;
* leading a low card of a suit the partner has shown void in while he may ruff and
  the next opponent cannot over-ruff;
* otherwise a low card of the side suit that costs least to give up: no ten left
  unguarded, no lead into an opponent's shown void, short suits first when it holds
  trumps (to ruff later);
* following, partner sure to win the trick: the card worth most (smear), masters
  and trumps kept when it can;
* following, it can win: its cheapest card that no later opponent can beat; else,
  last to play, its cheapest winning card; else its cheapest winner when cheap or
  the trick is rich; else a discard;
* discarding: the cheapest card, keeping trumps, masters and the small card that
  guards a ten whose ace is out, emptying short side suits when it holds trumps.

The end of the deal is played exactly (``params[0]`` tricks left or fewer, at least
two legal cards): ``params[1]`` deals of the unseen cards, consistent with all the
inferences and announcements, are drawn uniformly and solved double-dummy
(``pimc_best_card`` of the solver); the card with the most card points in total is
played.

Parameters ``[endgame_tricks, samples, switches, thin, model, at_extra]``, default
``[4, 24, 32, 0, 3, 0]``
(``switches``: the ``X_*`` bits below; 32: leads the lowest card of its longest side
suit, which measured better than the suit scoring of the rules).
"""

import numpy as np

from belote_sim.kernels._jit import kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import beats, legal_mask, trick_state
from belote_sim.kernels.greedy import extreme_card, trump_mask
from belote_sim.kernels.rng import mix_step
from belote_sim.kernels.solver import infer_forbidden, infer_forbidden_from, pimc_best_card
from belote_sim.kernels.tables import (
    CARD_POINTS,
    HIGHER_PLAIN_BYTE,
    HIGHER_TRUMP_BYTE,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
    STRAIN_AT,
    STRAIN_NT,
    WIN_KEY,
)

#: Default parameters: endgame tricks solved exactly, deals sampled per decision,
#: rule switches (bits ``X_*``, 0 = all the expert rules), the "thin suit" count
#: (an opponent may be void when this many cards of the suit or fewer are out), the
#: model (``EXPERT_MODEL``) and the endgame's extra tricks in AT (``EXPERT_AT_EXTRA``).
EXPERT_DEFAULTS = (4.0, 24.0, 32.0, 0.0, 3.0, 0.0)
#: params[0]: the endgame tricks solved exactly (0: no endgame search)
EXPERT_ENDGAME = 0
#: params[4], the learned card scores of ``expert_model`` instead of the rules:
#: 3 = the network over raw facts (``suit_net``, issue 41; the default, the strongest),
#: 2 = the feature network (``expert_model``), 1 = the linear model, 0 = the rules
EXPERT_MODEL = 4
#: params[5]: in all-trumps contracts the exact endgame starts this many tricks earlier
#: (when there is an endgame at all, ``params[0] > 0``): the network's decisions are
#: the least exact in AT (its held-out loss is highest there).  Off by default: 2 extra
#: tricks win +0.86 +- 0.16 MP per AT deal but make the default player ~3.4x slower
#: overall (docs/benchmarks.md, issue 27).
EXPERT_AT_EXTRA = 5

# Rule switches (params[2]): play that part as ``greedy`` does (for ablation studies).
X_GREEDY_MASTERS = 1  # lead any master, richest first, without the ruff check
X_GREEDY_WIN = 2  # following: the cheapest winning card, sure or not
X_GREEDY_SMEAR = 4  # feeding partner: the richest card, masters included
X_GREEDY_DISCARD = 8  # discarding: the cheapest card (trumps kept)
X_NO_PARTNER_RUFF = 16  # no lead to partner's void
X_GREEDY_LOW_LEAD = 32  # else the lowest card of the longest side suit
X_GREEDY_DRAW = 64  # draw trumps while anyone else may hold one

ALL_CARDS = 0xFFFFFFFF
RANK_T = 3
RANK_A = 7
#: Rows of ``observe``'s ``work``: its 4, then those of ``observed_forbidden``'s memo
#: (row 4: cards played it has walked through, the trick's leader, cards, led suit;
#: 5: winning card and position, first leader, strain; 6: the two rules it reads;
#: 7: the masks of cards each seat cannot hold; 8..15: the cards walked through).
WORK_ROWS = 16


@kernel(inline="always")
def suit_mask(suit):
    return 0xFF << (8 * suit)


@kernel(inline="always")
def higher_mask(card, strain):
    """Cards of ``card``'s suit that rank above it (trump order for trumps and in AT)."""
    suit = card >> 3
    if strain == STRAIN_AT or suit == strain:
        return HIGHER_TRUMP_BYTE[card & 7] << (8 * suit)
    return HIGHER_PLAIN_BYTE[card & 7] << (8 * suit)


@kernel
def _highest(cards, strain):
    """Highest-ranking card of a non-empty mask (trick-winning order)."""
    best = -1
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        if best < 0 or WIN_KEY[strain, card] > WIN_KEY[strain, best]:
            best = card
    return best


@kernel(inline="always")
def may_be_void(poss, others, suit, thin):
    """Whether a seat that may hold ``poss`` may be out of ``suit``: shown void, or
    ``thin`` or fewer cards of the suit still out in the other hands."""
    sm = suit_mask(suit)
    return (poss & sm) == 0 or popcount(others & sm) <= thin


@kernel(inline="always")
def may_beat(poss, others, card, led, trumps, strain, thin):
    """Whether a later player who may hold ``poss`` may beat ``card`` (now winning a
    trick led in ``led``)."""
    suit = card >> 3
    higher = higher_mask(card, strain) & poss
    if suit == led:
        if higher:
            return True
        return (
            trumps != 0
            and suit != strain
            and (poss & trumps) != 0
            and may_be_void(poss, others, led, thin)
        )
    # a trump on a plain lead: beaten by a higher trump of a player out of the led suit
    return higher != 0 and may_be_void(poss, others, led, thin)


@kernel
def _rule_card(
    hand, legal, poss, n_trick, led, wc, wp, trick_pts, seat, taker, strain, others, flags, thin
):
    """The card of the rules (see the module docstring); ``poss`` (4,): cards each
    other seat may hold; ``others``: cards in the other hands; ``flags``: ``X_*``."""
    trumps = trump_mask(strain)
    partner = seat ^ 2
    lho = (seat + 1) & 3
    rho = (seat + 3) & 3
    opp_poss = poss[lho] | poss[rho]
    if flags & X_GREEDY_DRAW:
        opp_poss = others
    if n_trick == 0:
        # --- leading ------------------------------------------------------------
        my_trumps = legal & trumps
        on_taker_side = (seat & 1) == (taker & 1)
        if on_taker_side and my_trumps and opp_poss & trumps:
            top = _highest(my_trumps, strain)
            if higher_mask(top, strain) & others == 0:
                return top
            return extreme_card(my_trumps, strain, 0, False)
        # sure tricks: masters no opponent can beat or ruff
        sure = 0
        cards = legal
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            if higher_mask(card, strain) & others:
                continue
            suit = card >> 3
            if flags & X_GREEDY_MASTERS:
                sure |= 1 << card
                continue
            if trumps and suit != strain and opp_poss & trumps:
                if (poss[lho] & trumps and may_be_void(poss[lho], others, suit, thin)) or (
                    poss[rho] & trumps and may_be_void(poss[rho], others, suit, thin)
                ):
                    continue
            sure |= 1 << card
        if sure & ~trumps:
            return extreme_card(sure & ~trumps, strain, 0, True)
        if sure and (on_taker_side or (opp_poss & trumps) == 0):
            return extreme_card(sure, strain, 0, True)
        # partner's ruff: he is void in a side suit and may hold trumps
        if trumps and poss[partner] & trumps and not flags & X_NO_PARTNER_RUFF:
            for suit in range(4):
                sm = suit_mask(suit)
                if suit == strain or legal & sm == 0 or poss[partner] & sm:
                    continue
                if poss[rho] & sm == 0 and poss[rho] & trumps:
                    continue  # the opponent after him could over-ruff
                return extreme_card(legal & sm, strain, 0, False)
        if flags & X_GREEDY_LOW_LEAD:
            best_suit = -1
            best_len = 0
            for suit in range(4):
                length = popcount((legal & ~trumps) & suit_mask(suit))
                if length > best_len:
                    best_len = length
                    best_suit = suit
            if best_suit < 0:
                return extreme_card(legal, strain, 0, False)
            return extreme_card(legal & suit_mask(best_suit), strain, 0, False)
        # a low card of the side suit that costs least to give up
        best_suit = -1
        best_score = 0
        for suit in range(4):
            sm = suit_mask(suit)
            mine = legal & sm
            if mine == 0:
                continue
            low = extreme_card(mine, strain, 0, False)
            score = 4 * CARD_POINTS[strain, low]
            n_mine = popcount(mine)
            if suit == strain or strain == STRAIN_AT:
                score += 40 if not on_taker_side else 10
            else:
                ten = 8 * suit + RANK_T
                if (hand >> ten) & 1 and (others >> (8 * suit + RANK_A)) & 1 and n_mine <= 2:
                    score += 25  # would bare or lose the ten
                if trumps and opp_poss & trumps:
                    if (poss[lho] & sm == 0 and poss[lho] & trumps) or (
                        poss[rho] & sm == 0 and poss[rho] & trumps
                    ):
                        score += 30  # gives the opponents a ruff
                if trumps and my_trumps and not on_taker_side:
                    score -= 6 * (3 - min(n_mine, 3))  # shorten: ruff later
                if strain == STRAIN_NT:
                    score -= 3 * n_mine  # long suits in no trumps
            if best_suit < 0 or score < best_score:
                best_suit = suit
                best_score = score
        return extreme_card(legal & suit_mask(best_suit), strain, 0, False)

    # --- following ------------------------------------------------------------------
    partner_winning = n_trick >= 2 and wp == n_trick - 2
    last = n_trick == 3
    if partner_winning:
        safe = last or not may_beat(poss[lho], others, wc, led, trumps, strain, thin)
        if safe:
            if flags & X_GREEDY_SMEAR:
                return extreme_card(legal & ~trumps if legal & ~trumps else legal, strain, 0, True)
            return _smear(legal, strain, trumps, others)
        # can we take it over for sure (no later opponent can beat our card)?
        sure = 0
        cards = legal
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            if beats(card, wc, led, strain) and not may_beat(
                poss[lho], others, card, led, trumps, strain, thin
            ):
                sure |= 1 << card
        if sure & ~trumps:
            return extreme_card(sure & ~trumps, strain, 0, False)
        return _discard(hand, legal, strain, trumps, others, flags)
    winners = 0
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        if beats(card, wc, led, strain):
            winners |= 1 << card
    if winners:
        if last:
            return extreme_card(winners, strain, 0, False)
        sure = 0
        cards = winners
        while cards:
            card = lowest_card(cards)
            cards &= cards - 1
            if not may_beat(poss[lho], others, card, led, trumps, strain, thin):
                sure |= 1 << card
        if sure:
            return extreme_card(sure, strain, 0, False)
        w = extreme_card(winners, strain, 0, False)
        cheap = CARD_POINTS[strain, w] <= 4
        if cheap or (trick_pts >= 10 and n_trick == 2) or flags & X_GREEDY_WIN:
            return w
    return _discard(hand, legal, strain, trumps, others, flags)


@kernel
def _smear(legal, strain, trumps, others):
    """Card to give to a partner sure to win: most points, keeping masters and trumps."""
    best = -1
    best_v = 0
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        v = CARD_POINTS[strain, card] * 4
        if higher_mask(card, strain) & others == 0 and CARD_POINTS[strain, card] > 0:
            v -= 44  # a master wins a trick of its own later
        if trumps >> card & 1:
            v -= 60
        v = v * 32 + WIN_KEY[strain, card]
        if best < 0 or v > best_v:
            best = card
            best_v = v
    return best


@kernel
def _discard(hand, legal, strain, trumps, others, flags):
    """Card to give up: cheapest, keeping trumps, masters and guards of tens."""
    if flags & X_GREEDY_DISCARD:
        return extreme_card(legal & ~trumps if legal & ~trumps else legal, strain, 0, False)
    best = -1
    best_v = 0
    has_trumps = (hand & trumps) != 0
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        suit = card >> 3
        sm = suit_mask(suit)
        pts = CARD_POINTS[strain, card]
        v = pts * 4
        if trumps >> card & 1:
            v += 60
        elif higher_mask(card, strain) & others == 0 and (others & sm):
            v += 30  # a master
        n_suit = popcount(hand & sm)
        ten = 8 * suit + RANK_T
        if (
            strain != STRAIN_AT
            and card != ten
            and n_suit == 2
            and (hand >> ten) & 1
            and (others >> (8 * suit + RANK_A)) & 1
        ):
            v += 25  # the guard of a ten whose ace is out
        if has_trumps and not (trumps >> card & 1) and n_suit == 1:
            v -= 6  # empties a side suit: ruff it later
        v = v * 32 + WIN_KEY[strain, card]
        if best < 0 or v < best_v:
            best = card
            best_v = v
    return best


@kernel
def observation_seed(hand, plays, n_played, seat):
    """A 63-bit hash of what the player saw (hand, cards played in order, seat)."""
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(hand)
    for i in range(n_played):
        h = mix_step(h, plays[i] + 1)
    h = (h ^ np.uint64(seat + 64)) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(31)
    return np.int64(h >> np.uint64(1))


@lean_kernel(inline="always")
def observed_forbidden(plays, n_plays, first_leader, strain, rules, work):
    """``infer_forbidden`` into ``work[1]``, resumed where the last call with the same
    ``work`` left off when its cards are the first of ``plays`` (and the first leader,
    strain and rules are the same): the play policies' ``work``
    (``switchboard.policy_buffers``, WORK_ROWS rows) keeps the walk's state in its
    rows 4.., so that a deal's decisions walk through each card once instead of through
    all the cards at every decision.  A ``work`` of 4 rows: no memo."""
    out = work[1]
    if work.shape[0] < WORK_ROWS:
        return infer_forbidden(plays, n_plays, first_leader, strain, rules, out)
    done = work[4, 0]
    raise_over = rules[R_RAISE_OVER_PARTNER]
    undertrump = rules[R_UNDERTRUMP]
    start = 0
    if (
        0 < done <= n_plays
        and work[5, 2] == first_leader
        and work[5, 3] == strain
        and work[6, 0] == raise_over
        and work[6, 1] == undertrump
    ):
        start = done
        for i in range(done):
            if plays[i] != work[8 + (i >> 2), i & 3]:
                start = 0
                break
    if start > 0:
        leader = work[4, 1]
        n = work[4, 2]
        led = work[4, 3]
        wc = work[5, 0]
        wp = work[5, 1]
        for s in range(4):
            out[s] = work[7, s]
    else:
        leader = first_leader
        n = 0
        led = wc = wp = -1
        for s in range(4):
            out[s] = 0
    leader, n, led, wc, wp = infer_forbidden_from(
        plays, start, n_plays, leader, n, led, wc, wp, strain, rules, out
    )
    for i in range(start, n_plays):
        work[8 + (i >> 2), i & 3] = plays[i]
    work[4, 0] = n_plays
    work[4, 1] = leader
    work[4, 2] = n
    work[4, 3] = led
    work[5, 0] = wc
    work[5, 1] = wp
    work[5, 2] = first_leader
    work[5, 3] = strain
    work[6, 0] = raise_over
    work[6, 1] = undertrump
    for s in range(4):
        work[7, s] = out[s]
    return leader, n


@lean_kernel
def observe(hand, plays, n_played, first_leader, strain, rules, work):
    """What the player to move knows, worked out from his observation.

    ``work`` (4, 4) or (WORK_ROWS, 4) int64: row 0 holds the cards announced still in
    each other hand (the mover's entry is ignored); row 2 receives, per other seat, the
    cards it may still hold (``poss``; 0 for the mover); row 1 the cards each seat
    cannot hold (``observed_forbidden``); row 3 is scratch, rows 4.. the memo.  Returns
    ``(seat, n_trick, led, wc, wp, trick_pts, legal, others)``: the mover, the cards
    already in the trick, its led suit, winning card and position, its card points,
    the mover's legal cards and the cards in the other hands.
    """
    trick = work[3]
    leader, n_trick = observed_forbidden(plays, n_played, first_leader, strain, rules, work)
    seat = (leader + n_trick) & 3
    trick_pts = 0
    played = 0
    for i in range(n_played):
        played |= 1 << plays[i]
    for i in range(n_trick):
        trick[i] = plays[n_played - n_trick + i]
        trick_pts += CARD_POINTS[strain, trick[i]]
    led, wc, wp = trick_state(trick, n_trick, strain)
    legal = legal_mask(hand, led, n_trick, wc, wp, strain, rules)
    others = ALL_CARDS & ~played & ~hand
    possible_cards(seat, others, work)
    return seat, n_trick, led, wc, wp, trick_pts, legal, others


@kernel(inline="always")
def possible_cards(seat, others, work):
    """``work[2]``: per other seat, the cards it may still hold (``others``, the cards in
    the other hands, less those announced in a third hand and those ``work[1]`` says it
    cannot hold); 0 for ``seat``."""
    known = work[0]
    forbidden = work[1]
    poss = work[2]
    announced = 0
    for s in range(4):
        if s != seat:
            announced |= known[s] & others
    for s in range(4):
        poss[s] = 0
        if s != seat:
            poss[s] = ((others & ~announced) | (known[s] & others)) & ~forbidden[s]


@lean_kernel
def observe_turn(turn, plays, first_leader, strain, rules, work):
    """``observe`` in the simulation: what the turn (``records.Turn``) already holds --
    the mover, his cards and legal cards, the cards played, the trick's state -- is
    taken from it instead of worked out from the cards played again; ``plays``: the
    cards of the deal in order (``turn.n_played`` of them).  Same ``work`` and result."""
    n_played = turn.n_played
    observed_forbidden(plays, n_played, first_leader, strain, rules, work)
    n_trick = turn.pos
    trick_pts = 0
    for i in range(n_played - n_trick, n_played):
        trick_pts += CARD_POINTS[strain, plays[i]]
    others = ALL_CARDS & ~turn.played & ~turn.hand
    possible_cards(turn.seat, others, work)
    return (
        turn.seat, n_trick, turn.led_suit, turn.win_card, turn.win_pos, trick_pts, turn.legal,
        others,
    )  # fmt: skip


@kernel(inline="always")
def in_endgame(params, n_played, strain):
    """Whether the exactly played endgame has begun: ``params[0]`` tricks left or
    fewer -- ``params[0] + params[EXPERT_AT_EXTRA]`` in an AT contract when
    ``params[0] > 0`` -- and ``params[1]`` sampled deals, at least one."""
    tricks = params[0]
    if strain == STRAIN_AT and tricks > 0:
        tricks += params[EXPERT_AT_EXTRA]
    return 8 - n_played // 4 <= tricks and params[1] >= 1


@kernel
def endgame_card(params, hand, plays, n_played, first_leader, strain, rules,
                 seat, legal, tt, ws, moves, work):  # fmt: skip
    """The exactly played endgame (``in_endgame``, ``params[1]`` sampled deals): the
    PIMC card, or -1 when the endgame has not begun."""
    if not in_endgame(params, n_played, strain):
        return -1
    card = pimc_best_card(
        hand,
        work[0],
        plays,
        n_played,
        first_leader,
        strain,
        rules,
        np.int64(params[1]),
        observation_seed(hand, plays, n_played, seat),
        tt,
        ws,
        moves,
    )
    if card >= 0 and (legal >> card) & 1:
        return card
    return -1


@kernel
def expert_rule_card(
    params,
    hand,
    plays,
    n_played,
    first_leader,
    strain,
    taker,
    rules,
    tt,
    ws,
    moves,
    work,
    turn,
):
    """The ``expert`` card of the player to move (rules mode).

    ``hand``: his cards; ``plays``/``n_played``: the cards of the deal in order, the
    first trick led by ``first_leader``; ``taker``: the taker's seat;
    ``rules``: the rules array (its play options); ``tt``/``ws``/``moves``: solver
    buffers for the endgame; ``work`` (4, 4) int64: row 0 holds the cards announced
    still in each other hand (the mover's entry is ignored), rows 1.. are scratch;
    ``turn``: None, or the simulation's ``records.Turn`` (``observe_turn``).  Returns a
    legal card.
    """
    if turn is None:
        view = observe(hand, plays, n_played, first_leader, strain, rules, work)
    else:
        view = observe_turn(turn, plays, first_leader, strain, rules, work)
    seat, n_trick, led, wc, wp, trick_pts, legal, others = view
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    card = endgame_card(
        params, hand, plays, n_played, first_leader, strain, rules,
        seat, legal, tt, ws, moves, work,
    )  # fmt: skip
    if card >= 0:
        return card
    return _rule_card(
        hand,
        legal,
        work[2],
        n_trick,
        led,
        wc,
        wp,
        trick_pts,
        seat,
        taker,
        strain,
        others,
        np.int64(params[2]),
        np.int64(params[3]),
    )


__all__ = [
    "ALL_CARDS",
    "EXPERT_AT_EXTRA",
    "EXPERT_DEFAULTS",
    "EXPERT_ENDGAME",
    "EXPERT_MODEL",
    "RANK_A",
    "RANK_T",
    "WORK_ROWS",
    "X_GREEDY_DISCARD",
    "X_GREEDY_DRAW",
    "X_GREEDY_LOW_LEAD",
    "X_GREEDY_MASTERS",
    "X_GREEDY_SMEAR",
    "X_GREEDY_WIN",
    "X_NO_PARTNER_RUFF",
    "endgame_card",
    "expert_rule_card",
    "higher_mask",
    "in_endgame",
    "may_be_void",
    "may_beat",
    "observation_seed",
    "observe",
    "observe_turn",
    "observed_forbidden",
    "possible_cards",
    "suit_mask",
]
