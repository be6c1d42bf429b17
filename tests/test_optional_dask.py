"""dask is an optional extra: without it, cluster options fail with one line."""

import sys

from belote_sim import cli


def test_workers_without_dask_is_a_one_line_error(monkeypatch, tmp_path, capsys):
    # None in sys.modules makes "import dask.distributed" raise ImportError
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    monkeypatch.setitem(sys.modules, "dask", None)
    out = tmp_path / "study"
    status = cli.main(["simulate", "--deals", "100", "--workers", "2", "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert len(err.splitlines()) == 1
    assert "pip install 'belote-sim[dask]'" in err


def test_local_runs_do_not_import_dask(tmp_path):
    import subprocess

    code = (
        "import sys; import belote_sim, belote_sim.cli, belote_sim.simulation.runner; "
        "print('dask' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
