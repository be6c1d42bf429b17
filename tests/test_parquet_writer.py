"""The ``simulate -o`` writer's Parquet layout (issue 16): per-column encodings and
compression, required (never-null) columns, the kernel columns taken out of the kernel
output, the summary counts -- every value read back the same as the table written."""

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from belote_sim.kernels import simulate as K
from belote_sim.simulation.deal_table import (
    NULLABLE_COLUMNS,
    OUTCOME_NAMES,
    STRAIN_NAMES,
    deals_frame,
    kernel_columns,
    parquet_schema,
    parquet_write_options,
    read_deals,
    summary_counts_of_codes,
)
from belote_sim.simulation.runner import make_study, simulate, simulate_to_parquet

SPLIT = tuple(int(x) for x in pa.__version__.split(".")[:2]) >= (17, 0)
GAMES = [
    ("common", None, False),
    ("french", None, False),  # turned card, thrown-in deals (null strain and taker)
    ("bulgarian", None, False),
    ("bulgarian", {"players": 3}, False),
    ("bulgarian", {"variant": "open"}, False),
    ("common", None, True),  # trick log
]


@pytest.mark.parametrize("rules, options, trick_log", GAMES)
def test_every_column_reads_back_identical(tmp_path, rules, options, trick_log):
    path = str(tmp_path / "d.parquet")
    study = make_study(rules, seed=11, chunk_size=700, options=options)
    simulate_to_parquet(path, 2000, study, trick_log=trick_log)
    expected = simulate(
        2000, rules=rules, seed=11, chunk_size=700, options=options, trick_log=trick_log
    )
    # the same values and dtypes as the DataFrame through Arrow without Parquet
    via_arrow = pa.Table.from_pandas(expected, preserve_index=False).to_pandas()
    got = read_deals(path)
    pd.testing.assert_frame_equal(got, via_arrow)
    for name in expected.columns:  # and as simulate() has them, value by value
        a, b = got[name], expected[name]
        assert a.isna().equals(b.isna()), name
        assert (a[a.notna()].astype(object) == b[b.notna()].astype(object)).all(), name

    pf = pq.ParquetFile(path)
    schema = pf.schema_arrow
    for field in schema:  # never-null columns are required, the others optional
        assert field.nullable == (field.name in NULLABLE_COLUMNS), field.name
        if not field.nullable:
            assert not got[field.name].isna().any(), field.name
    chunk = pf.metadata.row_group(0)
    for i in range(chunk.num_columns):
        column = chunk.column(i)
        name = column.path_in_schema
        if name in ("seed", "deal_id"):
            assert column.compression == "UNCOMPRESSED", name
        else:
            assert column.compression == "ZSTD", name
        if name.startswith(("hand", "bid", "seed")):
            assert "PLAIN" in column.encodings and "RLE_DICTIONARY" not in column.encodings
        if name in ("strain", "outcome", "auction"):
            assert "RLE_DICTIONARY" in column.encodings, name
        if SPLIT and name.startswith(("card_points", "raw", "mp", "tricks")):
            assert "BYTE_STREAM_SPLIT" in column.encodings, name
        stats = column.statistics
        assert (stats is not None and stats.has_min_max) == (name == "deal_id"), name


def test_the_four_player_table_stays_under_40_bytes_per_deal(tmp_path):
    path = tmp_path / "d.parquet"
    n = 1 << 17  # two full chunks
    simulate_to_parquet(str(path), n, make_study("common", seed=2))
    assert os.path.getsize(path) / n <= 40


def test_options_cover_every_column_of_every_table():
    for players, variant in ((4, "standard"), (3, "standard"), (2, "standard"), (2, "open")):
        study = make_study(
            "bulgarian" if players < 4 or variant == "open" else "common",
            seed=1,
            options=None
            if players == 4 and variant == "standard"
            else ({"variant": "open"} if variant == "open" else {"players": players}),
        )
        names = list(deals_frame(study.run_chunk(0, 10, True)).columns)
        options = parquet_write_options(names)
        assert set(options["compression"]) == set(names)
        dictionary = set(options["use_dictionary"])
        assert dictionary.isdisjoint(options["column_encoding"])
        assert dictionary | set(options["column_encoding"]) == set(names)
        assert set(options["compression_level"]) == {
            n for n, codec in options["compression"].items() if codec == "zstd"
        }


