"""Exact double-dummy solver: card points of a Belote deal under perfect play.

The value of a position is the number of card points (last-trick 10 included) that
the *maximising* team (the taker's team) wins from here on -- the cards of the
trick in progress included -- when all four hands are visible and both teams play
perfectly under the play rules of RULES.md section 5 (``raise_over_partner`` and
``undertrump`` are kernel arguments).  Declarations and belote are fixed by the
deal and do not depend on the play, so they are not part of the search (the one
exception, ``belote_on_discard`` off, where a K/Q of a belote played as a discard
forfeits it, is ignored: the solver optimises card points only).

Algorithm
---------
* **Bitboards.**  A hand is a 32-bit mask (``card = 8 * suit + rank``); legal cards
  come from ``core.legal_mask``, trick winners from ``core.beats`` (``BEATS_MASK``:
  every card that beats a given one); bit counts are one ``popcnt``
  (``llvm.ctpop``), table lines are prefetched (``llvm.prefetch``).
* **Alpha-beta, fail-soft, iterative.**  The search (``_search``) is one loop over an
  explicit stack of frames (``ws[ply, field]``, ``moves[ply, :]``, preallocated; no
  allocation in the loop): numba's on-disk cache does not reload recursive
  functions safely.  Values are absolute (points banked for the maximising team
  since the root plus the points still to come), so the window ``(alpha, beta)``
  passes down unchanged; a seat of the maximising team raises ``alpha``, the other
  team lowers ``beta``.  Nodes are single cards (4 plies per trick).
* **Principal-variation search.**  The first card of a node is searched with the
  node's window, every other one with a null window around the best value so far
  and searched again with the full window only when it may be better.  The root is
  one full-window search (``solve_position`` mode 0); MTD(f) and bisection drivers
  made of null-window tests are kept as modes 1 and 2 (same values, slower here).
* **Transposition table.**  An ``(N, 3)`` int64 array of 2-way buckets (first way
  kept for the larger endgame of the current search, second way always replaced),
  probed at trick boundaries.  The key is the complete position -- the four hands in
  two words ``h0 | h1 << 32`` and ``h2 | h3 << 32`` -- plus the leader, strain,
  maximising team and both play options (low 10 bits of the data word), all
  checked, so there are no false hits: entries stay valid across searches, deals
  and rulesets and the table is never cleared.  Before packing, the zero-point cards
  of each suit (see below) are renumbered onto the lowest ranks (only their order
  matters; one ``PACK`` lookup per hand and suit), so transposed positions that
  differ only in which 7/8/9 went share an entry.  The data word holds a lower and
  an upper bound on the points still to come (bounds of several searches are
  intersected) and the best card (tried first).  Default size ``2**TT_BITS`` =
  65,536 entries (1.5 MB): a full deal stores some 10^4 positions, and a table much
  larger than the caches makes every probe wait on memory (``2**20`` entries was
  about 10% slower per node).
* **Move ordering** (``_order_moves``, inlined).  Leader: sure tricks first (no
  opponent holds a higher card of the suit or can ruff it), most points first, then
  a low card to partner's sure winner (in every strain: after the sure tricks, NT
  searches some 13% fewer nodes than with it before them); then the rest, cheapest
  and lowest first, short suits first.
  Second and third hand: a winning card the next player cannot beat (most points
  first); with partner winning safely, throw points; else the cheapest card.
  Fourth hand: win or throw points on partner's trick, else the cheapest card.
  What depends only on the suit or the trick is worked out once per node.  When the
  table has a best card it is tried before the others are even scored; else a
  leader tries first the "killer" lead, the last card that cut off a lead with as
  many cards in hand (``ws[MAX_PLY, 3 + cards]``, card + 1; kept across searches:
  ordering only).
* **Equivalent cards.**  Two cards of one suit in one hand are interchangeable when
  no other card still in play (other hands and the trick in progress) lies between
  them in that suit's order *and* their points are equal.  Card points of Belote
  differ for almost every rank, so this merges exactly the zero-point ranks at the
  bottom of a suit: 7 8 9 of a plain suit (the lowest three of the plain order) and
  7 8 of a trump suit (the lowest two of the trump order).  One card of each group
  is searched.
* **Dominated cards.**  More generally, a run of the mover's cards of one suit with
  no card of another hand between them in the suit's order have the same power for
  the rest of the deal once the current trick is over (its cards leave with it);
  those of them with the same effect on the current trick (all beat the card now
  winning, or none does) are interchangeable in it too: swapping two of them maps
  every line of play to one with the same trick winners, and only the two cards'
  points trade places.  So when the team that wins the current trick is known
  whichever of them is played (nobody still to play on the other side can beat the
  card that will be winning: the next player by his legal cards, later ones by
  their led-suit cards or else their trumps), the most points go on the mover's own
  trick or the least on the opponents' -- never worse for the mover's team,
  whoever wins the trick where the other card falls later -- and only that card is
  searched (``_reduce_dominated``; every seat, the leader included).  This more
  than halves the tree.
* **Cheap bounds** (at trick boundaries, before the table probe, which is only made
  when they do not cut; the table slot is prefetched first so that its cache line
  loads while they are computed):
  ``[acc, acc + rem]`` (points banked for the maximising team, points unbanked);
  in a suit contract the top trumps held by one team, whose points that team is
  sure to bank (``_sure_trumps``); the leader's "quick points": his runs of top
  cards in each suit that win a trick each -- in a suit contract a side suit only
  while every opponent with trumps still follows -- with the cheapest cards the
  others must follow with, then one low lead to a card of partner's above both
  opponents' cards that they cannot ruff (``_quick_points``).  Both work on suit
  bytes renumbered in strength order (``STRENGTH_BYTE``), where a run of top cards
  is the bits above the other side's highest one (``ABOVE``) and its points one
  lookup (``SUM_POINTS``).  A node whose bounds fall outside the window is cut at once.
* **No calls in the hot loop.**  The helpers of a node (``_reduce_equivalent``,
  ``_reduce_dominated``, ``_quick_points``, ``_tt_keys``, ``_order_moves``) are
  inlined by numba (``inline="always"``), and the table lookup is written out in
  ``_search``: a call that passes the table would take a reference to it (two
  atomic operations per probe).  ``_two_tricks`` stays a call (inlining it did not
  help).
* **Endgame.**  The last trick is played out directly, the last two by a
  fail-soft alpha-beta over the at most 16 ways to play the first of them, with the
  node's window (``_two_tricks``).
"""

import numpy as np

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import lowest_card, popcount  # noqa: F401 (re-exported)
from belote_sim.kernels.bits import prefetch as _prefetch
from belote_sim.kernels.core import advance_trick, beats, legal_mask, trick_state
from belote_sim.kernels.dealing import shuffle_deal
from belote_sim.kernels.rng import next_random, random_below, seed_state
from belote_sim.kernels.tables import (
    CARD_POINTS,
    LAST_TRICK_BONUS,
    HIGHER_PLAIN_BYTE,
    HIGHER_TRUMP_BYTE,
    PLAIN_STRENGTH,
    STRAIN_AT,
    STRAIN_NT,
    WIN_KEY,
)

#: Stack depth: 32 cards + 1.
MAX_PLY = 34
#: Default transposition-table size (log2 of the number of entries).
TT_BITS = 16
INF = 1 << 20



# Frame fields of the search stack ws[ply, field]; row MAX_PLY holds the table generation
# (1), the node counter (2) and the killer leads (3 + cards in hand).
F_LEAD, F_N, F_LED, F_WC, F_WP, F_TP, F_TM, F_ACC, F_REM, F_A, F_B, F_BEST, F_BC, F_I, \
    F_CNT, F_CARD, F_SLOT, F_A0, F_B0, F_K0, F_K1, F_NULL, F_RS, F_LAZY = range(24)
NUM_FIELDS = 24

HASH_M0 = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64
HASH_M1 = -4417276706812531889  # 0xC2B2AE3D27D4EB4F as int64


def new_tt(bits=TT_BITS):
    """An empty transposition table with ``2**bits`` entries (plain numpy)."""
    return np.zeros((1 << bits, 3), dtype=np.int64)


def new_workspace():
    """Search stack buffers ``(ws, moves)`` (plain numpy)."""
    return np.zeros((MAX_PLY + 1, NUM_FIELDS), dtype=np.int64), np.zeros((MAX_PLY, 16),
                                                                          dtype=np.int64)


@kernel
def _is_trump_suit(suit, strain):
    return strain == STRAIN_AT or suit == strain


@kernel
def _higher_byte(rank, trump_suit):
    if trump_suit:
        return HIGHER_TRUMP_BYTE[rank]
    return HIGHER_PLAIN_BYTE[rank]


def _zero_masks():
    out = np.zeros(6, dtype=np.int64)
    for strain in range(6):
        for suit in range(4):
            trump = strain == 5 or suit == strain
            out[strain] |= (0x3 if trump else 0x7) << (8 * suit)
    return out


#: ZERO_MASK[strain]: the zero-point cards (7 8 9 plain, 7 8 trump) of every suit.
ZERO_MASK = _zero_masks()


