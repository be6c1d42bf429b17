"""``belote-sim --version`` and every ``--help`` answer at once: they import neither
pandas nor numba (nor the kernels), which take seconds to load.  The check is which
modules a fresh interpreter has loaded, not a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "numba", "pyarrow", "belote_sim.kernels")

#: every command and subcommand whose --help is checked
COMMANDS = [
    [],
    ["replay"],
    ["perft"],
    ["simulate"],
    ["export-replay"],
    ["report"],
    ["dataset"],
    ["dataset", "verify"],
    ["dataset", "rebuild-manifest"],
    ["hand"],
    ["atlas"],
    ["atlas", "build"],
    ["atlas", "show"],
    ["atlas", "page"],
    ["study"],
    ["study", "bidding"],
    ["solve"],
    ["duel"],
    ["main"],
]


def _loaded_after(argvs: list[list[str]]) -> dict:
    """Run ``belote-sim ARGV`` for each ARGV in one fresh interpreter (each ends with
    SystemExit, as --help and --version do); the heavy modules then loaded, and the
    exit codes."""
    script = (
        "import json, sys\n"
        "from belote_sim.cli import main\n"
        "import io, contextlib\n"
        f"argvs = {argvs!r}\n"
        "codes = []\n"
        "for argv in argvs:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            codes.append(main(argv))\n"
        "        except SystemExit as exc:\n"
        "            codes.append(exc.code)\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps({'codes': codes, 'heavy': heavy}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_version_imports_no_heavy_module():
    seen = _loaded_after([["--version"]])
    assert seen == {"codes": [0], "heavy": []}


def test_every_help_page_imports_no_heavy_module():
    seen = _loaded_after([[*c, "--help"] for c in COMMANDS])
    assert seen == {"codes": [0] * len(COMMANDS), "heavy": []}


def test_the_console_script_module_loads_light():
    """``python -m belote_sim --version`` (the entry point through the package's
    ``__init__``) in a subprocess: the version, status 0, nothing heavy."""
    script = (
        "import runpy, sys\n"
        "sys.argv = ['belote-sim', '--version']\n"
        "try:\n"
        "    runpy.run_module('belote_sim', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    version, heavy = proc.stdout.strip().splitlines()
    assert version.startswith("belote-sim ") and heavy == "[]"


def test_the_public_names_load_on_first_use():
    import belote_sim

    for name in belote_sim.__all__:
        assert getattr(belote_sim, name) is not None, name
    from belote_sim import Rules, simulate  # noqa: F401 (the from-import works)

    assert set(belote_sim.__all__) <= set(dir(belote_sim))
    with pytest.raises(AttributeError, match="no_such_name"):
        belote_sim.no_such_name  # noqa: B018


def test_the_help_constants_agree_with_the_policy_registry():
    """The light copies the help texts are built from (``policy_help``) say what the
    registry of the kernels says."""
    from belote_sim import policy_help as H
    from belote_sim.kernels.bidding import THRESHOLD_DEFAULTS
    from belote_sim.policies import BID_POLICIES, PLAY_POLICIES, policy_usage

    assert policy_usage(PLAY_POLICIES) == H.PLAY_USAGE
    assert BID_POLICIES["threshold"].param_names == H.THRESHOLD_PARAMS
    assert H.THRESHOLD_DEFAULTS == BID_POLICIES["threshold"].defaults == THRESHOLD_DEFAULTS
