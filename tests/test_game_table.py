"""The game interfaces' deal state machine (``belote_sim.games.table.Table``) against
deals the engine simulated: every dealt card, call and card played is legal there, and
the final points are the engine's, for the three 4-player presets."""

from __future__ import annotations

import random

import pytest
from game_feed import engine_deals

from belote_sim.cards import format_card, iter_cards
from belote_sim.games.table import BIDDING, DEALING, OVER, PLAY, Table


def feed(table: Table, moves) -> None:
    for kind, value in moves:
        if kind == "card":
            assert table.phase == DEALING
            table.deal_card(value)
        elif kind == "call":
            assert value in table.legal_calls(), (table.calls, value)
            table.call(value)
        else:
            assert (table.legal_cards() >> value) & 1, format_card(value)
            table.play(value)


@pytest.mark.parametrize("ruleset", ["common", "bulgarian", "french"])
def test_engine_deals_replay_through_the_table(ruleset):
    seen = set()
    for row, moves in engine_deals(ruleset, 120, seed=5):
        table = Table(ruleset, dealer=int(row.dealer))
        feed(table, moves)
        assert table.phase == OVER
        assert table.outcome == row.outcome
        assert table.mp == [row.mp0, row.mp1]
        assert table.held_mp == [row.held_mp0, row.held_mp1]
        seen.add(row.outcome)
        if row.outcome != "thrown_in":
            # what the table announced is what the engine scored as belotes
            belotes = [d for d in table.announced if d["kind"] == "belote"]
            points = [sum(20 for d in belotes if d["seat"] % 2 == t) for t in (0, 1)]
            assert points == [row.belote0, row.belote1]
    assert {"made", "inside", "thrown_in"} <= seen


def test_engine_auctions_include_doubles():
    """The common/bulgarian feeds exercise the doubles (else the test above proves less)."""
    calls = "".join(str(row.auction) for row, _ in engine_deals("common", 400, seed=5))
    assert "x" in calls


def test_table_refuses_what_the_rules_refuse():
    table = Table("common", dealer=3)
    for card in range(20):
        table.deal_card(card)
    assert table.phase == BIDDING and table.to_move == 0
    assert table.legal_calls() == ["p", "C", "D", "H", "S", "N", "A"]
    with pytest.raises(ValueError, match="illegal call 'x'"):
        table.call("x")
    table.call("H")
    assert "x" in table.legal_calls() and table.to_move == 1
    fresh = Table("common")
    fresh.deal_card(3)
    with pytest.raises(ValueError, match="dealt already"):
        fresh.deal_card(3)
    with pytest.raises(ValueError, match="4-player game"):
        Table("bulgarian", {"players": 3})


def test_four_passes_throw_the_deal_in():
    table = Table("bulgarian", dealer=0)
    for card in range(20):
        table.deal_card(card)
    for _ in range(4):
        table.call("p")
    assert table.phase == OVER and table.mp == [0, 0] and table.outcome == "thrown_in"


def test_random_deals_end_and_announce_the_first_cards():
    rng = random.Random(3)
    for ruleset in ("common", "french"):
        for _ in range(20):
            table = Table(ruleset, dealer=rng.randrange(4))
            while table.phase != OVER:
                if table.phase == DEALING:
                    table.deal_card(rng.choice(list(iter_cards(table.deck))))
                elif table.phase == BIDDING:
                    table.call(rng.choice(table.legal_calls()))
                else:
                    assert table.phase == PLAY
                    table.play(rng.choice(list(iter_cards(table.legal_cards()))))
            if table.outcome != "thrown_in":
                assert len(table.plays) == 32 and sum(table.mp) >= 0


@pytest.mark.parametrize("ruleset", ["common", "french"])
def test_excluded_cards_are_never_held(ruleset):
    """What the play shows a seat lacks (``Table.excluded``) is never in its hand, in
    the engine's deals; and it is not empty: seats do show out."""
    shown = 0
    for row, moves in engine_deals(ruleset, 60, seed=11):
        table = Table(ruleset, dealer=int(row.dealer))
        for kind, value in moves:
            if kind == "card":
                table.deal_card(value)
            elif kind == "call":
                table.call(value)
            else:
                table.play(value)
                for seat in range(4):
                    assert not table.excluded[seat] & table.hands[seat]
        shown += sum(bin(m).count("1") for m in table.excluded)
    assert shown > 100
