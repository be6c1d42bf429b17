"""Reports a player reads: conditional exact values, report structure, CLI errors,
mirrored bidding studies."""

import pytest

from belote_sim.analysis import exact
from belote_sim.analysis import report_tables as R
from belote_sim.simulation.runner import simulate

PREDEAL = {0: "JH 9H AH TS 7C"}
CONSTRAINT = {1: {"min": {"H": 3}, "max": {"S": 2}, "strength": (20, 60), "exclude": "AS"}}


def test_conditional_enumeration_without_conditions_is_the_closed_form():
    for size in (5, 8):
        assert exact.conditional_probabilities(2, size) == exact.closed_form(size)


def test_conditional_hand_by_hand_counting():
    # seat 0 holds J 9 A of hearts, TS, 7C and 3 cards of the other 27: a carré of aces
    # needs AC AD AS among them -> 1 / C(27, 3)
    probs = exact.conditional_probabilities(0, 8, PREDEAL)
    assert probs["carre_A"] == exact.Fraction(1, 2925)
    assert probs["carre_J"] == exact.Fraction(1, 2925)
    assert probs["carre_T"] == exact.Fraction(1, 2925)
    assert probs["carre_K"] == 0  # four kings do not fit in 3 cards
    # K+Q of hearts: both among the 3 -> 25 / C(27, 3)
    assert probs["kq_suit"] == exact.Fraction(25, 2925)
    # its bidding hand is the five predealt cards: no run, no carré, no K+Q of hearts
    bid = exact.conditional_probabilities(0, 5, PREDEAL)
    assert bid["run3"] == 0 and bid["carre_any"] == 0 and bid["kq_suit"] == 0
    # another seat with rejection constraints: not a single enumeration
    assert exact.conditional_probabilities(0, 8, None, CONSTRAINT) is None
    # a constraint that rejects nothing: the bidding cards are a plain 5-card hand
    assert exact.conditional_probabilities(1, 5, None, {1: {"min": {"H": 0}}}) == exact.closed_form(
        5
    )


@pytest.mark.parametrize("conditions", [dict(predeal=PREDEAL), dict(constraints=CONSTRAINT)])
def test_conditioned_study_within_4_se_of_conditional_exact(conditions):
    df = simulate(20_000, seed=5, bidding="fixed:0,2,0", play="random", **conditions)
    table = R.report_tables(df)["declarations"]
    assert "seat" in table.columns
    compared = table.dropna(subset=["exact"])
    assert len(compared) >= 22  # at least the constrained seat's two hands
    bad = compared[compared["z"].abs() > 4]
    assert bad.empty, bad
    if "constraints" in conditions:
        # only seat 1's hands have a conditional law here; nothing else is compared
        assert set(compared["seat"]) == {1} and set(compared["scope"]) == {"hand5", "hand8"}
    else:
        assert table.loc[table["scope"] != "team", "exact"].notna().all()
        assert table.loc[table["scope"] == "team", "exact"].isna().all()


# --- the report: structure for a reader ----------------------------------------------------


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    from belote_sim.analysis.html_report import write_report

    out = tmp_path_factory.mktemp("rep")
    df = simulate(6000, seed=3)
    index = write_report(df, out / "report", title="My <study>")
    return index, index.read_text()


def test_report_opens_with_summary_headline_rates_and_contents(report_page):
    import re

    _index, text = report_page
    assert "<title>My &lt;study&gt;</title>" in text and "<h1>My &lt;study&gt;</h1>" in text
    body = text[text.index("<body>") :]
    # order: title, summary paragraph, headline rates, contents, then the sections
    lead, cards, nav = body.index("class='lead'"), body.index("class='cards'"), body.index("<nav>")
    first_section = body.index("<section")
    assert body.index("<h1>") < lead < cards < nav < first_section
    summary = body[lead:cards]
    assert "6,000" in summary and "thrown in" in summary and "made" in summary
    assert re.search(r"\d+\.\d% \(\d+\.\d–\d+\.\d%\)", summary)  # a rate with its interval
    contents = re.findall(r"<li><a href='#([^']+)'>", body[nav:first_section])
    sections = re.findall(r"<section id='([^']+)'>", body)
    assert contents == sections and len(sections) >= 6
    assert {"outcomes", "contracts", "bidding-hand", "declarations"} <= set(sections)


