"""``belote-sim atlas page``: the hand evaluator, a static page for a browser."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

__all__ = ["PAGE_LIMIT", "cmd_atlas_page"]

#: What the page and its data may weigh: 8 MB in binary units (8 MiB, 8,388,608
#: bytes; issue 25): the page with both shipped atlases weighs 8.04 million bytes.
PAGE_LIMIT = 8 * 2**20


def cmd_atlas_page(args: argparse.Namespace) -> int:
    """Write the hand evaluator into ``-o DIR`` (default ``hand_page``)."""
    from belote_sim.analysis.hand_page import page_size, shipped_atlases, write_hand_page
    from belote_sim.simulation.output import Output

    start = time.perf_counter()
    atlases = args.atlas or shipped_atlases()
    output = args.output or "hand_page"
    with Output(
        output,
        what="the page",
        folder=True,
        overwrite=args.overwrite,
        replaceable=_foreign_files,
    ) as out:
        write_hand_page(out.tmp, atlases)
        size = page_size(out.tmp)
        out.commit()
    index = Path(output) / "index.html"
    print(
        f"wrote {index} ({size / 1e6:.1f} MB with its data, {len(atlases)} atlas"
        f"{'es' if len(atlases) != 1 else ''}: {', '.join(str(a) for a in atlases)}) "
        f"in {time.perf_counter() - start:.1f} s; open it in a browser, no server needed"
    )
    if size > PAGE_LIMIT:
        print(f"note: over {PAGE_LIMIT / 2**20:.0f} MiB; fewer atlases (--atlas) make it lighter")
    return 0


def _foreign_files(path: str) -> str | None:
    """Why the folder ``path`` may not be replaced by the page: it holds files the page
    does not write (a user's own), or None."""
    from belote_sim.analysis.hand_page import PAGE_FILES

    foreign = sorted(set(os.listdir(path)) - set(PAGE_FILES))
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        return f"it holds files the page does not write ({shown}); choose another directory"
    return None
