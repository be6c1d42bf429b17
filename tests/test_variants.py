"""The games where every player is alone (docs/rules.md section 11): 3 players, 2 players,
open belot -- rules, dealing, bidding, simulation invariants, exports, reports, CLI."""

import json

import numpy as np
import pandas as pd
import pytest

from belote_sim import Rules, replay
from belote_sim.analysis.report_tables import report_tables
from belote_sim.cards import format_card, parse_card
from belote_sim.cli import main
from belote_sim.kernels.dealing import solo_hands_from_deck
from belote_sim.simulation.deal_table import read_deals, table_piles
from belote_sim.simulation.export import records
from belote_sim.simulation.runner import make_study, simulate, simulate_games, simulate_to_parquet

GAMES = {"three": dict(players=3), "two": dict(players=2), "open": dict(variant="open")}
TRICKS = {"three": 8, "two": 9, "open": 16}
PLAYERS = {"three": 3, "two": 2, "open": 2}
TOTAL = {"C": 162, "D": 162, "H": 162, "S": 162, "AT": 258, "NT": 130}
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
DECK24 = {r + s for s in "CDHS" for r in "9TJQKA"}


def _points(card: str, strain: str) -> int:
    trump = strain == "AT" or card[1] == strain
    return (TRUMP_POINTS if trump else PLAIN_POINTS)[card[0]]


def _cards(mask: int) -> set[str]:
    return {format_card(c) for c in range(32) if (int(mask) >> c) & 1}


@pytest.fixture(scope="module", params=list(GAMES))
def game(request):
    name = request.param
    df = simulate(1500, "bulgarian", options=GAMES[name], seed=21, trick_log=True, chunk_size=500)
    return name, df


# --- rules -----------------------------------------------------------------------------


def test_solo_rules_defaults_and_errors():
    r = Rules.preset("bulgarian", players=3)
    assert (r.solo, r.bidding, r.doubling, r.max_doubling) == (True, "take_or_pass", False, 0)
    assert (r.deck_size, r.hand_size, r.n_tricks) == (24, 8, 8)
    r = Rules.preset("bulgarian", players=2)
    assert (r.deck_size, r.hand_size, r.n_tricks) == (24, 9, 9)
    r = Rules.preset("common", variant="open")
    assert (r.players, r.deck_size, r.hand_size, r.n_tricks) == (2, 32, 8, 16)
    assert Rules.preset("bulgarian", players=2, doubling=True).max_doubling == 2
    assert Rules.preset("common").replace(players=3).bidding == "take_or_pass"
    for options, words in [
        (dict(players=5), "players must be 2, 3 or 4"),
        (dict(players=3, variant="open"), "2-player game"),
        (dict(players=3, revoke_penalty=True), "revoke_penalty"),
        (dict(players=3, bidding="auction"), "take-or-pass"),
        (dict(bidding="take_or_pass"), "2- and 3-player"),
    ]:
        with pytest.raises(ValueError, match=words):
            Rules.preset("bulgarian", **options)
    with pytest.raises(ValueError, match="match points"):
        Rules.preset("french", players=3)


# --- dealing and bidding -----------------------------------------------------------------


@pytest.mark.parametrize("players, open_table", [(3, False), (2, False), (2, True)])
def test_deal_packets_follow_the_deck_positions(players, open_table):
    """Dealing an unshuffled deck (position i holds card i) shows the packet layout of
    docs/rules.md section 11, dealt from dealer + 1."""
    deck = np.arange(32 if open_table else 24, dtype=np.int64)
    hands = np.zeros(players, dtype=np.int64)
    bid = np.zeros(players, dtype=np.int64)
    table = np.full((players, 4, 2), -1, dtype=np.int64)
    dealer = players - 1  # seat 0 receives first
    solo_hands_from_deck(deck, dealer, players, open_table, hands, bid, table)
    pos = lambda *p: sum(1 << i for i in p)  # noqa: E731
    if players == 3:
        assert hands[0] == pos(0, 1, 2, 9, 10, 15, 16, 17) and bid[0] == pos(0, 1, 2, 9, 10)
        assert hands[2] == pos(6, 7, 8, 13, 14, 21, 22, 23)
    elif not open_table:
        assert hands[0] == pos(0, 1, 2, 6, 7, 8, 12, 13, 14) and bid[0] == pos(0, 1, 2, 6, 7, 8)
        assert hands[1] == pos(3, 4, 5, 9, 10, 11, 15, 16, 17)  # 18..23 unseen
    else:
        assert hands[1] == pos(3, 4, 5, 8, 9, 29, 30, 31)
        assert table[1].tolist() == [[11, 19], [13, 21], [15, 23], [17, 25]]
        assert table[0].tolist() == [[10, 18], [12, 20], [14, 22], [16, 24]]
        assert bid[0] == pos(0, 1, 2, 6, 7, 18, 20, 22, 24)


