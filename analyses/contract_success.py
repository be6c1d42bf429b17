"""How often is each contract made, by strain, doubling and the taker's position?

Question: under the common rules, threshold bidding and greedy play, what share of
contracts does the taker's team make, and how does it depend on the strain, the
doubling and the taker's position, and (suit contracts) on the trump jack, nine, ace
and the number of trumps?
Seed 101, 1,000,000 deals.  Writes analyses/output/contract_success_*.csv and a PNG.
"""

from pathlib import Path

from belote_sim.analysis import plots
from belote_sim.analysis import report_tables as reports
from belote_sim.simulation.runner import simulate

SEED = 101
N_DEALS = 1_000_000
OUT = Path(__file__).parent / "output"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    deals = simulate(N_DEALS, rules="common", bidding="threshold", play="greedy", seed=SEED)
    by_contract = reports.success_rates(deals)
    by_trump = reports.success_by_trump(deals)
    by_contract.to_csv(OUT / "contract_success_by_contract.csv", index=False)
    by_trump.to_csv(OUT / "contract_success_by_trump.csv", index=False)
    ax = plots.success_vs_feature(by_trump, "n_trumps", by="trump_j")
    ax.figure.savefig(OUT / "contract_success_by_trumps.png", dpi=110)
    print(reports.success_rates(deals, ["strain"]).to_string(index=False))


if __name__ == "__main__":
    main()
