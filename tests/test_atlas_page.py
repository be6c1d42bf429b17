"""The report's atlas page (``atlas.html``) and its section of the report, on the shipped
atlas: tables by holding with P(made), net MP, intervals and group sizes, rows by
strength, the report's style and navigation, and the link to the hand evaluator."""

from __future__ import annotations

import re

import numpy as np
import pytest

from belote_sim.analysis.atlas_report import heatmap_table, position_table, write_atlas_page
from belote_sim.analysis.hand_page import page_size
from belote_sim.analysis.report_sections import Page, atlas_section
from belote_sim.analysis.style import STYLE
from belote_sim.cli.page_command import PAGE_LIMIT
from belote_sim.simulation.atlas_table import DEFAULT_ATLAS, load_atlas

pytestmark = pytest.mark.skipif(not DEFAULT_ATLAS.exists(), reason="no shipped atlas")


@pytest.fixture(scope="module")
def atlas():
    return load_atlas(None)


@pytest.mark.parametrize("kind", ["suit", "nt", "at"])
def test_tables_by_holding(atlas, kind):
    long = heatmap_table(atlas, kind)
    assert long["hands"].sum() == 201_376
    for name in ("p_made", "net_mp_x1"):
        low, value, high = long[f"{name}_low"], long[name], long[f"{name}_high"]
        assert ((low <= value) & (value <= high)).all()
    assert ((long["p_made_low"] >= 0) & (long["p_made_high"] <= 1)).all()
    assert (long["p_made_high"] > long["p_made_low"]).all()  # never a zero-width interval
    # rows by strength: the rows' expected net MP x1 (hands weighted) never rises
    rows = long.assign(w=long["hands"] * long["net_mp_x1"]).groupby("strength")
    net = (rows["w"].sum() / rows["hands"].sum()).to_numpy()
    assert np.all(np.diff(net) <= 1e-9)
    if kind == "suit":
        assert set(long["row_label"]) >= {"J 9 A x x", "none", "x"}


def test_positions(atlas):
    pos = position_table(atlas)
    assert len(pos) == 12 and pos["hands"].eq(201_376).all()
    assert ((pos["bid"] > 0) & (pos["bid"] < 0.5)).all()


def test_atlas_page_reads_like_the_report(atlas, tmp_path):
    page = write_atlas_page(tmp_path, atlas, hand_page="hand/index.html")
    text = page.read_text()
    assert STYLE in text and "<img" not in text
    assert "<a href='index.html'>" in text and "href='hand/index.html'" in text
    contents = re.findall(r"<li><a href='#([^']+)'>", text)
    assert (
        contents
        == re.findall(r"<section id='([^']+)'>", text)
        == [
            "suit",
            "nt",
            "at",
            "positions",
        ]
    )
    assert "trumps)" not in text  # no "(1 trumps)" labels
    # each cell: P(made) with its interval and group size, net MP with its interval
    assert re.search(
        r"\d+\.\d%<span class='ci'>\d+\.\d–\d+\.\d%</span><span class='n'>[\d,]+ hands</span>"
        r"</td><td class='mp'[^>]*>[+−]\d+\.\d\d<span class='ci'>±\d+\.\d\d</span>",
        text,
    )
    suit = text[text.index("<section id='suit'>") : text.index("<section id='nt'>")]
    first = re.search(r"<tr><th class='l'>([^<]+)<", suit).group(1)
    assert first.startswith("J 9")  # the strongest holding first
    for kind in ("suit", "nt", "at"):
        assert (tmp_path / "tables" / f"atlas_{kind}.csv").exists()


def test_report_section_links_the_hand_page(tmp_path):
    page = Page(tmp_path)
    atlas_section(page, tmp_path)
    [(anchor, _, body)] = page.sections
    body = "".join(body)
    assert anchor == "atlas" and "href='hand/index.html'" in body and "href='atlas.html'" in body
    assert "<img src='figures/atlas_net.png'" in body and "<table>" in body
    assert (tmp_path / "figures" / "atlas_net.png").exists()
    assert (tmp_path / "hand" / "index.html").exists() and page_size(
        tmp_path / "hand"
    ) <= PAGE_LIMIT
    hand = (tmp_path / "hand" / "index.html").read_text()
    assert "href='../index.html'" in hand  # back to the report


def test_the_reports_hand_page_opens_on_the_studys_rules(tmp_path):
    """Issue 37: a common study's hand evaluator opened on the bulgarian atlas (the
    first file alphabetically); it now opens on the atlas of the study's rules."""
    import json
    import re

    from belote_sim.analysis.hand_page import shipped_atlases

    names = [p.name for p in shipped_atlases()]
    for ruleset in ("common", "bulgarian"):
        out = tmp_path / ruleset
        atlas_section(Page(out), out, ruleset=ruleset)
        data = (out / "hand" / "hand_data.js").read_text()
        head = json.loads(re.search(r"window.BELOTE_HAND = (\{.*?\});\n", data).group(1))
        assert names[head["default"]] == f"atlas_{ruleset}.npz"
