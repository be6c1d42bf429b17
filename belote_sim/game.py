"""Game accumulation over scored deals (RULES.md section 9)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np

from belote_sim.kernels.scoring import play_game
from belote_sim.kernels.tables import OUTCOME_NAMES
from belote_sim.rules import Rules


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
    s0, s1, pot, ended, winner = play_game(outcomes, takers, doublings, valats, mp, held,
                                           rules.to_array())
    return {"scores": [int(s0), int(s1)], "held": int(pot),
            "ended_after": None if ended < 0 else int(ended),
            "winner": None if winner < 0 else int(winner)}
