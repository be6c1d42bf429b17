"""Studies on a dask.distributed LocalCluster: same table as a local run, a killed
worker loses and doubles nothing, reruns resume, datasets read back in batches.

Only localhost clusters are started (no dashboard); each is closed at the end.
"""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.distributed")

from dask.distributed import Client, LocalCluster

from belote_sim.kernels.tables import STRAIN_NAMES
from belote_sim.simulation import distributed as bd
from belote_sim.simulation.runner import make_study, simulate

ROOT = str(Path(__file__).resolve().parents[1])
CHUNK = 2000
N_DEALS = 20_000  # 10 chunks


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    """Worker processes import belote_sim from this checkout even without an install."""
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", ROOT + (os.pathsep + path if path else ""))


def local_cluster(n_workers=2):
    return LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        host="127.0.0.1",
    )


@pytest.fixture(scope="module", autouse=True)
def compiled_kernels():
    """Compile (or load) the kernels here first: worker processes then load them from
    numba's disk cache instead of each compiling them again."""
    make_study(seed=0).run_chunk(0, 10)


@pytest.fixture(scope="module")
def cluster(compiled_kernels):
    mp = pytest.MonkeyPatch()
    path = os.environ.get("PYTHONPATH")
    mp.setenv("PYTHONPATH", ROOT + (os.pathsep + path if path else ""))
    with local_cluster() as c:
        yield c
    mp.undo()


@pytest.fixture(scope="module")
def reference():
    return simulate(N_DEALS, play="greedy", seed=11, chunk_size=CHUNK, threads=1)


def assert_same_table(df, expected):
    assert list(df.columns) == list(expected.columns)
    assert list(df.dtypes) == list(expected.dtypes)
    if not df.equals(expected):  # assert_frame_equal is slow; it runs to say where
        pd.testing.assert_frame_equal(df, expected)


def read_sorted(out_dir):
    df = bd.read_dataset(out_dir).to_table().to_pandas()
    return df.sort_values("deal_id", ignore_index=True)


def aggregates_by_pandas(df):
    """Contract counts, made counts and mean match points per strain, plain pandas."""
    played = df[df["strain"].notna()]
    taker_team0 = played["taker"].astype("int64") % 2 == 0
    taker_mp = played["mp0"].where(taker_team0, played["mp1"]).astype("int64")
    defender_mp = played["mp1"].where(taker_team0, played["mp0"]).astype("int64")
    strain = played["strain"].astype(str)
    out = {"contracts": {}, "made": {}, "mean_mp": {}}
    for s in STRAIN_NAMES:
        rows = strain == s
        out["contracts"][s] = int(rows.sum())
        out["made"][s] = int((rows & (played["outcome"] == "made")).sum())
        out["mean_mp"][s] = (
            {"taker": taker_mp[rows].mean(), "defenders": defender_mp[rows].mean()}
            if rows.any()
            else None
        )
    out["thrown_in"] = int((df["outcome"] == "thrown_in").sum())
    return out


def assert_same_aggregates(summary, expected):
    for key in ("contracts", "made", "thrown_in"):
        assert summary[key] == expected[key], key
    for s in STRAIN_NAMES:
        if expected["mean_mp"][s] is None:
            assert summary["mean_mp"][s] is None
        else:
            for side in ("taker", "defenders"):
                assert summary["mean_mp"][s][side] == pytest.approx(
                    expected["mean_mp"][s][side], rel=1e-12
                )


