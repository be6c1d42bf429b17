"""Nothing lost, nothing wrong (issue 15): crash-safe single-file output, honest
readers, locked and checked dataset directories, one-line errors for hostile input.

Each numbered item of the issue has a test here named ``test_itemN_...``.  Tables are
small (chunks of a few hundred deals) so that the whole file runs in seconds.
"""

import filecmp
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from cli_run import one_line_error, run_cli

from belote_sim.simulation.deal_table import format_summary, read_deals
from belote_sim.simulation.runner import RunInterrupted, make_study, simulate, simulate_to_parquet

ROOT = str(Path(__file__).resolve().parents[1])
CHUNK = 300
N = 1500  # 5 chunks


def stop_after(k):
    """A progress callback that interrupts the run (as Ctrl-C) after k chunks."""
    seen = []

    def progress(n):
        seen.append(n)
        if len(seen) == k:
            raise KeyboardInterrupt

    return progress


@pytest.fixture(scope="module")
def study():
    return make_study("common", seed=7, chunk_size=CHUNK)


@pytest.fixture(scope="module")
def finished(tmp_path_factory, study):
    """An uninterrupted run: the reference file."""
    path = tmp_path_factory.mktemp("ref") / "deals.parquet"
    simulate_to_parquet(str(path), N, study)
    return path


def hidden(path):
    """The partial file beside an output, and the temporaries there (``.NAME.tmp-*``:
    a run's own name)."""
    return path.parent / f".{path.name}.partial", sorted(path.parent.glob(f".{path.name}.tmp-*"))


# --------------------------------------------------------------------------- item 1


def test_item1_interrupted_run_leaves_no_final_file_and_readers_refuse_the_partial(
    tmp_path, study, finished
):
    path = tmp_path / "out.parquet"
    with pytest.raises(RunInterrupted, match=r"kept 2 of 5 chunks \(600 of 1,500 deals\)"):
        simulate_to_parquet(str(path), N, study, progress=stop_after(2))
    partial, writing = hidden(path)
    assert not path.exists() and not writing and partial.exists()
    # the partial file is valid Parquet, says it is incomplete, and every reader refuses it
    meta = pq.ParquetFile(partial).metadata
    assert meta.num_rows == 600
    assert json.loads(meta.metadata[b"belote_sim_complete"])["complete"] is False
    with pytest.raises(ValueError, match="incomplete.*2 of 5 chunks"):
        read_deals(str(partial))
    rc, _, err = run_cli(["report", partial, "-o", tmp_path / "rep"])
    one_line_error(rc, err, "incomplete", "--allow-incomplete")
    rc, _, err = run_cli(["export-replay", partial, "--rows", "0:3"])
    one_line_error(rc, err, "incomplete")
    # ... unless asked: the report then says so in its title
    assert len(read_deals(str(partial), allow_incomplete=True)) == 600
    rc, _out, err = run_cli(["report", partial, "-o", tmp_path / "rep", "--allow-incomplete"])
    assert rc == 0, err
    assert "incomplete: 2 of 5 chunks" in (tmp_path / "rep" / "index.html").read_text()
    # the complete file is accepted by every reader
    assert len(read_deals(str(finished))) == N
    rc, _, err = run_cli(["export-replay", finished, "--rows", "0:3"])
    assert rc == 0, err


def test_item1_row_count_differing_from_the_metadata_is_refused(tmp_path, finished):
    """A file like the one the old writer left on Ctrl-C: provenance says 1,500 deals,
    the file has 600 rows (and no completion mark, or a false one)."""
    table = pq.read_table(finished)
    short = table.slice(0, 600)
    no_mark = tmp_path / "no_mark.parquet"
    pq.write_table(
        short.replace_schema_metadata(
            {k: v for k, v in table.schema.metadata.items() if k != b"belote_sim_complete"}
        ),
        no_mark,
    )
    lying = tmp_path / "lying.parquet"
    writer = pq.ParquetWriter(lying, short.schema)
    writer.write_table(short)
    writer.add_key_value_metadata(
        {
            "belote_sim_complete": json.dumps(
                {"complete": True, "rows": N, "chunks": 5, "n_chunks": 5}
            )
        }
    )
    writer.close()
    for path, why in ((no_mark, "no completion mark"), (lying, "600 rows")):
        with pytest.raises(ValueError, match=why):
            read_deals(str(path))
        rc, _, err = run_cli(["report", path, "-o", tmp_path / "r"])
        one_line_error(rc, err, why)
        rc, _, err = run_cli(["export-replay", path])
        one_line_error(rc, err, why)


