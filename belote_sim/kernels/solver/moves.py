"""Which cards a node searches, and in what order.

``reduce_equivalent`` and ``reduce_dominated`` drop cards whose value equals that of
a card kept (same result, smaller tree); ``order_moves`` sorts the rest best first.
All three are inlined into the search (``inline="always"``).
"""

from belote_sim.kernels._jit import kernel
from belote_sim.kernels.bits import lowest_card, popcount
from belote_sim.kernels.core import legal_mask
from belote_sim.kernels.solver.suit_tables import (
    BEATS_MASK,
    RANK_BYTE,
    STRENGTH_BYTE,
    TOP_RANK,
    ZERO_MASK,
    higher_byte,
    is_trump_suit,
)
from belote_sim.kernels.tables import CARD_POINTS, STRAIN_NT, WIN_KEY


@kernel(inline="always")
def reduce_equivalent(legal, others, strain):
    """Drop all but one card of each group of equivalent zero-point cards."""
    z = legal & ZERO_MASK[strain]
    if z & (z - 1) == 0:
        return legal
    out = legal
    for suit in range(4):
        zero = 0x3 if is_trump_suit(suit, strain) else 0x7
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


@kernel(inline="always")
def reduce_dominated(cand, ohands, hands, seat, n, led, wc, wp, strain, rules):
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
        kind = 1 if is_trump_suit(suit, strain) else 0
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
                        can = legal_mask(hp, lsuit, k, w, wpos, strain, rules)
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


@kernel(inline="always")
def order_moves(cand, hands, seat, n, led, wc, wp, tm, strain, ttbest, moves, sp, start):
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
            trump_suit = is_trump_suit(suit, strain)
            ob = (opp >> shift) & 0xFF
            ruff = (
                suit_contract
                and suit != strain
                and (
                    (nxt_trumps and ((nxt >> shift) & 0xFF) == 0)
                    or (prv_trumps and ((prv >> shift) & 0xFF) == 0)
                )
            )
            lowb = 1000 - 20 * popcount((mine >> shift) & 0xFF)
            psk = -1
            pb = (mate >> shift) & 0xFF
            if pb and not ruff:
                top = TOP_RANK[1 if trump_suit else 0, pb]
                if (ob & higher_byte(top, trump_suit)) == 0:
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
            if not ruff and (ob & higher_byte(c & 7, is_trump_suit(suit, strain))) == 0:
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


__all__ = [
    "order_moves",
    "reduce_dominated",
    "reduce_equivalent",
]