@kernel(inline="always")
def _reduce_equivalent(legal, others, strain):
    """Drop all but one card of each group of equivalent zero-point cards."""
    z = legal & ZERO_MASK[strain]
    if z & (z - 1) == 0:
        return legal
    out = legal
    for suit in range(4):
        zero = 0x3 if _is_trump_suit(suit, strain) else 0x7
        shift = 8 * suit
        mine = (legal >> shift) & zero
        if mine & (mine - 1) == 0:
            continue
        oth = (others >> shift) & zero
        prev = -1
        for r in range(3):
            if (mine >> r) & 1:
                if prev >= 0:
                    between = ((1 << r) - 1) & ~((1 << (prev + 1)) - 1)
                    if oth & between == 0:
                        out &= ~(1 << (shift + r))
                prev = r
    return out


@kernel
def _keep_one(g, ours, strain):
    """The card of ``g`` with the most points (``ours``) or the least."""
    keep = lowest_card(g)
    kp = CARD_POINTS[strain, keep]
    m = g & (g - 1)
    while m:
        x = lowest_card(m)
        m &= m - 1
        px = CARD_POINTS[strain, x]
        if (ours and px > kp) or (not ours and px < kp):
            keep = x
            kp = px
    return keep


def _strength_bytes():
    """STRENGTH_BYTE[kind, byte]: a suit byte with its ranks renumbered by strength
    (bit k: the card of strength k; kind 0: plain order, 1: trump order), and
    RANK_BYTE[kind, .]: the inverse."""
    from belote_sim.kernels.tables import TRUMP_STRENGTH
    fwd = np.zeros((2, 256), dtype=np.int64)
    inv = np.zeros((2, 256), dtype=np.int64)
    for kind, strength in enumerate((PLAIN_STRENGTH, TRUMP_STRENGTH)):
        for byte in range(256):
            for r in range(8):
                if (byte >> r) & 1:
                    fwd[kind, byte] |= 1 << int(strength[r])
            inv[kind, fwd[kind, byte]] = byte
    return fwd, inv


STRENGTH_BYTE, RANK_BYTE = _strength_bytes()


@kernel(inline="always")
def _reduce_dominated(cand, ohands, hands, seat, n, led, wc, wp, strain, raise_op,
                      undertrump):
    """Drop the cards dominated by a card of equal power.

    A run of the mover's cards of one suit with no card of another hand between them
    in the suit's order have the same power for the rest of the deal once the
    current trick is over; if they also have the same effect on the current trick
    (all beat the card now winning, or none does) they are interchangeable in it as
    well: swapping two of them maps every line of play to one with the same trick
    winners, only the points of the two cards trade places.  When the team that wins
    the current trick is already known whichever of them is played -- no player
    still to play on the other side can beat the card that will be winning (the next
    player by his legal cards, the later ones by the cards they could beat with:
    their led-suit cards, or else their trumps) -- the mover's team does at least as
    well by putting the most points on its own trick and the least on the
    opponents', whoever wins the trick where the other card falls later.  One card
    of each such group is kept.  ``ohands``: the cards of the other three hands.
    """
    out = cand
    suit_contract = strain < STRAIN_NT
    wmask = BEATS_MASK[strain, led, wc] if n > 0 else 0
    for suit in range(4):
        shift = 8 * suit
        mine = (cand >> shift) & 0xFF
        if mine & (mine - 1) == 0:
            continue
        kind = 1 if _is_trump_suit(suit, strain) else 0
        ms = STRENGTH_BYTE[kind, mine]
        os = STRENGTH_BYTE[kind, (ohands >> shift) & 0xFF]
        while ms:
            # the run from the lowest of the cards left up to the next card of another
            # hand above it (suit bytes in strength order)
            low = ms & -ms
            above = os & ~((low << 1) - 1)
            seg = ms & ((above & -above) - 1) if above else ms
            ms &= ~seg
            if seg & (seg - 1) == 0:
                continue
            run = RANK_BYTE[kind, seg] << shift
            for part in range(2):
                if n == 0:
                    g = run if part == 0 else 0
                else:
                    g = run & wmask if part == 0 else run & ~wmask
                if g & (g - 1) == 0:
                    continue
                c = lowest_card(g)
                if n == 0:
                    lsuit = suit
                    w = c
                    wpos = 0
                    ours = True
                elif part == 0:
                    lsuit = led
                    w = c
                    wpos = n
                    ours = True
                else:
                    lsuit = led
                    w = wc
                    wpos = wp
                    ours = n >= 2 and wp == n - 2
                higher = BEATS_MASK[strain, lsuit, w]
                known = True
                for k in range(n + 1, 4):
                    if ((k - n) & 1 == 0) == ours:
                        continue  # a player on the winning side
                    hp = hands[(seat + k - n) & 3]
                    if k == n + 1:
                        can = legal_mask(hp, lsuit, k, w, wpos, strain, raise_op, undertrump)
                    else:
                        can = hp & (0xFF << (8 * lsuit))
                        if can == 0:
                            can = hp & (0xFF << (8 * strain)) if suit_contract else 0
                    if can & higher:
                        known = False
                        break
                if known:
                    out &= ~g | (1 << _keep_one(g, ours, strain))
    return out


def _top_ranks():
    """TOP_RANK[kind, byte]: rank of the strongest card of a suit byte (kind 0: plain
    order, 1: trump order), -1 for an empty byte."""
    from belote_sim.kernels.tables import TRUMP_STRENGTH
    out = np.full((2, 256), -1, dtype=np.int64)
    for kind, strength in enumerate((PLAIN_STRENGTH, TRUMP_STRENGTH)):
        for byte in range(1, 256):
            out[kind, byte] = max((r for r in range(8) if (byte >> r) & 1),
                                  key=lambda r: strength[r])
    return out


TOP_RANK = _top_ranks()


def _beats_masks():
    """BEATS_MASK[strain, led, card]: the cards that beat ``card`` as the winning card
    of a trick led in ``led`` (``core.beats`` for every card at once)."""
    out = np.zeros((6, 4, 32), dtype=np.int64)
    for strain in range(6):
        for led in range(4):
            for w in range(32):
                for c in range(32):
                    key = WIN_KEY[strain, c]
                    if (c >> 3) != led and key < 16:
                        continue
                    if key > WIN_KEY[strain, w]:
                        out[strain, led, w] |= 1 << c
    return out


BEATS_MASK = _beats_masks()


@kernel(inline="always")
def _order_moves(cand, hands, seat, n, led, wc, wp, tm, strain, ttbest, moves, sp, start):
    """Write the cards of ``cand`` into ``moves[sp, start:8]`` best first
    (``moves[sp, 8 + start:16]`` holds their scores); returns their number.

    Leader: sure tricks first (no opponent holds a higher card of the suit or can
    ruff it), most points first, then low leads to a sure winner of partner's; then
    the other cards, cheapest and lowest first, short suits first.  Followers: the
    only opponent still to play is the next seat; a card he cannot beat is a sure
    winner (most points first); with partner winning safely, throw points; else
    play the cheapest card.  What depends only on the suit (or the trick) is worked
    out once per call.
    """
    nxt = hands[(seat + 1) & 3]
    suit_contract = strain < STRAIN_NT
    ts = 8 * strain
    # per suit (leader): whether an opponent can ruff it, the opponents' byte, the
    # base score of a low lead and the key of partner's sure top card (-1: none)
    ruff0 = ruff1 = ruff2 = ruff3 = 0
    ob0 = ob1 = ob2 = ob3 = 0
    lowb0 = lowb1 = lowb2 = lowb3 = 0
    psk0 = psk1 = psk2 = psk3 = -1
    wmask = 0
    avail = 0
    partner = False
    partner_safe = False
    if n == 0:
        prv = hands[(seat + 3) & 3]
        opp = nxt | prv
        nxt_trumps = suit_contract and ((nxt >> ts) & 0xFF) != 0
        prv_trumps = suit_contract and ((prv >> ts) & 0xFF) != 0
        mate = hands[(seat + 2) & 3]
        mine = hands[seat]
        for suit in range(4):
            if (cand >> (8 * suit)) & 0xFF == 0:
                continue
            shift = 8 * suit
            trump_suit = _is_trump_suit(suit, strain)
            ob = (opp >> shift) & 0xFF
            ruff = suit_contract and suit != strain and (
                (nxt_trumps and ((nxt >> shift) & 0xFF) == 0) or
                (prv_trumps and ((prv >> shift) & 0xFF) == 0))
            lowb = 1000 - 20 * popcount((mine >> shift) & 0xFF)
            psk = -1
            pb = (mate >> shift) & 0xFF
            if pb and not ruff:
                top = TOP_RANK[1 if trump_suit else 0, pb]
                if (ob & _higher_byte(top, trump_suit)) == 0:
                    psk = WIN_KEY[strain, shift + top]
            if suit == 0:
                ruff0, ob0, lowb0, psk0 = ruff, ob, lowb, psk
            elif suit == 1:
                ruff1, ob1, lowb1, psk1 = ruff, ob, lowb, psk
            elif suit == 2:
                ruff2, ob2, lowb2, psk2 = ruff, ob, lowb, psk
            else:
                ruff3, ob3, lowb3, psk3 = ruff, ob, lowb, psk
    else:
        # the cards that beat the winning card, and the cards the next seat could
        # beat a card with (his led-suit cards if he has any, else his trumps)
        wmask = BEATS_MASK[strain, led, wc]
        follow = (nxt >> (8 * led)) & 0xFF
        if follow:
            avail = follow << (8 * led)
        elif suit_contract:
            avail = nxt & (0xFF << ts)
        partner = n >= 2 and wp == n - 2
        if n == 2 and wp == 0:
            partner_safe = (wmask & avail) == 0
    cnt = 0
    m = cand
    while m:
        c = lowest_card(m)
        m &= m - 1
        pts = CARD_POINTS[strain, c]
        key = WIN_KEY[strain, c]
        if c == ttbest:
            sc = 1 << 20
        elif n == 0:
            suit = c >> 3
            if suit == 0:
                ruff, ob, lowb, psk = ruff0, ob0, lowb0, psk0
            elif suit == 1:
                ruff, ob, lowb, psk = ruff1, ob1, lowb1, psk1
            elif suit == 2:
                ruff, ob, lowb, psk = ruff2, ob2, lowb2, psk2
            else:
                ruff, ob, lowb, psk = ruff3, ob3, lowb3, psk3
            if not ruff and (ob & _higher_byte(c & 7, _is_trump_suit(suit, strain))) == 0:
                sc = 3000 + pts  # sure trick: cash it
            elif psk > key:
                # a low card to partner's sure winner, after the sure tricks
                sc = 2000 - pts - key
            else:
                sc = lowb - pts - key
        else:
            wins = (wmask >> c) & 1
            if n == 3:
                if wins or partner:
                    sc = 2000 + pts - (key if wins and partner else 0)
                else:
                    sc = 1000 - pts - key
            elif partner and partner_safe:
                sc = 2000 + pts - (key if wins else 0)
            elif wins:
                if (BEATS_MASK[strain, led, c] & avail) == 0:
                    sc = 2500 + pts - key
                else:
                    sc = 1500 - pts + key
            else:
                sc = 1000 - pts - key
        # insertion
        j = start + cnt
        while j > start and moves[sp, 8 + j - 1] < sc:
            moves[sp, 8 + j] = moves[sp, 8 + j - 1]
            moves[sp, j] = moves[sp, j - 1]
            j -= 1
        moves[sp, 8 + j] = sc
        moves[sp, j] = c
        cnt += 1
    return cnt


