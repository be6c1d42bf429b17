"""Deals the engine simulated, as the moves of the game interfaces' ``Table``.

``engine_deals(ruleset, n, seed)`` simulates ``n`` deals (threshold or take bidding,
greedy play, the plays kept) and yields each as ``(row, moves)``: ``moves`` the deal's
chance cards, calls and plays in the order a ``Table`` asks for them, each a pair
``(kind, value)`` with kind ``"card"`` (a dealt card index), ``"call"`` (a call
letter) or ``"play"`` (a played card index).  ``row`` is the deals table's row (its
``mp0``/``mp1``, ``held_mp0``/``held_mp1``, ``outcome`` are the engine's score).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from belote_sim import simulate
from belote_sim.cards import cards_of, parse_card

#: A mixture of policies so that the engine's own auctions hold doubles.
BIDDING = {"common": "threshold", "bulgarian": "threshold", "french": "take"}


Move = tuple[str, int | str]


def engine_deals(ruleset: str, n: int, seed: int) -> Iterator[tuple[Any, list[Move]]]:
    df = simulate(n, ruleset, bidding=BIDDING[ruleset], play="greedy", seed=seed, trick_log=True)
    for row in df.itertuples(index=False):
        dealer = int(row.dealer)
        order = [(dealer + 1 + i) % 4 for i in range(4)]
        bid = [cards_of(int(getattr(row, f"bid{s}"))) for s in range(4)]
        moves: list[Move] = []
        # packets of 3 then 2 from dealer + 1 (the order inside a packet is hidden)
        for lo, hi in ((0, 3), (3, 5)):
            for s in order:
                moves += [("card", c) for c in bid[s][lo:hi]]
        turned = -1 if row.turned is None or str(row.turned) == "<NA>" else int(row.turned)
        if ruleset == "french":
            moves.append(("card", turned))
        moves += [("call", c) for c in str(row.auction)]
        if row.outcome != "thrown_in":
            for s in order:
                rest = int(getattr(row, f"hand{s}")) & ~int(getattr(row, f"bid{s}"))
                if turned >= 0:
                    rest &= ~(1 << turned)
                moves += [("card", c) for c in cards_of(rest)]
            moves += [("play", parse_card(c)) for c in str(row.plays).split()]
        yield row, moves
