"""Report tables from a deals table: tidy pandas DataFrames, never printed.

Every table is built in two steps so that it can be computed over data larger than
memory: ``count_*`` turns a batch of deals into additive counts, ``finish_*`` turns
the summed counts into rates, means and intervals.  ``report_tables(source)`` does
both over a DataFrame, a Parquet file or a dataset directory (streamed by record
batches).  Files are checked first (``checked_source``): an incomplete table or
dataset is refused unless ``allow_incomplete``, and a dataset directory is read
through its manifest (stray files are ignored).  Intervals are 95% Wilson intervals
for proportions and normal intervals (mean ± 1.96 standard errors) for means.

Units: raw points, match points (MP; French points under french scoring).  Seats
are relative to the dealer where a column says ``position``: position 0 speaks
first.  "Taker" columns describe the taker's team (team = seat % 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from belote_sim.analysis.exact import (
    CARRE_RANKS,
    RANKS,
    closed_form,
    conditional_probabilities,
    team_probabilities,
)
from belote_sim.cards import STRAIN_NAMES
from belote_sim.kernels.bidding import SCORE
from belote_sim.kernels.tables import (
    CARD_POINTS,
    OUTCOME_NAMES,
    PLAIN_POINTS,
    POPCOUNT_BYTE,
    RANK_9,
    RANK_A,
    RANK_J,
    RANK_T,
    STRAIN_NT,
)
from belote_sim.stats import Z95, wilson_interval

__all__ = [
    "BID_TABLES",
    "FAMILIES",
    "HONOURS",
    "MP_BINS",
    "OUTCOMES",
    "POINT_BANDS",
    "RAW_BINS",
    "REPORT_COLUMNS",
    "SCORE_BANDS",
    "SEAT_ROLES",
    "STRAINS",
    "SUCCESS_BY",
    "TRUMP_BY",
    "TRUMP_POINT_BANDS",
    "bid_hand_features",
    "checked_source",
    "conditioned_seats",
    "count_bid_success",
    "count_declarations",
    "count_outcomes",
    "count_points",
    "count_seat_results",
    "count_success",
    "declaration_frequencies",
    "declaration_scopes",
    "finish_declarations",
    "finish_outcomes",
    "finish_points",
    "finish_seat_results",
    "finish_success",
    "game_of",
    "hand_events",
    "iter_batches",
    "net_mean_se",
    "outcome_rates",
    "point_distributions",
    "provenance_of",
    "report_columns",
    "report_tables",
    "study_conditions",
    "success_by_trump",
    "success_rates",
    "suit_bytes",
    "taker_features",
    "taker_results",
]

STRAINS = list(STRAIN_NAMES)
OUTCOMES = list(OUTCOME_NAMES)

_LONGEST_RUN = np.array(
    [max((len(s) for s in bin(b)[2:].split("0")), default=0) for b in range(256)], dtype=np.int8
)
_POPCOUNT = POPCOUNT_BYTE.astype(np.int8)  # int8 columns


# --- statistics ---------------------------------------------------------------------


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


def checked_source(
    source: Any, allow_incomplete: bool = False, verify: bool = True
) -> tuple[Any, dict[str, Any]]:
    """What to read of ``source`` and whether it is whole.

    ``source``: a DataFrame (taken as it is), a list of Parquet paths (idem), a Parquet
    file written by ``simulate`` (its completion mark and row count are checked) or a
    dataset directory (its manifest and parts are checked; only listed parts are
    read).  Returns ``(source or list of paths, status)`` with status keys ``complete``,
    ``chunks``, ``n_chunks`` and ``provenance``.  ``ValueError`` (one line) for an
    incomplete source unless ``allow_incomplete``.  With ``verify`` (the default) the
    bytes are checked against their checksum first (the file's: ``deal_table.
    verify_table``; every part's: ``manifest.dataset_status``), one read of them.
    """
    if isinstance(source, pd.DataFrame):
        return source, {
            "complete": True,
            "chunks": None,
            "n_chunks": None,
            "provenance": dict(source.attrs.get("belote_sim", {})),
        }
    if isinstance(source, (list, tuple)):
        return list(source), {"complete": True, "chunks": None, "n_chunks": None, "provenance": {}}
    from belote_sim.simulation.deal_table import incomplete_error, table_status, verify_table

    path = Path(source)
    if path.is_dir():
        from belote_sim.simulation.manifest import dataset_status

        st = dataset_status(path, allow_incomplete, verify=verify)
        return st["paths"], {
            "complete": st["complete"],
            "chunks": st["chunks"],
            "n_chunks": st["n_chunks"],
            "provenance": st["manifest"].get("provenance", {}),
        }
    if not path.exists():
        raise ValueError(f"{source}: no such file or directory")
    st = table_status(str(path))
    if st["problem"] and not allow_incomplete:
        raise incomplete_error(str(path), st["problem"])
    if verify:
        verify_table(str(path), st)
    return [str(path)], {
        "complete": st["complete"],
        "chunks": st["chunks"],
        "n_chunks": st["n_chunks"],
        "provenance": st["provenance"],
    }


def _files(source: Any) -> list[Path]:
    if isinstance(source, (list, tuple)):
        return [Path(f) for f in source]
    path = Path(source)
    if path.is_dir():  # a dataset directory: the checked parts of its manifest
        return [Path(f) for f in checked_source(source, verify=False)[0]]
    return [path]


def game_of(source: Any) -> tuple[int, str]:
    """``(players, variant)`` of a deals table (DataFrame, Parquet file or directory),
    read from its columns: ``hand3`` means 4 players, ``hand2`` 3, else 2; a
    ``table_up0`` column means open belot."""
    if isinstance(source, pd.DataFrame):
        names = set(source.columns)
    else:
        import pyarrow.parquet as pq

        from belote_sim.simulation.manifest import reason_text

        files = _files(source)
        if not files:
            raise ValueError(f"{source}: no Parquet files")
        try:
            names = set(pq.read_schema(str(files[0])).names)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{source}: cannot read the deals table: {reason_text(exc)}") from None
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


HONOURS = ["J 9 A", "J 9", "J A", "J", "9 A", "9", "A", "none"]
POINT_BANDS = ["0-9", "10-19", "20-29", "30-39", "40+"]
#: bands of the trump-aware points of the 5 bidding cards (``bid_hand_features``)
TRUMP_POINT_BANDS = ["0-9", "10-19", "20-29", "30-39", "40-49", "50-59", "60+"]
#: bands of the ``threshold`` policy's bidding score (``policies.THRESHOLD_SCORE_FORMULA``)
SCORE_BANDS = ["<50", "50-59", "60-69", "70-79", "80-89", "90-99", "100+"]
FAMILIES = ["suit", "NT", "AT"]


def bid_hand_features(df: pd.DataFrame) -> pd.DataFrame:
    """Features of the taker's bidding hand (the 5 cards seen when bidding; played deals
    of the 4-player game, index kept): ``family`` (suit / NT / AT), ``bid_trumps``
    (cards of the trump suit, 0 in NT/AT), ``honours`` (which of J, 9, A of trump it
    holds: one of ``HONOURS``), ``point_band`` (plain card points A11 T10 K4 Q3 J2 of
    the 5 cards, in bands of 10: ``POINT_BANDS``), ``bid_aces``, ``bid_jacks``,
    ``bid_nines``; ``score`` (the ``threshold`` policy's bidding score of the 5 cards in
    the contract's strain, ``policies.THRESHOLD_SCORE_FORMULA``) and its ``score_band``
    (``SCORE_BANDS``); ``trump_points`` (the card points of the 5 cards in the
    contract: trump points J 20, 9 14 for the trumps, plain points for the rest) and
    its ``trump_point_band`` (``TRUMP_POINT_BANDS``); ``net_mp`` (the MP the taker's
    team scored minus the defenders', at the contract's doubling)."""
    played = df[df["outcome"] != "thrown_in"]
    taker = played["taker"].astype(int).to_numpy()
    bids = np.stack([played[f"bid{s}"].to_numpy(np.int64) for s in range(4)], axis=1)
    rows = np.arange(len(played))
    b = suit_bytes(bids[rows, taker])
    strain = played["strain"].cat.codes.to_numpy()
    is_suit = strain < 4
    trump = np.where(is_suit, b[rows, np.minimum(strain, 3)], 0)
    out = pd.DataFrame(index=played.index)
    out["family"] = pd.Categorical.from_codes(
        np.where(is_suit, 0, np.where(strain == 4, 1, 2)), FAMILIES
    )
    out["bid_trumps"] = _POPCOUNT[trump]
    code = ((trump >> 4) & 1) * 4 + ((trump >> 2) & 1) * 2 + ((trump >> 7) & 1)
    # code J*4 + 9*2 + A -> index in HONOURS
    order = np.array([7, 6, 5, 4, 3, 2, 1, 0])
    out["honours"] = pd.Categorical.from_codes(order[code], HONOURS)
    points = np.zeros(len(b), dtype=np.int64)
    for rank in range(8):
        points += ((b >> rank) & 1).sum(axis=1) * PLAIN_POINTS[rank]
    out["point_band"] = pd.Categorical.from_codes(np.minimum(points // 10, 4), POINT_BANDS)
    out["bid_aces"] = ((b >> 7) & 1).sum(axis=1)
    out["bid_jacks"] = ((b >> 4) & 1).sum(axis=1)
    out["bid_nines"] = ((b >> 2) & 1).sum(axis=1)
    held = (bids[rows, taker][:, None] >> np.arange(32)) & 1  # (deals, 32) 0/1
    score = (held * SCORE[strain]).sum(axis=1)
    out["score"] = score
    out["score_band"] = pd.Categorical.from_codes(
        np.clip(score // 10 - 4, 0, len(SCORE_BANDS) - 1), SCORE_BANDS
    )
    tpoints = (held * CARD_POINTS[strain]).sum(axis=1)
    out["trump_points"] = tpoints
    out["trump_point_band"] = pd.Categorical.from_codes(
        np.minimum(tpoints // 10, len(TRUMP_POINT_BANDS) - 1), TRUMP_POINT_BANDS
    )
    side = taker % 2
    mp = np.stack([played[f"mp{t}"].to_numpy(np.int64) for t in range(2)], axis=1)
    out["net_mp"] = mp[rows, side] - mp[rows, 1 - side]
    return out


def count_bid_success(
    df: pd.DataFrame,
    by: Iterable[str],
    family: str | None = None,
    features: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Additive counts ``n``, ``made``, ``net`` and ``net2`` (sums of the net MP and of
    its square) of played contracts grouped by ``by`` (``bid_hand_features`` columns,
    or pass them as ``features``), optionally for one contract family."""
    by = list(by)
    frame = bid_hand_features(df) if features is None else features
    made = (df.loc[frame.index, "outcome"] == "made").to_numpy()
    if family is not None:
        keep = (frame["family"] == family).to_numpy()
        frame, made = frame[keep], made[keep]
    net = frame["net_mp"].to_numpy(np.float64)
    grouped = frame.assign(made=made, net=net, net2=net * net).groupby(by, observed=True, sort=True)
    return pd.DataFrame(
        {
            "n": grouped.size(),
            "made": grouped["made"].sum(),
            "net": grouped["net"].sum(),
            "net2": grouped["net2"].sum(),
        }
    ).reset_index()


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
    return pd.DataFrame(
        {
            "made": (played["outcome"] == "made").to_numpy(),
            "taker_raw": raw,
            "taker_mp": mp,
            "defender_mp": dmp,
        },
        index=played.index,
    )


# --- contract success -------------------------------------------------------------------


def count_success(
    df: pd.DataFrame, by: Iterable[str] = ("strain", "doubling", "taker_position")
) -> pd.DataFrame:
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
    """Sum counts over batches and add ``rate``, ``low``, ``high`` (Wilson 95%); counts
    with ``net`` and ``net2`` (``count_bid_success``) keep them and add ``net_mp`` (mean
    net MP per contract) and ``net_se`` (its standard error)."""
    by = list(by)
    total = counts.groupby(by, sort=True, observed=True).sum(numeric_only=True).reset_index()
    sums = [c for c in ("net", "net2") if c in total.columns]
    total = _rate_columns(total[by + ["n", "made"] + sums], "made")
    if sums:
        total["net_mp"], total["net_se"] = net_mean_se(total["net"], total["net2"], total["n"])
    return total


def net_mean_se(net: Any, net2: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of the mean from sums ``net``, ``net2`` (of squares) and
    counts ``n`` (NaN where ``n`` is 0; s.e. NaN under 2)."""
    net, net2, n = (np.asarray(x, dtype=np.float64) for x in (net, net2, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = net / n
        var = (net2 - n * mean * mean) / (n - 1)
        se = np.sqrt(np.maximum(var, 0) / n)
    return mean, np.where(n >= 2, se, np.nan)


def success_rates(
    df: pd.DataFrame, by: Iterable[str] = ("strain", "doubling", "taker_position")
) -> pd.DataFrame:
    """Contract success rates (made / played) with counts and 95% Wilson intervals."""
    return finish_success(count_success(df, by), by)


def success_by_trump(df: pd.DataFrame) -> pd.DataFrame:
    """Suit-contract success by the taker's trump holding: J, 9, A of trump and the
    number of trumps."""
    suit = df[df["strain"].isin(["C", "D", "H", "S"])]
    return success_rates(suit, ["trump_j", "trump_9", "trump_a", "n_trumps"])


# --- the conditioned seat and its team -------------------------------------------------

#: who takes, seen from a conditioned seat (``count_seat_results``)
SEAT_ROLES = ["seat", "partner", "opponents", "nobody"]


def conditioned_seats(provenance: dict) -> list[int]:
    """The seats with predealt cards or constraints in a study's provenance, sorted."""
    keys = set((provenance.get("predeal") or {}).keys())
    keys |= set((provenance.get("constraints") or {}).keys())
    return sorted({int(k) for k in keys})


def count_seat_results(df: pd.DataFrame, seat: int) -> pd.DataFrame:
    """Additive counts of every deal (4-player game) seen from ``seat`` and its team
    (``seat % 2``): grouped by ``role`` (who takes: ``SEAT_ROLES`` -- the seat, its
    partner, an opponent, nobody), ``strain`` ("none" when thrown in) and
    ``seat_position`` (the seat's place in the bidding, 0 = first to speak): ``n``
    deals, ``made`` contracts made by the takers, ``net`` and ``net2`` (sums of the
    team's net MP -- its match points minus the other team's, at the doubling played,
    held points excluded -- and of its square)."""
    taker = df["taker"].astype("float64").to_numpy()
    played = (df["outcome"] != "thrown_in").to_numpy()
    partner = (seat + 2) % 4
    role = np.where(
        ~played,
        3,
        np.where(taker == seat, 0, np.where(taker == partner, 1, 2)),
    )
    team = seat % 2
    net = df[f"mp{team}"].to_numpy(np.float64) - df[f"mp{1 - team}"].to_numpy(np.float64)
    frame = pd.DataFrame(
        {
            "role": pd.Categorical.from_codes(role, SEAT_ROLES),
            "strain": df["strain"].astype(str).where(played, "none").to_numpy(),
            "seat_position": (seat - df["dealer"].to_numpy(np.int64) - 1) % 4,
            "made": (df["outcome"] == "made").to_numpy(),
            "net": net,
            "net2": net * net,
        }
    )
    grouped = frame.groupby(["role", "strain", "seat_position"], observed=True, sort=True)
    out = pd.DataFrame(
        {
            "n": grouped.size(),
            "made": grouped["made"].sum(),
            "net": grouped["net"].sum(),
            "net2": grouped["net2"].sum(),
        }
    ).reset_index()
    out.insert(0, "seat", seat)
    out["role"] = out["role"].astype(str)
    return out


def finish_seat_results(counts: pd.DataFrame) -> pd.DataFrame:
    """``count_seat_results`` summed over batches, with ``net_mp`` (the team's mean net MP
    per deal of the group) and its standard error ``net_se``."""
    by = ["seat", "role", "strain", "seat_position"]
    total = counts.groupby(by, sort=True).sum(numeric_only=True).reset_index()
    total["net_mp"], total["net_se"] = net_mean_se(total["net"], total["net2"], total["n"])
    return total


# --- outcomes and point distributions ------------------------------------------------------


def count_outcomes(df: pd.DataFrame) -> pd.DataFrame:
    """Additive counts of outcomes (and valat) over all deals."""
    counts = {o: int((df["outcome"] == o).sum()) for o in OUTCOMES}
    counts["valat"] = int(df["valat"].notna().sum())
    counts["doubled"] = int((df["doubling"] > 0).sum())
    return pd.DataFrame({"event": list(counts), "count": list(counts.values()), "n": len(df)})


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
    for measure, values, bins in (
        ("taker_raw", res["taker_raw"].to_numpy(), RAW_BINS),
        ("taker_mp", res["taker_mp"].to_numpy(), MP_BINS),
    ):
        for s in STRAINS:
            v = values[strain == s]
            if len(v) == 0:
                continue
            clipped = np.clip(v, bins[0], bins[-1] - 1)
            hist, _ = np.histogram(clipped, bins=bins)
            parts.append(
                pd.DataFrame(
                    {
                        "strain": s,
                        "measure": measure,
                        "bin": bins[:-1],
                        "count": hist,
                        "sum": 0.0,
                        "sumsq": 0.0,
                    }
                )
            )
            parts.append(
                pd.DataFrame(
                    {
                        "strain": [s],
                        "measure": [measure],
                        "bin": [-999],
                        "count": [len(v)],
                        "sum": [float(v.sum())],
                        "sumsq": [float((v.astype(float) ** 2).sum())],
                    }
                )
            )
    if not parts:
        return pd.DataFrame(columns=["strain", "measure", "bin", "count", "sum", "sumsq"])
    return pd.concat(parts, ignore_index=True)


def finish_points(counts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary per strain and measure: n, mean, sd, low, high; histogram counts)."""
    total = counts.groupby(["strain", "measure", "bin"], sort=False).sum().reset_index()
    moments = total[total["bin"] == -999]
    n = moments["count"].to_numpy(float)
    mean = moments["sum"].to_numpy() / n
    var = np.maximum(moments["sumsq"].to_numpy() / n - mean**2, 0) * n / np.maximum(n - 1, 1)
    se = np.sqrt(var / n)
    summary = pd.DataFrame(
        {
            "strain": moments["strain"].to_numpy(),
            "measure": moments["measure"].to_numpy(),
            "n": n.astype(int),
            "mean": mean,
            "sd": np.sqrt(var),
            "low": mean - Z95 * se,
            "high": mean + Z95 * se,
        }
    )
    order = {s: i for i, s in enumerate(STRAINS)}
    summary = summary.sort_values(
        ["measure", "strain"], key=lambda c: c.map(order) if c.name == "strain" else c
    ).reset_index(drop=True)
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


def count_declarations(df: pd.DataFrame, by_seat: bool = False) -> pd.DataFrame:
    """Additive counts of the ``belote_sim.analysis.exact`` events in the dealt hands, per scope of
    ``declaration_scopes`` (4 players: per 5-card bidding hand, per 8-card hand and per
    team); the ``deck`` column says which deck the exact values are for.  ``by_seat``
    (4 players): one row per seat (per team for ``team``) in a ``seat`` column, for a
    study whose predealt cards or constraints make the seats differ."""
    players, variant = game_of(df)
    rows: list[tuple] = []
    if players != 4 or variant == "open":
        # the first scope is the bidding cards (open belot: the hand), the second the
        # hand (open belot: the hand and the face-up table cards)
        for k, (scope, deck) in enumerate(declaration_scopes(players, variant)):
            first = "hand" if variant == "open" or k == 1 else "bid"
            hands = np.concatenate([df[f"{first}{p}"].to_numpy(np.int64) for p in range(players)])
            if variant == "open" and k == 1:
                hands |= np.concatenate(
                    [df[f"table_up{p}"].to_numpy(np.int64) for p in range(players)]
                )
            for event, hits in hand_events(hands).items():
                rows.append((scope, event, int(hits.sum()), len(hands), deck))
        return pd.DataFrame(rows, columns=["scope", "event", "hits", "n", "deck"])
    full = ~df["outcome"].eq("thrown_in") | df["turned"].isna()  # french thrown-in: 5 cards
    seats = [[s] for s in range(4)] if by_seat else [list(range(4))]
    for scope, col, mask in (("hand5", "bid", None), ("hand8", "hand", full)):
        part = df if mask is None else df[mask]
        for group in seats:
            hands = np.concatenate([part[f"{col}{s}"].to_numpy(np.int64) for s in group])
            for event, hits in hand_events(hands).items():
                rows.append((scope, event, int(hits.sum()), len(hands), 32, group[0]))
    part = df[full]
    team_rows: dict[int, list[tuple[str, int]]] = {0: [], 1: []}
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
                team_rows[team].append((key, int((hits_a | hits_b).sum())))
            else:
                team_rows[team].append((event, int((a[event] | b[event]).sum())))
    if by_seat:
        for team in (0, 1):
            rows += [("team", e, h, len(part), 32, team) for e, h in team_rows[team]]
    else:
        rows += [
            ("team", e, h0 + h1, 2 * len(part), 32, 0)
            for (e, h0), (_, h1) in zip(team_rows[0], team_rows[1])
        ]
    out = pd.DataFrame(rows, columns=["scope", "event", "hits", "n", "deck", "seat"])
    return out if by_seat else out.drop(columns="seat")


def finish_declarations(counts: pd.DataFrame, conditions: dict | None = None) -> pd.DataFrame:
    """Observed rates beside the exact probabilities, with standard errors and z.

    With ``conditions`` (``{"predeal": ..., "constraints": ...}`` of the study, counts by
    seat) the exact values are those of each seat's hand given the predealt cards and
    constraints (``exact.conditional_probabilities``); where that law is not computed
    (the team scope; a hand whose law mixes over another seat's rejection constraints;
    the 8 cards of the french deal) ``exact`` is empty: no unconditional value is shown
    beside a conditioned study."""
    keys = ["scope", "event", "deck"] + (["seat"] if "seat" in counts.columns else [])
    total = counts.groupby(keys, sort=False).sum().reset_index()
    exact = []
    cache: dict = {}
    for row in total.itertuples():
        scope, event, deck = row.scope, row.event, row.deck
        if conditions is not None:
            if scope == "team" or (scope == "hand8" and conditions.get("two_round")):
                exact.append(np.nan)
                continue
            size = int(scope[4:])
            key = (int(row.seat), size)
            if key not in cache:
                cache[key] = conditional_probabilities(
                    int(row.seat), size, conditions.get("predeal"), conditions.get("constraints")
                )
            probs = cache[key]
            exact.append(np.nan if not probs else float(probs[event]))
        elif scope == "team":
            exact.append(float(team_probabilities()[f"team_{event}"]))
        else:
            exact.append(float(closed_form(int(scope[4:]), deck=int(deck))[event]))
    total["exact"] = exact
    total = _rate_columns(total, "hits")
    total["stderr"] = np.sqrt(total["exact"] * (1 - total["exact"]) / total["n"])
    with np.errstate(invalid="ignore", divide="ignore"):
        total["z"] = (total["rate"] - total["exact"]) / total["stderr"]
        # a certain event (exact 0 or 1) seen as certain: no deviation
        total.loc[(total["stderr"] == 0) & (total["rate"] == total["exact"]), "z"] = 0.0
    return total


def declaration_frequencies(df: pd.DataFrame, conditions: dict | None = None) -> pd.DataFrame:
    """Frequencies of runs, carrés and K+Q in the dealt hands, per 5-card bidding hand,
    per 8-card hand and per team, beside their exact probabilities (``exact``), the
    binomial standard error of the rate under the exact value and the z-score.  With
    ``conditions`` (see ``study_conditions``): per seat, exact values conditioned on the
    study's predealt cards and constraints."""
    counts = count_declarations(df, by_seat=conditions is not None)
    return finish_declarations(counts, conditions)


def provenance_of(source: Any) -> dict:
    """The study provenance kept with a deals table (DataFrame attrs or Parquet
    metadata; {} when there is none)."""
    if isinstance(source, pd.DataFrame):
        return dict(source.attrs.get("belote_sim", {}))
    import json

    import pyarrow.parquet as pq

    path = Path(source)
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    for f in files:
        try:
            meta = pq.ParquetFile(f).schema_arrow.metadata or {}
        except (OSError, ValueError) as exc:
            raise ValueError(f"{f}: not a readable Parquet file ({_short(exc)})") from None
        if b"belote_sim" in meta:
            return json.loads(meta[b"belote_sim"])
    return {}


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__


def study_conditions(provenance: dict) -> dict | None:
    """``{"predeal", "constraints", "two_round"}`` of a study with predealt cards or
    constraints, None for an unconditioned study."""
    predeal = provenance.get("predeal") or {}
    constraints = provenance.get("constraints") or {}
    if not predeal and not constraints:
        return None
    options = provenance.get("options") or {}
    return {
        "predeal": predeal,
        "constraints": constraints,
        "two_round": options.get("bidding") == "two_round",
    }


# --- everything at once, over data larger than memory ---------------------------------------

REPORT_COLUMNS = (
    [
        "dealer",
        "strain",
        "taker",
        "doubling",
        "outcome",
        "raw0",
        "raw1",
        "mp0",
        "mp1",
        "valat",
        "turned",
    ]
    + [f"hand{s}" for s in range(4)]
    + [f"bid{s}" for s in range(4)]
)


def report_columns(players: int = 4, variant: str = "standard") -> list[str]:
    """The columns the report reads, for a game of ``players`` players."""
    if players == 4 and variant != "open":
        return list(REPORT_COLUMNS)
    per = range(players)
    return (
        ["dealer", "strain", "taker", "doubling", "outcome", "valat"]
        + [f"{c}{p}" for c in ("raw", "mp", "hand", "bid") for p in per]
        + ([f"table_up{p}" for p in per] if variant == "open" else [])
    )


def iter_batches(source: Any, batch_rows: int = 1 << 20) -> Iterator[pd.DataFrame]:
    """DataFrames of at most ``batch_rows`` rows from a DataFrame, a Parquet file, a list
    of Parquet files or a dataset directory (read by record batches, columns of the
    report only; a directory through its checked manifest, see ``checked_source``)."""
    if isinstance(source, pd.DataFrame):
        for start in range(0, len(source), batch_rows):
            yield source.iloc[start : start + batch_rows]
        return
    import pyarrow.dataset as ds

    from belote_sim.simulation.deal_table import OUTCOME_DTYPE, STRAIN_DTYPE
    from belote_sim.simulation.manifest import reason_text

    files = _files(source)
    if not files:
        raise ValueError(f"{source}: no Parquet files")
    try:
        dataset = ds.dataset([str(f) for f in files], format="parquet")
        columns = report_columns(*game_of(files))
        for batch in dataset.to_batches(columns=columns, batch_size=batch_rows):
            frame = batch.to_pandas()
            frame["strain"] = frame["strain"].astype(STRAIN_DTYPE)
            frame["outcome"] = frame["outcome"].astype(OUTCOME_DTYPE)
            yield frame
    except (OSError, ValueError) as exc:
        raise ValueError(f"{source}: cannot read the deals table: {reason_text(exc)}") from None


SUCCESS_BY = ("strain", "doubling", "taker_position")
#: the bidding-hand tables: name -> (grouping columns, contract family or None)
BID_TABLES = {
    "bid_trumps": (("bid_trumps", "honours"), "suit"),
    "bid_score": (("family", "score_band"), None),
    "bid_trump_points": (("family", "trump_point_band"), None),
    "bid_nt_aces": (("bid_aces",), "NT"),
    "bid_at_jacks_nines": (("bid_jacks", "bid_nines"), "AT"),
}
TRUMP_BY = ("trump_j", "trump_9", "trump_a", "n_trumps")


def report_tables(
    source: Any,
    provenance: dict | None = None,
    allow_incomplete: bool = False,
    verify: bool = True,
) -> dict[str, pd.DataFrame]:
    """Every report table from a DataFrame, Parquet file, list of Parquet files or
    dataset directory (checked first: ``checked_source``).

    A study with predealt cards or constraints (read from ``provenance``, by default
    the one kept with the table) gets its declarations per seat with conditional exact
    values (``finish_declarations``), and (4 players) a ``conditioned_seat`` table: every
    deal seen from each conditioned seat and its team (``count_seat_results``)."""
    source, status = checked_source(source, allow_incomplete, verify)
    if provenance is None:
        provenance = status["provenance"] or {}
    conditions = study_conditions(provenance)
    parts: dict[str, list[pd.DataFrame]] = {
        k: [] for k in ("success", "trump", "outcomes", "points", "decl")
    }
    bid_parts: dict[str, list[pd.DataFrame]] = {name: [] for name in BID_TABLES}
    four = game_of(source) == (4, "standard")
    seats = conditioned_seats(provenance) if four else []
    seat_parts: list[pd.DataFrame] = []
    for batch in iter_batches(source):
        if four:
            features = bid_hand_features(batch)
            for name, (by, family) in BID_TABLES.items():
                bid_parts[name].append(count_bid_success(batch, by, family, features))
        parts["success"].append(count_success(batch, SUCCESS_BY))
        suit = batch[batch["strain"].isin(["C", "D", "H", "S"])]
        parts["trump"].append(count_success(suit, TRUMP_BY))
        parts["outcomes"].append(count_outcomes(batch))
        parts["points"].append(count_points(batch))
        parts["decl"].append(count_declarations(batch, by_seat=conditions is not None))
        seat_parts += [count_seat_results(batch, seat) for seat in seats]
    if not parts["outcomes"]:
        raise ValueError("the deals table is empty")
    summary, hist = finish_points(pd.concat(parts["points"], ignore_index=True))
    bid_tables = {
        name: finish_success(pd.concat(bid_parts[name]), by)
        for name, (by, _) in BID_TABLES.items()
        if four
    }
    return {
        **bid_tables,
        "success_by_contract": finish_success(pd.concat(parts["success"]), SUCCESS_BY),
        "success_by_trump": finish_success(pd.concat(parts["trump"]), TRUMP_BY),
        "outcomes": finish_outcomes(pd.concat(parts["outcomes"])),
        "points": summary,
        "points_histogram": hist,
        "declarations": finish_declarations(pd.concat(parts["decl"]), conditions),
        **(
            {"conditioned_seat": finish_seat_results(pd.concat(seat_parts, ignore_index=True))}
            if seat_parts
            else {}
        ),
    }