def test_two_worker_local_cluster_matches_local_simulation(tmp_path, reference):
    out = tmp_path / "ds"
    seen = []
    study = make_study("common", bidding="threshold", play="greedy", seed=11, chunk_size=CHUNK)
    summary = bd.run_study(study, N_DEALS, out, workers=2, progress=seen.append)
    assert sum(seen) == N_DEALS and len(seen) == 10
    assert summary["deals"] == N_DEALS and summary["chunks"] == 10
    assert summary["computed_chunks"] == list(range(10)) and summary["skipped_chunks"] == []
    assert_same_table(read_sorted(out), reference)
    # the summary was reduced from the tasks' aggregates
    assert_same_aggregates(summary, aggregates_by_pandas(reference))
    assert {k: summary[k] for k in ("contracts", "made", "thrown_in", "mp")} == bd.frame_aggregates(
        reference
    )
    # one part per chunk, the manifest records seeds, rows and checksums
    names = sorted(os.listdir(out))
    assert names == ["_manifest.json"] + [f"part-{c:06d}.parquet" for c in range(10)]
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["complete"] and manifest["n_chunks"] == 10
    assert manifest["provenance"]["seed"] == 11 and manifest["seeds"]["entropy"] == 11
    for c, entry in enumerate(manifest["chunks"]):
        assert entry["chunk"] == c and entry["spawn_key"] == [c] and entry["entropy"] == 11
        assert entry["rows"] == CHUNK and entry["first_deal"] == c * CHUNK
        assert entry["sha256"] == bd.file_sha256(out / entry["file"])
    assert bd.verify_dataset(out) == []
    # each part is a belote-sim table on its own, with the study's provenance
    from belote_sim.simulation.deal_table import read_deals

    part = read_deals(str(out / "part-000003.parquet"))
    assert part.attrs["belote_sim"] == manifest["provenance"]
    assert_same_table(part, reference.iloc[3 * CHUNK : 4 * CHUNK].reset_index(drop=True))


def test_killed_worker_loses_and_doubles_nothing(tmp_path):
    chunk, n_chunks = 40_000, 12
    n_deals = chunk * n_chunks - 1234  # a short last chunk
    out = tmp_path / "ds"
    killed = []
    with local_cluster() as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)
        client.run(make_study(seed=3, chunk_size=50).run_chunk, 0, 50)  # load the kernels

        def kill_busy_worker(rows):
            if killed:
                return
            busy = [addr for addr, keys in client.processing().items() if keys and addr in pids]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])

        summary = bd.run_study(
            make_study(seed=3, chunk_size=chunk),
            n_deals,
            out,
            scheduler=cluster.scheduler_address,
            progress=kill_busy_worker,
        )
        assert killed, "no worker was busy after the first chunk"
        assert set(pids.values()) != set(client.run(os.getpid).values())  # one was replaced
    assert summary["computed_chunks"] == list(range(n_chunks))
    names = sorted(os.listdir(out))
    assert names == ["_manifest.json"] + [f"part-{c:06d}.parquet" for c in range(n_chunks)]
    assert bd.verify_dataset(out) == []
    df = read_sorted(out)
    assert df["deal_id"].is_unique and len(df) == n_deals
    assert_same_table(df, simulate(n_deals, seed=3, chunk_size=chunk))


