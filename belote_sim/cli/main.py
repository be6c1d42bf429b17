"""The parser of the ``belote-sim`` command and its entry point."""

from __future__ import annotations

import argparse
import sys
from typing import TypeAlias

from belote_sim._version import __version__
from belote_sim.cli.analysis_commands import cmd_atlas, cmd_duel, cmd_study
from belote_sim.cli.commands_doc import COMMANDS
from belote_sim.cli.common import (
    DefaultsFormatter,
    Terminated,
    at_least_2,
    check_int_options,
    one_line,
    show_compile_notices,
)
from belote_sim.cli.deal_commands import cmd_perft, cmd_replay, cmd_solve
from belote_sim.cli.engine_command import cmd_engine
from belote_sim.cli.hand_commands import cmd_hand
from belote_sim.cli.study_commands import (
    cmd_dataset,
    cmd_export,
    cmd_main,
    cmd_report,
    cmd_simulate,
)
from belote_sim.cli.systems_command import add_systems_arguments, cmd_study_systems
from belote_sim.policy_help import (
    DEFAULT_PLAY,
    PLAY_USAGE,
    SOLO_DEFAULT_PLAY,
    THRESHOLD_DEFAULTS,
    THRESHOLD_PARAMS,
    THRESHOLD_SCORE_FORMULA,
)

__all__ = ["build_parser", "main"]

#: what ``ArgumentParser.add_subparsers`` returns (typeshed's name for it)
_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``belote-sim``: one ``_add_*`` function per command, in the order
    ``--help`` lists them."""
    parser = argparse.ArgumentParser(
        prog="belote-sim",
        description=COMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"belote-sim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (
        _add_replay,
        _add_perft,
        _add_simulate,
        _add_export_replay,
        _add_report,
        _add_dataset,
        _add_hand,
        _add_atlas,
        _add_study,
        _add_solve,
        _add_duel,
        _add_engine,
        _add_main,
    ):
        add(sub)
    _defaults_everywhere(parser)
    return parser


def _defaults_everywhere(parser: argparse.ArgumentParser) -> None:
    """Every command's help shows each option's default (``DefaultsFormatter``), unless
    it formats its page another way on purpose."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for p in action.choices.values():
                if p.formatter_class is argparse.HelpFormatter:
                    p.formatter_class = DefaultsFormatter
                _defaults_everywhere(p)


def _add_replay(sub: _Subparsers) -> None:
    p = sub.add_parser("replay", help="replay recorded deals (JSON lines)")
    p.add_argument("input", help="input JSON-lines file, or - for standard input")
    p.add_argument("-o", "--output", help="output JSON-lines file (default: standard output)")
    p.set_defaults(func=cmd_replay)


def _add_perft(sub: _Subparsers) -> None:
    p = sub.add_parser("perft", help="check the legal-sequence counts of a .perft file")
    p.add_argument("file", help="the .perft file (positions and their expected counts)")
    p.add_argument(
        "--max-nodes", type=int, default=10**8, help="skip counts above this many sequences"
    )
    p.set_defaults(func=cmd_perft)


def _add_simulate(sub: _Subparsers) -> None:
    p = sub.add_parser("simulate", help="simulate deals (or whole games) to a Parquet table")
    p.add_argument("--deals", type=int, default=100_000, help="number of deals")
    p.add_argument("--games", type=int, default=0, help="play N whole games instead")
    p.add_argument("--max-deals", type=int, default=200, help="game mode: deals per game cap")
    _add_rules_options(p)
    _add_policy_options(p)
    _add_deal_options(p)
    _add_run_options(p)
    p.set_defaults(func=cmd_simulate)


def _add_rules_options(p: argparse.ArgumentParser) -> None:
    """simulate: the ruleset and its options, the game (players, variant)."""
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="rule option override, e.g. --option kirtik=true (repeatable)",
    )
    p.add_argument(
        "--dealing",
        choices=("shuffle", "cut"),
        help="shorthand for --option dealing=... (default: the ruleset's, shuffle)",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        help="2 or 3: the games where every player is alone (24-card deck, "
        "take-or-pass bidding; docs/rules.md section 11; default: 4)",
    )
    p.add_argument(
        "--variant",
        choices=("standard", "open"),
        help="open: open belot (2 players, 32 cards, table piles; default: standard)",
    )