def test_report_sections_hold_a_figure_and_a_table(report_page):
    import re

    index, text = report_page
    for anchor, body in re.findall(r"<section id='([^']+)'>(.*?)</section>", text, re.S):
        if anchor == "study":
            continue
        assert "<img src='figures/" in body and "<table>" in body, anchor
    for src in re.findall(r"<img src='([^']+)'", text):
        assert (index.parent / src).is_file()
    # figures at 2x: 200 dpi, shown at a third of their pixel width or less
    from PIL import Image

    with Image.open(index.parent / "figures" / "outcomes.png") as image:
        width = image.size[0]
    assert width >= 2 * 640


def html_text(text):
    import html

    return html.escape(text)


def test_report_tables_for_people(report_page):
    import re

    _, text = report_page
    contracts = re.search(r"<section id='contracts'>(.*?)</section>", text, re.S).group(1)
    assert "x1" in contracts and "1st to speak" in contracts  # named levels, positions
    assert "True" not in text and "False" not in text
    assert "taker_position" not in text.split("<section id='study'>")[0]
    # cells: percentage, interval, group size; small groups greyed
    assert re.search(
        r"\d+\.\d%<span class='ci'>\d+\.\d–\d+\.\d%</span><span class='n'>n ", contracts
    )
    assert "class='small'" in contracts
    bidding = re.search(r"<section id='bidding-hand'>(.*?)</section>", text, re.S).group(1)
    for needle in ("J+9+A", "20-29", "aces", "jacks", "calibration.png"):
        assert needle in bidding, needle
    # the bidding-hand views by the policy's own score and by trump-aware points, the
    # score formula printed, net MP in the cells; no view by plain card points
    from belote_sim.policies import THRESHOLD_SCORE_FORMULA

    assert "bidding score" in bidding and "plain card points of the 5" not in bidding
    assert html_text(THRESHOLD_SCORE_FORMULA) in bidding
    assert re.search(r"<span class='net'>net [+-]\d+\.\d ± \d+\.\d</span>", bidding)


def test_bid_hand_features_hand_computed():
    from test_reports import MIXED, table

    # dealer 3: seat 0 takes C with bidding cards JC 9C AC 7D 8D (first five)
    rows = [
        (3, MIXED, "C", 0, 0, "made", (100, 62), (10, 6), None),
        (3, MIXED, "NT", 1, 0, "made", (100, 62), (10, 6), None),
    ]
    f = R.bid_hand_features(table(rows))
    first, second = f.iloc[0], f.iloc[1]
    assert (first.family, first.bid_trumps, first.honours) == ("suit", 3, "J 9 A")
    assert first.point_band == "10-19"  # J 2 + A 11 = 13
    # seat 1: TC KC QC TD JD -> 10 + 4 + 3 + 10 + 2 = 29 points, no ace, one jack
    assert (second.family, second.bid_trumps, second.honours) == ("NT", 0, "none")
    assert (second.point_band, second.bid_aces, second.bid_jacks) == ("20-29", 0, 1)
    # the threshold policy's score in clubs: J 20+10, 9 14+10, A 11+10, no side ace -> 75;
    # trump-aware points J 20 + 9 14 + A 11 = 45 (plain points said 13)
    assert (first.score, first.score_band) == (75, "70-79")
    assert (first.trump_points, first.trump_point_band) == (45, "40-49")
    # NT: plain points 29, no ace -> score 29; trump-aware points are the plain ones
    assert (second.score, second.score_band) == (29, "<50")
    assert (second.trump_points, second.trump_point_band) == (29, "20-29")
    # net MP of the taker's team: seat 0 (team 0) 10 - 6, seat 1 (team 1) 6 - 10
    assert list(f["net_mp"]) == [4, -4]


def test_bid_hand_score_is_the_kernels_strain_score():
    import numpy as np

    from belote_sim.kernels.bidding import strain_score

    df = simulate(400, seed=9, play="greedy")
    f = R.bid_hand_features(df)
    played = df.loc[f.index]
    for i, row in enumerate(played.itertuples()):
        hand = int(getattr(row, f"bid{int(row.taker)}"))
        strain = played["strain"].cat.codes.iloc[i]
        assert f["score"].iloc[i] == strain_score(np.int64(hand), strain)
    # the threshold policy takes only at or above its thresholds (suit 50, NT 52, AT 75)
    floor = f["family"].map({"suit": 50, "NT": 52, "AT": 75}).astype(int)
    assert (f["score"] >= floor).all()


