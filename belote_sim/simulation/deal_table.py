"""The deals table: columns, conversion from kernel arrays, Parquet reading.

One row per deal.  Team 0 is seats {0, 2}.  Units: card points, raw points, match
points (MP; French points under french scoring).

=================  ========  ====================================================
column             dtype     meaning
=================  ========  ====================================================
deal_id            int64     index of the deal in the study
seed               uint64    the deal's seed (re-simulates it exactly)
dealer             int8      dealer seat; seat dealer+1 bids first and leads
hand0..hand3       uint32    8-card hand masks (bit 8*suit+rank; for a thrown-in
                             french deal: the 5 cards dealt)
bid0..bid3         uint32    the 5 cards each seat saw during the bidding
turned             Int8      french turned card index (null otherwise)
auction            string    one char per call: p pass, C D H S N A bid, x double,
                             r redouble, t third double; f = fixed contract
strain             category  C D H S NT AT; null when thrown in
taker              Int8      taker seat; null when thrown in
doubling           int8      0 plain, 1 doubled, 2 redoubled, 3 third double
outcome            category  made / inside / hanging / thrown_in (taker's view)
card_points0/1     int16     card points of tricks won (last-trick 10 included)
decl0/1            int16     run and carré points scored per team (after 6.3)
belote0/1          int16     belote points scored per team
raw0/1             int16     raw points (x2 in NT with nt_double_raw)
mp0/1              int16     points each team adds now (MP or French points)
held_mp0/1         int16     points held as hanging
tricks0/1          int8      tricks won per team
valat              Int8      team that won every trick, null if none
plays              string    (with a trick log) the 32 cards in playing order
=================  ========  ====================================================

The games where every player is alone (``players`` 2 or 3, ``variant`` open; docs/rules.md
section 11) have one column per *player* wherever the 4-player table has one per team
or seat: ``hand0..hand{P-1}`` (3 players: 8 cards of the 24-card deck; 2 players: 9
cards; open belot: the 8 hand cards), ``bid0..`` (the cards each player saw of his
own while bidding; open belot: 5 hand cards and his 4 face-up table cards),
``card_points0..``, ``decl0..``, ``belote0..``, ``raw0..``, ``mp0..``, ``held_mp0..``
and ``tricks0..``; ``taker`` and ``valat`` are players.  Open belot adds
``table_up0/1`` and ``table_down0/1`` (uint32 masks of each player's face-up and
face-down table cards as dealt) and ``table0/1`` (int64, the four piles: pile k's
face-down card in bits 12k..12k+5 and its face-up card in bits 12k+6..12k+11; see
``table_piles``).  There is no ``turned`` column.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from belote_sim.cards import format_card
from belote_sim.kernels import simulate as K
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.tables import (
    OUTCOME_MADE,
    OUTCOME_NAMES,
    OUTCOME_THROWN_IN,
    STRAIN_NAMES,
)
from belote_sim.simulation.manifest import (
    CHUNK_KEY,
    dataset_status,
    file_sha256,
    load_manifest,
    provenance_problem,
    reason_text,
)
from belote_sim.simulation.table_checksum import UnverifiedTableWarning, table_checksum

__all__ = [
    "CARD_NAMES",
    "DEAL_COLUMNS",
    "NULLABLE_COLUMNS",
    "OUTCOME_DTYPE",
    "PER_PLAYER",
    "PROVENANCE_KEY",
    "STRAIN_DTYPE",
    "deal_columns",
    "deals_frame",
    "deals_table",
    "format_summary",
    "games_frame",
    "incomplete_error",
    "kernel_columns",
    "parquet_schema",
    "parquet_write_options",
    "read_dataset",
    "read_deals",
    "summary_counts",
    "summary_counts_of_codes",
    "table_piles",
    "table_status",
    "verify_table",
]

PROVENANCE_KEY = b"belote_sim"
STRAIN_DTYPE = pd.CategoricalDtype(list(STRAIN_NAMES))
OUTCOME_DTYPE = pd.CategoricalDtype(list(OUTCOME_NAMES))
CARD_NAMES = np.array([format_card(c) for c in range(32)])

DEAL_COLUMNS = (
    ["deal_id", "seed", "dealer"]
    + [f"hand{s}" for s in range(4)]
    + [f"bid{s}" for s in range(4)]
    + [
        "turned",
        "auction",
        "strain",
        "taker",
        "doubling",
        "outcome",
        "card_points0",
        "card_points1",
        "decl0",
        "decl1",
        "belote0",
        "belote1",
        "raw0",
        "raw1",
        "mp0",
        "mp1",
        "held_mp0",
        "held_mp1",
        "tricks0",
        "tricks1",
        "valat",
    ]
)


PER_PLAYER = ("card_points", "decl", "belote", "raw", "mp", "held_mp", "tricks")

#: Columns that may be null (a thrown-in deal has no strain, taker or trick log; the
#: turned card is french only; valat is null unless a team won every trick).  Every other
#: column of a deals table is never null: the writer stores it as a *required* Parquet
#: column, which spares encoding a definition level per value (~12% of the writing).
NULLABLE_COLUMNS = frozenset({"turned", "strain", "taker", "valat", "plays"})

#: (encoding, compression) of a column, by name prefix (first match); "dictionary" is
#: Parquet's dictionary encoding.  Other integer columns: byte-stream split + zstd.
_COLUMN_CODECS = (
    ("deal_id", "DELTA_BINARY_PACKED", "none"),  # consecutive ids: ~0 bytes as they are
    ("seed", "PLAIN", "none"),  # random 64-bit words: zstd would only cost time
    ("hand", "PLAIN", "zstd"),  # card masks: zstd's entropy coder saves ~20%
    ("bid", "PLAIN", "zstd"),
    ("table", "PLAIN", "zstd"),
    ("plays", "PLAIN", "zstd"),
    ("auction", "dictionary", "zstd"),  # few distinct strings
    ("strain", "dictionary", "zstd"),  # categories
    ("outcome", "dictionary", "zstd"),
)


def parquet_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` as a deals table is written to Parquet: the columns that are never
    null (all but ``NULLABLE_COLUMNS``) marked not null.  Types, names and metadata
    are unchanged, and so are the values read back (pandas dtypes included)."""
    return pa.schema(
        [f if f.name in NULLABLE_COLUMNS else f.with_nullable(False) for f in schema],
        metadata=schema.metadata,
    )