@kernel
def _meta(leader, strain, max_team, raise_op, undertrump):
    return (1 << 9) | leader | (strain << 2) | (max_team << 5) | (raise_op << 6) | \
        (undertrump << 7)


#: Trump ranks from the highest down: J 9 A T K Q 8 7.
TRUMP_RANKS_DESC = np.array([4, 2, 7, 3, 6, 5, 1, 0], dtype=np.int64)


def _run_tables():
    """ABOVE[sbyte]: the bits of a strength byte above its highest bit (all 8 for an
    empty byte); SUM_POINTS[kind, byte]: points of the cards of a suit byte (kind 0:
    plain points, 1: trump points)."""
    from belote_sim.kernels.tables import PLAIN_POINTS, TRUMP_POINTS
    above = np.zeros(256, dtype=np.int64)
    for b in range(256):
        above[b] = 0xFF & ~((2 << (b.bit_length() - 1)) - 1) if b else 0xFF
    sums = np.zeros((2, 256), dtype=np.int64)
    for kind, pts in enumerate((PLAIN_POINTS, TRUMP_POINTS)):
        for b in range(256):
            sums[kind, b] = sum(int(pts[r]) for r in range(8) if (b >> r) & 1)
    return above, sums


ABOVE, SUM_POINTS = _run_tables()


@kernel
def _sure_trumps(hands, strain):
    """(team, points) of the top trump sequence held by one team (suit contracts).

    Every trump higher than all of the other team's trumps wins its trick or falls
    in a trick won by a higher trump of the same team, so that team surely banks
    these cards' points.  Returns (-1, 0) when no trump is left.  (Suit bytes in
    strength order: the team holding the strongest trump has the larger byte.)
    """
    shift = 8 * strain
    t0 = STRENGTH_BYTE[1, ((hands[0] | hands[2]) >> shift) & 0xFF]
    t1 = STRENGTH_BYTE[1, ((hands[1] | hands[3]) >> shift) & 0xFF]
    if t0 > t1:
        return 0, SUM_POINTS[1, RANK_BYTE[1, t0 & ABOVE[t1]]]
    if t1 > t0:
        return 1, SUM_POINTS[1, RANK_BYTE[1, t1 & ABOVE[t0]]]
    return -1, 0


#: Plain ranks from the highest down: A T K Q J 9 8 7.
PLAIN_RANKS_DESC = np.array([7, 3, 6, 5, 4, 2, 1, 0], dtype=np.int64)


def _cheap_sums():
    """CHEAP_SUM[kind, byte, k]: points of the k cheapest cards of a suit byte
    (kind 0: plain points, 1: trump points)."""
    from belote_sim.kernels.tables import PLAIN_POINTS, TRUMP_POINTS
    out = np.zeros((2, 256, 9), dtype=np.int64)
    for kind, pts in enumerate((PLAIN_POINTS, TRUMP_POINTS)):
        for byte in range(256):
            vals = sorted(int(pts[r]) for r in range(8) if (byte >> r) & 1)
            for k in range(1, len(vals) + 1):
                out[kind, byte, k] = out[kind, byte, k - 1] + vals[k - 1]
    return out


CHEAP_SUM = _cheap_sums()


@kernel(inline="always")
def _quick_points(hands, leader, strain):
    """Points the leader's team surely wins by cashing the leader's top cards.

    In each suit the leader's run of highest remaining cards wins one trick each
    (in a suit contract a side suit only while every opponent holding trumps still
    follows suit); every card the others play in those tricks goes to the leader's
    team, at least the cheapest ``min(length, rounds)`` cards of each player's
    holding in the suit.  Then one more trick: a low lead (his cheapest card) in a
    suit where he has no such run to partner's card above both opponents' cards (in a
    suit contract only in trumps or when no opponent has a trump), with the cheapest
    card of each opponent; the best such suit.  Partner keeps that card while the
    leader cashes (he has more cards than the tricks cashed), and the opponents'
    cards are counted once each (a card they discard goes to the leader's team too).
    Plus the last-trick 10 if these are all the tricks left.
    """
    lh = hands[leader]
    allc = hands[0] | hands[1] | hands[2] | hands[3]
    o1 = hands[(leader + 1) & 3]
    o2 = hands[(leader + 3) & 3]
    suit_contract = strain < STRAIN_NT
    ts = 8 * strain
    o1_trumps = suit_contract and ((o1 >> ts) & 0xFF) != 0
    o2_trumps = suit_contract and ((o2 >> ts) & 0xFF) != 0
    total = 0
    rounds_all = 0
    entry = 0
    for suit in range(4):
        shift = 8 * suit
        mine = (lh >> shift) & 0xFF
        if mine == 0:
            continue
        kind = 1 if _is_trump_suit(suit, strain) else 0
        rest = ((allc & ~lh) >> shift) & 0xFF
        # the leader's cards above every other card of the suit (strength order)
        run = STRENGTH_BYTE[kind, mine] & ABOVE[STRENGTH_BYTE[kind, rest]]
        if run == 0:
            if not suit_contract or suit == strain or not (o1_trumps or o2_trumps):
                # a low lead to partner's card above both opponents' cards (that no
                # opponent can ruff)
                pb = (hands[(leader + 2) & 3] >> shift) & 0xFF
                b1 = (o1 >> shift) & 0xFF
                b2 = (o2 >> shift) & 0xFF
                if STRENGTH_BYTE[kind, pb] > STRENGTH_BYTE[kind, b1 | b2]:
                    x = SUM_POINTS[kind, 1 << TOP_RANK[kind, pb]] + CHEAP_SUM[kind, mine, 1] + \
                        CHEAP_SUM[kind, b1, 1] + CHEAP_SUM[kind, b2, 1]
                    if x > entry:
                        entry = x
            continue
        rounds = popcount(run)
        if suit_contract and suit != strain:
            if o1_trumps:
                x = popcount((o1 >> shift) & 0xFF)
                if x < rounds:
                    rounds = x
            if o2_trumps:
                x = popcount((o2 >> shift) & 0xFF)
                if x < rounds:
                    rounds = x
            if rounds == 0:
                continue
            # the leader's points for the safe rounds only: his strongest cards
            for _ in range(popcount(run) - rounds):
                run &= run - 1
        pts = SUM_POINTS[kind, RANK_BYTE[kind, run]]
        for p in range(1, 4):
            b = (hands[(leader + p) & 3] >> shift) & 0xFF
            x = popcount(b)
            pts += CHEAP_SUM[kind, b, x if x < rounds else rounds]
        total += pts
        rounds_all += rounds
    if entry > 0:
        total += entry
        rounds_all += 1
    if rounds_all == popcount(lh):
        total += LAST_TRICK_BONUS
    return total


