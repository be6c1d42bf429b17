"""``belote-sim engine`` (issue 40 item 2), driven by a client written from
docs/guide/engine.md alone: whole deals of ``common``, ``bulgarian`` and ``french``
through engines at every seat, or beside a random player, every answer checked by the
rules of ``tests/reference.py`` (calls: section 4; cards: section 5; trick winners),
and garbage lines answered by one error each, the engine going on."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import reference as ref

REPO = Path(__file__).resolve().parents[1]
DECK = [rank + suit for suit in "CDHS" for rank in "789TJQKA"]


def engine_command() -> list[str]:
    """The installed ``belote-sim`` (beside this Python, else on the PATH)."""
    here = Path(sys.executable).with_name("belote-sim")
    found = str(here) if here.exists() else shutil.which("belote-sim")
    if found is None:
        pytest.fail("the belote-sim command is not installed (pip install -e .)")
    return [found, "engine"]


class Engine:
    """A client of the protocol: one JSON object per line, one answer line each."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            engine_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def raw(self, line: str) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer.endswith("\n"), f"no answer line to {line[:80]!r}"
        return json.loads(answer)

    def ask(self, **request) -> dict:
        """A request that must succeed: its answer, checked to be ``ok``."""
        answer = self.raw(json.dumps(request))
        assert answer.get("ok") == request["cmd"], (request, answer)
        return answer

    def close(self) -> int:
        """``quit``, then the exit status (the pipes closed)."""
        if self.proc.poll() is None:
            assert self.ask(cmd="quit") == {"ok": "quit"}
        status = self.proc.wait(timeout=60)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        return status


@pytest.fixture(scope="module")
def engines():
    started = [Engine() for _ in range(4)]
    for engine in started:
        hello = engine.ask(cmd="hello", protocol=1)
        assert hello["engine"] == "belote-sim" and hello["protocol"] == 1
        assert {"common", "bulgarian", "french"} <= set(hello["rulesets"])
    yield started
    for engine in started:
        assert engine.close() == 0


def random_caller(rng):
    """A player that makes a random legal call, passing more often than not."""

    def call(legal):
        return "pass" if "pass" in legal and rng.random() < 0.6 else rng.choice(legal)

    return call


def play_deal(players, ruleset, dealer, rng, options=None):
    """One deal at a table of ``players`` (per seat an ``Engine`` or None: a random
    player); every engine answer is checked against the reference.  Returns the
    contract (strain, taker, doubling) or None (thrown in), and the engines' calls and
    cards in order."""
    rules = {"ruleset": ruleset, "options": options or {}}
    deck = DECK[:]
    rng.shuffle(deck)
    bidding = {s: deck[5 * ((s - dealer - 1) % 4) : 5 * ((s - dealer - 1) % 4) + 5]
               for s in range(4)}  # fmt: skip
    rest = deck[20:]
    turned = rest[0] if ruleset == "french" else None
    for seat, engine in enumerate(players):
        if engine is not None:
            fields = {"seat": seat, "dealer": dealer, "cards": " ".join(bidding[seat])}
            if turned:
                fields["turned"] = turned
            answer = engine.ask(cmd="deal", **fields)
            assert answer["phase"] == "bidding" and answer["turn"] == (dealer + 1) % 4
    calls: list[str] = []
    caller = random_caller(rng)
    decisions = []
    while True:
        state = ref.auction(calls, dealer, rules, turned)
        if state["over"]:
            break
        seat = state["turn"]
        engine = players[seat]
        if engine is not None:
            own = engine.ask(cmd="call?")
            call = own["call"]
            assert call in state["legal"], (calls, call, state["legal"])
            decisions.append(call)
        else:
            call = caller(state["legal"])
        calls.append(call)
        after = ref.auction(calls, dealer, rules, turned)
        for other, listener in enumerate(players):
            if listener is None:
                continue
            if other == seat:
                answer = own
            else:
                answer = listener.ask(cmd="call", seat=seat, call=call)
            if not after["over"]:
                assert answer["phase"] == "bidding" and answer["turn"] == after["turn"]
            elif after["contract"] is None:
                assert answer.get("thrown_in") is True and answer["phase"] == "over"
            else:
                strain, taker, doubling = after["contract"]
                assert answer["contract"] == {"strain": strain, "taker": taker,
                                              "doubling": doubling}  # fmt: skip
                assert answer["phase"] == "hand"
    contract = state["contract"]
    if contract is None:
        return None, decisions
    strain, taker, _ = contract
    # the rest of the deck: three cards each from dealer+1 (french: the taker gets
    # the turned card and two)
    hands = {s: list(bidding[s]) for s in range(4)}
    pile = rest[1:] if turned else rest
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        if turned and seat == taker:
            hands[seat] += [turned] + [pile.pop(0) for _ in range(2)]
        else:
            hands[seat] += [pile.pop(0) for _ in range(3)]
    for seat, engine in enumerate(players):
        if engine is not None:
            answer = engine.ask(cmd="hand", cards=hands[seat])
            assert answer["phase"] == "play" and answer["turn"] == (dealer + 1) % 4
    leader = (dealer + 1) % 4
    plays: list[str] = []
    for trick_no in range(8):
        trick: list[str] = []
        for pos in range(4):
            seat = (leader + pos) % 4
            legal = ref.legal_cards(sorted(hands[seat]), trick, leader, strain, rules)
            engine = players[seat]
            if engine is not None:
                asked = engine.ask(cmd="legal?")
                assert sorted(asked["cards"]) == sorted(legal)
                own = engine.ask(cmd="card?")
                card = own["card"]
                assert card in legal, (plays, card, legal)
                decisions.append(card)
            else:
                card = rng.choice(sorted(legal))
            hands[seat].remove(card)
            trick.append(card)
            plays.append(card)
            winner = ref.trick_winner(trick, leader, strain) if len(trick) == 4 else None
            for other, listener in enumerate(players):
                if listener is None:
                    continue
                if other == seat:
                    answer = own
                else:
                    answer = listener.ask(cmd="play", seat=seat, card=card)
                if winner is not None:
                    assert answer["trick"] == trick_no + 1 and answer["winner"] == winner
                if len(plays) == 32:
                    assert answer["phase"] == "over" and answer["turn"] is None
                else:
                    after = winner if winner is not None else (seat + 1) % 4
                    assert answer["phase"] == "play" and answer["turn"] == after
        leader = ref.trick_winner(trick, leader, strain)
    return contract, decisions