def parquet_write_options(names: list[str]) -> dict[str, Any]:
    """``pyarrow.parquet.ParquetWriter`` options of a deals table with columns ``names``.

    Chosen column by column by the writing time and bytes measured on 4-player tables
    (``_COLUMN_CODECS``): ``deal_id`` delta-encoded and seeds PLAIN, both uncompressed
    (zstd gains nothing on them); card masks PLAIN + zstd (level 1: as small as level
    3 here, and cheaper); the auction, strain and outcome dictionary-encoded + zstd; the
    small integer columns (scores, seats, counts) byte-stream split + zstd: as small as
    a dictionary and 2x cheaper to write.  Min/max statistics for ``deal_id`` only:
    deals are independent and identically distributed, so a 65,536-deal row group
    spans the whole range of every other column and its statistics could never skip
    it (they cost ~15% of the writing).  Values go to the encoders a whole chunk at a
    time (``write_batch_size``).  About 40 bytes per deal on disk for the 4-player
    table, against 72 with pyarrow's defaults; the values read back are the same.
    """
    split = tuple(int(x) for x in pa.__version__.split(".")[:2]) >= (17, 0)
    encodings: dict[str, str] = {}
    compression: dict[str, str] = {}
    for name in names:
        encoding, codec = next(
            ((e, c) for prefix, e, c in _COLUMN_CODECS if name.startswith(prefix)),
            ("BYTE_STREAM_SPLIT" if split else "dictionary", "zstd"),
        )
        if encoding != "dictionary":
            encodings[name] = encoding
        compression[name] = codec
    return {
        "compression": compression,
        "compression_level": {n: 1 for n, codec in compression.items() if codec == "zstd"},
        "use_dictionary": [n for n in names if n not in encodings],
        "column_encoding": encodings,
        "write_statistics": [n for n in names if n == "deal_id"],
        "write_batch_size": 1 << 16,
    }