def _add_policy_options(p: argparse.ArgumentParser) -> None:
    """simulate: the bidding and play policies, for everyone or per seat."""
    p.add_argument(
        "--bid",
        default=None,
        help="bidding policy: threshold[:suit,nt,at,double,"
        "redouble], fixed:SEAT,STRAIN,DOUBLING (strain 0..5 = C D H S NT AT), take, "
        "atlas[:PATH] (expected net MP from the hand atlas), rules:FILE (a bidding "
        "system as a TOML rule file, docs/bidding_rules.md), py:MODULE:FUNCTION (a "
        "Python function; MODULE importable from here, or a path to a .py file); "
        "default threshold (take under the french rules)",
    )
    p.add_argument(
        "--bid-seat",
        action="append",
        metavar="SEAT:POLICY",
        help="one seat's bidding policy, e.g. 2:threshold:55 (repeatable; default: --bid)",
    )
    p.add_argument(
        "--play",
        default=None,
        help=f"play policy (default {DEFAULT_PLAY}; {SOLO_DEFAULT_PLAY} in the 2/3-player games "
        f"and open belot): {PLAY_USAGE}; expert is the strong one: the default "
        "expert:0 is its card network alone, about 70 times as fast as expert with its "
        "4-trick endgame search (docs/benchmarks.md); see docs/guide/players-and-duels.md "
        "'The expert player'",
    )
    p.add_argument(
        "--play-seat",
        action="append",
        metavar="SEAT:POLICY",
        help="one seat's play policy, e.g. 1:random (repeatable; default: --play)",
    )


def _add_deal_options(p: argparse.ArgumentParser) -> None:
    """simulate: what is dealt (predeal, constraints, dealer), belote announcing, the seed."""
    p.add_argument(
        "--predeal",
        action="append",
        metavar="SEAT:CARDS",
        help='cards fixed in a hand, e.g. --predeal "0:JH 9H AH TS 7C"',
    )
    p.add_argument(
        "--constraint",
        action="append",
        metavar="SEAT:SPEC",
        help='e.g. --constraint "1:min_H=3,max_S=2,strength=20-60,exclude=AS"',
    )
    p.add_argument("--dealer", type=int, choices=range(4), help="fixed dealer (default: rotate)")
    p.add_argument(
        "--belote-silent",
        metavar="SEATS",
        help="seats that do not announce a "
        "belote, e.g. 1,3 (default: everyone announces everything)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (same seed, same deals)")


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """simulate: threads, chunks, the trick log, progress, dask, the output."""
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    p.add_argument(
        "--chunk-size", type=int, default=1 << 16, help="deals per chunk (the unit of a resume)"
    )
    p.add_argument("--trick-log", action="store_true", help="keep every card played")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:8786",
        help="run the chunks on this dask.distributed scheduler (-o is then a "
        "dataset directory: part files + manifest; rerunning resumes; default: none, run "
        "here)",
    )
    p.add_argument(
        "--workers", type=int, help="start a local dask cluster of N workers (default: none)"
    )
    p.add_argument(
        "-o",
        "--output",
        help="output Parquet file (default deals.parquet), or directory with --scheduler/--workers",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing output (kept until the new one is complete) and "
        "discard an interrupted run's partial file of another study (one of this study "
        "is resumed: it holds what a fresh run would compute)",
    )


def _add_export_replay(sub: _Subparsers) -> None:
    p = sub.add_parser("export-replay", help="rows of a deals table as replay records")
    p.add_argument("table", help="the deals table (Parquet file)")
    p.add_argument("--rows", default="0:10", help="A:B (0-based, B excluded)")
    p.add_argument("-o", "--output", help="output JSON-lines file (default: standard output)")
    _add_overwrite(p, "an existing output file")
    p.add_argument(
        "--allow-incomplete", action="store_true", help="read an interrupted run's table too"
    )
    _add_no_verify(p)
    p.set_defaults(func=cmd_export)


def _add_overwrite(p: argparse.ArgumentParser, what: str) -> None:
    """--overwrite of a command that writes an output (docs/guide/simulate.md: "Writing files")."""
    p.add_argument(
        "--overwrite",
        action="store_true",
        help=f"replace {what} (it is kept until the new one is complete)",
    )


