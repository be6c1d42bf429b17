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

from belote_sim.bid_rules import empty_book_arrays
from belote_sim.kernels import atlas as KA
from belote_sim.kernels.auction_atlas import NUM_ACTIONS
from belote_sim.kernels.bidding import A_NET1, A_NET2, A_NET4, A_PMADE, ATLAS_NO_KEY
from belote_sim.simulation.manifest import reason_text
from belote_sim.simulation.output import Output

__all__ = [
    "ATLAS_ARRAYS",
    "DEFAULT_ATLAS",
    "KINDS",
    "KIND_STRAIN",
    "MAX_ARRAY_BYTES",
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
    "shipped_atlas",
    "write_atlas",
]

KINDS = ("suit", "nt", "at")
#: Strain code used for each kind when a class is played (suit classes: clubs trump).
KIND_STRAIN = (0, 4, 5)
#: The atlas shipped with the package for the common rules (the default play policy).
DEFAULT_ATLAS = Path(__file__).resolve().parent.parent / "data" / "atlas_common.npz"
NUM_HANDS = 201_376


def shipped_atlas(rules: Any = None) -> Path:
    """The atlas file shipped for a ruleset (a preset name or ``Rules``; None: common):
    ``belote_sim/data/atlas_<preset>.npz`` when the package has one, else the common
    atlas (``DEFAULT_ATLAS``; whoever uses it checks that it covers the rules and says
    so when it does not)."""
    name = getattr(rules, "name", rules) or "common"
    path = DEFAULT_ATLAS.with_name(f"atlas_{name}.npz")
    return path if path.exists() else DEFAULT_ATLAS


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


def empty_kernel_arrays() -> tuple[Any, ...]:
    """Tiny bidding tables for the kernels when no seat bids by the atlas or by rules:
    atlas keys and values, an empty rule book (``bid_rules.empty_book_arrays``) and an
    empty gains table of ``atlas_auction`` (``auction_atlas.GAINS``)."""
    return (
        np.full((2, 1), ATLAS_NO_KEY, dtype=np.int64),
        np.zeros((3, 1, 4, 4), dtype=np.float64),
        *empty_book_arrays(),
        np.zeros((1, NUM_ACTIONS), dtype=np.float64),
    )


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


#: The arrays of an atlas file.
ATLAS_ARRAYS = ("meta", "keys_suit", "keys_all") + tuple(
    f"{what}_{name}" for what in ("sums", "mult") for name in KINDS
)
#: The most bytes one array of an atlas file may take once read (the shipped atlas's
#: largest takes 16 MB): a damaged or hostile file cannot make the loader allocate more.
MAX_ARRAY_BYTES = 1 << 28
#: Fields of a cell that count deals (at most its ``F_N``), and second moments (>= 0).
_COUNT_FIELDS = (KA.F_MADE, KA.F_INSIDE, KA.F_HANGING, KA.F_VALAT_BY, KA.F_VALAT_AGAINST)
_SQUARE_FIELDS = (KA.F_CARD2,) + tuple(
    KA.F_LEVEL + 6 * level + off
    for level in range(KA.NUM_LEVELS)
    for off in (KA.L_TAKER2, KA.L_DEF2, KA.L_NET2)
)


class _Malformed(ValueError):
    """An atlas file that reads but does not hold an atlas (the reason)."""


