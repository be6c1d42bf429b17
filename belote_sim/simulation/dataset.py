"""Dataset directories: the manifest, part files and their checks, reading and
summarising a dataset, rebuilding a lost manifest.

A dataset directory holds ``part-NNNNNN.parquet`` files (one per chunk) and
``_manifest.json`` (a name Parquet readers skip), written by ``distributed.run_study``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from typing import Any

import numpy as np

from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.simulation.deal_table import PROVENANCE_KEY, deals_frame, summary_counts
from belote_sim.simulation.safe_io import run_lock

MANIFEST = "_manifest.json"


LEGACY_MANIFEST = "manifest.json"


LOCK = "_belote_sim.lock"


MANIFEST_FORMAT = "belote-sim-dataset/1"


PART_TEMPLATE = "part-{:06d}.parquet"


PART_RE = re.compile(r"^part-(\d{6,})\.parquet$")


TEMP_MARK = ".tmp-"


CHUNK_KEY = b"belote_sim_chunk"


SUMMARY_COLUMNS = ["strain", "outcome", "taker", "mp0", "mp1"]


def _empty_aggregates() -> dict[str, Any]:
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
    agg = _empty_aggregates()
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


def _merge(total: dict[str, Any], part: dict[str, Any]) -> dict[str, Any]:
    for key in ("contracts", "made"):
        for strain, n in part[key].items():
            total[key][strain] = total[key].get(strain, 0) + int(n)
    total["thrown_in"] += int(part["thrown_in"])
    for strain, sums in part["mp"].items():
        for side in ("taker", "defenders"):
            total["mp"][strain][side] += int(sums[side])
    return total


def _with_means(agg: dict[str, Any]) -> dict[str, Any]:
    agg["mean_mp"] = {}
    for strain in STRAIN_NAMES:
        n = agg["contracts"].get(strain, 0)
        sums = agg["mp"][strain]
        agg["mean_mp"][strain] = (
            {"taker": sums["taker"] / n, "defenders": sums["defenders"] / n} if n else None
        )
    return agg


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _atomic_write(path: str, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` via a fsynced temporary file and ``os.replace``."""
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, f".{name}{TEMP_MARK}{uuid.uuid4().hex}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory or ".")


def file_sha256(path: str | os.PathLike) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _check_visible(path: str, size: int) -> None:
    """The client sees the part a worker wrote or checked (shared filesystem)."""
    try:
        seen = os.path.getsize(path)
    except OSError:
        seen = None
    if seen != size:
        raise RuntimeError(
            f"{path}: a worker wrote or checked this part ({size} bytes) but the client "
            f"{'does not see it' if seen is None else f'sees {seen} bytes'}: the output "
            "directory must be on a filesystem shared by the client and every worker, at "
            "the same path"
        )


def _is_temp(name: str) -> bool:
    return name.startswith(".") and TEMP_MARK in name


def load_manifest(out_dir: str | os.PathLike) -> dict[str, Any] | None:
    """The dataset's manifest (``_manifest.json``, or an older dataset's
    ``manifest.json``), or None if the directory has none."""
    path = os.path.join(out_dir, MANIFEST)
    if not os.path.exists(path):
        path = os.path.join(out_dir, LEGACY_MANIFEST)
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as f:
            manifest = json.load(f)
        if manifest.get("format") != MANIFEST_FORMAT:
            raise ValueError(f"unknown format {manifest.get('format')!r}")
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{path}: not a readable belote-sim dataset manifest ({exc}); "
            "rebuild it from the parts with 'belote-sim dataset "
            "rebuild-manifest DIR', or remove the directory to start over"
        ) from None
    return manifest


def _write_manifest(out_dir: str, manifest: dict[str, Any]) -> None:
    manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    manifest["chunks"] = sorted(manifest["chunks"], key=lambda e: e["chunk"])
    _atomic_write(
        os.path.join(out_dir, MANIFEST), json.dumps(manifest, indent=1, sort_keys=False).encode()
    )
    legacy = os.path.join(out_dir, LEGACY_MANIFEST)
    if os.path.exists(legacy):  # an older dataset, now carried on under the new name
        os.unlink(legacy)


