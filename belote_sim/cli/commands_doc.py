"""The command list shown by ``belote-sim --help`` (and the package docstring)."""

__all__ = ["COMMANDS"]

COMMANDS = """belote-sim command line.

Commands:

    belote-sim simulate --deals N [-o deals.parquet] ...   simulate deals (or --games N)
    belote-sim export-replay deals.parquet --rows A:B     rows as replay records
    belote-sim replay IN.jsonl [-o OUT.jsonl]             replay records (JSON lines)
    belote-sim perft FILE.perft [--max-nodes N]           check a perft suite
    belote-sim report deals.parquet [-o reports/]         HTML report
    belote-sim dataset rebuild-manifest DIR               a dataset's lost manifest
    belote-sim dataset verify DIR                         a dataset's parts and checksums
    belote-sim hand "JH 9H AH TS 7C" [--position P]       one hand per strain, the best call
    belote-sim study bidding --param suit --values 40,50  bidding threshold sweep
    belote-sim study systems threshold atlas [...]        bidding systems, where they differ
    belote-sim solve "<4 hands>" --strain H --leader 0     double-dummy value and card scores
    belote-sim solve --records IN.jsonl                   the same for replay records
    belote-sim duel --a pimc --b greedy --deals N         compare two play policies
    belote-sim duel --bid-a atlas --bid-b threshold       compare two bidding policies
    belote-sim atlas build -o atlas.npz | atlas show      the hand atlas
    belote-sim atlas show "JC TD AD AH 9S" --position 1   one hand from the atlas
    belote-sim atlas page -o DIR                          the hand evaluator (a web page)
    belote-sim engine                                     play a seat for another program
    belote-sim main [-o DIR]                              the default study and report

Outputs are crash-safe: a file under the output name is always complete; Ctrl-C or
SIGTERM keeps the finished chunks and says how to resume (docs/guide/simulate.md,
"Interrupted runs").
"""
