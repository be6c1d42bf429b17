"""Named constants at the Python/kernel boundary match what they name.

Option codes of the rules array, parameter indices of the policies and the card
totals of a deal are each defined once (``kernels/tables.py``, the kernel modules);
these checks tie the names the Python layer uses to those numbers.
"""

from belote_sim import Rules
from belote_sim.kernels import bidding as B
from belote_sim.kernels import greedy as G
from belote_sim.kernels import search_policies as S
from belote_sim.kernels import tables as T
from belote_sim.policies import BID_POLICIES, PLAY_POLICIES


def test_option_codes_in_the_rules_array():
    cases = [
        ("dealing", "shuffle", T.R_DEALING, T.DEALING_SHUFFLE),
        ("dealing", "cut", T.R_DEALING, T.DEALING_CUT),
        ("scoring", "mp", T.R_SCORING, T.SCORING_MP),
        ("declarations_compare", "best_run", T.R_DECLARATIONS_COMPARE, T.COMPARE_BEST_RUN),
        (
            "declarations_compare",
            "best_declaration",
            T.R_DECLARATIONS_COMPARE,
            T.COMPARE_BEST_DECLARATION,
        ),
    ]
    for option, value, field, code in cases:
        assert Rules.preset("common", **{option: value}).to_array()[field] == code
    french = Rules.preset("french").to_array()
    assert french[T.R_SCORING] == T.SCORING_FRENCH
    assert french[T.R_BIDDING] == T.BIDDING_TWO_ROUND
    assert Rules.preset("common").to_array()[T.R_BIDDING] == T.BIDDING_AUCTION
    solo = Rules.preset("bulgarian", players=3).to_array()
    assert solo[T.R_BIDDING] == T.BIDDING_TAKE_OR_PASS
    assert solo[T.R_VARIANT] == T.VARIANT_STANDARD
    assert Rules.preset("bulgarian", variant="open").to_array()[T.R_VARIANT] == T.VARIANT_OPEN


def test_policy_parameter_indices_match_their_names():
    threshold = BID_POLICIES["threshold"].param_names
    assert [threshold.index(n) for n in ("suit", "nt", "at", "double", "redouble")] == [
        B.THRESHOLD_SUIT,
        B.THRESHOLD_NT,
        B.THRESHOLD_AT,
        B.THRESHOLD_DOUBLE,
        B.THRESHOLD_REDOUBLE,
    ]
    take = BID_POLICIES["take"].param_names
    assert [take.index(n) for n in ("round1", "round2", "nt", "at")] == [
        B.TAKE_ROUND1,
        B.TAKE_ROUND2,
        B.TAKE_NT,
        B.TAKE_AT,
    ]
    fixed = BID_POLICIES["fixed"].param_names
    assert [fixed.index(n) for n in ("seat", "strain", "doubling")] == [
        B.FIXED_SEAT,
        B.FIXED_STRAIN,
        B.FIXED_DOUBLING,
    ]
    greedy = PLAY_POLICIES["greedy"].param_names
    assert greedy.index("draw_trumps") == G.GREEDY_DRAW_TRUMPS
    assert greedy.index("give_points") == G.GREEDY_GIVE_POINTS
    assert PLAY_POLICIES["pimc"].param_names.index("samples") == S.PIMC_SAMPLES


def test_deal_card_totals():
    # docs/rules.md section 2 and 7: 152 card points + the last-trick 10 in a suit contract,
    # 120 + 10 in NT, 248 + 10 in AT.
    assert T.DEAL_CARD_TOTAL.tolist() == [162, 162, 162, 162, 130, 258]
    assert T.SUIT_DEAL_CARD_TOTAL == 162
    assert len(T.STRAIN_NAMES) == T.NUM_STRAINS
