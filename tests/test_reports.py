"""Report tables on small hand-built deals tables with hand-computed answers."""

import numpy as np
import pandas as pd
import pytest

from belote_sim.analysis import report_tables as R
from belote_sim.cards import parse_hand
from belote_sim.simulation.deal_table import OUTCOME_DTYPE, STRAIN_DTYPE
from belote_sim.simulation.runner import simulate
from belote_sim.stats import wilson_interval

HANDS = [
    "7C 8C 9C TC JC QC KC AC",
    "7D 8D 9D TD JD QD KD AD",
    "7H 8H 9H TH JH QH KH AH",
    "7S 8S 9S TS JS QS KS AS",
]
MIXED = [
    "JC 9C AC 7D 8D 9D 7H 8H",
    "TC KC QC TD JD QD 9H TH",
    "7C 8C KD AD JH QH KH AH",
    "7S 8S 9S TS JS QS KS AS",
]


def table(rows):
    """A deals table from (dealer, hands, strain, taker, doubling, outcome, raw, mp, valat)."""
    cols = {
        k: []
        for k in [
            "dealer",
            "strain",
            "taker",
            "doubling",
            "outcome",
            "raw0",
            "raw1",
            "mp0",
            "mp1",
            "valat",
            "turned",
        ]
        + [f"hand{s}" for s in range(4)]
        + [f"bid{s}" for s in range(4)]
    }
    for dealer, hands, strain, taker, doubling, outcome, raw, mp, valat in rows:
        cols["dealer"].append(dealer)
        cols["strain"].append(strain)
        cols["taker"].append(taker)
        cols["doubling"].append(doubling)
        cols["outcome"].append(outcome)
        cols["raw0"].append(raw[0])
        cols["raw1"].append(raw[1])
        cols["mp0"].append(mp[0])
        cols["mp1"].append(mp[1])
        cols["valat"].append(valat)
        cols["turned"].append(None)
        for s in range(4):
            cols[f"hand{s}"].append(parse_hand(hands[s]))
            cols[f"bid{s}"].append(parse_hand(hands[s].split()[:5], size=None))
    df = pd.DataFrame(cols)
    df["strain"] = df["strain"].astype(STRAIN_DTYPE)
    df["outcome"] = df["outcome"].astype(OUTCOME_DTYPE)
    df["taker"] = df["taker"].astype("Int8")
    df["valat"] = df["valat"].astype("Int8")
    df["turned"] = df["turned"].astype("Int8")
    return df


ROWS = [
    # dealer 3 -> seat 0 speaks first (position 0); seat 1 is position 1
    (3, MIXED, "C", 0, 0, "made", (100, 62), (10, 6), None),
    (3, MIXED, "C", 0, 0, "inside", (62, 100), (0, 16), None),
    (3, MIXED, "C", 1, 0, "made", (62, 100), (6, 10), None),
    (3, MIXED, "AT", 2, 1, "made", (200, 58), (52, 0), None),
    (3, MIXED, None, None, 0, "thrown_in", (0, 0), (0, 0), None),
    (0, HANDS, "H", 2, 0, "made", (162, 0), (25, 0), 0),
]


def test_success_rates_by_strain_doubling_position():
    t = R.success_rates(table(ROWS))
    c0 = t[(t.strain == "C") & (t.doubling == 0) & (t.taker_position == 0)].iloc[0]
    assert (c0.n, c0.made, c0.rate) == (2, 1, 0.5)
    c1 = t[(t.strain == "C") & (t.taker_position == 1)].iloc[0]
    assert (c1.n, c1.made) == (1, 1)
    at = t[t.strain == "AT"].iloc[0]
    assert (at.doubling, at.taker_position, at.n, at.made) == (1, 2, 1, 1)
    # dealer 0, taker 2 -> position (2 - 0 - 1) % 4 = 1
    h = t[t.strain == "H"].iloc[0]
    assert h.taker_position == 1
    assert t["n"].sum() == 5  # the thrown-in deal is not a contract


