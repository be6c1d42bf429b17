"""Kernels vs the independent pure-Python reference for the 2-player, 3-player and
open-belot games (tests/reference_variants.py, written from docs/rules.md without seeing
the kernels).

Deals come from the simulator (greedy and random play, several rule options); each
is replayed by both implementations in full, cut off at random points (legal moves
of the next decision), and with one card replaced by another card of the deck
(which duty is broken).  Every field of the replay must agree.
"""

import random
import zlib

import pytest
import reference_variants as refv

from belote_sim import replay
from belote_sim.cards import format_card
from belote_sim.simulation.export import records
from belote_sim.simulation.runner import simulate

GAMES = {"three": dict(players=3), "two": dict(players=2), "open": dict(variant="open")}
OPTION_SETS = [
    ("bulgarian", {}),
    ("common", {}),
    (
        "common",
        dict(
            undertrump=False,
            declarations_compare="best_declaration",
            kirtik=True,
            valat_nt_double=True,
        ),
    ),
    (
        "bulgarian",
        dict(
            undertrump=True,
            belote_on_discard=True,
            nt_four_aces=True,
            declarations_need_trick=False,
            card_in_one_declaration=False,
        ),
    ),
]
FIELDS = (
    "tricks",
    "to_play",
    "legal",
    "illegal",
    "card_points",
    "declarations",
    "raw",
    "outcome",
    "valat",
    "mp",
    "held_mp",
)


def _records(game, ruleset, options, play, seed, n, bidding=None):
    df = simulate(
        n,
        ruleset,
        options={**GAMES[game], **options},
        play=play,
        seed=seed,
        bidding=bidding,
        trick_log=True,
    )
    return list(records(df, df.attrs["belote_sim"]))


def _agree(record):
    mine = replay(record)
    theirs = refv.replay_variant(record)
    for field in FIELDS:
        assert mine[field] == theirs[field], (field, record, mine[field], theirs[field])
    return mine


def _deck(record):
    if record.get("variant") == "open":
        return [format_card(c) for c in range(32)]
    return sorted(refv.DECK24)


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("ruleset, options", OPTION_SETS)
def test_full_partial_and_illegal_replays_agree(game, ruleset, options):
    rng = random.Random(zlib.crc32(repr((game, ruleset, len(options))).encode()) & 0xFFFF)
    recs = (
        _records(game, ruleset, options, "greedy", 5, 300)
        + _records(game, ruleset, options, "random", 6, 300)
        + _records(game, ruleset, options, "expert", 7, 100)
    )
    assert len(recs) > 600
    outcomes = set()
    for rec in recs:
        if rng.random() < 0.2:
            rec["belote_silent"] = [rng.randrange(2)]
        outcomes.add(_agree(rec)["outcome"])
        plays = rec["plays"]
        cut = rng.randrange(len(plays))
        partial = _agree({**rec, "plays": plays[:cut]})
        assert partial["to_play"] is not None and partial["legal"]
        wrong = rng.choice([c for c in _deck(rec) if c not in plays[:cut]])
        _agree({**rec, "plays": plays[:cut] + [wrong]})
    expected = {"made", "inside"} if game == "three" else {"made", "inside", "hanging"}
    assert outcomes <= expected and {"made", "inside"} <= outcomes


@pytest.mark.parametrize("game", list(GAMES))
def test_doubled_fixed_contracts_agree(game):
    """Doubling (option ``doubling``) with fixed contracts in every strain."""
    for strain in range(6):
        recs = _records(
            game,
            "bulgarian",
            dict(doubling=True, kirtik=True),
            "greedy",
            strain,
            60,
            bidding=f"fixed:1,{strain},{1 + strain % 2}",
        )
        for rec in recs:
            _agree(rec)