def _add_no_verify(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="skip checking the table's bytes against its checksum (one read of the "
        "file or of every dataset part; see docs/guide/simulate.md 'Checksums')",
    )


def _add_report(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "report",
        help="HTML report of a deals table",
        description="HTML report of a deals table: summary, contents, one "
        "section per question with figures and tables; CSVs in tables/.",
        formatter_class=DefaultsFormatter,
    )
    p.add_argument("table", help="deals Parquet file or dataset directory (belote-sim simulate)")
    p.add_argument("-o", "--output", default="reports", help="output directory")
    p.add_argument("--title", default="belote-sim report", help="title of the report")
    p.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="report an interrupted "
        "run or unfinished dataset too (title: 'incomplete: k of n chunks')",
    )
    p.add_argument("--svg", action="store_true", help="figures as SVG (vector) instead of PNG")
    p.add_argument(
        "--single-file",
        action="store_true",
        help="write one self-contained HTML file (figures and tables embedded, the atlas "
        "page and the hand evaluator as sections) at OUTPUT, '.html' added if missing",
    )
    _add_overwrite(p, "an existing report in the output directory")
    _add_no_verify(p)
    p.set_defaults(func=cmd_report)


def _add_dataset(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "dataset",
        help="dataset directories: rebuild-manifest, verify",
        description="A dataset directory (the Parquet part files and manifest that "
        "'simulate --workers/--scheduler' writes).  'belote-sim dataset ACTION --help' "
        "explains each action.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", help="what to do")
    where = "dataset directory (simulate --workers/--scheduler)"
    r = actions.add_parser(
        "rebuild-manifest",
        help="rebuild a lost or unreadable manifest from the part files",
        description="Rebuild the manifest of a dataset directory from its intact part "
        "files (each read whole, which checks it); parts that cannot be read are skipped "
        "and named.  A directory whose manifest is readable is refused unless --force.",
    )
    r.add_argument("dir", help=where)
    r.add_argument("--force", action="store_true", help="rebuild a readable manifest too")
    r.set_defaults(func=cmd_dataset)
    v = actions.add_parser(
        "verify",
        help="check every part file against the manifest's checksums",
        description="Check a dataset directory: every chunk of its manifest is there and "
        "every part file's checksum matches.  Prints each problem, one a line; status 0 "
        "when the dataset is complete and intact, 1 when not.",
    )
    v.add_argument("dir", help=where)
    v.set_defaults(func=cmd_dataset, force=False)


def _add_hand(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "hand",
        help="one hand per strain: P(made), net MP, the best call (atlas or simulation)",
        description="How strong one hand is in each strain when its seat takes, and "
        "the best call: pass unless a strain's net MP x1 is above 0 (then the best "
        "strain), and whether bid-or-pass is within noise (|net x1| < 1.96 s.e.).  "
        "Answered from the hand atlas when it covers the hand (5 bidding cards), the "
        "rules, the play policy and the position, and no --deals or --seed is given "
        "(its cells have their own); else by simulation: the hand is predealt, each "
        "strain forced (that seat takes, undoubled) on the same deals and scored at "
        "x1, x2, x4.  Both paths print the same table; a line says which path "
        "answered and why.  With --auction: every legal call of the hand now, in the "
        "middle of that auction, on deals consistent with it under the --others model "
        "(docs/guide/hand-and-atlas.md).",
        formatter_class=DefaultsFormatter,
    )
    p.add_argument("cards", help='5 bidding cards or 8 cards, e.g. "JH 9H AH TS 7C"')
    p.add_argument(
        "--seat",
        type=int,
        choices=range(4),
        help="seat holding the hand (and taking); default 0",
    )
    p.add_argument(
        "--dealer",
        type=int,
        choices=range(4),
        help="dealer seat (seat dealer+1 speaks first and leads); default 3",
    )
    p.add_argument(
        "--position",
        type=int,
        choices=range(1, 5),
        help="1 (first after the dealer, leads) .. 4 (dealer): instead of --seat/--dealer "
        "(default: from --seat and --dealer)",
    )
    p.add_argument(
        "--deals",
        type=at_least_2,
        help="simulate this many deals per strain (the same deals for every strain); "
        "default 20,000 when simulating (with --auction: the consistent deals kept, the "
        "same for every call)",
    )
    p.add_argument("--seed", type=int, help="simulate with this seed of the deals; default 0")
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help="rule option override (repeatable)"
    )
    p.add_argument(
        "--play",
        default=None,
        help=f"play policy of all four seats (default {DEFAULT_PLAY}): {PLAY_USAGE}",
    )
    p.add_argument(
        "--simulate",
        action="store_true",
        help="simulate even when the atlas covers the hand, rules and play policy",
    )
    p.add_argument(
        "--auction",
        metavar="CALLS",
        help="the calls made so far, before this seat speaks: letters as in the deals "
        "table ('pHx': p pass, C D H S N A a bid, x double, r redouble, t third double) "
        "or words ('pass, hearts, double'); '' or '-' for none.  Answers every legal call "
        "now (net MP of this seat's team ± s.e., P(made)) on deals consistent with the "
        "calls under the --others model; --position defaults to the seat whose turn it is",
    )
    p.add_argument(
        "--others",
        metavar="POLICY",
        help="with --auction: the bidding policy of the other seats, which also continues "
        "the auction after this seat's call (default atlas_auction; any bidding policy, "
        "rules:FILE and py:MODULE:FUNCTION included)",
    )
    p.add_argument(
        "--atlas", metavar="PATH", help="the atlas file to answer from (default: the shipped one)"
    )
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="numba threads when simulating (default: all); the same answer for any number",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list, one object per strain: strain, n, p_made, p_made_low, "
        "p_made_high, net_mp_x1, net_mp_x1_se, net_mp_x2, net_mp_x2_se, net_mp_x4, "
        "net_mp_x4_se, vs_best, vs_best_se (null: none), source (atlas or simulation), "
        "and on every row best_call, within_noise, bid_clear, runner_up, strain_margin, "
        "strain_margin_se, strain_paired, strain_clear, reason, position, play (with "
        "--auction: one object per call, docs/guide/hand-and-atlas.md)",
    )
    p.set_defaults(func=cmd_hand)


