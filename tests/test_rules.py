"""Rules presets and options (docs/rules.md section 13)."""

import dataclasses

import numpy as np
import pytest

from belote_sim import Rules
from belote_sim.kernels import tables as T

# docs/rules.md section 13, column by column.
PRESET_TABLE = {
    "raise_over_partner": (False, True, True),
    "undertrump": (True, False, True),
    "card_in_one_declaration": (True, True, True),
    "belote_on_discard": (True, False, True),
    "nt_four_aces": (False, False, False),
    "declarations_compare": ("best_run", "best_run", "best_declaration"),
    "declarations_need_trick": (False, True, False),
    "nt_double_raw": (True, True, False),
    "scoring": ("mp", "mp", "french"),
    "valat_nt_double": (True, False, False),
    "capot_points": (250, 250, 250),
    "kirtik": (False, False, False),
    "french_allow_nt_at": (False, False, False),
    "third_double": (False, False, False),
    "at_double_ends_auction": (False, False, False),
    "dealer_must_take": (False, False, False),
    "dealing": ("shuffle", "shuffle", "shuffle"),
    "game_target": (151, 151, 1000),
    "revoke_penalty": (False, False, False),
}


@pytest.mark.parametrize("option", sorted(PRESET_TABLE))
def test_preset_values(option):
    for preset, expected in zip(("common", "bulgarian", "french"), PRESET_TABLE[option]):
        assert getattr(Rules.preset(preset), option) == expected, (preset, option)


def test_bidding_per_preset():
    assert Rules.preset("common").bidding == "auction"
    assert Rules.preset("bulgarian").bidding == "auction"
    assert Rules.preset("french").bidding == "two_round"
    assert Rules.preset("french").max_doubling == 0
    assert Rules.preset("common").max_doubling == 2
    assert Rules.preset("common", third_double=True).max_doubling == 3


def test_rules_are_immutable_and_hashable():
    rules = Rules.preset("common")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.undertrump = False
    assert rules == Rules.preset("common")
    assert hash(rules) == hash(Rules.preset("common"))
    assert rules != Rules.preset("common", undertrump=False)


def test_override_and_array():
    rules = Rules.preset("bulgarian", kirtik=True, capot_points=252)
    arr = rules.to_array()
    assert arr.dtype == np.int64 and arr.shape == (T.NUM_RULE_FIELDS,)
    assert arr[T.R_KIRTIK] == 1 and arr[T.R_RAISE_OVER_PARTNER] == 1
    assert arr[T.R_UNDERTRUMP] == 0 and arr[T.R_CAPOT_POINTS] == 252
    assert not arr.flags.writeable


def test_unknown_option_and_ruleset():
    with pytest.raises(ValueError, match="unknown rule option.*'undertrumps'"):
        Rules.preset("common", undertrumps=True)
    with pytest.raises(ValueError, match="unknown ruleset 'belgian'"):
        Rules.preset("belgian")


@pytest.mark.parametrize(
    "options,message",
    [
        (dict(kirtik=True), "kirtik cannot be used with french scoring"),
        (dict(third_double=True), "third_double"),
        (dict(undertrump="yes"), "undertrump must be true or false"),
        (dict(capot_points="250"), "capot_points must be an integer"),
        (dict(capot_points=100), "below the 162"),
        (dict(players=3), "3-player game scores match points"),
        (dict(players=6), "players must be 2, 3 or 4"),
    ],
)
def test_impossible_combinations_french(options, message):
    with pytest.raises(ValueError, match=message):
        Rules.preset("french", **options)


def test_french_allow_nt_at_needs_two_round_bidding():
    with pytest.raises(ValueError, match="french_allow_nt_at"):
        Rules.preset("common", french_allow_nt_at=True)
    assert Rules.preset("french", french_allow_nt_at=True).strain_allowed(T.STRAIN_AT)
    assert not Rules.preset("french").strain_allowed(T.STRAIN_NT)


@pytest.mark.parametrize("preset", ["common", "bulgarian"])
def test_french_scoring_is_refused_with_the_doubling_auction(preset):
    # RULES.md 14.15: a french-scored deal with doubling > 0 is an error, and the
    # auction of 4.1 doubles: the combination would score doubled deals as undoubled.
    with pytest.raises(ValueError, match="scoring=french cannot be used with the auction"):
        Rules.preset(preset, scoring="french")
    assert Rules.preset("french").max_doubling == 0  # two rounds: nothing to double


def test_bad_choice_value():
    with pytest.raises(ValueError, match="declarations_compare must be one of"):
        Rules.preset("common", declarations_compare="best")


def test_from_spec_mapping():
    rules = Rules.from_spec("common", {"undertrump": False})
    assert rules.undertrump is False and rules.name == "common"
    with pytest.raises(ValueError, match="options must be an object"):
        Rules.from_spec("common", ["undertrump"])
