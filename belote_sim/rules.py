"""Rule presets and options (docs/rules.md section 13) as one immutable object.

``Rules.preset("bulgarian", kirtik=True)`` gives the ``bulgarian`` rules with one
option changed; ``rules.to_array()`` gives the int64 array every kernel takes (its
layout is the ``R_*`` constants of ``belote_sim.kernels.tables``).  Unknown option
names, wrong types and impossible combinations raise ``ValueError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from belote_sim.kernels import tables as T

__all__ = ["OPTION_NAMES", "PRESETS", "Rules"]

PRESETS = ("common", "bulgarian", "french")
#: Choice options: each value's name and its code in the rules array.
_CODES: dict[str, dict[str, int]] = {
    "declarations_compare": {
        "best_run": T.COMPARE_BEST_RUN,
        "best_declaration": T.COMPARE_BEST_DECLARATION,
    },
    "scoring": {"mp": T.SCORING_MP, "french": T.SCORING_FRENCH},
    "dealing": {"shuffle": T.DEALING_SHUFFLE, "cut": T.DEALING_CUT},
    "bidding": {
        "auction": T.BIDDING_AUCTION,
        "two_round": T.BIDDING_TWO_ROUND,
        "take_or_pass": T.BIDDING_TAKE_OR_PASS,
    },
    "variant": {"standard": T.VARIANT_STANDARD, "open": T.VARIANT_OPEN},
}
_CHOICES = {name: tuple(codes) for name, codes in _CODES.items()}


#: The largest ``capot_points`` and ``game_target`` (their kernels' sums stay far from
#: the 64-bit range; real rules use 250-500 and 151-1500)
MAX_CAPOT_POINTS = 10_000
MAX_GAME_TARGET = 1_000_000


@dataclass(frozen=True)
class Rules:
    """A complete rule set: a preset name plus every option of docs/rules.md.

    Attributes follow docs/rules.md section 13 (section numbers in brackets):
    ``raise_over_partner``/``undertrump`` [5], ``card_in_one_declaration``,
    ``nt_four_aces`` [6.1], ``belote_on_discard`` [6.2], ``declarations_compare``
    (``best_run`` | ``best_declaration``) and ``declarations_need_trick`` [6.3],
    ``nt_double_raw`` [7], ``scoring`` (``mp`` | ``french``), ``valat_nt_double``,
    ``kirtik`` [8.6], ``capot_points`` (card points of a capot, french) [10],
    ``bidding`` (``auction`` | ``two_round`` | ``take_or_pass``), ``third_double``,
    ``at_double_ends_auction``, ``dealer_must_take`` [4.1], ``french_allow_nt_at``
    [4.2], ``doubling`` (take-or-pass doubling) [4.3], ``dealing`` (``shuffle`` |
    ``cut``) [3], ``revoke_penalty`` [12], ``game_target`` (MP, or French points)
    [9], ``players`` (2, 3 or 4) and ``variant`` (``standard`` | ``open``: open
    belot, 2 players) [11].

    The games where every player is alone (``players`` 2 or 3, open belot) bid
    take-or-pass without doubling unless ``bidding``/``doubling`` are given, score MP
    and have no ``revoke_penalty``.
    """

    name: str = "common"
    raise_over_partner: bool = False
    undertrump: bool = True
    card_in_one_declaration: bool = True
    belote_on_discard: bool = True
    nt_four_aces: bool = False
    declarations_compare: str = "best_run"
    declarations_need_trick: bool = False
    nt_double_raw: bool = True
    scoring: str = "mp"
    valat_nt_double: bool = True
    capot_points: int = 250
    kirtik: bool = False
    french_allow_nt_at: bool = False
    third_double: bool = False
    at_double_ends_auction: bool = False
    dealer_must_take: bool = False
    dealing: str = "shuffle"
    revoke_penalty: bool = False
    game_target: int = 151
    players: int = 4
    bidding: str = "auction"
    doubling: bool = True
    variant: str = "standard"
    _array: np.ndarray = field(default=None, init=False, repr=False, compare=False)  # type: ignore

    def __post_init__(self) -> None:
        self._validate()
        object.__setattr__(self, "_array", self._build_array())

    # -- construction -------------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "common", **options: Any) -> Rules:
        """The preset ``name`` (common, bulgarian, french) with ``options`` changed."""
        if name not in PRESETS:
            raise ValueError(f"unknown ruleset {name!r}: expected one of {', '.join(PRESETS)}")
        base = dict(_PRESET_OPTIONS[name])
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {', '.join(map(repr, unknown))}; "
                f"known options: {', '.join(OPTION_NAMES)}"
            )
        base.update(_solo_defaults(options))
        base.update(options)
        return cls(name=name, **base)

    @classmethod
    def from_spec(
        cls, ruleset: str | Rules | None = "common", options: Mapping[str, Any] | None = None
    ) -> Rules:
        """Rules from a preset name (or Rules) and a mapping of option overrides."""
        if isinstance(ruleset, Rules):
            return ruleset.replace(**dict(options)) if options else ruleset
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be an object of option: value, got {options!r}")
        return cls.preset(ruleset if ruleset is not None else "common", **dict(options or {}))

    def replace(self, **options: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown rule option(s) {', '.join(map(repr, unknown))}")
        changes = _solo_defaults(options) if self.players == 4 else {}
        changes.update(options)
        return dataclasses.replace(self, **changes)

    def options(self) -> dict[str, Any]:
        """Every option as a plain dict (JSON-ready)."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    # -- checks ---------------------------------------------------------------
    def _validate(self) -> None:
        for f in dataclasses.fields(self):
            if f.name.startswith("_") or f.name == "name":
                continue
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, (bool, np.bool_)):
                    raise ValueError(f"option {f.name} must be true or false, got {value!r}")
            elif f.type in ("int", int):
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise ValueError(f"option {f.name} must be an integer, got {value!r}")
            elif f.name in _CHOICES and value not in _CHOICES[f.name]:
                raise ValueError(
                    f"option {f.name} must be one of {', '.join(_CHOICES[f.name])}, got {value!r}"
                )
        if self.players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {self.players!r}")
        if self.variant == "open" and self.players != 2:
            raise ValueError(
                f"open belot is a 2-player game (variant=open needs players=2, got {self.players})"
            )
        if self.solo:
            what = "open belot" if self.variant == "open" else f"the {self.players}-player game"
            if self.bidding != "take_or_pass":
                raise ValueError(
                    f"{what} bids take-or-pass (docs/rules.md 4.3), not {self.bidding}"
                )
            if self.scoring != "mp":
                raise ValueError(
                    f"{what} scores match points; scoring={self.scoring} is for "
                    "the 4-player french game"
                )
            for opt in (
                "revoke_penalty",
                "third_double",
                "at_double_ends_auction",
                "dealer_must_take",
            ):
                if getattr(self, opt):
                    raise ValueError(f"option {opt} is not defined for {what}")
            if self.dealing == "cut":
                raise ValueError(
                    f"dealing=cut (the played cards, cut) is defined for the "
                    f"4-player game, not {what}"
                )
        elif self.bidding == "take_or_pass":
            raise ValueError(
                "take-or-pass bidding is for the 2- and 3-player games and open "
                "belot (players=2/3 or variant=open)"
            )
        if self.scoring == "french":
            for opt in ("kirtik", "third_double"):
                if getattr(self, opt):
                    raise ValueError(f"option {opt} cannot be used with french scoring")
            # The auction of 4.1 doubles and redoubles, and french scoring has no
            # doubling (RULES.md 14.15): a doubled deal would be scored as undoubled.
            if self.bidding == "auction":
                raise ValueError(
                    "scoring=french cannot be used with the auction of the "
                    f"{self.name} rules: the auction doubles and french scoring has no "
                    "doubling (docs/rules.md 10); the french preset bids in two rounds"
                )
        if self.french_allow_nt_at and self.bidding != "two_round":
            raise ValueError("option french_allow_nt_at needs the french two-round bidding")
        if self.capot_points < T.SUIT_DEAL_CARD_TOTAL:
            raise ValueError(
                f"capot_points={self.capot_points} is below the "
                f"{T.SUIT_DEAL_CARD_TOTAL} card points of a deal"
            )
        if self.capot_points > MAX_CAPOT_POINTS:
            raise ValueError(
                f"capot_points={self.capot_points} is above {MAX_CAPOT_POINTS:,} (the most "
                "a capot may be worth)"
            )
        if self.game_target <= 0:
            raise ValueError(f"game_target must be positive, got {self.game_target}")
        if self.game_target > MAX_GAME_TARGET:
            raise ValueError(
                f"game_target={self.game_target} is above {MAX_GAME_TARGET:,} (the most a "
                "game may be played to)"
            )
        if self.bidding == "two_round" and (
            self.third_double or self.at_double_ends_auction or self.dealer_must_take
        ):
            raise ValueError(
                "third_double, at_double_ends_auction and dealer_must_take are "
                "auction options; the french two-round bidding has no doubling"
            )

    def _build_array(self) -> np.ndarray:
        arr = np.zeros(T.NUM_RULE_FIELDS, dtype=np.int64)
        arr[T.R_RAISE_OVER_PARTNER] = self.raise_over_partner
        arr[T.R_UNDERTRUMP] = self.undertrump
        arr[T.R_CARD_IN_ONE_DECLARATION] = self.card_in_one_declaration
        arr[T.R_BELOTE_ON_DISCARD] = self.belote_on_discard
        arr[T.R_NT_FOUR_ACES] = self.nt_four_aces
        arr[T.R_DECLARATIONS_COMPARE] = _CODES["declarations_compare"][self.declarations_compare]
        arr[T.R_DECLARATIONS_NEED_TRICK] = self.declarations_need_trick
        arr[T.R_NT_DOUBLE_RAW] = self.nt_double_raw
        arr[T.R_SCORING] = _CODES["scoring"][self.scoring]
        arr[T.R_VALAT_NT_DOUBLE] = self.valat_nt_double
        arr[T.R_CAPOT_POINTS] = self.capot_points
        arr[T.R_KIRTIK] = self.kirtik
        arr[T.R_FRENCH_ALLOW_NT_AT] = self.french_allow_nt_at
        arr[T.R_THIRD_DOUBLE] = self.third_double
        arr[T.R_AT_DOUBLE_ENDS_AUCTION] = self.at_double_ends_auction
        arr[T.R_DEALER_MUST_TAKE] = self.dealer_must_take
        arr[T.R_DEALING] = _CODES["dealing"][self.dealing]
        arr[T.R_REVOKE_PENALTY] = self.revoke_penalty
        arr[T.R_GAME_TARGET] = self.game_target
        arr[T.R_PLAYERS] = self.players
        arr[T.R_BIDDING] = _CODES["bidding"][self.bidding]
        arr[T.R_DOUBLING] = self.doubling
        arr[T.R_VARIANT] = _CODES["variant"][self.variant]
        arr.setflags(write=False)
        return arr

    def to_array(self) -> np.ndarray:
        """The read-only int64 array of options that kernels take."""
        return self._array

    # -- questions the API asks --------------------------------------------------
    @property
    def solo(self) -> bool:
        """Whether every player plays alone (2 or 3 players, open belot; section 11)."""
        return self.players != 4 or self.variant == "open"

    @property
    def deck_size(self) -> int:
        """Cards in the deck: 24 for the 2- and 3-player games, else 32."""
        return 24 if self.players != 4 and self.variant != "open" else 32

    @property
    def hand_size(self) -> int:
        """Cards dealt to each hand: 8, or 9 in the 2-player game (open belot: 8 in
        hand plus 8 on the table)."""
        return 9 if self.players == 2 and self.variant != "open" else 8

    @property
    def n_tricks(self) -> int:
        """Tricks in a deal: 8, 9 (2 players) or 16 (open belot)."""
        if self.variant == "open":
            return 16
        return self.hand_size

    @property
    def max_doubling(self) -> int:
        """Highest doubling level a contract may have (0 without doubling)."""
        if self.scoring == "french" or self.bidding == "two_round":
            return 0
        if self.bidding == "take_or_pass":
            return 2 if self.doubling else 0
        return 3 if self.third_double else 2

    def strain_allowed(self, strain: int) -> bool:
        """Whether a contract in this strain code exists under these rules."""
        if self.bidding == "two_round" and strain >= T.STRAIN_NT:
            return self.french_allow_nt_at
        return True


def _solo_defaults(options: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults that follow from choosing a game where every player is alone: take-or-pass
    bidding without doubling (docs/rules.md 4.3) unless the options say otherwise."""
    if options.get("players", 4) != 4 or options.get("variant") == "open":
        out: dict[str, Any] = {"bidding": "take_or_pass", "doubling": False}
        if options.get("variant") == "open" and "players" not in options:
            out["players"] = 2
        return out
    return {}


OPTION_NAMES = tuple(
    f.name for f in dataclasses.fields(Rules) if f.name != "name" and not f.name.startswith("_")
)

_PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "common": {},
    "bulgarian": dict(
        raise_over_partner=True,
        undertrump=False,
        belote_on_discard=False,
        declarations_need_trick=True,
        valat_nt_double=False,
    ),
    "french": dict(
        raise_over_partner=True,
        undertrump=True,
        belote_on_discard=True,
        declarations_compare="best_declaration",
        nt_double_raw=False,
        scoring="french",
        valat_nt_double=False,
        bidding="two_round",
        game_target=1000,
        doubling=False,
    ),
}
