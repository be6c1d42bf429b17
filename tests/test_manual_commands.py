"""Every ``belote-sim`` command shown in README.md and the manual (docs/**/*.md), run.

The commands are the lines starting with ``belote-sim`` of the ```sh blocks (``\\`` line
continuations joined, ``#`` comments dropped; other lines -- ``make``, ``python
analyses/...``, ``dask`` -- are not run here). Each page's commands run in order with the
installed ``belote-sim`` (the console script beside this Python), in one temporary
directory per page, so a later command reads what an earlier one of its page wrote; each
must exit with status 0.

* **Sizes are capped** (``CAPS``): the examples show the sizes of real studies (up to
  a billion deals); here ``--deals`` is at most 200 (4 with ``pimc``, which plays ~10
  deals a second), ``--games`` at most 6, ``--chunk-size`` at most 100, and ``atlas
  build`` measures one deal a cell in one round of topping up. Where a command's default size is
  large (``simulate``, ``duel``, ``study``, ``main``, ``atlas build``) the cap is added.
  ``hand`` gets no ``--deals`` it did not have (that would make it simulate instead of
  reading the atlas), unless it answers in an auction (``--auction``: it always simulates).
* **Inputs**: a command that names a file no earlier command of its page wrote
  (``deals.parquet``, ``deals.jsonl``, the dataset ``study1``) gets a small one, made
  once per test process (``INPUTS``). Paths into the repository
  (``analyses/systems/cautious.toml``, ``belote_sim/data/sample_deals.jsonl``,
  ``rules:FILE``) are rewritten to absolute paths, the working directory being the
  temporary one. ``> FILE`` sends standard output to FILE.
* A block preceded by ``<!-- not-run: REASON -->`` (a cluster on other machines) is
  not run: each of its commands must be accepted by the command's argument parser
  (``belote_sim.cli.main.build_parser``), which reads every argument and runs nothing.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from belote_sim.cli.main import build_parser

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
SHELLS = {"sh", "bash", "shell"}
NOT_RUN = re.compile(r"<!--\s*not-run:\s*(.*?)\s*-->")

#: the options that set a command's size, and their caps (a smaller value is kept)
CAPS: dict[str, dict[str, int]] = {
    "simulate": {"--deals": 200, "--games": 6, "--chunk-size": 100},
    "main": {"--deals": 200},
    "duel": {"--deals": 200, "--games": 6},
    "study bidding": {"--deals": 200, "--games": 6},
    "study systems": {"--deals": 200, "--games": 6},
    "hand": {"--deals": 200},
    "atlas build": {"--first-deals": 1, "--max-deals": 1, "--net-max-deals": 1, "--rounds": 1},
}
#: the caps added where the command does not give the option (its default is large)
ADDED = {
    "simulate": ["--deals"],  # unless --games
    "main": ["--deals"],
    "duel": ["--deals"],
    "study bidding": ["--deals"],
    "study systems": ["--deals"],
    "atlas build": ["--first-deals", "--max-deals", "--net-max-deals", "--rounds"],
}
PIMC_DEALS = 4
#: options whose value is a file or directory the command writes (and ``> FILE``)
OUTPUTS = {"-o", "--output", "--report", "--work-dir", "--parquet", "--csv", ">"}


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    text: str
    not_run: str | None  # the reason, for a block that is only parsed


def shell_blocks(page: Path, text: str) -> list[Block]:
    """The ```sh blocks of a markdown text, each with its not-run mark if it has one."""
    blocks: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^(\s*)(`{3,})\s*(\S*)", lines[i])
        if not fence:
            i += 1
            continue
        ticks, lang = fence.group(2), fence.group(3)
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(ticks):
            end += 1
        if lang in SHELLS:
            before = [line for line in lines[:i] if line.strip()]
            mark = NOT_RUN.fullmatch(before[-1].strip()) if before else None
            body = "\n".join(lines[i + 1 : end])
            blocks.append(Block(page, i + 1, body, mark.group(1) if mark else None))
        i = end + 1
    return blocks


def commands(block_text: str) -> list[list[str]]:
    """The ``belote-sim`` commands of a shell block, as argument lists."""
    joined = block_text.replace("\\\n", "")  # a continuation, as the shell reads it
    found = []
    for line in joined.split("\n"):
        words = shlex.split(line, comments=True)
        if words and words[0] == "belote-sim":
            found.append(words)
    return found


def redirect(args: list[str]) -> tuple[list[str], str | None]:
    """``args`` without a final ``> FILE``, and FILE (None without one)."""
    if ">" in args:
        at = args.index(">")
        return args[:at], args[at + 1]
    return args, None


