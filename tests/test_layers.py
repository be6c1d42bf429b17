"""Interfaces, not reach-ins: how the modules of ``belote_sim`` may use each other.

Every ``import x.y [as z]`` and ``from x import y [as z]`` in ``belote_sim/`` is read
from the source with ``ast`` -- module-level and function-level imports alike,
relative imports resolved -- together with the attributes read off an imported
``belote_sim`` module (``m.name``, ``belote_sim.m.name``).  Four rules, checked over
every module (``kernels/`` included):

* **Layers.**  Imports run one way: kernels < stats/cards/rules/policies < deal <
  simulation < atlas < analysis < cli < the package's ``__init__``, and inside the
  kernels floor by floor (``KERNEL_FLOORS``: the play loop sits above the policy
  switchboard, which sits above the policies).  A module may import its own layer or
  lower ones only.
* **No circles.**  The graph "module A imports module B" (``from pkg import sub``
  is an edge to ``pkg.sub``; the parent packages that Python initialises first are
  not edges: each ``__init__`` is checked through its own imports) has no strongly
  connected component of more than one module.  No exception is needed, not even
  for a package ``__init__`` that re-exports its submodules.
* **No reach-ins.**  No module takes a ``_private`` name from another one, by
  ``from m import _x`` or by ``m._x``.  Dunder names (``__version__``) are public.
  ``from m import name as _alias`` is *not* a reach-in: the name taken is public,
  the alias is the importer's own business.  A private *module* (``_version``,
  ``kernels._jit``) is private to its package: the modules under that package may
  import it, no others.
* **Stated interfaces.**  Every module defines ``__all__`` as a list or tuple of
  string literals, every name in it is bound in the module (or is a submodule of a
  package), and every name another module takes from it (``from m import name``,
  ``m.name``) is listed in it -- submodules of a package excepted.

Each rule is a function of a ``Tree`` (the parsed sources under a directory), so
``test_every_checker_can_fail`` can feed each one a small broken tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TOP = "belote_sim"
PACKAGE = Path(__file__).resolve().parents[1] / TOP

#: The floors inside ``kernels/`` (docs/architecture.md): numba's machinery and the
#: tables; bit helpers and the generator; the rules; the deal record and what policies
#: are shown; the policies' kernels; their adapters to a seat; the switchboard; the
#: play loop and the auction; the drivers that loop over many deals.
KERNEL_FLOORS = [
    (0.00, ("numba_internals", "tables", "expert_weights", "suit_net_weights")),
    (0.01, ("_cache",)),
    (0.02, ("_jit",)),
    (0.03, ("bits", "rng", "atomics", "pair_rows")),
    (0.10, ("core", "declarations", "scoring", "dealing", "suit_symmetry")),
    (0.20, ("records",)),
    (
        0.30,
        ("greedy", "bidding", "solver", "expert", "suit_net", "expert_model", "expert_solo"),
    ),
    (0.40, ("search_policies", "expert_seat", "bidding_rules", "auction_atlas")),
    (0.50, ("switchboard",)),
    (0.60, ("play", "auction")),
    (
        0.70,
        (
            "simulate",
            "atlas",
            "playouts",
            "expert_data",
            "perft",
            "auction_samples",
            "auction_deals",
        ),
    ),
]

#: Layer of a module by its dotted name; the first matching prefix wins.
LAYERS = [
    *[(f"belote_sim.kernels.{name}", floor) for floor, names in KERNEL_FLOORS for name in names],
    ("belote_sim.kernels", 0.7),  # the package's __init__ (it installs the cache locators)
    ("belote_sim._version", 0),
    ("belote_sim.stats", 1),
    ("belote_sim.cards", 1),
    ("belote_sim.rules", 1),
    ("belote_sim.policies", 1),
    ("belote_sim.policy_help", 1),
    ("belote_sim.bid_rules", 1),
    ("belote_sim.input_limits", 1),
    ("belote_sim.deal", 2),
    ("belote_sim.simulation", 3),
    # the hand atlas: built by simulation, read by the report (analysis) and the cli
    ("belote_sim.atlas", 3.5),
    # a hand's answer in an auction: over the atlas's hand queries
    ("belote_sim.auction_answer", 3.6),
    # the game interfaces' deal (over the auction of simulation/py_bidding) and the
    # interfaces themselves (optional extras: open-spiel, pettingzoo)
    ("belote_sim.games", 3.7),
    ("belote_sim.openspiel", 4.5),
    ("belote_sim.pettingzoo", 4.5),
    ("belote_sim.analysis", 4),
    ("belote_sim.cli", 5),
    ("belote_sim.__main__", 6),
    ("belote_sim", 6),  # the package's __init__: the public names
]


def layer_of(module: str) -> float:
    for prefix, layer in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return layer
    raise KeyError(module)


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# -- reading the sources ----------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    """One use of another module: ``module`` loaded (``name`` None) or ``module.name``."""

    line: int
    module: str
    name: str | None = None
    imported: bool = True  # False: an attribute read off an imported module

    def __str__(self) -> str:
        what = self.module if self.name is None else f"{self.module}.{self.name}"
        return f"line {self.line}: {what}"


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module
    uses: list[Use] = field(default_factory=list)

    def __str__(self) -> str:
        return self.name


@dataclass
class Tree:
    """The parsed modules of the package under ``root`` (``root/belote_sim/...``)."""

    modules: dict[str, Module]

    def __getitem__(self, name: str) -> Module:
        return self.modules[name]

    def is_module(self, name: str) -> bool:
        return name in self.modules


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_tree(root: Path) -> Tree:
    """Parse every module of ``root / belote_sim`` and record the uses of each."""
    modules = {}
    for path in sorted((root / TOP).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        name = module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        modules[name] = Module(name, path, path.name == "__init__.py", tree)
    result = Tree(modules)
    for module in modules.values():
        module.uses = sorted(set(_Reader(result, module).uses()), key=lambda u: u.line)
    return result


def _in_package(name: str) -> bool:
    return name == TOP or name.startswith(TOP + ".")


def _scope_nodes(nodes: list[ast.AST], stop: tuple[type, ...] = ()) -> Iterator[ast.AST]:
    """The nodes of one scope: what is inside nested functions, lambdas and
    comprehensions (and ``stop``) excluded."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NEW_SCOPE + stop):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NEW_SCOPE = _FUNCTIONS + _COMPREHENSIONS


