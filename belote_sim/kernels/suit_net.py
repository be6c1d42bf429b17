"""The ``expert`` policy's suit network (model 3): card scores from raw facts.

The kernel of ``simulation.card_net.SuitNet`` (issue 41), which reads no hand-made
feature: every card has a *place* as far as the player to move can know it (in his
hand; played in an earlier trick by the seat ``r`` places after him; on the table now;
announced and still held by a seat; unknown) and, when unknown, up to three
*impossible* flags (seat ``r`` = 1..3 cannot hold it, ``solver.infer_forbidden``).  The
network reads one suit at a time with the same weights for every suit:

* per suit, ``u = wr[role] +`` the ``ws`` rows of its 8 cards' facts (role: trump or
  side suit of a suit contract, a suit of NT, of AT), ``a = relu(u)``;
* the table's context ``ctx = sum of the four a``, the globals' ``gh = relu(globals
  @ wg + bg)`` (strain kind, taker, cards in the trick, trick number, two play rules,
  seat winning the trick, card points taken so far);
* per legal card (suit s, rank k): ``relu(a_s @ wa + ctx @ wb + gh @ wc + wk[role * 8
  + k] + b2) @ wo``, its score (card points, relative to the other cards').

A card played in an earlier trick is read without the trick's number (the shipped
network was fitted so: ``card_net.encode(..., trick_numbers=False)``).  Everything is
float32 and allocates nothing: the scratch is ``expert_model.model_card``'s (a
decision's ``feats`` and ``index`` rows, ``SUIT_NET_SCRATCH`` / ``SUIT_NET_INDEXES``
long at least).  Checked against ``SuitNet.scores`` on labelled decisions
(``tests/test_suit_net.py``).
"""

import numpy as np

from belote_sim.kernels._jit import exact_float_kernel, kernel, lean_kernel
from belote_sim.kernels.bits import lowest_card
from belote_sim.kernels.core import advance_trick
from belote_sim.kernels.suit_net_weights import (
    SN_B2,
    SN_BG,
    SN_WA,
    SN_WB,
    SN_WC,
    SN_WG,
    SN_WK,
    SN_WO,
    SN_WR,
    SN_WS,
)
from belote_sim.kernels.tables import (
    CARD_POINTS,
    R_RAISE_OVER_PARTNER,
    R_UNDERTRUMP,
    STRAIN_NT,
    WIN_KEY,
)

#: Places of a card as the mover knows it: in hand; played in an earlier trick by
#: relative seat r (1 + r; ``PLACE_PLAYED + 4 * t + r`` when trick numbers are read);
#: on the table by relative seat r = 1..3 (32 + r); announced, held by r (35 + r);
#: unknown.
PLACE_HAND = 0
PLACE_PLAYED = 1
PLACE_TABLE = 32
PLACE_ANNOUNCED = 35
PLACE_UNKNOWN = 39
N_PLACES = 40
#: Inputs per card: its place (one of N_PLACES) and three impossible flags.
N_FACTS = N_PLACES + 3
#: The global inputs: strain kind (3), taker (4), cards in the trick (4), trick (8),
#: the two play rules (2), seat winning the trick (4), card points so far (3).
N_GLOBALS = 3 + 4 + 4 + 8 + 2 + 4 + 3
#: Roles of a suit: trump and side suit of a suit contract, suit of NT, suit of AT.
N_ROLES = 4

HS = SN_WS.shape[1]
HG = SN_WG.shape[1]
H2 = SN_WA.shape[1]
ZERO = np.float32(0.0)
#: A suit's layer before its cards are read: the role's bias and the rows of its 8
#: cards all unknown (the place of most cards for most of the deal) ...
SUIT_BASE = SN_WR + SN_WS[PLACE_UNKNOWN::N_FACTS].sum(axis=0)
#: ... so that a card adds only the change of its place from unknown (0 for unknown:
#: such a card is skipped) and its impossible flags.  These weights, and those whose
#: rows are summed four at a time below, end in a row of zeros for the padding of a
#: list of rows to a multiple of 4 (``pad_list``).
WS_PAD = np.vstack(
    (
        SN_WS
        - np.repeat(SN_WS[PLACE_UNKNOWN::N_FACTS], N_FACTS, axis=0)
        * np.tile(np.arange(N_FACTS) < N_PLACES, 8)[:, None],
        np.zeros((1, HS), np.float32),
    )
).astype(np.float32)
WA_PAD = np.vstack((SN_WA, np.zeros((1, H2), np.float32)))
WB_PAD = np.vstack((SN_WB, np.zeros((1, H2), np.float32)))
WC_PAD = np.vstack((SN_WC, np.zeros((1, H2), np.float32)))
# offsets of the float32 scratch: the suits' layers, the context, the globals' layer,
# the decision's part of every card's hidden layer, the suits' parts, the scores, the
# values of a list of rows
_U = 0
_CTX = _U + 4 * HS
_GH = _CTX + HS
_BASE = _GH + HG
_PROJ = _BASE + H2
_SCORES = _PROJ + 4 * H2
_VALUES = _SCORES + 32
#: float32 scratch a decision needs (``suit_net_scores``' ``feats``)
SUIT_NET_SCRATCH = _VALUES + max(HS, HG, 32) + 4
# offsets of the int64 scratch: each card's place and impossible flags, then a list of
# rows (a suit's 8 places and at most 24 flags, or the HS or HG units), and the 4 rows
# of padding written past its end whatever its length (``pad_list``, ``suit_units``)
_PLACE = 0
_IMP = 32
_ROWS = 64
#: int64 scratch a decision needs (``suit_net_scores``' ``index``)
SUIT_NET_INDEXES = _ROWS + max(HS, HG, 32) + 4