def deal_columns(players: int = 4, variant: str = "standard") -> list[str]:
    """Column names of the deals table of a game with ``players`` players."""
    if players == 4 and variant != "open":
        return list(DEAL_COLUMNS)
    cols = (
        ["deal_id", "seed", "dealer"]
        + [f"hand{p}" for p in range(players)]
        + [f"bid{p}" for p in range(players)]
    )
    if variant == "open":
        cols += ["table_up0", "table_up1", "table_down0", "table_down1", "table0", "table1"]
    cols += ["auction", "strain", "taker", "doubling", "outcome"]
    for name in PER_PLAYER:
        cols += [f"{name}{p}" for p in range(players)]
    return cols + ["valat"]


def _nullable(values: np.ndarray, dtype: str = "Int8") -> pd.arrays.IntegerArray:
    """Nullable integers: negative kernel values (-1 = none) become null."""
    mask = values < 0
    return pd.arrays.IntegerArray(np.where(mask, 0, values).astype(dtype.lower()), mask)


def deals_frame(raw: dict[str, Any] | None) -> pd.DataFrame:
    """DataFrame of the deals table from the arrays of ``Study.run_chunk``."""
    if raw is None:
        raw = {
            "deal_id": np.zeros(0, np.int64),
            "seed": np.zeros(0, np.uint64),
            "out": np.zeros((0, K.NUM_COLS), np.int64),
            "calls": np.zeros((0, MAX_CALLS), np.uint8),
            "plays": None,
        }
    if raw.get("rules") is not None and raw["rules"].solo:
        return _solo_deals_frame(raw)
    out = kernel_columns(raw["out"])  # out[k]: column k, contiguous
    cols: dict[str, Any] = {
        "deal_id": raw["deal_id"].astype(np.int64),
        "seed": raw["seed"].astype(np.uint64),
        "dealer": out[K.COL_DEALER].astype(np.int8),
    }
    for s in range(4):
        cols[f"hand{s}"] = out[K.COL_HAND0 + s].astype(np.uint32)
    for s in range(4):
        cols[f"bid{s}"] = out[K.COL_BID0 + s].astype(np.uint32)
    cols["turned"] = _nullable(out[K.COL_TURNED])
    calls = np.ascontiguousarray(raw["calls"])
    auction = pa.array(calls.view(f"S{MAX_CALLS}").ravel()).cast(pa.string())
    cols["auction"] = pd.array(auction, dtype=pd.StringDtype("pyarrow"))
    strain = out[K.COL_STRAIN]
    cols["strain"] = pd.Categorical.from_codes(strain, dtype=STRAIN_DTYPE)
    cols["taker"] = _nullable(out[K.COL_TAKER])
    cols["doubling"] = out[K.COL_DOUBLING].astype(np.int8)
    cols["outcome"] = pd.Categorical.from_codes(out[K.COL_OUTCOME], dtype=OUTCOME_DTYPE)
    pairs = [
        ("card_points", K.COL_CARD0),
        ("decl", K.COL_DECL0),
        ("belote", K.COL_BELOTE0),
        ("raw", K.COL_RAW0),
        ("mp", K.COL_MP0),
        ("held_mp", K.COL_HELD0),
    ]
    for name, col in pairs:
        cols[f"{name}0"] = out[col].astype(np.int16)
        cols[f"{name}1"] = out[col + 1].astype(np.int16)
    cols["tricks0"] = out[K.COL_TRICKS0].astype(np.int8)
    cols["tricks1"] = out[K.COL_TRICKS1].astype(np.int8)
    cols["valat"] = _nullable(out[K.COL_VALAT])
    df = pd.DataFrame(cols)
    if raw.get("plays") is not None:
        names = CARD_NAMES[raw["plays"]]
        joined = np.array([" ".join(row) for row in names], dtype=object)
        joined[out[K.COL_STRAIN] < 0] = None
        df["plays"] = pd.array(joined, dtype="string")
    return df


_TABLE_SCHEMA: pa.Schema | None = None

#: Kernel output columns holding 32-bit card masks; every other column fits an int16.
_MASK_COLS = frozenset([K.COL_HAND0 + s for s in range(4)] + [K.COL_BID0 + s for s in range(4)])