def _add_atlas(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "atlas",
        help="the hand atlas: build one, show one (a hand, a summary, every cell), or "
        "write the hand evaluator page",
        description="The hand atlas (docs/atlas.md): P(made) and net MP of every 5-card "
        "bidding hand class, strain kind and position.  'belote-sim atlas ACTION --help' "
        "explains each action.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", help="what to do")
    _add_atlas_build(actions)
    _add_atlas_show(actions)
    _add_atlas_page(actions)


def _add_atlas_build(actions: _Subparsers) -> None:
    p = actions.add_parser(
        "build",
        help="measure every cell by simulation",
        description="Measure every (hand class, strain kind, position) cell of the hand "
        "atlas by simulation, until each cell's P(made) has the target s.e. (and a cell "
        "whose net MP x1 has no settled sign its net target), in rounds of topping up.",
    )
    p.add_argument("-o", "--output", default="atlas.npz", help="the atlas file to write")
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help="rule option (repeatable)"
    )
    p.add_argument(
        "--play",
        default=None,
        help=f"play policy of all four seats (default {DEFAULT_PLAY}): {PLAY_USAGE}",
    )
    p.add_argument("--seed", type=int, default=2026, help="seed of the deals")
    p.add_argument("--se", type=float, default=0.02, help="target s.e. of P(made) per cell")
    p.add_argument("--first-deals", type=int, default=200, help="deals a cell starts with")
    p.add_argument("--max-deals", type=int, default=1000, help="most deals a cell gets")
    p.add_argument(
        "--net-se",
        type=float,
        default=0.25,
        help="where a cell's net MP x1 has no settled sign (|mean| < 2 s.e.), top it "
        "up to this s.e. (MP; default 0.25) ...",
    )
    p.add_argument(
        "--net-max-deals",
        type=int,
        default=5000,
        help="... with at most this many deals a cell (default 5000)",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=16,
        help="most rounds of topping up the cells that need more deals",
    )
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    p.add_argument(
        "--workers", type=int, help="start a local dask cluster of N workers (default: none)"
    )
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:8786",
        help="dask.distributed scheduler (default: none, run here)",
    )
    p.add_argument(
        "--work-dir",
        help="keep every chunk here, rerunning resumes (default: .OUTPUT.chunks beside the "
        "output, deleted once the atlas is written)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_overwrite(p, "an existing atlas file")
    p.set_defaults(func=cmd_atlas)


def _add_atlas_show(actions: _Subparsers) -> None:
    p = actions.add_parser(
        "show",
        help="one hand's table, or the atlas's metadata and summary (every cell: --csv, --parquet)",
        description="atlas show: the atlas's metadata and a summary per kind and "
        "position; atlas show CARDS: one hand's table (as 'belote-sim hand'); --csv and "
        "--parquet write every cell, suit classes shown with clubs as trump "
        "(docs/atlas.md).",
    )
    p.add_argument(
        "cards",
        nargs="?",
        help='a 5-card bidding hand to answer, e.g. "JC TD AD AH 9S" (default: none, the summary)',
    )
    p.add_argument("-o", "--output", help="the atlas file to read (default: the shipped atlas)")
    p.add_argument(
        "--position",
        type=int,
        choices=range(1, 5),
        help="CARDS: only this position, 1 (first after the dealer, leads) .. 4 "
        "(dealer); default all four",
    )
    p.add_argument(
        "--strain", help="CARDS: only this strain's row (C D H S NT AT; default: every strain)"
    )
    p.add_argument(
        "--ruleset",
        default=None,
        help="CARDS: must be the atlas's (default: the atlas's)",
    )
    p.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="CARDS: rule option, must be the atlas's (repeatable)",
    )
    p.add_argument("--play", default=None, help="CARDS: must be the atlas's (default: the atlas's)")
    p.add_argument(
        "--csv",
        help="write every measured cell to this CSV: one row per cell (239,680 "
        "and ~130 MB for a full atlas), suit hands shown with clubs as trump (default: "
        "none)",
    )
    p.add_argument(
        "--parquet",
        metavar="FILE",
        help="write every measured cell to this Parquet file: kind (suit, NT, "
        "AT), position (1-4), hand (the class's canonical hand; suit classes with "
        "clubs as trump), key, multiplicity, n, p_made, net_mp_x1, net_mp_x1_se, "
        "net_mp_x2, net_mp_x4 and the other statistics (default: none)",
    )
    _add_overwrite(p, "an existing CSV or Parquet file")
    p.set_defaults(func=cmd_atlas)


