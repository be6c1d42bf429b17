"""Property tests (hypothesis): generated malformed input to the command line and to
the agent API gets a result or a one-line error, never a traceback (issues 15, 38).

The command line runs in-process (``belote_sim.cli.main`` with an argv list).  Every
command's parser is fuzzed with its own option strings (``build_parser``), the heavy
work each would then start replaced by a stub (``HEAVY``); replay and solve --records
get drawn input lines.
"""

import argparse
import io
import json
import os
import sys
import tempfile
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belote_sim.cli import build_parser, main
from belote_sim.deal.playout import random_record
from belote_sim.simulation.runner import make_study, simulate_to_parquet

#: fixed examples by default; BELOTE_HYPOTHESIS_EXAMPLES=N explores N fresh random ones
EXPLORE = int(os.environ.get("BELOTE_HYPOTHESIS_EXAMPLES", "0"))
SETTINGS = settings(
    max_examples=EXPLORE or 50,
    deadline=None,
    derandomize=not EXPLORE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

HANDS = (
    "7C 8C 9C TC JC QC KC AC|7D 8D 9D TD JD QD KD AD|7H 8H 9H TH JH QH KH AH|"
    "7S 8S 9S TS JS QS KS AS"
)


@pytest.fixture(scope="module")
def files():
    """A finished table, an interrupted one, text and JSON-lines files, in one folder."""
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "deals.parquet")
        study = make_study("common", seed=1, chunk_size=10)
        simulate_to_parquet(table, 30, study)
        seen = []

        def stop(n):
            seen.append(n)
            if len(seen) == 1:
                raise KeyboardInterrupt

        try:
            simulate_to_parquet(os.path.join(tmp, "cut.parquet"), 30, study, progress=stop)
        except KeyboardInterrupt:
            pass
        text = os.path.join(tmp, "notes.txt")
        with open(text, "w") as f:
            f.write("not a table\n")
        os.mkdir(os.path.join(tmp, "empty"))
        yield {
            "dir": tmp,
            "tables": [
                table,
                os.path.join(tmp, ".cut.parquet.partial"),
                text,
                os.path.join(tmp, "empty"),
                os.path.join(tmp, "nope"),
            ],
        }


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    usage = False
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse: usage and one error line, status 2
            rc, usage = exc.code, True
    return rc, out.getvalue(), err.getvalue(), usage


def check(argv, rc, err, usage):
    assert "Traceback" not in err, (argv, err)
    assert rc in (0, 1, 2), (argv, rc, err)
    if rc == 2 and not usage:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("belote-sim "), (argv, err)


GOOD_RECORD = json.dumps(random_record(5, "common"))
line = st.one_of(
    st.just(GOOD_RECORD.encode()),
    st.binary(max_size=20),
    st.sampled_from(
        [
            b"[" * 5000,
            b'{"hands": 5}',
            b'{"hands": [1, 2, 3, 4]}',
            b"null",
            b'{"ruleset": "common", "dealer": 7}',
            b"\xff\xfe",
            b"{}",
            b"[]",
            GOOD_RECORD.replace('"dealer": ', '"dealer": "x", "d": ').encode(),
            GOOD_RECORD.replace('"plays": [', '"plays": [null, ').encode(),
        ]
    ),
)


