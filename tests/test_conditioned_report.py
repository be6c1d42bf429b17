"""The report of a conditioned study (predealt cards, constraints) carries only what the
study holds, and the report's other forms: SVG figures and one self-contained file."""

import re

import pandas as pd
import pytest

from belote_sim.analysis import plots
from belote_sim.analysis.html_report import write_report
from belote_sim.analysis.single_file import local_references
from belote_sim.simulation.runner import simulate
from tests.cli_run import run_cli

PREDEAL = {0: "JH 9H AH TH 7C"}


def sections(text):
    return dict(re.findall(r"<section id='([^']+)'>(.*?)</section>", text, re.S))


@pytest.fixture(scope="module")
def conditioned(tmp_path_factory):
    out = tmp_path_factory.mktemp("cond")
    df = simulate(3000, seed=11, play="greedy", predeal=PREDEAL)
    index = write_report(df, out / "report")
    decl = pd.read_csv(index.parent / "tables" / "declarations.csv")
    return index, index.read_text(), decl, df


def test_conditioned_report_has_the_seat_and_its_team(conditioned):
    index, text, _, df = conditioned
    sec = sections(text)
    assert "conditioned-seat" in sec
    body = sec["conditioned-seat"]
    assert "Seat 0 and its team 0 (seats 0 and 2)" in body
    assert "JH 9H AH TH 7C" in body
    # who takes, counted from the deals by hand: seat 0's share of the deals
    took = (df["taker"] == 0).sum()
    assert f"{took:,}" in body and f"{took / len(df):.1%}" in body
    seat = pd.read_csv(index.parent / "tables" / "conditioned_seat.csv")
    assert seat["n"].sum() == len(df)
    # team 0's net MP per deal, from the deals
    net = (df["mp0"].astype(float) - df["mp1"].astype(float)).mean()
    assert f"net {net:+.1f}" in body


def test_conditioned_report_has_no_impossible_declaration_rows(conditioned):
    _, text, decl, _ = conditioned
    body = sections(text)["declarations"]
    tables = re.findall(r"<table>(.*?)</table>", body, re.S)
    hand5 = next(t for t in tables if "5-card" in t)
    for event, part in decl[decl["scope"] == "hand5"].groupby("event"):
        label = plots.event_label(event)
        row = f"<th class='l'>{label}</th>"
        if (part["exact"] == 0).all():
            assert row not in hand5, label  # impossible for every seat: no row
        else:
            assert row in hand5, label
    # seat 0's bidding hand is the five predealt cards: a tierce (9 T J) is certain,
    # the rest impossible -- said in words, never with a z
    assert "certain" in hand5 and "impossible" in hand5
    for table in tables:
        for cells in re.findall(r"<tr>(.*?)</tr>", table, re.S):
            values = re.findall(r"<td>([^<]*)</td>", cells)
            for k, value in enumerate(values[:-1]):
                if value in ("0.000%", "0%"):
                    assert not re.fullmatch(r"[+-]\d+\.\d", values[k + 1]), cells


def test_conditioned_report_has_no_empty_sections(conditioned):
    index, text, _, _ = conditioned
    sec = sections(text)
    # the atlas's tables are the same in every report: one line instead
    assert "atlas_net" not in sec["atlas"] and "left out of a conditioned" in sec["atlas"]
    for anchor, body in sec.items():
        for table in re.findall(r"<table[^>]*>(.*?)</table>", body, re.S):
            assert "<td" in table, anchor  # no header-only table
        assert "<img" in body or "<table" in body or "class='note'" in body, anchor
    for src in re.findall(r"<img src='([^']+)'", text):
        assert (index.parent / src).is_file()


def test_report_with_one_trump_count_draws_no_one_point_figures(tmp_path):
    # seat 0 holds all eight hearts and always takes hearts: every suit contract has
    # 8 trumps (5 among the bidding cards) and the same bidding hand
    df = simulate(
        600, seed=2, play="greedy", bidding="fixed:0,2,0", predeal={0: "7H 8H 9H TH JH QH KH AH"}
    )
    index = write_report(df, tmp_path / "r")
    text = index.read_text()
    figures = {p.name for p in (index.parent / "figures").iterdir()}
    assert not {"success_trumps.png", "bidding_trumps.png", "calibration.png"} & figures
    assert "every suit contract's taker held 8 trumps" in text
    assert "every suit contract's taker held 5 trumps" in text
    assert "No calibration figure" in text
    # no NT or AT contracts: a line, not a header-only table
    bidding = sections(text)["bidding-hand"]
    assert bidding.count("No contracts of this kind") == 2
    for table in re.findall(r"<table[^>]*>(.*?)</table>", text, re.S):
        assert "<td" in table