@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_four_engines_play_whole_deals(engines, ruleset):
    rng = random.Random(f"four engines {ruleset}")
    for engine in engines:
        engine.ask(cmd="set", ruleset=ruleset, play="greedy", bidding=None, seed=None)
    played = 0
    for deal in range(4):
        if play_deal(engines, ruleset, dealer=deal % 4, rng=rng)[0] is not None:
            played += 1
    assert played >= 1


@pytest.mark.parametrize(
    ("ruleset", "options", "play", "bidding"),
    [
        # the shipped atlas covers the presets' own options: threshold bids here
        ("common", {"third_double": True}, "expert", "threshold"),
        ("bulgarian", {}, "expert:0", None),
        ("french", {"french_allow_nt_at": True}, "random", "take:40,40,40"),
    ],
)
def test_engines_beside_a_random_player(engines, ruleset, options, play, bidding):
    """Engines at seats 0 and 1 (opponents) against a random player at 2 and 3, which
    bids wildly (doubles, redoubles): the engines follow every call and card."""
    rng = random.Random(f"mixed {ruleset}")
    for engine in engines[:2]:
        settings = engine.ask(
            cmd="set", ruleset=ruleset, options=options, play=play, bidding=bidding, seed=5
        )
        assert settings["settings"]["options"] == options
    table = [engines[0], engines[1], None, None]
    contracts = [play_deal(table, ruleset, deal % 4, rng, options)[0] for deal in range(6)]
    assert any(c is not None for c in contracts)


def test_the_same_seed_plays_the_same_deals():
    """With a seed, a fresh engine given the same deals makes the same calls and cards
    (a decision's seed is drawn from the seed, the deal's number and the calls and
    cards so far)."""
    runs = []
    for _ in range(2):
        engine = Engine()
        try:
            engine.ask(cmd="set", ruleset="common", play="expert", seed=11)
            rng = random.Random("seeded")
            table = [engine, None, None, None]
            runs.append([play_deal(table, "common", d, rng) for d in range(3)])
        finally:
            assert engine.close() == 0
    assert runs[0] == runs[1]
    assert any(decisions for _, decisions in runs[0])


