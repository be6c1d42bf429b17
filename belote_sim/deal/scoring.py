"""Scoring a deal (docs/rules.md sections 7, 8, 10) and a game (section 9).

Units: card points (cards in tricks + 10 for the last trick), raw points (card
points + declarations + belote, doubled in NT with ``nt_double_raw``) and match
points (MP, raw / 10 rounded per section 8.2); with ``french`` scoring the MP
fields hold French points.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from belote_sim.cards import parse_strain
from belote_sim.kernels.scoring import play_game
from belote_sim.kernels.scoring import score_deal as _score_deal
from belote_sim.kernels.tables import OUTCOME_NAMES
from belote_sim.rules import Rules

__all__ = ["score_deal", "score_game"]


def score_deal(
    card_points: tuple[int, int],
    declarations: tuple[int, int],
    belote: tuple[int, int],
    tricks: tuple[int, int],
    strain: str,
    taker_team: int,
    doubling: int = 0,
    rules: Rules | str = "common",
) -> dict[str, Any]:
    """Score a played deal from its per-team totals.

    ``card_points``: card points per team (last-trick 10 included); ``declarations``:
    scored run and carré points per team (after the comparison of section 6.3);
    ``belote``: belote points per team; ``tricks``: tricks won per team.  Returns
    ``{"raw", "outcome", "valat", "mp", "held_mp"}`` as in ``replay``.
    """
    rules = Rules.from_spec(rules)
    if taker_team not in (0, 1):
        raise ValueError(f"taker_team must be 0 or 1, got {taker_team!r}")
    if not 0 <= doubling <= rules.max_doubling:
        raise ValueError(f"doubling must be 0..{rules.max_doubling}, got {doubling!r}")
    if sum(tricks) != 8 or min(tricks) < 0:
        raise ValueError(f"tricks must be two counts adding up to 8, got {tricks!r}")
    code = parse_strain(strain)
    raw0, raw1, outcome, valat, mp0, mp1, held0, held1 = _score_deal(
        card_points[0],
        card_points[1],
        declarations[0],
        declarations[1],
        belote[0],
        belote[1],
        tricks[0],
        tricks[1],
        code,
        taker_team,
        doubling,
        8,
        rules.to_array(),
    )
    return {
        "raw": [int(raw0), int(raw1)],
        "outcome": OUTCOME_NAMES[outcome],
        "valat": None if valat < 0 else int(valat),
        "mp": [int(mp0), int(mp1)],
        "held_mp": [int(held0), int(held1)],
    }


def score_game(deals: Iterable[Mapping[str, Any]], rules: Rules | str = "common") -> dict[str, Any]:
    """Add up a game from the scores of its deals, in order.

    Each deal is a mapping with ``outcome`` (``made`` / ``inside`` / ``hanging`` /
    ``thrown_in``), ``taker_team`` (None if thrown in), ``doubling``, ``valat``
    (team or None), ``mp`` and ``held_mp`` (as ``replay`` returns them; MP, or
    French points under french scoring).  Returns ``{"scores": [s0, s1], "held": pot,
    "ended_after": index or None, "winner": team or None}``: held points go to the
    winner of the next deal that is neither hanging nor thrown in; the game ends
    when a team has reached ``game_target`` with nothing held and the deal was not a
    valat (equal totals play on); a made or inside deal at doubling 3 ends it.
    """
    rules = Rules.from_spec(rules)
    rows = list(deals)
    n = len(rows)
    outcomes = np.zeros(n, dtype=np.int64)
    takers = np.zeros(n, dtype=np.int64)
    doublings = np.zeros(n, dtype=np.int64)
    valats = np.full(n, -1, dtype=np.int64)
    mp = np.zeros((n, 2), dtype=np.int64)
    held = np.zeros((n, 2), dtype=np.int64)
    for i, row in enumerate(rows):
        try:
            outcome = row["outcome"]
            if outcome not in OUTCOME_NAMES:
                raise ValueError(f"unknown outcome {outcome!r}")
            outcomes[i] = OUTCOME_NAMES.index(outcome)
            if outcome != "thrown_in":
                takers[i] = int(row["taker_team"])
                doublings[i] = int(row.get("doubling", 0))
                valats[i] = -1 if row.get("valat") is None else int(row["valat"])
                mp[i] = row["mp"]
                held[i] = row.get("held_mp") or (0, 0)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"deal {i}: {exc}") from None
    s0, s1, pot, ended, winner = play_game(
        outcomes, takers, doublings, valats, mp, held, rules.to_array()
    )
    return {
        "scores": [int(s0), int(s1)],
        "held": int(pot),
        "ended_after": None if ended < 0 else int(ended),
        "winner": None if winner < 0 else int(winner),
    }
