"""Bidding studies: sweep a threshold parameter against a baseline, on the same deals.

Team 0 (seats 0 and 2) bids with the ``threshold`` policy where one parameter takes
each value in turn; team 1 keeps the baseline thresholds.  Every setting plays the
same deals (same seed, so the same cards: a deal is dealt from its seed before any
policy acts), so settings are compared *paired*: for each deal the difference of
team 0's net score (``mp0 - mp1``, MP added now) between the setting and the
baseline, whose mean and paired standard error say whether the setting is better.
In game mode the measure is team 0's game win rate, paired on the game seeds.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from belote_sim.kernels.bidding import THRESHOLD_DEFAULTS
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.policies import BID_POLICIES
from belote_sim.analysis.report_tables import Z95
from belote_sim.simulation.runner import iter_chunks, make_study, simulate, simulate_games

THRESHOLD_PARAMS = BID_POLICIES["threshold"].param_names


def _spec(params: Sequence[float]) -> str:
    return "threshold:" + ",".join(f"{p:g}" for p in params)


def bidding_sweep(param: str, values: Sequence[float], deals: int = 100_000,
                  rules: Any = "common", play: Any = "greedy", seed: int = 0,
                  baseline: Sequence[float] | None = None, games: int = 0,
                  threads: int | None = None) -> pd.DataFrame:
    """Mean result of team 0 for each value of one threshold parameter.

    ``param``: one of ``suit``, ``nt``, ``at``, ``double``, ``redouble``.  Returns one
    row per value: ``value``, ``n`` (deals), ``mean_net_mp`` (team 0's mp0 - mp1 per
    deal) with ``se``, ``delta`` (paired difference from the baseline setting) with
    ``delta_se`` and a 95% interval, and with ``games`` > 0 also ``win_rate``,
    ``win_delta``, ``win_delta_se`` over that many games.  ``best`` marks the value
    with the highest mean.
    """
    if param not in THRESHOLD_PARAMS:
        raise ValueError(f"unknown threshold parameter {param!r}: one of "
                         f"{', '.join(THRESHOLD_PARAMS)}")
    values = [float(v) for v in values]
    if not values:
        raise ValueError("give at least one value to sweep")
    base = list(baseline or THRESHOLD_DEFAULTS)
    index = THRESHOLD_PARAMS.index(param)

    def bidding(params):
        return [_spec(params), _spec(base), _spec(params), _spec(base)]

    base_df = simulate(deals, rules=rules, bidding=bidding(base), play=play, seed=seed,
                       threads=threads)
    base_net = (base_df["mp0"] - base_df["mp1"]).to_numpy(float)
    if games:
        base_games = simulate_games(games, rules=rules, bidding=bidding(base), play=play,
                                    seed=seed, threads=threads)
        base_win = (base_games["winner"] == 0).to_numpy(float)
    rows = []
    for value in values:
        params = list(base)
        params[index] = value
        df = simulate(deals, rules=rules, bidding=bidding(params), play=play, seed=seed,
                      threads=threads)
        if not (df["hand0"].to_numpy() == base_df["hand0"].to_numpy()).all():
            raise AssertionError("settings did not play the same deals")
        net = (df["mp0"] - df["mp1"]).to_numpy(float)
        diff = net - base_net
        row = {"param": param, "value": value, "n": len(net), "mean_net_mp": net.mean(),
               "se": net.std(ddof=1) / np.sqrt(len(net)), "delta": diff.mean(),
               "delta_se": diff.std(ddof=1) / np.sqrt(len(diff))}
        row["delta_low"] = row["delta"] - Z95 * row["delta_se"]
        row["delta_high"] = row["delta"] + Z95 * row["delta_se"]
        if games:
            g = simulate_games(games, rules=rules, bidding=bidding(params), play=play,
                               seed=seed, threads=threads)
            win = (g["winner"] == 0).to_numpy(float)
            row["win_rate"] = win.mean()
            row["win_delta"] = (win - base_win).mean()
            row["win_delta_se"] = (win - base_win).std(ddof=1) / np.sqrt(len(win))
        rows.append(row)
    out = pd.DataFrame(rows)
    out["best"] = out["mean_net_mp"] == out["mean_net_mp"].max()
    return out


#: The keys of ``belote-sim duel --json``.
DUEL_KEYS = ("a", "b", "ruleset", "deals", "played", "thrown_in", "mean", "se", "by_strain")

#: Deals per chunk of a duel (chunk c takes its seeds from the c-th child of the seed):
#: small for the search policies, so that the progress bar moves.
DUEL_CHUNK = 8192
DUEL_SEARCH_CHUNK = 256


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    se = float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return mean, se


def duel(a: Any, b: Any, deals: int = 10_000, rules: Any = "common", bidding: Any = None,
         seed: int = 0, threads: int | None = None, options: Any = None,
         progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play policy ``a`` against ``b`` on mirrored pairs of deals.

    Every deal is played twice with the same cards and auction: once with ``a`` in
    team 0 (seats 0, 2) and ``b`` in team 1, once with the teams swapped.  The measure
    is ``a``'s net match points per deal (its team's MP minus the other's, added now),
    averaged over the two plays of each deal; thrown-in deals are left out.  The deals
    are made in chunks of ``DUEL_CHUNK`` (``DUEL_SEARCH_CHUNK`` when a policy searches:
    ``dd``, ``pimc``), each simulated on ``threads`` threads; the result does not
    depend on the number of threads.  ``progress(n)`` is called after every ``n``
    pairs.

    Returns ``{"a", "b", "ruleset", "deals", "played", "thrown_in", "mean", "se",
    "by_strain", "low", "high", "mean_mp_diff"}``: ``deals`` dealt, ``played``
    mirrored pairs played (the others were thrown in), ``mean`` MP per deal (a minus
    b) with its paired standard error ``se`` and 95% interval ``low``..``high``
    (``mean_mp_diff`` = ``mean``), ``by_strain`` ``{strain: {"pairs", "mean", "se"}}``.
    """
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    names = {str(p).split(":")[0] for p in (a, b)}
    chunk = DUEL_SEARCH_CHUNK if names & {"dd", "pimc"} else DUEL_CHUNK
    first = make_study(rules, bidding, [a, b, a, b], seed, chunk_size=chunk, options=options)
    second = make_study(rules, bidding, [b, a, b, a], seed, chunk_size=chunk, options=options)
    nets, strains = [], []
    for f1, f2 in zip(iter_chunks(first, deals, threads), iter_chunks(second, deals, threads)):
        played = (f1["outcome"] != "thrown_in").to_numpy()
        net1 = (f1["mp0"] - f1["mp1"]).to_numpy(float)[played]
        net2 = (f2["mp1"] - f2["mp0"]).to_numpy(float)[played]
        nets.append((net1 + net2) / 2)
        strains.append(f1["strain"].astype(str).to_numpy()[played])
        if progress:
            progress(len(f1))
    x = np.concatenate(nets)
    strain = np.concatenate(strains)
    mean, se = _mean_se(x)
    by_strain = {}
    for name in STRAIN_NAMES:
        sel = x[strain == name]
        if len(sel):
            m, e = _mean_se(sel)
            by_strain[name] = {"pairs": int(len(sel)), "mean": m, "se": e}
    return {"a": str(a), "b": str(b), "ruleset": first.rules.name, "deals": int(deals),
            "played": int(len(x)), "thrown_in": int(deals - len(x)), "mean": mean, "se": se,
            "by_strain": by_strain, "low": mean - Z95 * se, "high": mean + Z95 * se,
            "mean_mp_diff": mean}
