"""Company SKUs of Family A: parse, format and validate v1 and v2 identifiers.

- v1: ``<EXCHANGE>_<TICKER>`` (``NASDAQ_ACME``, ``NYSE_BRK.B``)
- v2: ``<TICKER>-<ISO3_COUNTRY>`` with an optional ``.N`` on collisions
  (``ACME-USA``, ``ACME-USA.1``, ``BRK.B-USA.1``); stable per company, never reassigned.

The interface document fixes only the layout: what an exchange or a ticker may hold is not
shown, so any visible ASCII character is accepted (``BRK.B``, ``BF-B``, ``NSE-KE``). Spaces,
control characters and anything beyond ASCII (full-width letters such as ``ＡＣＭＥ``, digits
of other scripts such as ``١``), which none of the document's formats suggests, are refused
before any request. A v1 SKU splits at its first ``_``; a v2 SKU ends in ``-`` and three
capital letters (the ISO 3166 alpha-3 country), then perhaps ``.N`` (N from 1, no leading
zero), so ``BRK.B-USA.1`` is ticker ``BRK.B``, country ``USA``, N 1. The service decides
whether such a SKU exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import ValidationError

__all__ = ["Sku", "format_v1", "format_v2", "parse_sku", "sku_version", "validate_skus"]

#: A character of an exchange or a ticker: visible ASCII (``!`` to ``~``).
_CHARS = r"[!-~]"
#: v1 ``<EXCHANGE>_<TICKER>``; anchored at both ends (``\Z``: no trailing newline).
_V1 = re.compile(rf"^(?P<exchange>(?:(?!_){_CHARS})+)_(?P<ticker>{_CHARS}+)\Z")
#: v2 ``<TICKER>-<ISO3>[.N]``: the country is the last ``-`` and three capitals.
_V2 = re.compile(rf"^(?P<ticker>{_CHARS}+?)-(?P<country>[A-Z]{{3}})(?:\.(?P<n>[1-9][0-9]*))?\Z")
_VERSIONS = ("v1", "v2")
_PATTERNS = {"v1": _V1, "v2": _V2}


@dataclass(frozen=True)
class Sku:
    """A parsed SKU.

    Attributes
    ----------
    version : {"v1", "v2"}
    ticker : str
    exchange : str or None
        v1 only.
    country : str or None
        ISO-3 code, v2 only.
    n : int or None
        The v2 collision suffix (``ACME-USA.1`` → 1).
    """

    version: str
    ticker: str
    exchange: str | None = None
    country: str | None = None
    n: int | None = None

    def __str__(self) -> str:
        if self.version == "v1":
            return format_v1(self.exchange or "", self.ticker)
        return format_v2(self.ticker, self.country or "", self.n)


def format_v1(exchange: str, ticker: str) -> str:
    """Format a v1 SKU.

    Examples
    --------
    >>> format_v1("NASDAQ", "ACME")
    'NASDAQ_ACME'
    """
    sku = f"{exchange}_{ticker}"
    if not _V1.match(sku):
        raise ValidationError("sku", "an exchange (no '_') and a ticker, without spaces", got=sku)
    return sku


def format_v2(ticker: str, country: str, n: int | None = None) -> str:
    """Format a v2 SKU, with the ``.N`` suffix when ``n`` is given.

    Examples
    --------
    >>> format_v2("ACME", "USA")
    'ACME-USA'
    >>> format_v2("ACME", "USA", 1)
    'ACME-USA.1'
    """
    sku = f"{ticker}-{country}" + (f".{n}" if n else "")
    if not _V2.match(sku):
        raise ValidationError("sku", "a ticker and an ISO-3 country code", got=sku)
    return sku


def sku_version(sku: object) -> str | None:
    """``"v1"``, ``"v2"`` or None when ``sku`` is neither.

    Examples
    --------
    >>> sku_version("NYSE_IBM"), sku_version("IBM-USA.2"), sku_version("ibm")
    ('v1', 'v2', None)
    """
    if not isinstance(sku, str):
        return None
    if _V2.match(sku):  # an ISO-3 ending is the stronger sign (a ticker may hold '_')
        return "v2"
    if _V1.match(sku):
        return "v1"
    return None


def parse_sku(sku: str, version: str | None = None) -> Sku:
    """Parse a SKU, checking it is of ``version`` when given.

    Raises
    ------
    ValidationError
        When ``sku`` is malformed or of the other version.

    Examples
    --------
    >>> parse_sku("ACME-USA.1")
    Sku(version='v2', ticker='ACME', exchange=None, country='USA', n=1)
    """
    found = sku_version(sku)
    if version is not None and isinstance(sku, str) and _PATTERNS.get(version, _V1).match(sku):
        found = version
    if found is None:
        raise ValidationError(
            "sku", "a v1 SKU <EXCHANGE>_<TICKER> or a v2 SKU <TICKER>-<ISO3>[.N]", got=sku
        )
    if version is not None and found != version:
        raise ValidationError("sku", f"a {version} SKU (this one is {found})", got=sku)
    if found == "v1":
        m = _V1.match(sku)
        assert m is not None
        return Sku("v1", m["ticker"], exchange=m["exchange"])
    m = _V2.match(sku)
    assert m is not None
    return Sku("v2", m["ticker"], country=m["country"], n=int(m["n"]) if m["n"] else None)


def _beyond_ascii(sku: str) -> str:
    """What to say of a SKU's first character beyond ASCII ("" when it has none).

    Examples
    --------
    >>> _beyond_ascii("A١-USA")
    " of ASCII characters ('١' at position 1 is not)"
    """
    at = next((k for k, char in enumerate(sku) if not char.isascii()), None)
    return "" if at is None else f" of ASCII characters ({sku[at]!r} at position {at} is not)"


def validate_skus(skus: object, version: str, argument: str = "skus") -> list[str]:
    """Check a list of SKUs for ``version``; return them as a list without duplicates.

    Any iterable of strings is a list here (a list, a tuple, ``search(...).index``). Order
    is kept (first occurrence wins). An empty list gives an empty list, which
    ``current`` and ``time_series`` refuse (the service refuses an empty ``skus``).

    Raises
    ------
    ValidationError
        Not a list of strings: a single string (one SKU is ``["ACME-USA"]``), a mapping,
        a frame, None, a number. Or any SKU malformed (a character beyond ASCII among them)
        or of the other version (the message names its position).

    Examples
    --------
    >>> validate_skus(["ACME-USA", "ACME-USA", "FOO-GBR"], "v2")
    ['ACME-USA', 'FOO-GBR']
    >>> validate_skus([], "v2")
    []
    >>> validate_skus("ACME-USA", "v2")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid skus: expected a list of SKU strings (pass a list: ['ACME-USA']), got 'ACME-USA'
    >>> validate_skus(["ACME-USA", "ＡＣＭＥ-USA"], "v2")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid skus[1]: expected a v2 SKU <TICKER>-<ISO3>[.N] of ASCII characters ('Ａ' at position 0 is not), got 'ＡＣＭＥ-USA'
    """
    if version not in _VERSIONS:
        raise ValidationError("version", "'v1' or 'v2'", got=version)
    if isinstance(skus, str):
        raise ValidationError(
            argument, f"a list of SKU strings (pass a list: {[skus]!r})", got=skus
        )
    if hasattr(skus, "columns") and hasattr(skus, "index"):  # a frame iterates its column names
        raise ValidationError(
            argument,
            "a list of SKU strings, not a frame (it iterates its column names): pass its .index",
        )
    if not isinstance(skus, Iterable) or isinstance(skus, (bytes, Mapping)):
        raise ValidationError(argument, "a list of SKU strings", got=skus)
    items = list(skus)
    try:  # the common case, at C speed: every item a well-formed SKU of this version
        if all(map((_V1 if version == "v1" else _V2).match, items)):
            return list(dict.fromkeys(items))
    except TypeError:
        pass  # a non-string item: the loop below names it
    seen: dict[str, None] = {}
    for i, sku in enumerate(items):
        if not isinstance(sku, str):
            raise ValidationError(f"{argument}[{i}]", "a SKU string", got=sku)
        found = version if _PATTERNS[version].match(sku) else sku_version(sku)
        if found != version:
            other = f" (it is a {found} SKU)" if found else _beyond_ascii(sku)
            shape = "<EXCHANGE>_<TICKER>" if version == "v1" else "<TICKER>-<ISO3>[.N]"
            raise ValidationError(f"{argument}[{i}]", f"a {version} SKU {shape}{other}", got=sku)
        seen.setdefault(sku, None)
    return list(seen)