def kernel_columns(out: np.ndarray) -> list[np.ndarray]:
    """The columns of the kernels' ``(n, NUM_COLS)`` int64 output, each a contiguous
    array: uint32 for the card masks, int32 for the other columns before the last mask
    column and int16 for those after it (narrower types than the table's or as narrow:
    the values the table gets are the same).

    One compiled pass over ``out``, row by row (``split_columns``): reading ``out``
    (rows of 240 bytes) one column at a time instead pulls the whole array through the
    cache once per column, about 4x the time for the 30 columns."""
    split = max(_MASK_COLS) + 1
    n = out.shape[0]
    # Rows padded to 64 bytes more than n values: rows whose starts are a multiple of
    # 4 KiB apart would share one set of the L1 cache, and 30 output streams thrash it.
    wide = np.empty((split, n + 16), np.uint32)[:, :n]
    narrow = np.empty((out.shape[1] - split, n + 32), np.int16)[:, :n]
    K.split_columns(np.ascontiguousarray(out, dtype=np.int64), wide, narrow)
    return [row if k in _MASK_COLS else row.view(np.int32) for k, row in enumerate(wide)] + list(
        narrow
    )


def _int_column(values: np.ndarray, dtype: Any) -> pa.Array:
    return pa.array(values.astype(dtype, copy=False))


def _nullable_column(values: np.ndarray) -> pa.Array:
    """int8 with nulls where the kernel value is negative (as ``_nullable``)."""
    return pa.array(values.astype(np.int8), mask=values < 0)


def _category_column(codes: np.ndarray, names: tuple[str, ...]) -> pa.Array:
    """A pandas categorical as Arrow stores it: int8 codes (negative: null) into the
    category names."""
    return pa.DictionaryArray.from_arrays(
        pa.array(codes.astype(np.int8), mask=codes < 0), pa.array(names, pa.large_string())
    )


def deals_table(raw: dict[str, Any], cols: list[np.ndarray] | None = None) -> pa.Table:
    """``pa.Table.from_pandas(deals_frame(raw), preserve_index=False)`` -- the same
    table, schema and pandas metadata included -- built from the kernel arrays without
    pandas (the 4-player table without trick log; the others go through pandas).
    ``cols``: ``kernel_columns(raw["out"])`` if the caller has it already."""
    global _TABLE_SCHEMA
    if raw.get("plays") is not None or (raw.get("rules") is not None and raw["rules"].solo):
        return pa.Table.from_pandas(deals_frame(raw), preserve_index=False)
    if _TABLE_SCHEMA is None:
        _TABLE_SCHEMA = pa.Table.from_pandas(deals_frame(None), preserve_index=False).schema
    if cols is None:
        cols = kernel_columns(raw["out"])
    arrays = [
        pa.array(raw["deal_id"].astype(np.int64, copy=False)),
        pa.array(raw["seed"].astype(np.uint64, copy=False)),
        _int_column(cols[K.COL_DEALER], np.int8),
    ]
    arrays += [_int_column(cols[K.COL_HAND0 + s], np.uint32) for s in range(4)]
    arrays += [_int_column(cols[K.COL_BID0 + s], np.uint32) for s in range(4)]
    calls = np.ascontiguousarray(raw["calls"])
    arrays += [
        _nullable_column(cols[K.COL_TURNED]),
        pa.array(calls.view(f"S{MAX_CALLS}").ravel()).cast(pa.large_string()),
        _category_column(cols[K.COL_STRAIN], STRAIN_NAMES),
        _nullable_column(cols[K.COL_TAKER]),
        _int_column(cols[K.COL_DOUBLING], np.int8),
        _category_column(cols[K.COL_OUTCOME], OUTCOME_NAMES),
    ]
    for col in (K.COL_CARD0, K.COL_DECL0, K.COL_BELOTE0, K.COL_RAW0, K.COL_MP0, K.COL_HELD0):
        arrays += [_int_column(cols[col], np.int16), _int_column(cols[col + 1], np.int16)]
    arrays += [
        _int_column(cols[K.COL_TRICKS0], np.int8),
        _int_column(cols[K.COL_TRICKS1], np.int8),
        _nullable_column(cols[K.COL_VALAT]),
    ]
    return pa.Table.from_arrays(arrays, schema=_TABLE_SCHEMA)


