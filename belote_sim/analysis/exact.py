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
from functools import lru_cache
from math import comb
from numbers import Integral

from belote_sim.kernels.tables import RANK_CHARS

RANKS = RANK_CHARS
CARRE_RANKS = "9TJQKA"
HAND_EVENTS = ("run3", "run4", "run5") + tuple(f"carre_{r}" for r in CARRE_RANKS) + (
    "carre_any", "kq_suit")
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
    if not 0 <= k <= deck:
        raise ValueError(f"hand size k must be in 0..{deck} for the {deck}-card deck, "
                         f"got {k}")
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
        return sum(1 for byte in bytes_
                   if bin(byte).count("1") == m and _longest_run(byte) < run)
    return counter


def _carre_any(k: int, deck: int = 32) -> int:
    # inclusion-exclusion over the 6 scoring ranks (present in both decks)
    return sum((-1) ** (j + 1) * comb(6, j) * _comb(deck - 4 * j, k - 4 * j)
               for j in range(1, 7) if 4 * j <= k)


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
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
    for code in range(3 ** 8):
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


@lru_cache(maxsize=None)
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
                sub += comb(j, i) * comb(rest, 8 - 4 * i) * comb(rest - (8 - 4 * i), 8 - 4 * (j - i))
        any_count += (-1) ** (j + 1) * comb(6, j) * sub
    out["team_carre_any"] = Fraction(any_count, total)
    out["team_kq_suit"] = 2 * single["kq_suit"]
    return out


def probabilities(k: int = 8, *, deck: int = 32) -> dict[str, float]:
    """The one-hand probabilities (floats in [0, 1]) for a k-card hand from the
    ``deck``-card deck (32 or 24), from the exact closed forms."""
    return {key: float(value) for key, value in closed_form(k, deck=deck).items()}
