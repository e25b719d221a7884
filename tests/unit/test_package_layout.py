"""The package's imports are all at the top of its modules, so the import graph is the one a
reader sees (issue 13: no cycle hidden by an import inside a function).

Allowed exceptions: command-line modules (they import what a subcommand needs when it runs,
so ``--help`` stays fast), a package's ``__getattr__`` that loads a part needing an optional
extra, and the pytest plugin (loaded into every pytest session of a user's project)."""

from __future__ import annotations

import ast
from pathlib import Path

import dealframe

ROOT = Path(dealframe.__file__).parent
_DEFERRING = {"cli.py", "clitools.py", "pytest_plugin.py"}


def _deferred_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if function.name == "__getattr__":
            continue
        for node in ast.walk(function):
            ours = (isinstance(node, ast.ImportFrom) and node.level > 0) or (
                isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dealframe")
            )
            if ours:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} in {function.name}()")
    return found


def test_no_module_hides_an_import_of_the_package_in_a_function():
    modules = [p for p in ROOT.rglob("*.py") if p.name not in _DEFERRING]
    assert len(modules) > 100
    hidden = [hit for path in modules for hit in _deferred_imports(path)]
    assert not hidden, hidden


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:`` (imports for annotations, never run)."""
    nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            nodes.update(id(n) for part in node.body for n in ast.walk(part))
    return nodes


def _imported(path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``path`` imports when it runs, anywhere in it (at the top
    or inside a function): ``from a import b`` is module ``a.b`` when that is one, else ``a``."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join([*base, *([node.module] if node.module else [])])
            if not node.level:
                module = node.module or ""
            inner = {f"{module}.{alias.name}" for alias in node.names} & known
            found.update(inner or {module})
    return (found & known) - {name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                other = stack.pop()
                part.append(other)
                if other == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_even_through_an_import_inside_a_function():
    # the command-line modules may defer an import (above), never to one that imports them
    # back: `dealframe.pull.cli` imported `dealframe.cli` in a function, a cycle hidden
    paths = list(ROOT.rglob("*.py"))
    known = {_module_name(p) for p in paths}
    graph = {_module_name(p): _imported(p, known) for p in paths}
    assert "dealframe.pull.cli" in graph["dealframe.cli"]  # the graph sees the imports
    assert _cycles(graph) == []