def test_item1_resumed_file_is_identical_to_an_uninterrupted_one(tmp_path, study, finished):
    path = tmp_path / "out.parquet"
    with pytest.raises(RunInterrupted):
        simulate_to_parquet(str(path), N, study, progress=stop_after(2))
    with pytest.raises(RunInterrupted, match="kept 4 of 5"):  # resumed, interrupted again
        simulate_to_parquet(str(path), N, study, progress=stop_after(4))
    summary = simulate_to_parquet(str(path), N, study)
    assert summary["resumed_chunks"] == 4 and summary["computed"] == N - 4 * CHUNK
    assert filecmp.cmp(path, finished, shallow=False)  # byte for byte
    partial, writing = hidden(path)
    assert not partial.exists() and not writing
    assert read_deals(str(path)).equals(simulate(N, seed=7, chunk_size=CHUNK))
    # a partial file of another study is not resumed
    other = tmp_path / "other.parquet"
    with pytest.raises(RunInterrupted):
        simulate_to_parquet(str(other), N, study, progress=stop_after(1))
    with pytest.raises(ValueError, match="different study.*--overwrite"):
        simulate_to_parquet(str(other), N, make_study("common", seed=8, chunk_size=CHUNK))


# --------------------------------------------------------------------------- item 2


def test_item2_existing_output_is_never_overwritten_without_overwrite(tmp_path, study, finished):
    path = tmp_path / "out.parquet"
    path.write_bytes(finished.read_bytes())
    before = path.read_bytes()
    other = ["simulate", "--deals", 900, "--chunk-size", CHUNK, "--seed", 9, "-q", "-o", path]
    rc, _, err = run_cli(other)
    one_line_error(rc, err, "exists", "--overwrite")
    # an interrupted --overwrite run leaves the old table whole
    with pytest.raises(RunInterrupted, match="untouched"):
        simulate_to_parquet(
            str(path),
            900,
            make_study(seed=9, chunk_size=CHUNK),
            progress=stop_after(1),
            overwrite=True,
        )
    assert path.read_bytes() == before
    rc, out, err = run_cli(other + ["--overwrite"])
    assert rc == 0, err
    assert len(read_deals(str(path))) == 900
    # rerunning a finished study keeps it and simulates nothing
    rc, out, err = run_cli(other)
    assert rc == 0 and "nothing simulated" in out and "kept" in out, out + err
    # the games table too
    rc, _, err = run_cli(["simulate", "--games", 2, "-o", path])
    one_line_error(rc, err, "exists", "--overwrite")
    assert len(read_deals(str(path))) == 900
    rc, _, err = run_cli(["simulate", "--games", 2, "-o", path, "--overwrite"])
    assert rc == 0 and len(pq.read_table(path)) == 2, err


# --------------------------------------------------------------------------- item 3


def _default_sigint():
    """In the child, before exec: SIGINT back to its default.  An ignored signal is
    inherited across exec, and Python then installs no KeyboardInterrupt handler; the
    test process may have SIGINT ignored at this point (seen under pytest-xdist in the
    full suite), which a user's terminal never does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _simulate_process(path, *extra):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [
        sys.executable,
        "-m",
        "belote_sim",
        "simulate",
        "--deals",
        "30000000",  # ~30 s of work: the signal always lands mid-run, even warm and fast
        "--chunk-size",
        "2000",
        "--seed",
        "3",
        "--threads",
        "1",
        "-q",
        "-o",
        str(path),
        *extra,
    ]
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=_default_sigint
    )


def _wait_for_chunks(proc, path, size=200_000, timeout=60):
    """Poll until the file being written (the run's temporary beside ``path``) holds a
    few chunks."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        writing = hidden(path)[1]
        if writing and writing[0].exists() and writing[0].stat().st_size > size:
            return
        if proc.poll() is not None:
            raise AssertionError(proc.communicate())
        time.sleep(0.05)
    proc.kill()
    proc.communicate()
    raise AssertionError("the run wrote nothing")


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_item3_signal_stops_cleanly_with_one_line(tmp_path, sig, status):
    path = tmp_path / "big.parquet"
    partial, _ = hidden(path)
    proc = _simulate_process(path)
    _wait_for_chunks(proc, path)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=60)
    err = err.decode()
    assert proc.returncode == status, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "kept" in err and "resume" in err and str(partial) in err, err
    assert not path.exists() and not hidden(path)[1]
    status = pq.ParquetFile(partial).metadata
    kept = json.loads(status.metadata[b"belote_sim_complete"])
    assert not kept["complete"] and kept["rows"] == status.num_rows == kept["chunks"] * 2000
    assert kept["chunks"] >= 1


