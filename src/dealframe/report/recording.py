"""A client that records each frame its calls return, for the pulls made inside functions the
report calls (:func:`dealframe.compare_multiples` and the link it makes), whose frames do not
come back to the report.

Every call of the client's APIs (``private``, ``public``, ``public_v1``, ``public_api(...)``)
goes to the client itself; a frame it returns (alone or in a tuple) that records where it came
from (``attrs["endpoint"]``, see :mod:`dealframe.provenance`) is appended to the list given
(the first such frame of a tuple: the frames of one call come of the same requests).
A call the client makes of itself is not seen, so no request is counted twice; nor is a
read that returns no frame (a discovery document read to check filters): the report reads
those itself first (:func:`dealframe.report.gather._discovery`), so that the calls inside
find the client's copy and send none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["recording"]

_APIS = ("private", "public", "public_v1")


def _kept(result: Any, into: list[pd.DataFrame]) -> Any:
    """``result`` of one call, its first frame that records an endpoint appended to
    ``into``: the frames of one call (a resolve's ``matches`` and ``candidates``) come of the
    same requests, which are counted once."""
    for item in result if isinstance(result, tuple) else (result,):
        if isinstance(item, pd.DataFrame) and "endpoint" in item.attrs:
            into.append(item)
            break
    return result


class _Api:
    def __init__(self, api: Any, into: list[pd.DataFrame]) -> None:
        self._api, self._into = api, into

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._api, name)
        if name.startswith("_") or not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            return _kept(value(*args, **kwargs), self._into)

        return call


class _Client:
    def __init__(self, client: Client, into: list[pd.DataFrame]) -> None:
        self._client, self._into = client, into

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._client, name)
        if name in _APIS:
            return _Api(value, self._into)
        if name == "public_api":
            chosen: Callable[..., Any] = value
            return lambda *a, **k: _Api(chosen(*a, **k), self._into)
        return value


def recording(client: Client, into: list[pd.DataFrame]) -> Client:
    """``client``, its calls' frames appended to ``into`` (those that record an endpoint).

    Examples
    --------
    >>> seen: list[pd.DataFrame] = []
    >>> found = recording(client, seen).public.search(regions=["Western Europe"])  # doctest: +SKIP
    >>> seen[0] is found  # doctest: +SKIP
    True
    """
    return cast("Client", _Client(client, into))