def test_rerun_resumes_only_missing_chunks(tmp_path, cluster, reference):
    out = tmp_path / "ds"
    study = make_study(seed=11, chunk_size=CHUNK, play="greedy")
    bd.run_study(study, N_DEALS, out, scheduler=cluster.scheduler_address)
    stamp = {c: os.stat(out / f"part-{c:06d}.parquet").st_mtime_ns for c in range(10)}
    (out / "part-000002.parquet").unlink()
    (out / "part-000007.parquet").unlink()
    corrupt = out / "part-000004.parquet"
    corrupt.write_bytes(corrupt.read_bytes()[:1000])  # a partial file
    (out / ".part-000005.parquet.tmp-deadbeef").write_bytes(b"PAR1 half a file")
    # chunk 9 finished on disk but the crash came before the manifest recorded it
    manifest = json.loads((out / "_manifest.json").read_text())
    manifest["chunks"] = [e for e in manifest["chunks"] if e["chunk"] != 9]
    manifest["complete"] = False
    (out / "_manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="incomplete"):
        bd.read_dataset(out)
    problems = bd.verify_dataset(out)
    assert len(problems) == 4 and "chunk 4: part-000004.parquet checksum mismatch" in problems

    summary = bd.run_study(study, N_DEALS, out, scheduler=cluster.scheduler_address)
    assert summary["computed_chunks"] == [2, 4, 7, 9]
    assert summary["skipped_chunks"] == [0, 1, 3, 5, 6, 8]
    for c in summary["skipped_chunks"]:  # not rewritten
        assert os.stat(out / f"part-{c:06d}.parquet").st_mtime_ns == stamp[c]
    assert sorted(os.listdir(out)) == ["_manifest.json"] + [
        f"part-{c:06d}.parquet" for c in range(10)
    ]
    assert bd.verify_dataset(out) == []
    assert json.loads((out / "_manifest.json").read_text())["complete"]
    assert_same_table(read_sorted(out), reference)
    assert_same_aggregates(summary, aggregates_by_pandas(reference))

    again = bd.run_study(study, N_DEALS, out, scheduler=cluster.scheduler_address)
    assert again["computed_chunks"] == [] and again["skipped_chunks"] == list(range(10))
    assert again["contracts"] == summary["contracts"]


def test_a_killed_writers_temporary_is_removed_by_the_run(tmp_path, cluster):
    """A worker killed while writing its part leaves its temporary behind (the write is
    a temporary renamed into place); the run that outlives it deletes it once every
    chunk is in (here the temporary appears while the run goes on, as it would)."""
    out = tmp_path / "ds"
    study = make_study(seed=12, chunk_size=CHUNK, play="greedy")
    stray = out / ".part-000003.parquet.tmp-killed"

    def leave_a_temporary(rows):
        if not stray.exists():
            stray.write_bytes(b"PAR1 half a part")

    summary = bd.run_study(
        study, 4 * CHUNK, out, scheduler=cluster.scheduler_address, progress=leave_a_temporary
    )
    assert summary["computed_chunks"] == [0, 1, 2, 3]
    assert sorted(os.listdir(out)) == ["_manifest.json"] + [
        f"part-{c:06d}.parquet" for c in range(4)
    ]


def test_other_study_in_the_directory_is_an_error(tmp_path, cluster):
    out = tmp_path / "ds"
    bd.run_study(
        make_study(seed=11, chunk_size=CHUNK, play="greedy"),
        4000,
        out,
        scheduler=cluster.scheduler_address,
    )
    with pytest.raises(ValueError, match=r"different study \(seed: 11 there, 12 now\)"):
        bd.run_study(
            make_study(seed=12, chunk_size=CHUNK, play="greedy"),
            4000,
            out,
            scheduler=cluster.scheduler_address,
        )
    with pytest.raises(ValueError, match="n_deals: 4000 there, 6000 now"):
        bd.run_study(
            make_study(seed=11, chunk_size=CHUNK, play="greedy"),
            6000,
            out,
            scheduler=cluster.scheduler_address,
        )
    with pytest.raises(ValueError, match="different study.*play"):
        bd.run_study(
            make_study(seed=11, chunk_size=CHUNK, play="random"),
            4000,
            out,
            scheduler=cluster.scheduler_address,
        )
    other = tmp_path / "other"
    other.mkdir()
    (other / "part-000000.parquet").write_bytes(b"x")
    with pytest.raises(ValueError, match="no _manifest.json"):
        bd.run_study(
            make_study(seed=11, chunk_size=CHUNK, play="greedy"),
            4000,
            other,
            scheduler=cluster.scheduler_address,
        )
    with pytest.raises(ValueError, match="not both"):
        bd.run_study(make_study(), 10, tmp_path / "x", scheduler="tcp://127.0.0.1:1", workers=2)


def test_dataset_summary_streams_the_same_numbers(tmp_path, cluster, reference):
    out = tmp_path / "ds"
    summary = bd.run_study(
        make_study(seed=11, chunk_size=CHUNK, play="greedy"),
        N_DEALS,
        out,
        scheduler=cluster.scheduler_address,
    )
    dataset = bd.read_dataset(out)
    assert dataset.count_rows() == N_DEALS
    meta = dataset.schema.metadata[b"belote_sim"]
    assert json.loads(meta)["n"] == N_DEALS
    streamed = bd.dataset_summary(out, batch_size=777)  # batches straddle the parts
    assert streamed["deals"] == N_DEALS
    expected = aggregates_by_pandas(reference)
    assert_same_aggregates(streamed, expected)
    assert streamed["mp"] == bd.frame_aggregates(reference)["mp"] == summary["mp"]
    assert streamed["mean_mp"] == summary["mean_mp"]


def test_empty_study_needs_no_cluster(tmp_path):
    summary = bd.run_study(make_study(), 0, tmp_path / "ds", scheduler="tcp://127.0.0.1:1")
    assert summary["deals"] == 0 and summary["chunks"] == 0
    assert bd.read_dataset(tmp_path / "ds").count_rows() == 0
    assert bd.dataset_summary(tmp_path / "ds")["deals"] == 0


def test_dask_scheduler_and_worker_commands(tmp_path, reference):
    """The several-machines recipe of the README (Dask section), on localhost."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask_cli = [sys.executable, "-m", "dask"]
    logs = open(tmp_path / "dask.log", "wb")
    procs = [
        subprocess.Popen(
            dask_cli
            + [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--dashboard-address",
                "127.0.0.1:0",
            ],
            stdout=logs,
            stderr=logs,
        )
    ]
    try:
        procs.append(
            subprocess.Popen(
                dask_cli
                + [
                    "worker",
                    address,
                    "--nworkers",
                    "2",
                    "--nthreads",
                    "1",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                ],
                stdout=logs,
                stderr=logs,
            )
        )
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        out = tmp_path / "study1"
        summary = bd.run_study(
            make_study(seed=11, chunk_size=CHUNK, play="greedy"), 4 * CHUNK, out, scheduler=address
        )
        assert summary["computed_chunks"] == [0, 1, 2, 3]
        assert_same_table(read_sorted(out), reference.iloc[: 4 * CHUNK])
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        logs.close()


def test_cli_workers_and_reports_on_the_dataset(tmp_path, reference):
    """`belote-sim simulate --workers 2` writes a dataset; the report tables computed
    from its part files equal those of the in-memory table."""
    from belote_sim.analysis.report_tables import report_tables
    from belote_sim.cli import main

    out = tmp_path / "study"
    assert (
        main(
            [
                "simulate",
                "--deals",
                "6000",
                "--seed",
                "5",
                "--chunk-size",
                "2000",
                "--workers",
                "2",
                "-q",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    assert len(list(out.glob("part-*.parquet"))) == 3
    from belote_sim.simulation.runner import simulate

    df = simulate(6000, seed=5, chunk_size=2000)
    on_disk, in_memory = report_tables(str(out)), report_tables(df)
    for name in in_memory:
        pd.testing.assert_frame_equal(
            on_disk[name].reset_index(drop=True),
            in_memory[name].reset_index(drop=True),
            check_dtype=False,
        )


def test_three_player_study_on_the_cluster(tmp_path, cluster):
    """The games where every player is alone run on a cluster too: same deals, and the
    streamed MP sums count the taker alone against both opponents."""
    study = make_study("bulgarian", options=dict(players=3), seed=2, chunk_size=CHUNK)
    out = tmp_path / "three"
    # the local run first: it compiles the three-player kernels once, here, and the
    # cluster's workers load them from numba's disk cache instead of each compiling them
    local = simulate(4000, "bulgarian", options=dict(players=3), seed=2, chunk_size=CHUNK)
    summary = bd.run_study(study, 4000, out, scheduler=cluster.scheduler_address)
    expected = bd.frame_aggregates(local)
    for key in ("contracts", "made", "thrown_in", "mp"):
        assert summary[key] == expected[key], key
    taker = local["taker"].fillna(0).astype(int).to_numpy()
    mps = local[["mp0", "mp1", "mp2"]].to_numpy()
    played = local["outcome"] != "thrown_in"
    s_mask = (local["strain"] == "S") & played
    assert expected["mp"]["S"]["taker"] == mps[np.arange(len(local)), taker][s_mask].sum()
