"""Provenance attached to every frame in ``df.attrs``: where it came from and whether it is whole."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import pandas as pd

from dealframe.contract import blanked_attrs

__all__ = ["Answered404", "attach", "cache_state", "combined_from_cache", "fetched_at"]


class Answered404(NamedTuple):
    """A request the service answered 404 (an id of a list read as missing), among the
    ``responses`` of :func:`attach`: it was sent and answered, so it built the frame too and
    counts in ``requests``; an error answer is never from the cache."""

    from_cache: bool = False


def attach(
    frame: pd.DataFrame,
    *,
    endpoint: str,
    responses: Iterable[Any],
    rows_expected: int | None = None,
    rows_received: int | None = None,
    **extra: Any,
) -> pd.DataFrame:
    """Record provenance in ``frame.attrs`` and return the frame.

    Keys: ``endpoint``, ``requests`` (count of ``responses``), ``from_cache`` (True when
    every response came from the cache, False when none did, ``"partial"`` otherwise),
    ``rows_expected``, ``rows_received``, ``fetched_at`` (UTC ISO 8601, to the second):
    when the data was fetched from the service, the time of this call when no response came
    from the HTTP cache, else when the oldest cached one was stored (its ``stored_at``: a
    time series cached 12 hours says so), plus ``extra``. A request answered 404 that built the frame (an id of a list read as
    missing) is in ``responses`` as an :class:`Answered404`. What the ``attrs`` keep of
    the service's answers (its ``meta``) is blanked of the tokens of the client whose call
    made the frame (:func:`~dealframe.contract.blanked_attrs`): a token echoed back is
    ``***`` there.

    Examples
    --------
    >>> df = attach(pd.DataFrame({"a": [1]}), endpoint="POST /x", responses=[])
    >>> df.attrs["requests"], df.attrs["rows_received"]
    (0, 1)
    >>> gone = [Answered404()] * 2
    >>> attach(pd.DataFrame({"a": []}), endpoint="GET /x/{id}", responses=gone).attrs["requests"]
    2
    >>> class Cached:
    ...     from_cache, stored_at = True, dt.datetime(2026, 1, 2, 3, 4, 5, 600, tzinfo=dt.UTC)
    >>> attach(pd.DataFrame(), endpoint="POST /x", responses=[Cached()]).attrs["fetched_at"]
    '2026-01-02T03:04:05+00:00'
    """
    responses = list(responses)
    frame.attrs.update(
        {
            "endpoint": endpoint,
            "requests": len(responses),
            "from_cache": cache_state(bool(getattr(r, "from_cache", False)) for r in responses),
            "rows_expected": rows_expected if rows_expected is not None else len(frame),
            "rows_received": rows_received if rows_received is not None else len(frame),
            "fetched_at": fetched_at(responses).isoformat(timespec="seconds"),
            **extra,
        }
    )
    frame.attrs = blanked_attrs(frame.attrs)
    return frame


def fetched_at(responses: Iterable[Any]) -> dt.datetime:
    """When the data of ``responses`` was fetched from the service (UTC): now when none came
    from the HTTP cache, else the time the oldest cached one was stored (its ``stored_at``,
    :class:`~dealframe.transport.session.Response`); a cached one that says none counts as
    fetched now.

    Examples
    --------
    >>> class Cached:
    ...     from_cache, stored_at = True, dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    >>> fetched_at([Cached(), Answered404()]).isoformat()
    '2026-01-02T00:00:00+00:00'
    """
    now = dt.datetime.now(dt.UTC)
    stored = [
        r.stored_at
        for r in responses
        if getattr(r, "from_cache", False)
        and isinstance(getattr(r, "stored_at", None), dt.datetime)
    ]
    return min([now, *stored])


def cache_state(states: Iterable[bool | str]) -> bool | str:
    """One ``from_cache`` of several: True when every one is True, False when every one is
    False (or there is none), ``"partial"`` otherwise (a ``"partial"`` among them too).

    Examples
    --------
    >>> cache_state([True, True]), cache_state([False]), cache_state([])
    (True, False, False)
    >>> cache_state([True, False]), cache_state([True, "partial"])
    ('partial', 'partial')
    """
    seen = {s if isinstance(s, str) else bool(s) for s in states}
    if seen == {True}:
        return True
    if seen <= {False}:
        return False
    return "partial"


def combined_from_cache(parts: Iterable[Mapping[str, Any]]) -> bool | str:
    """The ``from_cache`` of a frame built from several pulls, from the ``attrs`` each left
    (:func:`attach`'s ``requests`` and ``from_cache``): a pull that sent no request says
    nothing of the cache and is left out.

    A deal list completed from the deals' single forms is one: its list pages cached and its
    profiles sent is ``"partial"``, not the list's True.

    Examples
    --------
    >>> combined_from_cache([{"requests": 1, "from_cache": True},
    ...                      {"requests": 5, "from_cache": False}])
    'partial'
    >>> combined_from_cache([{"requests": 2, "from_cache": True},
    ...                      {"requests": 0, "from_cache": False}])
    True
    """
    return cache_state(part.get("from_cache", False) for part in parts if part.get("requests", 0))