def test_at_without_x2_is_explained(tmp_path):
    # a hand-made table: AT played x1 and x4 (redoubled), never x2
    from belote_sim.analysis.report_sections import Page, contract_section

    table = pd.DataFrame(
        {
            "strain": ["AT", "AT", "H"],
            "doubling": [0, 2, 1],
            "taker_position": [0, 1, 0],
            "n": [50, 40, 30],
            "made": [40, 20, 10],
        }
    )
    page = Page(tmp_path)
    contract_section(page, {"success_by_contract": table}, {"bidding": ["threshold"] * 4})
    body = "".join(page.sections[0][2])
    assert "Why all trumps shows x1 and x4 but no x2" in body
    assert "at least 75" in body and "(60)" in body  # the default thresholds
    page = Page(tmp_path)
    higher = {"bidding": ["threshold:50,52,75,60,80"] * 4}  # redouble above AT: no claim
    contract_section(page, {"success_by_contract": table}, higher)
    assert "Why all trumps" not in "".join(page.sections[0][2])


def test_nt_double_impossible_with_default_thresholds():
    import numpy as np

    from belote_sim.analysis.report_sections import best_defence_nt_score
    from belote_sim.cards import parse_hand
    from belote_sim.kernels.bidding import SCORE

    def nt_score(text):
        mask = parse_hand(text.split(), size=None)
        return int(sum(SCORE[4, c] for c in range(32) if (mask >> c) & 1))

    # any 5 cards: four aces and a ten is the most
    assert best_defence_nt_score(0) == nt_score("AC AD AH AS TC") == 74
    # a taker bidding NT at 52 leaves at most 56 to a defender: e.g. both hold A A T T K
    taker, defender = nt_score("AC AD TC TD KC"), nt_score("AH AS TH TS KH")
    assert taker >= 52 and defender == 56 == best_defence_nt_score(52)
    # random deals agree: never a defender above 56 beside a 52+ NT hand
    rng = np.random.default_rng(0)
    nt = SCORE[4]
    for _ in range(20_000):
        cards = rng.permutation(32)
        if nt[cards[:5]].sum() >= 52:
            assert nt[cards[5:10]].sum() <= 56
    assert best_defence_nt_score(200) == -1


def test_nt_never_doubled_is_explained(tmp_path):
    from belote_sim.analysis.report_sections import Page, contract_section

    table = pd.DataFrame(
        {
            "strain": ["NT", "H"],
            "doubling": [0, 1],
            "taker_position": [0, 0],
            "n": [50, 30],
            "made": [40, 10],
        }
    )
    page = Page(tmp_path)
    contract_section(page, {"success_by_contract": table}, {"bidding": ["threshold"] * 4})
    body = "".join(page.sections[0][2])
    assert "Why no trumps is never doubled" in body and "at most 56" in body
    page = Page(tmp_path)
    low = {"bidding": ["threshold:50,40,75,60,60"] * 4}  # NT at 40: a double can happen
    contract_section(page, {"success_by_contract": table}, low)
    assert "Why no trumps" not in "".join(page.sections[0][2])


@pytest.fixture(scope="module")
def small_deals():
    return simulate(1500, seed=6, play="greedy")


def test_single_file_report_references_no_local_file(small_deals, tmp_path):
    path = write_report(small_deals, tmp_path / "one", single_file=True)
    assert path == tmp_path / "one.html" and path.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.html"]
    text = path.read_text()
    assert local_references(text) == []
    assert "<img src='data:image/png;base64," in text
    assert "href='data:text/csv;base64," in text
    assert "url(" not in text.split("</style>")[0]
    anchors = set(re.findall(r"id='([^']+)'", text))
    for target in re.findall(r"href='#([^']+)'", text):
        assert target in anchors, target  # every in-page link lands somewhere


def test_svg_report_writes_and_references_svg_figures(small_deals, tmp_path):
    index = write_report(small_deals, tmp_path / "svg", svg=True)
    text = index.read_text()
    srcs = re.findall(r"<img src='([^']+)'", text)
    assert srcs and all(s.endswith(".svg") for s in srcs)
    for src in srcs:
        head = (index.parent / src).read_text()[:300]
        assert "<svg" in head
    assert not list((index.parent / "figures").glob("*.png"))


def test_report_cli_single_file_and_svg(tmp_path):
    table = tmp_path / "d.parquet"
    rc, _, err = run_cli(["simulate", "--deals", 800, "--play", "greedy", "-q", "-o", table])
    assert rc == 0, err
    rc, out, err = run_cli(["report", table, "-o", tmp_path / "r.html", "--single-file", "--svg"])
    assert rc == 0, err
    assert str((tmp_path / "r.html").resolve()) in out
    text = (tmp_path / "r.html").read_text()
    assert local_references(text) == [] and "data:image/svg+xml;base64," in text
