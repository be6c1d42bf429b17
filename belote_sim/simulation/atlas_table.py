"""The hand atlas as data: hand classes, the stored file, and the kernels' lookup arrays.

A *hand class* is a set of 5-card bidding hands that are the same up to a permutation
of the interchangeable suits: for a suit contract the trump suit is fixed and the
three other suits are interchangeable; for NT and AT all four suits are.  A class is
named by its key (``kernels.bidding.canonical_key``): the trump byte then the other
suit bytes in descending order (suit contracts, trump = clubs for the representative),
or the four suit bytes in descending order (NT, AT).  There are 38,304 suit classes
and 10,808 NT/AT classes; each class's multiplicity is the number of hands in it, and
the multiplicities sum to C(32, 5) = 201,376.

The atlas file (``.npz``) holds the class keys and multiplicities, the cells' sums
``sums_<kind>`` (classes, 4 positions, ``kernels.atlas.NUM_FIELDS``) int64 for the
kinds ``suit``, ``nt``, ``at``, and a JSON ``meta`` (rules preset and options, play
policy, seed, deals, build time).  This module is the simulation layer's view of it:
the ``atlas`` bidding policy loads it here; building and queries live in
``belote_sim.atlas``.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from belote_sim.kernels import atlas as KA
from belote_sim.kernels.bidding import A_NET1, A_NET2, A_NET4, A_PMADE, ATLAS_NO_KEY
from belote_sim.simulation.output import Output

__all__ = [
    "DEFAULT_ATLAS",
    "KINDS",
    "KIND_STRAIN",
    "NUM_HANDS",
    "AtlasTable",
    "all_hands",
    "empty_kernel_arrays",
    "hand_classes",
    "hand_keys",
    "key_hands",
    "kind_of",
    "load_atlas",
    "save_atlas",
    "write_atlas",
]

KINDS = ("suit", "nt", "at")
#: Strain code used for each kind when a class is played (suit classes: clubs trump).
KIND_STRAIN = (0, 4, 5)
#: The atlas shipped with the package (common rules, greedy play).
DEFAULT_ATLAS = Path(__file__).resolve().parent.parent / "data" / "atlas_common.npz"
NUM_HANDS = 201_376


def kind_of(strain: int) -> int:
    """Atlas kind (0 suit, 1 NT, 2 AT) of a strain code 0..5."""
    return 0 if strain < 4 else strain - 3


def _suit_bytes(hands: np.ndarray) -> np.ndarray:
    return np.stack([(hands >> (8 * s)) & 0xFF for s in range(4)], axis=1)


def hand_keys(hands: np.ndarray, strain: int) -> np.ndarray:
    """Class keys (int64) of many 5-card hand masks for one strain (numpy twin of
    ``kernels.bidding.canonical_key``)."""
    b = _suit_bytes(np.asarray(hands, dtype=np.int64))
    if strain < 4:
        trump = b[:, strain]
        others = np.sort(np.delete(b, strain, axis=1), axis=1)[:, ::-1]
        return (trump << 24) | (others[:, 0] << 16) | (others[:, 1] << 8) | others[:, 2]
    s = np.sort(b, axis=1)[:, ::-1]
    return (s[:, 0] << 24) | (s[:, 1] << 16) | (s[:, 2] << 8) | s[:, 3]


def key_hands(keys: np.ndarray, kind: int) -> np.ndarray:
    """A representative hand (mask) of each class key: for suit classes the trump
    byte is clubs and the other bytes go to diamonds, hearts, spades in order."""
    keys = np.asarray(keys, dtype=np.int64)
    if kind == 0:
        trump, x, y, z = (keys >> 24) & 0xFF, (keys >> 16) & 0xFF, (keys >> 8) & 0xFF, keys & 0xFF
        return trump | (x << 8) | (y << 16) | (z << 24)
    return (
        ((keys >> 24) & 0xFF)
        | (((keys >> 16) & 0xFF) << 8)
        | (((keys >> 8) & 0xFF) << 16)
        | ((keys & 0xFF) << 24)
    )


@functools.cache
def all_hands() -> np.ndarray:
    """Every 5-card hand as a mask (C(32, 5) = 201,376, int64)."""
    idx = np.array(list(combinations(range(32), 5)), dtype=np.int64)
    return (np.int64(1) << idx).sum(axis=1)


@functools.cache
def hand_classes(kind: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted class keys, multiplicities) of a kind, by exact enumeration of all hands."""
    keys, counts = np.unique(hand_keys(all_hands(), KIND_STRAIN[kind]), return_counts=True)
    return keys, counts.astype(np.int64)


