"""A progress bar that moves for the slow (search) policies: chunks are computed in
timed parts (``study.Pacer``) that report as they end, and the deals are the same
whatever the parts (a deal is a pure function of its seed)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from belote_sim.analysis.comparisons import duel
from belote_sim.cli.common import Progress
from belote_sim.simulation import study as study_module
from belote_sim.simulation.deal_table import deals_frame
from belote_sim.simulation.runner import simulate_to_parquet
from belote_sim.simulation.study import Pacer, make_study


def _same_table(a: dict, b: dict) -> None:
    """The deals tables of two chunks' raw arrays are equal (the raw trick log of a
    thrown-in deal holds whatever its thread's buffer held: the table has none)."""
    pd.testing.assert_frame_equal(deals_frame(a), deals_frame(b))
    assert all(np.array_equal(a[k], b[k]) for k in ("deal_id", "seed", "out", "calls"))


def test_a_chunk_in_parts_is_the_same_chunk_and_reports_each_part():
    for play, options in (("pimc:2", {}), ("greedy", {"players": 2})):
        study = make_study("common", None, play, seed=5, chunk_size=64, options=options)
        whole = study.run_chunk(1, 10, keep_plays=True)
        seen: list[int] = []
        parts = study.run_chunk(1, 10, keep_plays=True, pacer=Pacer(seen.append, 0.0))
        _same_table(whole, parts)
        # at 0 s a part: the first of two deals a thread, then parts no larger
        assert sum(seen) == 10 and len(seen) >= 3, seen


def test_the_pacer_grows_its_parts_for_a_fast_policy():
    """Sized from the pace of the last part, at most 8 times larger: a fast policy
    soon runs a chunk in one part, and the size carries over to the next chunk."""
    seen: list[int] = []
    pacer = Pacer(seen.append, 3600.0)  # an hour a part: only the 8x cap limits
    assert [s.stop - s.start for s in pacer.parts(5000)] == seen
    first = seen[0]
    assert seen[:4] == [first, 8 * first, 64 * first, 512 * first] and sum(seen) == 5000
    seen.clear()
    list(pacer.parts(100))
    assert seen == [100]


def test_simulate_to_parquet_ticks_within_chunks_and_writes_the_same_table(tmp_path):
    study = make_study("common", None, "pimc:2", seed=9, chunk_size=8)
    plain, paced = tmp_path / "plain.parquet", tmp_path / "paced.parquet"
    chunks: list[int] = []
    simulate_to_parquet(str(plain), 12, study, progress=chunks.append)
    assert chunks == [8, 4]
    chunks.clear()
    ticks: list[int] = []
    study_module_seconds = study_module.PART_SECONDS
    try:
        study_module.PART_SECONDS = 0.0
        simulate_to_parquet(str(paced), 12, study, progress=chunks.append, ticks=ticks.append)
    finally:
        study_module.PART_SECONDS = study_module_seconds
    assert chunks == [8, 4]  # progress still counts written chunks (resume points)
    assert sum(ticks) == 12 and len(ticks) > len(chunks)
    pd.testing.assert_frame_equal(pd.read_parquet(plain), pd.read_parquet(paced))


def test_a_search_duel_reports_progress_several_times_with_the_same_result(monkeypatch):
    kw = dict(deals=6, seed=4, rules="common")
    quiet = duel("pimc:2", "greedy", **kw)
    monkeypatch.setattr(study_module, "PART_SECONDS", 0.0)
    calls: list[int] = []
    loud = duel("pimc:2", "greedy", progress=calls.append, **kw)
    assert json.dumps(loud) == json.dumps(quiet)  # NaN s.e. of one-pair strains too
    assert sum(calls) == 6 and len(calls) >= 3, calls


def test_the_bar_counts_ticks_once(capsys):
    bar = Progress(100, "deal", True)
    try:
        bar.tick(30)  # a part of chunk 1 computed
        bar.tick(50)  # the rest of chunk 1 and a part of chunk 2
        bar(50)  # chunk 1 written: already counted
        assert bar.bar.n == 80
        bar(50)  # chunk 2 written: 30 of it were ticked
        assert bar.bar.n == 100
        bar(10)  # a chunk kept from a resumed file: never ticked
        assert bar.bar.n == 110
    finally:
        bar.close()
    assert Progress(10, "deal", False).ticks is None


def test_a_run_without_a_progress_bar_still_computes_in_parts(tmp_path, monkeypatch):
    """With no one to report to (no terminal), a chunk still runs in timed parts, so
    that Ctrl-C and SIGTERM are handled between two parts (a kernel call holds them)
    rather than after a whole chunk of a slow policy; the deals are the same."""
    from belote_sim.simulation.runner import make_study, simulate_to_parquet
    from belote_sim.simulation.study import Study

    sizes: list[int] = []
    real = Study._run_deals

    def counting(self, seeds, *args):
        sizes.append(len(seeds))
        return real(self, seeds, *args)

    monkeypatch.setattr(Study, "_run_deals", counting)
    study = make_study("common", "threshold", "random", 1, chunk_size=4096)
    simulate_to_parquet(str(tmp_path / "d.parquet"), 3000, study)
    assert sum(sizes) == 3000 and len(sizes) > 1
