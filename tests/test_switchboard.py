"""The policy switchboard: one registry, exact ids, a default that fails, and the
recipe of docs/architecture.md for a new play policy (one entry plus its kernel)."""

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from belote_sim import simulate
from belote_sim.kernels import switchboard as SW
from belote_sim.kernels.auction import FAILED, run_auction
from belote_sim.kernels.bidding import MAX_CALLS
from belote_sim.kernels.play import play_deal
from belote_sim.kernels.records import Turn, new_deal
from belote_sim.kernels.rng import seed_state
from belote_sim.kernels.simulate import COL_STRAIN, NUM_COLS, simulate_deals
from belote_sim.policies import BID_POLICIES, PLAY_POLICIES
from belote_sim.rules import Rules
from belote_sim.simulation.atlas_table import empty_kernel_arrays
from belote_sim.simulation.study import check_no_failed, make_study

ROOT = Path(__file__).resolve().parents[1]
UNKNOWN = 99


def test_the_registry_has_unique_names_and_ids_and_the_python_layer_reads_it():
    for table, python in ((SW.PLAY_POLICIES, PLAY_POLICIES), (SW.BID_POLICIES, BID_POLICIES)):
        assert len({p.id for p in table}) == len(table)
        assert len({p.name for p in table}) == len(table)
        assert SW.POLICY_NONE not in {p.id for p in table}
        assert list(python) == [p.name for p in table]
        for p in table:
            assert python[p.name].id == p.id
            assert python[p.name].defaults == tuple(p.defaults)
            assert len(p.defaults) == len(p.param_names) <= SW.MAX_PARAMS
    assert UNKNOWN not in {p.id for p in SW.PLAY_POLICIES + SW.BID_POLICIES}


def _deal(hands_seed=1):
    records = new_deal()
    deal = records[0]
    deck = np.random.default_rng(hands_seed).permutation(32)
    deal["hands"] = [sum(1 << int(c) for c in deck[8 * s : 8 * s + 8]) for s in range(4)]
    deal["leader"] = 1
    deal["strain"] = 2
    deal["announce"] = 15
    return deal


def test_each_registered_id_plays_its_own_kernel_and_an_unknown_id_gets_no_card():
    rules = Rules.preset("common").to_array()
    deal = _deal()
    hand = int(deal["hands"][1])
    turn = Turn(1, 0, 1, -1, -1, -1, hand, hand, 0, 0, 4)
    params = np.zeros(SW.MAX_PARAMS)
    search = SW.policy_buffers(1)
    menu = SW.policy_menu(play=("greedy", "random"))
    card = SW.decide(menu, UNKNOWN, params, turn, deal, rules, seed_state(1), search)
    assert card == SW.NO_CARD
    # the greedy id gives greedy's card (leading, the taker's side draws no trumps here:
    # seat 1 is not on the taker's side, so it leads a master or its longest suit's lowest)
    greedy = SW.decide(
        menu, PLAY_POLICIES["greedy"].id, params, turn, deal, rules, seed_state(1), search
    )
    assert (hand >> int(greedy)) & 1
    # random's card is the uniform draw of the deal's generator
    drawn = {
        int(
            SW.decide(
                menu, PLAY_POLICIES["random"].id, params, turn, deal, rules, seed_state(s), search
            )
        )
        for s in range(200)
    }
    assert drawn == {c for c in range(32) if (hand >> c) & 1}


def test_the_play_loop_stops_where_a_policy_gives_no_card():
    rules = Rules.preset("common").to_array()
    deal = _deal()
    ids = np.array([PLAY_POLICIES["greedy"].id] * 3 + [UNKNOWN], dtype=np.int64)
    policies = (ids, np.zeros((4, SW.MAX_PARAMS)), SW.policy_menu(play=["greedy"]))
    play_deal(deal, policies, rules, seed_state(1), SW.policy_buffers(1))
    # seat 1 leads, then 2, 3 (unknown): the play stops at the third card
    assert deal["failed_seat"] == 3
    assert deal["n_played"] == 2
    assert deal["outcome"] == 3  # nothing scored: stands as thrown in
    assert int(deal["mp"].sum()) == 0


def test_an_unknown_bidding_id_stops_the_auction():
    rules = Rules.preset("common").to_array()
    calls = np.zeros(MAX_CALLS, dtype=np.uint8)
    ids = np.array([UNKNOWN] * 4, dtype=np.int64)
    bid = np.array([0b11111, 0b11111 << 8, 0b11111 << 16, 0b11111 << 24], dtype=np.int64)
    strain, _, _, n_calls = run_auction(
        bid,
        0,
        -1,
        rules,
        (ids, np.zeros((4, SW.MAX_PARAMS)), SW.policy_menu(bid=["threshold"])),
        calls,
        empty_kernel_arrays(),
        seed_state(1),
    )
    assert (strain, n_calls) == (-1, FAILED)


