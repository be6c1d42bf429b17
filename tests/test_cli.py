"""The belote-sim command line."""

import json
import subprocess
import sys
from pathlib import Path

from belote_sim.cli import main
from belote_sim.deal.playout import random_record

ROOT = Path(__file__).resolve().parents[1]


def test_replay_command_lines_and_errors(tmp_path, capsys):
    good = random_record(1, "common")
    lines = [
        json.dumps(good),
        "",
        "{not json",
        json.dumps(dict(good, play=[])),
        json.dumps(dict(good, hands=good["hands"][:3])),
        json.dumps({**good, "id": 7}),
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    dst = tmp_path / "out.jsonl"
    status = main(["replay", str(src), "-o", str(dst)])
    assert status == 1  # some lines failed
    out = [json.loads(x) for x in dst.read_text().splitlines()]
    assert len(out) == 5  # the blank line is skipped
    assert out[0]["mp"] is not None
    assert "not valid JSON" in out[1]["error"] and out[1]["error"].startswith("line 3")
    assert "'play'" in out[2]["error"]
    assert "hands" in out[3]["error"]
    assert out[4]["id"] == 7 and out[4]["raw"] == out[0]["raw"]
    assert "3 of 5 records failed" in capsys.readouterr().err


def test_replay_command_all_good_exit_0(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(random_record(s, "french")) for s in range(5)))
    assert main(["replay", str(src), "-o", str(tmp_path / "o.jsonl")]) == 0


