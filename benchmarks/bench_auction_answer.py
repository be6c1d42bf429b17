"""How fast a hand's answer in an auction is (``belote-sim hand --auction``), printed as
one JSON object.

* ``auction_answer_s``: seconds of ``answer_in_auction`` with ``--deals`` (default
  20,000) consistent deals per call, warm (the kernels compiled and the atlases loaded
  by a first run, left out), best of ``--repeat`` runs;
* ``acceptance``: the share of tried deals consistent with the auction, ``tried`` and
  ``calls`` (the legal calls answered, each on all the deals);
* ``deals_played``: (deal, contract) pairs played (a pair shared by several calls is
  played once).

The default question is a hand at position 3 after ``pass, hearts`` (an opponent
opened hearts), the other seats bidding by ``atlas_auction``, expert:0 play: about 6%
of the deals are consistent with it.

    python benchmarks/bench_auction_answer.py [--hand CARDS] [--auction CALLS]
        [--deals N] [--play SPEC] [--threads N] [--repeat K]
"""

import argparse
import json
import time

from belote_sim.auction_answer import answer_in_auction


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hand", default="JS 9S AC TC 7D")
    parser.add_argument("--auction", default="pH")
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--play", default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    def run():
        return answer_in_auction(
            args.hand, args.auction, play=args.play, deals=args.deals, threads=args.threads
        )

    start = time.perf_counter()
    answer = run()  # compiles (or loads) the kernels, loads the atlas and auction table
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        answer = run()
        best = min(best, time.perf_counter() - start)
    print(
        json.dumps(
            {
                "hand": answer.hand,
                "auction": answer.auction,
                "position": answer.position,
                "others": answer.others,
                "play": answer.play,
                "deals_per_call": args.deals,
                "calls": len(answer.table),
                "tried": answer.tried,
                "acceptance": round(answer.acceptance, 4),
                "first_run_s": round(first, 2),
                "auction_answer_s": round(best, 3),
                "deals_played": answer.plays,
            }
        )
    )


if __name__ == "__main__":
    main()
