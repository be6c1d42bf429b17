"""Bidding studies and play duels on mirrored deals.

``bidding_sweep``: one ``threshold`` parameter takes each value in turn (the
"setting"); the other team keeps the baseline thresholds (by default the parameter
defaults).  Every deal is played twice with the same cards (a deal is dealt from its
seed before any policy acts): once with the setting in team 0 (seats 0, 2), once with
the teams swapped.  The setting's result on a deal is its net score (its team's MP
minus the other's, MP added now) averaged over the two plays, so the luck of the cards
cancels and the baseline against itself scores exactly 0 on every deal.  In game mode
the measure is the setting's game win rate, mirrored the same way on the game seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from belote_sim.kernels.bidding import THRESHOLD_DEFAULTS
from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.policies import BID_POLICIES
from belote_sim.rules import Rules
from belote_sim.simulation.runner import iter_chunks, make_study, simulate, simulate_games
from belote_sim.stats import Z95, holm_reject, mean_se, p_above_zero

__all__ = [
    "DUEL_CHUNK",
    "DUEL_KEYS",
    "DUEL_SEARCH_CHUNK",
    "SWEEP_ALPHA",
    "THRESHOLD_PARAMS",
    "bidding_duel",
    "bidding_sweep",
    "default_values",
    "duel",
    "mirrored_bidding",
]

THRESHOLD_PARAMS = BID_POLICIES["threshold"].param_names
#: The family-wise error rate of ``bidding_sweep``'s significant settings (Holm, one
#: -sided): 2.5%, so that one setting tried is significant exactly when its 95%
#: interval lies above 0.
SWEEP_ALPHA = 0.025


def _spec(params: Sequence[float]) -> str:
    return "threshold:" + ",".join(f"{p:g}" for p in params)


def default_values(param: str, step: float = 5.0, steps: int = 2) -> list[float]:
    """The default sweep of a threshold parameter: its default value and ``steps``
    steps of ``step`` points either side."""
    if param not in THRESHOLD_PARAMS:
        raise ValueError(
            f"unknown threshold parameter {param!r}: one of {', '.join(THRESHOLD_PARAMS)}"
        )
    base = THRESHOLD_DEFAULTS[THRESHOLD_PARAMS.index(param)]
    return [base + k * step for k in range(-steps, steps + 1)]


def bidding_sweep(
    param: str,
    values: Sequence[float] | None = None,
    deals: int = 100_000,
    rules: Any = "common",
    play: Any = None,
    seed: int = 0,
    baseline: Sequence[float] | None = None,
    games: int = 0,
    threads: int | None = None,
) -> pd.DataFrame:
    """Mirrored result of each value of one threshold parameter against the baseline.

    ``param``: one of ``suit``, ``nt``, ``at``, ``double``, ``redouble``; ``values``
    (default ``default_values(param)``; the baseline value is always added).  Returns
    one row per value, sorted: ``value``, ``baseline`` (the row of the baseline
    value), ``n`` (deals), ``mean_net_mp`` (MP per deal the setting gains over the
    baseline on mirrored deals; exactly 0 for the baseline) with ``se``, ``low``,
    ``high`` (95%), the same as ``delta``/``delta_se``/``delta_low``/``delta_high``,
    and with ``games`` > 0 ``win_rate`` (mirrored), ``win_delta`` and
    ``win_delta_se`` (paired against the baseline's mirrored games).  Each setting
    other than the baseline is a test of "it gains nothing": ``p_value`` (one-sided,
    normal; NaN for the baseline) and ``significant`` after Holm's correction over the
    ``settings_tried`` settings (family-wise ``SWEEP_ALPHA``, one-sided 2.5%: trying
    many settings does not make a chance winner more likely; one setting tried is
    significant when its 95% interval lies above 0).  ``best`` marks the highest mean
    among the significant settings (none when no setting is); ``edge`` marks the
    smallest and largest values.
    """
    if param not in THRESHOLD_PARAMS:
        raise ValueError(
            f"unknown threshold parameter {param!r}: one of {', '.join(THRESHOLD_PARAMS)}"
        )
    if deals < 2:
        raise ValueError(f"deals must be at least 2, got {deals}")
    base = [float(v) for v in (baseline or THRESHOLD_DEFAULTS)]
    index = THRESHOLD_PARAMS.index(param)
    values = default_values(param) if values is None else [float(v) for v in values]
    if not values:
        raise ValueError("give at least one value to sweep")
    values = sorted(set(values) | {base[index]})

    def mirrored(params):
        """Per deal (or game): the setting's mirrored measure."""
        first = [_spec(params), _spec(base), _spec(params), _spec(base)]
        second = [_spec(base), _spec(params), _spec(base), _spec(params)]
        a = simulate(deals, rules=rules, bidding=first, play=play, seed=seed, threads=threads)
        b = simulate(deals, rules=rules, bidding=second, play=play, seed=seed, threads=threads)
        if not (a["hand0"].to_numpy() == b["hand0"].to_numpy()).all():
            raise AssertionError("the two plays of a deal did not have the same cards")
        net = ((a["mp0"] - a["mp1"]).to_numpy(float) + (b["mp1"] - b["mp0"]).to_numpy(float)) / 2
        win = None
        if games:
            ga = simulate_games(
                games, rules=rules, bidding=first, play=play, seed=seed, threads=threads
            )
            gb = simulate_games(
                games, rules=rules, bidding=second, play=play, seed=seed, threads=threads
            )
            win = ((ga["winner"] == 0).to_numpy(float) + (gb["winner"] == 1).to_numpy(float)) / 2
        return net, win

    base_win = mirrored(base)[1] if games else None
    rows = []
    for value in values:
        params = list(base)
        params[index] = value
        net, win = mirrored(params)
        se = float(net.std(ddof=1) / np.sqrt(len(net)))
        mean = float(net.mean())
        row = {
            "param": param,
            "value": value,
            "baseline": value == base[index],
            "n": len(net),
            "mean_net_mp": mean,
            "se": se,
            "low": mean - Z95 * se,
            "high": mean + Z95 * se,
        }
        row.update(delta=mean, delta_se=se, delta_low=row["low"], delta_high=row["high"])
        if games:
            diff = win - base_win
            row["win_rate"] = float(win.mean())
            row["win_delta"] = float(diff.mean())
            row["win_delta_se"] = float(diff.std(ddof=1) / np.sqrt(len(diff)))
        rows.append(row)
    out = pd.DataFrame(rows)
    tried = ~out["baseline"]
    out["p_value"] = [
        p_above_zero(m, e) if t else float("nan")
        for m, e, t in zip(out["mean_net_mp"], out["se"], tried)
    ]
    out["settings_tried"] = int(tried.sum())
    out["significant"] = False
    out.loc[tried, "significant"] = holm_reject(out.loc[tried, "p_value"], SWEEP_ALPHA)
    out["best"] = False
    if out["significant"].any():
        out.loc[out["mean_net_mp"].where(out["significant"]).idxmax(), "best"] = True
    out["edge"] = (out["value"] == out["value"].min()) | (out["value"] == out["value"].max())
    return out


#: The keys of ``belote-sim duel --json``.
DUEL_KEYS = ("a", "b", "ruleset", "deals", "played", "thrown_in", "mean", "se", "by_strain")

#: Deals per chunk of a duel (chunk c takes its seeds from the c-th child of the seed,
#: so these fix the deals of every duel): small for the search policies (the progress
#: bar now moves within a chunk anyway: ``study.Pacer``).
DUEL_CHUNK = 8192
DUEL_SEARCH_CHUNK = 256


def mirrored_bidding(
    a: Any, b: Any, deals: int, progress: Any = None, **same: Any
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    """The two plays of ``deals`` mirrored deals: ``a`` bidding for team 0 then for
    team 1 (``same``: simulate's rules, play, seed, threads, options).  Returns the two
    deals tables, ``a``'s net MP per deal (its team's MP minus the other's, averaged
    over the two plays) and whether each deal was thrown in on both plays."""
    first = simulate(deals, bidding=[a, b, a, b], progress=progress, **same)
    second = simulate(deals, bidding=[b, a, b, a], progress=progress, **same)
    # The bidding cards are the deal (french: the rest of the cards follows the taker).
    for col in ("bid0", "bid1", "bid2", "bid3"):
        if not (first[col].to_numpy() == second[col].to_numpy()).all():
            raise AssertionError("the mirrored runs did not deal the same cards")
    net = (
        (first["mp0"] - first["mp1"]).to_numpy(float)
        + (second["mp1"] - second["mp0"]).to_numpy(float)
    ) / 2
    thrown = (first["outcome"] == "thrown_in").to_numpy() & (
        second["outcome"] == "thrown_in"
    ).to_numpy()
    return first, second, net, thrown


def duel(
    a: Any,
    b: Any,
    deals: int = 10_000,
    rules: Any = "common",
    bidding: Any = None,
    seed: int = 0,
    threads: int | None = None,
    options: Any = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play policy ``a`` against ``b`` on mirrored pairs of deals.

    Every deal is played twice with the same cards and auction: once with ``a`` in
    team 0 (seats 0, 2) and ``b`` in team 1, once with the teams swapped.  The measure
    is ``a``'s net match points per deal (its team's MP minus the other's, added now),
    averaged over the two plays of each deal; thrown-in deals are left out.  In the
    games where every player is alone (``players`` 2 or 3, open belot) ``a`` takes
    each seat in turn with ``b`` at the others -- 2 plays of each deal with 2 players,
    3 with 3 -- and the measure is ``a``'s MP minus the mean MP of the ``b`` players at
    its table, averaged over the plays of the deal (the bidding does not depend on the
    play, so the contract is the same in every play).  The deals
    are made in chunks of ``DUEL_CHUNK`` (``DUEL_SEARCH_CHUNK`` when a policy searches:
    ``dd``, ``pimc``), each simulated on ``threads`` threads; the result does not
    depend on the number of threads.  ``progress(n)`` is called as ``n`` more pairs
    are done, about every second or two (each chunk is computed in timed parts,
    ``study.Pacer``; the deals and the result are the same).

    Returns ``{"a", "b", "players", "ruleset", "deals", "played", "thrown_in", "mean",
    "se", "by_strain", "low", "high", "mean_mp_diff"}``: ``deals`` dealt, ``played``
    mirrored pairs played (the others were thrown in), ``mean`` MP per deal (a minus
    b) with its paired standard error ``se`` and 95% interval ``low``..``high``
    (``mean_mp_diff`` = ``mean``), ``by_strain`` ``{strain: {"pairs", "mean", "se"}}``.
    """
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    names = {str(p).split(":")[0] for p in (a, b)}
    chunk = DUEL_SEARCH_CHUNK if names & {"dd", "pimc"} else DUEL_CHUNK
    game = Rules.from_spec(rules, options)
    players = game.players
    # the seat (team) a takes in each play of a deal
    a_seats = [0, 1] if players == 4 else list(range(players))
    seatings = (
        [[a, b, a, b], [b, a, b, a]]
        if players == 4
        else [[a if s == k else b for s in range(players)] for k in a_seats]
    )
    plays = [make_study(game, bidding, seats, seed, chunk_size=chunk) for seats in seatings]
    nets, strains = [], []
    computed = [0] * len(plays)  # deals of each play computed so far
    shown = 0  # deals reported to progress (every play of them computed)

    def ticker(side: int) -> Callable[[int], None]:
        def tick(n: int) -> None:  # a part of a chunk computed (about every second)
            nonlocal shown
            computed[side] += n
            done = sum(computed) // len(plays)
            if progress and done > shown:
                progress(done - shown)
                shown = done

        return tick

    ticks = progress is not None
    for frames in zip(
        *(
            iter_chunks(study, deals, threads, ticks=ticker(k) if ticks else None)
            for k, study in enumerate(plays)
        )
    ):
        f1 = frames[0]
        played = (f1["outcome"] != "thrown_in").to_numpy()
        net = np.zeros(int(played.sum()))
        for seat, frame in zip(a_seats, frames):
            if players == 4:  # the team of ``seat`` against the other
                mine = frame[f"mp{seat}"].to_numpy(float)[played]
                theirs = frame[f"mp{1 - seat}"].to_numpy(float)[played]
            else:
                mp = frame[[f"mp{s}" for s in range(players)]].to_numpy(float)[played]
                mine = mp[:, seat]
                theirs = (mp.sum(axis=1) - mine) / (players - 1)
            net += mine - theirs
        nets.append(net / len(plays))
        strains.append(f1["strain"].astype(str).to_numpy()[played])
    x = np.concatenate(nets)
    strain = np.concatenate(strains)
    mean, se = mean_se(x)
    by_strain = {}
    for name in STRAIN_NAMES:
        sel = x[strain == name]
        if len(sel):
            m, e = mean_se(sel)
            by_strain[name] = {"pairs": len(sel), "mean": m, "se": e}
    return {
        "a": str(a),
        "b": str(b),
        "players": players,
        "ruleset": game.name,
        "deals": int(deals),
        "played": len(x),
        "thrown_in": int(deals - len(x)),
        "mean": mean,
        "se": se,
        "by_strain": by_strain,
        "low": mean - Z95 * se,
        "high": mean + Z95 * se,
        "mean_mp_diff": mean,
    }


def bidding_duel(
    a: Any,
    b: Any,
    deals: int = 100_000,
    rules: Any = "common",
    play: Any = None,
    seed: int = 0,
    threads: int | None = None,
    games: int = 0,
    options: dict | None = None,
) -> dict[str, Any]:
    """Bidding policy ``a`` against ``b`` on mirrored pairs of deals (everyone plays
    ``play``).

    Every deal is bid and played twice with the same cards: ``a`` bidding for team 0
    (seats 0, 2) and ``b`` for team 1, then the teams swapped.  The measure is ``a``'s
    net match points per deal (its team's MP minus the other's, added now; thrown-in
    deals count 0), averaged over the two plays of each deal, with its paired
    standard error.  With ``games`` > 0 whole games are played the same way (same game
    seeds, teams swapped) and ``win_rate`` is ``a``'s game win rate (unfinished games
    count as lost), with ``win_se``.  Returns ``{"a", "b", "ruleset", "deals",
    "played", "thrown_in", "mean", "se", "low", "high", "same_contract",
    "by_strain"}`` plus ``games``, ``win_rate``, ``win_se``, ``win_low``, ``win_high``
    in game mode.  ``thrown_in``: deals thrown in on both plays (they score 0);
    ``thrown_in_a``, ``thrown_in_b``: deals thrown in when ``a`` bids for team 0 (the
    first play; by_strain's ``"thrown_in"`` row), when ``b`` does (the second);
    ``same_contract``: deals whose two plays reached the same contract (strain, taker
    and doubling) or were both thrown in -- they score exactly 0, the policies differ
    on the others.  ``by_strain`` ``{strain: {"pairs", "mean", "se"}}``: the deals by
    the strain of the contract ``a`` reached bidding for team 0 (``"thrown_in"``: none);
    weighted by ``pairs`` the means add up to ``mean``.
    """
    orders = ([a, b, a, b], [b, a, b, a])  # a bids for team 0, then for team 1
    same = dict(rules=rules, play=play, seed=seed, threads=threads, options=options)
    first, second, x, thrown = mirrored_bidding(a, b, deals, **same)
    n = len(x)
    mean, se = mean_se(x)
    strain = first["strain"].astype(str).to_numpy()
    strain[(first["outcome"] == "thrown_in").to_numpy()] = "thrown_in"
    by_strain = {}
    for name in (*STRAIN_NAMES, "thrown_in"):
        sel = x[strain == name]
        if len(sel):
            m, e = mean_se(sel)
            by_strain[name] = {"pairs": len(sel), "mean": m, "se": e}
    agree = thrown.copy()  # both thrown in, or the same contract twice
    played_both = (
        (first["outcome"] != "thrown_in") & (second["outcome"] != "thrown_in")
    ).to_numpy()
    agree |= played_both & (
        (first["strain"].astype(str).to_numpy() == second["strain"].astype(str).to_numpy())
        & (first["taker"].fillna(-1).to_numpy(int) == second["taker"].fillna(-1).to_numpy(int))
        & (first["doubling"].to_numpy() == second["doubling"].to_numpy())
    )
    out = {
        "a": str(a),
        "b": str(b),
        "ruleset": first.attrs["belote_sim"]["ruleset"],
        "deals": int(n),
        "played": int(n - thrown.sum()),
        "thrown_in": int(thrown.sum()),
        "mean": mean,
        "se": se,
        "low": mean - Z95 * se,
        "high": mean + Z95 * se,
        "same_contract": int(agree.sum()),
        "thrown_in_a": int((first["outcome"] == "thrown_in").sum()),
        "thrown_in_b": int((second["outcome"] == "thrown_in").sum()),
        "by_strain": by_strain,
    }
    if games:
        g1, g2 = (simulate_games(games, bidding=order, **same) for order in orders)
        win = ((g1["winner"] == 0).to_numpy(float) + (g2["winner"] == 1).to_numpy(float)) / 2
        w, wse = float(win.mean()), float(win.std(ddof=1) / np.sqrt(len(win)))
        out.update(
            {
                "games": int(games),
                "win_rate": w,
                "win_se": wse,
                "win_low": w - Z95 * wse,
                "win_high": w + Z95 * wse,
            }
        )
    return out