def test_score_formula_text_is_the_kernels_score_table():
    import re

    import numpy as np

    from belote_sim.kernels.bidding import SCORE
    from belote_sim.policies import THRESHOLD_SCORE_FORMULA as text

    ranks = "789TJQKA"

    def points(part):
        table = dict.fromkeys(ranks, 0)
        inner = re.search(r"\(([^)]*)\)", part).group(1)
        for rank, value in re.findall(r"([0-9TJQKA]+) (\d+)", inner):
            table[rank] = int(value)
        return table

    suit, nt, at = text.split("; ")
    trump, plain = points(suit), points(nt)
    per_card = int(re.search(r"\+ (\d+) per card of X", suit).group(1))
    side_ace = int(re.search(r"\+ (\d+) per ace of another suit", suit).group(1))
    nt_ace = int(re.search(r"\+ (\d+) per ace", nt).group(1))
    at_jack = int(re.search(r"\+ (\d+) per jack", at).group(1))
    assert points(at) == trump
    expected = np.zeros((6, 32), dtype=np.int64)
    for card in range(32):
        s, r = card >> 3, ranks[card & 7]
        for strain in range(4):
            expected[strain, card] = (
                trump[r] + per_card if s == strain else (side_ace if r == "A" else 0)
            )
        expected[4, card] = plain[r] + (nt_ace if r == "A" else 0)
        expected[5, card] = trump[r] + (at_jack if r == "J" else 0)
    assert (expected == SCORE).all()


def test_bid_tables_net_mean_and_se():
    import numpy as np
    import pandas as pd

    counts = pd.DataFrame(
        {
            "family": ["suit", "suit"],
            "n": [2, 1],
            "made": [1, 1],
            "net": [10.0, 5.0],
            "net2": [68.0, 25.0],
        }
    )  # nets 2, 8 then 5: mean 5, sample variance 9, s.e. sqrt(9 / 3)
    out = R.finish_success(counts, ["family"]).iloc[0]
    assert out["n"] == 3 and out["net_mp"] == 5
    assert np.isclose(out["net_se"], np.sqrt(3))


# --- comparisons and the command line -------------------------------------------------------


def test_mirrored_bidding_study_baseline_is_exactly_zero():
    from belote_sim.analysis.comparisons import bidding_sweep

    table = bidding_sweep("nt", [40], deals=600, seed=1)
    base = table[table["baseline"]].iloc[0]
    assert base["value"] == 52  # the parameter's own default, added to the sweep
    assert base["mean_net_mp"] == 0 and base["se"] == 0
    assert list(table["value"]) == [40, 52]
    # best only when significantly better than the baseline
    for row in table.itertuples():
        assert not row.best or row.low > 0