def test_missing_input_is_one_line(capsys):
    assert main(["replay", "/nonexistent/file.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err


def test_perft_command():
    assert main(["perft", str(ROOT / "tests/data/common.perft"), "--max-nodes", "100000"]) == 0


def test_main_job(tmp_path, capsys):
    assert main(["main", "-o", str(tmp_path), "--deals", "3000"]) == 0
    text = capsys.readouterr().out
    assert "default study, 3,000 deals" in text and "deals/s" in text
    from belote_sim.simulation.deal_table import read_deals

    assert len(read_deals(str(tmp_path / "deals.parquet"))) == 3000


def test_simulate_and_export_commands(tmp_path, capsys):
    table = tmp_path / "d.parquet"
    assert (
        main(
            [
                "simulate",
                "--deals",
                "2000",
                "--seed",
                "5",
                "--ruleset",
                "bulgarian",
                "--option",
                "kirtik=true",
                "--play-seat",
                "1:random",
                "-o",
                str(table),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "2,000 deals" in out and "made" in out
    records = tmp_path / "r.jsonl"
    assert main(["export-replay", str(table), "--rows", "10:40", "-o", str(records)]) == 0
    lines = records.read_text().splitlines()
    assert 20 <= len(lines) <= 30
    assert main(["replay", str(records), "-o", str(tmp_path / "o.jsonl")]) == 0


def test_simulate_bad_options_one_line(capsys):
    assert main(["simulate", "--deals", "10", "--play", "clever"]) == 2
    err = capsys.readouterr().err
    assert "unknown play policy" in err and "Traceback" not in err
    assert main(["simulate", "--deals", "10", "--constraint", "0:min_H=9"]) == 2
    assert main(["export-replay", "/nonexistent.parquet"]) == 2


def test_games_command(tmp_path, capsys):
    assert (
        main(["simulate", "--games", "50", "--dealing", "cut", "-o", str(tmp_path / "g.parquet")])
        == 0
    )
    assert "50 games" in capsys.readouterr().out


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "belote_sim", "--version"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout.startswith("belote-sim ")


def test_report_hand_study_commands(tmp_path, capsys):
    table = tmp_path / "d.parquet"
    assert main(["simulate", "--deals", "5000", "--seed", "2", "-q", "-o", str(table)]) == 0
    assert main(["report", str(table), "-o", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "index.html").is_file()
    assert main(["hand", "JH 9H AH TS 7C", "--deals", "500"]) == 0
    out = capsys.readouterr().out
    assert "P(made)" in out and "AT" in out
    assert (
        main(
            [
                "study",
                "bidding",
                "--param",
                "suit",
                "--values",
                "45,55",
                "--deals",
                "2000",
                "-o",
                str(tmp_path / "s.csv"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "best: suit =" in out or "no significant difference" in out
    assert main(["study", "bidding", "--param", "colour", "--deals", "10"]) == 2
    assert main(["report", str(tmp_path / "missing.parquet")]) == 2


def test_analyses_scripts_use_only_the_public_api():
    import ast

    for path in (ROOT / "analyses").glob("*.py"):
        tree = ast.parse(path.read_text())
        doc = ast.get_docstring(tree)
        assert doc and "Seed" in doc and "Question" in doc, path
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert "kernels" not in node.module, path


def test_solve_and_duel_commands(tmp_path, capsys):
    hands = (
        "7C 8C 9C TC JC QC KC AC | 7D 8D 9D TD JD QD KD AD | 7H 8H 9H TH JH QH KH AH | "
        "7S 8S 9S TS JS QS KS AS"
    )
    assert main(["solve", hands, "--strain", "C", "--leader", "0"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["value"] == 162 and len(out["scores"]) == 8
    rec = random_record(3, "common")
    rec["plays"] = rec["plays"][:13]
    src = tmp_path / "r.jsonl"
    src.write_text(json.dumps(rec) + "\n{bad\n")
    assert main(["solve", "--records", str(src), "-o", str(tmp_path / "o.jsonl")]) == 1
    lines = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert set(lines[0]) == {"value", "scores"} and "error" in lines[1]
    assert main(["duel", "--a", "greedy", "--b", "random", "--deals", "3000"]) == 0
    assert "greedy gains +" in capsys.readouterr().out


def test_duel_json_threads_and_options(capsys):
    """--json prints exactly the documented keys; the result does not depend on the
    number of threads; --ruleset/--option reach the simulation."""
    import numba

    args = [
        "duel",
        "--a",
        "expert",
        "--b",
        "greedy",
        "--deals",
        "300",
        "--json",
        "--ruleset",
        "bulgarian",
        "--option",
        "raise_over_partner=false",
    ]
    outs = []
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        assert main(args + ["--threads", str(threads)]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) == 1
        outs.append(json.loads(lines[0]))
    r = outs[0]
    assert list(r) == [
        "a",
        "b",
        "ruleset",
        "deals",
        "played",
        "thrown_in",
        "mean",
        "se",
        "by_strain",
    ]
    assert outs[0] == outs[1]
    assert r["ruleset"] == "bulgarian" and r["deals"] == 300
    assert r["played"] + r["thrown_in"] == 300 and r["played"] > 200
    assert sum(v["pairs"] for v in r["by_strain"].values()) == r["played"]
    assert set(r["by_strain"]) <= {"C", "D", "H", "S", "NT", "AT"}
    for v in r["by_strain"].values():
        assert set(v) == {"pairs", "mean", "se"}
    total = sum(v["pairs"] * v["mean"] for v in r["by_strain"].values()) / r["played"]
    assert abs(total - r["mean"]) < 1e-9
    assert (
        main(["duel", "--a", "greedy", "--b", "random", "--deals", "10", "--option", "nonsense=1"])
        == 2
    )


def test_the_play_option_help_names_every_play_policy(capsys):
    """A newcomer reading ``simulate --help`` learns every play policy and its
    parameters (the help is made from the policy table, so a new one shows up)."""
    import pytest

    from belote_sim.policies import PLAY_POLICIES

    for command in ("simulate", "duel", "hand"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = "".join(capsys.readouterr().out.split())  # argparse wraps lines
        assert "random,greedy[:draw_trumps,give_points],dd,pimc[:samples]," in text
        assert "expert[:endgame_tricks,samples,switches,thin,model,at_extra]" in text
        assert set(PLAY_POLICIES) == {"random", "greedy", "dd", "pimc", "expert"}


def test_study_bidding_help_prints_the_score_formula(capsys):
    """The thresholds a study sweeps are in units of the bidding score: its help says
    what the score is, and the defaults it starts from."""
    import pytest

    from belote_sim.policies import THRESHOLD_SCORE_FORMULA

    with pytest.raises(SystemExit):
        main(["study", "bidding", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert " ".join(THRESHOLD_SCORE_FORMULA.split()) in text
    assert "default suit 50, nt 52, at 75, double 60, redouble 60" in text


def test_study_values_not_numbers_name_the_option_in_one_line(capsys):
    assert main(["study", "bidding", "--values", "40,abc", "--deals", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("belote-sim study: --values: 'abc' is not a number")


def test_output_into_a_closed_pipe_ends_quietly_with_status_0():
    """`belote-sim ... | head`: the reader stops early; no traceback, status 0."""
    script = (
        "import sys\n"
        "import importlib\n"
        "m = importlib.import_module('belote_sim.cli.main')\n"
        "def spam(args):\n"
        "    for _ in range(200_000):\n"
        "        print('x' * 80)\n"
        "    return 0\n"
        "m.cmd_replay = spam\n"
        "sys.exit(m.main(['replay', '-']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout.readline() == b"x" * 80 + b"\n"
    proc.stdout.close()  # what head does after its lines
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=600) == 0
    assert err == b""


def test_every_option_of_every_command_is_explained_with_its_default():
    import argparse

    from belote_sim.cli import build_parser

    def walk(parser, name):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    yield from walk(sub, f"{name} {sub_name}")
            elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                yield name, parser, action

    for name, parser, action in walk(build_parser(), "belote-sim"):
        assert action.help, (name, action.option_strings or action.dest)
        text = parser.formatter_class("x")._get_help_string(action)
        if action.option_strings and action.default not in (None, False):
            assert "default" in text, (name, action.option_strings)
        # an option without a value of its own says what happens without it (repeatable
        # ones aside: none given is none)
        if (
            action.option_strings
            and action.default is None
            and not isinstance(action, argparse._AppendAction)
        ):
            assert "default" in text, (name, action.option_strings)


def _help_page(capsys, argv):
    import pytest

    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_every_command_and_subcommand_has_its_own_help_page(capsys):
    """``study bidding --help`` is the page of the bidding study (not the study
    command's), each ``atlas`` action has its own page with only its options, and the
    top page lists the commands as plain text (no reST ``Commands::``)."""
    top = _help_page(capsys, [])
    assert "Commands::" not in top and "Commands:" in top
    bidding = _help_page(capsys, ["study", "bidding"])
    assert bidding.startswith("usage: belote-sim study bidding")
    assert "--param" in bidding and "Holm" in " ".join(bidding.split())
    assert "--param" not in _help_page(capsys, ["study"])
    pages = {action: _help_page(capsys, ["atlas", action]) for action in ("build", "show", "page")}
    for action, page in pages.items():
        assert page.startswith(f"usage: belote-sim atlas {action}"), page
    assert "--first-deals" in pages["build"] and "--first-deals" not in pages["show"]
    assert "--csv" in pages["show"] and "--csv" not in pages["build"]
    assert "--atlas" in pages["page"] and "--seed" not in pages["page"]
    assert "default: atlas.npz" in " ".join(pages["build"].split())


def _json_keys_promised(command_help: str) -> tuple[list[str], list[str]]:
    """The keys ``duel --help`` promises for ``--json``: those of every duel, and those
    a bidding duel adds (read off the help text, so that the test follows it)."""
    text = " ".join(command_help.split())
    promise = text[text.index("print one JSON object:") :].split(":", 1)[1]
    every, _, added = promise.partition("(a bidding duel adds")
    added = added.split(")")[0].replace(" and, with --games,", ",").replace(" and ", ", ")
    return [k.strip() for k in every.split(",")], [k.strip() for k in added.split(",")]


def test_both_duels_deliver_every_json_key_their_help_promises(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["duel", "--help"])
    every, bidding_adds = _json_keys_promised(capsys.readouterr().out)
    assert "by_strain" in every and "same_contract" in bidding_adds and "win_se" in bidding_adds
    base = ["duel", "--deals", "200", "--json"]
    assert main([*base, "--a", "greedy", "--b", "random"]) == 0
    play = json.loads(capsys.readouterr().out)
    assert set(every) <= set(play)
    bid = [*base, "--bid-a", "threshold:45", "--bid-b", "threshold", "--a", "greedy"]
    assert main([*bid, "--games", "4"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert set(every) | set(bidding_adds) <= set(r)
    # by_strain adds up to the whole, as in the play duel
    assert sum(v["pairs"] for v in r["by_strain"].values()) == r["deals"] == 200
    total = sum(v["pairs"] * v["mean"] for v in r["by_strain"].values()) / r["deals"]
    assert abs(total - r["mean"]) < 1e-9
    assert r["thrown_in"] <= r["same_contract"] < r["deals"]


def test_a_bidding_policy_against_itself_reaches_the_same_contracts():
    from belote_sim.analysis.comparisons import bidding_duel

    r = bidding_duel("threshold", "threshold:50,52,75,60,60", deals=150, play="greedy")
    assert r["same_contract"] == 150 and r["mean"] == 0.0
    assert r["thrown_in"] == r["by_strain"].get("thrown_in", {}).get("pairs", 0)


def test_the_bidding_duel_text_shows_the_policies_in_full_and_the_thrown_in(capsys):
    args = ["duel", "--bid-a", "threshold:45", "--bid-b", "threshold", "--a", "greedy"]
    assert main([*args, "--deals", "200"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "A: threshold:45,52,75,60,60 (suit 45, nt 52, at 75, double 60, redouble 60)" in out
    assert "B: threshold:50,52,75,60,60 (suit 50," in out
    assert "everyone plays greedy:1,1 (draw_trumps 1, give_points 1)" in out
    assert "by the strain of the contract" in out
    # issue 37: the two thrown-in counts (both plays; the first play's by_strain row)
    # printed side by side and related, from the two plays themselves
    import re

    from belote_sim.analysis.comparisons import mirrored_bidding

    first, second, _, both = mirrored_bidding(
        "threshold:45", "threshold", 200, rules="common", play="greedy", seed=0
    )
    a_n = int((first["outcome"] == "thrown_in").sum())
    b_n = int((second["outcome"] == "thrown_in").sum())
    shown = re.search(
        r"thrown in \(all four pass\): (\d+) of 200 deals with threshold:45 bidding for "
        r"team 0 \([\d.]+%\), (\d+) with threshold bidding for team 0 \([\d.]+%\); (\d+) "
        r"both times, (\d+) only the first time, (\d+) only the second \(difference "
        r"([+-]?\d+) ± \d+ s.e.\)",
        out,
    )
    assert shown, out
    assert [int(g) for g in shown.groups()] == [
        a_n,
        b_n,
        int(both.sum()),
        a_n - int(both.sum()),
        b_n - int(both.sum()),
        a_n - b_n,
    ]
    assert re.search(rf"thrown_in +{a_n} deals", out)


def test_help_pages_of_main_and_dataset_actions_say_what_they_do(capsys):
    """Issue 37: ``main --help`` describes the default study; ``dataset verify --help``
    and ``dataset rebuild-manifest --help`` are their own pages (not the dataset
    command's generic one); the ``--play`` help quotes no deals/s figure (it went
    stale: ``expert:0`` is no longer ~60,000 a thread); ``hand`` takes ``--threads``."""
    from belote_sim.cli import build_parser

    page = " ".join(_help_page(capsys, ["main"]).split())
    assert "The default study in one command" in page and "report" in page
    verify = " ".join(_help_page(capsys, ["dataset", "verify"]).split())
    assert verify.startswith("usage: belote-sim dataset verify")
    assert "checksum" in verify and "--force" not in verify
    rebuild = " ".join(_help_page(capsys, ["dataset", "rebuild-manifest"]).split())
    assert rebuild.startswith("usage: belote-sim dataset rebuild-manifest")
    assert "--force" in rebuild
    for command in ("simulate", "duel", "hand"):
        text = " ".join(_help_page(capsys, [command]).split())
        assert "deals/s" not in text, command
    hand = " ".join(_help_page(capsys, ["hand"]).split())
    assert "--threads" in hand
    args = build_parser().parse_args(["hand", "JH 9H AH TS 7C", "--threads", "1"])
    assert args.threads == 1


def test_hand_threads_give_the_same_answer(capsys):
    argv = ["hand", "JH 9H AH TS 7C", "--simulate", "--deals", "200", "--play", "greedy"]
    answers = []
    for threads in ("1", "2"):
        assert main([*argv, "--threads", threads, "--json"]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0] == answers[1]
    assert main([*argv, "--threads", "0"]) == 2
    assert "threads" in capsys.readouterr().err


def test_hand_header_names_the_players_in_words_in_short_lines(capsys):
    """Issue 37: the answer's header was one 383-character line naming the players by
    their spec (``expert:0,24,32,0,3,0``); now the players have a name a player reads,
    the spec follows for reproducibility, and the legend is wrapped to the table."""
    assert main(["hand", "JC TD AD AH 9S", "--position", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = next(i for i, line in enumerate(lines) if line.startswith("strain"))
    assert all(len(line) <= len(lines[table]) for line in lines[:table] if "atlas" not in line)
    assert "all four players play expert (network only) (play spec expert:0," in lines[1]