def test_taker_features_hand_computed():
    f = R.taker_features(table(ROWS))
    # deal 0: taker seat 0 holds JC 9C AC in clubs (trump): J, 9, A, 3 trumps
    first = f.iloc[0]
    assert (first.trump_j, first.trump_9, first.trump_a, first.n_trumps) == (True, True, True, 3)
    assert first.n_aces == 1 and first.strength == 11 + 2 + 0  # AC 11, JC 2, 9C 0 ... plain
    # deal 2: taker seat 1 holds TC KC QC: no J/9/A of trump, 3 trumps
    third = f.iloc[2]
    assert (third.trump_j, third.trump_9, third.n_trumps) == (False, False, 3)
    # AT: no trump suit -> 0 trumps
    assert f.iloc[3].n_trumps == 0


def test_outcome_rates():
    t = R.outcome_rates(table(ROWS)).set_index("event")
    assert t.loc["made", "hits"] == 4 and t.loc["made", "n"] == 5
    assert t.loc["inside", "hits"] == 1
    assert t.loc["thrown_in", "hits"] == 1 and t.loc["thrown_in", "n"] == 6
    assert t.loc["valat", "hits"] == 1 and t.loc["doubled", "hits"] == 1


def test_point_distributions():
    t = R.point_distributions(table(ROWS))
    c_raw = t[(t.strain == "C") & (t.measure == "taker_raw")].iloc[0]
    # taker raws: 100 (team 0), 62 (team 0), 100 (taker seat 1 -> team 1)
    assert c_raw.n == 3 and c_raw["mean"] == pytest.approx(262 / 3)
    assert c_raw.sd == pytest.approx(np.std([100, 62, 100], ddof=1))
    c_mp = t[(t.strain == "C") & (t.measure == "taker_mp")].iloc[0]
    assert c_mp["mean"] == pytest.approx((10 + 0 + 10) / 3)


def test_declaration_counts_hand_computed():
    counts = R.count_declarations(table(ROWS[-1:])).groupby(["scope", "event"]).sum()
    # one deal where every hand is a whole suit: 4 hands with a run of 8 (run5), no carré,
    # K+Q of hearts in exactly one hand (seat 2); bidding hands 7 8 9 T J: run5 each
    assert counts.loc[("hand8", "run5"), "hits"] == 4
    assert counts.loc[("hand8", "carre_any"), "hits"] == 0
    assert counts.loc[("hand8", "kq_suit"), "hits"] == 1
    assert counts.loc[("hand5", "run5"), "hits"] == 4
    assert counts.loc[("team", "kq_suit"), "hits"] == 1  # team 0 only (seat 2)
    assert (
        counts.loc[("team", "run3plus"), "hits"] == 2 and counts.loc[("team", "run3plus"), "n"] == 2
    )


def test_wilson_known_values():
    # 81 of 263 (Wilson 1927 style example): reference interval computed by the formula
    low, high = wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(10, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.7225, abs=1e-4)


def test_simulated_declaration_frequencies_within_4_se_of_exact():
    df = simulate(150_000, seed=31, play="random")
    t = R.declaration_frequencies(df)
    assert len(t) == 33
    bad = t[t["z"].abs() > 4]
    assert bad.empty, bad


def test_report_tables_same_in_batches_and_from_parquet(tmp_path):
    from belote_sim.simulation.runner import make_study, simulate_to_parquet

    study = make_study("bulgarian", seed=9, chunk_size=3000)
    path = tmp_path / "d.parquet"
    simulate_to_parquet(str(path), 10_000, study)
    df = simulate(10_000, rules="bulgarian", seed=9, chunk_size=3000)
    whole = R.report_tables(df)
    streamed = R.report_tables(str(path))
    for name in whole:
        pd.testing.assert_frame_equal(
            whole[name].reset_index(drop=True),
            streamed[name].reset_index(drop=True),
            check_dtype=False,
        )
    # batches of 1,000 rows add up to the same tables
    small = {}
    parts = {k: [] for k in ("success", "decl")}
    for batch in R.iter_batches(df, batch_rows=1000):
        parts["success"].append(R.count_success(batch, R.SUCCESS_BY))
        parts["decl"].append(R.count_declarations(batch))
    small["success_by_contract"] = R.finish_success(pd.concat(parts["success"]), R.SUCCESS_BY)
    small["declarations"] = R.finish_declarations(pd.concat(parts["decl"]))
    for name, t in small.items():
        pd.testing.assert_frame_equal(
            t.reset_index(drop=True), whole[name].reset_index(drop=True), check_dtype=False
        )


