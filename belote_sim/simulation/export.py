"""Export rows of a deals table as replay records (``belote-sim export-replay``).

Each played deal becomes a record with its rules, dealer, hands, contract and all 32
cards.  If the table has no trick log the cards are re-simulated from the row's
seed with the study's provenance; the re-simulated row must reproduce the stored
scores exactly, else the export stops with an error (a table written by another
version of the package, say).  Thrown-in deals have no contract and are skipped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any, TextIO

import numpy as np
import pandas as pd

from belote_sim.cards import format_card, format_cards
from belote_sim.rules import Rules
from belote_sim.simulation.deal_table import deals_frame, read_deals, table_piles
from belote_sim.simulation.runner import make_study

__all__ = ["CHECK_COLUMNS", "export_replay", "parse_rows", "read_rows", "records", "study_of"]

CHECK_COLUMNS = ("strain", "taker", "doubling", "raw0", "raw1", "mp0", "mp1")


def parse_rows(text: str, n_rows: int) -> slice:
    """``"A:B"`` (either side may be empty) as a slice within ``n_rows`` rows."""
    a, sep, b = text.partition(":")
    try:
        start = int(a) if a.strip() else 0
        stop = int(b) if b.strip() else n_rows
    except ValueError:
        raise ValueError(f"--rows must be A:B with integers, got {text!r}") from None
    if not sep:
        stop = start + 1
    if not 0 <= start <= stop:
        raise ValueError(f"--rows {text!r}: need 0 <= A <= B")
    if start >= n_rows and stop > start:
        raise ValueError(
            f"--rows {text!r}: the table has {n_rows:,} rows (0:{n_rows}), none from row {start}"
        )
    return slice(start, min(stop, n_rows))


def study_of(provenance: dict[str, Any]):
    """The ``Study`` that wrote a table, from its provenance."""
    try:
        return make_study(
            Rules.preset(provenance["ruleset"], **provenance["options"]),
            bidding=provenance["bidding"],
            play=provenance["play"],
            seed=provenance["seed"],
            predeal={int(k): v for k, v in provenance.get("predeal", {}).items()},
            constraints={int(k): v for k, v in provenance.get("constraints", {}).items()},
            dealer=provenance.get("dealer"),
            chunk_size=provenance["chunk_size"],
            belote_silent=provenance.get("belote_silent", ()),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"incomplete provenance in the table: {exc}") from None


def _resimulate(df: pd.DataFrame, provenance: dict[str, Any]) -> list[str]:
    """The playing order of every row, re-simulated from its seed."""
    study = study_of(provenance)
    plays: dict[int, str] = {}
    ids = df["deal_id"].to_numpy()
    chunks = ids // study.chunk_size
    for chunk in np.unique(chunks):
        offsets = ids[chunks == chunk] - chunk * study.chunk_size
        raw = study.run_chunk(int(chunk), int(offsets.max()) + 1, keep_plays=True, rows=offsets)
        again = deals_frame(raw)
        stored = df[chunks == chunk].reset_index(drop=True)
        for col in CHECK_COLUMNS:
            if not stored[col].astype(object).equals(again[col].astype(object)):
                raise ValueError(
                    "re-simulating the table does not reproduce its column "
                    f"{col!r}: it was written by another version or study"
                )
        for deal_id, text in zip(again["deal_id"], again["plays"]):
            plays[int(deal_id)] = text
    return [plays[int(i)] for i in ids]


def records(df: pd.DataFrame, provenance: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Replay records of the played deals of ``df`` (rows of a deals table)."""
    played = df[df["outcome"] != "thrown_in"].reset_index(drop=True)
    if "plays" in played.columns:
        plays = list(played["plays"])
    else:
        plays = _resimulate(played, provenance)
    rules = Rules.preset(provenance["ruleset"], **provenance["options"])
    game: dict[str, Any] = {}
    if rules.players != 4:
        game["players"] = rules.players
    if rules.variant != "standard":
        game["variant"] = rules.variant
    # options that differ from what the preset and the game imply (record fields above)
    defaults = Rules.preset(provenance["ruleset"], **game).options()
    options = {
        k: v for k, v in provenance["options"].items() if defaults.get(k) != v and k not in game
    }
    for row, cards in zip(played.itertuples(index=False), plays):
        record = {"id": int(row.deal_id), "ruleset": provenance["ruleset"], **game}
        if options:
            record["options"] = options
        if provenance.get("belote_silent"):
            record["belote_silent"] = list(provenance["belote_silent"])
        if rules.variant == "open":
            record["table"] = [
                [[format_card(c) for c in pile] for pile in table_piles(getattr(row, f"table{p}"))]
                for p in range(2)
            ]
        record.update(
            {
                "dealer": int(row.dealer),
                "hands": [
                    " ".join(format_cards(int(getattr(row, f"hand{s}"))))
                    for s in range(rules.players)
                ],
                "contract": {
                    "strain": str(row.strain),
                    "taker": int(row.taker),
                    "doubling": int(row.doubling),
                },
                "plays": cards.split(),
            }
        )
        yield record


def read_rows(
    path: str, rows: str, allow_incomplete: bool = False, verify: bool = True
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Rows ``A:B`` of a deals table (reading only the row groups they live in).

    An incomplete table (interrupted run) is refused unless ``allow_incomplete``; with
    ``verify`` (the default) so is one whose bytes fail its checksum."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if os.path.isdir(path):
        raise ValueError(
            f"{path} is a directory: export-replay reads a single-file table "
            "(read_deals reads a dataset directory)"
        )
    # validates the file, its completion mark and its provenance
    read_deals(path, columns=["deal_id"], allow_incomplete=allow_incomplete, verify=verify)
    pf = pq.ParquetFile(path)
    provenance = json.loads(pf.schema_arrow.metadata[b"belote_sim"])
    wanted = parse_rows(rows, pf.metadata.num_rows)
    tables = []
    first = 0
    for group in range(pf.metadata.num_row_groups):
        size = pf.metadata.row_group(group).num_rows
        lo, hi = max(wanted.start, first), min(wanted.stop, first + size)
        if lo < hi:
            tables.append(pf.read_row_group(group).slice(lo - first, hi - lo))
        first += size
    if not tables:
        return deals_frame(None), provenance
    return pa.concat_tables(tables).to_pandas(), provenance


def export_replay(
    path: str, rows: str, out: TextIO, allow_incomplete: bool = False, verify: bool = True
) -> int:
    """Write rows ``A:B`` of a deals table as replay records (JSON lines); returns the
    number of records written.  An incomplete table is refused unless
    ``allow_incomplete``, one whose bytes fail its checksum unless ``verify`` is False."""
    df, provenance = read_rows(path, rows, allow_incomplete, verify)
    n = 0
    for record in records(df, provenance):
        out.write(json.dumps(record) + "\n")
        n += 1
    return n