def _expected_auction(bid_masks, dealer, players, thresholds=(50.0, 52.0, 75.0)):
    """Take-or-pass (docs/rules.md 4.3) with the threshold policy, written out plainly."""
    score_of = {}
    for strain_i, strain in enumerate(["C", "D", "H", "S", "NT", "AT"]):
        score_of[strain_i] = lambda cards, strain=strain: sum(
            (_points(c, "NT") + (5 if c[0] == "A" else 0))
            if strain == "NT"
            else (TRUMP_POINTS[c[0]] + (5 if c[0] == "J" else 0))
            if strain == "AT"
            else (TRUMP_POINTS[c[0]] + 10)
            if c[1] == strain
            else (8 if c[0] == "A" else 0)
            for c in cards
        )
    calls, current, bidder, passes, seat = "", -1, -1, 0, (dealer + 1) % players
    while True:
        best, best_margin = -1, 0.0
        if seat != bidder:
            for strain in range(current + 1, 6):
                limit = thresholds[0] if strain < 4 else thresholds[1 if strain == 4 else 2]
                margin = score_of[strain](_cards(bid_masks[seat])) - limit
                if margin >= 0 and (best < 0 or margin > best_margin):
                    best, best_margin = strain, margin
        if best >= 0:
            calls += "CDHSNA"[best]
            current, bidder, passes = best, seat, 0
        else:
            calls += "p"
            passes += 1
        if passes == (players if current < 0 else players - 1):
            return calls
        seat = (seat + 1) % players


def test_take_or_pass_auction(game):
    name, df = game
    n = PLAYERS[name]
    for row in df.head(300).itertuples():
        bids = [getattr(row, f"bid{p}") for p in range(n)]
        assert row.auction == _expected_auction(bids, row.dealer, n)
        if row.outcome == "thrown_in":
            assert set(row.auction) == {"p"}
        else:
            assert (
                "CDHSNA"[["C", "D", "H", "S", "NT", "AT"].index(row.strain)]
                == row.auction.rstrip("p")[-1]
            )
            assert row.doubling == 0


# --- simulation invariants ---------------------------------------------------------------


def test_deals_use_the_right_deck_and_sizes(game):
    name, df = game
    n = PLAYERS[name]
    for row in df.head(200).itertuples():
        hands = [_cards(getattr(row, f"hand{p}")) for p in range(n)]
        if name == "open":
            tables = [table_piles(getattr(row, f"table{p}")) for p in range(2)]
            table_cards = [{format_card(c) for pile in t for c in pile} for t in tables]
            assert all(len(h) == 8 for h in hands)
            assert set().union(*hands, *table_cards) == {format_card(c) for c in range(32)}
            for p in range(2):
                assert _cards(getattr(row, f"table_up{p}")) == {
                    format_card(pile[1]) for pile in tables[p]
                }
                assert _cards(getattr(row, f"table_down{p}")) == {
                    format_card(pile[0]) for pile in tables[p]
                }
        else:
            size = 8 if n == 3 else 9
            assert all(len(h) == size for h in hands)
            union = set().union(*hands)
            assert len(union) == size * n and union <= DECK24
        for p in range(n):
            bid = _cards(getattr(row, f"bid{p}"))
            own = hands[p] | (_cards(getattr(row, f"table_up{p}")) if name == "open" else set())
            assert bid <= own and len(bid) == (9 if name == "open" else 5 if n == 3 else 6)


