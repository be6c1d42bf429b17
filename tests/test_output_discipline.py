"""Nothing lost, second pass (issue 24): one output discipline for every writer.

``simulation.output.Output`` (checks before the work, a lock per output, a temporary
name unique to the run, the final name only when complete, ``--overwrite``, no
leftovers, one line on an interruption) is what ``simulate`` (deals and ``--games``),
``atlas build``, ``study -o``, ``export-replay -o``, ``report -o`` and ``dataset
rebuild-manifest`` write through.  The end of a run is atomic, the counts never exceed
n, a full disk leaves a valid partial file (or nothing, said so), and the free-space
estimate is within 1.5x of the real size.  Real signals go to subprocesses, or to this
process from inside a run; deal counts are tiny.
"""

import errno
import filecmp
import json
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from cli_run import cli_process, run_cli, wait_for

from belote_sim.simulation.deal_table import read_deals
from belote_sim.simulation.output import Output, RunInterrupted, WriteFailed
from belote_sim.simulation.runner import make_study, simulate_to_parquet

ROOT = str(Path(__file__).resolve().parents[1])
CHUNK = 300
N = 1000  # 4 chunks, the last one of 100 deals


def one_line(err):
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def beside(path):
    """Every hidden file an output's runs leave beside it (``.NAME.*``)."""
    return sorted(p.name for p in path.parent.glob(f".{path.name}.*"))


def live_lock(path):
    """A lock on ``path`` held by a live process (this one's parent)."""
    lock = path.parent / f".{path.name}.lock"
    lock.write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname()}))
    return lock


