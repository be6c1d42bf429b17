"""Run a study on a Dask cluster into a partitioned Parquet dataset; read it back.

``run_study(study, n_deals, out_dir, scheduler=...)`` runs the chunks of a ``Study``
as ``dask.distributed`` tasks, one task per chunk.  Chunk c is simulated exactly as
``Study.run_chunk`` does it locally (per-deal seeds from
``SeedSequence(study.seed, spawn_key=(c,))``), so the dataset holds the same table as
``simulate()`` with the same seed and chunk size, whatever the cluster.

The output directory holds one Parquet file per chunk, ``part-{c:06d}.parquet``, each
with the study's provenance in its metadata (key ``belote_sim``), and
``_manifest.json`` (a name Parquet readers skip, so that pandas, pyarrow.dataset,
dask and duckdb open the directory as it is; datasets of older versions have
``manifest.json``, still read): the study's provenance, and for each finished chunk its id, seed
(entropy and spawn key), first deal, row count, the SHA-256 of its file and its
aggregates (contract mix, made counts, match points per strain).

Nothing lost, nothing doubled:

* a task writes its part to a temporary name in the directory, fsyncs it and renames
  it into place (``os.replace``); a chunk's file has one name, so a chunk run twice
  (a retried task) is still one file;
* a chunk counts only once the client has its task's result (rows, checksum,
  aggregates) in the manifest, which is itself replaced atomically; temporary files
  left by a crash are deleted on the next run and never read;
* rerunning the same study into the same directory resumes: a chunk whose part file
  is there with the checksum recorded in the manifest is skipped (the check runs on
  the workers), every other chunk is simulated again;
* dask reschedules the tasks of a worker that dies, and ``retries`` re-runs a task
  that raised;
* one run per directory at a time: a run holds ``_belote_sim.lock`` (pid, host, start
  time); another run is refused while that process lives, and a dead run's lock is
  taken over;
* a lost manifest is rebuilt from the intact parts by ``rebuild_manifest`` (``belote-sim
  dataset rebuild-manifest DIR``).

Readers (``read_dataset``, ``dataset_summary``, ``belote-sim report DIR``) use only the
parts listed in the manifest (stray files are ignored) and check each one's footer
against it (row count, chunk id and first deal, file size) before reading: an
unfinished dataset or a part that does not match is an error unless
``allow_incomplete`` (which still drops the parts that do not match).

The summary is reduced from the tasks' small aggregates: no deal row travels to the
client.  ``read_dataset`` opens the parts listed in the manifest as a
``pyarrow.dataset.Dataset`` (larger than memory is fine); ``dataset_summary``
computes the aggregates by streaming record batches.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.simulation.deal_table import PROVENANCE_KEY, deals_frame, summary_counts
from belote_sim.simulation.safe_io import check_free_space, run_lock

MANIFEST = "_manifest.json"
LEGACY_MANIFEST = "manifest.json"
LOCK = "_belote_sim.lock"
MANIFEST_FORMAT = "belote-sim-dataset/1"
PART_TEMPLATE = "part-{:06d}.parquet"
PART_RE = re.compile(r"^part-(\d{6,})\.parquet$")
TEMP_MARK = ".tmp-"
CHUNK_KEY = b"belote_sim_chunk"
SUMMARY_COLUMNS = ["strain", "outcome", "taker", "mp0", "mp1"]


# --------------------------------------------------------------------------- aggregates


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


# --------------------------------------------------------------------------- files


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


# --------------------------------------------------------------------------- the task


def _chunk_task(
    study,
    chunk: int,
    length: int,
    out_dir: str,
    provenance: bytes,
    expected_sha256: str | None,
    trick_log: bool,
    numba_threads: int,
) -> dict[str, Any]:
    """Simulate one chunk into its part file (on a worker); return its small aggregate.

    With ``expected_sha256`` (the chunk is in the manifest) and a part file with that
    checksum, nothing is simulated: ``{"chunk": c, "skipped": True}``.
    """
    import numba
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = PART_TEMPLATE.format(chunk)
    path = os.path.join(out_dir, name)
    if expected_sha256 is not None and os.path.exists(path):
        if file_sha256(path) == expected_sha256:
            return {"chunk": chunk, "skipped": True}
    start = time.perf_counter()
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(numba_threads, numba.config.NUMBA_NUM_THREADS)))
    try:
        raw = study.run_chunk(chunk, length, keep_plays=trick_log)
    finally:
        numba.set_num_threads(previous)
    df = deals_frame(raw)
    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[PROVENANCE_KEY] = provenance
    meta[CHUNK_KEY] = json.dumps(
        {"chunk": chunk, "first_deal": chunk * study.chunk_size, "rows": length}
    ).encode()
    table = table.replace_schema_metadata(meta)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data = sink.getvalue()
    sha = hashlib.sha256(memoryview(data)).hexdigest()
    _atomic_write(path, memoryview(data))
    return {
        "chunk": chunk,
        "skipped": False,
        "rows": len(df),
        "sha256": sha,
        "bytes": int(data.size),
        "aggregates": frame_aggregates(df),
        "seconds": time.perf_counter() - start,
    }


# --------------------------------------------------------------------------- manifest


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


def _check_same_study(out_dir: str, old: dict[str, Any], new: dict[str, Any]) -> None:
    diffs = []
    for key in ("n_deals", "chunk_size", "trick_log"):
        if old.get(key) != new[key]:
            diffs.append(f"{key}: {old.get(key)!r} there, {new[key]!r} now")
    old_prov, new_prov = old.get("provenance", {}), new["provenance"]
    for key in sorted(set(old_prov) | set(new_prov)):
        if key in ("n", "chunk_size"):
            continue
        if old_prov.get(key) != new_prov.get(key):
            diffs.append(f"{key}: {old_prov.get(key)!r} there, {new_prov.get(key)!r} now")
    if diffs:
        raise ValueError(
            f"{out_dir} holds a different study ({'; '.join(diffs)}); "
            "use another output directory, or delete it to start over"
        )


def _prepare_dir(out_dir: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """Create or check the output directory; return the manifest to continue from."""
    os.makedirs(out_dir, exist_ok=True)
    old = load_manifest(out_dir)
    names = os.listdir(out_dir)
    if old is None:
        parts = [n for n in names if PART_RE.match(n)]
        if parts:
            raise ValueError(
                f"{out_dir} has part files but no {MANIFEST}: rebuild it from "
                "the parts with 'belote-sim dataset rebuild-manifest DIR' (or "
                "rebuild_manifest), or use another output directory"
            )
    else:
        _check_same_study(out_dir, old, manifest)
        manifest["chunks"] = [
            e for e in old.get("chunks", []) if 0 <= e["chunk"] < manifest["n_chunks"]
        ]
    for name in names:  # leftovers of a crash: never counted, removed
        if _is_temp(name):
            try:
                os.unlink(os.path.join(out_dir, name))
            except OSError:
                pass
    return manifest


# --------------------------------------------------------------------------- run


def require_dask():
    """``(Client, LocalCluster, as_completed)`` of dask.distributed, or a one-line error.

    dask is an optional extra (``pip install 'belote-sim[dask]'``): only cluster runs
    need it.  Raises ``ImportError`` subclass ``DaskMissing`` (caught by the CLI).
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise DaskMissing(
            "cluster runs (--workers, --scheduler) need dask: pip install 'belote-sim[dask]'"
        ) from None
    return Client, LocalCluster, as_completed


