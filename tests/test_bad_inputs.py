"""The remaining bad inputs of issue 24 (finding 7): each gets one line or works.

``--games 10**12``, integer options beyond 64 bits, a table claiming 7 players,
``choose_card`` with ``seed=2**70`` or ``declarations=5``, ``NaN`` in ``--json``
output (must be ``null``), ``solve HANDS --records``, and a history where a seat
other than the mover shows out of a suit and later plays it.  Studies are tiny.
"""

import json

import pyarrow.parquet as pq
import pytest
from cli_run import one_line_error, run_cli

from belote_sim.deal.agent import choose_card
from belote_sim.simulation.runner import make_study, simulate_games, simulate_to_parquet

BIG = 2**70
HANDS = (
    "7C 8C 9C TC JC QC KC AC|7D 8D 9D TD JD QD KD AD|7H 8H 9H TH JH QH KH AH|"
    "7S 8S 9S TS JS QS KS AS"
)


def strict_json(text):
    """JSON as the standard has it: NaN and Infinity are not JSON."""

    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_games_beyond_memory_are_one_line(tmp_path):
    rc, _, err = run_cli(["simulate", "--games", 10**12, "-q", "-o", tmp_path / "g.parquet"])
    # refused before any work: by the output's disk check or the memory check
    one_line_error(rc, err, "need about")
    assert not (tmp_path / "g.parquet").exists()
    with pytest.raises(ValueError, match="games need about"):
        simulate_games(10**12)


@pytest.mark.parametrize(
    "argv, option",
    [
        (["simulate", "--deals", 10, "--seed", BIG], "--seed"),
        (["simulate", "--games", BIG], "--games"),
        (["simulate", "--deals", 10, "--chunk-size", BIG], "--chunk-size"),
        (["atlas", "build", "--first-deals", BIG, "--max-deals", BIG], "--first-deals"),
        (["atlas", "build", "--rounds", -BIG], "--rounds"),
        (["duel", "--a", "greedy", "--b", "random", "--deals", BIG], "--deals"),
        (["hand", "JH 9H AH TS 7C", "--seed", BIG], "--seed"),
        (["study", "bidding", "--games", BIG], "--games"),
        (["perft", "x.perft", "--max-nodes", BIG], "--max-nodes"),
    ],
)
def test_integer_options_beyond_64_bits_are_one_line(tmp_path, argv, option):
    rc, _, err = run_cli(argv + (["-o", tmp_path / "o"] if argv[0] == "simulate" else []))
    one_line_error(rc, err, option, "beyond the 64-bit integer range")


def test_deals_beyond_64_bits_get_the_disk_space_line(tmp_path):
    rc, _, err = run_cli(["simulate", "--deals", BIG, "-q", "-o", tmp_path / "o"])
    one_line_error(rc, err, "deals need about", "on disk")


def test_a_local_cluster_of_absurdly_many_workers_is_refused(tmp_path):
    rc, _, err = run_cli(["simulate", "--deals", 10, "--workers", 10**12, "-o", tmp_path / "d"])
    one_line_error(rc, err, "--workers must be at most")
    rc, _, err = run_cli(["atlas", "build", "--workers", 10**6, "-o", tmp_path / "a.npz"])
    one_line_error(rc, err, "--workers must be at most")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("t") / "deals.parquet"
    simulate_to_parquet(str(path), 40, make_study("common", seed=2, chunk_size=20))
    return path


