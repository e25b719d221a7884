"""Parameter descriptions written once and filled into every docstring that shares them.

A docstring line that holds nothing but ``{name}`` is replaced by the entry ``name`` of a
table, indented as that line was; every other brace is left alone (``/transactions/{id}``).
An entry is a whole numpydoc item, its ``name : type`` line and its description, so help()
shows the full text in each function while the source holds it once. A placeholder the
table lacks is an error at import, not a hole in the help.

Examples
--------
>>> table = {"cache": "cache : bool, default True\\n    Use the HTTP cache."}
>>> @fill_docs(table)
... def pull(cache=True):
...     '''Pull.
...
...     Parameters
...     ----------
...     {cache}
...     '''
>>> print(pull.__doc__.strip())
Pull.
<BLANKLINE>
    Parameters
    ----------
    cache : bool, default True
        Use the HTTP cache.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["fill_docs"]

T = TypeVar("T")

_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.MULTILINE)


def _filled(doc: str, table: Mapping[str, str], owner: str) -> str:
    def entry(match: re.Match[str]) -> str:
        indent, name = match.groups()
        if name not in table:
            raise ValueError(f"the docstring of {owner} names {{{name}}}, which has no entry")
        return "\n".join(indent + line if line else line for line in table[name].splitlines())

    return _PLACEHOLDER.sub(entry, doc)


def fill_docs(table: Mapping[str, str]) -> Callable[[T], T]:
    """A decorator filling the ``{name}`` lines of a docstring from ``table``.

    On a class it fills the docstrings of the functions the class defines (static and
    class methods included), so it goes below decorators that wrap them.

    Parameters
    ----------
    table : mapping of str to str
        Entries by placeholder name: each a numpydoc item, unindented.

    Returns
    -------
    callable
        The decorator; it returns what it is given, docstrings filled in place.
    """

    def fill(thing: T) -> T:
        members = list(vars(thing).values()) if inspect.isclass(thing) else [thing]
        for member in members:
            target = getattr(member, "__func__", member)  # staticmethod, classmethod
            doc = getattr(target, "__doc__", None)
            if inspect.isfunction(target) and doc:
                target.__doc__ = _filled(doc, table, target.__qualname__)
        return thing

    return fill
