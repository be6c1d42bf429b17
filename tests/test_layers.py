"""Imports run one way: kernels < cards/rules/policies < deal < simulation < analysis < cli.

Every ``import``/``from ... import`` of a ``belote_sim`` module (function-level imports
included) is read from the source with ``ast``; a module may import its own layer or
lower ones only.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "belote_sim"

#: Layer of a module by its dotted name; the first matching prefix wins.
LAYERS = [
    ("belote_sim.kernels", 0),
    ("belote_sim._version", 0),
    ("belote_sim.cards", 1),
    ("belote_sim.rules", 1),
    ("belote_sim.policies", 1),
    ("belote_sim.deal", 2),
    ("belote_sim.simulation", 3),
    ("belote_sim.analysis", 4),
    ("belote_sim.atlas", 4),
    ("belote_sim.cli", 5),
    ("belote_sim.__main__", 6),
    ("belote_sim", 6),  # the package's __init__: the public names
]


def layer_of(module: str) -> int:
    for prefix, layer in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return layer
    raise KeyError(module)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "belote_sim":  # from belote_sim import x: x is the module
                found += [(node.lineno, f"belote_sim.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module))
    return [(line, m) for line, m in found if m == "belote_sim" or m.startswith("belote_sim.")]


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_downwards(path):
    own = layer_of(module_name(path))
    upward = [f"line {line}: {m}" for line, m in imported_modules(path) if layer_of(m) > own]
    assert not upward, f"{module_name(path)} (layer {own}) imports upwards: {upward}"


def test_the_checker_sees_an_upward_import(tmp_path):
    fake = PACKAGE / "deal" / "replay.py"
    text = "def f():\n    from belote_sim.analysis import plots\n"
    probe = tmp_path / "probe.py"
    probe.write_text(text)
    ((_, name),) = [(line, m) for line, m in imported_modules(probe)]
    assert layer_of(name) > layer_of(module_name(fake))


def test_no_module_over_about_800_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in SOURCES
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert not long
