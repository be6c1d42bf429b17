"""belote-sim: a numba bitboard engine and Monte Carlo toolkit for Belote.

Public API (see docs/guide/python-api.md): cards (``parse_card``, ``format_card``,
``parse_hand``, ...), ``Rules`` (presets and options), ``replay`` (recorded deals),
``score_deal`` and ``score_game`` (scoring), ``perft`` (legal-sequence counts) and
the agent API (``legal_cards``, ``choose_card``, ``legal_calls``, ``choose_call``,
``observation_schema``: one decision for another engine; docs/guide/agent-api.md).

The names are loaded on first use (PEP 562 ``__getattr__``): ``import belote_sim``
and ``belote-sim --help`` do not import numba, numpy's kernels or pandas;
``from belote_sim import simulate`` imports what ``simulate`` needs.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from belote_sim._version import __version__

# Idle threads of numba's OpenMP threading layer sleep at once instead of spinning for
# a few milliseconds (libgomp's default): a spinning thread takes a core from the thread
# that writes the Parquet file of ``simulate -o`` (2 cores: 2 kernel threads and the
# writer), and from any other process.  Measured on the 2-core machine: ~7% less CPU
# for ``simulate -o``, and the 2-thread kernel rates no slower (faster under load).
# libgomp reads it when numba first starts its threads, after any belote_sim import
# (this package's __init__ runs first); a value already set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

if TYPE_CHECKING:  # what the names are, for type checkers and readers
    from belote_sim.cards import (
        format_card,
        format_cards,
        parse_card,
        parse_cards,
        parse_hand,
        parse_hands,
        parse_strain,
    )
    from belote_sim.deal.agent import (
        AGENT_API_VERSION,
        choose_card,
        legal_cards,
        observation_schema,
    )
    from belote_sim.deal.perft import perft
    from belote_sim.deal.replay import replay
    from belote_sim.deal.scoring import score_deal, score_game
    from belote_sim.rules import Rules
    from belote_sim.simulation.agent_calls import choose_call, legal_calls
    from belote_sim.simulation.runner import simulate, simulate_games

__all__ = [
    "AGENT_API_VERSION",
    "Rules",
    "__version__",
    "choose_call",
    "choose_card",
    "format_card",
    "format_cards",
    "legal_calls",
    "legal_cards",
    "observation_schema",
    "parse_card",
    "parse_cards",
    "parse_hand",
    "parse_hands",
    "parse_strain",
    "perft",
    "replay",
    "score_deal",
    "score_game",
    "simulate",
    "simulate_games",
]

#: The module that defines each public name (the imports under TYPE_CHECKING above).
_HOME = {
    "AGENT_API_VERSION": "belote_sim.deal.agent",
    "Rules": "belote_sim.rules",
    "choose_call": "belote_sim.simulation.agent_calls",
    "choose_card": "belote_sim.deal.agent",
    "legal_calls": "belote_sim.simulation.agent_calls",
    "legal_cards": "belote_sim.deal.agent",
    "observation_schema": "belote_sim.deal.agent",
    "format_card": "belote_sim.cards",
    "format_cards": "belote_sim.cards",
    "parse_card": "belote_sim.cards",
    "parse_cards": "belote_sim.cards",
    "parse_hand": "belote_sim.cards",
    "parse_hands": "belote_sim.cards",
    "parse_strain": "belote_sim.cards",
    "perft": "belote_sim.deal.perft",
    "replay": "belote_sim.deal.replay",
    "score_deal": "belote_sim.deal.scoring",
    "score_game": "belote_sim.deal.scoring",
    "simulate": "belote_sim.simulation.runner",
    "simulate_games": "belote_sim.simulation.runner",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then cached here)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'belote_sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
