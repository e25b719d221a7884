"""What other packages take from ``dealframe.frames`` is public (issue: private helpers
imported across packages).

The analytics read a user's ``deleted`` column with the frames' boolean reading and its
columns with the frames' Arrow readers, and the charts read dates with them: they used
``frames.normalize._booleans`` and the module ``frames._columns``. Those now have a public
home (``normalize.to_booleans``, ``frames.user_columns``) with ``__all__``, and no module
outside ``dealframe.frames`` imports an underscore name or module of it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import dealframe
from dealframe.frames import normalize, user_columns

SRC = Path(dealframe.__file__).parent


def _frames_imports(path: Path) -> list[tuple[str, str]]:
    """``(module, name)`` of every ``from ... import`` of ``dealframe.frames`` in ``path``."""
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = package.rsplit(".", node.level - 1)[0] if node.level else ""
        module = ".".join(p for p in (base, node.module or "") if p)
        if module == "dealframe.frames" or module.startswith("dealframe.frames."):
            found += [(module, alias.name) for alias in node.names]
    return found


def test_no_package_outside_frames_imports_its_private_names_or_modules():
    private = []
    for path in sorted(SRC.rglob("*.py")):
        # the sandbox imports nothing of the client
        if path.parent.name == "frames" or "sandbox" in path.parts:
            continue
        for module, name in _frames_imports(path):
            if name.startswith("_") or any(p.startswith("_") for p in module.split(".")):
                private.append(f"{path.relative_to(SRC)}: {module}.{name}")
    assert private == []


def test_the_helpers_other_packages_use_are_exported_and_documented():
    for module, names in (
        (normalize, ["to_booleans"]),
        (user_columns, ["arrow_type", "datetime_values", "is_arrow_number"]),
    ):
        for name in names:
            assert name in module.__all__, (module.__name__, name)
            assert "Examples" in (getattr(module, name).__doc__ or ""), name