class _Reader:
    """The uses of other modules in one module, names resolved scope by scope (a local
    variable called like an imported module is not that module)."""

    def __init__(self, tree: Tree, module: Module):
        self.tree = tree
        self.module = module
        self.found: list[Use] = []

    def uses(self) -> list[Use]:
        self._scope(self.module.tree.body, {})
        return self.found

    def _resolve(self, level: int, target: str | None) -> str:
        if level == 0:
            return target or ""
        base = self.module.name.split(".")
        if not self.module.is_package:
            base.pop()
        base = base[: len(base) - (level - 1)]
        return ".".join(base + ([target] if target else []))

    def _imports(self, node: ast.AST, bound: dict[str, str | None]) -> None:
        """Record an import statement and bind the names it defines."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _in_package(alias.name):
                    continue
                self.found.append(Use(node.lineno, alias.name))
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    bound[alias.name.split(".")[0]] = TOP
        elif isinstance(node, ast.ImportFrom):
            base = self._resolve(node.level, node.module)
            if not _in_package(base):
                return
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if self.tree.is_module(sub):
                    self.found.append(Use(node.lineno, sub))
                    bound[alias.asname or alias.name] = sub
                else:
                    self.found.append(Use(node.lineno, base, alias.name))
                    bound[alias.asname or alias.name] = None

    def _scope(self, body: list[ast.AST], outer: dict[str, str | None]) -> None:
        """One scope: its imports and local names first, then its attribute reads."""
        bound = dict(outer)
        nodes = list(_scope_nodes(body))
        for node in nodes:
            for name in _stored_names(node):
                bound[name] = None  # a local name hides a module of the enclosing scope
        for node in nodes:
            self._imports(node, bound)
        for node in nodes:
            if isinstance(node, ast.Attribute):
                self._attribute(node, bound)
            if isinstance(node, _FUNCTIONS):
                self._scope(_function_body(node), bound)
            elif isinstance(node, _COMPREHENSIONS):
                self._scope(list(ast.iter_child_nodes(node)), bound)

    def _attribute(self, node: ast.Attribute, bound: dict[str, str | None]) -> None:
        chain = []
        value: ast.expr = node
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or bound.get(value.id) is None:
            return
        current = bound[value.id]
        assert current is not None
        for attr in reversed(chain):
            if self.tree.is_module(f"{current}.{attr}"):
                current = f"{current}.{attr}"
                continue
            if current != self.module.name:
                self.found.append(Use(node.lineno, current, attr, imported=False))
            return


def _function_body(node: ast.AST) -> list[ast.AST]:
    """A function's body with its parameters (as ``ast.arg`` nodes) and defaults."""
    if isinstance(node, ast.Lambda):
        return [node.args, node.body]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return [node.args, *node.body]