@dataclass
class AtlasTable:
    """A built atlas: class keys and multiplicities and the cell sums per kind."""

    meta: dict[str, Any]
    keys: list[np.ndarray]
    mult: list[np.ndarray]
    sums: list[np.ndarray]
    path: str | None = None
    _arrays: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def covers(self, rules: Any) -> bool:
        """Whether the atlas was built for these rules (preset and every option)."""
        return self.meta.get("ruleset") == rules.name and self.meta.get("options") == json.loads(
            json.dumps(rules.options())
        )

    def check_covers(self, rules: Any) -> None:
        """Raise ``ValueError`` when the atlas was built for other rules."""
        if not self.covers(rules):
            raise ValueError(
                f"the atlas {self.path or ''} covers the "
                f"{self.meta.get('ruleset')!r} rules with its options, not the "
                f"{rules.name!r} rules asked for; build one with "
                "'belote-sim atlas build'"
            )

    def lookup(self, hand: int, strain: int, position: int) -> np.ndarray:
        """The sums (NUM_FIELDS,) of one cell: 5-card hand mask, strain 0..5, position 1..4."""
        kind = kind_of(strain)
        key = int(hand_keys(np.array([hand]), strain)[0])
        row = int(np.searchsorted(self.keys[kind], key))
        if row >= len(self.keys[kind]) or self.keys[kind][row] != key:
            raise ValueError("hand class missing from the atlas (incomplete build?)")
        return self.sums[kind][row, position - 1]

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys (2, K), values (3, K, 4, 4))`` for the ``atlas`` bidding policy: expected
        net MP at x1, x2, x4 and P(made) per kind, class and position (0 where no deal)."""
        if self._arrays is None:
            size = max(len(k) for k in self.keys)
            keys = np.full((2, size), ATLAS_NO_KEY, dtype=np.int64)
            keys[0, : len(self.keys[0])] = self.keys[0]
            keys[1, : len(self.keys[1])] = self.keys[1]
            values = np.zeros((3, size, 4, 4), dtype=np.float64)
            for kind in range(3):
                s = self.sums[kind].astype(np.float64)
                n = np.maximum(s[..., KA.F_N], 1.0)
                rows = len(s)
                for field_, level in ((A_NET1, 0), (A_NET2, 1), (A_NET4, 2)):
                    values[kind, :rows, :, field_] = s[..., KA.F_LEVEL + 6 * level + KA.L_NET] / n
                values[kind, :rows, :, A_PMADE] = s[..., KA.F_MADE] / n
            self._arrays = (keys, values)
        return self._arrays


def empty_kernel_arrays() -> tuple[np.ndarray, np.ndarray]:
    """Tiny atlas arrays for the kernels when no seat bids by the atlas."""
    return (np.full((2, 1), ATLAS_NO_KEY, dtype=np.int64), np.zeros((3, 1, 4, 4), dtype=np.float64))


def save_atlas(table: AtlasTable, path: str | os.PathLike) -> None:
    """Write an atlas file (compressed ``.npz``), replacing one that is there, under the
    output discipline (``output.Output``: a lock, a temporary name, the rename when
    complete)."""
    with Output(path, what="the atlas", overwrite=True) as out:
        with open(out.tmp, "wb") as f:
            write_atlas(table, f)
        out.commit()


def write_atlas(table: AtlasTable, file: Any) -> None:
    """The atlas file's bytes (compressed ``.npz``) into an open binary ``file``."""
    arrays: dict[str, Any] = {"meta": np.frombuffer(json.dumps(table.meta).encode(), np.uint8)}
    for kind, name in enumerate(KINDS):
        arrays[f"sums_{name}"] = _narrow(table.sums[kind])
        arrays[f"mult_{name}"] = table.mult[kind].astype(np.int32)
    arrays["keys_suit"] = table.keys[0].astype(np.uint32)
    arrays["keys_all"] = table.keys[1].astype(np.uint32)
    np.savez_compressed(file, **arrays)


def _narrow(a: np.ndarray) -> np.ndarray:
    """Smallest integer dtype holding an int64 array (smaller files)."""
    for dtype in (np.int16, np.int32):
        info = np.iinfo(dtype)
        if a.size == 0 or (a.min() >= info.min and a.max() <= info.max):
            return a.astype(dtype)
    return a


@functools.lru_cache(maxsize=4)
def load_atlas(path: str | None = None) -> AtlasTable:
    """Read an atlas file (default: the one shipped with the package)."""
    path = str(path or DEFAULT_ATLAS)
    try:
        with np.load(path) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            keys = [z["keys_suit"].astype(np.int64), z["keys_all"].astype(np.int64)]
            sums = [z[f"sums_{name}"].astype(np.int64) for name in KINDS]
            mult = [z[f"mult_{name}"].astype(np.int64) for name in KINDS]
    except FileNotFoundError:
        raise ValueError(f"no atlas file {path}: build one with 'belote-sim atlas build'") from None
    except (KeyError, OSError, ValueError) as exc:
        raise ValueError(f"{path} is not a belote-sim atlas file ({exc})") from None
    return AtlasTable(meta, [keys[0], keys[1], keys[1]], mult, sums, path)
