"""How strong is a given bidding hand in each strain?

Question: for a few typical 5-card bidding hands of the first speaker (seat 0,
dealer 3), what are P(made), the taker's mean raw points and mean MP when the hand
takes each strain (common rules, greedy play, the other 27 cards dealt uniformly)?
Then: a P(made) model fitted on simulated auctions, with its calibration by decile.
Seed 303, 20,000 deals per hand and strain; 500,000 deals for the model.
Writes analyses/output/hand_strength_*.csv.
"""

from pathlib import Path

import pandas as pd

from belote_sim.analysis.strength import fit_strength, hand_strength
from belote_sim.simulation.runner import simulate

SEED = 303
N_DEALS = 20_000
HANDS = ["JH 9H AH TS 7C", "JH 9H 7H 8H AS", "JC JD JH AS TS", "AC AD AH TC KS", "JH QH 7H AC 8D"]
OUT = Path(__file__).parent / "output"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    tables = []
    for hand in HANDS:
        t = hand_strength(hand, seat=0, dealer=3, deals=N_DEALS, seed=SEED)
        t.insert(0, "hand", hand)
        tables.append(t)
    table = pd.concat(tables, ignore_index=True)
    table.to_csv(OUT / "hand_strength_table.csv", index=False)
    print(table[["hand", "strain", "p_made", "mean_raw", "mean_mp"]].to_string(index=False))
    train = simulate(400_000, seed=SEED)
    test = simulate(100_000, seed=SEED + 1)
    model = fit_strength(train)
    model.calibration(test).to_csv(OUT / "hand_strength_calibration.csv", index=False)
    model.coefficients().to_csv(OUT / "hand_strength_coefficients.csv")
    print(model.calibration(test).to_string(index=False))


if __name__ == "__main__":
    main()