def _stored_names(node: ast.AST) -> list[str]:
    """Names a node binds in its own scope (imports aside)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    return []


def top_level_names(module: Module) -> set[str]:
    """Names bound at module level (imports, definitions, assignments)."""
    names = set()
    for node in _scope_nodes(list(module.tree.body), stop=(ast.ClassDef,)):
        names.update(_stored_names(node))
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def declared_all(module: Module) -> list[str] | None:
    """The string literals of the module-level ``__all__``; None when there is none or
    it is not a plain list or tuple of string literals."""
    for node in module.tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        if not isinstance(value, ast.List | ast.Tuple):
            return None
        if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
            return None
        return [e.value for e in value.elts]
    return None


# -- the four rules -----------------------------------------------------------------------


def upward_imports(tree: Tree, module: str) -> list[str]:
    own = layer_of(module)
    return [
        f"{use} (layer {layer_of(use.module)})"
        for use in tree[module].uses
        if use.imported and layer_of(use.module) > own
    ]


def import_graph(tree: Tree) -> dict[str, set[str]]:
    return {
        name: {u.module for u in m.uses if u.imported and u.module != name}
        for name, m in tree.modules.items()
    }


def circles(tree: Tree) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph = import_graph(tree)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def private_reach_ins(tree: Tree, module: str) -> list[str]:
    found = []
    for use in tree[module].uses:
        if use.name is not None and use.module != module and is_private(use.name):
            found.append(f"{use}: a private name of another module")
        parts = use.module.split(".")
        for i, part in enumerate(parts):
            owner = ".".join(parts[:i])  # the package a private module belongs to
            if is_private(part) and not (module == owner or module.startswith(owner + ".")):
                found.append(f"{use}: a private module of {owner}")
    return found


def interface_problems(tree: Tree, module: str) -> list[str]:
    """What is wrong with ``module``'s ``__all__``, and the names others take from it
    that it does not list."""
    m = tree[module]
    listed = declared_all(m)
    if listed is None:
        return ["no __all__ (a list or tuple of string literals)"]
    problems = [
        f"{n!r} listed twice in __all__" for n in sorted(set(listed)) if listed.count(n) > 1
    ]
    bound = top_level_names(m)
    for name in listed:
        if name not in bound and not (m.is_package and tree.is_module(f"{module}.{name}")):
            problems.append(f"{name!r} in __all__ is not defined or imported")
    for other in tree.modules.values():
        if other.name == module:
            continue
        for use in other.uses:
            if use.module == module and use.name is not None and use.name not in listed:
                if not is_private(use.name):  # private ones: private_reach_ins
                    problems.append(f"{other.name} {use}: not in __all__")
    return problems


# -- the tests -----------------------------------------------------------------------------

TREE = read_tree(PACKAGE.parent)
NAMES = sorted(TREE.modules)


def test_the_tree_is_read():
    assert "belote_sim.cli.main" in NAMES and "belote_sim.kernels.core" in NAMES
    assert len(NAMES) > 40


@pytest.mark.parametrize("module", NAMES)
def test_imports_run_downwards(module):
    upward = upward_imports(TREE, module)
    assert not upward, f"{module} (layer {layer_of(module)}) imports upwards: {upward}"


CIRCLES = circles(TREE)


@pytest.mark.parametrize("module", NAMES)
def test_no_circle(module):
    mine = [c for c in CIRCLES if module in c]
    assert not mine, f"{module} is on a circle of imports: {mine}"


@pytest.mark.parametrize("module", NAMES)
def test_no_private_reach_in(module):
    found = private_reach_ins(TREE, module)
    assert not found, f"{module} reaches into private names: {found}"


@pytest.mark.parametrize("module", NAMES)
def test_states_its_interface(module):
    problems = interface_problems(TREE, module)
    assert not problems, f"{module}: {problems}"


# -- the checkers themselves ---------------------------------------------------------------


def _write(root: Path, files: dict[str, str]) -> Tree:
    for rel, text in files.items():
        path = root / TOP / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for directory in [root / TOP, *(p for p in (root / TOP).rglob("*") if p.is_dir())]:
        (directory / "__init__.py").touch()
    return read_tree(root)


CLEAN = {
    "__init__.py": '__all__ = ["simulation"]\n',
    "stats.py": '__all__ = ["Z95", "wilson"]\nZ95 = 1.96\ndef wilson(k, n):\n    return k / n\n',
    "deal/__init__.py": "__all__: list[str] = []\n",
    "deal/play.py": (
        "from belote_sim import stats\n"
        "from belote_sim.stats import wilson as _wilson\n"
        '__all__ = ("play",)\n'
        "def play(stats_=None):\n"
        "    return stats.Z95, _wilson(1, 2)\n"
        "def other(stats):\n"
        "    return stats._shadowed\n"  # a parameter, not the module
    ),
    "simulation/__init__.py": "__all__ = []\n",
    "simulation/run.py": (
        "import belote_sim.deal.play\n"
        "from ..deal import play as p\n"
        '__all__ = ["run"]\n'
        "def run():\n"
        "    from belote_sim.deal.play import play\n"
        "    return play(), belote_sim.deal.play.play, p.play\n"
    ),
}


def test_a_clean_tree_passes(tmp_path):
    tree = _write(tmp_path, CLEAN)
    assert "belote_sim.deal.play" in {u.module for u in tree["belote_sim.simulation.run"].uses}
    assert not circles(tree)
    for name in tree.modules:
        assert not upward_imports(tree, name), name
        assert not private_reach_ins(tree, name), name
        assert not interface_problems(tree, name), name


def test_every_checker_can_fail(tmp_path):
    broken = dict(CLEAN)
    # an upward import, hidden in a function, and a relative one
    broken["deal/play.py"] += "def up():\n    from belote_sim.simulation import run\n"
    broken["deal/play.py"] += "def up2():\n    from ..simulation.run import run\n"
    # a circle through that function-level import (deal.play -> simulation.run -> deal.play)
    # a private name, by import and by attribute, and a private module
    broken["simulation/run.py"] += (
        "from belote_sim.stats import _hidden\n"
        "def peek():\n"
        "    a = belote_sim.deal.play._secret\n"
        "    return a, p._secret\n"
        "from belote_sim.deal import _private_module\n"
    )
    broken["deal/_private_module.py"] = "__all__ = []\n"
    # a name taken that __all__ does not list, and a listed name that does not exist
    broken["stats.py"] = broken["stats.py"].replace('"wilson"]', '"wilson", "ghost"]')
    broken["stats.py"] += "def unlisted():\n    pass\n"
    broken["deal/play.py"] += "from belote_sim.stats import unlisted\n"
    # a module without __all__
    broken["rules.py"] = "X = 1\n"
    tree = _write(tmp_path, broken)

    upward = upward_imports(tree, "belote_sim.deal.play")
    assert len(upward) == 2 and all("belote_sim.simulation" in u for u in upward)
    assert circles(tree) == [["belote_sim.deal.play", "belote_sim.simulation.run"]]
    private = private_reach_ins(tree, "belote_sim.simulation.run")
    assert len(private) == 4, private
    assert any("_private_module" in p for p in private)
    assert not private_reach_ins(tree, "belote_sim.deal.play")  # `stats._shadowed`: a parameter
    problems = interface_problems(tree, "belote_sim.stats")
    assert any("'ghost'" in p for p in problems) and any("unlisted" in p for p in problems)
    assert interface_problems(tree, "belote_sim.rules") == [
        "no __all__ (a list or tuple of string literals)"
    ]


def test_a_private_module_is_private_to_its_package(tmp_path):
    tree = _write(
        tmp_path,
        {
            "kernels/_jit.py": '__all__ = ["njit"]\nnjit = None\n',
            "kernels/core.py": "from belote_sim.kernels._jit import njit\n__all__ = []\n",
            "kernels/solver/search.py": "from belote_sim.kernels import _jit\n__all__ = []\n",
            "deal/agent.py": "import belote_sim.kernels._jit\n__all__ = []\n",
        },
    )
    assert not private_reach_ins(tree, "belote_sim.kernels.core")
    assert not private_reach_ins(tree, "belote_sim.kernels.solver.search")
    assert private_reach_ins(tree, "belote_sim.deal.agent")


def test_a_package_may_list_its_submodules(tmp_path):
    tree = _write(
        tmp_path,
        {"analysis/__init__.py": '__all__ = ["plots"]\n', "analysis/plots.py": "__all__ = []\n"},
    )
    assert not interface_problems(tree, "belote_sim.analysis")


def test_every_kernel_module_has_a_floor():
    """A new kernel module is placed on a floor of ``KERNEL_FLOORS`` (else it would
    silently take the top floor of the ``belote_sim.kernels`` package)."""
    floors = [f"belote_sim.kernels.{n}" for _, names in KERNEL_FLOORS for n in names]
    homeless = [
        m
        for m in NAMES
        if m.startswith("belote_sim.kernels.")
        and not any(m == f or m.startswith(f + ".") for f in floors)
    ]
    assert not homeless
