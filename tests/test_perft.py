"""Perft suites (tests/data/*.perft): frozen legal-sequence counts per preset."""

from math import factorial
from pathlib import Path

import pytest
import reference as ref

from belote_sim import perft
from belote_sim.deal.perft import read_perft_file

DATA = Path(__file__).parent / "data"
CASES = [
    (path.stem, case) for path in sorted(DATA.glob("*.perft")) for case in read_perft_file(path)
]


def test_suites_exist_for_every_preset():
    assert {stem for stem, _ in CASES} == {"common", "bulgarian", "french"}
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[c.id for _, c in CASES])
def test_perft_counts(case):
    for depth, expected in case.counts:
        got = perft(case.hands, case.strain, case.leader, depth, case.rules)
        assert got == expected, f"{case.id}: perft {depth} = {got}, expected {expected}"


def test_closed_form():
    hands = [
        "7C 8C 9C TC JC QC KC AC",
        "7D 8D 9D TD JD QD KD AD",
        "7H 8H 9H TH JH QH KH AH",
        "7S 8S 9S TS JS QS KS AS",
    ]
    for depth in (1, 4, 6, 8, 11):
        k, r = divmod(depth, 4)
        assert perft(hands, "C", 0, depth) == (factorial(8) // factorial(8 - k)) ** 4 * (8 - k) ** r


def test_small_positions_match_reference_at_full_depth():
    # Each 2- and 3-card position, every depth, against the reference's own count.
    for _, case in CASES:
        size = len(case.hands[0].split())
        if size > 3:
            continue
        for depth in range(1, 4 * size + 1):
            assert perft(case.hands, case.strain, case.leader, depth, case.rules) == ref.perft(
                [h.split() for h in case.hands],
                case.strain,
                case.leader,
                {"ruleset": case.ruleset, "options": case.options},
                depth,
            ), (case.id, depth)


def test_perft_rejects_bad_input():
    with pytest.raises(ValueError, match="seat 1"):
        perft(["7C 8C", "7D", "7H 8H", "7S 8S"], "C", 0, 1)
    with pytest.raises(ValueError, match="depth"):
        perft(["7C", "7D", "7H", "7S"], "C", 0, 5)