def test_garbage_and_illegal_lines_get_one_error_each_and_the_engine_goes_on():
    engine = Engine()
    try:
        for line in [
            "not json",
            "[1, 2]",
            '"hello"',
            "{}",
            '{"cmd": 5}',
            '{"cmd": "fly"}',
            '{"cmd": "hello", "protocol": 2}',
            '{"cmd": "card?"}',
            '{"cmd": "call", "seat": 1, "call": "pass"}',
            '{"cmd": "set", "play": "dd"}',
            '{"cmd": "set", "play": "nonsense"}',
            '{"cmd": "set", "ruleset": "french", "bidding": "atlas_auction"}',
            '{"cmd": "set", "seed": -1}',
            '{"cmd": "set", "bidding": "fixed"}',
            '{"cmd": "set", "colour": "red"}',
            '{"cmd": "deal", "seat": 7, "dealer": 0, "cards": "JH 9H AH TH 7C"}',
            '{"cmd": "deal", "seat": 0, "dealer": 0, "cards": "JH 9H"}',
            '{"cmd": "deal", "seat": 0, "dealer": 0, "cards": "JH JH AH TH 7C"}',
            '{"cmd": "deal", "seat": 0, "dealer": 0, "cards": "ZZ 9H AH TH 7C"}',
            "x" * (1 << 21),  # a line over the 1 MiB limit
        ]:
            answer = engine.raw(line)
            assert set(answer) == {"error"} and answer["error"], (line[:60], answer)
            assert "\n" not in answer["error"] and "Traceback" not in answer["error"]
        # nothing changed: the defaults stand, and a deal goes on after errors
        assert engine.ask(cmd="hello")["settings"]["play"] == "expert"
        engine.ask(cmd="set", play="greedy")
        deal = {"cmd": "deal", "seat": 0, "dealer": 0, "cards": "JH 9H AH TH 7C", "id": "d1"}
        assert engine.raw(json.dumps(deal)) == {"ok": "deal", "phase": "bidding", "turn": 1,
                                                 "id": "d1"}  # fmt: skip
        for line, message in [
            ('{"cmd": "call?"}', "seat 1's turn"),
            ('{"cmd": "call", "seat": 2, "call": "pass"}', "seat 1's turn"),
            ('{"cmd": "call", "seat": 1, "call": "hearts"}', "not a call"),
            ('{"cmd": "call", "seat": 1, "call": "double"}', "not a legal call"),
            ('{"cmd": "hand", "cards": "JH 9H AH TH 7C 8C 8D 8S"}', "phase bidding"),
            ('{"cmd": "play", "seat": 1, "card": "7H"}', "phase bidding"),
        ]:
            answer = engine.raw(line)
            assert message in answer.get("error", ""), (line, answer)
        engine.ask(cmd="call", seat=1, call="S")
        engine.ask(cmd="call", seat=2, call="pass")
        engine.ask(cmd="call", seat=3, call="pass")
        # a table that settles the contract itself (its own bidding rules)
        answer = engine.ask(cmd="contract", strain="S", taker=1, doubling=0)
        assert answer["contract"] == {"strain": "S", "taker": 1, "doubling": 0}
        for cards, message in [
            ("JH 9H AH TH 8C 8D 8S 7S", "bidding cards"),
            ("JH 9H AH TH 7C 8C 8D", "8 cards"),
        ]:
            assert message in engine.raw(json.dumps({"cmd": "hand", "cards": cards}))["error"]
        engine.ask(cmd="hand", cards="JH 9H AH TH 7C 8C 8D 8S")
        for line, message in [
            ('{"cmd": "play", "seat": 0, "card": "7S"}', "seat 1's turn"),
            ('{"cmd": "play", "seat": 1, "card": "8C"}', "in the engine's hand"),
            ('{"cmd": "card?"}', "seat 1's turn"),
            ('{"cmd": "set", "play": "random"}', "deal is in progress"),
        ]:
            answer = engine.raw(line)
            assert message in answer.get("error", ""), (line, answer)
        for line, message in [
            ('{"cmd": "declare", "seat": 1, "kind": "tierce", "cards": "7S 8S"}', "tierce"),
            ('{"cmd": "declare", "seat": 1, "kind": "tierce", "cards": "7C 8C 9C"}', "holds"),
            ('{"cmd": "declare", "seat": 3, "kind": "belote", "cards": "KH QH"}', "trump"),
            ('{"cmd": "declare", "seat": 3, "kind": "carre", "cards": "JC JD JH JS"}', "holds"),
        ]:
            answer = engine.raw(line)
            assert message in answer.get("error", ""), (line, answer)
        engine.ask(cmd="declare", seat=1, kind="tierce", cards="TS JS QS")
        error = engine.raw('{"cmd": "declare", "seat": 3, "kind": "tierce", "cards": "9S TS JS"}')
        assert "declared one of these cards" in error["error"]
        engine.ask(cmd="play", seat=1, card="7S")
        error = engine.raw('{"cmd": "play", "seat": 2, "card": "JS"}')  # seat 1 holds it
        assert "seat 1 declared JS" in error["error"], error
        engine.ask(cmd="play", seat=2, card="9D")
        engine.ask(cmd="play", seat=3, card="AS")
        card = engine.ask(cmd="card?")["card"]
        assert card in ref.legal_cards(
            ["JH", "9H", "AH", "TH", "7C", "8C", "8D", "8S"], ["7S", "9D", "AS"], 1, "S", None
        )
        assert engine.ask(cmd="end") == {"ok": "end", "phase": "idle", "turn": None}
    finally:
        assert engine.close() == 0


def test_the_transcript_of_the_manual_is_what_the_engine_says():
    """docs/guide/engine.md's transcript, sent again: the same answers (the hello
    answer, cut short on the page, only for its first fields)."""
    text = (REPO / "docs" / "guide" / "engine.md").read_text()
    lines = [
        line
        for block in re.findall(r"```text\n(.*?)```", text, re.S)
        for line in block.splitlines()
    ]
    requests = [line[2:] for line in lines if line.startswith("> ")]
    expected = [line[2:] for line in lines if line.startswith("< ")]
    assert len(requests) == len(expected) > 10
    engine = Engine()
    try:
        for request, answer in zip(requests, expected, strict=True):
            got = engine.raw(request)
            if ", ..." in answer:
                head = json.loads(answer.split(", ...")[0] + "}")
                assert {k: got[k] for k in head} == head
            else:
                assert got == json.loads(answer), request
        assert engine.proc.wait(timeout=60) == 0  # the transcript ends with quit
    finally:
        engine.close()
