"""Report tables from a deals table: tidy pandas DataFrames, never printed.

Every table is built in two steps so that it can be computed over data larger than
memory: ``count_*`` turns a batch of deals into additive counts, ``finish_*`` turns
the summed counts into rates, means and intervals.  ``report_tables(source)`` does
both over a DataFrame, a Parquet file or a directory of Parquet parts (streamed by
record batches).  Intervals are 95% Wilson intervals for proportions and normal
intervals (mean ± 1.96 standard errors) for means.

Units: raw points, match points (MP; French points under french scoring).  Seats
are relative to the dealer where a column says ``position``: position 0 speaks
first.  "Taker" columns describe the taker's team (team = seat % 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import pandas as pd

from belote_sim.analysis.exact import CARRE_RANKS, RANKS, closed_form, team_probabilities
from belote_sim.cards import STRAIN_NAMES
from belote_sim.kernels.tables import OUTCOME_NAMES, PLAIN_POINTS, POPCOUNT_BYTE, RANK_9, RANK_A, \
    RANK_J, RANK_T, STRAIN_NT

Z95 = 1.959963984540054
STRAINS = list(STRAIN_NAMES)
OUTCOMES = list(OUTCOME_NAMES)

_LONGEST_RUN = np.array([max((len(s) for s in bin(b)[2:].split("0")), default=0)
                         for b in range(256)], dtype=np.int8)
_POPCOUNT = POPCOUNT_BYTE.astype(np.int8)  # int8 columns


# --- statistics ---------------------------------------------------------------------

def wilson_interval(successes, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion (arrays allowed; n = 0 -> NaN)."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def _rate_columns(df: pd.DataFrame, hits: str, n: str = "n") -> pd.DataFrame:
    low, high = wilson_interval(df[hits], df[n])
    df = df.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        df["rate"] = df[hits] / df[n]
    df["low"] = low
    df["high"] = high
    return df


# --- hand features -------------------------------------------------------------------

def suit_bytes(hands: np.ndarray) -> np.ndarray:
    """(n, 4) suit bytes of hand masks."""
    hands = np.asarray(hands, dtype=np.int64)
    return np.stack([(hands >> (8 * s)) & 0xFF for s in range(4)], axis=1)


def hand_events(hands: np.ndarray) -> dict[str, np.ndarray]:
    """Boolean arrays of the ``belote_sim.analysis.exact`` one-hand events for hand masks
    (``kq_suit`` for hearts)."""
    b = suit_bytes(hands)
    longest = _LONGEST_RUN[b].max(axis=1)
    out = {"run3": longest == 3, "run4": longest == 4, "run5": longest >= 5}
    common = b[:, 0] & b[:, 1] & b[:, 2] & b[:, 3]
    any_carre = np.zeros(len(b), dtype=bool)
    for r in CARRE_RANKS:
        has = (common >> RANKS.index(r)) & 1 == 1
        out[f"carre_{r}"] = has
        any_carre |= has
    out["carre_any"] = any_carre
    out["kq_suit"] = (b[:, 2] & 0x60) == 0x60
    return out


def game_of(source: Any) -> tuple[int, str]:
    """``(players, variant)`` of a deals table (DataFrame, Parquet file or directory),
    read from its columns: ``hand3`` means 4 players, ``hand2`` 3, else 2; a
    ``table_up0`` column means open belot."""
    if isinstance(source, pd.DataFrame):
        names = set(source.columns)
    else:
        import pyarrow.parquet as pq

        path = Path(source)
        files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
        if not files:
            raise ValueError(f"{source}: no Parquet files")
        try:
            names = set(pq.read_schema(str(files[0])).names)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{source}: cannot read the deals table: {exc}") from None
    players = 4 if "hand3" in names else 3 if "hand2" in names else 2
    return players, "open" if "table_up0" in names else "standard"


def taker_features(df: pd.DataFrame) -> pd.DataFrame:
    """Features of the taker's hand (played deals only, index kept).

    Columns: ``trump_j``, ``trump_9``, ``trump_a`` (holds that trump: suit contracts),
    ``n_trumps`` (cards of the trump suit; 0 in NT/AT), ``n_aces``, ``n_tens``,
    ``n_jacks``, ``strength`` (plain card points of the hand), ``taker_position``
    (0 = first to speak), ``partner_trumps`` (0 in the games without partners).
    """
    players, _ = game_of(df)
    played = df[df["outcome"] != "thrown_in"]
    taker = played["taker"].astype(int).to_numpy()
    hands = np.stack([played[f"hand{s}"].to_numpy(np.int64) for s in range(players)], axis=1)
    rows = np.arange(len(played))
    hand = hands[rows, taker]
    partner = hands[rows, (taker + 2) % 4] if players == 4 else np.zeros_like(hand)
    strain = played["strain"].cat.codes.to_numpy()
    b = suit_bytes(hand)
    pb = suit_bytes(partner)
    is_suit = strain < STRAIN_NT
    suit = np.minimum(strain, STRAIN_NT - 1)
    trump = np.where(is_suit, b[rows, suit], 0)
    ptrump = np.where(is_suit, pb[rows, suit], 0)
    out = pd.DataFrame(index=played.index)
    out["strain"] = played["strain"]
    out["trump_j"] = (trump >> RANK_J) & 1 == 1
    out["trump_9"] = (trump >> RANK_9) & 1 == 1
    out["trump_a"] = (trump >> RANK_A) & 1 == 1
    out["n_trumps"] = _POPCOUNT[trump]
    out["partner_trumps"] = _POPCOUNT[ptrump]
    out["n_aces"] = ((b >> RANK_A) & 1).sum(axis=1)
    out["n_tens"] = ((b >> RANK_T) & 1).sum(axis=1)
    out["n_jacks"] = ((b >> RANK_J) & 1).sum(axis=1)
    strength = np.zeros(len(b), dtype=np.int64)
    for rank in range(8):
        strength += ((b >> rank) & 1).sum(axis=1) * PLAIN_POINTS[rank]
    out["strength"] = strength
    out["taker_position"] = (taker - played["dealer"].to_numpy(np.int64) - 1) % players
    return out


def taker_results(df: pd.DataFrame) -> pd.DataFrame:
    """Per played deal: ``made`` (bool), ``taker_raw``, ``taker_mp`` and ``defender_mp``
    (MP added now, held points excluded; the taker's team in the 4-player game, the
    taker himself and all his opponents together where every player is alone)."""
    players, _ = game_of(df)
    played = df[df["outcome"] != "thrown_in"]
    taker = played["taker"].astype(int).to_numpy()
    if players == 4:
        side, sides = taker % 2, 2  # the taker's team
    else:
        side, sides = taker, players  # every player is alone
    rows = np.arange(len(played))
    raws = np.stack([played[f"raw{p}"].to_numpy(np.int64) for p in range(sides)], axis=1)
    mps = np.stack([played[f"mp{p}"].to_numpy(np.int64) for p in range(sides)], axis=1)
    raw = raws[rows, side]
    mp = mps[rows, side]
    dmp = mps.sum(axis=1) - mp
    return pd.DataFrame({"made": (played["outcome"] == "made").to_numpy(),
                         "taker_raw": raw, "taker_mp": mp, "defender_mp": dmp},
                        index=played.index)


# --- contract success -------------------------------------------------------------------

def count_success(df: pd.DataFrame, by: Iterable[str] = ("strain", "doubling",
                                                        "taker_position")) -> pd.DataFrame:
    """Additive counts ``n`` and ``made`` of played contracts grouped by ``by`` (any
    deals column or ``taker_features`` column)."""
    by = list(by)
    feats = taker_features(df)
    res = taker_results(df)
    frame = pd.concat([feats, res], axis=1)
    for col in by:
        if col not in frame.columns:
            frame[col] = df.loc[frame.index, col]
    if "strain" in by:
        frame["strain"] = frame["strain"].astype(str)
    grouped = frame.groupby(by, observed=True, sort=True)
    return pd.DataFrame({"n": grouped.size(), "made": grouped["made"].sum()}).reset_index()


def finish_success(counts: pd.DataFrame, by: Iterable[str]) -> pd.DataFrame:
    """Sum counts over batches and add ``rate``, ``low``, ``high`` (Wilson 95%)."""
    by = list(by)
    total = counts.groupby(by, sort=True).sum(numeric_only=True).reset_index()
    total = total[by + ["n", "made"]]
    return _rate_columns(total, "made")


def success_rates(df: pd.DataFrame, by: Iterable[str] = ("strain", "doubling",
                                                        "taker_position")) -> pd.DataFrame:
    """Contract success rates (made / played) with counts and 95% Wilson intervals."""
    return finish_success(count_success(df, by), by)


def success_by_trump(df: pd.DataFrame) -> pd.DataFrame:
    """Suit-contract success by the taker's trump holding: J, 9, A of trump and the
    number of trumps."""
    suit = df[df["strain"].isin(["C", "D", "H", "S"])]
    return success_rates(suit, ["trump_j", "trump_9", "trump_a", "n_trumps"])


# --- outcomes and point distributions ------------------------------------------------------

def count_outcomes(df: pd.DataFrame) -> pd.DataFrame:
    """Additive counts of outcomes (and valat) over all deals."""
    counts = {o: int((df["outcome"] == o).sum()) for o in OUTCOMES}
    counts["valat"] = int(df["valat"].notna().sum())
    counts["doubled"] = int((df["doubling"] > 0).sum())
    return pd.DataFrame({"event": list(counts), "count": list(counts.values()),
                         "n": len(df)})


def finish_outcomes(counts: pd.DataFrame) -> pd.DataFrame:
    total = counts.groupby("event", sort=False).sum().reset_index()
    total = total.rename(columns={"count": "hits"})
    # played deals are the denominator for made/inside/hanging/valat/doubled
    n_all = int(total["n"].iloc[0])
    n_played = n_all - int(total.loc[total["event"] == "thrown_in", "hits"].iloc[0])
    total["n"] = np.where(total["event"] == "thrown_in", n_all, n_played)
    return _rate_columns(total, "hits")


def outcome_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Rates of made, inside, hanging, valat and doubled contracts (per played deal)
    and of thrown-in deals (per deal), with 95% Wilson intervals."""
    return finish_outcomes(count_outcomes(df))