@SETTINGS
@given(data=st.data())
def test_record_lines_never_show_a_traceback(files, data):
    """replay and solve --records on drawn lines: one result per line that is not
    blank, a status and at most one line on standard error."""
    lines = data.draw(st.lists(line, min_size=1, max_size=4))
    source = os.path.join(files["dir"], "in.jsonl")
    with open(source, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    argv = data.draw(st.sampled_from([["replay", source], ["solve", "--records", source]]))
    rc, out, err, usage = run(argv)
    check(argv, rc, err, usage)
    results = [json.loads(x) for x in out.splitlines()]
    raw = b"\n".join(lines).split(b"\n")  # one result per line that is not blank
    assert len(results) == sum(1 for x in raw if x.decode("utf-8", "replace").strip()), (
        lines,
        out,
    )


# --------------------------------------------------------------------------- the parser

#: The heavy work the commands would start once their arguments are checked, replaced
#: by ``_would_run`` (it raises ``WouldRun``, counted as "the command would run"), so
#: that hundreds of argument vectors take seconds: compiling and running the numba
#: kernels (``runner.prepare``: simulate's deals and ``main``; ``compiling.prepare``:
#: simulate --workers), whole games (``simulate_games``), a dask cluster
#: (``distributed.run_study``), the atlas build and a hand's simulation
#: (``build_atlas``, ``hand_by_simulation``), every atlas cell and the atlas summary
#: (``atlas_frame``, ``atlas_parquet``, ``measured_cells``), the studies and duels
#: (``bidding_sweep``, ``duel``, ``bidding_duel``, ``compare_systems``), the reports and
#: the page (``write_report``, ``write_hand_page``), the double-dummy solver and perft
#: (``solve``, ``dd_scores``, ``solve_record_lines``, ``perft``).  Everything before
#: them runs for real: argparse, the commands' own checks, the rules, policies and
#: studies being made, the output discipline's checks and locks, reading the inputs.
HEAVY = [
    "belote_sim.simulation.runner.prepare",
    "belote_sim.simulation.compiling.prepare",
    "belote_sim.simulation.runner.simulate_games",
    "belote_sim.simulation.distributed.run_study",
    "belote_sim.atlas.build_atlas",
    "belote_sim.atlas.hand_by_simulation",
    "belote_sim.atlas.atlas_frame",
    "belote_sim.atlas.atlas_parquet",
    "belote_sim.atlas.measured_cells",
    "belote_sim.analysis.comparisons.bidding_sweep",
    "belote_sim.analysis.comparisons.duel",
    "belote_sim.analysis.comparisons.bidding_duel",
    "belote_sim.analysis.systems.compare_systems",
    "belote_sim.analysis.html_report.write_report",
    "belote_sim.analysis.hand_page.write_hand_page",
    "belote_sim.deal.solver.solve",
    "belote_sim.deal.solver.dd_scores",
    "belote_sim.deal.solver.solve_record_lines",
    "belote_sim.deal.perft.perft",
]


class WouldRun(BaseException):
    """Raised by a stubbed heavy entry point: the arguments passed every check.  A
    ``BaseException`` so that no ``except Exception`` of the code under test takes it."""


def _would_run(*_args, **_kwargs):
    raise WouldRun


def _leaf_commands(parser, path=()):
    """(the words naming a command, its parser) for every command and action."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _leaf_commands(sub, (*path, name))
            return
    yield path, parser


LEAVES = dict(_leaf_commands(build_parser()))

#: exit statuses besides 0, 2, 130: 1 is a check that found problems (replay's or solve
#: --records' failed records, perft's mismatches, dataset verify's problems)
STATUS_1 = {("replay",), ("solve",), ("perft",), ("dataset", "verify")}

PLAUSIBLE = [
    "0", "1", "2", "3", "-1", "10", "0.5", "1e9", "99999999999999999999", "nan", "inf",
    "common", "bulgarian", "french", "greedy", "random", "expert:0", "greedy:2,2",
    "threshold", "threshold:40,50", "take", "atlas", "fixed:0,2,0", "pimc:1", "dd",
    "rules:nope.toml", "py:json:dumps", "py:nope:f", "kirtik=true", "players=2",
    "players=3", "variant=open", "capot_points=100000000000000000000", "dealing=cut",
    "x=y", "1:random", "0:JH 9H AH TS 7C", "1:min_H=3,max_S=2", "C", "NT", "AT", "Z",
    "JH 9H AH TS 7C", "JH JH", HANDS, " | | | ", "suit", "nt", "40,45", "0:10", "50:60",
    "2:1", "tcp://127.0.0.1:1", "shuffle", "cut", "open", "standard",
]  # fmt: skip


NUMBERS = ["0", "1", "2", "3", "5", "20", "-1", "0.5", "1e9", "99999999999999999999", "nan"]


#: plausible values of the options and positionals named so (their ``dest``)
BY_DEST = {
    "cards": ["JH 9H AH TS 7C", "JC TD AD AH 9S", "JH 9H AH TS 7C 8C 9C TC", "JH JH", "7C"],
    "hands": [HANDS, HANDS.replace("AS", "AD"), " | | | ", "JH|9H|AH|TS"],
    "systems": ["threshold", "atlas", "take", "threshold:40,50", "rules:nope.toml"],
    "strain": ["C", "D", "H", "S", "NT", "AT", "Z", "h"],
    "rows": ["0:10", "0:2", "50:60", "2:1", "x", "-3:-1"],
    "option": ["kirtik=true", "players=2", "players=3", "variant=open", "dealing=cut", "x=y"],
}
BY_DEST.update({name: [] for name in ("table", "dir", "file", "input", "output", "records")})
PATHS = {"table", "dir", "file", "input", "output", "records", "atlas", "work_dir", "csv"}


def _values(action, paths):
    """What follows ``action`` on a command line: mostly what it expects (one of its
    choices, a number for a number, a plausible word or path), sometimes garbage."""
    if action.dest in BY_DEST:
        expected = st.sampled_from(BY_DEST[action.dest] + (paths if action.dest in PATHS else []))
    elif action.choices is not None and not isinstance(action.choices, dict):
        expected = st.sampled_from([str(c) for c in action.choices] + NUMBERS[:3])
    elif action.type is not None and getattr(action.type, "__name__", "") != "str":
        expected = st.sampled_from(NUMBERS)
    else:
        expected = st.sampled_from(PLAUSIBLE + paths)
    garbage = st.one_of(st.text(max_size=8), st.sampled_from(PLAUSIBLE + NUMBERS + paths))
    return st.one_of(expected, expected, expected, garbage)


@st.composite
def argument_vector(draw, words, parser, paths):
    """``words`` then options of the command's parser (a value after each, sometimes
    none; a flag sometimes with one, which is then an extra positional), its positionals
    (sometimes none) and extra positionals, in any order."""
    options = [
        a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)
    ]
    loose = st.one_of(st.sampled_from(PLAUSIBLE + paths), st.text(max_size=8))
    items = []
    for action in draw(st.lists(st.sampled_from(options), max_size=5)) if options else []:
        item = [draw(st.sampled_from(action.option_strings))]
        if action.nargs != 0 and draw(st.integers(0, 19)) < 19:  # (0: simplest, most drawn)
            item.append(draw(_values(action, paths)))
        elif action.nargs == 0 and draw(st.integers(0, 19)) == 19:
            item.append(draw(loose))
        items.append(item)
    for action in parser._actions:
        if not action.option_strings and draw(st.integers(0, 9)) < 9:
            many = draw(st.integers(2, 3)) if action.nargs == "+" else 1
            items.append([draw(_values(action, paths)) for _ in range(many)])
    items += [[draw(loose)] for _ in range(draw(st.integers(0, 19)) // 18)]  # extra: 0 to 1
    return [*words, *(w for item in draw(st.permutations(items)) for w in item)]


def _one_error_line(err, words):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"belote-sim {words[0]}: "), err


@pytest.mark.parametrize("words", sorted(LEAVES), ids=" ".join)
def test_every_commands_arguments_get_a_status_and_one_line(words, files, tmp_path, monkeypatch):
    """Any argument vector of any command (its own option strings with plausible and
    garbage values, extra positionals) ends in exit 0, 2 or 130 (1: a check that found
    problems), or reaches the work; a usage error is argparse's usage and one error
    line, any other refusal one line; never another exception (a traceback for a user).

    Stubbed, so that 80 vectors a command take well under a second: the entry points of
    ``HEAVY`` (kernels compiled and run, games, dask clusters, the atlas build, a
    hand's simulation, every atlas cell, studies and duels, reports and the page, the
    solver and perft), each raising ``WouldRun`` once every check before it passed.
    Standard input is empty; the command runs in a fresh folder."""
    for target in HEAVY:
        monkeypatch.setattr(target, _would_run)
    monkeypatch.chdir(tmp_path)  # default outputs (deals.parquet, reports, ...) land here
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    paths = [*files["tables"], str(tmp_path / "out.csv"), str(tmp_path / "new"),
             str(tmp_path / "missing" / "x"), "-", "/dev/null", "/proc/x"]  # fmt: skip
    parser = LEAVES[words]
    seen = Counter()

    @settings(SETTINGS, max_examples=EXPLORE or 80)
    @given(argv=argument_vector(words, parser, paths))
    def check_one(argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:  # argparse: --help (0), usage and one error line (2)
                assert exc.code in (0, 2), (argv, exc.code)
                if exc.code == 2:
                    assert err.getvalue().count(": error: ") == 1, (argv, err.getvalue())
                seen[f"argparse {exc.code}"] += 1
                return
            except WouldRun:
                seen["would run"] += 1
                assert "Traceback" not in err.getvalue(), (argv, err.getvalue())
                return
        seen[rc] += 1
        err = err.getvalue()
        assert "Traceback" not in err, (argv, err)
        assert rc in (0, 2, 130) or (rc == 1 and words in STATUS_1), (argv, rc, err)
        if rc == 2:
            _one_error_line(err, words)

    check_one()


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "in\rput"],
        ["replay", "{table}", "-o", "{tmp}/missing/out.jsonl"],
        ["solve", "--records", "{table}", "-o", "{tmp}/missing/out.jsonl"],
    ],
    ids=["replay-name-with-cr", "replay-output-folder-missing", "solve-output-folder-missing"],
)
def test_found_by_the_fuzzer(argv, files, tmp_path):
    """A name holding a line break was printed as is (two lines on standard error); an
    output that cannot be opened left the input file open (a ResourceWarning, an error
    under this suite's warning filter)."""
    argv = [a.format(table=files["tables"][0], tmp=tmp_path) for a in argv]
    rc, out, err, _ = run(argv)
    assert rc == 2 and out == "", err
    _one_error_line(err, argv)


@pytest.mark.parametrize("words", [(), *sorted(LEAVES)], ids=lambda w: " ".join(w) or "top")
def test_help_and_version_exit_0(words, capsys):
    for argv in ([*words, "--help"], ["--version"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0
    assert "usage: belote-sim" in capsys.readouterr().out


# --------------------------------------------------------------------------- the agent

BASE = {
    "ruleset": "common",
    "dealer": 3,
    "seat": 0,
    "hand": "7C 8C 9C TC JC QC KC AC",
    "contract": {"strain": "H", "taker": 0, "doubling": 0},
    "plays": [],
}
json_value = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 2**70),
        st.floats(),
        st.text(max_size=6),
        st.sampled_from(["7C", "JH", "8D 9D", "H", "NT", "common", "bulgarian"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["strain", "taker", "doubling", "players", "x"]), inner, max_size=3
        ),
    ),
    max_leaves=6,
)


@SETTINGS
@given(
    changes=st.dictionaries(
        st.sampled_from(sorted(BASE) + ["options", "hands", "x"]), json_value, max_size=3
    ),
    policy=st.one_of(
        st.sampled_from(
            ["greedy", "random", "pimc:1", "pimc:0", "dd", "greedy:nan", "nope", "pimc:-5"]
        ),
        json_value,
    ),
    seed=st.one_of(st.integers(-3, 2**70), json_value),
    samples=st.one_of(st.integers(-3, 3), json_value),
)
def test_agent_gives_a_card_or_a_value_error(changes, policy, seed, samples):
    from belote_sim.deal.agent import choose_card

    obs = dict(BASE, **changes)
    try:
        card = choose_card(obs, policy=policy, seed=seed, samples=samples)
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc), str(exc)
        return
    assert isinstance(card, str) and card in str(obs["hand"]).split()