@kernel
def _two_tricks(hands, lead, strain, max_team, raise_op, undertrump, alpha, beta):
    """Points ``max_team`` wins in the last two tricks (two cards per hand): a
    fail-soft alpha-beta over the at most 16 ways to play the first of them (exact
    when inside ``(alpha, beta)``, else a bound on the failing side).  The last
    trick is forced: only its winner is worked out (the highest key among the
    led suit and the trumps); it gets every point the first trick leaves."""
    s1 = (lead + 1) & 3
    s2 = (lead + 2) & 3
    s3 = (lead + 3) & 3
    g0 = hands[lead]
    g1 = hands[s1]
    g2 = hands[s2]
    g3 = hands[s3]
    max0 = (lead & 1) == max_team
    # all the points of the two tricks: the last one gets what the first leaves
    tot = LAST_TRICK_BONUS
    m = g0 | g1 | g2 | g3
    while m:
        tot += CARD_POINTS[strain, lowest_card(m)]
        m &= m - 1
    a0 = alpha
    bt0 = beta
    b0 = -INF if max0 else INF
    m0 = g0
    while m0:
        c0 = lowest_card(m0)
        m0 &= m0 - 1
        led = c0 >> 3
        p0 = CARD_POINTS[strain, c0]
        a1 = a0
        bt1 = bt0
        b1 = INF if max0 else -INF
        m1 = legal_mask(g1, led, 1, c0, 0, strain, raise_op, undertrump)
        while m1:
            c1 = lowest_card(m1)
            m1 &= m1 - 1
            p1 = p0 + CARD_POINTS[strain, c1]
            wc1 = c0
            wp1 = 0
            if beats(c1, c0, led, strain):
                wc1 = c1
                wp1 = 1
            a2 = a1
            bt2 = bt1
            b2 = -INF if max0 else INF
            m2 = legal_mask(g2, led, 2, wc1, wp1, strain, raise_op, undertrump)
            while m2:
                c2 = lowest_card(m2)
                m2 &= m2 - 1
                p2 = p1 + CARD_POINTS[strain, c2]
                wc2 = wc1
                wp2 = wp1
                if beats(c2, wc1, led, strain):
                    wc2 = c2
                    wp2 = 2
                b3 = INF if max0 else -INF
                m3 = legal_mask(g3, led, 3, wc2, wp2, strain, raise_op, undertrump)
                while m3:
                    c3 = lowest_card(m3)
                    m3 &= m3 - 1
                    p3 = p2 + CARD_POINTS[strain, c3]
                    wp3 = wp2
                    if beats(c3, wc2, led, strain):
                        wp3 = 3
                    w = (lead + wp3) & 3
                    v = p3 if (w & 1) == max_team else 0
                    # the last trick, led by w: its winner has the highest key among
                    # the cards of the led suit and the trumps (keys >= 16)
                    x0 = lowest_card(g0 & ~(1 << c0))
                    x1 = lowest_card(g1 & ~(1 << c1))
                    x2 = lowest_card(g2 & ~(1 << c2))
                    x3 = lowest_card(g3 & ~(1 << c3))
                    if wp3 == 0:
                        led2 = x0 >> 3
                    elif wp3 == 1:
                        led2 = x1 >> 3
                    elif wp3 == 2:
                        led2 = x2 >> 3
                    else:
                        led2 = x3 >> 3
                    kb = WIN_KEY[strain, x0]
                    if (x0 >> 3) != led2 and kb < 16:
                        kb = -1
                    lw = 0
                    k = WIN_KEY[strain, x1]
                    if ((x1 >> 3) == led2 or k >= 16) and k > kb:
                        kb = k
                        lw = 1
                    k = WIN_KEY[strain, x2]
                    if ((x2 >> 3) == led2 or k >= 16) and k > kb:
                        kb = k
                        lw = 2
                    k = WIN_KEY[strain, x3]
                    if ((x3 >> 3) == led2 or k >= 16) and k > kb:
                        lw = 3
                    if ((lead + lw) & 1) == max_team:
                        v += tot - p3
                    if max0:  # seat 3 minimises
                        if v < b3:
                            b3 = v
                            if v <= a2:
                                break
                    elif v > b3:
                        b3 = v
                        if v >= bt2:
                            break
                if max0:  # seat 2 maximises
                    if b3 > b2:
                        b2 = b3
                        if b2 > a2:
                            a2 = b2
                            if a2 >= bt2:
                                break
                elif b3 < b2:
                    b2 = b3
                    if b2 < bt2:
                        bt2 = b2
                        if a2 >= bt2:
                            break
            if max0:  # seat 1 minimises
                if b2 < b1:
                    b1 = b2
                    if b1 < bt1:
                        bt1 = b1
                        if a1 >= bt1:
                            break
            elif b2 > b1:
                b1 = b2
                if b1 > a1:
                    a1 = b1
                    if a1 >= bt1:
                        break
        if max0:
            if b1 > b0:
                b0 = b1
                if b0 > a0:
                    a0 = b0
                    if a0 >= bt0:
                        break
        elif b1 < b0:
            b0 = b1
            if b0 < bt0:
                bt0 = b0
                if a0 >= bt0:
                    break
    return b0


def _pack_bits():
    """PACK[z, b]: the bits of ``b`` (a subset of ``z``, 3 bits) moved onto the lowest
    bits, in order (bit j: the j-th set bit of ``z``)."""
    out = np.zeros((8, 8), dtype=np.int64)
    for z in range(8):
        pos = [r for r in range(3) if (z >> r) & 1]
        for b in range(8):
            out[z, b] = sum(1 << j for j, r in enumerate(pos) if (b >> r) & 1)
    return out


PACK = _pack_bits()


@kernel(inline="always")
def _tt_keys(h0, h1, h2, h3, strain):
    """Table key words of a position at a trick boundary.

    The zero-point cards of each suit (7 8 9 plain, 7 8 trump) lie below every other
    card of their suit, so only their order matters: they are renumbered onto the
    lowest ranks (owners and order kept; ``PACK``) before the hands are packed.
    """
    allc = h0 | h1 | h2 | h3
    for suit in range(4):
        shift = 8 * suit
        zero = 0x3 if _is_trump_suit(suit, strain) else 0x7
        z = (allc >> shift) & zero
        if z & (z + 1) == 0:
            continue  # none, or already packed at the bottom
        keep = ~(zero << shift)
        h0 = (h0 & keep) | (PACK[z, (h0 >> shift) & zero] << shift)
        h1 = (h1 & keep) | (PACK[z, (h1 >> shift) & zero] << shift)
        h2 = (h2 & keep) | (PACK[z, (h2 >> shift) & zero] << shift)
        h3 = (h3 & keep) | (PACK[z, (h3 >> shift) & zero] << shift)
    return h0 | (h1 << 32), h2 | (h3 << 32)


@kernel
def _tt_slot(k0, k1, meta, tt_mask):
    """First entry of the 2-way bucket of a position."""
    hh = k0 * HASH_M0 + k1 * HASH_M1 + meta
    hh ^= hh >> 32
    hh *= HASH_M1
    hh ^= hh >> 29
    return hh & tt_mask & ~1


@kernel
def _tt_find(tt, slot, k0, k1, meta):
    """Entry index holding the position, or -1."""
    if tt[slot, 0] == k0 and tt[slot, 1] == k1 and (tt[slot, 2] & 0x3FF) == meta:
        return slot
    if tt[slot + 1, 0] == k0 and tt[slot + 1, 1] == k1 and (tt[slot + 1, 2] & 0x3FF) == meta:
        return slot + 1
    return -1