def test_item3_kill9_leaves_nothing_under_the_final_name(tmp_path):
    path = tmp_path / "big.parquet"
    partial, _ = hidden(path)
    proc = _simulate_process(path)
    _wait_for_chunks(proc, path)
    proc.kill()
    proc.communicate(timeout=30)
    assert not path.exists() and not partial.exists()
    # the next run (here a small study: another output of the same name) starts over
    study = make_study(seed=3, chunk_size=2000)
    with pytest.raises(RunInterrupted):  # lock of the killed run is stale, taken over
        simulate_to_parquet(str(path), 6000, study, progress=stop_after(1))
    assert not hidden(path)[1] and partial.exists()
    simulate_to_parquet(str(path), 6000, study)
    assert read_deals(str(path)).equals(simulate(6000, seed=3, chunk_size=2000))


# --------------------------------------------------------------------------- datasets


@pytest.fixture(scope="module")
def cluster():
    """An in-process dask cluster (threads): quick to start."""
    pytest.importorskip("dask.distributed")
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address="127.0.0.1:0"
    ) as c:
        yield c


@pytest.fixture
def dataset(tmp_path, cluster, study):
    from belote_sim.simulation.distributed import run_study

    out = tmp_path / "ds"
    run_study(study, N, out, scheduler=cluster.scheduler_address)
    return out


def _manifest(out):
    return json.loads((out / "_manifest.json").read_text())


def test_item4_report_uses_the_manifest_and_refuses_unfinished_datasets(tmp_path, dataset):
    from belote_sim.analysis.report_tables import report_tables

    whole = report_tables(simulate(N, seed=7, chunk_size=CHUNK))["outcomes"]
    # a stray copy of a part is ignored, not counted
    (dataset / "part-000000 (copy).parquet").write_bytes(
        (dataset / "part-000000.parquet").read_bytes()
    )
    rc, _out, err = run_cli(["report", dataset, "-o", tmp_path / "r"])
    assert rc == 0, err
    assert report_tables(str(dataset))["outcomes"].equals(whole)
    # an unfinished dataset (2 of 5 chunks) is refused, or reported as such
    manifest = _manifest(dataset)
    manifest["chunks"] = manifest["chunks"][:2]
    manifest["complete"] = False
    (dataset / "_manifest.json").write_text(json.dumps(manifest))
    rc, _, err = run_cli(["report", dataset, "-o", tmp_path / "r"])
    one_line_error(rc, err, "incomplete", "3 of 5 chunks missing")
    rc, _, err = run_cli(["report", dataset, "-o", tmp_path / "r2", "--allow-incomplete"])
    assert rc == 0, err
    assert "incomplete: 2 of 5 chunks" in (tmp_path / "r2" / "index.html").read_text()
    # a directory without a manifest is not a dataset
    (dataset / "_manifest.json").unlink()
    rc, _, err = run_cli(["report", dataset, "-o", tmp_path / "r"])
    one_line_error(rc, err, "no _manifest.json", "rebuild-manifest")


def test_item4_a_part_replaced_by_a_copy_of_another_is_refused(dataset):
    from belote_sim.simulation.distributed import dataset_summary, read_dataset

    (dataset / "part-000003.parquet").write_bytes((dataset / "part-000001.parquet").read_bytes())
    with pytest.raises(ValueError, match="chunk 3: part-000003.parquet (has|holds)"):
        read_dataset(dataset)
    with pytest.raises(ValueError, match="chunk 3"):
        dataset_summary(dataset)
    with pytest.raises(ValueError, match="chunk 3"):
        read_deals(str(dataset))
    df = read_dataset(dataset, allow_incomplete=True).to_table().to_pandas()
    assert df["deal_id"].is_unique and len(df) == N - CHUNK