def test_a_null_in_a_required_column_is_refused():
    table = pa.table({"tricks0": pa.array([1, None], pa.int8()), "taker": [1, None]})
    schema = parquet_schema(table.schema)
    assert not schema.field("tricks0").nullable and schema.field("taker").nullable
    with pytest.raises(ValueError, match="non-nullable"):
        table.cast(schema)


@pytest.mark.parametrize("rules", ["common", "french"])
def test_kernel_columns_are_the_kernel_output(rules):
    out = make_study(rules, seed=5).run_chunk(1, 3000)["out"]
    cols = kernel_columns(out)
    assert len(cols) == out.shape[1] == K.NUM_COLS
    for k, col in enumerate(cols):
        assert col.flags["C_CONTIGUOUS"] and len(col) == len(out)
        if k == K.COL_TRIES:
            continue  # not a table column
        assert np.array_equal(col.astype(np.int64), out[:, k]), k
    # negative kernel values (none) stay negative, masks stay whole 32-bit values
    fake = np.zeros((4, K.NUM_COLS), np.int64)
    fake[:, K.COL_HAND0] = [0, 1, 2**31, 2**32 - 1]
    fake[:, K.COL_DEALER] = [0, 3, -1, 2]
    fake[:, K.COL_VALAT] = [-1, 0, 1, -1]
    cols = kernel_columns(fake)
    assert cols[K.COL_HAND0].tolist() == [0, 1, 2**31, 2**32 - 1]
    assert cols[K.COL_DEALER].tolist() == [0, 3, -1, 2]
    assert cols[K.COL_VALAT].tolist() == [-1, 0, 1, -1]


def _reference_counts(strain, outcome):
    """The summary counts by a plain loop."""
    counts = {"contracts": dict.fromkeys(STRAIN_NAMES, 0), "made": dict.fromkeys(STRAIN_NAMES, 0)}
    counts["thrown_in"] = 0
    for s, o in zip(strain.tolist(), outcome.tolist()):
        if 0 <= s < len(STRAIN_NAMES):
            counts["contracts"][STRAIN_NAMES[s]] += 1
            if o == OUTCOME_NAMES.index("made"):
                counts["made"][STRAIN_NAMES[s]] += 1
        if o == OUTCOME_NAMES.index("thrown_in"):
            counts["thrown_in"] += 1
    return counts


def test_summary_counts_of_codes_against_a_loop():
    rng = np.random.default_rng(4)
    strain = rng.integers(-1, len(STRAIN_NAMES), 5000)
    outcome = rng.integers(0, len(OUTCOME_NAMES), 5000)
    assert summary_counts_of_codes(strain, outcome, {}) == _reference_counts(strain, outcome)
    # out-of-range codes are counted nowhere (as before the single bincount)
    strain[:7] = [-3, 6, 9, 0, 1, -1, 2]
    outcome[:7] = [0, 3, 1, -1, 7, 3, 0]
    assert summary_counts_of_codes(strain, outcome, {}) == _reference_counts(strain, outcome)
    # accumulates
    twice = summary_counts_of_codes(strain, outcome, summary_counts_of_codes(strain, outcome, {}))
    once = _reference_counts(strain, outcome)
    assert twice["thrown_in"] == 2 * once["thrown_in"]
    assert twice["made"] == {k: 2 * v for k, v in once["made"].items()}
    empty = summary_counts_of_codes(np.zeros(0, np.int16), np.zeros(0, np.int16), {})
    assert empty == _reference_counts(np.zeros(0, int), np.zeros(0, int))


def test_idle_openmp_threads_sleep_unless_told_otherwise():
    import subprocess
    import sys

    code = (
        "import os, belote_sim, numba; numba.set_num_threads(1); "
        "print(os.environ['OMP_WAIT_POLICY'])"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True
    )
    assert run.stdout.strip() == "PASSIVE", run.stderr
    env["OMP_WAIT_POLICY"] = "ACTIVE"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True
    )
    assert run.stdout.strip() == "ACTIVE", run.stderr