@kernel
def _search(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
            alpha0, beta0, tt, ws, moves):
    """Fail-soft alpha-beta from a position; returns ``(value, best_card)``.

    ``hands`` (4,) masks of the cards still held (modified during the search and
    restored), ``leader`` the seat that led the trick in progress, ``trick`` its
    first ``n_trick`` cards.  ``value`` is the points (last-trick 10 included) of
    the remaining tricks -- trick in progress included -- won by ``max_team``,
    exact if inside ``(alpha0, beta0)``, else a bound on the failing side.
    ``best_card`` is the root's best card (-1 if the root was cut without search).
    """
    tt_mask = tt.shape[0] - 1
    gen = ws[MAX_PLY, 1] & 0x7
    led, wc, wp = trick_state(trick, n_trick, strain)
    tp = 0
    tm = 0
    for i in range(n_trick):
        tp += CARD_POINTS[strain, trick[i]]
        tm |= 1 << trick[i]
    rem = tp + LAST_TRICK_BONUS
    for s in range(4):
        m = hands[s]
        while m:
            c = lowest_card(m)
            m &= m - 1
            rem += CARD_POINTS[strain, c]
    if n_trick == 0 and hands[0] | hands[1] | hands[2] | hands[3] == 0:
        return 0, -1
    sp = 0
    ws[0, F_LEAD] = leader
    ws[0, F_N] = n_trick
    ws[0, F_LED] = led
    ws[0, F_WC] = wc
    ws[0, F_WP] = wp
    ws[0, F_TP] = tp
    ws[0, F_TM] = tm
    ws[0, F_ACC] = 0
    ws[0, F_REM] = rem
    ws[0, F_A] = alpha0
    ws[0, F_B] = beta0
    entering = True
    ret = 0
    while True:
        if entering:
            ws[MAX_PLY, 2] += 1  # node counter (diagnostics)
            n = ws[sp, F_N]
            lead = ws[sp, F_LEAD]
            seat = (lead + n) & 3
            acc = ws[sp, F_ACC]
            a = ws[sp, F_A]
            b = ws[sp, F_B]
            cut = False
            if acc >= b:
                ret = acc
                cut = True
            elif acc + ws[sp, F_REM] <= a:
                ret = acc + ws[sp, F_REM]
                cut = True
            ttbest = -1
            ws[sp, F_SLOT] = -1
            if not cut and n == 0:
                h = hands[seat]
                if popcount(h) == 2:
                    ret = acc + _two_tricks(hands, lead, strain, max_team, raise_op, undertrump,
                                            a - acc, b - acc)
                    cut = True
                elif h & (h - 1) == 0:
                    # Last trick: every hand holds one card, play is forced.
                    c = h
                    lc = lowest_card(c)
                    wcard = lc
                    wpos = 0
                    pts = CARD_POINTS[strain, lc] + LAST_TRICK_BONUS
                    for pos in range(1, 4):
                        cc = lowest_card(hands[(lead + pos) & 3])
                        pts += CARD_POINTS[strain, cc]
                        if beats(cc, wcard, lc >> 3, strain):
                            wcard = cc
                            wpos = pos
                    ret = acc + (pts if ((lead + wpos) & 1) == max_team else 0)
                    cut = True
                else:
                    # Cheap bounds, then the transposition table if they do not cut.  The
                    # slot is prefetched first: its cache line loads meanwhile.
                    k0, k1 = _tt_keys(hands[0], hands[1], hands[2], hands[3], strain)
                    meta = _meta(lead, strain, max_team, raise_op, undertrump)
                    slot = _tt_slot(k0, k1, meta, tt_mask)
                    _prefetch(tt, slot)
                    lo = acc
                    hi = acc + ws[sp, F_REM]
                    if strain < STRAIN_NT:
                        st, spts = _sure_trumps(hands, strain)
                        if st == max_team:
                            lo += spts
                        else:
                            hi -= spts
                    qp = _quick_points(hands, lead, strain)
                    if (lead & 1) == max_team:
                        if acc + qp > lo:
                            lo = acc + qp
                    elif acc + ws[sp, F_REM] - qp < hi:
                        hi = acc + ws[sp, F_REM] - qp
                    if lo < b and hi > a and lo < hi:
                        ws[sp, F_SLOT] = slot
                        ws[sp, F_K0] = k0
                        ws[sp, F_K1] = k1
                        # (the lookup of _tt_find written out: a call would take a
                        # reference to the table, two atomic operations)
                        e = -1
                        if tt[slot, 0] == k0 and tt[slot, 1] == k1 and \
                                (tt[slot, 2] & 0x3FF) == meta:
                            e = slot
                        elif tt[slot + 1, 0] == k0 and tt[slot + 1, 1] == k1 and \
                                (tt[slot + 1, 2] & 0x3FF) == meta:
                            e = slot + 1
                        if e >= 0:
                            d = tt[e, 2]
                            tlo = ((d >> 16) & 0xFFFF) + acc
                            thi = ((d >> 32) & 0xFFFF) + acc
                            if tlo > lo:
                                lo = tlo
                            if thi < hi:
                                hi = thi
                            ttbest = ((d >> 48) & 0xFF) - 1
                    if lo >= b:
                        ret = lo
                        cut = True
                    elif hi <= a:
                        ret = hi
                        cut = True
                    elif lo >= hi:
                        ret = lo
                        cut = True
                    else:
                        if lo > a:
                            a = lo
                            ws[sp, F_A] = a
                        if hi < b:
                            b = hi
                            ws[sp, F_B] = b
            if cut:
                if sp == 0:
                    return ret, -1
                sp -= 1
                entering = False
                continue
            legal = legal_mask(hands[seat], ws[sp, F_LED], n, ws[sp, F_WC], ws[sp, F_WP],
                               strain, raise_op, undertrump)
            others = ((hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]) | ws[sp, F_TM]
            cand = _reduce_equivalent(legal, others, strain)
            if cand & (cand - 1):
                cand = _reduce_dominated(cand, others & ~ws[sp, F_TM], hands, seat, n,
                                         ws[sp, F_LED],
                                         ws[sp, F_WC], ws[sp, F_WP], strain, raise_op,
                                         undertrump)
            ws[sp, F_LAZY] = 0
            if cand & (cand - 1) == 0:
                moves[sp, 0] = lowest_card(cand)
                ws[sp, F_CNT] = 1
            elif ttbest >= 0 and (cand >> ttbest) & 1:
                # the table's card first; order the others only if it does not cut
                moves[sp, 0] = ttbest
                ws[sp, F_CNT] = 1
                ws[sp, F_LAZY] = cand & ~(1 << ttbest)
            else:
                ws[sp, F_CNT] = _order_moves(cand, hands, seat, n, ws[sp, F_LED], ws[sp, F_WC],
                                             ws[sp, F_WP], ws[sp, F_TM], strain,
                                             ws[MAX_PLY, 3 + popcount(hands[seat])] - 1
                                             if n == 0 else -1,
                                             moves, sp, 0)
            ws[sp, F_I] = 0
            ws[sp, F_A0] = a
            ws[sp, F_B0] = b
            ws[sp, F_BEST] = -INF if (seat & 1) == max_team else INF
            ws[sp, F_BC] = -1
            ws[sp, F_RS] = 0
        else:
            n = ws[sp, F_N]
            seat = (ws[sp, F_LEAD] + n) & 3
            card = ws[sp, F_CARD]
            hands[seat] |= 1 << card
            if ws[sp, F_NULL] and ws[sp, F_A] < ret < ws[sp, F_B]:
                # PVS: the null-window test says this card may beat the best: re-search
                ws[sp, F_I] -= 1
                ws[sp, F_RS] = 1
            elif (seat & 1) == max_team:
                if ret > ws[sp, F_BEST]:
                    ws[sp, F_BEST] = ret
                    ws[sp, F_BC] = card
                    if ret > ws[sp, F_A]:
                        ws[sp, F_A] = ret
            else:
                if ret < ws[sp, F_BEST]:
                    ws[sp, F_BEST] = ret
                    ws[sp, F_BC] = card
                    if ret < ws[sp, F_B]:
                        ws[sp, F_B] = ret
        # Next move, or the frame is done.
        if ws[sp, F_LAZY] and ws[sp, F_I] == ws[sp, F_CNT] and ws[sp, F_A] < ws[sp, F_B]:
            n = ws[sp, F_N]
            ws[sp, F_CNT] += _order_moves(ws[sp, F_LAZY], hands, (ws[sp, F_LEAD] + n) & 3, n,
                                          ws[sp, F_LED], ws[sp, F_WC], ws[sp, F_WP],
                                          ws[sp, F_TM], strain, -1, moves, sp, ws[sp, F_CNT])
            ws[sp, F_LAZY] = 0
        if ws[sp, F_A] < ws[sp, F_B] and ws[sp, F_I] < ws[sp, F_CNT]:
            n = ws[sp, F_N]
            lead = ws[sp, F_LEAD]
            seat = (lead + n) & 3
            card = moves[sp, ws[sp, F_I]]
            ws[sp, F_I] += 1
            ws[sp, F_CARD] = card
            hands[seat] &= ~(1 << card)
            tp = ws[sp, F_TP] + CARD_POINTS[strain, card]
            if n == 0:
                led = card >> 3
                wc = card
                wp = 0
            else:
                led = ws[sp, F_LED]
                wc = ws[sp, F_WC]
                wp = ws[sp, F_WP]
                if beats(card, wc, led, strain):
                    wc = card
                    wp = n
            c1 = sp + 1
            ca = ws[sp, F_A]
            cb = ws[sp, F_B]
            if ws[sp, F_I] > 1 and cb - ca > 1 and ws[sp, F_RS] == 0:
                ws[sp, F_NULL] = 1
                if (seat & 1) == max_team:
                    cb = ca + 1
                else:
                    ca = cb - 1
            else:
                ws[sp, F_NULL] = 0
            ws[sp, F_RS] = 0
            ws[c1, F_A] = ca
            ws[c1, F_B] = cb
            if n == 3:
                winner = (lead + wp) & 3
                if hands[winner] == 0:
                    tp += LAST_TRICK_BONUS
                acc = ws[sp, F_ACC] + (tp if (winner & 1) == max_team else 0)
                if hands[winner] == 0:
                    ret = acc
                    ws[sp, F_NULL] = 0
                    entering = False
                    continue
                ws[c1, F_LEAD] = winner
                ws[c1, F_N] = 0
                ws[c1, F_LED] = -1
                ws[c1, F_WC] = -1
                ws[c1, F_WP] = -1
                ws[c1, F_TP] = 0
                ws[c1, F_TM] = 0
                ws[c1, F_ACC] = acc
                ws[c1, F_REM] = ws[sp, F_REM] - tp
            else:
                ws[c1, F_LEAD] = lead
                ws[c1, F_N] = n + 1
                ws[c1, F_LED] = led
                ws[c1, F_WC] = wc
                ws[c1, F_WP] = wp
                ws[c1, F_TP] = tp
                ws[c1, F_TM] = ws[sp, F_TM] | (1 << card)
                ws[c1, F_ACC] = ws[sp, F_ACC]
                ws[c1, F_REM] = ws[sp, F_REM]
            sp = c1
            entering = True
            continue
        best = ws[sp, F_BEST]
        if ws[sp, F_N] == 0 and ws[sp, F_A] >= ws[sp, F_B]:
            # killer lead: the card that cut, tried first at the next lead this deep
            ws[MAX_PLY, 3 + popcount(hands[ws[sp, F_LEAD]])] = ws[sp, F_BC] + 1
        slot = ws[sp, F_SLOT]
        if slot >= 0:
            acc = ws[sp, F_ACC]
            rel = best - acc
            lo = 0
            hi = ws[sp, F_REM]
            a = ws[sp, F_A0]
            b = ws[sp, F_B0]
            # best <= a: fail low (upper bound); best >= b: fail high (lower bound).
            if best <= a:
                hi = rel
            elif best >= b:
                lo = rel
            else:
                lo = rel
                hi = rel
            k0 = ws[sp, F_K0]
            k1 = ws[sp, F_K1]
            meta = _meta(ws[sp, F_LEAD], strain, max_team, raise_op, undertrump)
            depth = popcount(hands[ws[sp, F_LEAD]])
            bc = ws[sp, F_BC]
            e = -1  # _tt_find, written out
            if tt[slot, 0] == k0 and tt[slot, 1] == k1 and (tt[slot, 2] & 0x3FF) == meta:
                e = slot
            elif tt[slot + 1, 0] == k0 and tt[slot + 1, 1] == k1 and \
                    (tt[slot + 1, 2] & 0x3FF) == meta:
                e = slot + 1
            if e >= 0:
                d = tt[e, 2]
                olo = (d >> 16) & 0xFFFF
                ohi = (d >> 32) & 0xFFFF
                if olo > lo:
                    lo = olo
                if ohi < hi:
                    hi = ohi
                if best <= a:  # fail low: keep the previous best card
                    bc = ((d >> 48) & 0xFF) - 1
            else:
                # depth-preferred first way, always-replace second way
                e = slot
                d0 = tt[slot, 2]
                if ((d0 >> 56) & 0xF) > depth and ((d0 >> 60) & 0xF) == gen:
                    e = slot + 1
            tt[e, 0] = k0
            tt[e, 1] = k1
            tt[e, 2] = meta | (lo << 16) | (hi << 32) | ((bc + 1) << 48) | (depth << 56) | \
                (gen << 60)
        if sp == 0:
            return best, ws[0, F_BC]
        ret = best
        sp -= 1
        entering = False