def command_name(args: list[str]) -> str:
    """``simulate``, ``atlas build``, ``study systems``, ...: the (sub)command."""
    if len(args) > 2 and args[1] in ("atlas", "study", "dataset"):
        return f"{args[1]} {args[2]}"
    return args[1] if len(args) > 1 else ""


def _option(args: list[str], name: str) -> int | None:
    """The index of option ``name``'s value in ``args`` (``--name V`` or ``--name=V``)."""
    for i, word in enumerate(args):
        if word == name and i + 1 < len(args):
            return i + 1
    return None


def capped(args: list[str]) -> list[str]:
    """``args`` with its size options capped (``CAPS``), and added where ``ADDED``."""
    args, to = redirect(list(args))
    name = command_name(args)
    caps = dict(CAPS.get(name, {}))
    if any("pimc" in word for word in args) and "--deals" in caps:
        caps["--deals"] = PIMC_DEALS
    added = list(ADDED.get(name, []))
    if name == "hand" and "--auction" in args:
        added.append("--deals")  # an answer in an auction always simulates (20,000 deals)
    for option, cap in caps.items():
        at = _option(args, option)
        if at is not None:
            args[at] = str(min(int(args[at].replace("_", "")), cap))
        elif option in added and not (option == "--deals" and "--games" in args):
            args += [option, str(cap)]
    return args + ([">", to] if to is not None else [])


def in_repo(args: list[str], cwd: Path) -> list[str]:
    """Repository paths (``analyses/...``, ``rules:analyses/...``) made absolute."""
    out = []
    for word in args:
        prefix, _, rest = (
            word.rpartition(":") if word.startswith(("rules:", "atlas:")) else ("", "", word)
        )
        if "/" in rest and not (cwd / rest).exists() and (REPO / rest).exists():
            word = (prefix + ":" if prefix else "") + str(REPO / rest)
        out.append(word)
    return out


def outputs(args: list[str]) -> set[str]:
    """The files and directories a command writes (its output options' values)."""
    found = {args[i + 1] for i, word in enumerate(args[:-1]) if word in OUTPUTS}
    return {path.rstrip("/") for path in found}


def cli() -> str:
    """The installed ``belote-sim`` (beside this Python, else on the PATH)."""
    here = Path(sys.executable).with_name("belote-sim")
    found = str(here) if here.exists() else shutil.which("belote-sim")
    if found is None:
        pytest.fail("the belote-sim command is not installed (pip install -e .)")
    return found


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run one command (``args[0]`` is ``belote-sim``); ``> FILE`` redirects stdout."""
    args, stdout_to = redirect(args)
    env = dict(os.environ, NUMBA_NUM_THREADS=os.environ.get("NUMBA_NUM_THREADS", "2"))
    done = subprocess.run(
        [cli(), *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=900, env=env
    )
    if stdout_to is not None:
        (cwd / stdout_to).write_text(done.stdout)
    return done


#: the inputs a page's commands may read without making them: name -> commands
INPUTS = {
    "deals.parquet": [
        "belote-sim simulate --deals 200 --play greedy --seed 1 -q -o deals.parquet",
    ],
    "deals.jsonl": [
        "belote-sim simulate --deals 200 --play greedy --seed 1 -q -o deals.parquet",
        "belote-sim export-replay deals.parquet --rows 0:20 -o deals.jsonl",
    ],
    "study1": [
        "belote-sim simulate --deals 200 --chunk-size 100 --play greedy --seed 1 -q "
        "--workers 2 -o study1",
    ],
}


@functools.cache
def made_input(name: str) -> Path:
    """``name`` made once in this process, in a directory of its own (removed at exit)."""
    where = Path(tempfile.mkdtemp(prefix=f"manual-input-{name}-"))
    atexit.register(shutil.rmtree, where, True)
    for line in INPUTS[name]:
        done = run(shlex.split(line), where)
        assert done.returncode == 0, f"making {name}: {line}\n{done.stderr[-2000:]}"
    return where / name


def provide(args: list[str], cwd: Path, written: set[str]) -> None:
    """Copy into ``cwd`` the inputs that ``args`` reads and nothing wrote before."""
    mine = outputs(args)
    for word in args[1:]:
        if word in INPUTS and word not in written and word not in mine:
            if not (cwd / word).exists():
                source = made_input(word)
                if source.is_dir():
                    shutil.copytree(source, cwd / word)
                else:
                    shutil.copy2(source, cwd / word)


def _page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


def _runnable(page: Path) -> bool:
    blocks = shell_blocks(page, page.read_text())
    return any(commands(b.text) for b in blocks if b.not_run is None)


RUN_PAGES = [page for page in PAGES if _runnable(page)]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES, ids=_page_id)
def test_page_commands_run(page: Path, tmp_path: Path) -> None:
    """Each ``belote-sim`` command of the page's shell blocks, capped, exits with 0."""
    written: set[str] = set()
    ran = 0
    for block in shell_blocks(page, page.read_text()):
        if block.not_run is not None:
            continue
        for args in commands(block.text):
            args = in_repo(capped(args), tmp_path)
            provide(args, tmp_path, written)
            done = run(args, tmp_path)
            shown = shlex.join(args)
            assert done.returncode == 0, (
                f"{_page_id(page)}:{block.line}: {shown}\nexit status {done.returncode}\n"
                f"{done.stderr[-3000:]}"
            )
            written |= outputs(args)
            ran += 1
    assert ran > 0


