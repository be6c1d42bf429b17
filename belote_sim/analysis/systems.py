"""System against system: bidding systems compared on mirrored deals.

``compare_systems([A, B, ...])`` plays every pair of bidding systems (bidding policy
specs, as ``--bid`` takes them) on the same deals, everyone playing one play policy:
once with A bidding for team 0 (seats 0, 2) and B for team 1, once with the teams
swapped.  A pair's result on a deal is A's net match points (its team's MP minus the
other's, added now; thrown-in deals count 0) averaged over the two plays, so the luck
of the cards cancels; every pair plays the same deals (the same seed).

**Where two systems differ.**  The two plays of a deal have the same cards and the
same play policy, so they differ only if their auctions do.  Up to the first call
where the two auctions part, every seat called the same in both plays although it
bid with A in one and with B in the other: the two systems agreed.  At that call the
seat -- the same seat, the same cards, the same calls heard -- called one thing with
A and another with B: that is where the systems differ, and the whole difference of
the deal's scores follows from it.  A deal whose auctions are identical is played
identically and scores exactly 0.  Each deal where the auctions part is classed by
that first different call:

* the *situation*: who holds the bid when it is made (``nobody has bid``, ``partner
  holds the bid``, ``an opponent holds the bid``, ``own bid``, each with its
  doubling), the kind of the contract named so far (``named``: suit, NT, AT; in the
  french rounds the turned suit) and the caller's *position* (1 = first after the
  dealer .. 4 = the dealer; ``atlas.position_of``);
* the calls of A and of B there (``pass``, ``suit``, ``NT``, ``AT``, ``double``,
  ``redouble``, ``third double``, ``take`` (french round one), ``fixed``);
* the caller's *hand class* (its five bidding cards up to the interchangeable suits,
  the atlas's canonicalisation ``simulation.atlas_table.hand_keys``): with a suit
  named, the named suit's holding in brackets, then the other three suits; otherwise
  the four suits.  Holdings are written in trump order (J 9 A T K Q 8 7; ``-`` a
  void), suits longest first.  A suit bid is written by the caller's holding in it
  (``suit J9A``).  Nothing depends on which physical suits hold the cards.

The rows of ``situations`` (situation, position, calls) and ``hands`` (situation,
hand class, calls, over all positions) partition the deals where the auctions part:
``share`` of all deals, the mean net MP of A on them with its standard error and 95%
interval, and ``contribution`` = share x mean, the MP per deal of the pair's whole
result that the row accounts for (the rows' contributions add up to the pair's mean).
Rows are sorted surest first: by the lower end of the 95% interval of |contribution|
(|contribution| - 1.96 s.e. of the contribution, at least 0; a row of one deal, with no
s.e., has 0), so that a rare hand class whose few deals happen to swing far does not
rank above a common one whose effect is certain.

Units: match points per deal (MP; French points under french scoring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from belote_sim.analysis.comparisons import mirrored_bidding
from belote_sim.atlas import play_spec, rules_words
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.policies import default_play
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import hand_keys
from belote_sim.simulation.runner import make_study, simulate_games
from belote_sim.stats import Z95, mean_se

__all__ = [
    "CALL_WORDS",
    "HOLDING_ORDER",
    "SystemsStudy",
    "call_kinds",
    "class_label",
    "compare_systems",
    "first_difference",
    "holding_label",
    "system_labels",
]

#: The coarse name of each call character of the auction (``kernels.bidding``).
CALL_WORDS = {
    "p": "pass",
    "C": "suit",
    "D": "suit",
    "H": "suit",
    "S": "suit",
    "N": "NT",
    "A": "AT",
    "x": "double",
    "r": "redouble",
    "t": "third double",
    "f": "fixed",
}
#: The order in which a holding's ranks are written (trump order; rank indices 0..7
#: are 7 8 9 T J Q K A).
HOLDING_ORDER = (4, 2, 7, 3, 6, 5, 1, 0)
_RANK_CHARS = "789TJQKA"
_STRAIN_OF = np.full(256, -1, dtype=np.int64)
for _k, _c in enumerate("CDHSNA"):
    _STRAIN_OF[ord(_c)] = _k
_DOUBLES = np.array([ord("x"), ord("r"), ord("t")], dtype=np.uint8)
_LEVEL_WORDS = ("", " doubled", " redoubled", " doubled three times")


def holding_label(byte: int) -> str:
    """One suit's holding (a byte: bit r = rank r held) in trump order: ``J9A``,
    ``-`` for a void."""
    text = "".join(_RANK_CHARS[r] for r in HOLDING_ORDER if (int(byte) >> r) & 1)
    return text or "-"


def _ordered(holdings: Sequence[int]) -> list[int]:
    """Holdings longest first, then by their byte (a fixed order of holdings, not of
    suits)."""
    return sorted(holdings, key=lambda b: (-bin(int(b)).count("1"), -int(b)))


def class_label(key: int, named: bool) -> str:
    """A hand class in words from its key (``hand_keys``): ``named`` (a suit class
    with the named suit as trump byte): ``(K7) J9A T -``; otherwise the four suits:
    ``J9A T K7 -``."""
    key = int(key)
    b = [(key >> s) & 0xFF for s in (24, 16, 8, 0)]
    if named:
        return f"({holding_label(b[0])}) " + " ".join(holding_label(x) for x in _ordered(b[1:]))
    return " ".join(holding_label(x) for x in _ordered(b))


def system_labels(systems: Sequence[Any]) -> list[str]:
    """The systems' names as given, made unique (``threshold``, ``threshold #2``)."""
    seen: dict[str, int] = {}
    labels = []
    for s in systems:
        name = str(s)
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return labels


