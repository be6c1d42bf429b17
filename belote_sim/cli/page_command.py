"""``belote-sim atlas page``: the hand evaluator, a static page for a browser."""

from __future__ import annotations

import argparse
import time

__all__ = ["PAGE_LIMIT", "cmd_atlas_page"]

#: What the page and its data may weigh: 8 MB in binary units (8 MiB, 8,388,608
#: bytes; issue 25): the page with both shipped atlases weighs 8.04 million bytes.
PAGE_LIMIT = 8 * 2**20


def cmd_atlas_page(args: argparse.Namespace) -> int:
    """Write the hand evaluator into ``-o DIR`` (default ``hand_page``)."""
    from belote_sim.analysis.hand_page import page_size, shipped_atlases, write_hand_page

    start = time.perf_counter()
    atlases = args.atlas or shipped_atlases()
    index = write_hand_page(args.output or "hand_page", atlases)
    size = page_size(index.parent)
    print(
        f"wrote {index} ({size / 1e6:.1f} MB with its data, {len(atlases)} atlas"
        f"{'es' if len(atlases) != 1 else ''}: {', '.join(str(a) for a in atlases)}) "
        f"in {time.perf_counter() - start:.1f} s; open it in a browser, no server needed"
    )
    if size > PAGE_LIMIT:
        print(f"note: over {PAGE_LIMIT / 2**20:.0f} MiB; fewer atlases (--atlas) make it lighter")
    return 0
