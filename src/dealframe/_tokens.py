"""The tokens of a client, held where a traceback may show them.

A traceback that records local variables (pytest ``-l``, Sentry's default,
``traceback.TracebackException(..., capture_locals=True)``) shows the ``repr`` of every local
of every frame; error trackers also walk lists, tuples and sets item by item. The tokens a
call carries (:func:`dealframe.arguments.client_call`) are therefore held in a
:class:`Tokens`: neither a sequence nor a set, and its ``repr`` says only how many it holds.

Examples
--------
>>> held = Tokens(["sk_live_0123456789abcdef", "", "sk_live_0123456789abcdef"])
>>> held
Tokens(<1 hidden>)
>>> list(held), "sk_live_0123456789abcdef" in held
(['sk_live_0123456789abcdef'], True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["Tokens"]


class Tokens:
    """Tokens (non-empty texts, each once, in the order given) whose ``repr`` and ``str``
    never show them.

    Iterating gives the texts themselves (for blanking them out of what is shown); ``len``,
    ``in``, truth, ``==`` and ``hash`` work as for the tuple of them. Not a
    :class:`~collections.abc.Sequence` on purpose: error trackers show a sequence's items one
    by one, whatever its ``repr``.

    Parameters
    ----------
    tokens : iterable of str, optional
        The tokens; empty ones (and None) are skipped, repeated ones kept once.

    Examples
    --------
    >>> Tokens(), bool(Tokens()), len(Tokens(["a", "b"])), Tokens(["a", ""]) == ("a",)
    (Tokens(<none>), False, 2, True)
    >>> str(Tokens(["a"]))
    'Tokens(<1 hidden>)'
    """

    __slots__ = ("_held",)

    def __init__(self, tokens: Iterable[str | None] = ()) -> None:
        self._held: tuple[str, ...] = tuple(dict.fromkeys(t for t in tokens if t))

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, token: object) -> bool:
        return token in self._held

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Tokens):
            return other._held == self._held
        return isinstance(other, tuple) and other == self._held  # as the tuple it once was

    def __hash__(self) -> int:
        return hash(self._held)

    def __repr__(self) -> str:
        return f"Tokens(<{len(self._held) or 'none'}{' hidden' if self._held else ''}>)"

    __str__ = __repr__