@pytest.fixture(autouse=True)
def python_sigint_handler():
    """Each test with Python's own SIGINT handler (KeyboardInterrupt), as a user's
    terminal has it: a pytest-xdist worker may run with SIGINT ignored (seen in the full
    suite; see tests/test_crash_safety.py), and an ignored SIGINT would never stop a run."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(scope="module")
def study():
    return make_study("common", seed=11, chunk_size=CHUNK)


@pytest.fixture(scope="module")
def reference(tmp_path_factory, study):
    path = tmp_path_factory.mktemp("ref") / "deals.parquet"
    simulate_to_parquet(str(path), N, study)
    return path


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def signal_at(k, sig=signal.SIGINT):
    """A progress callback that sends ``sig`` to this process after chunk k (a real
    signal: the run gets it wherever it is, as from a terminal or ``kill``)."""
    seen = []

    def progress(n):
        seen.append(n)
        if len(seen) == k:
            os.kill(os.getpid(), sig)

    return progress


# --------------------------------------------------------------------------- Output


def test_output_checks_before_the_work_and_leaves_nothing(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("old")
    ran = []
    with pytest.raises(ValueError, match="exists; add --overwrite"), Output(path):
        ran.append(1)  # never: the check comes first
    assert not ran and path.read_text() == "old"
    with pytest.raises(ValueError, match="no such directory"):
        Output(tmp_path / "missing" / "t.csv").__enter__()
    with pytest.raises(ValueError, match="is a directory"):
        Output(tmp_path).__enter__()
    with pytest.raises(ValueError, match="need about"), Output(tmp_path / "big.csv", need=10**18):
        ran.append(1)
    assert not ran
    # a leftover of a dead run is removed; the run's own name is unique
    (tmp_path / ".t.csv.tmp-123-dead").write_text("x")
    a, b = Output(path, overwrite=True), Output(path, overwrite=True)
    assert a.tmp != b.tmp
    with a as out:
        Path(out.tmp).write_text("new")
        out.commit()
    assert path.read_text() == "new" and beside(path) == []


def test_output_lock_one_run_per_output(tmp_path):
    path = tmp_path / "t.csv"
    with Output(path) as out:
        with pytest.raises(ValueError, match="being written by another run"):
            Output(path).__enter__()
        Path(out.tmp).write_text("a")
        out.commit()
    assert path.read_text() == "a" and beside(path) == []


def test_output_interruptions_say_what_is_on_disk(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    with (
        pytest.raises(RunInterrupted, match="was not written .*not created"),
        Output(path, what="the table") as out,
    ):
        Path(out.tmp).write_text("half")
        raise KeyboardInterrupt
    assert not path.exists() and beside(path) == []
    path.write_text("old")
    with pytest.raises(RunInterrupted, match="left untouched"), Output(path, overwrite=True) as out:
        Path(out.tmp).write_text("half")
        raise KeyboardInterrupt
    assert path.read_text() == "old" and beside(path) == []
    # a real SIGINT during the rename: the rename finishes, then the run stops, saying so
    import belote_sim.simulation.output as output

    real = output.fsync_file

    def fsync_and_signal(name):
        os.kill(os.getpid(), signal.SIGINT)
        real(name)

    monkeypatch.setattr(output, "fsync_file", fsync_and_signal)
    with (
        pytest.raises(RunInterrupted, match="written in full: .* is complete"),
        Output(path, overwrite=True) as out,
    ):
        Path(out.tmp).write_text("new")
        out.commit()
    assert path.read_text() == "new" and beside(path) == []


def test_output_disk_full_is_one_line_and_leaves_nothing(tmp_path):
    path = tmp_path / "t.jsonl"
    with pytest.raises(WriteFailed, match="disk full writing .*not created"), Output(path) as out:
        Path(out.tmp).write_text("part")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert not path.exists() and beside(path) == []


def test_output_folder_is_swapped_in_and_never_takes_foreign_files(tmp_path):
    path = tmp_path / "rep"
    path.mkdir()  # an empty folder is filled, no --overwrite needed
    with Output(path, folder=True) as out:
        os.mkdir(out.tmp)
        Path(out.tmp, "index.html").write_text("1")
        out.commit()
    assert Path(path, "index.html").read_text() == "1"
    with pytest.raises(ValueError, match="exists; add --overwrite"):
        Output(path, folder=True).__enter__()
    (path / "mine.txt").write_text("keep")
    with pytest.raises(ValueError, match="mine.txt"):
        Output(
            path, folder=True, overwrite=True, replaceable=lambda p: "holds mine.txt"
        ).__enter__()
    assert (path / "mine.txt").exists() and beside(path) == []


# --------------------------------------------------------------------------- simulate


def test_signal_after_the_last_chunk_finishes_the_table(tmp_path, study, reference):
    path = tmp_path / "out.parquet"
    n_chunks = -(-N // CHUNK)
    for sig, word in ((signal.SIGINT, "interrupted"), (signal.SIGTERM, "interrupted")):
        if path.exists():
            path.unlink()
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)  # as the cli does
        try:
            with pytest.raises(
                RunInterrupted,
                match=f"{word} after the last chunk: .* is complete \\(1,000 deals\\)",
            ):
                simulate_to_parquet(str(path), N, study, progress=signal_at(n_chunks, sig))
        finally:
            signal.signal(signal.SIGTERM, previous)
        assert filecmp.cmp(path, reference, shallow=False) and beside(path) == []


def test_signal_during_the_final_rename_of_a_resumed_run(tmp_path, study, reference, monkeypatch):
    """SIGINT while the finished file is closed and renamed (a resumed run): the rename
    is done, the message says the table is complete, and no partial file stays."""
    import belote_sim.simulation.runner as runner

    path = tmp_path / "out.parquet"
    with pytest.raises(RunInterrupted, match="kept 2 of 4"):
        simulate_to_parquet(str(path), N, study, progress=signal_at(2))
    real = runner.fsync_file

    def fsync_and_signal(name):
        os.kill(os.getpid(), signal.SIGINT)
        real(name)

    monkeypatch.setattr(runner, "fsync_file", fsync_and_signal)
    with pytest.raises(RunInterrupted, match="after the last chunk: .* is complete"):
        simulate_to_parquet(str(path), N, study)
    assert filecmp.cmp(path, reference, shallow=False) and beside(path) == []


def test_counts_never_exceed_n_and_overwrite_runs_resume(tmp_path, study, reference):
    path = tmp_path / "out.parquet"
    path.write_bytes(b"an old output of another study")
    with pytest.raises(RunInterrupted) as stop:
        simulate_to_parquet(str(path), N, study, progress=signal_at(3), overwrite=True)
    message = str(stop.value)
    assert "kept 3 of 4 chunks (900 of 1,000 deals)" in message, message
    assert "run the same command again to resume" in message and "untouched" in message
    assert path.read_bytes() == b"an old output of another study"
    summary = simulate_to_parquet(str(path), N, study, overwrite=True)  # the same command
    assert summary["resumed_chunks"] == 3 and summary["computed"] == 100
    assert filecmp.cmp(path, reference, shallow=False) and beside(path) == []


def test_a_complete_table_parked_as_partial_is_put_in_place(tmp_path, reference, study):
    """What older versions did on a signal after the last chunk: the complete table
    kept as .partial.  The rerun renames it into place and simulates nothing."""
    path = tmp_path / "out.parquet"
    shutil.copy(reference, tmp_path / ".out.parquet.partial")
    summary = simulate_to_parquet(str(path), N, study)
    assert summary["computed"] == 0 and summary["already_complete"]
    assert filecmp.cmp(path, reference, shallow=False) and beside(path) == []


def test_disk_full_keeps_a_valid_partial_that_resumes(tmp_path, study, reference, monkeypatch):
    """The disk fills up after 2 chunks (the free space falls below the next chunk's):
    the run stops with a valid partial file; once space is freed, it resumes."""
    real = shutil.disk_usage
    full = {"on": False}

    def usage(p):
        u = real(p)
        return u._replace(free=10_000) if full["on"] else u

    def progress(n, seen=[]):  # noqa: B006 (a counter)
        seen.append(n)
        full["on"] = len(seen) >= 2

    monkeypatch.setattr(shutil, "disk_usage", usage)
    path = tmp_path / "out.parquet"
    with pytest.raises(WriteFailed) as stop:
        simulate_to_parquet(str(path), N, study, progress=progress)
    message = one_line(str(stop.value))
    assert "disk full" in message and "kept 2 of 4 chunks (600 of 1,000 deals)" in message
    assert "free some space, then run the same command again to resume" in message
    partial = tmp_path / ".out.parquet.partial"
    assert not path.exists() and beside(path) == [partial.name]
    assert len(read_deals(str(partial), allow_incomplete=True)) == 600  # valid Parquet
    full["on"] = False
    summary = simulate_to_parquet(str(path), N, study)
    assert summary["resumed_chunks"] == 2
    assert filecmp.cmp(path, reference, shallow=False) and beside(path) == []


def test_a_write_that_fails_midway_leaves_no_broken_partial(tmp_path, study, monkeypatch):
    """ENOSPC inside the Parquet writer after part of a chunk is on disk: the file's end
    is unknown, so nothing of this run is kept (the message says so), and the valid
    partial file of an earlier run stays as it was."""
    path = tmp_path / "out.parquet"
    with pytest.raises(RunInterrupted):
        simulate_to_parquet(str(path), N, study, progress=signal_at(1))
    partial = tmp_path / ".out.parquet.partial"
    before = partial.read_bytes()
    real = pq.ParquetWriter.write_table
    calls = []

    def half_then_full(self, table, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # chunk 1 copied, chunk 2 written: half of chunk 3, then full
            real(self, table.slice(0, table.num_rows // 2), *args, **kwargs)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, table, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", half_then_full)
    with pytest.raises(WriteFailed) as stop:
        simulate_to_parquet(str(path), N, study)
    message = one_line(str(stop.value))
    assert "disk full" in message and "kept 1 of 4 chunks (300 of 1,000 deals)" in message
    assert partial.read_bytes() == before and beside(path) == [partial.name]


def test_tmpfs_disk_full_then_freed_resumes(tmp_path, study, reference):
    """A real full disk (a 2 MB tmpfs; root only, else skipped): another file fills it
    during the run."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True
        ).returncode
    ):
        pytest.skip("needs root to mount a tmpfs")
    try:
        path = disk / "out.parquet"
        filler = disk / "filler"

        def progress(n, seen=[]):  # noqa: B006 (a counter)
            seen.append(n)
            if len(seen) == 2:  # fill the disk up
                with open(filler, "wb") as f, pytest.raises(OSError):
                    while True:
                        f.write(b"\0" * 65536)

        with pytest.raises(WriteFailed, match="disk full.*kept 2 of 4 chunks"):
            simulate_to_parquet(str(path), N, study, progress=progress)
        assert len(read_deals(str(disk / ".out.parquet.partial"), allow_incomplete=True)) == 600
        filler.unlink()
        assert simulate_to_parquet(str(path), N, study)["resumed_chunks"] == 2
        assert filecmp.cmp(path, reference, shallow=False) and beside(path) == []
    finally:
        subprocess.run(["umount", str(disk)], check=False)