RAW_BINS = np.arange(0, 561, 10)
MP_BINS = np.arange(-20, 201, 2)


def count_points(df: pd.DataFrame) -> pd.DataFrame:
    """Additive histogram counts of the taker's raw points and MP per strain."""
    res = taker_results(df)
    strain = df.loc[res.index, "strain"].astype(str).to_numpy()
    parts = []
    for measure, values, bins in (("taker_raw", res["taker_raw"].to_numpy(), RAW_BINS),
                                  ("taker_mp", res["taker_mp"].to_numpy(), MP_BINS)):
        for s in STRAINS:
            v = values[strain == s]
            if len(v) == 0:
                continue
            clipped = np.clip(v, bins[0], bins[-1] - 1)
            hist, _ = np.histogram(clipped, bins=bins)
            parts.append(pd.DataFrame({"strain": s, "measure": measure, "bin": bins[:-1],
                                       "count": hist, "sum": 0.0, "sumsq": 0.0}))
            parts.append(pd.DataFrame({"strain": [s], "measure": [measure], "bin": [-999],
                                       "count": [len(v)], "sum": [float(v.sum())],
                                       "sumsq": [float((v.astype(float) ** 2).sum())]}))
    if not parts:
        return pd.DataFrame(columns=["strain", "measure", "bin", "count", "sum", "sumsq"])
    return pd.concat(parts, ignore_index=True)