def _auction(calls: np.ndarray) -> pd.arrays.ArrowStringArray:
    calls = np.ascontiguousarray(calls)
    auction = pa.array(calls.view(f"S{MAX_CALLS}").ravel()).cast(pa.string())
    return pd.array(auction, dtype=pd.StringDtype("pyarrow"))


def _solo_deals_frame(raw: dict[str, Any]) -> pd.DataFrame:
    """Deals table of a game where every player is alone (see the module docstring)."""
    rules = raw["rules"]
    n = rules.players
    out = raw["out"]
    cols: dict[str, Any] = {
        "deal_id": raw["deal_id"].astype(np.int64),
        "seed": raw["seed"].astype(np.uint64),
        "dealer": out[:, K.S_DEALER].astype(np.int8),
    }
    for p in range(n):
        cols[f"hand{p}"] = out[:, K.S_HAND + p].astype(np.uint32)
    for p in range(n):
        cols[f"bid{p}"] = out[:, K.S_BID + p].astype(np.uint32)
    if rules.variant == "open":
        for name, col in (("table_up", K.S_UP0), ("table_down", K.S_DOWN0)):
            for p in range(2):
                cols[f"{name}{p}"] = out[:, col + p].astype(np.uint32)
        for p in range(2):
            cols[f"table{p}"] = out[:, K.S_TABLE0 + p].astype(np.int64)
    cols["auction"] = _auction(raw["calls"])
    cols["strain"] = pd.Categorical.from_codes(out[:, K.S_STRAIN], dtype=STRAIN_DTYPE)
    cols["taker"] = _nullable(out[:, K.S_TAKER])
    cols["doubling"] = out[:, K.S_DOUBLING].astype(np.int8)
    cols["outcome"] = pd.Categorical.from_codes(out[:, K.S_OUTCOME], dtype=OUTCOME_DTYPE)
    bases = dict(
        card_points=K.S_CARD,
        decl=K.S_DECL,
        belote=K.S_BELOTE,
        raw=K.S_RAW,
        mp=K.S_MP,
        held_mp=K.S_HELD,
        tricks=K.S_TRICKS,
    )
    for name in PER_PLAYER:
        dtype = np.int8 if name == "tricks" else np.int16
        for p in range(n):
            cols[f"{name}{p}"] = out[:, bases[name] + p].astype(dtype)
    cols["valat"] = _nullable(out[:, K.S_VALAT])
    df = pd.DataFrame(cols)
    if raw.get("plays") is not None:
        n_cards = rules.n_tricks * n
        names = CARD_NAMES[raw["plays"][:, :n_cards]]
        joined = np.array([" ".join(row) for row in names], dtype=object)
        joined[out[:, K.S_STRAIN] < 0] = None
        df["plays"] = pd.array(joined, dtype="string")
    return df


def table_piles(packed: int) -> list[list[int]]:
    """The four ``[face-down, face-up]`` card pairs of a ``table0``/``table1`` value."""
    packed = int(packed)
    return [[(packed >> (12 * k)) & 63, (packed >> (12 * k + 6)) & 63] for k in range(4)]


def games_frame(seeds: np.ndarray, out: np.ndarray, players: int = 2) -> pd.DataFrame:
    """DataFrame of the games table from ``simulate_games`` kernel output (``players``:
    2 score columns for teams or two players, 3 for the 3-player game)."""
    scores = {
        f"score{p}": out[:, (K.G_SCORE0, K.G_SCORE1, K.G_SCORE2)[p]].astype(np.int32)
        for p in range(players)
    }
    return pd.DataFrame(
        {
            "game_id": np.arange(len(seeds), dtype=np.int64),
            "seed": seeds.astype(np.uint64),
            "first_dealer": out[:, K.G_FIRST_DEALER].astype(np.int8),
            "deals": out[:, K.G_DEALS].astype(np.int32),
            **scores,
            "held": out[:, K.G_HELD].astype(np.int32),
            "winner": _nullable(out[:, K.G_WINNER]),
            "thrown_in": out[:, K.G_THROWN_IN].astype(np.int32),
            "hanging": out[:, K.G_HANGING].astype(np.int32),
            "valats": out[:, K.G_VALATS].astype(np.int32),
        }
    )


