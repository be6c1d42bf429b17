"""The public agent API (issue 40 item 1): ``legal_cards``, ``choose_card``,
``legal_calls``, ``choose_call`` from ``belote_sim``, checked against the rules text
(docs/rules.md sections 4 and 5, written again here and in ``tests/reference.py``)
and against what the simulator did in the same positions."""

import json
from pathlib import Path

import pytest
import reference as ref
from deal_walk import deal_plays, play_observation

import belote_sim
from belote_sim import choose_call, choose_card, legal_calls, legal_cards
from belote_sim.cards import format_cards
from belote_sim.simulation.runner import simulate

STRAINS = ["C", "D", "H", "S", "NT", "AT"]
LETTER_WORDS = {"p": "pass", "x": "double", "r": "redouble", "t": "third_double"}
LETTER_WORDS |= {"C": "C", "D": "D", "H": "H", "S": "S", "N": "NT", "A": "AT"}
SCHEMA = Path(belote_sim.__file__).parent / "data" / "observation.schema.json"


def auction_legal(calls, dealer, seat, third_double=False, two_round=False, turned=None):
    """The legal calls at ``seat`` after ``calls`` (words) by the reference (docs/rules.md
    4.1 and 4.2); None when it is not ``seat``'s turn or the bidding is over."""
    rules = {"ruleset": "french" if two_round else "common"}
    if third_double:
        rules["options"] = {"third_double": True}
    state = ref.auction(calls, dealer, rules, turned)
    return None if state["over"] or state["turn"] != seat else state["legal"]


@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_choose_call_replays_the_simulated_auctions(ruleset):
    """Every call of simulated auctions, asked again call by call through the agent API:
    the same call as the simulator (``atlas_auction``/``take``; the french suit order
    from the deal's seed), each one legal by the rules text."""
    policy = "take" if ruleset == "french" else "atlas_auction"
    df = simulate(40, rules=ruleset, bidding=policy, play="greedy", seed=11)
    two_round = ruleset == "french"
    for row in df.itertuples():
        turned = format_cards([int(row.turned)])[0] if two_round else None
        calls = [LETTER_WORDS[c] for c in row.auction]
        for k, call in enumerate(calls):
            seat = (row.dealer + 1 + k) % 4
            obs = {
                "ruleset": ruleset,
                "dealer": int(row.dealer),
                "seat": seat,
                "hand": format_cards(int(getattr(row, f"bid{seat}"))),
                "calls": calls[:k],
            }
            if two_round:
                obs["turned"] = turned
            legal = auction_legal(calls[:k], row.dealer, seat, two_round=two_round, turned=turned)
            assert legal_calls(obs) == legal
            assert choose_call(obs, policy, seed=int(row.seed)) == call
            assert choose_call(obs, policy) in legal


def test_legal_calls_against_the_rules_text_with_third_double():
    obs = {"ruleset": "common", "options": {"third_double": True}, "dealer": 0}
    obs["hand"] = "JH 9H AH TS 7C"
    walk = ["AT", "double", "redouble"]
    for k in range(len(walk) + 1):
        seat = (1 + k) % 4
        got = legal_calls(dict(obs, seat=seat, calls=walk[:k]))
        assert got == auction_legal(walk[:k], 0, seat, third_double=True)
    with pytest.raises(ValueError, match="bidding is over"):
        legal_calls(dict(obs, seat=1, calls=walk + ["third_double"]))


def test_calls_as_letters_or_words_and_bad_bidding_observations():
    obs = {"ruleset": "common", "dealer": 3, "seat": 2, "hand": "JS 9S AS TS 7D"}
    assert legal_calls(dict(obs, calls="pH")) == legal_calls(dict(obs, calls=["pass", "h"]))
    assert legal_calls(dict(obs, calls="pH")) == ["pass", "S", "NT", "AT", "double"]
    bad = [
        (dict(obs, seat=1, calls="pH"), "seat 2's turn"),
        (dict(obs, calls=["H", "H"]), "not a legal call"),
        (dict(obs, calls=["pass", "hearts"]), "not a call"),
        (dict(obs, calls=5), "must be a list"),
        (dict(obs, hand="JS 9S"), "5 cards"),
        (dict(obs, hand="JS JS AS TS 7D"), "duplicate card JS"),
        (dict(obs, turned="7H"), "only the french"),
        (dict(obs, seat=4), "seat 0..3"),
        (dict(obs, seat=True), "seat 0..3"),
        (dict(obs, bids=[]), "unknown bidding observation field"),
        ({k: v for k, v in obs.items() if k != "hand"}, "lacks 'hand'"),
        (dict(obs, ruleset="french"), "'turned'"),
        ([], "must be a dict"),
    ]
    for observation, message in bad:
        with pytest.raises(ValueError, match=message):
            legal_calls(observation)
    with pytest.raises(ValueError, match="french"):
        choose_call(dict(obs, calls="pp"), "take")
    with pytest.raises(ValueError, match="makes no call"):
        choose_call(dict(obs, calls="pp"), "fixed:0,2,0")
    with pytest.raises(ValueError, match="seed"):
        choose_call(dict(obs, calls="pp"), seed=-1)