def finish_points(counts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary per strain and measure: n, mean, sd, low, high; histogram counts)."""
    total = counts.groupby(["strain", "measure", "bin"], sort=False).sum().reset_index()
    moments = total[total["bin"] == -999]
    n = moments["count"].to_numpy(float)
    mean = moments["sum"].to_numpy() / n
    var = np.maximum(moments["sumsq"].to_numpy() / n - mean ** 2, 0) * n / np.maximum(n - 1, 1)
    se = np.sqrt(var / n)
    summary = pd.DataFrame({"strain": moments["strain"].to_numpy(),
                            "measure": moments["measure"].to_numpy(), "n": n.astype(int),
                            "mean": mean, "sd": np.sqrt(var), "low": mean - Z95 * se,
                            "high": mean + Z95 * se})
    order = {s: i for i, s in enumerate(STRAINS)}
    summary = summary.sort_values(["measure", "strain"], key=lambda c: c.map(order)
                                  if c.name == "strain" else c).reset_index(drop=True)
    hist = total[total["bin"] != -999][["strain", "measure", "bin", "count"]]
    return summary, hist.reset_index(drop=True)


def point_distributions(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation and 95% interval of the taker's raw points and MP per
    strain (``finish_points`` also gives the histograms)."""
    return finish_points(count_points(df))[0]