def summary_counts(df: pd.DataFrame, counts: dict[str, Any]) -> dict[str, Any]:
    """Accumulate contract mix and success counts of a chunk into ``counts``."""
    mix = counts.setdefault("contracts", {})
    made = counts.setdefault("made", {})
    for strain, n in df["strain"].value_counts(sort=False).items():
        mix[strain] = mix.get(strain, 0) + int(n)
    ok = df[df["outcome"] == "made"]["strain"].value_counts(sort=False)
    for strain, n in ok.items():
        made[strain] = made.get(strain, 0) + int(n)
    counts["thrown_in"] = counts.get("thrown_in", 0) + int((df["outcome"] == "thrown_in").sum())
    return counts


def summary_counts_of_codes(
    strain: np.ndarray, outcome: np.ndarray, counts: dict[str, Any]
) -> dict[str, Any]:
    """``summary_counts`` from the kernel's strain and outcome codes (``COL_STRAIN``,
    ``COL_OUTCOME`` columns; strain -1 when thrown in), without a DataFrame: one
    ``bincount`` of the (strain, outcome) pairs."""
    mix = counts.setdefault("contracts", {})
    made = counts.setdefault("made", {})
    n_strains, n_outcomes = len(STRAIN_NAMES), len(OUTCOME_NAMES)
    # rows: no strain (-1, thrown in), the strains, any other code; columns: the
    # outcomes, any other code
    rows = np.asarray(strain).astype(np.intp) + 1
    cols = np.asarray(outcome).astype(np.intp)
    if len(rows) and (rows.min() < 0 or rows.max() > n_strains):
        rows = np.where((rows >= 0) & (rows <= n_strains), rows, n_strains + 1)
    if len(cols) and (cols.min() < 0 or cols.max() >= n_outcomes):
        cols = np.where((cols >= 0) & (cols < n_outcomes), cols, n_outcomes)
    table = np.bincount(
        rows * (n_outcomes + 1) + cols, minlength=(n_strains + 2) * (n_outcomes + 1)
    )
    table = table.reshape(n_strains + 2, n_outcomes + 1)
    for code, name in enumerate(STRAIN_NAMES):
        mix[name] = mix.get(name, 0) + int(table[code + 1].sum())
    for code, name in enumerate(STRAIN_NAMES):
        made[name] = made.get(name, 0) + int(table[code + 1, OUTCOME_MADE])
    thrown = int(table[:, OUTCOME_THROWN_IN].sum())
    counts["thrown_in"] = counts.get("thrown_in", 0) + thrown
    return counts


def format_summary(summary: dict[str, Any]) -> str:
    """A few lines for the terminal: speed (of the deals simulated in this run, when a
    resumed run kept some), contract mix, success rates."""
    computed = summary.get("computed", summary["deals"])
    if summary.get("already_complete") or (summary["deals"] and not computed):
        lines = [f"{summary['deals']:,} deals, all already there (nothing simulated)"]
    elif computed != summary["deals"]:
        lines = [
            f"{summary['deals']:,} deals: {computed:,} simulated in this run "
            f"({summary['deals'] - computed:,} kept from an earlier one) in "
            f"{summary['seconds']:.1f} s ({summary['deals_per_s']:,.0f} deals/s)"
        ]
    else:
        lines = [
            f"{summary['deals']:,} deals in {summary['seconds']:.1f} s "
            f"({summary['deals_per_s']:,.0f} deals/s)"
        ]
    total = max(summary["deals"], 1)
    lines.append(f"thrown in: {summary.get('thrown_in', 0) / total:.1%}")
    lines.append("strain  contracts  share   made")
    for strain in STRAIN_NAMES:
        n = summary.get("contracts", {}).get(strain, 0)
        if n:
            made = summary.get("made", {}).get(strain, 0)
            lines.append(f"{strain:<6}  {n:>9,}  {n / total:5.1%}  {made / n:5.1%}")
    return "\n".join(lines)