def _read_arrays(path: str) -> dict[str, np.ndarray]:
    """The arrays of an atlas file; ``_Malformed`` for a readable file of another kind,
    any other exception for one that cannot be read."""
    with open(path, "rb") as f:  # ours to close, whatever np.load raises
        magic = f.read(4)
        if magic.startswith(b"\x93NUM"):
            raise _Malformed("a single NumPy array, not an atlas (.npz)")
        if magic[:2] != b"PK":
            raise _Malformed("not a .npz file (a zip archive of arrays)")
        f.seek(0)
        z = np.load(f, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise _Malformed("not a .npz file (a zip archive of arrays)")
        with z:
            missing = [name for name in ATLAS_ARRAYS if name not in z.files]
            if missing:
                raise _Malformed(f"no array {', '.join(missing[:3])} (another program's .npz?)")
            assert z.zip is not None  # open until the with ends
            for name in ATLAS_ARRAYS:
                if z.zip.getinfo(f"{name}.npy").file_size > MAX_ARRAY_BYTES:
                    raise _Malformed(f"its array {name} is far too big for an atlas")
            return {name: z[name] for name in ATLAS_ARRAYS}


def _int_array(arrays: dict[str, np.ndarray], name: str, ndim: int) -> np.ndarray:
    a = arrays[name]
    if a.dtype.kind not in "iu" or a.ndim != ndim:
        raise _Malformed(f"its array {name} is {a.dtype} of {a.ndim} dimension(s)")
    return a.astype(np.int64)


def _checked_meta(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    raw = arrays["meta"]
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise _Malformed("its meta is not JSON text")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (ValueError, RecursionError):
        raise _Malformed("its meta is not JSON text") from None
    if not isinstance(meta, dict):
        raise _Malformed("its meta is not a JSON object")
    for key, kind, what in (
        ("ruleset", str, "a rules preset"),
        ("options", dict, "the rule options"),
        ("play", str, "a play policy"),
    ):
        if not isinstance(meta.get(key), kind):
            raise _Malformed(f"its meta names no {what} ({key!r})")
    deals = meta.get("deals")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 0:
        raise _Malformed("its meta has no deal count")
    return meta


def _checked_sums(sums: np.ndarray, kind: int) -> None:
    """The cell sums of one kind: shape, counts between 0 and the deals, second
    moments >= 0, and nothing in a cell without deals."""
    name = KINDS[kind]
    rows = len(hand_classes(kind)[0])
    if sums.shape != (rows, 4, KA.NUM_FIELDS):
        raise _Malformed(
            f"its sums_{name} have shape {sums.shape}, not ({rows}, 4, {KA.NUM_FIELDS})"
        )
    n = sums[..., KA.F_N]
    counts = sums[..., list(_COUNT_FIELDS)]
    if (
        (n < 0).any()
        or (counts < 0).any()
        or (counts > n[..., None]).any()
        or (sums[..., list(_SQUARE_FIELDS)] < 0).any()
        or (sums[n == 0] != 0).any()
    ):
        raise _Malformed(f"its sums_{name} hold impossible values (negative or over the deals)")


def _checked_table(arrays: dict[str, np.ndarray], path: str) -> AtlasTable:
    meta = _checked_meta(arrays)
    keys = [_int_array(arrays, "keys_suit", 1), _int_array(arrays, "keys_all", 1)]
    keys.append(keys[1])
    mult, sums = [], []
    for kind, name in enumerate(KINDS):
        class_keys, class_mult = hand_classes(kind)
        if not np.array_equal(keys[kind], class_keys):
            raise _Malformed(f"its {name} class keys are not the hand classes of belote-sim")
        mult.append(_int_array(arrays, f"mult_{name}", 1))
        if not np.array_equal(mult[kind], class_mult):
            raise _Malformed(f"its {name} multiplicities are not those of the hand classes")
        sums.append(_int_array(arrays, f"sums_{name}", 3))
        _checked_sums(sums[kind], kind)
    total = int(sum(int(s[..., KA.F_N].sum()) for s in sums))
    if total != meta["deals"]:
        raise _Malformed(f"its cells hold {total:,} deals, its meta says {meta['deals']:,}")
    if total == 0:
        raise _Malformed("it holds no deals (an empty build)")
    return AtlasTable(meta, keys, mult, sums, path)


@functools.lru_cache(maxsize=4)
def load_atlas(path: str | None = None) -> AtlasTable:
    """Read an atlas file (default: the one shipped with the package), checked whole.

    ``ValueError`` (one line naming the file and the problem) for a missing, empty,
    truncated or corrupt file (the ``.npz`` is a zip archive: a CRC-32 guards each
    array), another program's file, and a malformed atlas: meta that is not a JSON
    object naming rules, options, play policy and deal count; class keys or
    multiplicities that are not belote-sim's hand classes; sums of another shape or
    type, with negative counts, counts over a cell's deals, negative second moments
    or values in a cell without deals; a deal count that differs from the cells'; no
    deals at all.  A malformed atlas is never used."""
    path = str(path or DEFAULT_ATLAS)
    if not os.path.exists(path):
        raise ValueError(f"no atlas file {path}: build one with 'belote-sim atlas build'")
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory, not an atlas file")
    if os.path.getsize(path) == 0:
        raise ValueError(f"{path}: an empty file, not an atlas")
    try:
        arrays = _read_arrays(path)
        return _checked_table(arrays, path)
    except _Malformed as exc:
        raise ValueError(f"{path}: not a usable belote-sim atlas: {exc}") from None
    except MemoryError:
        raise ValueError(f"{path}: not a belote-sim atlas file (an array too big)") from None
    except Exception as exc:  # any reader error of a damaged file: zip, zlib, npy header
        raise ValueError(
            f"{path}: not a belote-sim atlas file: corrupt, truncated or another "
            f"format ({type(exc).__name__}: {reason_text(exc, 120)})"
        ) from None
