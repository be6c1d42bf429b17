"""The files of a dataset directory: their names, the manifest and the part checks.

A dataset directory holds ``part-NNNNNN.parquet`` files (one per chunk) and
``_manifest.json`` (a name Parquet readers skip), written by ``distributed.run_study``.
The manifest lists every finished part (chunk, first deal, rows, bytes, checksum,
aggregates); readers use only the parts it lists, each checked against its entry
first (``dataset_status``), and ``verify_dataset`` recomputes the checksums.  Reading
the parts as a table is ``deal_table.read_dataset``; the aggregates, the streamed
summary and rebuilding a lost manifest are in ``dataset``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from typing import Any

from belote_sim.simulation.safe_io import atomic_write

__all__ = [
    "CHUNK_KEY",
    "LEGACY_MANIFEST",
    "LOCK",
    "MANIFEST",
    "MANIFEST_FORMAT",
    "PART_RE",
    "PART_TEMPLATE",
    "dataset_status",
    "file_sha256",
    "load_manifest",
    "new_manifest",
    "verify_dataset",
    "write_manifest",
]

MANIFEST = "_manifest.json"


LEGACY_MANIFEST = "manifest.json"


LOCK = "_belote_sim.lock"


MANIFEST_FORMAT = "belote-sim-dataset/1"


PART_TEMPLATE = "part-{:06d}.parquet"


PART_RE = re.compile(r"^part-(\d{6,})\.parquet$")


#: Parquet file metadata of a dataset part: ``{"chunk": c, "first_deal": d, "rows": n}``
CHUNK_KEY = b"belote_sim_chunk"


def file_sha256(path: str | os.PathLike) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


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


def write_manifest(out_dir: str, manifest: dict[str, Any]) -> None:
    manifest["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    manifest["chunks"] = sorted(manifest["chunks"], key=lambda e: e["chunk"])
    atomic_write(
        os.path.join(out_dir, MANIFEST), json.dumps(manifest, indent=1, sort_keys=False).encode()
    )
    legacy = os.path.join(out_dir, LEGACY_MANIFEST)
    if os.path.exists(legacy):  # an older dataset, now carried on under the new name
        os.unlink(legacy)


def new_manifest(
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
