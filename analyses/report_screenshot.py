"""A picture of the HTML report for the manual (docs/guide/report.md), in headless Chromium.

Question: what does a player get from ``belote-sim main``?  Seed: 2026, as ``belote-sim
main``.  Simulates the default study as ``belote-sim main`` does (common rules, atlas
bidding, the default play ``expert:0``), writes the report and photographs its top
(summary, headline rates, contents, first sections) with headless Chromium (Debian
package ``chromium``), then shrinks it to a PNG under 500 KB in docs/report.png.
20,000 deals by default (``belote-sim main --deals 20000``; under a minute once the
kernels are compiled).  Options: --deals N, --height PX, --out FILE, --keep DIR (keep
the report there).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from belote_sim.analysis.html_report import write_report
from belote_sim.simulation.runner import make_study, simulate_to_parquet

SEED = 2026
ROOT = Path(__file__).resolve().parent.parent


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no Chromium found: apt-get install -y chromium")


def screenshot(index: Path, png: Path, width: int = 1100, height: int = 2400) -> None:
    """Photograph ``index`` (a local HTML file) at ``width`` x ``height`` CSS pixels."""
    subprocess.run(
        [
            browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            index.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


def shrink(png: Path, limit: int = 500_000) -> None:
    """Re-save ``png`` with fewer colours until it is under ``limit`` bytes."""
    from PIL import Image

    image = Image.open(png).convert("RGB")
    for colours in (256, 128, 64, 32):
        image.quantize(colours, method=Image.Quantize.MEDIANCUT).save(png, optimize=True)
        if png.stat().st_size < limit:
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--height", type=int, default=2400)
    parser.add_argument("--out", default=str(ROOT / "docs" / "report.png"))
    parser.add_argument("--keep", help="keep the report in this directory")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    table = work / "deals.parquet"
    # the study of `belote-sim main` (cli/study_commands.cmd_main)
    simulate_to_parquet(str(table), args.deals, make_study("common", "atlas", None, seed=SEED))
    index = write_report(
        str(table), work / "report", title=f"belote-sim default study ({args.deals:,} deals)"
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    screenshot(index, out, height=args.height)
    shrink(out)
    print(f"wrote {out} ({out.stat().st_size / 1000:.0f} KB) from {index}")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