def test_a_fixed_contract_study_reads_in_words_without_structural_zeros(tmp_path):
    """Issue 37: a fixed-contract study said "strain 2" and showed "0.0% deals thrown in"
    and "0.0% doubled", zeros that the fixed contract makes certain; the players were
    named by spec strings where a reader reads."""
    import re as _re

    from belote_sim.analysis.html_report import write_report
    from belote_sim.simulation.runner import make_study, simulate_to_parquet

    table = tmp_path / "fixed.parquet"
    simulate_to_parquet(str(table), 600, make_study("common", "fixed:0,2,0", "greedy", seed=3))
    page = (write_report(str(table), tmp_path / "rep")).read_text(encoding="utf-8")
    text = _re.sub(r"<[^>]+>", " ", page.split("<nav>")[0])  # the summary and its cards
    assert "seat 0 takes hearts" in text and "strain 2" not in text
    assert "thrown in" not in text and "doubled" not in text
    assert "greedy at every seat" in text and "greedy:1,1" not in text
    outcomes = page[page.index("id='outcomes'") : page.index("id='contracts'")]
    assert "thrown in (all pass)" not in outcomes and "<td>doubled" not in outcomes
    # the exact specs stay, in the study's table
    assert "exact spec fixed:0,2,0" in page and "exact spec greedy:1,1" in page


@pytest.fixture(scope="module")
def atlas_report(tmp_path_factory):
    """The report of a small study under atlas bidding (the default study's bidding)."""
    from belote_sim.analysis.html_report import write_report
    from belote_sim.simulation.runner import make_study, simulate_to_parquet

    tmp = tmp_path_factory.mktemp("atlas_report")
    table = tmp / "atlas.parquet"
    simulate_to_parquet(str(table), 4000, make_study("common", "atlas", "greedy", seed=5))
    return write_report(str(table), tmp / "rep")


def test_the_bidding_score_caption_says_what_the_study_measured(atlas_report):
    """Issue 37: the caption said "the lowest bands are nearly empty", false under
    atlas bidding (most of NT contracts under 50); it now gives the measured shares."""
    import re as _re

    page = atlas_report.read_text(encoding="utf-8")
    assert "nearly empty" not in page
    bands = pd.read_csv(atlas_report.parent / "tables" / "bid_score.csv")
    shown = _re.search(r"score under 50 \(the lowest band\) in this study: ([^;]+);", page)
    assert shown, "no measured share in the caption"
    for family in ("suit", "NT"):
        part = bands[bands["family"] == family]
        share = part.loc[part["score_band"] == "<50", "n"].sum() / part["n"].sum()
        assert f"{share:.0%} of {family} contracts" in shown.group(1)
    nt = bands[bands["family"] == "NT"]
    assert nt.loc[nt["score_band"] == "<50", "n"].sum() > 0.3 * nt["n"].sum()  # not empty


def test_every_pivot_table_shows_its_all_column_at_1400_px(atlas_report):
    """Issue 37: pivot tables wider than the page's column hid their "all" column
    behind a scroll bar; in headless Chromium at 1400 px every "all" header is in
    view and no table is wider than the column."""
    from test_hand_page import _browser

    browser = _browser()
    try:
        browser.set_window_size(1400, 1000)
        browser.get(atlas_report.as_uri())
        boxes = browser.execute_script(
            "return [...document.querySelectorAll('.wrap')].map(w => {"
            " const t = w.querySelector('table'); const all = t && t.querySelector('th.all');"
            " return [w.getBoundingClientRect().right, w.clientWidth, t ? t.scrollWidth : 0,"
            " all ? all.getBoundingClientRect().right : null]; });"
        )
    finally:
        browser.quit()
    alls = [b for b in boxes if b[3] is not None]
    assert len(alls) >= 5, boxes
    for right, width, table_width, all_right in boxes:
        assert table_width <= width, (table_width, width)
        if all_right is not None:
            assert all_right <= right
