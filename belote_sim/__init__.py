"""belote-sim: a numba bitboard engine and Monte Carlo toolkit for Belote.

Public API (see README.md): cards (``parse_card``, ``format_card``, ``parse_hand``,
...), ``Rules`` (presets and options), ``replay`` (recorded deals), ``score_deal`` and
``score_game`` (scoring) and ``perft`` (legal-sequence counts).
"""

__version__ = "0.1.0"

from belote_sim.cards import (  # noqa: E402
    format_card,
    format_cards,
    parse_card,
    parse_cards,
    parse_hand,
    parse_hands,
    parse_strain,
)
from belote_sim.rules import Rules  # noqa: E402
from belote_sim.replay import replay  # noqa: E402
from belote_sim.scoring import score_deal, score_game  # noqa: E402
from belote_sim.perft import perft  # noqa: E402
from belote_sim.simulate import simulate, simulate_games  # noqa: E402

__all__ = [
    "__version__", "Rules", "replay", "score_deal", "score_game", "perft", "simulate",
    "simulate_games", "parse_card", "format_card", "parse_cards",
    "parse_hand", "parse_hands", "format_cards", "parse_strain",
]
