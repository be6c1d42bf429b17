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

from typing import Any, Sequence

import numpy as np
import pandas as pd

from belote_sim.kernels.bidding import THRESHOLD_DEFAULTS
from belote_sim.policies import BID_POLICIES
from belote_sim.analysis.report_tables import Z95
from belote_sim.simulation.runner import simulate, simulate_games

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


def duel(a: Any, b: Any, deals: int = 10_000, rules: Any = "common", bidding: Any = None,
         seed: int = 0, threads: int | None = None) -> dict[str, Any]:
    """Play policy ``a`` against ``b`` on mirrored pairs of deals.

    Every deal is played twice with the same cards and auction: once with ``a`` in
    team 0 (seats 0, 2) and ``b`` in team 1, once with the teams swapped.  The measure
    is ``a``'s net match points per deal (its team's MP minus the other's, added now),
    averaged over the two plays of each deal; thrown-in deals are left out.  Returns
    ``{"a", "b", "deals", "mean_mp_diff", "se", "low", "high"}`` (paired standard error).
    """
    first = simulate(deals, rules=rules, bidding=bidding, play=[a, b, a, b], seed=seed,
                     threads=threads)
    second = simulate(deals, rules=rules, bidding=bidding, play=[b, a, b, a], seed=seed,
                      threads=threads)
    played = (first["outcome"] != "thrown_in").to_numpy()
    net1 = (first["mp0"] - first["mp1"]).to_numpy(float)[played]
    net2 = (second["mp1"] - second["mp0"]).to_numpy(float)[played]
    x = (net1 + net2) / 2
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    se = float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return {"a": str(a), "b": str(b), "deals": int(n), "mean_mp_diff": mean, "se": se,
            "low": mean - Z95 * se, "high": mean + Z95 * se}


def bidding_duel(a: Any, b: Any, deals: int = 100_000, rules: Any = "common",
                 play: Any = "greedy", seed: int = 0, threads: int | None = None,
                 games: int = 0, options: dict | None = None) -> dict[str, Any]:
    """Bidding policy ``a`` against ``b`` on mirrored pairs of deals (everyone plays
    ``play``).

    Every deal is bid and played twice with the same cards: ``a`` bidding for team 0
    (seats 0, 2) and ``b`` for team 1, then the teams swapped.  The measure is ``a``'s
    net match points per deal (its team's MP minus the other's, added now; thrown-in
    deals count 0), averaged over the two plays of each deal, with its paired
    standard error.  With ``games`` > 0 whole games are played the same way (same game
    seeds, teams swapped) and ``win_rate`` is ``a``'s game win rate (unfinished games
    count as lost), with ``win_se``.  Returns ``{"a", "b", "ruleset", "deals",
    "played", "thrown_in", "mean", "se", "low", "high"}`` plus ``games``, ``win_rate``,
    ``win_se``, ``win_low``, ``win_high`` in game mode.
    """
    first = simulate(deals, rules=rules, bidding=[a, b, a, b], play=play, seed=seed,
                     threads=threads, options=options)
    second = simulate(deals, rules=rules, bidding=[b, a, b, a], play=play, seed=seed,
                      threads=threads, options=options)
    if not (first["hand0"].to_numpy() == second["hand0"].to_numpy()).all():
        raise AssertionError("the mirrored runs did not play the same deals")
    x = ((first["mp0"] - first["mp1"]).to_numpy(float)
         + (second["mp1"] - second["mp0"]).to_numpy(float)) / 2
    thrown = ((first["outcome"] == "thrown_in").to_numpy()
              & (second["outcome"] == "thrown_in").to_numpy())
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    se = float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    out = {"a": str(a), "b": str(b), "ruleset": first.attrs["belote_sim"]["ruleset"],
           "deals": int(n), "played": int(n - thrown.sum()), "thrown_in": int(thrown.sum()),
           "mean": mean, "se": se, "low": mean - Z95 * se, "high": mean + Z95 * se}
    if games:
        g1 = simulate_games(games, rules=rules, bidding=[a, b, a, b], play=play, seed=seed,
                            threads=threads, options=options)
        g2 = simulate_games(games, rules=rules, bidding=[b, a, b, a], play=play, seed=seed,
                            threads=threads, options=options)
        win = ((g1["winner"] == 0).to_numpy(float) + (g2["winner"] == 1).to_numpy(float)) / 2
        w, wse = float(win.mean()), float(win.std(ddof=1) / np.sqrt(len(win)))
        out.update({"games": int(games), "win_rate": w, "win_se": wse,
                    "win_low": w - Z95 * wse, "win_high": w + Z95 * wse})
    return out
