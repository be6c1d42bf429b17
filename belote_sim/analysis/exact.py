"""Exact probabilities of declarations in dealt hands, by combinatorics (no simulation).

Events of one hand of ``k`` cards dealt from a deck of ``deck`` cards (every hand
equally likely).  ``deck=32`` is the 4-player deck (ranks 7 8 9 T J Q K A in each of
4 suits; hand sizes 5 and 8 when dealing, 12 for the open-belot case of 12 visible
cards); ``deck=24`` is the deck of the 2- and 3-player variants (ranks 9 T J Q K A
only; hand sizes 5 / 6 for the bidding hands of 3 / 2 players, 8 for a 3-player hand,
9 for a 2-player hand).  Card index = 8 * suit + rank with ranks 7 8 9 T J Q K A =
0..7 in both decks, so a 24-card hand only uses ranks 2..7 (``deck_cards``).

- ``run3`` / ``run4`` / ``run5``: the hand's longest run in one suit (sequence order
  A K Q J T 9 8 7, or A K Q J T 9 in the 24-card deck) is exactly 3 (a tierce),
  exactly 4 (a quarte), 5 or more (a quinte; a run of 6 or more counts as ``run5``);
- ``carre_<rank>``: the hand holds all four cards of that rank (9 T J Q K A);
- ``carre_any``: at least one of those carrés;
- ``kq_suit``: the hand holds the king and queen of one given suit (a belote when
  that suit is trump and the trump was chosen independently of the hand).

Team events (``team_*``) are the same events for at least one of the two 8-card
hands of a team (two disjoint hands dealt from the 32-card deck; 4 players only).

Each probability is computed two independent ways: ``closed_form`` (binomial
formulas and inclusion-exclusion) and ``enumerated`` (enumerating the 256 subsets of
each suit -- the 64 subsets of ranks 9..A in the 24-card deck -- or the 6,561 ways to
split a suit between two hands, and convolving the four suits), so each checks the
other.  Results are probabilities (unitless, in [0, 1]) as exact ``Fraction`` values;
``probabilities`` gives them as floats.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb
from numbers import Integral

from belote_sim.kernels.tables import RANK_CHARS

__all__ = [
    "CARRE_RANKS",
    "DECKS",
    "HAND_EVENTS",
    "RANKS",
    "closed_form",
    "conditional_probabilities",
    "deck_cards",
    "enumerated",
    "probabilities",
    "team_probabilities",
]

RANKS = RANK_CHARS
CARRE_RANKS = "9TJQKA"
HAND_EVENTS = (
    ("run3", "run4", "run5") + tuple(f"carre_{r}" for r in CARRE_RANKS) + ("carre_any", "kq_suit")
)
DECKS = (32, 24)
# lowest rank index present in each deck (ranks lowest..7 of every suit)
_LOWEST_RANK = {32: 0, 24: 2}


def deck_cards(deck: int = 32) -> tuple[int, ...]:
    """Card indices (8 * suit + rank, rank 0..7 = 7 8 9 T J Q K A) of a 32- or 24-card
    deck, in increasing order."""
    _check_deck(deck)
    return tuple(8 * s + r for s in range(4) for r in range(_LOWEST_RANK[deck], 8))


def _check_deck(deck) -> None:
    if isinstance(deck, bool) or deck not in DECKS:
        raise ValueError(f"deck must be 32 or 24 (cards in the deck), got {deck!r}")


def _check_args(k, deck) -> tuple[int, int]:
    """Validated (k, deck) as ints: deck in (32, 24), 0 <= k <= deck."""
    _check_deck(deck)
    if isinstance(k, bool) or not isinstance(k, Integral):
        raise TypeError(f"hand size k must be an integer, got {k!r}")
    k = int(k)
    if not 0 <= k <= deck:
        raise ValueError(f"hand size k must be in 0..{deck} for the {deck}-card deck, got {k}")
    return int(k), int(deck)


def _comb(n: int, r: int) -> int:
    """C(n, r), 0 when r < 0 or r > n."""
    return comb(n, r) if 0 <= r <= n else 0


def _suit_bytes(deck: int) -> list[int]:
    """The possible suit bytes (subsets of one suit's ranks) of a hand from the deck."""
    low_mask = (1 << _LOWEST_RANK[deck]) - 1
    return [byte for byte in range(256) if byte & low_mask == 0]


def _longest_run(byte: int) -> int:
    best = run = 0
    for r in range(8):
        run = run + 1 if (byte >> r) & 1 else 0
        best = max(best, run)
    return best


# --- closed forms ------------------------------------------------------------------------


def _strings_without_run(n: int, ones: int, run: int) -> int:
    """Binary strings of length n with ``ones`` ones and no ``run`` consecutive ones.

    Place the n - ones zeros; the ones fill the n - ones + 1 gaps with fewer than
    ``run`` in each: inclusion-exclusion over the gaps that hold ``run`` or more.
    """
    gaps = n - ones + 1
    total = 0
    for j in range(0, ones // run + 1):
        if j > gaps:
            break
        total += (-1) ** j * comb(gaps, j) * comb(ones - j * run + gaps - 1, gaps - 1)
    return total


def _hands_all_runs_below(k: int, run: int, counter, deck: int = 32) -> int:
    """Hands of k cards in which every suit has no run of ``run`` (4 suits convolved)."""
    n = deck // 4  # cards per suit
    per_suit = [counter(n, m, run) for m in range(n + 1)]
    ways = [1] + [0] * k
    for _ in range(4):
        new = [0] * (k + 1)
        for a in range(k + 1):
            if ways[a]:
                for b in range(min(n, k - a) + 1):
                    new[a + b] += ways[a] * per_suit[b]
        ways = new
    return ways[k]


def _closed_counter(n: int, m: int, run: int) -> int:
    return _strings_without_run(n, m, run)


def _enumerated_counter_for(deck: int):
    """Counter of one suit's byte values with m cards and no run of ``run``, by
    enumerating the suit bytes possible in the deck (n is implied by the deck)."""
    bytes_ = _suit_bytes(deck)

    def counter(n: int, m: int, run: int) -> int:
        assert n == deck // 4
        return sum(1 for byte in bytes_ if bin(byte).count("1") == m and _longest_run(byte) < run)

    return counter


def _carre_any(k: int, deck: int = 32) -> int:
    # inclusion-exclusion over the 6 scoring ranks (present in both decks)
    return sum(
        (-1) ** (j + 1) * comb(6, j) * _comb(deck - 4 * j, k - 4 * j)
        for j in range(1, 7)
        if 4 * j <= k
    )


@cache
def closed_form(k: int = 8, *, deck: int = 32) -> dict[str, Fraction]:
    """Probabilities (exact ``Fraction`` values in [0, 1]) of the one-hand events
    ``HAND_EVENTS`` for a hand of ``k`` cards dealt uniformly from the ``deck``-card
    deck (32 or 24), by formulas.

    Raises ValueError when deck is not 32 or 24 or k is not in 0..deck.
    """
    k, deck = _check_args(k, deck)
    total = comb(deck, k)
    below = {r: _hands_all_runs_below(k, r, _closed_counter, deck) for r in (3, 4, 5)}
    out = {
        "run3": Fraction(below[4] - below[3], total),
        "run4": Fraction(below[5] - below[4], total),
        "run5": Fraction(total - below[5], total),
    }
    for r in CARRE_RANKS:
        # the four cards of the rank, any k - 4 of the other deck - 4
        out[f"carre_{r}"] = Fraction(_comb(deck - 4, k - 4), total)
    out["carre_any"] = Fraction(_carre_any(k, deck), total)
    # the king and queen of the suit, any k - 2 of the other deck - 2
    out["kq_suit"] = Fraction(_comb(deck - 2, k - 2), total)
    return out


@cache
def enumerated(k: int = 8, *, deck: int = 32) -> dict[str, Fraction]:
    """Probabilities (exact ``Fraction`` values in [0, 1]) of the one-hand events
    ``HAND_EVENTS`` for a hand of ``k`` cards dealt uniformly from the ``deck``-card
    deck (32 or 24), by enumerating the subsets of each suit and convolving the suits.

    Raises ValueError when deck is not 32 or 24 or k is not in 0..deck.
    """
    k, deck = _check_args(k, deck)
    total = comb(deck, k)
    bytes_ = _suit_bytes(deck)
    counter = _enumerated_counter_for(deck)
    below = {r: _hands_all_runs_below(k, r, counter, deck) for r in (3, 4, 5)}
    # carrés and K+Q: count 4-tuples of suit bytes by a per-rank mask (convolution over
    # suits of the number of cards and of the ranks present in every suit so far)
    states: dict[tuple[int, int], int] = {(0, 0xFF): 1}
    for _ in range(4):
        new: dict[tuple[int, int], int] = {}
        for (size, common), ways in states.items():
            for byte in bytes_:
                m = size + bin(byte).count("1")
                if m <= k:
                    key = (m, common & byte)
                    new[key] = new.get(key, 0) + ways
        states = new
    carre = {r: 0 for r in CARRE_RANKS}
    any_carre = 0
    for (size, common), ways in states.items():
        if size != k:
            continue
        hit = False
        for r in CARRE_RANKS:
            if (common >> RANKS.index(r)) & 1:
                carre[r] += ways
                hit = True
        any_carre += ways if hit else 0
    # K+Q of one given suit: that suit's byte holds both, the others anything
    kq = 0
    for byte in bytes_:
        if (byte >> 5) & 1 and (byte >> 6) & 1:
            m = bin(byte).count("1")
            if m <= k:
                kq += _comb(deck - deck // 4, k - m)  # the other three suits
    out = {
        "run3": Fraction(below[4] - below[3], total),
        "run4": Fraction(below[5] - below[4], total),
        "run5": Fraction(total - below[5], total),
    }
    for r in CARRE_RANKS:
        out[f"carre_{r}"] = Fraction(carre[r], total)
    out["carre_any"] = Fraction(any_carre, total)
    out["kq_suit"] = Fraction(kq, total)
    return out


# --- team events (two disjoint 8-card hands) -----------------------------------------------


def _pair_counts(run: int) -> list[list[int]]:
    """pairs[m1][m2]: ways to split one suit into two disjoint hand parts of sizes m1, m2
    with no run of ``run`` in either part (enumerating the 3**8 assignments)."""
    pairs = [[0] * 9 for _ in range(9)]
    for code in range(3**8):
        a = b = 0
        c = code
        for r in range(8):
            owner = c % 3
            c //= 3
            if owner == 1:
                a |= 1 << r
            elif owner == 2:
                b |= 1 << r
        if _longest_run(a) < run and _longest_run(b) < run:
            pairs[bin(a).count("1")][bin(b).count("1")] += 1
    return pairs


def _pairs_all_below(run: int) -> int:
    pairs = _pair_counts(run)
    ways = [[0] * 9 for _ in range(9)]
    ways[0][0] = 1
    for _ in range(4):
        new = [[0] * 9 for _ in range(9)]
        for a1 in range(9):
            for a2 in range(9):
                if ways[a1][a2]:
                    for b1 in range(9 - a1):
                        for b2 in range(9 - a2):
                            new[a1 + b1][a2 + b2] += ways[a1][a2] * pairs[b1][b2]
        ways = new
    return ways[8][8]


@cache
def team_probabilities() -> dict[str, Fraction]:
    """Probabilities (exact ``Fraction`` values) that at least one hand of a team (two
    disjoint 8-card hands from the 32-card deck) holds
    a run of 3+ / 4+ / 5+ (``team_run3plus`` ...), a carré of each rank, any carré,
    and K+Q of one given suit."""
    total = comb(32, 8) * comb(24, 8)
    out = {}
    for run in (3, 4, 5):
        out[f"team_run{run}plus"] = Fraction(total - _pairs_all_below(run), total)
    single = closed_form(8)
    for r in CARRE_RANKS:
        # the four cards of a rank cannot be in both hands: P(A or B) = 2 P(A)
        out[f"team_carre_{r}"] = 2 * single[f"carre_{r}"]
    # any carré in either hand: inclusion-exclusion over sets S of ranks that are all
    # carrés in the team's 16 cards, split between the two hands in every way.
    any_count = 0
    for j in range(1, 5):
        # choose j ranks; each of them is a carré in hand 1 or hand 2 (2**j ways);
        # i ranks in hand 1 use 4i of its cards, j - i in hand 2
        sub = 0
        for i in range(j + 1):
            if 4 * i <= 8 and 4 * (j - i) <= 8:
                rest = 32 - 4 * j
                sub += (
                    comb(j, i) * comb(rest, 8 - 4 * i) * comb(rest - (8 - 4 * i), 8 - 4 * (j - i))
                )
        any_count += (-1) ** (j + 1) * comb(6, j) * sub
    out["team_carre_any"] = Fraction(any_count, total)
    out["team_kq_suit"] = 2 * single["kq_suit"]
    return out


def probabilities(k: int = 8, *, deck: int = 32) -> dict[str, float]:
    """The one-hand probabilities (floats in [0, 1]) for a k-card hand from the
    ``deck``-card deck (32 or 24), from the exact closed forms."""
    return {key: float(value) for key, value in closed_form(k, deck=deck).items()}


# --- conditioned on predealt cards and constraints (4-player deal) ---------------------------

_PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)  # 7 8 9 T J Q K A: the constraint strength


def _mask_of_names(cards) -> int:
    from belote_sim.cards import parse_cards

    if isinstance(cards, str):
        cards = cards.split()
    mask = 0
    for card in parse_cards(list(cards)):
        mask |= 1 << card
    return mask


def _rejection_keys(spec: dict) -> bool:
    return any(key in spec for key in ("exclude", "min", "max", "strength"))


def _subsets(pool_byte: int) -> list[int]:
    return [sub for sub in range(256) if sub & ~pool_byte == 0]


def _weighted_events(
    base: int, pool: int, take: int, in_a: int, weight_of_j, spec: dict | None
) -> dict[str, Fraction]:
    """Events of hands ``base | S`` over the subsets S of ``pool`` with ``take`` cards,
    each weighted by ``weight_of_j(j)`` (j = cards of S in ``in_a``) and kept when the
    hand meets the rejection constraints ``spec`` (suit lengths, strength).

    Three suits are combined into partial hands, summarised by what the events need
    (cards, longest run, carré ranks, K+Q of hearts, j, strength) and counted; the
    fourth suit is crossed with those summaries.
    """
    import numpy as np

    spec = spec or {}
    mins = [int(dict(spec.get("min", {})).get(s, 0)) for s in "CDHS"]
    maxs = [int(dict(spec.get("max", {})).get(s, 8)) for s in "CDHS"]
    points = np.array(
        [sum(_PLAIN_POINTS[r] for r in range(8) if (byte >> r) & 1) for byte in range(256)],
        dtype=np.int64,
    )
    longest = np.array([_longest_run(byte) for byte in range(256)], dtype=np.int64)
    carre_bits = sum(1 << RANKS.index(r) for r in CARRE_RANKS)
    # per suit: rows (hand byte, cards taken, cards taken from in_a)
    per_suit = []
    for s in range(4):
        b = (base >> (8 * s)) & 0xFF
        rows = [
            (b | sub, bin(sub).count("1"), bin(sub & (in_a >> (8 * s))).count("1"))
            for sub in _subsets((pool >> (8 * s)) & 0xFF)
            if mins[s] <= bin(b | sub).count("1") <= maxs[s]
        ]
        per_suit.append(np.array(rows, dtype=np.int64).reshape(-1, 3))
    # partial hands of suits C, D, H as summaries: n, j, run, common, kq, strength
    acc = {
        "n": per_suit[0][:, 1],
        "j": per_suit[0][:, 2],
        "run": longest[per_suit[0][:, 0]],
        "common": per_suit[0][:, 0] & carre_bits,
        "kq": np.zeros(len(per_suit[0]), dtype=np.int64),
        "strength": points[per_suit[0][:, 0]],
        "count": np.ones(len(per_suit[0]), np.int64),
    }
    for s in (1, 2):
        right = per_suit[s]
        li, ri = np.divmod(np.arange(len(acc["n"]) * len(right)), len(right))
        byte = right[ri, 0]
        new = {
            "n": acc["n"][li] + right[ri, 1],
            "j": acc["j"][li] + right[ri, 2],
            "run": np.maximum(acc["run"][li], longest[byte]),
            "common": acc["common"][li] & byte,
            "kq": (byte & 0x60 == 0x60).astype(np.int64) if s == 2 else acc["kq"][li],
            "strength": acc["strength"][li] + points[byte],
            "count": acc["count"][li],
        }
        keep = new["n"] <= take
        new = {k: v[keep] for k, v in new.items()}
        # merge equal summaries
        key = np.stack([new[k] for k in ("n", "j", "run", "common", "kq", "strength")], 1)
        uniq, inverse = np.unique(key, axis=0, return_inverse=True)
        counts = np.bincount(inverse.ravel(), weights=new["count"]).astype(np.int64)
        acc = dict(zip(("n", "j", "run", "common", "kq", "strength"), uniq.T))
        acc["count"] = counts
    right = per_suit[3]
    li, ri = np.divmod(np.arange(len(acc["n"]) * len(right)), len(right))
    byte = right[ri, 0]
    ok = acc["n"][li] + right[ri, 1] == take
    strength = acc["strength"][li] + points[byte]
    if "strength" in spec:
        low, high = spec["strength"]
        ok &= (strength >= low) & (strength <= high)
    li, byte = li[ok], byte[ok]
    j = acc["j"][li] + right[ri[ok], 2]
    table = np.array([int(weight_of_j(k)) for k in range(9)], dtype=np.int64)
    # sums stay below 2**63: at most C(32, 8) hands of weight at most C(32, 8)
    weights = table[j] * acc["count"][li]
    total = int(weights.sum())
    if total == 0:
        return {}
    run = np.maximum(acc["run"][li], longest[byte])
    common = acc["common"][li] & byte
    hits = {"run3": run == 3, "run4": run == 4, "run5": run >= 5}
    for r in CARRE_RANKS:
        hits[f"carre_{r}"] = (common >> RANKS.index(r)) & 1 == 1
    hits["carre_any"] = common != 0
    hits["kq_suit"] = acc["kq"][li] == 1
    return {event: Fraction(int(weights[mask].sum()), total) for event, mask in hits.items()}


def conditional_probabilities(
    seat: int, size: int, predeal: dict | None = None, constraints: dict | None = None
) -> dict[str, Fraction] | None:
    """Exact probabilities of the ``HAND_EVENTS`` for one seat's hand in a 4-player deal
    (32 cards) with predealt cards and constraints, by enumerating the seat's possible
    hands (up to C(32, 8) = 10.5 million, vectorised).

    ``size`` 8: the whole hand; 5: the bidding cards (the first five predealt cards of
    the seat are its bidding cards; the other cards of its bidding packets are a
    uniform choice among its free cards).  ``predeal``: ``{seat: cards}``;
    ``constraints``: ``{seat: {"require", "exclude", "min", "max", "strength"}}`` as
    kept in a study's provenance (seats as int or str).  Returns None where the law of
    that hand is not a single enumeration: when another seat has rejection
    constraints (excluded cards, suit lengths, strength).  The bidding cards of a seat
    with rejection constraints are enumerated jointly with the other 3 cards of its
    hand (``_constrained_bidding_events``).
    """
    if size not in (5, 8):
        raise ValueError(f"size must be 5 or 8 (cards), got {size!r}")
    pre = {
        int(k): (v.split() if isinstance(v, str) else list(v)) for k, v in (predeal or {}).items()
    }
    cons = {int(k): dict(v) for k, v in (constraints or {}).items()}
    fixed = {s: _mask_of_names(cards) for s, cards in pre.items()}
    required = {
        s: _mask_of_names(spec.get("require", [])) & ~fixed.get(s, 0) for s, spec in cons.items()
    }
    taken = 0
    for mask in list(fixed.values()) + list(required.values()):
        taken |= mask
    free = ((1 << 32) - 1) & ~taken  # the cards dealt at random
    rejecting = {s for s, spec in cons.items() if _rejection_keys(spec)}
    if rejecting - {seat}:
        return None
    spec = cons.get(seat, {})
    own_fixed = fixed.get(seat, 0)
    own_required = required.get(seat, 0)
    if size == 8:
        base = own_fixed | own_required
        pool = free & ~_mask_of_names(spec.get("exclude", []))
        take = 8 - bin(base).count("1")
        return _weighted_events(base, pool, take, 0, lambda j: 1, spec)
    if seat in rejecting:
        return _constrained_bidding_events(pre.get(seat, []), own_required, free, spec)
    bid_fixed = _mask_of_names(pre.get(seat, [])[:5])
    free_positions = 8 - len(pre.get(seat, []))
    drawn = free_positions - bin(own_required).count("1")  # cards of the seat from ``free``
    n_free = bin(free).count("1")
    take = 5 - bin(bid_fixed).count("1")
    # a bidding set S of the free positions: P(S) is proportional to the chance that the
    # cards of S drawn at random (j of them) are among the seat's ``drawn`` cards
    return _weighted_events(
        bid_fixed,
        own_required | free,
        take,
        free,
        lambda j: _comb(n_free - j, drawn - j) if j <= drawn else 0,
        {},
    )


def _constrained_bidding_events(
    predealt: list, required: int, free: int, spec: dict
) -> dict[str, Fraction]:
    """Events of the 5 bidding cards of a seat with rejection constraints on its 8
    cards: every split of a hand into 5 bidding cards and 3 others that meets the
    constraints is equally likely (its predealt cards at their positions, required
    cards at free positions, the rest drawn from ``free`` minus excluded cards), so the
    splits are enumerated suit by suit (bidding byte, other byte), summarised and
    crossed, as in ``_weighted_events``."""
    import numpy as np

    pre_bid = _mask_of_names(predealt[:5])
    pre_rest = _mask_of_names(predealt[5:])
    pool = free & ~_mask_of_names(spec.get("exclude", []))
    mins = [int(dict(spec.get("min", {})).get(s, 0)) for s in "CDHS"]
    maxs = [int(dict(spec.get("max", {})).get(s, 8)) for s in "CDHS"]
    points = [sum(_PLAIN_POINTS[r] for r in range(8) if (byte >> r) & 1) for byte in range(256)]
    carre_bits = sum(1 << RANKS.index(r) for r in CARRE_RANKS)
    names = ("nb", "nr", "run", "common", "kq", "strength")
    per_suit = []
    for s in range(4):
        fb, fr = (pre_bid >> (8 * s)) & 0xFF, (pre_rest >> (8 * s)) & 0xFF
        req, pl = (required >> (8 * s)) & 0xFF, (pool >> (8 * s)) & 0xFF
        open_cards = req | pl
        rows = []
        for extra_bid in _subsets(open_cards):
            for extra_rest in _subsets(open_cards & ~extra_bid):
                if req & ~(extra_bid | extra_rest):
                    continue  # a required card left out
                bid, rest = fb | extra_bid, fr | extra_rest
                hand = bid | rest
                if not mins[s] <= bin(hand).count("1") <= maxs[s]:
                    continue
                if bin(bid).count("1") > 5 or bin(rest).count("1") > 3:
                    continue
                rows.append(
                    (
                        bin(bid).count("1"),
                        bin(rest).count("1"),
                        _longest_run(bid),
                        bid & carre_bits,
                        int(s == 2 and bid & 0x60 == 0x60),
                        points[hand],
                    )
                )
        per_suit.append(np.array(rows, dtype=np.int64).reshape(-1, 6))
    acc = np.column_stack([per_suit[0], np.ones(len(per_suit[0]), np.int64)])
    for s in (1, 2, 3):
        right = per_suit[s]
        parts = []
        for nb in range(6):
            for nr in range(4):
                li = np.flatnonzero((acc[:, 0] == nb) & (acc[:, 1] == nr))
                if s == 3:
                    ri = np.flatnonzero((right[:, 0] == 5 - nb) & (right[:, 1] == 3 - nr))
                else:
                    ri = np.flatnonzero((right[:, 0] <= 5 - nb) & (right[:, 1] <= 3 - nr))
                if len(li) and len(ri):
                    parts.append((np.repeat(li, len(ri)), np.tile(ri, len(li))))
        if not parts:
            return {}
        li = np.concatenate([p[0] for p in parts])
        ri = np.concatenate([p[1] for p in parts])
        left, r = acc[li], right[ri]
        # one packed int64 key per summary: nb 3 bits, nr 2, run 4, common 8, kq 1,
        # strength 8 (at most 131 points)
        key = left[:, 0] + r[:, 0]
        key = (key << 2) | (left[:, 1] + r[:, 1])
        key = (key << 4) | np.maximum(left[:, 2], r[:, 2])
        key = (key << 8) | (left[:, 3] & r[:, 3])
        key = (key << 1) | (left[:, 4] | r[:, 4])
        key = (key << 8) | (left[:, 5] + r[:, 5])
        keys, inverse = np.unique(key, return_inverse=True)
        counts = np.bincount(inverse, weights=left[:, 6]).astype(np.int64)
        acc = np.column_stack(
            [
                keys >> 23,
                (keys >> 21) & 3,
                (keys >> 17) & 15,
                (keys >> 9) & 255,
                (keys >> 8) & 1,
                keys & 255,
                counts,
            ]
        )
    if "strength" in spec:
        low, high = spec["strength"]
        acc = acc[(acc[:, 5] >= low) & (acc[:, 5] <= high)]
    weights = acc[:, 6]
    total = int(weights.sum())
    if total == 0:
        return {}
    col = dict(zip(names, acc.T))
    hits = {"run3": col["run"] == 3, "run4": col["run"] == 4, "run5": col["run"] >= 5}
    for rank in CARRE_RANKS:
        hits[f"carre_{rank}"] = (col["common"] >> RANKS.index(rank)) & 1 == 1
    hits["carre_any"] = col["common"] != 0
    hits["kq_suit"] = col["kq"] == 1
    return {event: Fraction(int(weights[mask].sum()), total) for event, mask in hits.items()}
