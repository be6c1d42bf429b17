"""How rare is each declaration, and does the simulator deal them exactly as often as
combinatorics says?

Question: per 5-card bidding hand, per 8-card hand and per team, how often are runs
(longest run 3, 4, 5+), each carré and K+Q of a suit held?  Each simulated frequency
is shown beside its exact probability (belote_sim.analysis.exact) with a z-score.
Seed 202, 1,000,000 deals.  Writes analyses/output/declaration_frequencies.csv and PNGs.
"""

from pathlib import Path

from belote_sim.analysis import plots
from belote_sim.analysis import report_tables as reports
from belote_sim.simulation.runner import simulate

SEED = 202
N_DEALS = 1_000_000
OUT = Path(__file__).parent / "output"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    deals = simulate(N_DEALS, play="random", seed=SEED)
    table = reports.declaration_frequencies(deals)
    table.to_csv(OUT / "declaration_frequencies.csv", index=False)
    for scope in ("hand5", "hand8", "team"):
        ax = plots.declaration_frequencies(table, scope)
        ax.figure.savefig(OUT / f"declaration_frequencies_{scope}.png", dpi=110)
    print(table[["scope", "event", "rate", "exact", "z"]].to_string(index=False))


if __name__ == "__main__":
    main()