def _calls_matrix(auctions: pd.Series) -> np.ndarray:
    """The auction strings as a (n, MAX_CALLS) uint8 matrix, zeros after the last call."""
    text = auctions.astype(str).to_numpy(dtype=str)
    if not len(text):
        return np.zeros((0, MAX_CALLS), np.uint8)
    return np.ascontiguousarray(text.astype(f"S{MAX_CALLS}")).view(np.uint8).reshape(-1, MAX_CALLS)


def first_difference(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """Where the auctions of two plays of the same deals first part (4 players).

    ``first``, ``second``: deals tables of the same deals (``simulate``), team 0
    bidding with system A in ``first`` and with B in ``second``.  Returns one row per
    deal whose auctions differ: ``deal`` (row index), ``k`` (index of the first
    different call), ``seat``, ``position`` (1..4), ``holder`` (nobody, own,
    partner, opponent), ``level`` (doubling of the bid held), ``strain`` (the bid
    held, -1 none; in the french rounds the turned suit), ``call_a`` and ``call_b``
    (the call characters of A and B there) and ``hand`` (the caller's bidding cards).
    """
    c1, c2 = _calls_matrix(first["auction"]), _calls_matrix(second["auction"])
    differ = c1 != c2
    rows = np.flatnonzero(differ.any(axis=1))
    k = differ[rows].argmax(axis=1)
    dealer = first["dealer"].to_numpy(np.int64)[rows]
    seat = (dealer + 1 + k) & 3
    prefix = c1[rows]
    current = np.full(len(rows), -1, np.int64)
    bidder = np.full(len(rows), -1, np.int64)
    level = np.zeros(len(rows), np.int64)
    french = "turned" in first.columns and first["turned"].notna().any()
    if french:
        turned = first["turned"].astype("float").to_numpy()[rows]
        current = np.where(np.isnan(turned), -1, np.nan_to_num(turned) // 8).astype(np.int64)
    else:
        for j in range(int(k.max()) if len(k) else 0):
            active = j < k
            call = prefix[:, j]
            strain = _STRAIN_OF[call]
            bid = active & (strain >= 0)
            current = np.where(bid, strain, current)
            bidder = np.where(bid, (dealer + 1 + j) & 3, bidder)
            level = np.where(bid, 0, level + (active & np.isin(call, _DOUBLES)))
    holder = np.where(
        bidder < 0,
        "nobody",
        np.where(bidder == seat, "own", np.where((bidder ^ seat) == 2, "partner", "opponent")),
    )
    ca, cb = c1[rows, k], c2[rows, k]
    a_first = (seat & 1) == 0  # team 0 bids with A in the first play
    call_a = np.where(a_first, ca, cb)
    call_b = np.where(a_first, cb, ca)
    bids = np.stack([first[f"bid{s}"].to_numpy(np.int64) for s in range(4)], axis=1)
    return pd.DataFrame(
        {
            "deal": rows,
            "k": k,
            "seat": seat,
            "position": (seat - dealer - 1) % 4 + 1,
            "holder": holder,
            "level": level,
            "strain": current,
            "french": french,
            "call_a": call_a,
            "call_b": call_b,
            "hand": bids[rows, seat],
        }
    )


def _situation(holder: str, level: int, french: bool, k: int) -> str:
    if french:
        return "round 1: the turned suit" if k < 4 else "round 2"
    if holder == "nobody":
        return "nobody has bid"
    what = {
        "own": "own bid",
        "partner": "partner holds the bid",
        "opponent": "an opponent holds the bid",
    }[holder]
    return what + _LEVEL_WORDS[min(int(level), 3)]


def call_kinds(calls: np.ndarray, french: bool, k: np.ndarray) -> np.ndarray:
    """The coarse names of call characters (``CALL_WORDS``); a suit taken in the french
    round one is ``take``."""
    words = np.array([CALL_WORDS.get(chr(int(c)), "none") for c in calls], dtype=object)
    if french:
        words[(k < 4) & (words == "suit")] = "take"
    return words


def _suit_call_labels(calls: np.ndarray, hands: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """A suit bid as the caller's holding in the suit (``suit J9A``); others as ``kinds``."""
    out = kinds.copy()
    strain = _STRAIN_OF[calls.astype(np.int64)]
    for i in np.flatnonzero((strain >= 0) & (strain < 4)):
        out[i] = f"{kinds[i]} {holding_label((int(hands[i]) >> (8 * int(strain[i]))) & 0xFF)}"
    return out


def _classes(diff: pd.DataFrame) -> pd.DataFrame:
    """``diff`` (``first_difference``) in words: situation, named, calls, hand class."""
    out = diff.copy()
    french = bool(len(diff)) and bool(diff["french"].iloc[0])
    out["situation"] = [
        _situation(h, v, french, kk) for h, v, kk in zip(diff["holder"], diff["level"], diff["k"])
    ]
    strain = diff["strain"].to_numpy()
    out["named"] = np.select([strain < 0, strain < 4, strain == 4], ["-", "suit", "NT"], "AT")
    k = diff["k"].to_numpy()
    kind_a = call_kinds(diff["call_a"].to_numpy(), french, k)
    kind_b = call_kinds(diff["call_b"].to_numpy(), french, k)
    hands = diff["hand"].to_numpy(np.int64)
    out["call_a"], out["call_b"] = kind_a, kind_b
    out["hand_call_a"] = _suit_call_labels(diff["call_a"].to_numpy(), hands, kind_a)
    out["hand_call_b"] = _suit_call_labels(diff["call_b"].to_numpy(), hands, kind_b)
    keys = np.zeros(len(diff), np.int64)
    named = (strain >= 0) & (strain < 4)
    for s in range(4):
        sel = named & (strain == s)
        keys[sel] = hand_keys(hands[sel], s)
    keys[~named] = hand_keys(hands[~named], 4)
    out["hand_key"] = keys
    labels: dict[tuple[int, bool], str] = {}
    out["hand_class"] = [
        labels.setdefault((int(key), bool(n)), class_label(int(key), bool(n)))
        for key, n in zip(keys, named)
    ]
    return out


def _grouped(frame: pd.DataFrame, by: list[str], n_deals: int) -> pd.DataFrame:
    """Deals, share, mean net MP, s.e., 95% interval and contribution per group of
    ``frame`` (one row per differing deal, its net in ``net``), surest first: by the
    lower 95% bound of |contribution| (module docstring), then |contribution|."""
    columns = by + ["deals", "share", "mean", "se", "low", "high", "contribution", "z"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    g = frame.groupby(by, sort=True, dropna=False)["net"]
    out = g.agg(deals="size", total="sum", mean="mean", sd="std").reset_index()
    out["share"] = out["deals"] / n_deals
    out["se"] = out["sd"] / np.sqrt(out["deals"])
    out["low"] = out["mean"] - Z95 * out["se"]
    out["high"] = out["mean"] + Z95 * out["se"]
    out["contribution"] = out["total"] / n_deals
    with np.errstate(divide="ignore", invalid="ignore"):
        out["z"] = out["mean"] / out["se"]
    size = out["contribution"].abs()
    bound = size - Z95 * out["se"] * out["deals"] / n_deals
    out["strength"] = bound.where(bound > 0, 0.0).fillna(0.0)
    out["size"] = size
    out = out.sort_values(
        ["strength", "size"] + by, ascending=[False, False] + [True] * len(by), kind="stable"
    )
    return out[columns].reset_index(drop=True)


def _mix_counts(frame: pd.DataFrame, team: int) -> dict[str, int]:
    """What the team ``team`` bid in one play of the deals: counts."""
    taker = frame["taker"].astype("float").to_numpy()
    played = ~np.isnan(taker)
    ours = played & (np.nan_to_num(taker, nan=0).astype(np.int64) & 1 == team)
    theirs = played & ~ours
    strain = frame["strain"].astype(str).to_numpy()
    doubling = frame["doubling"].to_numpy(np.int64)
    made = (frame["outcome"].astype(str) == "made").to_numpy()
    return {
        "plays": len(frame),
        "takes": int(ours.sum()),
        "suit": int((ours & np.isin(strain, ["C", "D", "H", "S"])).sum()),
        "nt": int((ours & (strain == "NT")).sum()),
        "at": int((ours & (strain == "AT")).sum()),
        "doubled": int((ours & (doubling >= 1)).sum()),
        "redoubled": int((ours & (doubling >= 2)).sum()),
        "made": int((ours & made).sum()),
        "opp_takes": int(theirs.sum()),
        "doubles": int((theirs & (doubling >= 1)).sum()),
        "thrown_in": int((~played).sum()),
    }


def _mix_row(system: str, opponent: str, c: dict[str, int]) -> dict[str, Any]:
    plays, takes = c["plays"], c["takes"]

    def share(x: int, n: int) -> float:
        return x / n if n else float("nan")

    made = share(c["made"], takes)
    return {
        "system": system,
        "opponent": opponent,
        "plays": plays,
        "takes": share(takes, plays),
        "suit": share(c["suit"], plays),
        "nt": share(c["nt"], plays),
        "at": share(c["at"], plays),
        "doubled": share(c["doubled"], takes),
        "redoubled": share(c["redoubled"], takes),
        "made": made,
        "made_se": float(np.sqrt(made * (1 - made) / takes)) if takes else float("nan"),
        "doubles": share(c["doubles"], c["opp_takes"]),
        "thrown_in": share(c["thrown_in"], plays),
    }


@dataclass
class SystemsStudy:
    """The result of ``compare_systems``: its tables and what was run.

    ``pairs``: one row per pair (a, b): ``deals``, ``thrown_in`` (deals thrown in in
    both plays), ``differ`` (share of deals whose auctions part), ``mean`` (a's net MP
    per deal over b) with ``se``, ``low``, ``high``, and with games ``games``,
    ``win_rate`` (a's mirrored game win rate), ``win_se``, ``win_low``, ``win_high``.
    ``standings``: per system its net MP per deal averaged over every opponent, with
    its paired s.e. (the same deals for every pair).  ``mix``: per system and
    opponent (and ``all``) the share of plays where its team takes (``takes``; by
    kind ``suit``, ``nt``, ``at``), of its contracts doubled, redoubled and made
    (``made_se``), of the opponents' contracts it doubled (``doubles``) and of plays
    thrown in.  ``situations`` and ``hands``: where the systems differ (module
    docstring), columns ``a``, ``b``, the classes, ``deals``, ``share``, ``mean``,
    ``se``, ``low``, ``high``, ``contribution``, ``z``.
    """

    systems: list[str]
    meta: dict[str, Any]
    pairs: pd.DataFrame
    standings: pd.DataFrame
    mix: pd.DataFrame
    situations: pd.DataFrame
    hands: pd.DataFrame
    nets: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    TABLES = ("pairs", "standings", "mix", "situations", "hands")

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables by name."""
        return {name: getattr(self, name) for name in self.TABLES}

    def long_table(self) -> pd.DataFrame:
        """Every table in one frame, its name in the first column ``table`` (for a
        CSV or Parquet file)."""
        frames = [df.assign(table=name) for name, df in self.tables().items() if len(df)]
        out = pd.concat(frames, ignore_index=True, sort=False)
        return out[["table"] + [c for c in out.columns if c != "table"]]

    def records(self) -> dict[str, Any]:
        """A JSON-ready dict: ``meta``'s keys, then every table as a list of rows."""
        out: dict[str, Any] = dict(self.meta)
        for name, df in self.tables().items():
            out[name] = df.to_dict(orient="records")
        return out


def _check_specs(systems: Sequence[Any], rules: Rules, play: Any) -> None:
    """Each system through the same validation a run gives it (one-line errors)."""
    for s in systems:
        try:
            make_study(rules, [s, s, s, s], play)
        except ValueError as exc:
            raise ValueError(f"system {str(s)!r}: {exc}") from None


def compare_systems(
    systems: Sequence[Any],
    deals: int = 100_000,
    rules: Any = "common",
    play: Any = None,
    seed: int = 0,
    threads: int | None = None,
    games: int = 0,
    options: dict | None = None,
    progress: Callable[[int], None] | None = None,
) -> SystemsStudy:
    """Play every pair of bidding ``systems`` on mirrored deals (module docstring).

    ``systems``: two or more bidding policy specs (``threshold``,
    ``threshold:55``, ``atlas``, ...); ``deals`` per pair (the same deals for every
    pair), everyone playing ``play`` (default: the rules' default play policy);
    ``games`` > 0 also plays that many mirrored games per pair.  ``progress(n)`` is
    called after each play of ``n`` deals.  Returns a ``SystemsStudy``.
    """
    systems = list(systems)
    if len(systems) < 2:
        raise ValueError(f"give at least 2 bidding systems to compare, got {len(systems)}")
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 2:
        raise ValueError(f"deals must be an integer of at least 2, got {deals!r}")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
        raise ValueError(f"games must be a non-negative integer, got {games!r}")
    rules_obj = Rules.from_spec(rules, options)
    if rules_obj.players != 4 or rules_obj.variant != "standard":
        raise ValueError("study systems compares the bidding of two teams: 4-player games only")
    if play is None:
        play = default_play(rules_obj.players, rules_obj.variant)
    _check_specs(systems, rules_obj, play)
    labels = system_labels(systems)
    same = dict(rules=rules, play=play, seed=seed, threads=threads, options=options)
    pair_rows, sit_frames, hand_frames = [], [], []
    nets: dict[tuple[str, str], np.ndarray] = {}
    mix_counts: dict[tuple[str, str], dict[str, int]] = {}
    for i, j in combinations(range(len(systems)), 2):
        a, b = systems[i], systems[j]
        la, lb = labels[i], labels[j]
        first, second, net, thrown = mirrored_bidding(a, b, deals, progress, **same)
        nets[(la, lb)] = net
        diff = _classes(first_difference(first, second))
        diff["net"] = net[diff["deal"].to_numpy()]
        mean, se = mean_se(net)
        row: dict[str, Any] = {
            "a": la,
            "b": lb,
            "deals": int(deals),
            "thrown_in": int(thrown.sum()),
            "differ": len(diff) / deals,
            "mean": mean,
            "se": se,
            "low": mean - Z95 * se,
            "high": mean + Z95 * se,
        }
        if games:
            g1, g2 = (
                simulate_games(games, bidding=o, **same) for o in ([a, b, a, b], [b, a, b, a])
            )
            win = ((g1["winner"] == 0).to_numpy(float) + (g2["winner"] == 1).to_numpy(float)) / 2
            w, wse = mean_se(win)
            row.update(
                games=int(games),
                win_rate=w,
                win_se=wse,
                win_low=w - Z95 * wse,
                win_high=w + Z95 * wse,
            )
        pair_rows.append(row)
        sit = _grouped(diff, ["situation", "named", "position", "call_a", "call_b"], deals)
        hand = _grouped(
            diff.drop(columns=["call_a", "call_b"]).rename(
                columns={"hand_call_a": "call_a", "hand_call_b": "call_b"}
            ),
            ["situation", "named", "hand_class", "call_a", "call_b"],
            deals,
        )
        sit_frames.append(sit.assign(a=la, b=lb))
        hand_frames.append(hand.assign(a=la, b=lb))
        for frame, team_a in ((first, 0), (second, 1)):
            for label, team in ((la, team_a), (lb, 1 - team_a)):
                opp = lb if label == la else la
                c = _mix_counts(frame, team)
                acc = mix_counts.setdefault((label, opp), dict.fromkeys(c, 0))
                for key, value in c.items():
                    acc[key] += value
    mix_rows = []
    for label in labels:
        total: dict[str, int] = {}
        for (system, opp), c in mix_counts.items():
            if system == label:
                mix_rows.append(_mix_row(system, opp, c))
                for key, value in c.items():
                    total[key] = total.get(key, 0) + value
        mix_rows.append(_mix_row(label, "all", total))
    standings = []
    for label in labels:
        parts = [n if a == label else -n for (a, b), n in nets.items() if label in (a, b)]
        x = np.mean(parts, axis=0)
        m, e = mean_se(x)
        standings.append(
            {
                "system": label,
                "opponents": len(parts),
                "mean": m,
                "se": e,
                "low": m - Z95 * e,
                "high": m + Z95 * e,
            }
        )
    order = ["a", "b"]
    meta = {
        "systems": labels,
        "ruleset": rules_obj.name,
        "rules": rules_words(rules_obj),
        # the full spec: a short one ("expert:0") names another player once the
        # default parameters change
        "play": play_spec(play, rules_obj),
        "deals": int(deals),
        "games": int(games),
        "seed": int(seed),
    }
    return SystemsStudy(
        systems=labels,
        meta=meta,
        pairs=pd.DataFrame(pair_rows),
        standings=pd.DataFrame(standings)
        .sort_values("mean", ascending=False, kind="stable")
        .reset_index(drop=True),
        mix=pd.DataFrame(mix_rows),
        situations=_concat(sit_frames, order),
        hands=_concat(hand_frames, order),
        nets=nets,
    )


def _concat(frames: list[pd.DataFrame], first: list[str]) -> pd.DataFrame:
    out = pd.concat(frames, ignore_index=True)
    return out[first + [c for c in out.columns if c not in first]]
