"""The first run compiles, says so in one line, and leaves the compile out of its rates
(``simulation.compiling``, ``Study.prepare_kernels``, ``numba_internals.is_cached``)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from belote_sim.cli.common import Progress
from belote_sim.simulation import compiling
from belote_sim.simulation.runner import make_study, simulate_to_parquet
from belote_sim.simulation.study import Study

ROOT = Path(__file__).resolve().parents[1]


def test_the_estimate_adds_each_policy_of_the_study_once():
    greedy = make_study("common", "threshold", "greedy", 1)
    mixed = make_study("common", "threshold", ["greedy", "expert:0", "greedy", "expert"], 1)
    expert = next(p for p in compiling.PLAY_POLICIES if p.name == "expert")
    greedy_s = next(p for p in compiling.PLAY_POLICIES if p.name == "greedy").compile_s
    assert compiling.compile_estimate(greedy.menu) > compiling.BASE_COMPILE_S
    assert compiling.compile_estimate(mixed.menu) == pytest.approx(
        compiling.compile_estimate(greedy.menu) + expert.compile_s
    )
    assert greedy_s < expert.lean_compile_s < expert.compile_s  # the search costs most
    assert compiling.kernels_text(mixed.menu) == (
        "expert, greedy, random play and threshold bidding"
    )
    lean = make_study("common", "atlas", "expert:0", 1).menu
    assert compiling.kernels_text(lean) == (
        "expert (card network only), greedy, random play and atlas bidding"
    )
    atlas = next(p for p in compiling.BID_POLICIES if p.name == "atlas").compile_s
    assert compiling.compile_estimate(lean) == pytest.approx(
        compiling.compile_estimate(greedy.menu) + expert.lean_compile_s + atlas
    )


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(4, "about 10 s"), (26, "about 30 s"), (84, "about 80 s"), (200, "about 3 min")],
)
def test_durations_are_said_roughly(seconds, text):
    assert compiling.rough_seconds(seconds) == text


def test_a_run_leaves_the_compile_out_of_its_seconds_and_rate(tmp_path, monkeypatch):
    """A compile that takes 1 s (made so here) shows as ``compile_s``, not in ``seconds``."""
    real = Study.prepare_kernels

    def slow_prepare(self, keep_plays=False):
        time.sleep(1.0)
        return real(self, keep_plays) + 1.0

    monkeypatch.setattr(Study, "prepare_kernels", slow_prepare)
    study = make_study("common", "threshold", "random", 3)
    start = time.perf_counter()
    summary = simulate_to_parquet(str(tmp_path / "d.parquet"), 500, study)
    total = time.perf_counter() - start
    assert summary["compile_s"] >= 1.0
    assert summary["seconds"] + summary["compile_s"] <= total
    assert summary["deals_per_s"] == pytest.approx(500 / summary["seconds"])


def test_once_prepared_the_kernels_are_known_to_be_compiled():
    study = make_study("common", "threshold", "random", 3)
    study.prepare_kernels()
    assert study.kernels_cached() is True
    # a Python bidding function runs the auction in Python: not told in advance
    py = make_study("common", lambda view: "pass", "random", 3)
    assert py.kernels_cached() is None


def test_the_progress_bar_appears_with_the_first_deals_not_before():
    bar = Progress(100, "deal", True)
    try:
        assert bar.bar is None  # compiling: no frozen 0% bar, no ETA counting it
        assert bar.ticks is not None
        bar.tick(10)
        assert bar.bar is not None and bar.bar.n == 10
    finally:
        bar.close()


@pytest.mark.slow
def test_a_cold_run_says_it_compiles_once_and_a_warm_run_does_not(tmp_path):
    """With an empty numba cache the CLI says, before the work and on standard error,
    what it compiles and that it happens once; the same command again loads the
    kernels from the cache and says nothing of the kind.  (random play: the cheapest
    driver to compile.)"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_NUM_THREADS": "2"}
    argv = [sys.executable, "-m", "belote_sim", "simulate", "--play", "random", "--deals", "300"]
    runs = []
    for k in range(2):
        out = tmp_path / f"d{k}.parquet"
        runs.append(
            subprocess.run(
                [*argv, "-o", str(out)], capture_output=True, text=True, env=env, cwd=ROOT
            )
        )
    cold, warm = runs
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    notice = [ln for ln in cold.stderr.splitlines() if ln.startswith("compiling")]
    assert len(notice) == 1, cold.stderr
    assert "greedy, random play and threshold bidding" in notice[0] and "once" in notice[0]
    assert any(ln.startswith("compiled in") for ln in cold.stderr.splitlines())
    assert not [ln for ln in warm.stderr.splitlines() if ln.startswith("compil")]
    assert "deals/s" in cold.stdout
    assert not [ln for ln in cold.stdout.splitlines() if ln.startswith("compil")]