@kernel
def remaining_points(hands, trick, n_trick, strain):
    """Points still to be won: cards in hands and in the trick, plus the last-trick 10."""
    total = LAST_TRICK_BONUS
    for i in range(n_trick):
        total += CARD_POINTS[strain, trick[i]]
    for s in range(4):
        m = hands[s]
        while m:
            c = lowest_card(m)
            m &= m - 1
            total += CARD_POINTS[strain, c]
    return total


@kernel
def solve_position(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
                   tt, ws, moves, mode, guess):
    """Exact value of a position (points ``max_team`` wins from here on).

    ``hands`` (4,) masks of the cards still held (restored on return), ``leader``
    the seat that led the trick in progress (or leads next), ``trick`` its first
    ``n_trick`` cards; ``tt``/``ws``/``moves`` from ``new_tt``/``new_workspace``.
    ``mode`` 0: one full-window principal-variation search (the fastest here);
    1: MTD(f) null-window tests from ``guess`` (-1: half the points still to play);
    2: bisection of the value interval with null-window tests.  All modes return
    the same exact value.
    """
    if n_trick == 0 and hands[0] | hands[1] | hands[2] | hands[3] == 0:
        return 0
    ws[MAX_PLY, 1] = (ws[MAX_PLY, 1] + 1) & 0x7
    total = remaining_points(hands, trick, n_trick, strain)
    if mode == 0:
        v, _ = _search(hands, leader, trick, n_trick, strain, max_team, raise_op,
                       undertrump, -1, total + 1, tt, ws, moves)
        return v
    lower = 0
    upper = total
    g = guess if guess >= 0 else total // 2
    while lower < upper:
        if mode == 1:
            beta = g if g > lower else lower + 1
            if beta > upper:
                beta = upper
        else:
            beta = (lower + upper + 1) // 2
        v, _ = _search(hands, leader, trick, n_trick, strain, max_team, raise_op,
                       undertrump, beta - 1, beta, tt, ws, moves)
        if v >= beta:
            lower = v
        else:
            upper = v
        g = v
    return lower


@kernel
def _play_child(hands, leader, trick, n_trick, card, strain, child_trick):
    """Play ``card`` for the player to move: removes it from his hand.

    Returns ``(child_leader, child_n, banked_points, banked_team)``; ``child_trick``
    receives the child's trick.  When the card completes the trick, the child starts
    a new trick led by the winner, who banks ``banked_points`` (the last-trick 10
    included when the hands are then empty).
    """
    seat = (leader + n_trick) & 3
    hands[seat] &= ~(1 << card)
    for i in range(n_trick):
        child_trick[i] = trick[i]
    child_trick[n_trick] = card
    if n_trick < 3:
        return leader, n_trick + 1, 0, -1
    _, _, wp = trick_state(child_trick, 4, strain)
    winner = (leader + wp) & 3
    pts = 0
    for i in range(4):
        pts += CARD_POINTS[strain, child_trick[i]]
    if hands[winner] == 0:
        pts += LAST_TRICK_BONUS
    return winner, 0, pts, winner & 1


@kernel
def legal_of_position(hands, leader, trick, n_trick, strain, raise_op, undertrump):
    """Legal cards of the player to move."""
    led, wc, wp = trick_state(trick, n_trick, strain)
    return legal_mask(hands[(leader + n_trick) & 3], led, n_trick, wc, wp, strain, raise_op,
                      undertrump)


@kernel
def dd_card_values(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
                   tt, ws, moves, out):
    """Exact value (points of ``max_team`` from here, the current trick included) after
    each legal card of the player to move: ``out[card]``, -1 for other cards."""
    legal = legal_of_position(hands, leader, trick, n_trick, strain, raise_op, undertrump)
    seat = (leader + n_trick) & 3
    child_trick = np.zeros(4, dtype=np.int64)
    for c in range(32):
        out[c] = -1
    m = legal
    while m:
        card = lowest_card(m)
        m &= m - 1
        cl, cn, pts, team = _play_child(hands, leader, trick, n_trick, card, strain,
                                        child_trick)
        v = solve_position(hands, cl, child_trick, cn, strain, max_team, raise_op,
                           undertrump, tt, ws, moves, 0, -1)
        out[card] = v + (pts if team == max_team else 0)
        hands[seat] |= 1 << card
    return legal


@kernel
def dd_best_card(hands, leader, trick, n_trick, strain, raise_op, undertrump, tt, ws,
                 moves):
    """Best card of the player to move with all hands visible, and its value.

    Searches for the mover's own team (the value is the points his team wins from
    here on, current trick included).  The first card (by move ordering) is solved
    exactly, every other one by a null-window test "better than the best so far?"
    and solved exactly only when it is.  Ties go to the earlier card in the order.
    Returns ``(card, value)``.
    """
    seat = (leader + n_trick) & 3
    me = seat & 1
    legal = legal_of_position(hands, leader, trick, n_trick, strain, raise_op, undertrump)
    led, wc, wp = trick_state(trick, n_trick, strain)
    tm = 0
    for i in range(n_trick):
        tm |= 1 << trick[i]
    others = ((hands[0] | hands[1] | hands[2] | hands[3]) & ~hands[seat]) | tm
    cand = _reduce_equivalent(legal, others, strain)
    row = np.zeros((1, 16), dtype=np.int64)
    cnt = _order_moves(cand, hands, seat, n_trick, led, wc, wp, tm, strain, -1, row, 0, 0)
    child_trick = np.zeros(4, dtype=np.int64)
    best_card = -1
    best_v = -1
    for i in range(cnt):
        card = row[0, i]
        cl, cn, pts, team = _play_child(hands, leader, trick, n_trick, card, strain,
                                        child_trick)
        bank = pts if team == me else 0
        if best_card < 0:
            v = solve_position(hands, cl, child_trick, cn, strain, me, raise_op, undertrump,
                               tt, ws, moves, 0, -1) + bank
            best_card = card
            best_v = v
        else:
            target = best_v - bank  # is child value > target ?
            if target < 0:  # the points banked alone beat the best so far
                v = solve_position(hands, cl, child_trick, cn, strain, me, raise_op,
                                   undertrump, tt, ws, moves, 0, -1) + bank
                if v > best_v:
                    best_v = v
                    best_card = card
            else:
                t, _ = _search(hands, cl, child_trick, cn, strain, me, raise_op, undertrump,
                               target, target + 1, tt, ws, moves)
                if t > target:
                    v = solve_position(hands, cl, child_trick, cn, strain, me, raise_op,
                                       undertrump, tt, ws, moves, 0, -1) + bank
                    if v > best_v:
                        best_v = v
                        best_card = card
        hands[seat] |= 1 << card
    return best_card, best_v


