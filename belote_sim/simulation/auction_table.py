"""The ``atlas_auction`` policy's gains table: fitted, saved, loaded.

``auction_measure.measure`` plays deals with four ``atlas`` players and, in each, one auction call
every legal way (``kernels.auction_samples``): per auction situation
(``kernels.auction_atlas.auction_key``) and action, the caller's team's net MP after
the action minus after the atlas's call, the same deal both ways.  ``fit_gains``
turns those samples into the table the policy reads: an action's gain is its mean
where the mean is positive by more than ``z`` standard errors over at least
``min_n`` deals, else 0 (the situation keeps the atlas's call).  The tables shipped
in ``belote_sim/data/auction_<preset>.npz`` are made by
``analyses/build_auction_table.py``; the file also keeps each cell's count, mean
and standard error, so a reader can see how sure each departure is.

Units: net MP per deal of the caller's team (its MP minus the other team's, added
now; a thrown-in deal counts 0).
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from belote_sim.kernels.auction_atlas import (
    BEST_EDGES,
    GAINS,
    HELD_EDGES,
    NUM_ACTIONS,
    NUM_KEYS,
)
from belote_sim.kernels.auction_samples import S_GAIN, S_KEY

__all__ = [
    "ACTIONS",
    "DATA_DIR",
    "AuctionTable",
    "FitResult",
    "empty_gains",
    "fit_gains",
    "load_auction_table",
    "save_auction_table",
    "shipped_auction_table",
]

#: Names of the actions, in the order of the table's columns.
ACTIONS = ("pass", "bid", "double", "redouble")
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
#: Arrays of a table file.
TABLE_ARRAYS = ("gains", "n", "mean", "se", "best_edges", "held_edges", "meta")
#: Version of the key layout (``auction_atlas.auction_key``); a file of another is refused.
KEY_VERSION = 1


def empty_gains() -> np.ndarray:
    """The tiny gains table of the kernels when no seat bids by ``atlas_auction`` (or
    while its own table is measured): the policy then bids exactly as ``atlas``."""
    from belote_sim.simulation.atlas_table import empty_kernel_arrays

    return empty_kernel_arrays()[GAINS]


def shipped_auction_table(rules: Any) -> Path:
    """The gains table shipped for a ruleset (``Rules`` or a preset name):
    ``belote_sim/data/auction_<preset>.npz`` (it may not exist: ``load_auction_table``
    says so)."""
    name = getattr(rules, "name", rules) or "common"
    return DATA_DIR / f"auction_{name}.npz"


@dataclass
class FitResult:
    """A fitted table: ``gains`` (NUM_KEYS, NUM_ACTIONS) what the policy reads; ``n``,
    ``mean``, ``se`` per cell and action (deals, net MP per deal and its standard
    error; NaN where no deal)."""

    gains: np.ndarray
    n: np.ndarray
    mean: np.ndarray
    se: np.ndarray


def fit_gains(samples: np.ndarray, z: float = 2.5, min_n: int = 200) -> FitResult:
    """The gains table of sample rows (``measure``): per situation and action, the mean
    gain over the atlas's call, kept where it exceeds ``z`` standard errors over at
    least ``min_n`` deals (else 0: the atlas's call stands)."""
    keys = samples[:, S_KEY]
    ok = np.isfinite(keys) & (keys >= 0)
    rows = keys[ok].astype(np.int64)
    if rows.size and rows.max() >= NUM_KEYS:
        raise ValueError("sample keys beyond the table (another key layout?)")
    shape = (NUM_KEYS, NUM_ACTIONS)
    n = np.zeros(shape, dtype=np.int64)
    total = np.zeros(shape)
    squares = np.zeros(shape)
    for a in range(NUM_ACTIONS):
        gain = samples[ok, S_GAIN + a]
        has = np.isfinite(gain)
        n[:, a] = np.bincount(rows[has], minlength=NUM_KEYS)
        total[:, a] = np.bincount(rows[has], weights=gain[has], minlength=NUM_KEYS)
        squares[:, a] = np.bincount(rows[has], weights=gain[has] ** 2, minlength=NUM_KEYS)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / n
        var = (squares - n * mean**2) / (n - 1)
        se = np.sqrt(np.maximum(var, 0.0) / n)
    keep = (n >= min_n) & (mean > z * se) & (mean > 0)
    gains = np.where(keep, mean, 0.0)
    return FitResult(gains=gains, n=n, mean=mean, se=se)


@dataclass
class AuctionTable:
    """A loaded gains table and what it was measured under (``meta``: ruleset, rule
    options, play policy, deals, seed, z, min_n)."""

    gains: np.ndarray
    n: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    meta: dict[str, Any]
    path: str

    def check_covers(self, rules: Any) -> None:
        """Raise ``ValueError`` unless the table was measured under these rules (preset
        and every option)."""
        options = json.loads(json.dumps(rules.options()))
        if self.meta.get("ruleset") != rules.name or self.meta.get("options") != options:
            raise ValueError(
                f"the auction table {self.path} was measured under the "
                f"{self.meta.get('ruleset')!r} rules with their options, not these "
                f"{rules.name!r} rules; atlas_auction has tables for the common and "
                "bulgarian presets (analyses/build_auction_table.py makes others)"
            )


def save_auction_table(path: str | os.PathLike, fit: FitResult, meta: dict[str, Any]) -> None:
    """Write a table file (compressed ``.npz``, no pickles): the fit, the bin edges and
    ``meta`` as JSON, under the output discipline (a temporary name, then the rename)."""
    from belote_sim.simulation.output import Output

    meta = {**meta, "key_version": KEY_VERSION}
    arrays: dict[str, Any] = {
        "gains": fit.gains.astype(np.float32),
        "n": fit.n.astype(np.int32),
        "mean": fit.mean.astype(np.float32),
        "se": fit.se.astype(np.float32),
        "best_edges": BEST_EDGES,
        "held_edges": HELD_EDGES,
        "meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8),
    }
    with Output(path, what="the auction table", overwrite=True) as out:
        with open(out.tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        out.commit()


def load_auction_table(path: str | os.PathLike) -> AuctionTable:
    """Read a table file, checking every array; ``ValueError`` with one line naming
    the file and the problem (a missing or corrupt file, another key layout, a gain
    that is not a finite number >= 0)."""
    path = str(path)

    def bad(problem: str) -> ValueError:
        return ValueError(f"{path}: not an atlas_auction table: {problem}")

    if not os.path.exists(path):
        raise ValueError(
            f"no auction table {path}: atlas_auction has tables for the common and "
            "bulgarian presets (analyses/build_auction_table.py makes others)"
        )
    try:
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:
            missing = [name for name in TABLE_ARRAYS if name not in z.files]
            if missing:
                raise bad(f"no array {', '.join(missing)}")
            arrays = {name: z[name] for name in TABLE_ARRAYS}
    except ValueError as e:
        if str(e).startswith(path):
            raise
        raise bad(f"unreadable ({e})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as e:
        raise bad(f"unreadable ({e})") from None
    try:
        meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise bad("its meta is not JSON text") from None
    if not isinstance(meta, dict) or meta.get("key_version") != KEY_VERSION:
        raise bad("made for another key layout (rebuild it)")
    if not (
        np.array_equal(arrays["best_edges"], BEST_EDGES)
        and np.array_equal(arrays["held_edges"], HELD_EDGES)
    ):
        raise bad("made with other value bins (rebuild it)")
    shape = (NUM_KEYS, NUM_ACTIONS)
    for name in ("gains", "n", "mean", "se"):
        if arrays[name].shape != shape:
            raise bad(f"its {name} is {arrays[name].shape}, expected {shape}")
    gains = arrays["gains"].astype(np.float64)
    if arrays["gains"].dtype.kind != "f" or not (np.isfinite(gains).all() and (gains >= 0).all()):
        raise bad("its gains are not finite numbers >= 0")
    return AuctionTable(
        gains=gains,
        n=arrays["n"].astype(np.int64),
        mean=arrays["mean"].astype(np.float64),
        se=arrays["se"].astype(np.float64),
        meta=meta,
        path=path,
    )