def test_card_points_tricks_and_raw_add_up(game):
    name, df = game
    n = PLAYERS[name]
    played = df[df["outcome"] != "thrown_in"]
    assert len(played) > 1000
    for row in played.itertuples():
        cards = row.plays.split()
        assert len(cards) == TRICKS[name] * n and len(set(cards)) == len(cards)
        card_points = [getattr(row, f"card_points{p}") for p in range(n)]
        expected = sum(_points(c, row.strain) for c in cards) + 10
        assert sum(card_points) == expected
        if name != "two":  # the 2-player game leaves 6 cards unseen
            assert expected == TOTAL[row.strain]
        assert sum(getattr(row, f"tricks{p}") for p in range(n)) == TRICKS[name]
        factor = 2 if row.strain == "NT" else 1
        for p in range(n):
            assert getattr(row, f"raw{p}") == factor * (
                card_points[p] + getattr(row, f"decl{p}") + getattr(row, f"belote{p}")
            )
        if name == "three":
            assert row.outcome in ("made", "inside")
            raw = [getattr(row, f"raw{p}") for p in range(3)]
            others = [raw[p] for p in range(3) if p != row.taker]
            assert (row.outcome == "made") == (raw[row.taker] > max(others))


def test_every_card_legal_and_replay_reproduces_the_row(game):
    """Each simulated deal, exported as a replay record, replays to the same scores."""
    name, df = game
    n = PLAYERS[name]
    played = df[df["outcome"] != "thrown_in"]
    for rec, row in zip(records(df, df.attrs["belote_sim"]), played.itertuples()):
        r = replay(rec)
        assert r["illegal"] is None and r["to_play"] is None
        for field in ("raw", "mp", "card_points"):
            column = "card_points" if field == "card_points" else field
            assert r[field] == [getattr(row, f"{column}{p}") for p in range(n)], field
        assert r["outcome"] == row.outcome
        assert sum(1 for t in r["tricks"]) == TRICKS[name]


def test_same_table_whatever_the_threads():
    for options in GAMES.values():
        a = simulate(3000, "bulgarian", options=options, seed=4, threads=1, chunk_size=1000)
        b = simulate(3000, "bulgarian", options=options, seed=4, threads=2, chunk_size=1000)
        pd.testing.assert_frame_equal(a, b)


def test_fixed_contract_and_random_play():
    df = simulate(
        500, "bulgarian", options=dict(players=3), bidding="fixed:1,5,0", play="random", seed=2
    )
    assert (df["taker"] == 1).all() and (df["strain"] == "AT").all()
    assert (df["card_points0"] + df["card_points1"] + df["card_points2"] == 258).all()


def test_solo_study_errors():
    with pytest.raises(ValueError, match="random, greedy and expert"):
        make_study("bulgarian", play="pimc", options=dict(players=3))
    with pytest.raises(ValueError, match="4-player game"):
        make_study("bulgarian", predeal={0: "JH"}, options=dict(players=3))
    with pytest.raises(ValueError, match="dealer"):
        make_study("bulgarian", dealer=3, options=dict(players=3))
    with pytest.raises(ValueError, match="list of 3"):
        make_study("bulgarian", play=["greedy"] * 4, options=dict(players=3))
    with pytest.raises(ValueError, match="dealing=cut"):
        simulate_games(2, "bulgarian", options=dict(players=3, dealing="cut"))
    study = make_study("bulgarian", play=["greedy", "random", "greedy"], options=dict(players=3))
    assert [s.name for s in study.play[:3]] == ["greedy", "random", "greedy"]


# --- files, reports, command line --------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_parquet_report_and_exact_declarations(tmp_path, name):
    path = tmp_path / "d.parquet"
    study = make_study("bulgarian", options=GAMES[name], seed=8)
    simulate_to_parquet(str(path), 20000, study)
    df = read_deals(str(path))
    n = PLAYERS[name]
    assert f"raw{n - 1}" in df.columns and f"hand{n}" not in df.columns
    tables = report_tables(str(path))
    decl = tables["declarations"]
    scopes = {"three": {"hand5", "hand8"}, "two": {"hand6", "hand9"}, "open": {"hand8", "hand12"}}[
        name
    ]
    assert set(decl["scope"]) == scopes
    assert (decl["deck"] == (32 if name == "open" else 24)).all()
    # simulated frequencies agree with the exact probabilities of the right deck
    assert (decl["z"].abs() < 4.5).all(), decl[decl["z"].abs() >= 4.5]
    assert tables["outcomes"].set_index("event").loc["made", "n"] > 15000
    if name == "three":
        assert tables["outcomes"].set_index("event").loc["hanging", "hits"] == 0


