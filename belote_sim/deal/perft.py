"""Perft (legal-sequence counts) and the ``.perft`` file format.

A ``.perft`` file holds positions separated by blank lines; ``#`` starts a comment::

    id all-trumps-to-leader
    ruleset common                # optional, default common
    options {"undertrump": false}  # optional JSON object of overrides
    hands 7C 8C 9C TC JC QC KC AC | 7D 8D 9D TD JD QD KD AD | 7H ... | 7S ...
    strain C
    leader 0
    perft 1 8
    perft 4 4096

Hands are seats 0..3 (equal sizes, 1 to 8 cards each).  ``perft d n`` says that
``n`` legal card sequences of length ``d`` start from the position (the leader of
the first trick plays first; later tricks are led by the previous winner).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from belote_sim.cards import parse_hands, parse_strain, popcount
from belote_sim.kernels.perft import perft_count
from belote_sim.rules import Rules

__all__ = ["PerftCase", "perft", "read_perft_file"]


def perft(
    hands: list[str] | list[int],
    strain: str | int,
    leader: int,
    depth: int,
    rules: Rules | str = "common",
) -> int:
    """Number of legal card sequences of ``depth`` cards from the start of a trick.

    ``hands``: four hands (card strings or masks) of equal size; ``strain``: a
    strain name or code; ``leader``: the seat that leads.
    """
    if all(isinstance(h, int) for h in hands):
        masks = [int(h) for h in hands]
    else:
        size = len(str(hands[0]).replace(",", " ").split())
        masks = parse_hands(cast(list[str], hands), size=size)
    sizes = {popcount(m) for m in masks}
    if len(masks) != 4 or len(sizes) != 1 or not 1 <= next(iter(sizes)) <= 8:
        raise ValueError("perft needs four hands of the same size (1 to 8 cards)")
    if not 0 <= leader <= 3:
        raise ValueError(f"leader must be a seat 0..3, got {leader}")
    max_depth = 4 * next(iter(sizes))
    if not 1 <= depth <= max_depth:
        raise ValueError(f"depth must be 1..{max_depth} for hands of {max_depth // 4} cards")
    code = parse_strain(strain) if isinstance(strain, str) else int(strain)
    rules = Rules.from_spec(rules)
    return int(
        perft_count(
            np.array(masks, dtype=np.int64),
            leader,
            code,
            rules.to_array(),
            depth,
        )
    )


@dataclass
class PerftCase:
    """One position of a ``.perft`` file with its expected counts."""

    id: str
    hands: list[str]
    strain: str
    leader: int
    ruleset: str = "common"
    options: dict[str, Any] = field(default_factory=dict)
    counts: list[tuple[int, int]] = field(default_factory=list)

    @property
    def rules(self) -> Rules:
        return Rules.from_spec(self.ruleset, self.options)


def read_perft_file(path: str | Path) -> list[PerftCase]:
    """Parse a ``.perft`` file (see the module docstring)."""
    cases: list[PerftCase] = []
    current: dict[str, Any] = {}

    def flush(lineno: int) -> None:
        if not current:
            return
        missing = [k for k in ("id", "hands", "strain", "leader") if k not in current]
        if missing:
            raise ValueError(f"{path}:{lineno}: position lacks {', '.join(missing)}")
        cases.append(PerftCase(**current))
        current.clear()

    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            flush(lineno)
            continue
        text = line.split("#", 1)[0].strip()
        if not text:  # a comment line
            continue
        key, _, value = text.partition(" ")
        value = value.strip()
        if key == "id":
            current["id"] = value
        elif key == "hands":
            current["hands"] = [h.strip() for h in value.split("|")]
        elif key == "strain":
            current["strain"] = value
        elif key == "leader":
            current["leader"] = int(value)
        elif key == "ruleset":
            current["ruleset"] = value
        elif key == "options":
            current["options"] = json.loads(value)
        elif key == "perft":
            depth, count = value.split()
            current.setdefault("counts", []).append((int(depth), int(count)))
        else:
            raise ValueError(f"{path}:{lineno}: unknown key {key!r}")
    flush(len(lines))
    return cases
