"""Every user-facing public function, class and method has a numpydoc Examples section.

The project's standard is numpydoc docstrings with Examples on public functions; what
``tests/unit/test_doctests.py`` runs, this test requires to exist. The set walked is what a
user reaches: the names in the ``__all__`` of the packages users import (exceptions and
warnings aside), the public methods of the classes among them (functions, class and static
methods), and the public methods of the client's ``client.public`` and ``client.private``
(:class:`~dealframe.public.api.PublicApi`, :class:`~dealframe.private.api.PrivateApi`).
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator

from dealframe.private.api import PrivateApi
from dealframe.public.api import PublicApi

#: The packages users import (each one's ``__all__`` is walked).
PACKAGES = (
    "dealframe",
    "dealframe.analytics",
    "dealframe.frames",
    "dealframe.mirror",
    "dealframe.plot",
    "dealframe.report",
    "dealframe.sandbox",
    "dealframe.pull",
    "dealframe.doctor",
)
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


def has_examples(doc: str | None) -> bool:
    """Whether ``doc`` has an ``Examples`` heading, underlined, with something under it."""
    lines = inspect.cleandoc(doc or "").splitlines()
    for i, line in enumerate(lines[:-2]):
        if line.strip() == "Examples" and _UNDERLINE.match(lines[i + 1]):
            body = [entry for entry in lines[i + 2 :] if entry.strip()]
            return bool(body) and not _UNDERLINE.match(body[1] if len(body) > 1 else "")
    return False


def _methods(qualname: str, cls: type, *, kinds: tuple[type, ...]) -> Iterator[tuple[str, object]]:
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = inspect.getattr_static(cls, name)
        if inspect.isfunction(member) or isinstance(member, kinds):
            yield f"{qualname}.{name}", getattr(cls, name)


def public_objects() -> Iterator[tuple[str, object]]:
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            thing = getattr(module, name)
            if inspect.isfunction(thing):
                yield f"{package}.{name}", thing
            elif inspect.isclass(thing) and not issubclass(thing, (BaseException, Warning)):
                yield f"{package}.{name}", thing
                yield from _methods(f"{package}.{name}", thing, kinds=(classmethod, staticmethod))
    for api in (PrivateApi, PublicApi):
        yield from _methods(api.__name__, api, kinds=())


OBJECTS = dict(public_objects())


def test_every_public_object_has_an_examples_section() -> None:
    missing = sorted(
        name for name, thing in OBJECTS.items() if not has_examples(inspect.getdoc(thing))
    )
    assert not missing, f"{len(missing)} without an Examples section: " + ", ".join(missing)


def test_the_section_is_read_as_numpydoc() -> None:
    assert has_examples("Summary.\n\n    Examples\n    --------\n    >>> 1 + 1\n    2\n")
    assert not has_examples("Summary mentioning Examples and >>> in passing.")
    assert not has_examples("Summary.\n\nExamples\n--------\n")
    assert not has_examples("Summary.\n\nExamples\n--------\nNotes\n-----\nText.\n")
    assert not has_examples(None)


def test_the_walk_finds_the_public_surface() -> None:
    expected = {
        "dealframe.Client",
        "dealframe.compare_multiples",
        "dealframe.mirror.SyncReport.frame",
        "dealframe.sandbox.FaultPlan.draw",
        "dealframe.doctor.Diagnosis.verdict",
        "PrivateApi.deals",
        "PublicApi.time_series",
    }
    assert expected <= set(OBJECTS) and len(OBJECTS) > 100
    assert "dealframe.errors" not in OBJECTS and "dealframe.ApiError" not in OBJECTS
