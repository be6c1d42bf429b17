"""Exact probabilities of declarations in dealt hands, by combinatorics (no simulation).

Events of one hand of ``k`` cards dealt from the 32-card deck (every hand equally
likely):

- ``run3`` / ``run4`` / ``run5``: the hand's longest run in one suit (sequence order
  A K Q J T 9 8 7) is exactly 3 (a tierce), exactly 4 (a quarte), 5 or more (a
  quinte);
- ``carre_<rank>``: the hand holds all four cards of that rank (9 T J Q K A);
- ``carre_any``: at least one of those carrés;
- ``kq_suit``: the hand holds the king and queen of one given suit (a belote when
  that suit is trump and the trump was chosen independently of the hand).

Team events (``team_*``) are the same events for at least one of the two 8-card
hands of a team (two disjoint hands dealt from the deck).

Each probability is computed two independent ways: ``closed_form`` (binomial
formulas and inclusion-exclusion) and ``enumerated`` (enumerating the 256 subsets of
each suit, or the 6,561 ways to split a suit between two hands, and convolving the
four suits), so each checks the other.  All results are exact ``Fraction`` values.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

RANKS = "789TJQKA"
CARRE_RANKS = "9TJQKA"
HAND_EVENTS = ("run3", "run4", "run5") + tuple(f"carre_{r}" for r in CARRE_RANKS) + (
    "carre_any", "kq_suit")


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


def _hands_all_runs_below(k: int, run: int, counter) -> int:
    """Hands of k cards in which every suit has no run of ``run`` (4 suits convolved)."""
    per_suit = [counter(8, m, run) for m in range(9)]
    ways = [1] + [0] * k
    for _ in range(4):
        new = [0] * (k + 1)
        for a in range(k + 1):
            if ways[a]:
                for b in range(min(8, k - a) + 1):
                    new[a + b] += ways[a] * per_suit[b]
        ways = new
    return ways[k]


def _closed_counter(n: int, m: int, run: int) -> int:
    return _strings_without_run(n, m, run)


def _enumerated_counter(n: int, m: int, run: int) -> int:
    return sum(1 for byte in range(256)
               if bin(byte).count("1") == m and _longest_run(byte) < run)


def _carre_any(k: int) -> int:
    # inclusion-exclusion over the 6 scoring ranks
    return sum((-1) ** (j + 1) * comb(6, j) * comb(32 - 4 * j, k - 4 * j)
               for j in range(1, 7) if 4 * j <= k)


@lru_cache(maxsize=None)
def closed_form(k: int = 8) -> dict[str, Fraction]:
    """Probabilities of the one-hand events for a k-card hand, by formulas."""
    total = comb(32, k)
    below = {r: _hands_all_runs_below(k, r, _closed_counter) for r in (3, 4, 5)}
    out = {
        "run3": Fraction(below[4] - below[3], total),
        "run4": Fraction(below[5] - below[4], total),
        "run5": Fraction(total - below[5], total),
    }
    for r in CARRE_RANKS:
        out[f"carre_{r}"] = Fraction(comb(28, k - 4), total) if k >= 4 else Fraction(0)
    out["carre_any"] = Fraction(_carre_any(k), total)
    out["kq_suit"] = Fraction(comb(30, k - 2), total)
    return out


@lru_cache(maxsize=None)
def enumerated(k: int = 8) -> dict[str, Fraction]:
    """Probabilities of the one-hand events for a k-card hand, by enumerating suits."""
    total = comb(32, k)
    below = {r: _hands_all_runs_below(k, r, _enumerated_counter) for r in (3, 4, 5)}
    # carrés and K+Q: count 4-tuples of suit bytes by a per-rank mask (convolution over
    # suits of the number of cards and of the ranks present in every suit so far)
    states: dict[tuple[int, int], int] = {(0, 0xFF): 1}
    for _ in range(4):
        new: dict[tuple[int, int], int] = {}
        for (size, common), ways in states.items():
            for byte in range(256):
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
    for byte in range(256):
        if (byte >> 5) & 1 and (byte >> 6) & 1:
            m = bin(byte).count("1")
            if m <= k:
                kq += comb(24, k - m)
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
    """Probabilities that at least one hand of a team (two disjoint 8-card hands) holds
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


def probabilities(k: int = 8) -> dict[str, float]:
    """The one-hand probabilities for a k-card hand as floats (closed forms)."""
    return {key: float(value) for key, value in closed_form(k).items()}
