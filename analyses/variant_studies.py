"""One small study per game variant.

Question: with greedy players and the default bidding thresholds, how often is each
contract bid and made in the 4-player game, the 3-player game, the 2-player game and
open belot, and how often do runs and carrés appear in each game's hands? And in the
4-player game, how much more often do runs and carrés appear when the deck is only cut
between deals (RULES.md section 3) instead of shuffled?
Seed 707, 200,000 deals per game; 3,000 games each for the shuffled and the cut deck.
Writes analyses/output/variant_contracts.csv, variant_declarations.csv and
cut_vs_shuffle.csv.
"""

from pathlib import Path

import pandas as pd

from belote_sim.analysis.report_tables import declaration_frequencies, success_rates
from belote_sim.simulation.runner import simulate, simulate_games

SEED = 707
N_DEALS = 200_000
N_GAMES = 3_000
GAMES = {
    "4 players (bulgarian)": {},
    "3 players": {"players": 3},
    "2 players": {"players": 2},
    "open belot": {"variant": "open"},
}
OUT = Path(__file__).parent / "output"


def contracts_and_declarations() -> tuple[pd.DataFrame, pd.DataFrame]:
    contracts, declarations = [], []
    for game, options in GAMES.items():
        df = simulate(N_DEALS, "bulgarian", options=options, seed=SEED)
        played = df[df["outcome"] != "thrown_in"]
        table = success_rates(df, ["strain"])
        table.insert(0, "game", game)
        table["share_of_deals"] = table["n"] / len(df)
        table["thrown_in"] = 1 - len(played) / len(df)
        contracts.append(table)
        decl = declaration_frequencies(df)
        decl.insert(0, "game", game)
        declarations.append(decl)
    return pd.concat(contracts, ignore_index=True), pd.concat(declarations, ignore_index=True)


def cut_vs_shuffle() -> pd.DataFrame:
    rows = []
    for dealing in ("shuffle", "cut"):
        _, deals = simulate_games(
            N_GAMES, "common", options={"dealing": dealing}, seed=SEED, deal_log=True
        )
        decl = declaration_frequencies(deals)
        part = decl[decl["scope"] == "hand8"][["event", "rate", "exact"]]
        part.insert(0, "dealing", dealing)
        part["deals"] = len(deals)
        rows.append(part)
    table = pd.concat(rows, ignore_index=True)
    wide = table.pivot(index="event", columns="dealing", values="rate")
    wide["cut / shuffle"] = wide["cut"] / wide["shuffle"]
    return wide.reset_index()


def main() -> None:
    OUT.mkdir(exist_ok=True)
    contracts, declarations = contracts_and_declarations()
    contracts.to_csv(OUT / "variant_contracts.csv", index=False)
    declarations.to_csv(OUT / "variant_declarations.csv", index=False)
    cut = cut_vs_shuffle()
    cut.to_csv(OUT / "cut_vs_shuffle.csv", index=False)
    pd.set_option("display.width", 160)
    print(
        contracts[
            ["game", "strain", "n", "share_of_deals", "rate", "low", "high", "thrown_in"]
        ].to_string(index=False, float_format=lambda v: f"{v:.3f}")
    )
    hand = declarations[declarations["scope"].isin(["hand8", "hand9", "hand12"])]
    print(
        hand[["game", "scope", "event", "rate", "exact", "z"]].to_string(
            index=False, float_format=lambda v: f"{v:.4f}"
        )
    )
    print(cut.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
