"""Running ``belote-sim`` from the tests (in-process, or as a process to signal), and the
one-line-error check."""

import io
import os
import signal
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from belote_sim.cli import main


def run_cli(argv):
    """``belote-sim ARGV`` in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse usage errors
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def one_line_error(rc, err, *words):
    """Status 2 and one line on standard error, no traceback, naming ``words``."""
    assert rc == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


ROOT = str(Path(__file__).resolve().parents[1])


def _default_sigint():
    # a process started by xdist may inherit SIGINT ignored: the CLI must see Ctrl-C
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli_process(*argv, cwd=None):
    """``belote-sim ARGV`` as a process of its own session (to be signalled), from this
    checkout, with Python's default SIGINT handling."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-m", "belote_sim", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_default_sigint,
    )


def wait_for(proc, ready, timeout=300):
    """Poll ``ready()`` until true; fail with the process's output if it ends first or
    ``timeout`` seconds pass."""
    end = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise AssertionError(proc.communicate())
        time.sleep(0.02)


__all__ = ["ROOT", "cli_process", "one_line_error", "run_cli", "wait_for"]