@pytest.mark.parametrize(
    "options, trick_log",
    [({}, False), ({}, True), ({"players": 3}, False), ({"players": 2}, False),
     ({"players": 2, "variant": "open"}, False)],
)  # fmt: skip
def test_free_space_estimate_is_within_1_5x_of_the_real_size(tmp_path, options, trick_log):
    from belote_sim.simulation.safe_io import estimated_bytes

    n = 8192
    study = make_study("common", seed=2, options=options, chunk_size=4096)
    path = tmp_path / "t.parquet"
    simulate_to_parquet(str(path), n, study, trick_log=trick_log)
    real = os.path.getsize(path)
    rules = study.rules
    estimate = estimated_bytes(n, trick_log, rules.players, rules.variant, 4096)
    assert real <= estimate <= 1.5 * real, (estimate, real)


def test_free_space_check_does_not_count_the_runs_own_dead_partial(tmp_path, study, monkeypatch):
    """A dead partial file (unreadable) takes space that the run frees first: the check
    sees the disk as it will be, and the run goes ahead."""
    from belote_sim.simulation.safe_io import estimated_bytes

    path = tmp_path / "out.parquet"
    dead = tmp_path / ".out.parquet.partial"
    dead.write_bytes(b"\0" * 200_000)
    capacity = estimated_bytes(N, chunk_size=CHUNK) + 100_000  # not with the dead file
    real = shutil.disk_usage

    def usage(p):
        used = sum(f.stat().st_size for f in tmp_path.iterdir() if f.is_file())
        return real(p)._replace(free=capacity - used)

    monkeypatch.setattr(shutil, "disk_usage", usage)
    simulate_to_parquet(str(path), N, study)
    assert beside(path) == []