def _add_atlas_page(actions: _Subparsers) -> None:
    p = actions.add_parser(
        "page",
        help="write the hand evaluator, a static web page",
        description="Write the hand evaluator: a static page that answers any 5-card "
        "hand from the shipped atlases in a browser, offline (open DIR/index.html).",
    )
    p.add_argument(
        "-o",
        "--output",
        default="hand_page",
        help="the directory to write (its parent folder must exist)",
    )
    p.add_argument(
        "--atlas",
        action="append",
        metavar="FILE",
        help="an atlas file to offer (repeatable; default: every shipped atlas, "
        "belote_sim/data/atlas_*.npz)",
    )
    _add_overwrite(p, "an existing page in the directory")
    p.set_defaults(func=cmd_atlas)


def _threshold_defaults() -> str:
    """``suit 50, nt 52, ...``: the ``threshold`` bidding policy's default parameters."""
    return ", ".join(f"{n} {v:g}" for n, v in zip(THRESHOLD_PARAMS, THRESHOLD_DEFAULTS))


def _add_study(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "study",
        help="studies: 'study bidding' sweeps a bidding threshold, 'study systems' "
        "plays bidding systems against each other",
        description="Studies on mirrored deals.  'belote-sim study KIND --help' explains each one.",
    )
    kinds = p.add_subparsers(dest="kind", required=True, metavar="KIND", help="the study")
    p = kinds.add_parser(
        "bidding",
        help="sweep one threshold of the threshold bidding policy",
        description="study bidding: one threshold of the threshold bidding "
        "policy takes each value in turn against the default thresholds, on "
        "mirrored deals (each deal played twice with the teams swapped); the "
        "baseline (the parameter's default) scores exactly 0. The thresholds "
        f"(default {_threshold_defaults()}) are in units of the "
        "threshold policy's bidding score of a seat's 5 bidding cards in a strain: "
        f"{THRESHOLD_SCORE_FORMULA}. A seat bids the strain whose score exceeds its "
        "threshold by most; it doubles (redoubles) when its score in the contract's "
        "strain reaches double (redouble).  'best' is the setting with the highest mean "
        "among those significantly above the baseline after a Holm correction over the "
        "settings tried (one-sided, family-wise 2.5%: with one setting, its 95% interval "
        "above 0).",
        formatter_class=DefaultsFormatter,
    )
    p.add_argument(
        "--param", default="suit", help="threshold to sweep: suit, nt, at, double or redouble"
    )
    p.add_argument(
        "--values",
        default=None,
        help="comma-separated values (default: the "
        "parameter's default and 5 and 10 points either side)",
    )
    _add_mirrored_study(p, "setting", "common or bulgarian")
    p.add_argument("-o", "--output", help="write the table as CSV here (default: none)")
    _add_overwrite(p, "an existing CSV file")
    p.set_defaults(func=cmd_study)
    _add_systems(kinds)


