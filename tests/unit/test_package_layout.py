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
