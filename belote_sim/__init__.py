"""belote-sim: a numba bitboard engine and Monte Carlo toolkit for Belote.

Public API (see README.md): cards (``parse_card``, ``format_card``, ``parse_hand``,
...), ``Rules`` (presets and options), ``replay`` (recorded deals), ``score_deal`` and
``score_game`` (scoring) and ``perft`` (legal-sequence counts).
"""

from belote_sim._version import __version__
from belote_sim.cards import (
    format_card,
    format_cards,
    parse_card,
    parse_cards,
    parse_hand,
    parse_hands,
    parse_strain,
)
from belote_sim.deal.perft import perft
from belote_sim.deal.replay import replay
from belote_sim.deal.scoring import score_deal, score_game
from belote_sim.rules import Rules
from belote_sim.simulation.runner import simulate, simulate_games

__all__ = [
    "Rules",
    "__version__",
    "format_card",
    "format_cards",
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
