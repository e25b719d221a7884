"""Every public function documents exactly the parameters it takes (numpydoc).

The Parameters section of each public callable (``dealframe.__all__``, the methods of
``Client``, ``PublicApi`` and ``PrivateApi``, ``dealframe.mirror.__all__`` and
``dealframe.analytics.__all__``) names the signature's parameters, no more and no fewer
(``self``, ``*args`` and ``**kwargs`` aside; in any order, each once), so help() never describes an argument that does
not exist or leaves one out.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator

import pytest

import dealframe
import dealframe.analytics
import dealframe.mirror
from dealframe.private.api import PrivateApi
from dealframe.public.api import PublicApi

_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


def documented(doc: str) -> list[str] | None:
    """The names of the Parameters section (``name : type`` lines at its indentation), or None
    when there is no such section. ``a, b : type`` names both."""
    lines = inspect.cleandoc(doc).splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == "Parameters" and _UNDERLINE.match(lines[i + 1]):
            indent = len(line) - len(line.lstrip())
            names: list[str] = []
            for entry in lines[i + 2 :]:
                if not entry.strip():
                    continue
                if len(entry) - len(entry.lstrip()) != indent:
                    continue  # a description line
                if _UNDERLINE.match(entry) or " : " not in entry and entry.strip().isidentifier():
                    if names or _UNDERLINE.match(entry):
                        break  # the next section's heading (or its underline)
                head = entry.split(" : ")[0] if " : " in entry else entry
                names += [n.strip().lstrip("*") for n in head.split(",")]
            return names
    return None


def signature_names(function: Callable) -> list[str]:
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    parameters = inspect.signature(function).parameters.values()
    return [p.name for p in parameters if p.name not in ("self", "cls") and p.kind not in kinds]


def public_callables() -> Iterator[tuple[str, Callable]]:
    for module in (dealframe, dealframe.mirror, dealframe.analytics):
        for name in module.__all__:
            thing = getattr(module, name)
            if inspect.isfunction(thing):
                yield f"{module.__name__}.{name}", thing
    for cls in (dealframe.Client, PublicApi, PrivateApi):
        for name, member in vars(cls).items():
            if inspect.isfunction(member) and not name.startswith("_"):
                yield f"{cls.__name__}.{name}", member


CALLABLES = dict(public_callables())


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_parameters_section_names_the_signature(name: str) -> None:
    function = inspect.unwrap(CALLABLES[name])
    expected = signature_names(function)
    names = documented(function.__doc__ or "")
    if names is None:
        assert not expected, f"{name} takes {expected} but has no Parameters section"
    else:
        extra, missing = sorted(set(names) - set(expected)), sorted(set(expected) - set(names))
        assert not extra and not missing, f"{name}: documents {extra}, leaves out {missing}"
        assert len(names) == len(set(names)), f"{name} documents a parameter twice: {names}"


def test_the_parser_reads_numpydoc() -> None:
    doc = """Summary.

    Parameters
    ----------
    a, b : int
        Two.
        Still b : not a name.
    *args : object
    c : str, optional

    Returns
    -------
    int
    """
    assert documented(doc) == ["a", "b", "args", "c"]
    assert documented("No sections.") is None


def test_the_callables_are_found() -> None:
    assert {"PrivateApi.deals", "PublicApi.time_series", "dealframe.mirror.sync"} <= set(CALLABLES)