# --------------------------------------------------------------------------- other writers


def test_games_output_has_a_lock_and_its_own_temporary(tmp_path):
    path = tmp_path / "g.parquet"
    lock = live_lock(path)  # e.g. a deals run writing the same file
    rc, out, err = run_cli(["simulate", "--games", 3, "-o", path, "--overwrite"])
    assert rc == 2 and "being written by another run" in one_line(err)
    assert not path.exists() and "wrote" not in out
    lock.unlink()
    rc, out, err = run_cli(["simulate", "--games", 3, "-o", path])
    assert rc == 0 and len(pq.read_table(path)) == 3 and beside(path) == [], err
    rc, out, err = run_cli(["simulate", "--games", 3, "-o", path])  # refused before playing
    assert rc == 2 and "exists" in one_line(err) and "games (" not in out


def test_study_export_and_report_outputs(tmp_path, reference, monkeypatch):
    # export-replay -o: refused over an existing file, --overwrite replaces it
    records = tmp_path / "r.jsonl"
    records.write_text("mine\n")
    rc, _, err = run_cli(["export-replay", reference, "--rows", "0:2", "-o", records])
    assert rc == 2 and "--overwrite" in one_line(err) and records.read_text() == "mine\n"
    rc, _, err = run_cli(
        ["export-replay", reference, "--rows", "0:2", "-o", records, "--overwrite"]
    )
    assert rc == 0 and len(records.read_text().splitlines()) == 2 and beside(records) == []
    # report -o: a report folder is replaced only with --overwrite, a folder holding other
    # files never is
    import belote_sim.analysis.html_report as html_report

    monkeypatch.setattr(html_report, "atlas_section", lambda page, out, **kw: None)  # quicker
    rep = tmp_path / "rep"
    assert run_cli(["report", reference, "-o", rep])[0] == 0
    assert (rep / "index.html").exists() and beside(rep) == []
    rc, _, err = run_cli(["report", reference, "-o", rep])
    assert rc == 2 and "--overwrite" in one_line(err)
    (rep / "notes.txt").write_text("mine")  # (the swap itself: test_output_folder_...)
    rc, _, err = run_cli(["report", reference, "-o", rep, "--overwrite"])
    assert rc == 2 and "notes.txt" in one_line(err) and (rep / "notes.txt").exists()
    # study -o: checked before the sweep
    csv = tmp_path / "s.csv"
    csv.write_text("mine")
    rc, out, err = run_cli(["study", "bidding", "--deals", 10, "--values", "50", "-o", csv])
    assert rc == 2 and "exists" in one_line(err) and "bidding study" not in out


def test_rebuild_manifest_is_locked_and_checked(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "part-000000.parquet").write_bytes(b"x")
    (ds / "_belote_sim.lock").write_text(
        json.dumps({"pid": os.getppid(), "host": socket.gethostname()})
    )
    rc, _, err = run_cli(["dataset", "rebuild-manifest", ds])
    assert rc == 2 and "being written by another run" in one_line(err)


# --------------------------------------------------------------------------- atlas


ATLAS = dict(seed=3, first_deals=2, max_deals=2, rounds=1, kinds=("nt",), positions=(1,))