def _add_mirrored_study(p: argparse.ArgumentParser, unit: str, rulesets: str) -> None:
    """The options a study on mirrored deals shares: its size per ``unit`` (a setting, a
    pair), games, rules, players, seed and threads."""
    p.add_argument(
        "--deals", type=at_least_2, default=100_000, help=f"deals per {unit} (each played twice)"
    )
    p.add_argument("--games", type=int, default=0, help=f"also play N mirrored games per {unit}")
    p.add_argument("--ruleset", default="common", help=rulesets)
    p.add_argument(
        "--play",
        default=None,
        help=f"play policy of all four seats (default {DEFAULT_PLAY}): {PLAY_USAGE}",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals")
    p.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")


def _add_systems(kinds: _Subparsers) -> None:
    p = kinds.add_parser(
        "systems",
        help="play bidding systems against each other on mirrored deals",
        description="study systems A B [C ...]: every pair of bidding systems (--bid "
        "specs: threshold[:...], atlas[:PATH], rules:FILE, py:MODULE:FUNCTION) on the "
        "same mirrored deals, everyone playing --play: net MP per deal with its paired "
        "s.e., contract mix, and where the systems call differently (the first call "
        "where the two auctions of a deal part: situation, position, hand class), "
        "strongest first.",
        formatter_class=DefaultsFormatter,
    )
    add_systems_arguments(p)
    _add_mirrored_study(p, "pair", "common, bulgarian or french")
    p.add_argument(
        "-o",
        "--output",
        help="every table in one CSV, or Parquet for a .parquet name, its column 'table' "
        "naming the table (default: none)",
    )
    _add_overwrite(p, "an existing output file or report")
    p.set_defaults(func=cmd_study_systems, param="suit", values=None)


def _add_solve(sub: _Subparsers) -> None:
    p = sub.add_parser("solve", help="exact double-dummy value of a deal or of records")
    p.add_argument("hands", nargs="?", help='4 hands separated by "|" (seats 0..3)')
    p.add_argument("--strain", help="C D H S NT AT (needed with HANDS; no default)")
    p.add_argument(
        "--leader", type=int, default=0, choices=range(4), help="seat that leads the first trick"
    )
    p.add_argument(
        "--taker-team",
        type=int,
        default=0,
        choices=(0, 1),
        help="team whose card points the value counts",
    )
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--records",
        help="replay records (JSON lines, full or partial), or - (default: none, solve HANDS)",
    )
    p.add_argument(
        "-o", "--output", help="output JSON lines (with --records; default: standard output)"
    )
    p.set_defaults(func=cmd_solve)