def _new_manifest(
    provenance: dict[str, Any], n_deals: int, chunk_size: int, seed: int, trick_log: bool
) -> dict[str, Any]:
    return {
        "format": MANIFEST_FORMAT,
        "provenance": provenance,
        "n_deals": n_deals,
        "chunk_size": chunk_size,
        "n_chunks": -(-n_deals // chunk_size),
        "trick_log": bool(trick_log),
        "seeds": {
            "entropy": int(seed),
            "rule": "chunk c: numpy.random.SeedSequence(entropy, spawn_key=(c,))"
            ".generate_state(rows, uint64)",
        },
        "complete": False,
        "chunks": [],
    }


def _part_problem(path: str, entry: dict[str, Any]) -> str | None:
    """Why a part file does not match its manifest entry (cheap: size and footer), or
    None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = entry["file"]
    try:
        size = os.path.getsize(path)
    except OSError:
        return f"chunk {entry['chunk']}: {name} missing"
    if "bytes" in entry and size != entry["bytes"]:
        return (
            f"chunk {entry['chunk']}: {name} has {size} bytes, the manifest says {entry['bytes']}"
        )
    try:
        meta = pq.ParquetFile(path).metadata
        rows = meta.num_rows
        chunk = json.loads((meta.metadata or {}).get(CHUNK_KEY, b"null"))
    except (OSError, ValueError, pa.ArrowException):
        return f"chunk {entry['chunk']}: {name} is not a readable Parquet file"
    if rows != entry["rows"]:
        return f"chunk {entry['chunk']}: {name} has {rows} rows, the manifest says {entry['rows']}"
    if (
        not isinstance(chunk, dict)
        or chunk.get("chunk") != entry["chunk"]
        or chunk.get("first_deal") != entry["first_deal"]
    ):
        return (
            f"chunk {entry['chunk']}: {name} holds "
            + (f"chunk {chunk.get('chunk')}" if isinstance(chunk, dict) else "no chunk id")
            + " (deal ids would not match)"
        )
    return None


def dataset_status(out_dir: str | os.PathLike, allow_incomplete: bool = False) -> dict[str, Any]:
    """The checked parts of a dataset directory.

    Reads the manifest and checks every part it lists against it (size, and in the
    Parquet footer: row count, chunk id, first deal; ``verify_dataset`` also
    recomputes checksums).  Returns ``manifest``, ``paths`` (the good parts, in deal
    order), ``chunks`` (their number), ``n_chunks``, ``complete`` and ``problems``.
    ``ValueError`` (one line) for a directory without a manifest, and for an unfinished
    dataset or a bad part unless ``allow_incomplete`` (bad parts are then left out).
    Files not in the manifest (strays, temporaries) are never read.
    """
    out_dir = os.fspath(out_dir)
    manifest = load_manifest(out_dir)
    if manifest is None:
        raise ValueError(
            f"{out_dir}: no {MANIFEST}: not a dataset written by run_study "
            "(if its parts are intact, 'belote-sim dataset rebuild-manifest "
            "DIR' rebuilds it)"
        )
    chunks = sorted(manifest["chunks"], key=lambda e: e["chunk"])
    n_chunks = manifest["n_chunks"]
    problems = []
    paths = []
    for entry in chunks:
        path = os.path.join(out_dir, entry["file"])
        problem = _part_problem(path, entry)
        if problem:
            problems.append(problem)
        else:
            paths.append(path)
    missing = sorted(set(range(n_chunks)) - {e["chunk"] for e in chunks})
    complete = bool(manifest.get("complete")) and not missing and not problems
    if not allow_incomplete:
        if problems:
            raise ValueError(
                f"{out_dir}: dataset incomplete or damaged: {problems[0]}"
                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
                + "; rerun the same command to redo it, or pass "
                "--allow-incomplete (allow_incomplete=True) to leave it out"
            )
        if not complete:
            raise ValueError(
                f"{out_dir}: dataset incomplete ({len(missing)} of {n_chunks} "
                "chunks missing"
                + (f", first {missing[:5]}" if missing else ", a run did not finish")
                + "); rerun the same command to finish it, or pass "
                "--allow-incomplete (allow_incomplete=True) to read what is there"
            )
    return {
        "manifest": manifest,
        "paths": paths,
        "chunks": len(paths),
        "n_chunks": n_chunks,
        "complete": complete,
        "problems": problems,
    }


def _part_paths(out_dir: str | os.PathLike, allow_incomplete: bool) -> tuple[dict, list[str]]:
    status = dataset_status(out_dir, allow_incomplete)
    return status["manifest"], status["paths"]


def read_dataset(out_dir: str | os.PathLike, allow_incomplete: bool = False):
    """The finished parts of a dataset as a ``pyarrow.dataset.Dataset`` (deal order).

    Only files recorded in the manifest are part of it (never a temporary or stray
    file), each checked against it first (``dataset_status``).
    ``dataset.to_table().to_pandas()`` gives the deals table;
    ``dataset.to_batches(columns=...)`` streams it.  The schema metadata holds the
    provenance under ``belote_sim``.  An incomplete dataset is an error unless
    ``allow_incomplete``.
    """
    import pyarrow.dataset as ds

    _, paths = _part_paths(out_dir, allow_incomplete)
    if not paths:
        import pyarrow as pa

        return ds.dataset(pa.Table.from_pandas(deals_frame(None), preserve_index=False))
    return ds.dataset(paths, format="parquet")


def verify_dataset(out_dir: str | os.PathLike) -> list[str]:
    """Problems of a dataset (missing chunks, missing or altered files); [] if none."""
    manifest = load_manifest(out_dir)
    if manifest is None:
        raise ValueError(f"{out_dir}: no {MANIFEST}: not a dataset written by run_study")
    problems = []
    seen = {e["chunk"] for e in manifest["chunks"]}
    for c in sorted(set(range(manifest["n_chunks"])) - seen):
        problems.append(f"chunk {c}: not finished")
    for e in manifest["chunks"]:
        path = os.path.join(out_dir, e["file"])
        if not os.path.exists(path):
            problems.append(f"chunk {e['chunk']}: {e['file']} missing")
        elif file_sha256(path) != e["sha256"]:
            problems.append(f"chunk {e['chunk']}: {e['file']} checksum mismatch")
    return problems


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
    out_dir: str | os.PathLike, batch_size: int = 1 << 16, allow_incomplete: bool = False
) -> dict[str, Any]:
    """Aggregates of a dataset, streamed batch by batch (bounded memory).

    ``deals``, ``contracts`` and ``made`` per strain, ``thrown_in``, ``mp`` (per strain,
    sums of the taker's team's and the defenders' match points) and ``mean_mp``; the
    same numbers as ``frame_aggregates`` on the whole table in memory.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    dataset = read_dataset(out_dir, allow_incomplete)
    agg = _empty_aggregates()
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
    return {"deals": deals, **_with_means(agg)}


def rebuild_manifest(out_dir: str | os.PathLike, force: bool = False) -> dict[str, Any]:
    """Rebuild a lost (or unreadable) manifest from the intact part files of a dataset.

    Every ``part-NNNNNN.parquet`` is read whole (which checks it); one counts when its
    provenance is the study's (that of the first readable part), its chunk id, first
    deal and row count are the ones its name and the provenance imply.  Its checksum,
    size and aggregates are recomputed.  Other files are left alone and not listed; a
    later run of the same study redoes the missing chunks.  A directory whose manifest
    is readable is refused unless ``force``.  Returns ``chunks`` (parts listed),
    ``n_chunks``, ``complete``, ``skipped`` (``"NAME: why"``) and ``manifest`` (path).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    out_dir = os.path.abspath(os.fspath(out_dir))
    if not os.path.isdir(out_dir):
        raise ValueError(f"{out_dir}: no such directory")
    with run_lock(os.path.join(out_dir, LOCK), out_dir):
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
        provenance: dict[str, Any] | None = None
        trick_log = False
        entries, skipped = [], []
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
                df = pf.read().to_pandas()
            except (OSError, KeyError, ValueError, pa.ArrowException):
                skipped.append(f"{name}: not a readable part file")
                continue
            if provenance is None:
                provenance = prov
                trick_log = "plays" in df.columns
            if prov != provenance:
                skipped.append(f"{name}: a part of another study")
                continue
            size, n = provenance.get("chunk_size"), provenance.get("n")
            if not (isinstance(size, int) and isinstance(n, int)):
                skipped.append(f"{name}: no chunk size or deal count in its provenance")
                continue
            length = min(size, n - c * size)
            if (
                not isinstance(chunk, dict)
                or chunk.get("chunk") != c
                or length < 1
                or chunk.get("first_deal") != c * size
                or len(df) != length
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
                    "aggregates": frame_aggregates(df),
                }
            )
        if provenance is None:
            raise ValueError(f"{out_dir}: no readable part file to rebuild from")
        manifest = _new_manifest(
            provenance, provenance["n"], provenance["chunk_size"], provenance["seed"], trick_log
        )
        manifest["chunks"] = entries
        manifest["complete"] = len(entries) == manifest["n_chunks"]
        manifest["rebuilt"] = True
        _write_manifest(out_dir, manifest)
    return {
        "chunks": len(entries),
        "n_chunks": manifest["n_chunks"],
        "complete": manifest["complete"],
        "skipped": skipped,
        "manifest": os.path.join(out_dir, MANIFEST),
    }