@kernel
def solve_batch(hands, leaders, tricks, n_tricks, strains, max_teams, raise_op, undertrump,
                tt, mode, out):
    """``solve_position`` over arrays of positions (tests and benchmarks)."""
    ws = np.zeros((MAX_PLY + 1, NUM_FIELDS), dtype=np.int64)
    moves = np.zeros((MAX_PLY, 16), dtype=np.int64)
    h = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[i, s]
        out[i] = solve_position(h, leaders[i], tricks[i], n_tricks[i], strains[i],
                                max_teams[i], raise_op, undertrump, tt, ws, moves, mode, -1)


# --- a deliberately simple reference search (tests) -----------------------------------

@kernel
def simple_search(hands, leader, trick, n_trick, strain, max_team, raise_op, undertrump,
                  prune):
    """Plain minimax (``prune`` 0) or plain alpha-beta (``prune`` 1) over the cards in
    natural order: no transposition table, no move ordering, no equivalent cards, no
    bounds.  Same value as ``solve_position``; for tests only (exponential)."""
    base = n_trick
    plies = 0
    for s in range(4):
        plies += popcount(hands[s])
    if plies == 0:
        return 0
    seq = np.zeros(base + plies + 1, dtype=np.int64)
    for i in range(base):
        seq[i] = trick[i]
    lead_at = np.zeros(plies + 1, dtype=np.int64)
    score = np.zeros(plies + 1, dtype=np.int64)
    todo = np.zeros(plies + 1, dtype=np.int64)
    best = np.zeros(plies + 1, dtype=np.int64)
    alpha = np.zeros(plies + 1, dtype=np.int64)
    beta = np.zeros(plies + 1, dtype=np.int64)
    k = 0
    lead_at[0] = leader
    alpha[0] = -INF
    beta[0] = INF
    while True:
        # set up ply k: legal cards of the mover
        pos = (base + k) % 4
        start = base + k - pos
        seat = (lead_at[k] + pos) & 3
        if pos == 0:
            todo[k] = hands[seat]
        else:
            led = seq[start] >> 3
            wc = seq[start]
            wpos = 0
            for j in range(1, pos):
                if beats(seq[start + j], wc, led, strain):
                    wc = seq[start + j]
                    wpos = j
            todo[k] = legal_mask(hands[seat], led, pos, wc, wpos, strain, raise_op,
                                 undertrump)
        best[k] = -INF if (seat & 1) == max_team else INF
        # iterate children of ply k (and unwind) until a new ply is entered
        while True:
            pos = (base + k) % 4
            start = base + k - pos
            seat = (lead_at[k] + pos) & 3
            done = todo[k] == 0 or (prune and alpha[k] >= beta[k])
            if done:
                v = best[k]
                if k == 0:
                    return v
                k -= 1
                pos = (base + k) % 4
                seat = (lead_at[k] + pos) & 3
                hands[seat] |= 1 << seq[base + k]
                if (seat & 1) == max_team:
                    if v > best[k]:
                        best[k] = v
                    if v > alpha[k]:
                        alpha[k] = v
                else:
                    if v < best[k]:
                        best[k] = v
                    if v < beta[k]:
                        beta[k] = v
                continue
            card = lowest_card(todo[k])
            todo[k] &= todo[k] - 1
            hands[seat] &= ~(1 << card)
            seq[base + k] = card
            sc = score[k]
            nl = lead_at[k]
            if pos == 3:
                led = seq[start] >> 3
                wc = seq[start]
                wpos = 0
                pts = CARD_POINTS[strain, seq[start]]
                for j in range(1, 4):
                    cj = seq[start + j]
                    pts += CARD_POINTS[strain, cj]
                    if beats(cj, wc, led, strain):
                        wc = cj
                        wpos = j
                nl = (lead_at[k] + wpos) & 3
                if k + 1 == plies:
                    pts += LAST_TRICK_BONUS
                if (nl & 1) == max_team:
                    sc += pts
            if k + 1 == plies:
                # leaf: undo and report to ply k
                hands[seat] |= 1 << card
                if (seat & 1) == max_team:
                    if sc > best[k]:
                        best[k] = sc
                    if sc > alpha[k]:
                        alpha[k] = sc
                else:
                    if sc < best[k]:
                        best[k] = sc
                    if sc < beta[k]:
                        beta[k] = sc
                continue
            k += 1
            lead_at[k] = nl
            score[k] = sc
            alpha[k] = alpha[k - 1]
            beta[k] = beta[k - 1]
            break


@kernel
def simple_batch(hands, leaders, tricks, n_tricks, strains, max_teams, raise_op, undertrump,
                 prune, out):
    """``simple_search`` over arrays of positions."""
    h = np.zeros(4, dtype=np.int64)
    for i in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[i, s]
        out[i] = simple_search(h, leaders[i], tricks[i], n_tricks[i], strains[i],
                               max_teams[i], raise_op, undertrump, prune)


@kernel
def random_positions(seed, n, min_played, max_played, strain, raise_op, undertrump,
                     out_hands, out_leader, out_trick, out_n, out_strain):
    """Positions reached by random legal play from uniform deals (tests, benchmarks).

    Position i: a uniform deal, strain ``strain`` (or uniform 0..5 if -1), a uniform
    first leader, then uniformly random legal cards until between ``min_played`` and
    ``max_played`` cards (uniform) are played.  Writes the hands still held, the
    leader and cards of the trick in progress and the strain.
    """
    state = seed_state(seed)
    hands = np.zeros(4, dtype=np.int64)
    trick = np.zeros(4, dtype=np.int64)
    for i in range(n):
        shuffle_deal(state, hands)
        st = strain if strain >= 0 else random_below(state, 6)
        leader = random_below(state, 4)
        target = min_played + random_below(state, max_played - min_played + 1)
        n_trick = 0
        led = -1
        wc = -1
        wp = -1
        for p in range(target):
            seat = (leader + n_trick) & 3
            legal = legal_mask(hands[seat], led, n_trick, wc, wp, st, raise_op, undertrump)
            card = lowest_card(legal)
            k = random_below(state, popcount(legal))
            mm = legal
            for _ in range(k):
                mm &= mm - 1
            card = lowest_card(mm)
            hands[seat] &= ~(1 << card)
            trick[n_trick] = card
            n_trick, led, wc, wp, leader = advance_trick(card, n_trick, led, wc, wp, leader,
                                                         st)
        for s in range(4):
            out_hands[i, s] = hands[s]
        out_leader[i] = leader
        for k in range(4):
            out_trick[i, k] = trick[k] if k < n_trick else 0
        out_n[i] = n_trick
        out_strain[i] = st


# --- imperfect information: inferred voids, consistent deals, PIMC ---------------------

@kernel
def infer_forbidden(plays, n_plays, first_leader, strain, raise_op, undertrump, out):
    """Cards each seat cannot hold, as shown by the cards it played (RULES.md 5).

    ``plays``: the cards of the deal in playing order (``n_plays`` of them), the first
    trick led by ``first_leader``.  ``out`` (4,) receives, per seat, the mask of the
    cards it is known not to hold: a seat that did not follow suit holds no card of
    the led suit; one that did not raise (trump led) holds no card of that suit above
    the winning card; one that had to trump and discarded holds no trump (or, when an
    opponent's trump was winning and undertrumping is not required, none above it);
    one that trumped or undertrumped under an opponent's trump without beating it
    holds no higher trump.  Returns ``(leader, n_trick)`` of the trick in progress.
    """
    for s in range(4):
        out[s] = 0
    leader = first_leader
    n = 0
    led = -1
    wc = -1
    wp = -1
    for i in range(n_plays):
        card = plays[i]
        seat = (leader + n) & 3
        suit = card >> 3
        if n > 0:
            partner_winning = n >= 2 and wp == n - 2
            lshift = 8 * led
            if strain == STRAIN_AT or led == strain:
                if suit != led:
                    out[seat] |= 0xFF << lshift
                elif (not partner_winning or raise_op) and not beats(card, wc, led, strain):
                    out[seat] |= HIGHER_TRUMP_BYTE[wc & 7] << lshift
            elif suit != led:
                out[seat] |= 0xFF << lshift
                if strain < STRAIN_NT and not partner_winning:
                    tshift = 8 * strain
                    trump_winning = (wc >> 3) == strain
                    if suit == strain:
                        if trump_winning and not beats(card, wc, led, strain):
                            out[seat] |= HIGHER_TRUMP_BYTE[wc & 7] << tshift
                    elif trump_winning and not undertrump:
                        out[seat] |= HIGHER_TRUMP_BYTE[wc & 7] << tshift
                    else:
                        out[seat] |= 0xFF << tshift
        n, led, wc, wp, leader = advance_trick(card, n, led, wc, wp, leader, strain)
    return leader, n


