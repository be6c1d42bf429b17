"""Dataset directories: the aggregates of the deals, summarising a dataset, rebuilding a
lost manifest.

A dataset directory holds ``part-NNNNNN.parquet`` files (one per chunk) and
``_manifest.json`` (a name Parquet readers skip), written by ``distributed.run_study``;
the names, the manifest and the part checks are in ``manifest``, reading the parts as a
table is ``deal_table.read_dataset``.  Each manifest entry carries its part's
aggregates (``frame_aggregates``), added up with ``merge_aggregates``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.simulation.deal_table import PROVENANCE_KEY, read_dataset, summary_counts
from belote_sim.simulation.manifest import (
    CHUNK_KEY,
    LOCK,
    MANIFEST,
    PART_RE,
    file_sha256,
    load_manifest,
    new_manifest,
    provenance_problem,
    write_manifest,
)
from belote_sim.simulation.output import Output
from belote_sim.simulation.safe_io import signals_deferred

__all__ = [
    "SUMMARY_COLUMNS",
    "dataset_summary",
    "empty_aggregates",
    "frame_aggregates",
    "merge_aggregates",
    "rebuild_manifest",
    "with_means",
]

SUMMARY_COLUMNS = ["strain", "outcome", "taker", "mp0", "mp1"]


def empty_aggregates() -> dict[str, Any]:
    """Zero aggregates: ``contracts``, ``made`` and ``mp`` per strain, ``thrown_in``."""
    return {
        "contracts": {s: 0 for s in STRAIN_NAMES},
        "made": {s: 0 for s in STRAIN_NAMES},
        "thrown_in": 0,
        "mp": {s: {"taker": 0, "defenders": 0} for s in STRAIN_NAMES},
    }


def _mp_sums(
    strain: np.ndarray, taker: np.ndarray, mps: list[np.ndarray], into: dict[str, Any]
) -> None:
    """Add the taker's side's and the defenders' match points per strain (codes; -1 =
    none).  ``mps``: the ``mp`` columns -- two teams in the 4-player game (the taker's
    team is ``taker % 2``), one per player where every player is alone."""
    played = strain >= 0
    strain, taker = strain[played], taker[played]
    table = np.stack([m[played].astype(np.int64) for m in mps], axis=1)
    rows = np.arange(len(taker))
    taker_mp = table[rows, taker % len(mps)]
    defender_mp = table.sum(axis=1) - taker_mp
    n = len(STRAIN_NAMES)
    taker_sum = np.zeros(n, np.int64)
    defender_sum = np.zeros(n, np.int64)
    np.add.at(taker_sum, strain, taker_mp)
    np.add.at(defender_sum, strain, defender_mp)
    for k, name in enumerate(STRAIN_NAMES):
        into["mp"][name]["taker"] += int(taker_sum[k])
        into["mp"][name]["defenders"] += int(defender_sum[k])


def frame_aggregates(df) -> dict[str, Any]:
    """Aggregates of an in-memory deals table (the reference for the streamed ones).

    ``contracts``, ``made``, ``thrown_in`` as ``results.summary_counts``; ``mp``: per
    strain, the sums of the taker's team's and of the defenders' match points.
    """
    agg = empty_aggregates()
    counts = summary_counts(df, {})
    for key in ("contracts", "made"):
        for strain, n in counts.get(key, {}).items():
            agg[key][str(strain)] += int(n)
    agg["thrown_in"] = int(counts.get("thrown_in", 0))
    strain = df["strain"].cat.codes.to_numpy(np.int64)
    taker = df["taker"].fillna(-1).to_numpy(np.int64)
    mps = [df[f"mp{k}"].to_numpy(np.int64) for k in range(3) if f"mp{k}" in df.columns]
    _mp_sums(strain, taker, mps, agg)
    return agg


def merge_aggregates(total: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    """Add the aggregates ``part`` (of one chunk) into ``total``; returns ``total``."""
    for key in ("contracts", "made"):
        for strain, n in part[key].items():
            total[key][strain] = total[key].get(strain, 0) + int(n)
    total["thrown_in"] += int(part["thrown_in"])
    for strain, sums in part["mp"].items():
        for side in ("taker", "defenders"):
            total["mp"][strain][side] += int(sums[side])
    return total


def with_means(agg: dict[str, Any]) -> dict[str, Any]:
    """``agg`` with ``mean_mp``: per strain, the mean MP of the taker's team and of the
    defenders per contract (None for a strain never played)."""
    agg["mean_mp"] = {}
    for strain in STRAIN_NAMES:
        n = agg["contracts"].get(strain, 0)
        sums = agg["mp"][strain]
        agg["mean_mp"][strain] = (
            {"taker": sums["taker"] / n, "defenders": sums["defenders"] / n} if n else None
        )
    return agg


def _strain_codes(array) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    codes = pc.index_in(array.cast(pa.string()), value_set=pa.array(list(STRAIN_NAMES)))
    return codes.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _ints(array, fill: int = -1) -> np.ndarray:
    return array.fill_null(fill).to_numpy(zero_copy_only=False).astype(np.int64)


def dataset_summary(
    out_dir: str | os.PathLike,
    batch_size: int = 1 << 16,
    allow_incomplete: bool = False,
    verify: bool = True,
) -> dict[str, Any]:
    """Aggregates of a dataset, streamed batch by batch (bounded memory); the parts'
    checksums are checked first unless ``verify`` is False.

    ``deals``, ``contracts`` and ``made`` per strain, ``thrown_in``, ``mp`` (per strain,
    sums of the taker's team's and the defenders' match points) and ``mean_mp``; the
    same numbers as ``frame_aggregates`` on the whole table in memory.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    dataset = read_dataset(out_dir, allow_incomplete, verify)
    agg = empty_aggregates()
    deals = 0
    mp_columns = [f"mp{k}" for k in range(3) if f"mp{k}" in dataset.schema.names]
    for batch in dataset.to_batches(
        columns=SUMMARY_COLUMNS + mp_columns[2:], batch_size=batch_size
    ):
        deals += batch.num_rows
        strain = _strain_codes(batch.column("strain"))
        outcome = batch.column("outcome")
        if pa.types.is_dictionary(outcome.type):
            outcome = outcome.dictionary_decode()
        outcome = outcome.cast(pa.string())
        made = pc.equal(outcome, "made").fill_null(False).to_numpy(zero_copy_only=False)
        thrown = pc.equal(outcome, "thrown_in").fill_null(False).to_numpy(zero_copy_only=False)
        n = len(STRAIN_NAMES)
        played = strain >= 0
        contracts = np.bincount(strain[played], minlength=n)
        made_counts = np.bincount(strain[played & made], minlength=n)
        for k, name in enumerate(STRAIN_NAMES):
            agg["contracts"][name] += int(contracts[k])
            agg["made"][name] += int(made_counts[k])
        agg["thrown_in"] += int(thrown.sum())
        _mp_sums(
            strain,
            _ints(batch.column("taker")),
            [_ints(batch.column(c), 0) for c in mp_columns],
            agg,
        )
    return {"deals": deals, **with_means(agg)}


def _mixed_studies(out_dir: str, studies: dict[str, list[str]]) -> ValueError:
    """The one-line refusal of a directory whose parts belong to several studies
    (``studies``: provenance JSON -> part names)."""
    provs = [json.loads(k) for k in studies]
    keys = sorted({k for p in provs for k in p if any(p.get(k) != q.get(k) for q in provs)})
    shown = []
    for prov_json, names in sorted(studies.items(), key=lambda kv: -len(kv[1]))[:3]:
        prov = json.loads(prov_json)
        diff = ", ".join(f"{k} {repr(prov.get(k))[:40]}" for k in keys[:3])
        shown.append(f"{len(names)} like {names[0]}" + (f": {diff}" if diff else ""))
    return ValueError(
        f"{out_dir}: its parts belong to {len(studies)} different studies "
        f"({'; '.join(shown)}); a manifest is never rebuilt from a mix: move the parts "
        "of the other studies to another directory, then rebuild each"
    )


def rebuild_manifest(out_dir: str | os.PathLike, force: bool = False) -> dict[str, Any]:
    """Rebuild a lost (or unreadable) manifest from the intact part files of a dataset.

    Every ``part-NNNNNN.parquet`` is read whole (which checks it); the readable parts
    must all belong to one study (the same provenance), else the directory is refused
    (``ValueError`` naming the studies: a mix is never adopted as one study).  A part
    counts when its chunk id, first deal and row count are the ones its name and the
    provenance imply.  Its checksum, size and aggregates are recomputed.  Other files
    are left alone and not listed; a later run of the same study redoes the missing
    chunks.  A directory whose manifest is readable is refused unless ``force``.
    Returns ``chunks`` (parts listed), ``n_chunks``, ``complete``, ``skipped``
    (``"NAME: why"``) and ``manifest`` (path).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    out_dir = os.path.abspath(os.fspath(out_dir))
    if not os.path.isdir(out_dir):
        raise ValueError(f"{out_dir}: no such directory")
    # the output discipline: the directory checked and locked (the lock of a dataset run)
    # before the parts are read; an interruption says the manifest was not written
    with Output(
        os.path.join(out_dir, MANIFEST),
        what="the manifest",
        exists_ok=True,
        lock=os.path.join(out_dir, LOCK),
    ) as out:
        if not force:
            try:
                existing = load_manifest(out_dir)
            except ValueError:
                existing = None
            if existing is not None:
                raise ValueError(
                    f"{out_dir} has a readable manifest; pass --force (force=True) "
                    "to rebuild it anyway"
                )
        names = sorted(n for n in os.listdir(out_dir) if PART_RE.match(n))
        if not names:
            raise ValueError(f"{out_dir}: no part files (part-NNNNNN.parquet) to rebuild from")
        studies: dict[str, list[str]] = {}  # provenance (JSON) -> its parts
        found = []  # (name, chunk, provenance, chunk metadata, entry without checks)
        skipped = []
        for name in names:
            path = os.path.join(out_dir, name)
            match = PART_RE.match(name)
            assert match is not None  # names come from the part-name filter
            c = int(match.group(1))
            try:
                pf = pq.ParquetFile(path)
                meta = pf.metadata.metadata or {}
                prov = json.loads(meta[PROVENANCE_KEY])
                chunk = json.loads(meta[CHUNK_KEY])
                if provenance_problem(prov):
                    raise ValueError(provenance_problem(prov))
                df = pf.read().to_pandas()
                aggregates = frame_aggregates(df)
            except (OSError, KeyError, ValueError, TypeError, pa.ArrowException):
                skipped.append(f"{name}: not a readable part file")
                continue
            studies.setdefault(json.dumps(prov, sort_keys=True), []).append(name)
            found.append((name, c, prov, chunk, len(df), "plays" in df.columns, aggregates))
        if not found:
            raise ValueError(f"{out_dir}: no readable part file to rebuild from")
        if len(studies) > 1:
            raise _mixed_studies(out_dir, studies)
        provenance = found[0][2]
        trick_log = found[0][5]
        size, n = provenance.get("chunk_size"), provenance.get("n")
        if not (isinstance(size, int) and isinstance(n, int) and size >= 1):
            raise ValueError(
                f"{out_dir}: the parts' provenance has no chunk size or deal count; "
                "cannot rebuild a manifest"
            )
        entries = []
        for name, c, _, chunk, rows, _, aggregates in found:
            path = os.path.join(out_dir, name)
            length = min(size, n - c * size)
            if (
                not isinstance(chunk, dict)
                or chunk.get("chunk") != c
                or length < 1
                or chunk.get("first_deal") != c * size
                or rows != length
                or chunk.get("rows") != length
            ):
                skipped.append(f"{name}: chunk id, first deal or row count do not match")
                continue
            entries.append(
                {
                    "chunk": c,
                    "file": name,
                    "first_deal": c * size,
                    "rows": length,
                    "entropy": int(provenance["seed"]),
                    "spawn_key": [c],
                    "sha256": file_sha256(path),
                    "bytes": os.path.getsize(path),
                    "seconds": None,
                    "aggregates": aggregates,
                }
            )
        manifest = new_manifest(provenance, n, size, provenance["seed"], trick_log)
        manifest["chunks"] = entries
        manifest["complete"] = len(entries) == manifest["n_chunks"]
        manifest["rebuilt"] = True
        with signals_deferred():
            write_manifest(out_dir, manifest)
            out.mark_written()
    return {
        "chunks": len(entries),
        "n_chunks": manifest["n_chunks"],
        "complete": manifest["complete"],
        "skipped": skipped,
        "manifest": os.path.join(out_dir, MANIFEST),
    }