def test_read_deals_checks_the_solo_columns(tmp_path):
    path = tmp_path / "d.parquet"
    simulate_to_parquet(str(path), 100, make_study("bulgarian", options=dict(players=3)))
    import pyarrow.parquet as pq

    table = pq.read_table(str(path))
    pq.write_table(table.drop(["raw2"]), str(tmp_path / "bad.parquet"))
    with pytest.raises(ValueError, match="raw2"):
        read_deals(str(tmp_path / "bad.parquet"))


def test_cli_simulate_export_replay_report(tmp_path, capsys):
    table = tmp_path / "three.parquet"
    assert (
        main(
            [
                "simulate",
                "--ruleset",
                "bulgarian",
                "--players",
                "3",
                "--deals",
                "3000",
                "-q",
                "-o",
                str(table),
            ]
        )
        == 0
    )
    assert "3,000 deals" in capsys.readouterr().out
    records_path = tmp_path / "r.jsonl"
    assert main(["export-replay", str(table), "--rows", "0:20", "-o", str(records_path)]) == 0
    lines = records_path.read_text().splitlines()
    assert lines and all(json.loads(x)["players"] == 3 for x in lines)
    assert main(["replay", str(records_path), "-o", str(tmp_path / "o.jsonl")]) == 0
    out = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert all(len(r["mp"]) == 3 for r in out)
    assert main(["report", str(table), "-o", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "index.html").exists()
    opened = tmp_path / "open.parquet"
    assert (
        main(
            [
                "simulate",
                "--variant",
                "open",
                "--deals",
                "500",
                "-q",
                "-o",
                str(opened),
                "--trick-log",
            ]
        )
        == 0
    )
    # the same output again: an existing file is replaced only with --overwrite
    assert main(["export-replay", str(opened), "--rows", "0:3", "-o", str(records_path)]) == 2
    argv = ["export-replay", str(opened), "--rows", "0:3", "-o", str(records_path), "--overwrite"]
    assert main(argv) == 0
    rec = json.loads(records_path.read_text().splitlines()[0])
    assert rec["variant"] == "open" and len(rec["table"]) == 2 and len(rec["plays"]) == 32
    capsys.readouterr()
    assert (
        main(
            [
                "simulate",
                "--players",
                "3",
                "--play",
                "pimc",
                "--deals",
                "10",
                "-q",
                "-o",
                str(tmp_path / "x.parquet"),
            ]
        )
        == 2
    )
    assert "random, greedy and expert" in capsys.readouterr().err


# --- replay records ----------------------------------------------------------------------

THREE = {
    "ruleset": "bulgarian",
    "players": 3,
    "dealer": 2,
    "hands": ["9C TC JC QC KC AC 9D TD", "JD QD KD AD 9H TH JH QH", "KH AH 9S TS JS QS KS AS"],
    "contract": {"strain": "S", "taker": 2},
}


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(hands=["7C TC JC QC KC AC 9D TD"] + THREE["hands"][1:]), "24-card deck"),
        (dict(hands=THREE["hands"][:2]), "list of 3 hands"),
        (dict(hands=["9C TC JC QC KC AC 9D"] + THREE["hands"][1:]), "8 cards"),
        (dict(dealer=3), "dealer"),
        (dict(contract={"strain": "S", "taker": 3}), "taker"),
        (dict(contract={"strain": "S", "taker": 0, "doubling": 1}), "doubling"),
        (dict(table=[[["9C", "TC"]] * 4] * 2), "only open belot"),
        (dict(options={"players": 2}), "contradicts"),
        (dict(plays=["9C"] * 25), "at most 24"),
        (dict(turned="9C"), "french"),
    ],
)
def test_solo_record_errors(change, words):
    with pytest.raises(ValueError, match=words):
        replay({**THREE, **change})