def table_status(path: str) -> dict[str, Any]:
    """What a deals Parquet file is and whether it is whole (reads only its footer).

    A single-file table is complete when its completion mark
    (``safe_io.COMPLETE_KEY``: ``{"complete": true, "rows": n, ...}``) says so and its
    row count equals both the mark's and the provenance's ``n``; a part file of a
    dataset directory (``belote_sim_chunk`` metadata) when its rows are the chunk's.
    Returns ``rows``, ``provenance``, ``complete``, ``chunks`` and ``n_chunks`` (the
    finished and planned chunks), ``problem`` (None, or why it is not complete) and
    ``part`` (whether it is a part of a dataset directory).  Its bytes are checked by
    ``verify_table``.
    Raises ``ValueError`` for a file that is not a readable belote-sim Parquet table.
    """
    import pyarrow.parquet as pq

    from belote_sim.simulation.safe_io import read_mark

    try:
        pf = pq.ParquetFile(path)
        meta = pf.schema_arrow.metadata or {}
        if PROVENANCE_KEY not in meta:
            raise ValueError("no belote-sim provenance in its metadata")
        provenance = json.loads(meta[PROVENANCE_KEY])
        problem = provenance_problem(provenance)
        if problem:
            raise ValueError(f"its belote-sim provenance {problem}")
        rows = pf.metadata.num_rows
        file_meta = pf.metadata.metadata or {}
        chunk = json.loads(file_meta[CHUNK_KEY]) if CHUNK_KEY in file_meta else None
    except (OSError, pa.ArrowException, json.JSONDecodeError, ValueError) as exc:
        raise ValueError(
            f"{path}: not a readable belote-sim deals table: {reason_text(exc)}"
        ) from None
    n = provenance.get("n")
    size = provenance.get("chunk_size") or 1
    n_chunks = -(-n // size) if isinstance(n, int) and isinstance(size, int) else 0
    status = {
        "rows": rows,
        "provenance": provenance,
        "complete": False,
        "chunks": 0,
        "n_chunks": n_chunks,
        "problem": None,
        "part": isinstance(chunk, dict),
    }
    if isinstance(chunk, dict):  # a part of a dataset directory
        status.update(chunks=1, n_chunks=1)
        if rows != chunk.get("rows"):
            status["problem"] = f"a dataset part of {chunk.get('rows')} rows that has {rows} rows"
            status["chunks"] = 0
        else:
            status["complete"] = True
        return status
    mark = read_mark(file_meta)
    done = rows // size if isinstance(size, int) else 0
    if mark is None:
        status["chunks"] = min(done, n_chunks)
        status["problem"] = (
            "no completion mark: an interrupted run, or a file not written by belote-sim simulate"
        )
    elif rows != mark.get("rows"):
        status["chunks"] = min(done, n_chunks)
        status["problem"] = f"it has {rows:,} rows, its completion mark says {mark.get('rows')}"
    elif not mark.get("complete"):
        status["chunks"] = int(mark.get("chunks", done))
        status["problem"] = (
            f"an unfinished run: {status['chunks']} of {n_chunks} chunks ({rows:,} of {n} deals)"
        )
    elif rows != n:
        status["chunks"] = min(done, n_chunks)
        status["problem"] = f"it has {rows:,} rows, its provenance says {n} deals"
    else:
        status.update(complete=True, chunks=n_chunks)
    return status


def incomplete_error(path: str, problem: str) -> ValueError:
    """The one-line error of a reader refusing an incomplete table."""
    return ValueError(
        f"{path}: incomplete deals table ({problem}); pass --allow-incomplete "
        "(allow_incomplete=True) to read it anyway"
    )


def verify_table(path: str, status: dict[str, Any] | None = None) -> str:
    """Check the bytes of a single-file table (``status``: its ``table_status``):
    ``"verified"``, or ``"none"`` where there is nothing to check against.

    A table written by ``simulate`` carries the SHA-256 of the whole file in its
    completion mark (``table_checksum``); a dataset part read on its own is checked
    against the checksum its directory's manifest lists.  A complete table without a
    checksum (written before belote-sim stored one) is read with a one-line
    ``UnverifiedTableWarning``; a resumable partial file has none (and is refused
    anyway, unless ``allow_incomplete``).  ``ValueError`` (one line) when the bytes
    differ from the ones written: a flipped byte never reads as good data."""
    status = status if status is not None else table_status(path)
    if status.get("part"):
        directory, name = os.path.split(os.path.abspath(path))
        try:
            manifest = load_manifest(directory)
        except ValueError:
            manifest = None
        entry = next((e for e in (manifest or {}).get("chunks", []) if e["file"] == name), None)
        if entry is None:
            warnings.warn(
                f"{path}: a dataset part read on its own, without a manifest that lists "
                "it: its bytes are not checked",
                UnverifiedTableWarning,
                stacklevel=2,
            )
            return "none"
        if file_sha256(path) != entry["sha256"]:
            raise ValueError(
                f"{path}: checksum mismatch with its dataset's manifest: the file was "
                "altered after it was written; rerun the study's command to redo it"
            )
        return "verified"
    result = table_checksum(path)
    if result == "none" and status["complete"]:
        warnings.warn(
            f"{path}: no checksum (written before belote-sim stored one): read without "
            "checking its bytes",
            UnverifiedTableWarning,
            stacklevel=2,
        )
    return result


def read_dataset(out_dir: str | os.PathLike, allow_incomplete: bool = False, verify: bool = True):
    """The finished parts of a dataset as a ``pyarrow.dataset.Dataset`` (deal order).

    Only files recorded in the manifest are part of it (never a temporary or stray
    file), each checked against it first (``manifest.dataset_status``; with ``verify``,
    the default, its SHA-256 too: one read of every part).
    ``dataset.to_table().to_pandas()`` gives the deals table;
    ``dataset.to_batches(columns=...)`` streams it.  The schema metadata holds the
    provenance under ``belote_sim``.  An incomplete dataset is an error unless
    ``allow_incomplete``.
    """
    import pyarrow.dataset as ds

    paths = dataset_status(out_dir, allow_incomplete, verify=verify)["paths"]
    if not paths:
        return ds.dataset(pa.Table.from_pandas(deals_frame(None), preserve_index=False))
    return ds.dataset(paths, format="parquet")


def read_deals(
    path: str,
    columns: list[str] | None = None,
    allow_incomplete: bool = False,
    verify: bool = True,
) -> pd.DataFrame:
    """Read a deals table written by ``belote-sim simulate``; provenance in ``attrs``.

    ``path`` is a Parquet file or a dataset directory (``run_study``).  Raises
    ``ValueError`` for a file that is not a readable belote-sim Parquet table, and for
    an incomplete one (no completion mark, a row count that differs from its metadata,
    an unfinished dataset) unless ``allow_incomplete``.  With ``verify`` (the default)
    the bytes are checked first against the checksum written with them (the file's,
    or every part's in the manifest; ``verify_table``): one more read of the file.
    """
    import pyarrow.parquet as pq

    if os.path.isdir(path):
        dataset = read_dataset(path, allow_incomplete=allow_incomplete, verify=verify)
        df = dataset.to_table(columns=columns).to_pandas()
        df.attrs["belote_sim"] = (load_manifest(path) or {}).get("provenance", {})
        return df
    status = table_status(path)
    provenance = status["provenance"]
    options = provenance.get("options") or {}
    players, variant = options.get("players", 4), options.get("variant", "standard")
    try:
        pf = pq.ParquetFile(path)
        missing = [c for c in deal_columns(players, variant) if c not in pf.schema_arrow.names]
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(
            f"{path}: not a readable belote-sim deals table: {reason_text(exc)}"
        ) from None
    if missing:
        raise ValueError(
            f"{path}: not a readable belote-sim deals table: missing column(s) "
            + ", ".join(missing)
        )
    if status["problem"] and not allow_incomplete:
        raise incomplete_error(path, status["problem"])
    if verify:
        verify_table(path, status)
    try:
        df = pf.read(columns=columns).to_pandas()
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise ValueError(
            f"{path}: not a readable belote-sim deals table: {reason_text(exc)}"
        ) from None
    df.attrs["belote_sim"] = provenance
    return df