@pytest.mark.parametrize("players", [7, 0, "4", None])
def test_a_table_claiming_an_impossible_game_is_one_line(tmp_path, table, players):
    pf = pq.ParquetFile(table)
    arrow = pf.read()
    meta = dict(arrow.schema.metadata)
    provenance = json.loads(meta[b"belote_sim"])
    provenance["options"]["players"] = players
    meta[b"belote_sim"] = json.dumps(provenance).encode()
    bad = tmp_path / "seven.parquet"
    writer = pq.ParquetWriter(bad, arrow.schema.with_metadata(meta))
    writer.write_table(arrow)
    writer.add_key_value_metadata(
        {"belote_sim_complete": pf.metadata.metadata[b"belote_sim_complete"]}
    )
    writer.close()
    for argv in (
        ["report", bad, "-o", tmp_path / "r"],
        ["export-replay", bad, "--rows", "0:1"],
    ):
        rc, _, err = run_cli(argv)
        one_line_error(rc, err, "seven.parquet", f"{players!r} players")
    assert not (tmp_path / "r").exists()


OBS = {
    "ruleset": "common",
    "dealer": 3,
    "seat": 0,
    "hand": "7C 8C 9C TC JC QC KC AC",
    "contract": {"strain": "H", "taker": 0, "doubling": 0},
    "plays": [],
}


@pytest.mark.parametrize("policy", ["greedy", "random", "pimc:2", "expert:0"])
def test_choose_card_seed_beyond_64_bits_is_a_value_error(policy):
    for seed in (BIG, 2**63, -1):
        with pytest.raises(ValueError, match="seed must be an integer 0..2\\*\\*63-1"):
            choose_card(OBS, policy=policy, seed=seed)
    assert choose_card(OBS, policy=policy, seed=2**63 - 1) in OBS["hand"].split()


@pytest.mark.parametrize("declarations", [5, 2.5, True, {"seat": 1}])
def test_choose_card_declarations_not_a_list_is_a_value_error(declarations):
    with pytest.raises(ValueError, match="'declarations' must be a list"):
        choose_card(dict(OBS, declarations=declarations))
    assert choose_card(dict(OBS, declarations=[])) in OBS["hand"].split()


def test_choose_card_refuses_another_seat_playing_a_suit_it_showed_out_of():
    # dealer 3: seat 0 leads 7C; seat 1 discards 7D (out of clubs), 9C, TC: seat 3 wins
    # trick 2: seat 3 leads AC, seat 0 JC, seat 1 plays 8C -- a club it cannot hold
    obs = {
        "dealer": 3,
        "seat": 2,
        "contract": {"strain": "H", "taker": 0},
        "plays": ["7C", "7D", "9C", "TC", "AC", "JC", "8C"],
        "hand": "8D 9D TD JD QD KD AD",
    }
    with pytest.raises(ValueError, match="seat 1 showed out of C earlier, yet plays 8C"):
        choose_card(obs)


def test_hand_json_under_french_rules_is_json_with_null(tmp_path):
    rc, out, err = run_cli(
        ["hand", "JH 9H AH TS 7C", "--ruleset", "french", "--json", "--deals", 20]
    )
    assert rc == 0, err
    rows = strict_json(out)
    assert rows and all(r["net_mp_x2"] is None for r in rows), out  # no doubling: undefined


def test_duel_json_at_100_deals_is_json():
    rc, out, err = run_cli(["duel", "--a", "greedy", "--b", "random", "--deals", 100, "--json"])
    assert rc == 0, err
    result = strict_json(out)
    assert result["deals"] == 100
    rc, out, err = run_cli(["duel", "--a", "greedy", "--b", "random", "--deals", 2, "--json"])
    assert rc == 0, err
    strict_json(out)  # one mirrored deal: its s.e. is undefined, null


def test_solve_hands_with_records_is_refused(tmp_path):
    records = tmp_path / "r.jsonl"
    records.write_text("")
    rc, _, err = run_cli(["solve", HANDS, "--strain", "H", "--records", records])
    one_line_error(rc, err, "not both")
    rc, _, err = run_cli(["solve", HANDS, "--records", records])
    one_line_error(rc, err, "not both")
    rc, out, err = run_cli(["solve", HANDS, "--strain", "H"])
    assert rc == 0 and strict_json(out.splitlines()[0])["value"] >= 0, err
