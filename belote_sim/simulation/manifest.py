"""The files of a dataset directory: their names, the manifest and the part checks.

A dataset directory holds ``part-NNNNNN.parquet`` files (one per chunk) and
``_manifest.json`` (a name Parquet readers skip), written by ``distributed.run_study``.
The manifest lists every finished part (chunk, first deal, rows, bytes, checksum,
aggregates); readers use only the parts it lists, each checked against its entry
first (``dataset_status``: size, footer and, unless ``verify=False``, its SHA-256),
and ``verify_dataset`` recomputes the checksums.  A manifest is validated whole when
it is read (``load_manifest``: its fields, their types, every entry's chunk, file
name, first deal, rows, checksum and aggregates against the study's size): a damaged
one is one line naming the file and the problem, never a traceback and never a part
read from outside the directory.  Reading
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

from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.simulation.safe_io import MANIFEST_LIMIT, atomic_write, read_limited

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
    "manifest_problem",
    "new_manifest",
    "provenance_problem",
    "reason_text",
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


def reason_text(exc: BaseException, limit: int = 200) -> str:
    """An exception as a short phrase on one line, for a one-line error (pyarrow's and
    numpy's messages may hold newlines and control characters)."""
    text = " ".join("".join(c if c.isprintable() else " " for c in str(exc)).split())
    return text[:limit] or type(exc).__name__


def _is_int(value: Any, low: int | None = None) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (low is None or value >= low)
        and value < 1 << 63
    )


def provenance_problem(provenance: Any) -> str | None:
    """Why a study's provenance (kept with a table or in a manifest) cannot be read, or
    None: a JSON object whose known fields have the types the readers use, naming a
    game that exists (2, 3 or 4 players; variant standard or open).  Fields may be
    missing (older tables), never of another type."""
    if not isinstance(provenance, dict):
        return "is not a JSON object"
    options = provenance.get("options", {})
    if not isinstance(options, dict):
        return "has options that are not a JSON object"
    players, variant = options.get("players", 4), options.get("variant", "standard")
    if isinstance(players, bool) or players not in (2, 3, 4):
        return f"names a game of {players!r} players (belote-sim plays 2, 3 or 4)"
    if variant not in ("standard", "open"):
        return f"names an unknown variant {variant!r}"
    checks = {
        "n": lambda v: _is_int(v, 0),
        "chunk_size": lambda v: _is_int(v, 1),
        "seed": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "dealer": lambda v: v is None or (_is_int(v, 0) and v < players),
        "ruleset": lambda v: isinstance(v, str),
        "bidding": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "play": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "predeal": lambda v: isinstance(v, dict),
        "constraints": lambda v: isinstance(v, dict),
        "belote_silent": lambda v: isinstance(v, list) and all(_is_int(x, 0) for x in v),
    }
    for key, ok in checks.items():
        if key in provenance and not ok(provenance[key]):
            return f"has a bad {key!r}: {provenance[key]!r}"[:200]
    return None


def _aggregates_problem(agg: Any) -> str | None:
    if not isinstance(agg, dict):
        return "not a JSON object"
    for key in ("contracts", "made"):
        counts = agg.get(key)
        if not isinstance(counts, dict) or not all(
            k in STRAIN_NAMES and _is_int(v, 0) for k, v in counts.items()
        ):
            return f"bad {key!r}"
    if not _is_int(agg.get("thrown_in"), 0):
        return "bad 'thrown_in'"
    mp = agg.get("mp")
    if not isinstance(mp, dict) or not all(
        k in STRAIN_NAMES
        and isinstance(v, dict)
        and all(_is_int(v.get(side)) for side in ("taker", "defenders"))
        for k, v in mp.items()
    ):
        return "bad 'mp'"
    return None


