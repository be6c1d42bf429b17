"""Which suit-bidding threshold scores most?

Question: one team bids suit contracts when its 5-card score reaches a threshold; the
other keeps the default thresholds.  For each threshold, what net MP per deal does it
gain over the default on mirrored deals (each deal played with the teams swapped, so
the default scores exactly 0), and what is its mirrored game win rate?
Seed 404, 200,000 deals and 2,000 games per setting.
Writes analyses/output/bidding_sweep.csv and bidding_sweep.png.
"""

from pathlib import Path

from belote_sim.analysis import plots
from belote_sim.analysis.comparisons import bidding_sweep

SEED = 404
N_DEALS = 200_000
N_GAMES = 2_000
VALUES = [40, 44, 48, 52, 56, 60, 64, 68]
OUT = Path(__file__).parent / "output"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    table = bidding_sweep("suit", VALUES, deals=N_DEALS, games=N_GAMES, seed=SEED)
    table.to_csv(OUT / "bidding_sweep.csv", index=False)
    plots.sweep_curve(table).figure.savefig(OUT / "bidding_sweep.png", dpi=200)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
