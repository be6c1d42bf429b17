"""One self-contained HTML file from a report folder (``belote-sim report --single-file``).

``inline_report(folder)`` reads the report written into ``folder`` (``index.html``, its
``figures/``, ``tables/``, and where present ``atlas.html`` and the hand evaluator in
``hand/``) and returns one HTML page that references no other file:

- figures (PNG or SVG) become ``data:`` URIs;
- the CSV tables become ``data:text/csv`` download links;
- the atlas page (``atlas.html``) becomes a section of the page (its anchors prefixed
  ``atlas-``), and links to it point at that section;
- the hand evaluator (``hand/index.html`` and its two scripts) becomes a section whose
  frame is filled from a string in the page (``srcdoc``), so it works offline from
  ``file://`` like the folder version; links to it point at that section.

The style sheet is already inline in every page of a report.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

__all__ = ["MEDIA_TYPES", "inline_report", "local_references"]

#: media type of each file kind a report links to
MEDIA_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".csv": "text/csv"}

_ATTR = re.compile(r"""(src|href)=(['"])([^'"]*)\2""")


def _data_uri(path: Path) -> str:
    kind = MEDIA_TYPES.get(path.suffix, "application/octet-stream")
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def local_references(page: str) -> list[str]:
    """The ``src`` and ``href`` values of an HTML page that name another file (not a
    ``data:`` URI, an in-page ``#anchor``, nor an ``http(s):``/``mailto:`` address)."""
    return [
        value
        for _, _, value in _ATTR.findall(page)
        if value and not value.startswith(("data:", "#", "http://", "https://", "mailto:"))
    ]


def _inline_files(page: str, folder: Path, links: dict[str, str]) -> str:
    """``page`` with its figures and tables inlined and the addresses in ``links``
    replaced; any other local reference raises ValueError (one line)."""

    def swap(match: re.Match) -> str:
        attr, quote, value = match.groups()
        if value in links:
            return f"{attr}={quote}{links[value]}{quote}"
        if value.startswith(("figures/", "tables/")):
            path = folder / value
            if not path.is_file():
                raise ValueError(f"the report links to {value}, which is not there")
            extra = f" download={quote}{path.name}{quote}" if attr == "href" else ""
            return f"{attr}={quote}{_data_uri(path)}{quote}{extra}"
        return match.group(0)

    return _ATTR.sub(swap, page)


def _body(page: str) -> str:
    return page[page.index("<body>") + len("<body>") : page.rindex("</body>")]


def _atlas_section(folder: Path) -> tuple[str, str]:
    """(extra style, section) of the atlas page inside the report, or ('', '')."""
    path = folder / "atlas.html"
    if not path.is_file():
        return "", ""
    from belote_sim.analysis.atlas_report import ATLAS_STYLE

    body = _body(path.read_text(encoding="utf-8"))
    body = re.sub(r"<nav class='top'>.*?</nav>", "", body, count=1, flags=re.S)
    body = re.sub(r"id='([^']+)'", r"id='atlas-\1'", body)
    body = re.sub(r"href='#([^']+)'", r"href='#atlas-\1'", body)
    body = body.replace("<h1>", "<h2>").replace("</h1>", "</h2>")
    links = {"index.html": "#contents", "hand/index.html": "#hand-evaluator"}
    body = _inline_files(body, folder, links)
    style = "\n".join(
        line
        for line in ATLAS_STYLE.splitlines()
        if line.startswith(("table.atlas", "nav.top", ".key", "p.links"))
    )
    section = (
        "<section id='atlas-page' class='embedded'><p class='note'><a href='#contents'>"
        f"↑ contents</a> · the atlas page, embedded</p>{body}</section>"
    )
    return style, section


def _hand_section(folder: Path) -> str:
    """The hand evaluator as a section whose frame is written from a string of the page
    (its scripts inlined), or ''."""
    path = folder / "hand" / "index.html"
    if not path.is_file():
        return ""
    page = path.read_text(encoding="utf-8")
    for name in ("hand_data.js", "hand_page.js"):
        script = (folder / "hand" / name).read_text(encoding="utf-8")
        page = page.replace(f'<script src="{name}"></script>', f"<script>{script}</script>")
    page = re.sub(r"<a href='\.\./index\.html'>[^<]*</a>\s*·\s*", "", page)
    if local_references(page):
        raise ValueError(
            f"the hand evaluator links to {local_references(page)[0]}, which cannot be embedded"
        )
    text = json.dumps(page).replace("</", "<\\/")
    return (
        "<section id='hand-evaluator'><h2>The hand evaluator</h2><p class='note'>Pick five "
        "cards and a position: the call, P(made) and net MP of every strain, from the "
        "shipped atlases (the same page as <code>belote-sim atlas page</code>, embedded)."
        "</p><iframe id='hand-frame' title='the hand evaluator' "
        "style='width:100%;height:1500px;border:1px solid #cbd5e0;border-radius:6px'>"
        "</iframe><script>(function () { const frame = document.getElementById('hand-frame');"
        " const fit = () => { const doc = frame.contentDocument; if (doc && doc.body) {"
        " frame.style.height = doc.documentElement.scrollHeight + 20 + 'px'; } };"
        " frame.onload = () => { fit(); new ResizeObserver(fit).observe("
        f"frame.contentDocument.body); }}; frame.srcdoc = {text}; }})();</script></section>"
    )


def inline_report(folder: str | Path) -> str:
    """The report in ``folder`` as one self-contained HTML page (module docstring);
    ValueError (one line) if a page links to a file that is missing."""
    folder = Path(folder)
    index = (folder / "index.html").read_text(encoding="utf-8")
    style, atlas = _atlas_section(folder)
    hand = _hand_section(folder)
    links = {}
    if atlas:
        links["atlas.html"] = "#atlas-page"
    if hand:
        links["hand/index.html"] = "#hand-evaluator"
    page = _inline_files(index, folder, links)
    extra = "".join(
        f"<li><a href='{anchor}'>{title}</a></li>"
        for anchor, title, there in (
            ("#atlas-page", "The atlas by holding (embedded page)", atlas),
            ("#hand-evaluator", "The hand evaluator (embedded page)", hand),
        )
        if there
    )
    page = page.replace("</ol></nav>", f"{extra}</ol></nav>", 1)
    if style:
        page = page.replace("</style>", f"\n{style}\n</style>", 1)
    page = page.replace("</body>", f"{atlas}{hand}</body>")
    left = local_references(page)
    if left:
        raise ValueError(f"the report links to {html.escape(left[0])}, which cannot be embedded")
    return page
