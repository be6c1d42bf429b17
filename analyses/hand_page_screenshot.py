"""A picture of the hand evaluator page for the manual (docs/guide/hand-and-atlas.md),
taken with headless Chromium.

Question: what does a player see when they open ``belote-sim atlas page``?  Writes the
page for the shipped atlases into a temporary directory, opens it on the guide's hand
(``JH 9H AH TS 7C`` at position 1) and photographs it with headless Chromium (Debian
package ``chromium``), then shrinks it to a PNG under 500 KB in docs/hand_page.png.
Seed: none (no simulation: the page shows the shipped atlases as they are).
Options: --width PX (1400; 400 for a phone), --height PX, --hand, --position, --out.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from report_screenshot import browser, shrink

from belote_sim.analysis.hand_page import write_hand_page

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=815)
    parser.add_argument("--hand", default="JH 9H AH TS 7C")
    parser.add_argument("--position", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "docs" / "hand_page.png"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    try:
        index = write_hand_page(work / "page")
        url = f"{index.as_uri()}#cards={','.join(args.hand.split())}&position={args.position}"
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                browser(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                # the page inflates its data asynchronously: let it finish first
                "--virtual-time-budget=20000",
                f"--window-size={args.width},{args.height}",
                f"--screenshot={out.resolve()}",
                url,
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )
        shrink(out)
        print(f"wrote {out} ({out.stat().st_size / 1000:.0f} KB)")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