def test_open_record_errors():
    base = {
        "ruleset": "bulgarian",
        "variant": "open",
        "dealer": 1,
        "hands": ["7C 8C 9C TC JC QC KC AC", "7D 8D 9D TD JD QD KD AD"],
        "table": [
            [["7H", "8H"], ["9H", "TH"], ["JH", "QH"], ["KH", "AH"]],
            [["7S", "8S"], ["9S", "TS"], ["JS", "QS"], ["KS", "AS"]],
        ],
        "contract": {"strain": "H", "taker": 0},
    }
    assert replay(base)["legal"] == sorted(
        ["7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "8H", "TH", "QH", "AH"], key=parse_card
    )
    bad = json.loads(json.dumps(base))
    bad["table"][1][3] = ["KS", "7C"]
    with pytest.raises(ValueError, match="7C is dealt twice"):
        replay(bad)
    bad["table"] = [[["7H", "8H"]] * 4]
    with pytest.raises(ValueError, match="4 table piles"):
        replay(bad)
    with pytest.raises(ValueError, match="table"):
        replay({k: v for k, v in base.items() if k != "table"})


def test_french_turned_card_field():
    rec = {
        "ruleset": "french",
        "dealer": 3,
        "turned": "JH",
        "hands": [
            "JH 9H AH TH KS QS 7C 8D",
            "7H 8H QH KH 7S 8S 9S TS",
            "JS AS 9C TC JC QC KC AC",
            "7D 9D TD JD QD KD AD 8C",
        ],
        "contract": {"strain": "H", "taker": 0},
    }
    assert replay(rec)["to_play"] == 0
    with pytest.raises(ValueError, match="must hold the turned card"):
        replay({**rec, "turned": "7H"})


def test_solver_rejects_solo_records():
    from belote_sim.deal.solver import solve_record

    with pytest.raises(ValueError, match="4-player game"):
        solve_record(THREE)


def _replay_game(deals, players, target=151):
    """Accumulate a game from its deal log, written out plainly (docs/rules.md 9, 11)."""
    scores = [0] * players
    pot = 0
    for row in deals.itertuples():
        mp = [getattr(row, f"mp{p}") for p in range(players)]
        held = [getattr(row, f"held_mp{p}") for p in range(players)]
        scores = [a + b for a, b in zip(scores, mp)]
        pot += sum(held)
        # a thrown-in deal leaves the pot alone, but the end test runs after it too
        # (docs/rules.md 9 and 11)
        if players == 2 and row.outcome not in ("hanging", "thrown_in") and pot:
            winner = row.taker if row.outcome == "made" else 1 - row.taker
            scores[winner] += pot
            pot = 0
        top = max(scores)
        if top >= target and pot == 0 and pd.isna(row.valat) and scores.count(top) == 1:
            return scores, pot, scores.index(top), row.deal_no + 1
    return scores, pot, None, len(deals)


@pytest.mark.parametrize("name", list(GAMES))
def test_game_mode_accumulates_the_deals(name):
    n = PLAYERS[name]
    games, deals = simulate_games(40, "bulgarian", options=GAMES[name], seed=9, deal_log=True)
    assert list(games.columns[4 : 4 + n]) == [f"score{p}" for p in range(n)]
    assert games["winner"].notna().all()
    for game in games.itertuples():
        log = deals[deals["game_id"] == game.game_id]
        scores, pot, winner, n_deals = _replay_game(log, n)
        assert [getattr(game, f"score{p}") for p in range(n)] == scores
        assert (game.held, game.winner, game.deals) == (pot, winner, n_deals)
    again = simulate_games(40, "bulgarian", options=GAMES[name], seed=9, threads=1)
    pd.testing.assert_frame_equal(games, again)


def test_cli_games_of_three_players(tmp_path, capsys):
    out = tmp_path / "games.parquet"
    assert main(["simulate", "--players", "3", "--games", "50", "-q", "-o", str(out)]) == 0
    assert "player 0 won" in capsys.readouterr().out
    games = pd.read_parquet(out)
    assert {"score0", "score1", "score2"} <= set(games.columns)
