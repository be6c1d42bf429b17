"""The ``rules`` bidding policy: rule files (docs/bidding_rules.md) read, checked and
evaluated by the kernels."""

import numpy as np
import pytest
from cli_run import one_line_error, run_cli

from belote_sim import parse_hand, simulate
from belote_sim.bid_rules import THRESHOLD_RULES, book_arrays, load_rule_book
from belote_sim.kernels.bidding import SCORE_PACKED
from belote_sim.kernels.records import BID_AUCTION, BID_FRENCH_ROUND2, BidTurn
from belote_sim.kernels.suit_symmetry import SUIT_PERMS
from belote_sim.kernels.switchboard import bid_decide, policy_menu
from belote_sim.policies import BID_POLICIES, parse_policy
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import empty_kernel_arrays

RULES = f"rules:{THRESHOLD_RULES}"


@pytest.mark.parametrize(
    "ruleset, reference, options",
    [
        ("common", "threshold", None),
        ("bulgarian", "threshold", None),
        ("french", "take", None),
        ("common", "threshold", {"third_double": True, "dealer_must_take": True}),
        ("bulgarian", "threshold", {"players": 3}),
    ],
)
def test_threshold_file_bids_as_threshold(ruleset, reference, options):
    """The shipped file gives exactly the deals table of ``threshold`` (french: ``take``)."""
    kw = dict(rules=ruleset, play="greedy", seed=11, threads=1, options=options)
    a = simulate(2500, bidding=reference, **kw)
    b = simulate(2500, bidding=RULES, **kw)
    assert (a["auction"] != "pppp").sum() > 100  # real auctions were compared
    assert a.equals(b)
    assert b.attrs["belote_sim"]["bidding"] == [RULES] * (
        3 if options and "players" in options else 4
    )


