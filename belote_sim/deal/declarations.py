"""Declarations of a hand as readable entries (docs/rules.md section 6).

The kernels (``belote_sim.kernels.declarations``) find a hand's declarations as
masks; this module turns them into entries ``{"seat", "kind", "cards", "points"}``
with kind ``tierce`` ``quarte`` ``quinte`` ``carre`` or ``belote`` and points in
declaration points (they add to raw points).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from belote_sim.cards import CardMask, format_cards, parse_card, parse_hand, parse_strain
from belote_sim.kernels.declarations import (
    DECL_CARRE_RANKS,
    DECL_RUN_CARDS,
    hand_declarations_batch,
)
from belote_sim.kernels.declarations import hand_declarations as _hand_declarations
from belote_sim.kernels.tables import (
    BELOTE_POINTS,
    CARRE_POINTS,
    NT_FOUR_ACES_POINTS,
    RANK_A,
    RANK_K,
    RANK_Q,
    RUN_LENGTH_POINTS,
    STRAIN_NT,
)
from belote_sim.rules import Rules

__all__ = [
    "KIND_ORDER",
    "RUN_NAMES",
    "belote_entries",
    "carre_entries",
    "declarations_table",
    "hand_declarations",
    "run_entries",
    "sort_entries",
]

RUN_NAMES = {3: "tierce", 4: "quarte", 5: "quinte"}
KIND_ORDER = {"carre": 0, "quinte": 1, "quarte": 2, "tierce": 3, "belote": 4}


def hand_declarations(
    hand: str | CardMask, strain: str, rules: Rules | str = "common", seat: int | None = None
) -> list[dict[str, Any]]:
    """The runs and carrés a hand declares under ``rules`` (belote not included).

    ``hand``: 8 cards as text or a mask.  Entries are ordered carré, quinte, quarte,
    tierce, then by first card; ``seat`` is added to each entry when given.
    """
    mask = parse_hand(hand) if isinstance(hand, str) else int(hand)
    rules = Rules.from_spec(rules)
    code = parse_strain(strain)
    d = _hand_declarations(mask, code, rules.to_array())
    entries = carre_entries(seat, int(d[DECL_CARRE_RANKS]), code) + run_entries(
        seat, int(d[DECL_RUN_CARDS])
    )
    entries = sort_entries(entries)
    if seat is None:
        for e in entries:
            del e["seat"]
    return entries


def declarations_table(
    hands: np.ndarray, strains: np.ndarray, rules: Rules | str = "common"
) -> np.ndarray:
    """Kernel summary of many hands: (n, 6) int64 array, columns ``carre_ranks``,
    ``run_cards``, ``run_points``, ``carre_points``, ``best_run_key``, ``best_key``
    (see ``belote_sim.kernels.declarations``)."""
    rules = Rules.from_spec(rules)
    return hand_declarations_batch(
        np.asarray(hands, dtype=np.int64), np.asarray(strains, dtype=np.int64), rules.to_array()
    )


def run_entries(seat: int | None, run_cards: int) -> list[dict[str, Any]]:
    """Split a mask of declared run cards into tierce / quarte / quinte entries."""
    out = []
    for suit in range(4):
        byte = (run_cards >> (8 * suit)) & 0xFF
        rank = 0
        while rank < 8:
            if not (byte >> rank) & 1:
                rank += 1
                continue
            start = rank
            while rank < 8 and (byte >> rank) & 1:
                rank += 1
            pieces = (
                [(start, rank)] if rank - start <= 5 else [(start + 3, rank), (start, start + 3)]
            )
            for lo, hi in pieces:
                cards = [8 * suit + r for r in range(lo, hi)]
                out.append(
                    dict(
                        seat=seat,
                        kind=RUN_NAMES[hi - lo],
                        cards=format_cards(cards),
                        points=int(RUN_LENGTH_POINTS[hi - lo]),
                    )
                )
    return out


def carre_entries(seat: int | None, carre_ranks: int, strain: int) -> list[dict[str, Any]]:
    """Entries of the carrés whose ranks are the bits of ``carre_ranks``."""
    out = []
    for rank in range(8):
        if (carre_ranks >> rank) & 1:
            points = (
                NT_FOUR_ACES_POINTS
                if (strain == STRAIN_NT and rank == RANK_A)
                else int(CARRE_POINTS[rank])
            )
            out.append(
                dict(
                    seat=seat,
                    kind="carre",
                    cards=format_cards([8 * s + rank for s in range(4)]),
                    points=points,
                )
            )
    return out


def belote_entries(seat: int, suits: int) -> list[dict[str, Any]]:
    """Belote entries (K and Q, 20 points) for the suits whose bits are set in ``suits``."""
    return [
        dict(
            seat=seat,
            kind="belote",
            cards=format_cards([8 * s + RANK_Q, 8 * s + RANK_K]),
            points=BELOTE_POINTS,
        )
        for s in range(4)
        if (suits >> s) & 1
    ]


def sort_entries(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Order entries by seat, kind (carré, quinte, quarte, tierce, belote), first card."""
    return sorted(
        items, key=lambda d: (d["seat"] or 0, KIND_ORDER[d["kind"]], parse_card(d["cards"][0]))
    )