def test_report_errors_are_one_line_and_leave_no_folder(tmp_path, capsys):
    import pandas as pd

    from belote_sim.cli import main

    pd.DataFrame({"a": [1, 2]}).to_csv(tmp_path / "x.csv")
    pd.DataFrame({"a": [1, 2]}).to_parquet(tmp_path / "foreign.parquet")
    assert (
        main(
            [
                "simulate",
                "--games",
                "2",
                "--max-deals",
                "3",
                "-q",
                "-o",
                str(tmp_path / "games.parquet"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    for name, words in (
        ("missing.parquet", "no such file"),
        ("x.csv", "not a Parquet file"),
        ("foreign.parquet", "not a belote-sim deals table"),
        ("games.parquet", "a games table"),
    ):
        out = tmp_path / f"out_{name}"
        assert main(["report", str(tmp_path / name), "-o", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err
        assert not out.exists()


def test_hand_command_net_best_call_and_rejects_zero_deals(capsys):
    from belote_sim.cli import main

    with pytest.raises(SystemExit):
        main(["hand", "JH 9H AH TS 7C", "--deals", "0"])
    assert "at least 2" in capsys.readouterr().err
    # H clearly (+5.5 ± 1.4 MP over AT at 300 deals): with KH for 7C, AT and H are level
    assert main(["hand", "JH 9H AH TH 7C", "--deals", "300", "--simulate"]) == 0
    out = capsys.readouterr().out
    assert "net MP" in out and "300 deals per strain, the same deals" in out
    assert "best call: H" in out
    assert main(["hand", "JH 9H AH TS 7C", "--deals", "200", "--ruleset", "french"]) == 0
    out = capsys.readouterr().out
    assert "French points" in out and "not played under these rules: NT, AT" in out
    header = next(line for line in out.splitlines() if line.startswith("strain"))
    assert "net x1" in header and " MP " not in out


def test_duel_reports_thrown_in_deals(capsys):
    from belote_sim.cli import main

    assert main(["duel", "--a", "greedy", "--b", "random", "--deals", "400"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    played, thrown = [
        int(x.replace(",", ""))
        for x in __import__("re").findall(r"([\d,]+) (?:mirrored deals played|of 400)", first)
    ]
    assert played + thrown == 400 and "thrown in" in first


def test_help_texts_name_every_option_and_default(capsys):
    import argparse

    from belote_sim.cli import build_parser, main

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    study = next(
        a for a in sub.choices["study"]._actions if isinstance(a, argparse._SubParsersAction)
    )
    parsers = {name: sub.choices[name] for name in ("hand", "study", "duel", "report")}
    parsers["study bidding"] = study.choices["bidding"]
    for command, parser in parsers.items():
        for action in parser._actions:
            assert action.help, (command, action.dest)
    with pytest.raises(SystemExit):
        main(["study", "bidding", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "mirrored" in text and "(default: 100000)" in text and "default: None" not in text
    assert "(default: 0)" in text  # the seed


def test_intervals_never_print_equal_ends():
    import re

    from belote_sim.analysis.report_sections import _rate_cell, pct_interval

    assert pct_interval(0.0081, 0.0084) == "0.81–0.84%"
    assert pct_interval(0.2, 0.3) == "20.0–30.0%"  # one decimal where it is enough
    # 8,000 made of 1,000,000: 0.80% (0.78–0.82%), not 0.8% (0.8–0.8%)
    cell = _rate_cell(8000, 1_000_000)
    rate, low, high = re.search(r">([\d.]+)%<span class='ci'>([\d.]+)–([\d.]+)%", cell).groups()
    assert low != high and rate == "0.80"


def test_provenance_in_words():
    from belote_sim.analysis.report_sections import provenance_words

    rows = provenance_words(
        {
            "ruleset": "common",
            "n": 200000,
            "seed": 3,
            "bidding": ["threshold:50,52,75,60,60"] * 4,
            "play": ["greedy:1,1", "random", "greedy:1,1", "random"],
            "dealer": None,
            "predeal": {},
            "constraints": {},
            "chunk_size": 65536,
            "belote_sim": "0.1.0",
        }
    )
    text = " ".join(rows.values())
    for raw in ("null", "{}", "[", '"'):
        assert raw not in text, raw
    assert rows["deals"] == "200,000"
    assert rows["dealer"].startswith("rotates")
    assert rows["conditions"].startswith("none")
    # names a reader understands, then the exact spec (issue 37)
    assert rows["bidding policy"] == "threshold at every seat; exact spec threshold:50,52,75,60,60"
    assert (
        rows["play policy"].startswith("seat 0 greedy") and "seat 1 random" in rows["play policy"]
    )
    fixed = provenance_words({"dealer": 2, "predeal": {"0": "JH 9H AH TS 7C"}})
    assert fixed["dealer"] == "seat 2 every deal"
    assert fixed["conditions"] == "seat 0 is dealt JH 9H AH TS 7C"


def test_report_figures_carry_a_title_and_the_source_line(tmp_path):
    from matplotlib.figure import Figure

    from belote_sim.analysis.html_report import source_line
    from belote_sim.analysis.report_sections import Page

    line = source_line({"ruleset": "common", "seed": 1}, 2000)
    assert line == "Source: belote-sim " + __import__("belote_sim").__version__ + (
        " simulation, common rules, 2,000 deals, seed 1"
    )
    page = Page(tmp_path, line)
    ax = Figure().add_subplot()
    page.figure(ax, "a.png", "caption", title="A title")
    assert ax.get_title() == "A title"
    texts = [t.get_text() for t in ax.figure.texts]
    assert ax.figure.get_supxlabel() == line or line in texts
    assert (tmp_path / "figures" / "a.png").is_file()
    # a figure with its own title keeps it
    ax2 = Figure().add_subplot()
    ax2.set_title("own")
    page.figure(ax2, "b.png", "caption", title="A title")
    assert ax2.get_title() == "own"
    # a figure without any title is refused
    with __import__("pytest").raises(ValueError, match="no title"):
        page.figure(Figure().add_subplot(), "c.png", "caption")
    # another source line where the figure is not the study's (the atlas)
    ax3 = Figure().add_subplot()
    page.figure(ax3, "d.png", "caption", title="t", source="Source: the atlas")
    assert ax3.figure.get_supxlabel() == "Source: the atlas"


def test_net_cell_never_prints_minus_zero():
    from belote_sim.analysis.report_sections import _rate_cell

    cell = _rate_cell(50, 100, (-0.01, 100.0))  # mean -0.0001 MP
    assert "net 0.0 ± " in cell and "-0.0" not in cell
    assert "net +1.5 ± " in _rate_cell(50, 100, (150.0, 400.0))
