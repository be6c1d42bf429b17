"""README.md's links into the repository lead somewhere: the file exists and, for a
markdown page, the anchor is one of its headings (GitHub's anchors, which the manual
uses too: mkdocs.yml). The manual's own links are checked by ``mkdocs build --strict``
(``make docs``); README.md is not part of the manual, so it is checked here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors of a markdown page's headings, as GitHub and the manual make them."""
    slugs = pytest.importorskip("pymdownx.slugs")
    slugify = slugs.slugify(case="lower")
    found, fence = set(), False
    for line in page.read_text().split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#+ ", line):
            text = re.sub(r"`([^`]*)`", r"<code>\1</code>", line.lstrip("#").strip())
            found.add(slugify(text, "-"))
    return found


def test_readme_links_resolve() -> None:
    text = (REPO / "README.md").read_text()
    links = [t for t in LINK.findall(text) if not re.match(r"[a-z]+://", t)]
    assert len(links) > 10  # the recipes link to the guides
    for target in links:
        path, _, anchor = target.partition("#")
        file = REPO / path if path else REPO / "README.md"
        assert file.exists(), f"README.md links to {target}: no such file"
        if anchor:
            assert anchor in anchors(file), f"README.md links to {target}: no such heading"


def test_anchor_check_finds_headings() -> None:
    """The check above knows the anchors it must accept and refuse."""
    page = anchors(REPO / "docs" / "guide" / "simulate.md")
    assert "2--and-3-player-games-open-belot" in page  # GitHub keeps both hyphens
    assert "interrupted-runs-what-is-guaranteed" in page
    assert "no-such-heading" not in page