_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _entry_problem(entry: Any, chunk_size: int, n_deals: int, n_chunks: int) -> str | None:
    if not isinstance(entry, dict):
        return "an entry of 'chunks' is not a JSON object"
    c = entry.get("chunk")
    if not (isinstance(c, int) and _is_int(c, 0) and c < n_chunks):
        return f"an entry has chunk {c!r}, not one of 0..{n_chunks - 1}"[:200]
    first = c * chunk_size
    expected = {
        "file": PART_TEMPLATE.format(c),
        "first_deal": first,
        "rows": min(chunk_size, n_deals - first),
    }
    for key, value in expected.items():
        if entry.get(key) != value or isinstance(entry.get(key), bool):
            return f"chunk {c}: {key} {entry.get(key)!r}, expected {value!r}"[:200]
    if not isinstance(entry.get("sha256"), str) or not _SHA256.match(entry["sha256"]):
        return f"chunk {c}: no SHA-256 checksum"
    if not _is_int(entry.get("bytes"), 0):
        return f"chunk {c}: bad 'bytes'"
    problem = _aggregates_problem(entry.get("aggregates"))
    if problem:
        return f"chunk {c}: aggregates: {problem}"
    return None


def manifest_problem(manifest: Any) -> str | None:
    """Why a parsed manifest is not one ``run_study`` writes, or None (the checks of
    ``load_manifest``)."""
    if not isinstance(manifest, dict):
        return f"a JSON {type(manifest).__name__}, not an object"
    if manifest.get("format") != MANIFEST_FORMAT:
        return f"unknown format {manifest.get('format')!r}"[:200]
    for key in ("provenance", "n_deals", "chunk_size", "n_chunks", "chunks", "complete"):
        if key not in manifest:
            return f"no {key!r}"
    n_deals, size, n_chunks = manifest["n_deals"], manifest["chunk_size"], manifest["n_chunks"]
    if not (_is_int(n_deals, 0) and _is_int(size, 1)):
        return f"bad n_deals {n_deals!r} or chunk_size {size!r}"[:200]
    if n_chunks != -(-n_deals // size) or isinstance(n_chunks, bool):
        return f"n_chunks {n_chunks!r} does not match {n_deals} deals in chunks of {size}"[:200]
    if not isinstance(manifest["complete"], bool):
        return "'complete' is not true or false"
    if not isinstance(manifest.get("trick_log", False), bool):
        return "'trick_log' is not true or false"
    provenance = manifest["provenance"]
    problem = provenance_problem(provenance)
    if problem:
        return f"its provenance {problem}"
    for key, value in (("n", n_deals), ("chunk_size", size)):
        if key in provenance and provenance[key] != value:
            return f"its provenance says {key} {provenance[key]!r}, the manifest {value!r}"[:200]
    chunks = manifest["chunks"]
    if not isinstance(chunks, list):
        return "'chunks' is not a list"
    seen = set()
    for entry in chunks:
        problem = _entry_problem(entry, size, n_deals, n_chunks)
        if problem:
            return problem
        if entry["chunk"] in seen:
            return f"chunk {entry['chunk']} listed twice"
        seen.add(entry["chunk"])
    return None


def load_manifest(out_dir: str | os.PathLike) -> dict[str, Any] | None:
    """The dataset's manifest (``_manifest.json``, or an older dataset's
    ``manifest.json``), or None if the directory has none.  ``ValueError`` (one line,
    naming the file and the problem) for one that is not valid JSON or not a manifest
    ``run_study`` writes (``manifest_problem``)."""
    path = os.path.join(out_dir, MANIFEST)
    if not os.path.lexists(path):
        path = os.path.join(out_dir, LEGACY_MANIFEST)
    if not os.path.lexists(path):
        return None
    try:
        manifest = json.loads(read_limited(path, MANIFEST_LIMIT, "a manifest"))
        problem = manifest_problem(manifest)
        if problem:
            raise ValueError(problem)
    except (OSError, ValueError, RecursionError) as exc:
        raise ValueError(
            f"{path}: not a readable belote-sim dataset manifest ({reason_text(exc)}); "
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


def dataset_status(
    out_dir: str | os.PathLike, allow_incomplete: bool = False, verify: bool = True
) -> dict[str, Any]:
    """The checked parts of a dataset directory.

    Reads the manifest and checks every part it lists against it (size, and in the
    Parquet footer: row count, chunk id, first deal) and, with ``verify`` (the
    default), recomputes its SHA-256: one read of every part, which ``verify=False``
    (``--no-verify``) skips for speed.  Returns ``manifest``, ``paths`` (the good parts, in deal
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
        if problem is None and verify and file_sha256(path) != entry["sha256"]:
            problem = (
                f"chunk {entry['chunk']}: {entry['file']} checksum mismatch (altered "
                "since it was written)"
            )
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