def _simulate(study, policies, seeds, rules=None, keep_plays=False, search_bits=1):
    """``simulate_deals`` of ``study`` on these seeds (dealers rotating) with the given
    ``policies`` tuple: (failed deals, rows, trick logs)."""
    n = len(seeds)
    out = np.zeros((n, NUM_COLS), dtype=np.int64)
    plays = np.zeros((n if keep_plays else 1, 32), dtype=np.int64)
    failed = simulate_deals(
        np.asarray(seeds, dtype=np.int64),
        np.arange(n, dtype=np.int64) % 4,
        (rules or study.rules).to_array(),
        policies,
        study.conditions(),
        out,
        np.zeros((n, MAX_CALLS), dtype=np.uint8),
        plays,
        keep_plays,
        search_bits,
        study.atlas_arrays,
    )
    return failed, out, plays


def test_a_simulation_with_a_failing_policy_raises_instead_of_writing_deals():
    """Every deal with a contract fails when no seat's play id is known: the kernel
    counts them, and the Python layer raises rather than keep them as thrown in."""
    study = make_study("common", "threshold", "greedy", 1)
    bid_ids, bid_params, play_ids, play_params, announce, menu = study.policies
    n = 64

    def run(ids):
        policies = (bid_ids, bid_params, ids, play_params, announce, menu)
        return _simulate(study, policies, np.arange(n))[:2]

    ok, good = run(play_ids)
    assert ok == 0
    contracts = int((good[:, COL_STRAIN] >= 0).sum())
    failed, _ = run(np.full(4, UNKNOWN, dtype=np.int64))
    assert 0 < contracts == failed
    with pytest.raises(RuntimeError, match="gave no legal card or call in"):
        check_no_failed(failed)


def test_unknown_policy_names_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown play policy 'highest'.*random, greedy"):
        simulate(10, play="highest")
    with pytest.raises(ValueError, match="unknown bidding policy 'greedy'.*threshold"):
        simulate(10, bidding="greedy")


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_loops_reach_policies_only_through_the_switchboard():
    kernels = ROOT / "belote_sim" / "kernels"
    policy_modules = {
        "belote_sim.kernels.expert",
        "belote_sim.kernels.expert_seat",
        "belote_sim.kernels.expert_model",
        "belote_sim.kernels.greedy",
        "belote_sim.kernels.search_policies",
        "belote_sim.kernels.solver",
    }
    for loop in ("play.py", "auction.py", "simulate.py", "atlas.py"):
        reached = {
            m
            for m in _imports(kernels / loop)
            if any(m == p or m.startswith(p + ".") for p in policy_modules)
        }
        assert not reached, (loop, reached)


TOY_KERNEL = '''\
"""A toy play policy (tests/test_switchboard.py): the legal card of highest index."""

from belote_sim.kernels._jit import kernel


@kernel
def highest_card(params, turn, deal, rules, state, search):
    """The legal card with the highest index."""
    card = 31
    while not (turn.legal >> card) & 1:
        card -= 1
    return card
'''

TOY_ENTRY = """\
    PlayPolicy(
        "highest",
        7,
        highest_card,
        doc="toy: the legal card of highest index",
        players=(2, 3, 4),
    ),
"""

TOY_CHECK = """\
import itertools
import json
from belote_sim import replay, simulate
from belote_sim.policies import PLAY_POLICIES
from belote_sim.simulation.export import records

out = {"names": list(PLAY_POLICIES)}
for options in ({}, {"players": 3}):
    df = simulate(12, play="highest", seed=5, trick_log=True, options=options)
    checked = 0
    for record in records(df, df.attrs["belote_sim"]):
        plays = record["plays"]
        # the deal is played under one unknown relabelling of the suits: the highest
        # index there, for some relabelling, at every card
        perms = set(itertools.permutations(range(4)))
        for k in range(len(plays)):
            legal = replay(dict(record, plays=plays[:k]))["legal"]
            perms = {
                p for p in perms
                if plays[k] == max(
                    legal, key=lambda c: p["CDHS".index(c[1])] * 8 + "789TJQKA".index(c[0])
                )
            }
            assert perms, (record, k, legal)
            checked += 1
    out[str(options)] = checked
print(json.dumps(out))
"""


