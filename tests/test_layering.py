"""The package is a house of layers (ARCHITECTURE.md): each imports only from the layers below it, and no
module imports itself back through others.

Every import counts, at module level or inside a function (a lazy import still ties two modules together);
only imports under `if TYPE_CHECKING:` are left out, since they never run.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "lexsym"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("_util",),
    ("law",),
    ("oracles", "interop", "pytest_plugin"),
    ("answers", "testing"),
    ("check",),
    ("scoring",),
    ("generate",),
    ("exams",),
    ("models",),
    ("runner",),
    ("judges",),
    ("analysis",),
    ("reports", "viewer", "literate"),
    ("evalset",),
    ("inspect", "publish"),
    ("cli",),
)
"""Bottom to top. Packages on one floor are independent of each other."""

RANK = {package: floor for floor, packages in enumerate(LAYERS) for package in packages}
ROOT_MODULES = {"__init__", "__main__", "_version"}
MAX_LINES = 400
LONG_MODULES: dict[str, str] = {}
"""Modules allowed past MAX_LINES, each with the reason (none at present)."""


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("lexsym", *parts))
        found[name.removesuffix(".__init__")] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, module: str) -> set[str]:
    """The lexsym modules `module` imports. `from lexsym.x import y`, where y is a module, counts as an import
    of lexsym.x.y alone: the package lexsym.x runs first, but that holds for every import of its modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            skipped |= {id(child) for child in ast.walk(node)}
    known = _modules()
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("lexsym")}
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            if node.level:
                anchor = module.split(".")
                if path.name != "__init__.py":
                    anchor = anchor[:-1]
                base = ".".join([*anchor[: len(anchor) - node.level + 1], node.module])
            if not base.startswith("lexsym"):
                continue
            submodules = {f"{base}.{alias.name}" for alias in node.names} & set(known)
            found |= submodules
            if len(submodules) < len(node.names):  # names defined in `base` itself
                found.add(base)
    return {name for name in found if name in known and name != module}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


GRAPH = {module: _imports(path, module) for module, path in _modules().items()}


def test_every_package_has_a_floor_and_the_root_holds_only_the_entry_points():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(RANK), packages ^ set(RANK)
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose == ROOT_MODULES, loose - ROOT_MODULES


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_down_only(module):
    package = _package(module)
    for target in sorted(GRAPH[module]):
        other = _package(target)
        if target == "lexsym._version" or other == package:
            continue
        if module in ("lexsym", "lexsym.__main__"):
            continue  # the entry points sit above every floor
        assert other in RANK and package in RANK, (module, target)
        assert target != "lexsym", f"{module} imports the top-level package"
        assert RANK[other] < RANK[package], f"{module} ({package}) imports {target} ({other}), not below it"


def test_there_are_no_import_cycles():
    state: dict[str, int] = defaultdict(int)  # 0 new, 1 on the stack, 2 done
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(GRAPH.get(module, ())):
            if state[target] == 1:
                cycle = [*stack[stack.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if state[target] == 0:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if state[module] == 0:
            visit(module)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_no_module_is_over_400_lines(module):
    lines = len(_modules()[module].read_text(encoding="utf-8").splitlines())
    if module in LONG_MODULES:
        return
    assert lines <= MAX_LINES, f"{module}: {lines} lines; split it where a second concept begins"
