"""Running ``belote-sim`` in-process from the tests, and the one-line-error check."""

import io
from contextlib import redirect_stderr, redirect_stdout

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


__all__ = ["one_line_error", "run_cli"]