def _add_duel(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "duel",
        help="play policy A against B on mirrored deals",
        description="Play policy A against B: every deal is played twice, "
        "A in team 0 then in team 1, with the same cards and auction; "
        "thrown-in deals are counted and left out.  In the games where every player is "
        "alone (--option players=2|3, variant=open) A takes each seat in turn with B at "
        "the others, and A's MP are compared with the mean of B's at its table.  "
        "With --bid-a/--bid-b: "
        "bidding policy A against B, everyone playing --a (default: the default play "
        "policy), under --ruleset and --option.",
        formatter_class=DefaultsFormatter,
    )
    p.add_argument(
        "--a",
        help="play policy of the first side (no default in a play duel; a bidding duel: of "
        f"everyone, default {DEFAULT_PLAY}): {PLAY_USAGE}",
    )
    p.add_argument("--b", help="play policy of the second side (no default: a play duel needs it)")
    p.add_argument(
        "--bid-a",
        help="bidding duel: bidding policy of the first side, as simulate --bid takes it "
        "(threshold, atlas[:PATH], rules:FILE, py:MODULE:FUNCTION, ...; default: none, a "
        "play duel)",
    )
    p.add_argument(
        "--bid-b", help="bidding duel: bidding policy of the second side (default: none)"
    )
    p.add_argument("--games", type=int, default=0, help="bidding duel: also N mirrored games")
    p.add_argument("--deals", type=at_least_2, default=10_000, help="deals (each played twice)")
    p.add_argument("--ruleset", default="common", help="common, bulgarian or french")
    p.add_argument(
        "--option",
        "--options",
        action="append",
        dest="option",
        metavar="NAME=VALUE",
        help="rule option override (repeatable)",
    )
    p.add_argument(
        "--bid", default=None, help="bidding policy for everyone (default: the ruleset's)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads for every policy (default: all); same result for any number",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: a, b, ruleset, deals, played, thrown_in, "
        "mean, se, by_strain (a bidding duel adds low, high, same_contract, "
        "thrown_in_a, thrown_in_b and, with "
        "--games, games, win_rate, win_se, win_low, win_high)",
    )
    p.set_defaults(func=cmd_duel)


def _add_engine(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "engine",
        help="play one seat for another program: JSON lines on stdin/stdout",
        description="A belote-sim player behind a line-oriented JSON protocol on standard "
        "input and output (docs/guide/engine.md): a handshake, options, then per deal "
        "the cards seen, calls and plays as they happen, and call?/card? requests "
        "answered with a legal call or card.",
    )
    p.set_defaults(func=cmd_engine)


def _add_main(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "main",
        help="run the default study",
        description="The default study in one command: simulate --deals deals under the "
        "common rules (atlas bidding, the default expert:0 play, dealer rotating; "
        "resumable: rerunning finishes an interrupted run) into OUTPUT/deals.parquet, "
        "then write the HTML report of those deals into OUTPUT/report/ (open "
        "OUTPUT/report/index.html in a browser).",
    )
    p.add_argument("-o", "--output", default="output", help="output directory")
    p.add_argument("--deals", type=int, default=1_000_000, help="deals to simulate")
    p.add_argument("--seed", type=int, default=2026, help="seed of the deals")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing deals.parquet of another study",
    )
    p.set_defaults(func=cmd_main)


def _on_sigterm(signum, frame):
    raise Terminated()


def _quiet_stdout() -> None:
    """Point standard output at /dev/null after a broken pipe, so that Python's final
    flush at exit does not fail again (and print a traceback)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (stdout replaced, e.g. in tests)
        pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``belote-sim`` command; returns the exit status.

    Bad input gives one line on standard error and status 2; a reader that closes
    the pipe early (``| head``) ends it quietly with status 0.  Ctrl-C (SIGINT) and
    SIGTERM stop a run cleanly: one line says what was kept and how to resume;
    status 130 (SIGINT) or 143 (SIGTERM).
    """
    import signal
    import threading
    import warnings

    parser = build_parser()
    args = parser.parse_args(argv)  # --help and --version end here, before any kernel

    from belote_sim.simulation.table_checksum import UnverifiedTableWarning

    if getattr(args, "dealing", None):
        args.option = (args.option or []) + [f"dealing={args.dealing}"]
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)

    def show(message, category, *_args, **_kwargs):  # one line on standard error
        print(f"belote-sim {args.command}: warning: {one_line(message)}", file=sys.stderr)

    show_compile_notices()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", UnverifiedTableWarning)
            warnings.showwarning = show
            check_int_options(args)
            return args.func(args)
    except BrokenPipeError:  # `belote-sim ... | head`: the reader has what it wanted
        _quiet_stdout()
        return 0
    except (ValueError, OSError) as exc:
        print(f"belote-sim {args.command}: {one_line(exc)}", file=sys.stderr)
        return 2
    except ImportError as exc:  # an optional extra (dask) that is not installed
        print(f"belote-sim {args.command}: {one_line(exc)}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"belote-sim {args.command}: input nested too deeply", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        what = one_line(exc) if str(exc) else "interrupted"
        terminated = isinstance(exc, Terminated) or isinstance(exc.__context__, Terminated)
        print(
            f"belote-sim {args.command}: {what}" + (" (SIGTERM)" if terminated else ""),
            file=sys.stderr,
        )
        return 143 if terminated else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