@kernel
def _deal_counts(cards, n_cards, seats, need, allowed, ways):
    """ways[i, a, b]: number of ways to deal ``cards[i:]`` so that seats[0] gets ``a``
    more, seats[1] ``b`` more and seats[2] the rest, each card to a seat allowed it."""
    for i in range(n_cards + 1):
        for a in range(9):
            for b in range(9):
                ways[i, a, b] = 0
    ways[n_cards, 0, 0] = 1
    for i in range(n_cards - 1, -1, -1):
        bit = 1 << cards[i]
        left = n_cards - i
        for a in range(min(need[0], left) + 1):
            for b in range(min(need[1], left - a) + 1):
                c = left - a - b
                if c > need[2]:
                    continue
                w = 0
                if a > 0 and allowed[seats[0]] & bit:
                    w += ways[i + 1, a - 1, b]
                if b > 0 and allowed[seats[1]] & bit:
                    w += ways[i + 1, a, b - 1]
                if c > 0 and allowed[seats[2]] & bit:
                    w += ways[i + 1, a, b]
                ways[i, a, b] = w


@kernel
def _random_below_big(state, n):
    """Uniform integer in [0, n) for n < 2**40 (62 random bits, modulo bias < 2**-22)."""
    x = (next_random(state) << 30) ^ next_random(state)
    return (x & ((1 << 62) - 1)) % n


@kernel
def _deal_sample(cards, n_cards, seats, need, allowed, ways, state, out):
    """Draw one deal uniformly among those counted by ``ways``: ``out[seat]`` |= cards."""
    a = need[0]
    b = need[1]
    for i in range(n_cards):
        bit = 1 << cards[i]
        left = n_cards - i
        c = left - a - b
        w0 = ways[i + 1, a - 1, b] if a > 0 and allowed[seats[0]] & bit else 0
        w1 = ways[i + 1, a, b - 1] if b > 0 and allowed[seats[1]] & bit else 0
        w2 = ways[i + 1, a, b] if c > 0 and allowed[seats[2]] & bit else 0
        r = _random_below_big(state, w0 + w1 + w2)
        if r < w0:
            out[seats[0]] |= bit
            a -= 1
        elif r < w0 + w1:
            out[seats[1]] |= bit
            b -= 1
        else:
            out[seats[2]] |= bit


@kernel
def sample_deals(fixed, unseen, need, allowed, n_samples, seed, out):
    """Deal the ``unseen`` cards to the seats uniformly at random among the deals
    consistent with the constraints, ``n_samples`` times.

    ``fixed`` (4,): cards known in each hand; ``need`` (4,): how many unseen cards each
    seat still gets (their sum is the number of unseen cards); ``allowed`` (4,): the
    cards each seat may get.  At most three seats may need cards.  ``out`` (n, 4)
    receives the hands.  Exact uniform sampling: the number of completions is counted
    card by card (a small dynamic programme over the cards still to place in the
    three hands), then each card goes to a seat with probability proportional to the
    completions that remain (exact integer counts; a draw takes 62 random bits modulo
    the count).  Returns the number of consistent deals (0: none, the constraints
    contradict each other; ``out`` is then left unchanged).
    """
    cards = np.zeros(32, dtype=np.int64)
    n_cards = 0
    m = unseen
    while m:
        cards[n_cards] = lowest_card(m)
        m &= m - 1
        n_cards += 1
    seats = np.zeros(3, dtype=np.int64)
    sneed = np.zeros(3, dtype=np.int64)
    k = 0
    for s in range(4):
        if need[s] > 0:
            if k == 3:
                return 0
            seats[k] = s
            sneed[k] = need[s]
            k += 1
    while k < 3:  # pad with a seat that takes nothing
        for s in range(4):
            if need[s] == 0:
                seats[k] = s
                break
        sneed[k] = 0
        k += 1
    if sneed[0] + sneed[1] + sneed[2] != n_cards:
        return 0
    ways = np.zeros((n_cards + 1, 9, 9), dtype=np.int64)
    _deal_counts(cards, n_cards, seats, sneed, allowed, ways)
    total = ways[0, sneed[0], sneed[1]]
    if total <= 0:
        return 0
    state = seed_state(seed)
    for i in range(n_samples):
        for s in range(4):
            out[i, s] = fixed[s]
        _deal_sample(cards, n_cards, seats, sneed, allowed, ways, state, out[i])
    return total


@kernel
def pimc_values(deals, leader, trick, n_trick, strain, max_team, raise_op, undertrump, tt,
                ws, moves, out_sum):
    """Sum over the sampled ``deals`` (n, 4) of the exact value (points of
    ``max_team`` from here on) after each legal card of the player to move.

    The legal cards depend only on the mover's hand, which is the same in every deal;
    ``out_sum[card]`` accumulates (other cards stay 0).  Returns the legal mask.
    """
    vals = np.zeros(32, dtype=np.int64)
    hands = np.zeros(4, dtype=np.int64)
    for c in range(32):
        out_sum[c] = 0
    legal = 0
    for i in range(deals.shape[0]):
        for s in range(4):
            hands[s] = deals[i, s]
        legal = dd_card_values(hands, leader, trick, n_trick, strain, max_team, raise_op,
                               undertrump, tt, ws, moves, vals)
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            out_sum[c] += vals[c]
    return legal


@kernel
def pimc_scores(hand, fixed, plays, n_plays, first_leader, strain, raise_op, undertrump,
                n_samples, seed, tt, ws, moves, out_sum):
    """Perfect-information Monte Carlo for the player to move.

    ``hand``: his cards; ``fixed`` (4,): cards known to be in other hands (e.g. from
    declarations; the mover's entry is ignored); ``plays``/``n_plays``: every card of
    the deal played so far, in order, the first trick led by ``first_leader``.  The
    unseen cards are dealt ``n_samples`` times uniformly among the deals consistent
    with the hand sizes, ``fixed`` and the voids shown in play (``infer_forbidden``;
    if those contradict ``fixed`` they are dropped), each deal is solved exactly for
    every legal card, and ``out_sum[card]`` receives the sum over the deals of the
    points the mover's team wins from here on after that card.
    Returns ``(legal, n_deals)``: the legal mask and the number of deals used (0 if
    no deal fits the hand sizes).
    """
    forbidden = np.zeros(4, dtype=np.int64)
    leader, n_trick = infer_forbidden(plays, n_plays, first_leader, strain, raise_op,
                                      undertrump, forbidden)
    seat = (leader + n_trick) & 3
    trick = np.zeros(4, dtype=np.int64)
    played = 0
    for i in range(n_plays):
        played |= 1 << plays[i]
    for i in range(n_trick):
        trick[i] = plays[n_plays - n_trick + i]
    fx = np.zeros(4, dtype=np.int64)
    known = hand
    for s in range(4):
        if s != seat:
            fx[s] = fixed[s] & ~played & ~hand
            known |= fx[s]
    fx[seat] = hand
    unseen = 0xFFFFFFFF & ~played & ~known
    my_count = popcount(hand)
    need = np.zeros(4, dtype=np.int64)
    allowed = np.zeros(4, dtype=np.int64)
    for s in range(4):
        if s == seat:
            continue
        size = my_count - (1 if ((s - leader) & 3) < n_trick else 0)
        need[s] = size - popcount(fx[s])
        if need[s] < 0:
            return 0, 0
        allowed[s] = unseen & ~forbidden[s]
    deals = np.zeros((n_samples, 4), dtype=np.int64)
    total = sample_deals(fx, unseen, need, allowed, n_samples, seed, deals)
    if total <= 0:
        for s in range(4):
            if s != seat:
                allowed[s] = unseen
        total = sample_deals(fx, unseen, need, allowed, n_samples, seed, deals)
        if total <= 0:
            return 0, 0
    legal = pimc_values(deals, leader, trick, n_trick, strain, seat & 1, raise_op,
                        undertrump, tt, ws, moves, out_sum)
    return legal, n_samples


@kernel
def pimc_best_card(hand, fixed, plays, n_plays, first_leader, strain, raise_op, undertrump,
                   n_samples, seed, tt, ws, moves):
    """The PIMC card (best average over ``n_samples`` consistent deals, ties to the
    lowest card index) for the player to move; -1 if no consistent deal exists."""
    sums = np.zeros(32, dtype=np.int64)
    legal, n = pimc_scores(hand, fixed, plays, n_plays, first_leader, strain, raise_op,
                           undertrump, n_samples, seed, tt, ws, moves, sums)
    if n == 0:
        return -1
    best = -1
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        if best < 0 or sums[c] > sums[best]:
            best = c
    return best