@kernel(inline="always")
def suit_role(suit, strain):
    """The role of ``suit`` in ``strain`` (``N_ROLES``): 0 trump, 1 side suit of a suit
    contract, 2 no trumps, 3 all trumps."""
    if strain < STRAIN_NT:
        return 0 if suit == strain else 1
    return 2 if strain == STRAIN_NT else 3


@lean_kernel(inline="always")
def card_places(hand, plays, n_played, first_leader, strain, known, forbidden, seat, index):
    """Each card's place (``index[c]``) and impossible flags (``index[32 + c]``, bit
    r - 1: relative seat r cannot hold it) as ``seat`` knows them; ``known`` (4,) the
    cards announced still in each hand, ``forbidden`` (4,) the cards each seat is shown
    not to hold.  Returns ``(trick_no, mine, theirs, trick_pts)``: completed tricks, card
    points the mover's team and the other team took in them, points on the table."""
    for c in range(32):
        index[_PLACE + c] = PLACE_UNKNOWN
        index[_IMP + c] = 0
    for s in range(4):
        if s != seat:
            m = known[s]
            while m:
                index[_PLACE + lowest_card(m)] = PLACE_ANNOUNCED + ((s - seat) & 3)
                m &= m - 1
    m = hand
    while m:
        index[_PLACE + lowest_card(m)] = PLACE_HAND
        m &= m - 1
    leader = first_leader
    n = 0
    led = wc = wp = -1
    pts = 0
    mine = theirs = 0
    trick_no = 0
    for i in range(n_played):
        c = plays[i]
        index[_PLACE + c] = PLACE_TABLE + ((leader + n - seat) & 3)
        pts += CARD_POINTS[strain, c]
        n, led, wc, wp, leader = advance_trick(c, n, led, wc, wp, leader, strain)
        if n == 0:  # the trick is complete: its cards are played, its points taken
            for j in range(i - 3, i + 1):
                index[_PLACE + plays[j]] -= PLACE_TABLE - PLACE_PLAYED
            if (leader & 1) == (seat & 1):
                mine += pts
            else:
                theirs += pts
            pts = 0
            trick_no += 1
    for r in range(1, 4):
        m = forbidden[(seat + r) & 3]
        while m:
            c = lowest_card(m)
            m &= m - 1
            index[_IMP + c] |= np.int64(index[_PLACE + c] == PLACE_UNKNOWN) << (r - 1)
    return trick_no, mine, theirs, pts


@kernel(inline="always")
def pad_list(index, feats, n, pad):
    """Pad the list of rows ``index[_ROWS:_ROWS + n]`` (values ``feats[_VALUES:...]``) to
    a multiple of 4 with ``pad``, a row of zeros, of value 0; returns the new length."""
    # three rows written always, and as many kept as needed: no loop of a varying
    # count (a branch the CPU mispredicts about once a list)
    for t in range(3):
        index[_ROWS + n + t] = pad
        feats[_VALUES + n + t] = ZERO
    return (n + 3) & ~3


