"""Bytes per deal on disk, measured: what ``safe_io.MEASURED_BYTES_PER_DEAL`` holds.

For each game (4 players, 3, 2, open belot), with and without the trick log: one chunk
of N deals (default 65,536, the default chunk size) written as ``simulate -o`` writes it
(``deal_table.parquet_write_options``) and as a dataset part is written (pyarrow's
default options, ``distributed._chunk_task``), and the estimate the free-space checks
use (``safe_io.estimated_bytes``) against the first.  Printed as one JSON object.

    python benchmarks/bytes_per_deal.py [--deals N]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import pyarrow as pa
import pyarrow.parquet as pq

from belote_sim.simulation.deal_table import (
    deals_frame,
    parquet_schema,
    parquet_write_options,
)
from belote_sim.simulation.runner import make_study
from belote_sim.simulation.safe_io import estimated_bytes

GAMES = {
    "4 players": {},
    "3 players": {"players": 3},
    "2 players": {"players": 2},
    "open belot": {"players": 2, "variant": "open"},
}


def sizes(table: pa.Table) -> tuple[int, int]:
    """(bytes as simulate -o writes it, bytes as a dataset part)."""
    schema = parquet_schema(table.schema)
    single = pa.BufferOutputStream()
    with pq.ParquetWriter(single, schema, **parquet_write_options(schema.names)) as writer:
        writer.write_table(table.cast(schema))
    part = pa.BufferOutputStream()
    pq.write_table(table, part)
    return single.getvalue().size, part.getvalue().size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=1 << 16)
    n = parser.parse_args().deals
    result = {}
    for name, options in GAMES.items():
        study = make_study("common", seed=1, options=options, chunk_size=n)
        for trick_log in (False, True):
            table = pa.Table.from_pandas(
                deals_frame(study.run_chunk(0, n, keep_plays=trick_log)), preserve_index=False
            )
            single, part = sizes(table)
            rules = study.rules
            estimate = estimated_bytes(n, trick_log, rules.players, rules.variant, n)
            result[f"{name}{', trick log' if trick_log else ''}"] = {
                "single_file": round(single / n, 1),
                "dataset_part": round(part / n, 1),
                "estimate": round(estimate / n, 1),
                "estimate_over_real": round(estimate / single, 2),
            }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
