"""The deals table built straight from the kernel arrays (``deals_table``, the
``simulate -o`` writer's path) against the pandas path it replaces."""

import pyarrow as pa
import pytest

from belote_sim.kernels.simulate import COL_OUTCOME, COL_STRAIN
from belote_sim.simulation.deal_table import (
    deals_frame,
    deals_table,
    summary_counts,
    summary_counts_of_codes,
)
from belote_sim.simulation.runner import make_study


@pytest.mark.parametrize(
    "rules, bidding, options, trick_log",
    [
        ("common", None, None, False),
        ("french", None, None, False),  # turned card, thrown-in deals
        ("bulgarian", "fixed:1,2,1", None, False),
        ("common", None, None, True),
        ("bulgarian", None, {"players": 3}, False),
    ],
)
def test_deals_table_is_the_pandas_table(rules, bidding, options, trick_log):
    study = make_study(rules, bidding, "greedy", seed=3, options=options)
    raw = study.run_chunk(2, 3000, trick_log)
    frame = deals_frame(raw)
    expected = pa.Table.from_pandas(frame, preserve_index=False)
    table = deals_table(raw)
    assert table.schema.equals(expected.schema, check_metadata=True)
    assert table.equals(expected)
    assert table.to_pandas().equals(frame)
    if not study.rules.solo:
        counts = summary_counts_of_codes(
            raw["out"][:, COL_STRAIN], raw["out"][:, COL_OUTCOME], {"thrown_in": 1}
        )
        assert counts == summary_counts(frame, {"thrown_in": 1})
        assert [list(counts[k]) for k in ("contracts", "made")] == [
            list(summary_counts(frame, {})[k]) for k in ("contracts", "made")
        ]