@kernel(inline="always")
def add_rows(feats, at, w, index, n):
    """``feats[at + j] += sum_t x_t * w[index[_ROWS + t], j]`` over a list of ``n`` rows
    (a multiple of 4, ``pad_list``) of values ``x_t`` = ``feats[_VALUES + t]``; four
    rows a pass (float32)."""
    width = w.shape[1]
    for t in range(0, n, 4):
        # unsigned row numbers: no negative-index wraparound in the lookups
        k1 = np.uint64(index[_ROWS + t])
        k2 = np.uint64(index[_ROWS + t + 1])
        k3 = np.uint64(index[_ROWS + t + 2])
        k4 = np.uint64(index[_ROWS + t + 3])
        x1 = feats[_VALUES + t]
        x2 = feats[_VALUES + t + 1]
        x3 = feats[_VALUES + t + 2]
        x4 = feats[_VALUES + t + 3]
        for j in range(width):
            feats[at + j] += (x1 * w[k1, j] + x2 * w[k2, j]) + (x3 * w[k3, j] + x4 * w[k4, j])


@kernel(inline="always")
def suit_units(feats, at, role, index, n):
    """A suit's layer ``relu(SUIT_BASE[role] + its rows)`` into ``feats[at:at + HS]``,
    added to the context ``feats[_CTX:]``; its ``n`` rows listed in ``index[_ROWS:]``.
    The base and the first four rows are summed in one pass, and most suits have no
    more than four rows: one pass over the units fewer than copying the base first."""
    w = WS_PAD
    # padded with rows of zeros to a multiple of 4, and to 4 rows at least (a suit with
    # no card known has none): written always, no branch
    for t in range(4):
        index[_ROWS + n + t] = w.shape[0] - 1
    n = max((n + 3) & ~3, 4)
    k1 = np.uint64(index[_ROWS])
    k2 = np.uint64(index[_ROWS + 1])
    k3 = np.uint64(index[_ROWS + 2])
    k4 = np.uint64(index[_ROWS + 3])
    if n == 4:
        for h in range(HS):
            u = SUIT_BASE[role, h] + (w[k1, h] + w[k2, h]) + (w[k3, h] + w[k4, h])
            a = max(u, ZERO)
            feats[at + h] = a
            feats[_CTX + h] += a
        return
    for h in range(HS):
        feats[at + h] = SUIT_BASE[role, h] + (w[k1, h] + w[k2, h]) + (w[k3, h] + w[k4, h])
    for t in range(4, n, 4):
        k1 = np.uint64(index[_ROWS + t])
        k2 = np.uint64(index[_ROWS + t + 1])
        k3 = np.uint64(index[_ROWS + t + 2])
        k4 = np.uint64(index[_ROWS + t + 3])
        for h in range(HS):
            feats[at + h] += (w[k1, h] + w[k2, h]) + (w[k3, h] + w[k4, h])
    for h in range(HS):
        a = max(feats[at + h], ZERO)
        feats[at + h] = a
        feats[_CTX + h] += a


@kernel(inline="always")
def active_units(feats, at, width, index):
    """The list of rows of the positive units ``feats[at:at + width]`` (their values
    behind, ``pad_list``ed with row ``width``); returns its padded length."""
    n = 0
    for block in range(0, width, 64):
        # a mask of the positive units first (a loop the compiler vectorises), then
        # only its set bits visited: a suit has ~11 of 64 units positive
        mask = 0
        for i in range(min(64, width - block)):
            mask |= np.int64(feats[at + block + i] > ZERO) << i
        while mask:
            i = block + lowest_card(mask)
            mask &= mask - 1
            index[_ROWS + n] = i
            feats[_VALUES + n] = feats[at + i]
            n += 1
    return pad_list(index, feats, n, width)