def test_every_bidding_policy_kind_answers_a_legal_call(tmp_path):
    obs = {"ruleset": "common", "dealer": 0, "seat": 2, "hand": "JH 9H AH TH 7C"}
    obs["calls"] = ["S"]
    legal = auction_legal(["S"], 0, 2)
    book = Path(belote_sim.__file__).parent / "data" / "bidding" / "threshold.toml"
    for policy in ["atlas_auction", "atlas", "threshold", "threshold:40", f"rules:{book}"]:
        assert choose_call(obs, policy) in legal, policy

    seen = []

    def last_legal(view):
        seen.append(view)
        return view.legal[-1]

    assert choose_call(obs, last_legal) == legal[-1]
    assert sorted(seen[0].cards.split()) == sorted(["JH", "9H", "AH", "TH", "7C"])
    assert seen[0].auction == ("S",) and seen[0].holder == "opponent"

    def illegal(view):
        return "redouble"

    with pytest.raises(ValueError, match="illegal call"):
        choose_call(obs, illegal)


def simulated_positions(n_deals, seed):
    """(observation, hand, trick, leader, strain) of every play of simulated deals."""
    df = simulate(n_deals, play="greedy", seed=seed, trick_log=True)
    for play in deal_plays(df):
        obs = play_observation(play, ruleset="common")
        yield obs, play.hand, play.trick, play.leader, play.strain


def test_legal_cards_against_the_reference():
    for obs, hand, trick, leader, strain in simulated_positions(25, seed=3):
        expected = ref.legal_cards(hand, trick, leader, strain, {"ruleset": "common"})
        assert set(legal_cards(obs)) == set(expected)
        assert len(legal_cards(obs)) == len(expected)


def test_unseeded_choose_card_is_stable_and_never_one_fixed_relabelling():
    """Without a seed: the same observation, the same card; and no single relabelling
    of the suits explains the cards of many observations (it did when every unseeded
    call used relabelling 0)."""
    consistent = set(range(24))
    tied = 0
    for obs, *_ in simulated_positions(30, seed=8):
        card = choose_card(obs, "greedy")
        assert choose_card(json.loads(json.dumps(obs)), "greedy") == card
        by_perm = {p: choose_card(obs, "greedy", suit_perm=p) for p in range(24)}
        if len(set(by_perm.values())) > 1:
            tied += 1
            consistent &= {p for p, c in by_perm.items() if c == card}
    assert tied > 20
    assert not consistent


def test_unseeded_choose_call_is_stable_in_the_french_second_round():
    obs = {"ruleset": "french", "dealer": 0, "seat": 1, "hand": "JH 9C AD TS 7C"}
    obs |= {"turned": "8H", "calls": ["pass"] * 4}
    assert choose_call(obs, "take:0,0,0,0") == choose_call(dict(obs), "take:0,0,0,0")


def test_the_package_names_and_the_schema():
    assert {"legal_cards", "choose_card", "legal_calls", "choose_call"} <= set(belote_sim.__all__)
    schema = json.loads(SCHEMA.read_text())
    assert belote_sim.observation_schema() == schema
    assert schema["version"] == belote_sim.AGENT_API_VERSION
    assert schema["$defs"]["strain"]["enum"] == STRAINS
    play, bidding = schema["$defs"]["play"], schema["$defs"]["bidding"]
    # the schema's fields are the fields the package reads (an unknown one is refused)
    obs = {"dealer": 3, "seat": 0, "hand": "7C 8C 9C TC JC QC KC AC"}
    obs["contract"] = {"strain": "H", "taker": 0}
    for field in ["nonsense", "bids"]:
        assert field not in play["properties"]
        with pytest.raises(ValueError, match="unknown"):
            legal_cards(dict(obs, **{field: 1}))
    assert set(play["required"]) == {"dealer", "seat", "hand", "contract"}
    assert set(bidding["required"]) == {"dealer", "seat", "hand"}


def test_choose_card_from_two_threads_gives_the_cards_of_one():
    """The kernels run without the GIL and reuse their scratch between calls: two
    threads asking at once get the cards that one thread gets."""
    from concurrent.futures import ThreadPoolExecutor

    positions = [obs for obs, *_ in simulated_positions(6, seed=21)]
    for policy in ["greedy", "expert"]:
        alone = [choose_card(obs, policy) for obs in positions]
        with ThreadPoolExecutor(2) as pool:
            together = list(pool.map(lambda obs, p=policy: choose_card(obs, p), positions))
        assert together == alone


def test_take_or_pass_calls_in_the_3_and_2_player_games():
    """docs/rules.md 4.3: pass or a higher strain, no doubling; the bidding stops once
    every other player has passed after a bid."""
    obs = {"ruleset": "bulgarian", "options": {"players": 3}, "dealer": 0, "seat": 1}
    obs["hand"] = "JH 9H AH TH KC"
    assert legal_calls(obs) == ["pass", *STRAINS]
    assert legal_calls(dict(obs, seat=2, calls=["H"])) == ["pass", "S", "NT", "AT"]
    assert legal_calls(dict(obs, seat=1, calls=["H", "pass", "S"])) == ["pass", "NT", "AT"]
    with pytest.raises(ValueError, match="bidding is over"):
        legal_calls(dict(obs, seat=1, calls=["H", "pass", "pass"]))
    with pytest.raises(ValueError, match="not a legal call"):
        legal_calls(dict(obs, seat=0, calls=["H", "double"]))
    assert choose_call(dict(obs, seat=2, calls=["H"]), "threshold") in ["pass", "S", "NT", "AT"]
    two = {"ruleset": "bulgarian", "options": {"players": 2}, "dealer": 0, "seat": 1}
    with pytest.raises(ValueError, match="6 cards"):
        legal_calls(dict(two, hand="JH 9H AH TH KC"))
    assert legal_calls(dict(two, hand="JH 9H AH TH KC QC")) == ["pass", *STRAINS]
