"""What the help texts say about the policies, without importing the kernels.

``belote-sim --help`` and every command's ``--help`` are built from these constants,
so that they answer at once (no numba, no pandas).  They repeat facts whose source is
the policy registry (``kernels.switchboard``, read by ``belote_sim.policies``);
tests/test_cli_startup.py checks that the two agree.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_PLAY",
    "PLAY_USAGE",
    "SOLO_DEFAULT_PLAY",
    "THRESHOLD_DEFAULTS",
    "THRESHOLD_PARAMS",
    "THRESHOLD_SCORE_FORMULA",
]

#: The default play policy of every command and function (issue 23): the expert
#: player's network alone (``expert:0``, no endgame search): +2.3 MP per deal over
#: ``greedy`` at ~60,000 deals/s a thread.  The games it does not play (2 and 3
#: players, open belot) fall back to ``SOLO_DEFAULT_PLAY`` (``policies.default_play``).
DEFAULT_PLAY = "expert:0"
#: The default play of the games ``expert`` does not play.
SOLO_DEFAULT_PLAY = "greedy"

#: ``name[:param,...]`` of every play policy (``policies.policy_usage(PLAY_POLICIES)``).
PLAY_USAGE = (
    "random, greedy[:draw_trumps,give_points], dd, pimc[:samples], "
    "expert[:endgame_tricks,samples,switches,thin,model,at_extra]"
)

#: The parameters of the ``threshold`` bidding policy and their defaults
#: (``policies.BID_POLICIES["threshold"]``, ``kernels.bidding.THRESHOLD_DEFAULTS``).
THRESHOLD_PARAMS = ("suit", "nt", "at", "double", "redouble")
THRESHOLD_DEFAULTS = (50.0, 52.0, 75.0, 60.0, 60.0)

#: The bidding score of the ``threshold`` (and ``take``) policy, the unit its thresholds
#: are in: what each of the 5 bidding cards adds to a strain's score
#: (``belote_sim.kernels.bidding.SCORE``; tests/test_player_reports.py checks the two agree).
THRESHOLD_SCORE_FORMULA = (
    "suit X: trump points of the cards of X (J 20, 9 14, A 11, T 10, K 4, Q 3) "
    "+ 10 per card of X + 8 per ace of another suit; "
    "NT: plain points of all 5 cards (A 11, T 10, K 4, Q 3, J 2) + 5 per ace; "
    "AT: trump points of all 5 cards (J 20, 9 14, A 11, T 10, K 4, Q 3) + 5 per jack"
)