# exact_float_kernel: vectorised, but every sum in its written order, so a score is the
# same to the bit in every process and caller; the scores agree with
# ``SuitNet.scores`` to ~1e-5 card points.
@exact_float_kernel
def suit_net_scores(
    hand, plays, n_played, first_leader, strain, taker, rules, known, forbidden, seat,
    n_trick, wp, legal, feats, index,
):  # fmt: skip
    """The score of each card of ``legal`` (card points, relative: only differences
    between the cards mean something) into ``feats[at + card]``; returns ``at``.
    ``n_trick``, ``wp``: the cards in the trick now and the winning one's position
    (``expert.observe``); the rest as ``card_places``.  ``feats`` (float32,
    SUIT_NET_SCRATCH) and ``index`` (int64, SUIT_NET_INDEXES) are scratch."""
    trick_no, mine, theirs, trick_pts = card_places(
        hand, plays, n_played, first_leader, strain, known, forbidden, seat, index
    )
    # the suits' layers: all cards unknown, then the rows of the cards' other facts
    for h in range(HS):
        feats[_CTX + h] = ZERO
    for s in range(4):
        role = suit_role(s, strain)
        at = _U + s * HS
        n = 0
        for c in range(8 * s, 8 * s + 8):
            # the place's row written always and kept when it applies (no branch)
            row = (c & 7) * N_FACTS
            place = index[_PLACE + c]
            index[_ROWS + n] = row + place
            n += place != PLACE_UNKNOWN
            imp = index[_IMP + c]
            if imp:  # rare before the late tricks: a branch the CPU predicts
                for r in range(3):
                    index[_ROWS + n] = row + N_PLACES + r
                    n += (imp >> r) & 1
        suit_units(feats, at, role, index, n)
    # the globals' layer (the one-hot inputs as rows, the others weighted)
    kind = 0 if strain < STRAIN_NT else strain - STRAIN_NT + 1
    winning = (wp - n_trick) & 3 if n_trick > 0 else 0
    g_taker = 3 + ((taker - seat) & 3)
    g_trick = 11 + min(trick_no, 7)
    raise_over = np.float32(rules[R_RAISE_OVER_PARTNER])
    undertrump = np.float32(rules[R_UNDERTRUMP])
    x_mine = np.float32(mine / 100.0)
    x_theirs = np.float32(theirs / 100.0)
    x_table = np.float32(trick_pts / 50.0)
    for g in range(HG):
        v = (
            SN_BG[g] + SN_WG[kind, g] + SN_WG[g_taker, g] + SN_WG[7 + n_trick, g]
            + SN_WG[g_trick, g] + SN_WG[21 + winning, g] + raise_over * SN_WG[19, g]
            + undertrump * SN_WG[20, g] + x_mine * SN_WG[25, g] + x_theirs * SN_WG[26, g]
            + x_table * SN_WG[27, g]
        )  # fmt: skip
        feats[_GH + g] = max(v, ZERO)
    # the part of every card's hidden layer that is the decision's
    for h in range(H2):
        feats[_BASE + h] = SN_B2[h]
    add_rows(feats, _BASE, WB_PAD, index, active_units(feats, _CTX, HS, index))
    # the globals' units as a list of rows too: about half of them are 0, and a dense
    # loop here cost ~0.8 µs a decision when H2 was 32 (a code generation accident)
    add_rows(feats, _BASE, WC_PAD, index, active_units(feats, _GH, HG, index))
    # the part of each suit of a legal card, then each legal card's score
    suits = 0
    m = legal
    while m:
        suits |= 1 << (lowest_card(m) >> 3)
        m &= m - 1
    for s in range(4):
        if (suits >> s) & 1:
            at = _PROJ + s * H2
            for h in range(H2):
                feats[at + h] = feats[_BASE + h]
            add_rows(feats, at, WA_PAD, index, active_units(feats, _U + s * HS, HS, index))
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        at = _PROJ + (c >> 3) * H2
        k = suit_role(c >> 3, strain) * 8 + (c & 7)
        score = ZERO
        for h in range(H2):
            score += max(feats[at + h] + SN_WK[k, h], ZERO) * SN_WO[h]
        feats[_SCORES + c] = score
    return _SCORES


@lean_kernel(inline="always")
def suit_net_card(
    hand, plays, n_played, first_leader, strain, taker, rules, known, forbidden, seat,
    n_trick, wp, legal, feats, index,
):  # fmt: skip
    """The legal card of the highest ``suit_net_scores`` (ties, which a float score
    almost never has: the cheapest card, then the lowest in the strain's order, as
    ``expert_model.model_card``)."""
    at = suit_net_scores(
        hand, plays, n_played, first_leader, strain, taker, rules, known, forbidden, seat,
        n_trick, wp, legal, feats, index,
    )  # fmt: skip
    best = -1
    best_score = 0.0
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        score = np.float64(feats[at + c]) - 1e-6 * (
            CARD_POINTS[strain, c] * 32 + WIN_KEY[strain, c]
        )
        if best < 0 or score > best_score:
            best = c
            best_score = score
    return best


__all__ = [
    "H2",
    "HG",
    "HS",
    "N_FACTS",
    "N_GLOBALS",
    "N_PLACES",
    "N_ROLES",
    "PLACE_ANNOUNCED",
    "PLACE_HAND",
    "PLACE_PLAYED",
    "PLACE_TABLE",
    "PLACE_UNKNOWN",
    "SUIT_BASE",
    "SUIT_NET_INDEXES",
    "SUIT_NET_SCRATCH",
    "WA_PAD",
    "WB_PAD",
    "WC_PAD",
    "WS_PAD",
    "active_units",
    "add_rows",
    "card_places",
    "pad_list",
    "suit_net_card",
    "suit_net_scores",
    "suit_role",
    "suit_units",
]