# --- declaration frequencies ------------------------------------------------------------

def declaration_scopes(players: int, variant: str) -> list[tuple[str, int]]:
    """``(scope, deck size)`` of the declaration counts of a game: ``handK`` is a set of K
    cards of one player -- 4 players: ``hand5`` (bidding), ``hand8`` and ``team``; 3
    players: ``hand5``, ``hand8``; 2 players: ``hand6``, ``hand9`` (24-card deck); open
    belot: ``hand8`` (the hand) and ``hand12`` (hand and face-up table cards)."""
    if variant == "open":
        return [("hand8", 32), ("hand12", 32)]
    if players == 3:
        return [("hand5", 24), ("hand8", 24)]
    if players == 2:
        return [("hand6", 24), ("hand9", 24)]
    return [("hand5", 32), ("hand8", 32), ("team", 32)]


def count_declarations(df: pd.DataFrame) -> pd.DataFrame:
    """Additive counts of the ``belote_sim.analysis.exact`` events in the dealt hands, per scope of
    ``declaration_scopes`` (4 players: per 5-card bidding hand, per 8-card hand and per
    team); the ``deck`` column says which deck the exact values are for."""
    players, variant = game_of(df)
    rows = []
    if players != 4 or variant == "open":
        # the first scope is the bidding cards (open belot: the hand), the second the
        # hand (open belot: the hand and the face-up table cards)
        for k, (scope, deck) in enumerate(declaration_scopes(players, variant)):
            first = "hand" if variant == "open" or k == 1 else "bid"
            hands = np.concatenate([df[f"{first}{p}"].to_numpy(np.int64) for p in range(players)])
            if variant == "open" and k == 1:
                hands |= np.concatenate([df[f"table_up{p}"].to_numpy(np.int64)
                                         for p in range(players)])
            for event, hits in hand_events(hands).items():
                rows.append((scope, event, int(hits.sum()), len(hands), deck))
        return pd.DataFrame(rows, columns=["scope", "event", "hits", "n", "deck"])
    full = ~df["outcome"].eq("thrown_in") | df["turned"].isna()  # french thrown-in: 5 cards
    for scope, cols, mask in (("hand5", [f"bid{s}" for s in range(4)], None),
                              ("hand8", [f"hand{s}" for s in range(4)], full)):
        part = df if mask is None else df[mask]
        hands = np.concatenate([part[c].to_numpy(np.int64) for c in cols])
        for event, hits in hand_events(hands).items():
            rows.append((scope, event, int(hits.sum()), len(hands), 32))
    part = df[full]
    for team in (0, 1):
        a = hand_events(part[f"hand{team}"].to_numpy(np.int64))
        b = hand_events(part[f"hand{team + 2}"].to_numpy(np.int64))
        for event in a:
            if event.startswith("run"):
                length = int(event[3])
                key = f"run{length}plus"
                hits_a = np.zeros(len(part), bool)
                hits_b = np.zeros(len(part), bool)
                for longer in range(length, 6):
                    hits_a |= a[f"run{longer}"]
                    hits_b |= b[f"run{longer}"]
                rows.append(("team", key, int((hits_a | hits_b).sum()), len(part), 32))
            else:
                rows.append(("team", event, int((a[event] | b[event]).sum()), len(part), 32))
    return pd.DataFrame(rows, columns=["scope", "event", "hits", "n", "deck"])


def finish_declarations(counts: pd.DataFrame) -> pd.DataFrame:
    """Observed rates beside the exact probabilities, with standard errors and z."""
    total = counts.groupby(["scope", "event", "deck"], sort=False).sum().reset_index()
    exact = []
    for scope, event, deck in zip(total["scope"], total["event"], total["deck"]):
        if scope == "team":
            exact.append(float(team_probabilities()[f"team_{event}"]))
        else:
            exact.append(float(closed_form(int(scope[4:]), deck=int(deck))[event]))
    total["exact"] = exact
    total = _rate_columns(total, "hits")
    total["stderr"] = np.sqrt(total["exact"] * (1 - total["exact"]) / total["n"])
    with np.errstate(invalid="ignore", divide="ignore"):
        total["z"] = (total["rate"] - total["exact"]) / total["stderr"]
    return total


