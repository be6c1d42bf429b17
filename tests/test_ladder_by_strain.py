"""analyses/ladder_by_strain.py: the suit contracts pooled, and its tables."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyses"))
import ladder_by_strain as ladder


def _duel(by_strain):
    return {"mean": 1.0, "se": 0.1, "by_strain": by_strain}


def test_pooled_weights_each_strain_by_its_pairs():
    r = _duel(
        {
            "C": {"pairs": 100, "mean": 1.0, "se": 0.3},
            "H": {"pairs": 300, "mean": 2.0, "se": 0.1},
            "AT": {"pairs": 50, "mean": 9.0, "se": 1.0},
        }
    )
    mean, se, n = ladder.pooled(r, ("C", "D", "H", "S"))
    assert n == 400
    assert mean == pytest.approx((100 * 1.0 + 300 * 2.0) / 400)  # 1.75
    assert se == pytest.approx(((100 * 0.3) ** 2 + (300 * 0.1) ** 2) ** 0.5 / 400)
    assert ladder.pooled(r, ("NT",)) is None


def test_tables_show_both_rulesets_and_every_strain():
    common = _duel({"S": {"pairs": 10, "mean": 2.0, "se": 0.5}})
    bulgarian = _duel({"S": {"pairs": 10, "mean": -1.0, "se": 0.25}})
    lines = ladder.tables(
        {"expert": {"common": common, "bulgarian": bulgarian}}, ["common", "bulgarian"]
    )
    row = next(line for line in lines if line.startswith("| `expert` | greedy | +"))
    assert "+2.00 ± 0.50 / -1.00 ± 0.25" in row  # the suit contracts
    assert row.endswith("| - / - | - / - |")  # no NT, no AT deal
    assert any("| bulgarian |" in line and "(10)" in line for line in lines)