def test_item5_one_run_per_directory_and_manifest_rebuilt(tmp_path, cluster, study, dataset):
    from belote_sim.simulation.distributed import read_dataset, run_study, verify_dataset

    lock = dataset / "_belote_sim.lock"
    # a live run holds the lock: refused, with its owner named
    lock.write_text(
        json.dumps(
            {"pid": os.getppid(), "host": socket.gethostname(), "time": "2026-01-01T00:00:00Z"}
        )
    )
    with pytest.raises(ValueError, match=f"another run \\(pid {os.getppid()}"):
        run_study(study, N, dataset, scheduler=cluster.scheduler_address)
    # a dead run's lock is stale: taken over (and released at the end)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock.write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname()}))
    summary = run_study(study, N, dataset, scheduler=cluster.scheduler_address)
    assert summary["computed"] == 0 and not lock.exists()
    assert "all already there" in format_summary(summary)  # not "0 deals/s" (item 9)
    # the single-file output has its lock too
    path = tmp_path / "one.parquet"
    (tmp_path / ".one.parquet.lock").write_text(
        json.dumps({"pid": os.getppid(), "host": socket.gethostname()})
    )
    rc, _, err = run_cli(["simulate", "--deals", 10, "-q", "-o", path])
    one_line_error(rc, err, "being written by another run")
    # a lost manifest: runs are refused, and the command rebuilds it from the parts
    expected = read_dataset(dataset).to_table().to_pandas()
    (dataset / "_manifest.json").unlink()
    with pytest.raises(ValueError, match="rebuild-manifest"):
        run_study(study, N, dataset, scheduler=cluster.scheduler_address)
    (dataset / "part-000004.parquet").write_bytes(b"PAR1 broken")
    rc, out, err = run_cli(["dataset", "rebuild-manifest", dataset])
    assert rc == 0 and "4 of 5 chunks" in out and "part-000004" in err, out + err
    rc, out, _ = run_cli(["dataset", "verify", dataset])
    assert rc == 1 and "chunk 4: not finished" in out
    summary = run_study(study, N, dataset, scheduler=cluster.scheduler_address)
    assert summary["computed_chunks"] == [4]
    assert "1,200 kept from an earlier one" in format_summary(summary)
    assert read_dataset(dataset).to_table().to_pandas().equals(expected)
    assert verify_dataset(dataset) == []


def test_item6_dataset_directory_opens_in_ordinary_parquet_readers(dataset):
    import pandas as pd
    import pyarrow.dataset as ds

    names = sorted(os.listdir(dataset))
    assert names[0] == "_manifest.json" and "manifest.json" not in names
    df = pd.read_parquet(dataset)
    assert len(df) == N and sorted(df["deal_id"]) == list(range(N))
    assert ds.dataset(str(dataset), format="parquet").count_rows() == N
    ddf = pytest.importorskip("dask.dataframe")
    assert len(ddf.read_parquet(str(dataset))) == N


def test_item6_old_datasets_with_manifest_json_still_read(cluster, study, dataset):
    from belote_sim.simulation.distributed import read_dataset, run_study

    (dataset / "_manifest.json").rename(dataset / "manifest.json")
    assert read_dataset(dataset).count_rows() == N
    run_study(study, N, dataset, scheduler=cluster.scheduler_address)  # carried on
    assert (dataset / "_manifest.json").exists() and not (dataset / "manifest.json").exists()


# --------------------------------------------------------------------------- item 7


def test_item7_bad_policies_are_one_line_errors():
    for argv in (
        ["simulate", "--deals", 10, "--play", "pimc:-5", "-o", "x.parquet"],
        ["duel", "--a", "pimc:-5", "--b", "greedy", "--deals", 10],
    ):
        rc, _, err = run_cli(argv)
        one_line_error(rc, err, "pimc samples must be an integer")


def test_item7_a_bad_line_never_stops_replay_or_solve(tmp_path):
    from belote_sim.deal.playout import random_record

    good = json.dumps(random_record(3, "common"))
    deep = "[" * 100_000 + "]" * 100_000
    source = tmp_path / "in.jsonl"
    source.write_bytes(
        b"\n".join([good.encode(), deep.encode(), b'{"id": "\xff\xfe"}', good.encode()]) + b"\n"
    )
    for command in (["replay", source], ["solve", "--records", source]):
        rc, out, err = run_cli(command)
        lines = [json.loads(line) for line in out.splitlines()]
        assert rc == 1 and "2 of 4 records failed" in err, err
        assert len(lines) == 4 and "error" not in lines[0] and "error" not in lines[3]
        assert "nested too deeply" in lines[1]["error"]
        assert "not UTF-8" in lines[2]["error"]