def _write(tmp_path, text, name="system.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BASE = """\
[auction]
open = [{ call = "best", when = ["margin >= 0"] }]
partner_bid = []
opponent_bid = [{ call = "double", when = ["score >= 60"] }]
they_doubled = []
we_doubled = []
we_redoubled = []
they_redoubled = []
"""


@pytest.mark.parametrize(
    "text, words",
    [
        ("[auction\nopen = []\n", ["line 1", "not valid TOML"]),
        ("name = 'x'\n\n[auction]\nopen = [{ call = 'best' \n", ["line 4", "not valid TOML"]),
        (BASE.replace("margin >= 0", "margins >= 0"), ["line 2", "unknown feature 'margins'"]),
        (BASE.replace("margin >= 0", "margin = 0"), ["line 2", "bad operator '='"]),
        (BASE.replace("margin >= 0", "margin >= lots"), ["line 2", "not a number"]),
        (BASE.replace('call = "best"', 'call = "bid"'), ["line 2", "unknown call 'bid'"]),
        (BASE.replace('call = "best"', 'call = "H"'), ["line 2", "physical suit"]),
        (BASE.replace("they_doubled = []\n", ""), ["missing situation auction.they_doubled"]),
        (BASE + "nobody_bid = []\n", ["line 9", "unknown situation auction.nobody_bid"]),
        (
            BASE.replace("partner_bid = []", 'partner_bid = [{ call = "double" }]'),
            ["line 3", "'double' is not legal in auction.partner_bid"],
        ),
        (
            BASE.replace(
                'call = "best", when = ["margin >= 0"]', 'call = "pass", when = "trumps < 3"'
            ),
            ["line 2", "reads a strain"],
        ),
        (
            BASE.replace('{ call = "best", when', '{ call = "best", by = "colour", when'),
            ["unknown feature 'colour' for by"],
        ),
        ("name = 'only a name'\n", ["no bidding"]),
        (
            BASE + "[french]\nround1 = [{ call = 'NT' }]\nround2 = []\n",
            ["'NT' is not legal in french.round1"],
        ),
    ],
)
def test_a_bad_file_is_one_line_naming_file_line_and_problem(tmp_path, text, words):
    path = _write(tmp_path, text)
    with pytest.raises(ValueError) as info:
        parse_policy(f"rules:{path}", BID_POLICIES, "bidding")
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    assert message.startswith(path), message
    for word in words:
        assert word in message, message


def test_bad_files_on_the_command_line(tmp_path):
    rc, _, err = run_cli(
        [
            "simulate",
            "--deals",
            "10",
            "--bid",
            f"rules:{tmp_path}/none.toml",
            "-o",
            f"{tmp_path}/a.parquet",
        ]
    )
    one_line_error(rc, err, "no rule file", "none.toml")
    path = _write(tmp_path, BASE)  # covers no french bidding
    rc, _, err = run_cli(
        [
            "simulate",
            "--deals",
            "10",
            "--ruleset",
            "french",
            "--play",
            "greedy",
            "--bid",
            f"rules:{path}",
            "-o",
            f"{tmp_path}/b.parquet",
        ]
    )
    one_line_error(rc, err, path, "[french]")


def _call(
    path,
    cards,
    current=-1,
    bidder=-1,
    level=0,
    seat=0,
    dealer=3,
    heard=0,
    kind=BID_AUCTION,
    turned=-1,
    rules="common",
    suit_order=0,
):
    """The call of the rule file ``path`` at one handmade turn: (letter, strain)."""
    hand = parse_hand(cards, size=None)
    scores = int(sum(int(SCORE_PACKED[c]) for c in range(32) if hand >> c & 1))
    turn = BidTurn(
        kind,
        seat,
        dealer,
        4,
        hand,
        scores if kind == BID_AUCTION else 0,
        current,
        bidder,
        level,
        0,
        False,
        turned,
        suit_order,
        heard,
    )
    tables = (
        *empty_kernel_arrays()[:2],
        *book_arrays([load_rule_book(path)]),
        *empty_kernel_arrays()[6:],
    )
    params = np.zeros(8)
    code, strain = bid_decide(
        policy_menu(bid=["rules"]), 4, params, turn, Rules.preset(rules).to_array(), tables
    )
    return chr(code), int(strain)


def test_features_pick_the_strain_the_rules_name(tmp_path):
    path = _write(
        tmp_path,
        BASE.replace(
            'open = [{ call = "best", when = ["margin >= 0"] }]',
            'open = [\n  { call = "NT", when = ["aces >= 3"] },\n'
            '  { call = "best", when = ["is_suit == 1", "trumps >= 3", "trump_jack == 1"], '
            'by = "trumps" },\n'
            '  { call = "best", when = ["is_suit == 1", "trumps >= 2"], by = "score" },\n]',
        ).replace(
            "partner_bid = []",
            'partner_bid = [{ call = "AT", when = ["partner_kind == suit", "jacks >= 2"] }]',
        ),
    )
    assert _call(path, "AH AS AD 7C 8C") == ("N", 4)
    assert _call(path, "JH 9H 7H JS 8S") == ("H", 2)  # 3 hearts with the jack
    assert _call(path, "JH 9H 7D 8D AS") == ("H", 2)  # two 2-card suits: the better score
    assert _call(path, "7H 8D 9S TC KC") == ("C", 0)
    assert _call(path, "7H 8D 9S TC QS") == ("S", 3)
    assert _call(path, "7H 8D 9S TC QH") == ("H", 2)
    # partner (seat 2) bid hearts: raise to AT with two jacks
    heard = 1 << (6 * 2 + 2)
    assert _call(path, "JH JS 7D 8D 9C", current=2, bidder=2, heard=heard) == ("A", 5)
    assert _call(path, "JH 7S 7D 8D 9C", current=2, bidder=2, heard=heard) == ("p", -1)
    # an opponent's bid: doubled on its score in that strain
    assert _call(path, "JH 9H AH 7D 8D", current=2, bidder=1) == ("x", -1)
    assert _call(path, "JS 9S AS 7D 8D", current=2, bidder=1) == ("p", -1)


def test_ties_in_round_two_fall_on_the_random_suit_order(tmp_path):
    """Two equally good suits in the french second round: the rule names the first of
    them in the deal's random suit order (``BidTurn.suit_order``), never by suit index,
    and whichever physical suits hold the cards."""
    path = _write(
        tmp_path,
        BASE
        + "[french]\nround1 = []\n"
        + "round2 = [{ call = 'best', when = ['trumps >= 2'], by = 'trumps' }]\n",
    )
    turned = parse_hand("7C", size=None).bit_length() - 1
    picks = set()
    for order in range(24):
        first = next(s for s in SUIT_PERMS[order] if s in (1, 2))  # D or H
        for hand in ("JH 9H 7D 8D AS", "JD 9D 7H 8H AS"):
            _letter, strain = _call(
                path, hand, kind=BID_FRENCH_ROUND2, turned=turned, rules="french", suit_order=order
            )
            assert strain == first, (order, hand)
        picks.add(first)
    assert picks == {1, 2}
