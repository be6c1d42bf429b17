"""The cards of simulated deals, one play at a time, as the player to move saw them.

``deal_plays(df)`` walks a deals table simulated with ``trick_log=True`` (thrown-in
deals left out) and yields each card played as a ``Play``: who played it, who led its
trick, the trick so far and the cards the player held (trick winners by the reference,
``reference.trick_winner``).  ``play_observation(play)`` is the agent API's observation of
that position (``belote_sim.choose_card``, ``legal_cards``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import reference as ref

from belote_sim.cards import format_cards


@dataclass(frozen=True)
class Play:
    """One card of a simulated deal and the position it was played in."""

    row: Any  # the deals table's row (``itertuples``)
    k: int  # the card's index in the deal, 0..31 (k == 0: a new deal)
    card: str  # the card played
    seat: int  # the seat that played it
    leader: int  # the seat that led its trick
    first_leader: int  # the seat that led the first trick
    trick: list[str]  # the cards of its trick played before it
    hand: list[str]  # the cards ``seat`` held before playing it, sorted
    plays: list[str]  # every card of the deal, in order
    strain: str


def deal_plays(df: Any) -> Iterator[Play]:
    """Each card of each played deal of ``df`` (a deals table with its trick logs), in
    the order they were played."""
    df = df[df["outcome"] != "thrown_in"]
    for row in df.itertuples():
        plays = row.plays.split()
        hands = [set(format_cards(int(getattr(row, f"hand{s}")))) for s in range(4)]
        first = leader = (row.dealer + 1) % 4
        strain = str(row.strain)
        for k, card in enumerate(plays):
            t, pos = divmod(k, 4)
            if pos == 0 and t > 0:
                leader = ref.trick_winner(plays[4 * t - 4 : 4 * t], leader, strain)
            seat = (leader + pos) % 4
            trick = plays[4 * t : k]
            yield Play(row, k, card, seat, leader, first, trick, sorted(hands[seat]), plays, strain)
            hands[seat].discard(card)


def play_observation(play: Play, **fields: Any) -> dict[str, Any]:
    """The agent API's observation of ``play``'s position (dealer, seat, hand, contract
    strain and taker, the cards played before it), with ``fields`` added."""
    return {
        "dealer": int(play.row.dealer),
        "seat": play.seat,
        "hand": " ".join(play.hand),
        "contract": {"strain": play.strain, "taker": int(play.row.taker)},
        "plays": play.plays[: play.k],
        **fields,
    }


__all__ = ["Play", "deal_plays", "play_observation"]