@pytest.mark.slow
def test_a_toy_policy_added_by_the_recipe_plays_in_every_game(tmp_path):
    """docs/architecture.md's recipe, followed on a copy of the package: the kernel in
    its own module, one import and one entry in ``switchboard.PLAY_POLICIES``.  The
    new name is then a play policy of ``simulate`` (4 and 3 players), and every card
    it played is the highest legal one (checked by replaying each deal)."""
    copy = tmp_path / "pkg"
    shutil.copytree(
        ROOT / "belote_sim", copy / "belote_sim", ignore=shutil.ignore_patterns("__pycache__")
    )
    kernels = copy / "belote_sim" / "kernels"
    (kernels / "toy_policy.py").write_text(TOY_KERNEL)
    board = kernels / "switchboard.py"
    text = board.read_text()
    anchor = "from belote_sim.kernels.greedy import greedy_card, random_card\n"
    assert anchor in text and "PLAY_POLICIES = (\n" in text
    text = text.replace(anchor, anchor + "from belote_sim.kernels.toy_policy import highest_card\n")
    start = text.index("PLAY_POLICIES = (\n")
    end = text.index("\n)\n", start)
    text = text[:end] + "\n" + TOY_ENTRY.rstrip("\n") + text[end:]
    board.write_text(text)
    env = dict(os.environ, PYTHONPATH=str(copy), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(TOY_CHECK)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["names"][-1] == "highest"
    assert result["{}"] > 100 and result["{'players': 3}"] > 100


def test_play_strength_names_a_setting_however_it_is_written():
    from belote_sim.policies import PLAY_STRENGTH, play_strength

    assert play_strength("expert:0") == play_strength("expert:0,24,32,0,3")
    assert play_strength("expert:0") == PLAY_STRENGTH["expert:0"]
    assert play_strength("greedy:1,1") == PLAY_STRENGTH["greedy"]
    assert play_strength("expert:3,9") is None and play_strength("no such policy") is None


def test_a_menu_is_one_type_per_set_of_policies_and_names_only_known_ones():
    a = SW.policy_menu(play=["greedy", "random", "greedy"], bid=["threshold"])
    b = SW.policy_menu(play=["random", "greedy"], bid=["threshold"])
    assert a is b and len(a) == 0 and not a.flags.writeable
    assert SW.menu_names(a, SW.PLAY_PREFIX) == {"greedy", "random"}
    assert SW.menu_names(a, SW.BID_PREFIX) == {"threshold"}
    assert SW.policy_menu(play=["greedy"]).dtype != a.dtype
    with pytest.raises(ValueError, match="no play policy named 'highest'"):
        SW.policy_menu(play=["highest"])
    with pytest.raises(ValueError, match="no bidding policy named 'greedy'"):
        SW.policy_menu(bid=["greedy"])


def test_a_registered_id_outside_the_menu_gets_no_card_or_call():
    """The chain holds only the menu's policies: greedy's id, asked through a menu of
    random alone, is an unknown id there (and threshold's through a menu of fixed)."""
    rules = Rules.preset("common").to_array()
    deal = _deal()
    hand = int(deal["hands"][1])
    turn = Turn(1, 0, 1, -1, -1, -1, hand, hand, 0, 0, 4)
    params = np.zeros(SW.MAX_PARAMS)
    search = SW.policy_buffers(1)
    greedy = PLAY_POLICIES["greedy"].id
    only_random = SW.policy_menu(play=["random"])
    assert SW.decide(only_random, greedy, params, turn, deal, rules, seed_state(1), search) == -1
    with_greedy = SW.policy_menu(play=["random", "greedy"])
    assert SW.decide(with_greedy, greedy, params, turn, deal, rules, seed_state(1), search) >= 0
    calls = np.zeros(MAX_CALLS, dtype=np.uint8)
    ids = np.full(4, BID_POLICIES["threshold"].id, dtype=np.int64)
    bid = np.array([0b11111, 0b11111 << 8, 0b11111 << 16, 0b11111 << 24], dtype=np.int64)
    for names, failed in ((["fixed"], True), (["threshold"], False)):
        policies = (ids, np.zeros((4, SW.MAX_PARAMS)), SW.policy_menu(bid=names))
        tables = empty_kernel_arrays()
        _, _, _, n_calls = run_auction(bid, 0, -1, rules, policies, calls, tables, seed_state(1))
        assert (n_calls == FAILED) == failed


COMPILED_KERNELS = """
import json, sys
from numba.core import event
from belote_sim import simulate
with event.install_recorder("numba:compile") as recorder:
    simulate(50, bidding="threshold", play=sys.argv[1], seed=1)
print(json.dumps(sorted({
    f"{e.data['dispatcher'].py_func.__module__}.{e.data['dispatcher'].py_func.__name__}"
    for _, e in recorder.buffer if e.is_start
})))
"""


@pytest.mark.slow
def test_a_study_compiles_the_kernels_of_its_own_policies_only():
    """With no disk cache, numba's compile events name every kernel a study compiles:
    greedy play compiles nothing of the expert, its card model or the solver (pimc,
    dd); expert:0 (the lean expert) compiles its card model but not the solver's
    search."""
    env = {**os.environ, "BELOTE_SIM_NO_CACHE": "1", "NUMBA_NUM_THREADS": "2"}
    compiled = {}
    for play in ("greedy", "expert:0"):
        out = subprocess.run(
            [sys.executable, "-c", COMPILED_KERNELS, play],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=True,
        )
        compiled[play] = json.loads(out.stdout.strip().splitlines()[-1])
    greedy_helpers = {
        "belote_sim.kernels.greedy.greedy_choice",
        "belote_sim.kernels.greedy.is_master",
    }
    assert greedy_helpers <= set(compiled["greedy"])
    heavy = ("belote_sim.kernels.expert", "belote_sim.kernels.solver", "belote_sim.kernels.search_")
    assert not [k for k in compiled["greedy"] if k.startswith(heavy)]
    assert "belote_sim.kernels.expert_model.model_card" in compiled["expert:0"]
    search = ("belote_sim.kernels.solver.search", "belote_sim.kernels.search_policies")
    assert not [k for k in compiled["expert:0"] if k.startswith(search)]


@pytest.mark.parametrize("play", ["expert:0", "expert:0,24,32,0,2"])
def test_the_lean_expert_plays_the_same_cards_and_refuses_what_it_does_not_cover(play):
    """``expert:0`` (the card model, no endgame search; the network over raw facts, or
    the feature network, model 2) is compiled through the lean kernel: the same deals as
    through the full kernel, to the card; given parameters it does not cover (an
    endgame search), it plays no card, so the run fails loudly instead of playing
    other cards."""
    study = make_study("common", "threshold", play, 5)
    bid_ids, bid_params, play_ids, play_params, announce, menu = study.policies
    assert {"lean_expert", "bid_threshold"} <= set(menu.dtype.names)
    assert "play_expert" not in menu.dtype.names
    full = SW.policy_menu(play=["expert"], bid=["threshold"], forms=["four"])
    n = 120

    def run(params, chosen):
        policies = (bid_ids, bid_params, play_ids, params, announce, chosen)
        seeds = np.arange(n) * 7919
        return _simulate(study, policies, seeds, None, True, SW.EXPERT_SEARCH_BITS)

    lean_failed, lean_out, lean_plays = run(play_params, menu)
    full_failed, full_out, full_plays = run(play_params, full)
    assert lean_failed == full_failed == 0
    played = lean_out[:, COL_STRAIN] >= 0  # (a thrown-in deal's trick log is not read)
    assert (lean_out == full_out).all() and (lean_plays[played] == full_plays[played]).all()
    searching = play_params.copy()
    searching[:, 0] = 4  # endgame tricks: the full expert's default
    failed, _, _ = run(searching, menu)  # the same auctions: every contract fails
    assert failed == int((lean_out[:, COL_STRAIN] >= 0).sum()) > 0


def test_a_menu_of_one_game_form_plays_the_same_deals_and_refuses_other_rules():
    """A 4-player study's menu names its game (``form_four``): only that play loop is
    compiled, and it plays the same deals as the menu that decides the game at run
    time; rules of another game get no deal played (each contract fails), never
    another game."""
    study = make_study("common", "threshold", "greedy", 8)
    bid_ids, bid_params, play_ids, play_params, announce, menu = study.policies
    assert "form_four" in menu.dtype.names
    n = 200

    def run(chosen, rules):
        policies = (bid_ids, bid_params, play_ids, play_params, announce, chosen)
        return _simulate(study, policies, np.arange(n) * 104729, rules)[:2]

    generic = SW.policy_menu(play=["greedy"], bid=["threshold"])
    failed, out = run(menu, study.rules)
    assert failed == 0
    generic_failed, generic_out = run(generic, study.rules)
    assert generic_failed == 0 and (generic_out == out).all()
    three = Rules.from_spec("bulgarian", {"players": 3})
    wrong_form, out = run(menu, three)  # the menu says 4 players: no deal is played
    assert wrong_form > 0 and (out[:, COL_STRAIN] < 0).all()


@pytest.mark.parametrize("options", [{}, {"players": 3}])
def test_every_card_of_a_simulated_deal_replays_as_legal(options):
    """The trick log of a study played through its menu's game form agrees with the
    independent replay of its record: every card was legal for the seat to move (a
    play that wrote into a copy of the deal record would not)."""
    from belote_sim import replay
    from belote_sim.simulation.export import records

    df = simulate(25, play="greedy", seed=11, trick_log=True, options=options)
    checked = 0
    for record in records(df, df.attrs["belote_sim"]):
        plays = record["plays"]
        for k in range(len(plays)):
            assert plays[k] in replay(dict(record, plays=plays[:k]))["legal"], (record, k)
            checked += 1
    assert checked > 300