class DaskMissing(ImportError):
    """dask.distributed is not installed (the ``dask`` extra)."""


def _local_cluster(n_workers: int, threads_per_worker: int):
    """A ``LocalCluster`` whose worker processes ignore SIGINT: a Ctrl-C in a terminal
    reaches the whole process group, and the client, not each worker, stops the run
    (else every worker prints a traceback).  A Ctrl-C while it starts is ignored.
    Its workers log errors only."""
    import signal
    import threading

    from dask.distributed import LocalCluster

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    # the workers log errors only (not the warnings of tasks cancelled by a Ctrl-C)
    env = os.environ.get("DASK_LOGGING__DISTRIBUTED")
    os.environ["DASK_LOGGING__DISTRIBUTED"] = "error"
    try:
        return LocalCluster(
            n_workers=n_workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        )
    finally:
        if env is None:
            del os.environ["DASK_LOGGING__DISTRIBUTED"]
        else:
            os.environ["DASK_LOGGING__DISTRIBUTED"] = env
        if main:
            signal.signal(signal.SIGINT, previous)


def _quiet_dask() -> None:
    import logging

    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def run_study(
    study,
    n_deals: int,
    out_dir: str | os.PathLike,
    scheduler: str | None = None,
    workers: int | None = None,
    threads_per_worker: int = 1,
    progress: Callable[[int], None] | None = None,
    *,
    trick_log: bool = False,
    retries: int = 3,
    numba_threads: int = 1,
    manifest_interval: float = 1.0,
) -> dict[str, Any]:
    """Run ``n_deals`` deals of ``study`` as chunk tasks on dask.distributed.

    Parameters
    ----------
    study : a ``belote_sim.simulation.runner.Study`` (``make_study(...)``).
    out_dir : output directory (created); on a cluster, a path every worker and the
        client see (shared filesystem).  Rerunning into it resumes.
    scheduler : address of a running scheduler (``tcp://HOST:8786``); or None to
        start a ``LocalCluster`` of ``workers`` processes (default: one per core) with
        ``threads_per_worker`` threads each, closed at the end.
    progress : called with the number of deals of each chunk as it finishes (skipped
        chunks included), on the calling thread.
    trick_log : keep the playing order (column ``plays``).
    retries : re-runs of a task that raised (a task lost with its worker is
        rescheduled by dask anyway).
    numba_threads : numba threads a task uses (1: one chunk per dask thread).
    manifest_interval : seconds between manifest updates while chunks finish (longer
        for a manifest of many thousand chunks); a crash of the client loses the record
        of the chunks finished since the last update, which the next run redoes.

    Raises ``ValueError`` for bad arguments or a different study in ``out_dir``,
    ``OSError`` when the scheduler cannot be reached, and the task's exception (after
    ``retries``) or ``distributed.KilledWorker`` when a chunk cannot be done; the
    manifest then records the chunks finished so far.

    Returns a summary: ``deals``, ``seconds``, ``deals_per_s`` (deals simulated in this
    run per second), ``contracts``, ``made``, ``thrown_in`` (as
    ``simulate_to_parquet``; ``results.format_summary`` prints it), ``mp`` and
    ``mean_mp`` per strain, ``chunks``, ``computed_chunks``, ``skipped_chunks``,
    ``out_dir``, ``manifest``.
    """
    Client, _, as_completed = require_dask()

    from belote_sim.simulation.runner import RunInterrupted

    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 0:
        raise ValueError(f"n_deals must be a non-negative integer, got {n_deals!r}")
    if scheduler is not None and workers is not None:
        raise ValueError("give either a scheduler address or a number of local workers, not both")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if threads_per_worker < 1:
        raise ValueError(f"threads_per_worker must be positive, got {threads_per_worker!r}")
    n_deals = int(n_deals)
    study.check_feasible()
    out_dir = os.path.abspath(os.fspath(out_dir))
    provenance = study.provenance(n_deals)
    provenance = json.loads(json.dumps(provenance))  # as it reads back from JSON
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ValueError(f"{out_dir} is a file: a study on dask writes a dataset directory")
    os.makedirs(out_dir, exist_ok=True)
    with run_lock(os.path.join(out_dir, LOCK), out_dir):
        manifest = _new_manifest(provenance, n_deals, study.chunk_size, study.seed, trick_log)
        manifest = _prepare_dir(out_dir, manifest)
        left = n_deals - sum(e["rows"] for e in manifest["chunks"])
        check_free_space(out_dir, left, trick_log)
        _write_manifest(out_dir, manifest)

        start = time.perf_counter()
        n_chunks = manifest["n_chunks"]
        done = {e["chunk"]: e for e in manifest["chunks"]}
        prov_bytes = json.dumps(provenance).encode()
        computed: list[int] = []
        skipped: list[int] = []
        computed_deals = 0

        if n_chunks:
            cluster = None
            if scheduler is None:
                # compile or load the kernels here first, so that the local workers load
                # them from numba's disk cache instead of each compiling them
                study.run_chunk(0, 1, keep_plays=bool(trick_log))
                n_workers = workers or max(1, (os.cpu_count() or 1) // threads_per_worker)
                cluster = _local_cluster(n_workers, threads_per_worker)
            try:
                with Client(cluster if cluster is not None else scheduler) as client:
                    run_id = uuid.uuid4().hex[:12]
                    futures = []
                    for c in range(n_chunks):
                        length = min(study.chunk_size, n_deals - c * study.chunk_size)
                        expected = done[c]["sha256"] if c in done else None
                        futures.append(
                            client.submit(
                                _chunk_task,
                                study,
                                c,
                                length,
                                out_dir,
                                prov_bytes,
                                expected,
                                bool(trick_log),
                                numba_threads,
                                key=f"belote-sim-chunk-{run_id}-{c:06d}",
                                retries=retries,
                                pure=False,
                            )
                        )
                    next_write = time.monotonic() + manifest_interval
                    try:
                        for future in as_completed(futures):
                            result = future.result()
                            future.release()
                            c = result["chunk"]
                            first = c * study.chunk_size
                            length = min(study.chunk_size, n_deals - first)
                            path = os.path.join(out_dir, PART_TEMPLATE.format(c))
                            if result["skipped"]:
                                skipped.append(c)
                                _check_visible(path, done[c]["bytes"])
                            else:
                                if result["rows"] != length:
                                    raise RuntimeError(
                                        f"chunk {c}: {result['rows']} rows, expected {length}"
                                    )
                                _check_visible(path, result["bytes"])
                                computed.append(c)
                                computed_deals += result["rows"]
                                done[c] = {
                                    "chunk": c,
                                    "file": PART_TEMPLATE.format(c),
                                    "first_deal": first,
                                    "rows": result["rows"],
                                    "entropy": int(study.seed),
                                    "spawn_key": [c],
                                    "sha256": result["sha256"],
                                    "bytes": result["bytes"],
                                    "seconds": round(result["seconds"], 3),
                                    "aggregates": result["aggregates"],
                                }
                                if time.monotonic() >= next_write:
                                    took = time.monotonic()
                                    manifest["chunks"] = list(done.values())
                                    _write_manifest(out_dir, manifest)
                                    took = time.monotonic() - took
                                    # a big manifest: keep its rewriting under ~5% of the time
                                    next_write = time.monotonic() + max(
                                        manifest_interval, 20 * took
                                    )
                            if progress:
                                progress(length)
                    except BaseException:
                        client.cancel([f for f in futures if not f.done()])
                        raise
                    finally:
                        manifest["chunks"] = list(done.values())
                        manifest["complete"] = len(computed) + len(skipped) == n_chunks
                        _write_manifest(out_dir, manifest)
            except KeyboardInterrupt:
                _quiet_dask()  # the workers' complaints about the closing cluster
                if cluster is not None:
                    cluster.close()
                    cluster = None
                raise RunInterrupted(
                    f"interrupted: {len(done)} of {n_chunks} chunks finished, recorded in "
                    f"{os.path.join(out_dir, MANIFEST)}; run the same command again to "
                    "resume"
                ) from None
            finally:
                if cluster is not None:
                    cluster.close()
        else:
            manifest["complete"] = True
            _write_manifest(out_dir, manifest)

    elapsed = time.perf_counter() - start
    total = _empty_aggregates()
    for c in sorted(done):
        _merge(total, done[c]["aggregates"])
    return {
        "deals": n_deals,
        "computed": computed_deals,
        "seconds": elapsed,
        "deals_per_s": computed_deals / elapsed if elapsed > 0 else float("inf"),
        **_with_means(total),
        "chunks": n_chunks,
        "computed_chunks": sorted(computed),
        "skipped_chunks": sorted(skipped),
        "out_dir": out_dir,
        "manifest": os.path.join(out_dir, MANIFEST),
    }


# --------------------------------------------------------------------------- reading


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