def test_not_run_commands_parse() -> None:
    """The commands of the not-run blocks are ones the CLI accepts, and say why."""
    parser = build_parser()
    checked = 0
    for page in PAGES:
        for block in shell_blocks(page, page.read_text()):
            if block.not_run is None:
                continue
            assert block.not_run, f"{_page_id(page)}:{block.line}: not-run without a reason"
            for args in commands(block.text):
                try:
                    parser.parse_args(redirect(args)[0][1:])
                except SystemExit:
                    pytest.fail(f"{_page_id(page)}:{block.line}: {shlex.join(args)} does not parse")
                checked += 1
    assert checked > 0


def test_every_page_command_is_seen() -> None:
    """The extraction finds the commands of every page that shows one (a page whose
    ```sh examples were all skipped would pass unseen), and every one parses."""
    parser = build_parser()
    for page in PAGES:
        text = page.read_text()
        shown = re.search(r"^```(sh|bash|shell)\n(#.*\n)*belote-sim ", text, flags=re.M)
        found = [args for b in shell_blocks(page, text) for args in commands(b.text)]
        if shown:
            assert found, f"{_page_id(page)} shows belote-sim commands; none extracted"
        for args in found:
            try:
                parser.parse_args(redirect(capped(args))[0][1:])
            except SystemExit:
                pytest.fail(f"{_page_id(page)}: {shlex.join(args)} does not parse")


def test_extraction_and_caps() -> None:
    """Continuations, comments, not-run marks and caps, on a made-up page."""
    text = "\n".join(
        [
            "Some text.",
            "```sh",
            "belote-sim simulate --deals 10000000 --seed 1 \\",
            '    --predeal "0:JH 9H AH TS 7C" -o deals.parquet   # a comment',
            "# belote-sim duel --deals 5 (a comment, not a command)",
            "make run",
            'belote-sim solve "JC KC | \\',
            '7C TC" --strain S',
            "```",
            "",
            "<!-- not-run: needs a cluster -->",
            "```sh",
            "belote-sim duel --a pimc:30 --b greedy --deals 300",
            "```",
            "```python",
            "belote-sim not a shell block",
            "```",
        ]
    )
    blocks = shell_blocks(Path("page.md"), text)
    assert [(b.line, b.not_run) for b in blocks] == [(2, None), (12, "needs a cluster")]
    first = commands(blocks[0].text)
    assert first == [
        [
            "belote-sim", "simulate", "--deals", "10000000", "--seed", "1",
            "--predeal", "0:JH 9H AH TS 7C", "-o", "deals.parquet",
        ],
        ["belote-sim", "solve", "JC KC | 7C TC", "--strain", "S"],
    ]  # fmt: skip
    assert capped(first[0])[3] == "200"
    assert capped(commands(blocks[1].text)[0])[-1] == str(PIMC_DEALS)
    assert capped(["belote-sim", "duel", "--a", "expert"])[-2:] == ["--deals", "200"]
    assert "--deals" not in capped(["belote-sim", "simulate", "--games", "9"])
    assert capped(["belote-sim", "hand", "JH 9H AH TS 7C"]) == [
        "belote-sim",
        "hand",
        "JH 9H AH TS 7C",
    ]
    assert capped(["belote-sim", "hand", "JH 9H AH TS 7C", "--auction", "pH"])[-2:] == [
        "--deals",
        "200",
    ]
    assert capped(["belote-sim", "duel", ">", "d.json"]) == [
        "belote-sim", "duel", "--deals", "200", ">", "d.json"
    ]  # fmt: skip
    assert outputs(["belote-sim", "study", "systems", "a", "b", "--report", "systems/"]) == {
        "systems"
    }
