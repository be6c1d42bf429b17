"""The example bidding systems of analyses/systems/*.toml (issue 26): they read, play
under every auction ruleset and the french rounds, and bid as their headers say."""

from pathlib import Path

import pytest

from belote_sim import parse_hand, simulate
from belote_sim.bid_rules import load_rule_book

SYSTEMS = Path(__file__).resolve().parent.parent / "analyses" / "systems"
FILES = sorted(SYSTEMS.glob("*.toml"))
NAMES = [f.stem for f in FILES]


def spec(name: str) -> str:
    return f"rules:{SYSTEMS / name}.toml"


def play(bidding, ruleset="common", deals=400, seed=5, **kw):
    """``deals`` deals bid by ``bidding``, greedy play, one thread."""
    kw.update(rules=ruleset, play="greedy", seed=seed, threads=1)
    return simulate(deals, bidding=bidding, **kw)


def suit_takers_hold_the_jack(deals) -> list[bool]:
    """Per suit contract: whether its taker's bidding cards hold the trump jack."""
    suits = deals[deals["strain"].isin(list("CDHS"))]
    columns = ["strain", "taker", "bid0", "bid1", "bid2", "bid3"]
    return [
        bool(int(bids[int(taker)]) & parse_hand(f"J{strain}", size=None))
        for strain, taker, *bids in suits[columns].itertuples(index=False)
    ]


def test_the_examples_are_there():
    assert {"cautious", "aggressive", "jack_convention"} <= set(NAMES)


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_each_file_reads_and_says_what_it_models(path):
    book = load_rule_book(path)
    assert book.name == path.stem
    assert {"auction", "two_round"} <= book.biddings
    header = path.read_text().splitlines()[:3]
    assert header[0].startswith("# ") and any("Models:" in line for line in header)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_each_file_plays_and_differs_from_threshold(name, ruleset):
    deals = play(spec(name), ruleset)
    assert len(deals) == 400
    assert (deals["outcome"] != "thrown_in").sum() > 40  # it bids
    assert deals.attrs["belote_sim"]["bidding"] == [spec(name)] * 4
    reference = play("take" if ruleset == "french" else "threshold", ruleset)
    for col in ("bid0", "bid1", "bid2", "bid3"):  # the same deals (bidding cards)
        assert (deals[col] == reference[col]).all()
    assert (deals["auction"] != reference["auction"]).sum() > 20


def test_a_file_without_take_or_pass_is_refused_there():
    with pytest.raises(ValueError, match="does not bid in .*take-or-pass bidding"):
        play(spec("cautious"), "bulgarian", deals=10, options={"players": 3})


@pytest.mark.parametrize("ruleset", ["common", "bulgarian"])
def test_the_aggressive_team_takes_more_contracts_than_the_cautious_one(ruleset):
    """Aggressive (seats 0, 2) against cautious (1, 3) on the same deals, and the
    same deals with the seats swapped: the aggressive team is the taker far more
    often, and everyone cautious throws in more deals than everyone aggressive."""
    a, c = spec("aggressive"), spec("cautious")
    for bidding, aggressive_team in (([a, c, a, c], 0), ([c, a, c, a], 1)):
        deals = play(bidding, ruleset)
        taker = deals["taker"].dropna().astype(int)
        by_aggressive = int(((taker % 2) == aggressive_team).sum())
        assert by_aggressive > 2 * (len(taker) - by_aggressive)
    thrown_a = (play(a, ruleset)["outcome"] == "thrown_in").sum()
    thrown_c = (play(c, ruleset)["outcome"] == "thrown_in").sum()
    assert thrown_c > 2 * thrown_a


@pytest.mark.parametrize("name", ["cautious", "jack_convention"])
@pytest.mark.parametrize("ruleset", ["common", "bulgarian"])
def test_a_suit_contract_holds_its_jack(name, ruleset):
    """Both systems name a suit only holding its jack: every suit contract's taker
    holds that jack among its bidding cards."""
    holds = suit_takers_hold_the_jack(play(spec(name), ruleset, deals=600))
    assert len(holds) > 50
    assert all(holds), name


def test_threshold_bids_suits_without_the_jack():
    """The property above can fail: ``threshold`` names suits without their jack."""
    holds = suit_takers_hold_the_jack(play("threshold", deals=600))
    assert len(holds) > 50
    assert not all(holds)
