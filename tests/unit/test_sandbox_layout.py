"""The sandbox's layout, read from its source: its own code only, no cycles, no collector switches.

- It imports nothing from dealframe outside ``dealframe.sandbox`` (its vocabularies, formats
  and field lists are its own copy, so it can disagree with the client) but the error classes
  of ``dealframe.errors``: every error it raises on purpose is a ``DealframeError``.
- Its modules import each other without a cycle, at module level: no import is hidden in a
  function (only the pytest plugin defers its imports, so that loading the plugin in every
  test session stays cheap, and the serving layer is loaded by name on first use).
- Nothing in it touches the garbage collector.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dealframe.sandbox

ROOT = Path(dealframe.sandbox.__file__).parent
PACKAGE = "dealframe.sandbox"
MODULES = {
    (PACKAGE + "." + ".".join(p.relative_to(ROOT).with_suffix("").parts)).removesuffix(
        ".__init__"
    ): p
    for p in sorted(ROOT.rglob("*.py"))
}
DEFERRED_IMPORTS_ALLOWED = {f"{PACKAGE}.pytest_plugin"}
#: The one module outside the sandbox it imports: the vocabulary of errors, not the client.
SHARED = "dealframe.errors"


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


def _imports(module: str, path: Path) -> list[tuple[str, ast.AST, bool]]:
    """(absolute module imported, node, at module level outside TYPE_CHECKING) of every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top_level.add(id(node))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, node, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(module, path).split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.level and not node.module:  # from . import x: each x may be a module
                out += [
                    (f"{target}.{alias.name}", node, id(node) in top_level) for alias in node.names
                ]
            else:
                out.append((target, node, id(node) in top_level))
    return out


def test_every_module_is_seen():
    assert (
        f"{PACKAGE}.models.records" in MODULES
        and f"{PACKAGE}.urls" in MODULES
        and len(MODULES) > 25
    )


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_nothing_from_the_client(module):
    for target, node, _ in _imports(module, MODULES[module]):
        if target == "dealframe" or target.startswith("dealframe."):
            assert target.startswith(PACKAGE) or target == SHARED, (
                f"{module} line {node.lineno} imports {target}"
            )


def test_the_shared_errors_module_imports_nothing_from_dealframe():
    """What the sandbox shares with the client is vocabulary: ``dealframe.errors`` itself
    imports no other dealframe module (no client code comes with it)."""
    import dealframe.errors

    path = Path(dealframe.errors.__file__)
    targets = [target for target, _, _ in _imports(SHARED, path)]
    assert "orjson" in targets  # the imports were read
    assert [t for t in targets if t == "dealframe" or t.startswith("dealframe.")] == []


@pytest.mark.parametrize("module", sorted(set(MODULES) - DEFERRED_IMPORTS_ALLOWED))
def test_no_import_is_hidden_in_a_function(module):
    for target, node, top in _imports(module, MODULES[module]):
        if not top:
            assert node.col_offset == 0 or _in_type_checking(MODULES[module], node), (
                f"{module} line {node.lineno} imports {target} inside a function or block"
            )


def _in_type_checking(path: Path, node: ast.AST) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for block in tree.body:
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING":
            if any(n.lineno == node.lineno for b in block.body for n in ast.walk(b)):
                return True
    return False


def test_module_imports_have_no_cycle():
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        deps = set()
        for target, _node, top in _imports(module, path):
            if not top:
                continue  # TYPE_CHECKING imports and the plugin's deferred ones do not run at import
            while target and target not in MODULES:
                target = target.rsplit(".", 1)[0] if "." in target else ""
            if target and target != module:
                deps.add(target)
        graph[module] = deps
    # A package imports its submodules by design; a submodule importing its own package
    # (``from . import x``) is resolved to the submodule x above.
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        trail.append(node)
        for dep in sorted(graph[node]):
            if dep.startswith(node + "."):
                continue  # a package importing its own submodules
            if state.get(dep) == 1:
                cycle = trail[trail.index(dep) :] + [dep]
                if not all(
                    a.startswith(b + ".") or b.startswith(a + ".") for a, b in zip(cycle, cycle[1:])
                ):
                    raise AssertionError(" -> ".join(cycle))
            elif dep not in state:
                visit(dep)
        trail.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_garbage_collector_is_left_alone(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for target, node, _ in _imports(module, MODULES[module]):
        assert target != "gc", f"{module} line {node.lineno} imports gc"
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "gc" not in names, module