def test_atlas_build_refuses_before_the_work_and_rounds_0(tmp_path):
    from belote_sim.atlas import build_atlas

    path = tmp_path / "a.npz"
    path.write_bytes(b"mine")
    progress = []
    with pytest.raises(ValueError, match="exists; add --overwrite"):
        build_atlas(path, class_rows=range(5), progress=progress.append, **ATLAS)
    assert not progress and path.read_bytes() == b"mine"
    with pytest.raises(ValueError, match="no such directory"):
        build_atlas(tmp_path / "no" / "a.npz", class_rows=range(5), **ATLAS)
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        build_atlas(tmp_path / "b.npz", class_rows=range(5), **{**ATLAS, "rounds": 0})
    rc, _, err = run_cli(["atlas", "build", "--rounds", "0", "-o", tmp_path / "c.npz"])
    assert rc == 2 and "rounds must be at least 1" in one_line(err)
    live_lock(path)
    with pytest.raises(ValueError, match="being written by another run"):
        build_atlas(path, class_rows=range(5), overwrite=True, **ATLAS)


def test_atlas_build_leftovers_interrupts_and_bad_chunk_files(tmp_path):
    from belote_sim.atlas import build_atlas, load_atlas

    path = tmp_path / "a.npz"
    work = tmp_path / "work"
    (tmp_path / "a.npz.tmp.npz").write_bytes(b"left by an older version")
    with pytest.raises(RunInterrupted, match="not created.*kept in .*work.*resume"):
        build_atlas(
            path, class_rows=range(40), chunk_cells=10, work_dir=work,
            progress=signal_at(2), **ATLAS,
        )  # fmt: skip
    assert not path.exists() and beside(path) == [] and not (tmp_path / "a.npz.tmp.npz").exists()
    chunks = sorted(work.glob("round0_chunk*.npz"))
    assert len(chunks) == 2
    chunks[0].write_bytes(b"")  # an empty chunk file
    with np.load(chunks[1]) as z:
        bad = dict(z)
    bad["sums"][:, 0] += 1  # other deal counts, its identity kept
    np.savez(chunks[1], **bad)
    table = build_atlas(path, class_rows=range(40), chunk_cells=10, work_dir=work, **ATLAS)
    whole = build_atlas(None, class_rows=range(40), chunk_cells=10, **ATLAS)
    assert (table.sums[1] == whole.sums[1]).all()
    assert (load_atlas(str(path)).sums[1] == whole.sums[1]).all()
    assert beside(path) == [] and not any(work.glob("*.tmp*"))


# --------------------------------------------------------------------------- subprocesses


def test_two_runs_at_once_on_one_output(tmp_path):
    """A deals run is writing; a games run and a second deals run on the same file are
    refused, and the first one's result is whole."""
    path = tmp_path / "out.parquet"
    proc = cli_process(
        "simulate", "--deals", 3_000_000, "--chunk-size", 2000, "--threads", 1, "-q", "-o", path
    )
    wait_for(proc, lambda: any(n.startswith(".out.parquet.tmp-") for n in os.listdir(tmp_path)))
    rc, _, err = run_cli(["simulate", "--games", 2, "-o", path, "--overwrite"])
    assert rc == 2 and "being written by another run" in one_line(err)
    rc, _, err = run_cli(["simulate", "--deals", 10, "-q", "-o", path, "--overwrite"])
    assert rc == 2 and "being written by another run" in one_line(err)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "kept" in one_line(err.decode())
    assert not path.exists()
    assert pq.ParquetFile(tmp_path / ".out.parquet.partial").metadata.num_rows % 2000 == 0


@pytest.mark.slow
def test_ctrl_c_while_the_dask_cluster_starts(tmp_path):
    """Ctrl-C (to the process group, as a terminal sends it) once the first worker
    process exists, while the cluster is still starting: one line, status 130."""
    psutil = pytest.importorskip("psutil")
    pytest.importorskip("dask.distributed")
    out = tmp_path / "ds"
    proc = cli_process(
        "simulate", "--deals", 2000, "--chunk-size", 1000, "--workers", 1, "-q", "-o", out
    )
    parent = psutil.Process(proc.pid)
    wait_for(proc, lambda: len(parent.children()) >= 2)  # the resource tracker and a worker
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "interrupted" in one_line(err) and "run the same command again" in err


@pytest.mark.slow
def test_ctrl_c_of_an_atlas_build_with_workers(tmp_path):
    """Ctrl-C of ``atlas build --workers``: one line (no worker tracebacks), status 130,
    no atlas and no temporary; the chunks finished are kept in the work directory."""
    pytest.importorskip("dask.distributed")
    path, work = tmp_path / "a.npz", tmp_path / "work"
    proc = cli_process(
        "atlas", "build", "-o", path, "--work-dir", work, "--workers", 1, "--first-deals", 20,
        "--max-deals", 20, "--rounds", 1, "-q",
    )  # fmt: skip
    wait_for(proc, lambda: any(work.glob("round0_chunk*.npz")))
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "kept in" in one_line(err) and "resume" in err
    assert not path.exists() and beside(path) == []