def declaration_frequencies(df: pd.DataFrame) -> pd.DataFrame:
    """Frequencies of runs, carrés and K+Q in the dealt hands, per 5-card bidding hand,
    per 8-card hand and per team, beside their exact probabilities (``exact``), the
    binomial standard error of the rate under the exact value and the z-score."""
    return finish_declarations(count_declarations(df))


# --- everything at once, over data larger than memory ---------------------------------------

REPORT_COLUMNS = (["dealer", "strain", "taker", "doubling", "outcome", "raw0", "raw1",
                   "mp0", "mp1", "valat", "turned"] + [f"hand{s}" for s in range(4)]
                  + [f"bid{s}" for s in range(4)])


def report_columns(players: int = 4, variant: str = "standard") -> list[str]:
    """The columns the report reads, for a game of ``players`` players."""
    if players == 4 and variant != "open":
        return list(REPORT_COLUMNS)
    per = range(players)
    return (["dealer", "strain", "taker", "doubling", "outcome", "valat"]
            + [f"{c}{p}" for c in ("raw", "mp", "hand", "bid") for p in per]
            + ([f"table_up{p}" for p in per] if variant == "open" else []))


def iter_batches(source: Any, batch_rows: int = 1 << 20) -> Iterator[pd.DataFrame]:
    """DataFrames of at most ``batch_rows`` rows from a DataFrame, a Parquet file or a
    directory of Parquet parts (read by record batches, columns of the report only)."""
    if isinstance(source, pd.DataFrame):
        for start in range(0, len(source), batch_rows):
            yield source.iloc[start:start + batch_rows]
        return
    import pyarrow.dataset as ds

    from belote_sim.simulation.deal_table import OUTCOME_DTYPE, STRAIN_DTYPE

    path = Path(source)
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    if not files:
        raise ValueError(f"{source}: no Parquet files")
    try:
        dataset = ds.dataset([str(f) for f in files], format="parquet")
        columns = report_columns(*game_of(source))
        for batch in dataset.to_batches(columns=columns, batch_size=batch_rows):
            frame = batch.to_pandas()
            frame["strain"] = frame["strain"].astype(STRAIN_DTYPE)
            frame["outcome"] = frame["outcome"].astype(OUTCOME_DTYPE)
            yield frame
    except (OSError, ValueError) as exc:
        raise ValueError(f"{source}: cannot read the deals table: {exc}") from None


SUCCESS_BY = ("strain", "doubling", "taker_position")
TRUMP_BY = ("trump_j", "trump_9", "trump_a", "n_trumps")


def report_tables(source: Any) -> dict[str, pd.DataFrame]:
    """Every report table from a DataFrame, Parquet file or dataset directory."""
    parts: dict[str, list[pd.DataFrame]] = {k: [] for k in
                                            ("success", "trump", "outcomes", "points", "decl")}
    for batch in iter_batches(source):
        parts["success"].append(count_success(batch, SUCCESS_BY))
        suit = batch[batch["strain"].isin(["C", "D", "H", "S"])]
        parts["trump"].append(count_success(suit, TRUMP_BY))
        parts["outcomes"].append(count_outcomes(batch))
        parts["points"].append(count_points(batch))
        parts["decl"].append(count_declarations(batch))
    if not parts["outcomes"]:
        raise ValueError("the deals table is empty")
    summary, hist = finish_points(pd.concat(parts["points"], ignore_index=True))
    return {
        "success_by_contract": finish_success(pd.concat(parts["success"]), SUCCESS_BY),
        "success_by_trump": finish_success(pd.concat(parts["trump"]), TRUMP_BY),
        "outcomes": finish_outcomes(pd.concat(parts["outcomes"])),
        "points": summary,
        "points_histogram": hist,
        "declarations": finish_declarations(pd.concat(parts["decl"])),
    }