BASE_OBS = {
    "dealer": 3,
    "seat": 0,
    "hand": "7C 8C 9C TC JC QC KC AC",
    "contract": {"strain": "H", "taker": 0},
    "plays": [],
}


@pytest.mark.parametrize(
    "change, words",
    [
        ({"hand": 123}, "'hand' must be cards"),
        ({"plays": None}, "'plays' must be cards"),
        ({"seat": 0.7}, "seat must be a seat 0..3"),
        ({"dealer": "3"}, "dealer must be a seat"),
        ({"contract": {"strain": 2, "taker": 0}}, "strain must be text"),
    ],
)
def test_item7_and_8_agent_bad_fields_are_value_errors(change, words):
    from belote_sim.deal.agent import choose_card

    with pytest.raises(ValueError, match=words):
        choose_card(dict(BASE_OBS, **change))


def test_item7_agent_bad_policy_and_seed():
    from belote_sim.deal.agent import choose_card

    assert choose_card(BASE_OBS) in BASE_OBS["hand"].split()
    for kwargs, words in (
        ({"policy": None}, "play policy must be a name"),
        ({"seed": "abc"}, "seed must be"),
        ({"policy": "pimc:0"}, "pimc samples"),
        ({"policy": "pimc", "samples": 0}, "samples must be"),
    ):
        with pytest.raises(ValueError, match=words):
            choose_card(BASE_OBS, **kwargs)


# --------------------------------------------------------------------------- item 8


@pytest.mark.parametrize(
    "argv, words",
    [
        (["simulate", "--deals", 0], "--deals must be at least 1"),
        (["simulate", "--deals", 10**20], "need about"),
        (["simulate", "--deals", 10, "--workers", 0], "--workers must be at least 1"),
        (["simulate", "--games", 5, "--trick-log"], "--trick-log"),
        (["duel", "--a", "pimc:0", "--b", "greedy", "--deals", 10], "pimc samples"),
        (["duel", "--a", "pimc:1.5", "--b", "greedy", "--deals", 10], "pimc samples"),
        (["simulate", "--deals", 10, "--play", "greedy:nan"], "finite"),
    ],
)
def test_item8_silently_accepted_inputs_are_refused(tmp_path, argv, words):
    rc, _, err = run_cli(argv + ["-o", tmp_path / "x.parquet"] if argv[0] == "simulate" else argv)
    one_line_error(rc, err, words)
    assert not (tmp_path / "x.parquet").exists()


def test_item8_agent_refuses_a_card_of_a_suit_the_player_showed_out_of():
    from belote_sim.deal.agent import choose_card

    # dealer 3: seat 0 leads trick 1 (7C), seat 1 discards 7D (no club), 9C, TC: seat 3
    # wins and leads trick 2 (AC), seat 0 plays JC; seat 1 "holds" 8C now
    obs = {
        "dealer": 3,
        "seat": 1,
        "contract": {"strain": "H", "taker": 0},
        "plays": ["7C", "7D", "9C", "TC", "AC", "JC"],
        "hand": "8C 8D 9D TD JD QD KD",
    }
    with pytest.raises(ValueError, match="seat 1 showed out of C earlier, yet its hand holds 8C"):
        choose_card(obs)


# --------------------------------------------------------------------------- item 9


def test_item9_messages(tmp_path, study, finished):
    rc, _, err = run_cli(
        ["simulate", "--deals", 10, "--constraint", "1:min_H=abc", "-o", tmp_path / "x.parquet"]
    )
    one_line_error(rc, err, "constraint min_H must be an integer, got 'abc'")
    text = format_summary({"deals": 2_000_000, "computed": 0, "seconds": 2.6, "deals_per_s": 0.0})
    assert "0 deals/s" not in text and "nothing simulated" in text


@pytest.mark.slow
def test_item9_ctrl_c_of_a_dask_run_prints_one_line(tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "ds"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "belote_sim",
            "simulate",
            "--deals",
            "4000000",
            "--play",
            "expert:0",  # ~60 s of work: Ctrl-C always lands mid-run, however fast the engine
            "--chunk-size",
            "2000",
            "--workers",
            "1",
            "-q",
            "-o",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        preexec_fn=_default_sigint,
    )
    end = time.monotonic() + 120
    while not (out / "part-000001.parquet").exists():
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "run the same command again to resume" in err
