"""Company SKUs of Family A: parse, format and validate v1 and v2 identifiers.

- v1: ``<EXCHANGE>_<TICKER>`` (``NASDAQ_ACME``, ``NYSE_BRK.B``)
- v2: ``<TICKER>-<ISO3_COUNTRY>`` with an optional ``.N`` on collisions
  (``ACME-USA``, ``ACME-USA.1``, ``BRK.B-USA.1``); stable per company, never reassigned.

The interface document fixes only the layout: what an exchange or a ticker may hold is not
shown, so any visible character is accepted (``BRK.B``, ``BF-B``, ``NSE-KE``, and ``CAFÉ-FRA``
when a service lists one: the service decides). Refused before any request is only what is
clearly a typo: spaces, control and other invisible characters, a character that NFKC
normalisation changes (full-width letters such as ``ＡＣＭＥ``, ligatures, superscripts), a
digit of another script (``١``: Unicode category Nd beyond ``0``-``9``) and a dash other than
``-`` (``–``). A v1 SKU splits at its first ``_``; a v2 SKU ends in ``-`` and three
capital letters (the ISO 3166 alpha-3 country), then perhaps ``.N`` (N from 1, no leading
zero), so ``BRK.B-USA.1`` is ticker ``BRK.B``, country ``USA``, N 1. The service decides
whether such a SKU exists. :func:`format_v1` and :func:`format_v2` write only a SKU that
:func:`parse_sku` reads back as the parts given: an exchange holding ``_``, a v1 SKU that
reads as v2, an ``n`` that is no whole number from 1 and a country that reads back otherwise
(``USA.1``) are refused, naming the part.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from ..arguments import integer_in
from ..errors import ValidationError

__all__ = [
    "Sku",
    "format_v1",
    "format_v2",
    "off_layout",
    "parse_sku",
    "sku_version",
    "validate_skus",
]

#: A character of an exchange or a ticker as far as the layout goes: no space, no control
#: character (:func:`_typo` refuses the other characters that are clearly typos).
_CHARS = r"[^\s\x00-\x1f\x7f-\x9f]"
#: v1 ``<EXCHANGE>_<TICKER>``; anchored at both ends (``\Z``: no trailing newline).
_V1 = re.compile(rf"^(?P<exchange>(?:(?!_){_CHARS})+)_(?P<ticker>{_CHARS}+)\Z")
#: v2 ``<TICKER>-<ISO3>[.N]``: the country is the last ``-`` and three capitals.
_V2 = re.compile(rf"^(?P<ticker>{_CHARS}+?)-(?P<country>[A-Z]{{3}})(?:\.(?P<n>[1-9][0-9]*))?\Z")
#: An ASCII character that is no visible one (a space, a control character).
_NOT_VISIBLE_ASCII = re.compile(r"[^!-~]")
_VERSIONS = ("v1", "v2")
#: What :func:`format_v2` expects of ``n``.
_N_EXPECTED = "a whole number from 1 (the '.N' suffix of a v2 SKU), or None (no suffix)"
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
        if self.version == "v1":  # as parse_sku(sku, "v1") read it, even where v2 reads too
            return _v1_text(self.exchange or "", self.ticker, alone=False)
        return format_v2(self.ticker, self.country or "", self.n)


def format_v1(exchange: str, ticker: str) -> str:
    """Format a v1 SKU: one that :func:`parse_sku` reads back, without a version given, as
    this ``exchange`` and ``ticker``.

    An exchange holding ``_`` is refused (a v1 SKU splits at its first ``_``:
    ``NAS_DAQ_ACME`` is exchange ``NAS``), and so is a SKU that reads as a v2 one (ticker
    ``ABC-DEF``: ``NSE_ABC-DEF`` is the v2 ticker ``NSE_ABC`` of country ``DEF``).

    Examples
    --------
    >>> format_v1("NASDAQ", "ACME")
    'NASDAQ_ACME'
    >>> format_v1("NAS_DAQ", "ACME")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid exchange: expected an exchange without '_' (a v1 SKU splits at its first '_': 'NAS_DAQ_ACME' would read as exchange 'NAS'), got 'NAS_DAQ'
    """
    return _v1_text(exchange, ticker, alone=True)


def _v1_text(exchange: str, ticker: str, *, alone: bool) -> str:
    """The v1 SKU of ``exchange`` and ``ticker``, checked as :func:`format_v1` says (``alone``:
    it must read as v1 without a version given, too)."""
    for name, value in (("exchange", exchange), ("ticker", ticker)):
        if not isinstance(value, str):
            raise ValidationError(name, "a string", got=value)
    sku = f"{exchange}_{ticker}"
    if "_" in exchange:
        at = exchange.index("_")
        raise ValidationError(
            "exchange",
            "an exchange without '_' (a v1 SKU splits at its first '_': "
            f"{sku!r} would read as exchange {exchange[:at]!r})",
            got=exchange,
        )
    if not _fits(_V1, sku):
        raise ValidationError(
            "sku",
            "an exchange (no '_') and a ticker, without spaces" + _why_not(sku, "v1"),
            got=sku,
        )
    if alone and sku_version(sku) != "v1":
        other = parse_sku(sku)
        raise ValidationError(
            "sku",
            f"a SKU that reads back as exchange {exchange!r} and ticker {ticker!r} (it reads "
            f"as the v2 SKU of ticker {other.ticker!r} and country {other.country!r}; "
            "parse_sku(sku, 'v1') reads it as v1)",
            got=sku,
        )
    return sku


def format_v2(ticker: str, country: str, n: int | None = None) -> str:
    """Format a v2 SKU, with the ``.N`` suffix when ``n`` is given (not None): one that
    :func:`parse_sku` reads back as this ``ticker``, ``country`` and ``n``.

    ``n`` is counted from 1, as :func:`parse_sku` reads it: 0 is refused, not left out
    (``ACME-USA`` is another company than the one a ``.0`` would name), and so is any ``n``
    that is no whole number from 1 (a :class:`~dealframe.errors.ValidationError` naming
    ``n``). A ``country`` that would not read back as given (``"USA.1"``: ``ACME-USA.1`` is
    country ``USA``, n 1) is refused, naming ``country``.

    Examples
    --------
    >>> format_v2("ACME", "USA")
    'ACME-USA'
    >>> format_v2("ACME", "USA", 1)
    'ACME-USA.1'
    >>> format_v2("ACME", "USA", 0)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid n: expected a whole number from 1 (the '.N' suffix of a v2 SKU), or None (no suffix), got 0
    >>> format_v2("ACME", "USA.1")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid country: expected an ISO 3166 alpha-3 code, 3 capital letters ('ACME-USA.1' would read as ticker 'ACME', country 'USA', n 1: pass n apart), got 'USA.1'
    """
    for name, value in (("ticker", ticker), ("country", country)):
        if not isinstance(value, str):
            raise ValidationError(name, "a string", got=value)
    if n is not None:
        n = integer_in(n, "n", 1, None, _N_EXPECTED)
    sku = f"{ticker}-{country}" + (f".{n}" if n is not None else "")
    if not _fits(_V2, sku):
        raise ValidationError(
            "sku", "a ticker and an ISO-3 country code" + _why_not(sku, "v2"), got=sku
        )
    back = parse_sku(sku, "v2")  # a country holding '.N' fits, and reads back otherwise
    if (back.ticker, back.country, back.n) != (ticker, country, n):
        raise ValidationError(
            "country",
            f"an ISO 3166 alpha-3 code, 3 capital letters ({sku!r} would read as ticker "
            f"{back.ticker!r}, country {back.country!r}, n {back.n!r}: pass n apart)",
            got=country,
        )
    return sku


def sku_version(sku: object) -> str | None:
    """``"v1"``, ``"v2"`` or None when ``sku`` is neither.

    Examples
    --------
    >>> sku_version("NYSE_IBM"), sku_version("IBM-USA.2"), sku_version("ibm")
    ('v1', 'v2', None)
    """
    if not isinstance(sku, str) or _typo(sku) is not None:
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
        When ``sku`` is malformed or of the other version, or ``version`` is neither
        ``"v1"`` nor ``"v2"`` (naming ``version``).

    Examples
    --------
    >>> parse_sku("ACME-USA.1")
    Sku(version='v2', ticker='ACME', exchange=None, country='USA', n=1)
    >>> parse_sku("ACME-USA", version="v3")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid version: expected 'v1', 'v2' or None (either), got 'v3'
    """
    if version is not None and version not in _VERSIONS:
        raise ValidationError("version", "'v1', 'v2' or None (either)", got=version)
    found = sku_version(sku)
    if version is not None and isinstance(sku, str) and _fits(_PATTERNS[version], sku):
        found = version
    if found is None:
        said = ""
        if isinstance(sku, str) and version is None and not {"_", "-"} & set(sku):
            said = _typo_said(sku) or " (neither a '_' nor a '-')"
        elif isinstance(sku, str):  # the layout it comes closest to: v2 when it has a '-'
            said = _why_not(sku, version or ("v2" if "-" in sku else "v1"))
        raise ValidationError(
            "sku", "a v1 SKU <EXCHANGE>_<TICKER> or a v2 SKU <TICKER>-<ISO3>[.N]" + said, got=sku
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


def _typo(sku: str) -> tuple[int, str] | None:
    """The first character of ``sku`` that is clearly a typo, and why; None when none is.

    Such a character is invisible (a space, a control or format character), changed by NFKC
    normalisation (a full-width form, a ligature, a superscript), a digit of another script
    or a dash other than ``-`` (an en dash, a non-breaking hyphen). An ASCII SKU is checked at C speed.

    Examples
    --------
    >>> _typo("CAFÉ-FRA") is None
    True
    >>> _typo("ＡCME-USA")
    (0, "a full-width or compatibility form of 'A'")
    >>> _typo("A١-USA")
    (1, 'a digit of another script (ARABIC-INDIC DIGIT ONE), not 0-9')
    >>> _typo("ACME\u2013USA")
    (4, "a dash other than '-' (EN DASH)")
    """
    if sku.isascii():
        found = _NOT_VISIBLE_ASCII.search(sku)
        return None if found is None else (found.start(), "a space or a control character")
    for at, char in enumerate(sku):
        if not char.isprintable() or char.isspace():
            return at, "a space, a control or another invisible character"
        if unicodedata.category(char) == "Nd" and not char.isascii():
            return at, f"a digit of another script ({unicodedata.name(char, '?')}), not 0-9"
        if char != "-" and (unicodedata.category(char) == "Pd" or char == "\u2212"):  # '–', '−'
            return at, f"a dash other than '-' ({unicodedata.name(char, '?')})"
        plain = unicodedata.normalize("NFKC", char)
        if plain != char:
            return at, f"a full-width or compatibility form of {plain!r}"
    return None


def _fits(pattern: re.Pattern[str], sku: str) -> bool:
    """Whether ``sku`` has ``pattern``'s layout and no character that is clearly a typo."""
    return pattern.match(sku) is not None and _typo(sku) is None


def _typo_said(sku: str) -> str:
    """What to say of a SKU's first character that is clearly a typo ("" when none is).

    Examples
    --------
    >>> _typo_said("A١-USA")
    " ('١' at position 1 is a digit of another script (ARABIC-INDIC DIGIT ONE), not 0-9)"
    """
    found = _typo(sku)
    if found is None:
        return ""
    at, why = found
    return f" ({sku[at]!r} at position {at} is {why})"


def _layout_said(sku: str, version: str) -> str:
    """What to say of a SKU whose characters are fine but whose layout is not ``version``'s:
    the part at fault and its position ("" when none is found).

    Examples
    --------
    >>> _layout_said("ACME-Usa", "v2")
    " ('s' at position 6 is lower case: the country after the last '-' is 3 capital letters, ISO-3, as in 'ACME-USA')"
    >>> _layout_said("ACME-US", "v2")
    " (the country 'US' at position 5 is not 3 capital letters, ISO-3)"
    >>> _layout_said("ACME-USA.01", "v2")
    " (the suffix '.01' at position 8 is not .N, N from 1 without a leading 0)"
    >>> _layout_said("ACME", "v2"), _layout_said("NASDAQ", "v1")
    (" (no '-' before the ISO-3 country)", " (no '_' between the exchange and the ticker)")
    """
    if version == "v1":
        if "_" not in sku:
            return " (no '_' between the exchange and the ticker)"
        if sku.startswith("_"):
            return " (no exchange before the '_' at position 0)"
        return (
            f" (no ticker after the '_' at position {sku.index('_')})" if sku.endswith("_") else ""
        )
    dash = sku.rfind("-")
    if dash < 0:
        return " (no '-' before the ISO-3 country)"
    if dash == 0:
        return " (no ticker before the '-' at position 0)"
    country, dot, n = sku[dash + 1 :].partition(".")
    at = dash + 1
    if len(country) == 3 and country.isascii() and country.isalpha():
        if not country.isupper():
            lower = next(i for i, char in enumerate(country) if char.islower())
            fixed = f"{sku[:at]}{country.upper()}{dot}{n}"
            return (
                f" ({country[lower]!r} at position {at + lower} is lower case: the country "
                f"after the last '-' is 3 capital letters, ISO-3, as in {fixed!r})"
            )
    else:
        return f" (the country {country!r} at position {at} is not 3 capital letters, ISO-3)"
    if dot and re.fullmatch(r"[1-9][0-9]*", n) is None:
        return (
            f" (the suffix {dot + n!r} at position {at + 3} is not .N, N from 1 without a "
            "leading 0)"
        )
    return ""


def _why_not(sku: str, version: str) -> str:
    """What to say of a SKU that is not of ``version``: its character that is clearly a
    typo, else the part of its layout at fault, with its position ("" when none is found)."""
    return _typo_said(sku) or _layout_said(sku, version)


def off_layout(skus: Iterable[object], version: str) -> dict[str, str]:
    """The SKUs of ``skus`` (text) that are not in ``version``'s layout, each with what is
    wrong with it, as :func:`validate_skus` would say it: what a service listed that this
    client would refuse if asked for it (a ``search`` whose SKUs are in lower case).

    Examples
    --------
    >>> off_layout(["ACME-USA", "aer-dnk", None], "v2")
    {'aer-dnk': " ('d' at position 4 is lower case: the country after the last '-' is 3 capital letters, ISO-3, as in 'aer-DNK')"}
    """
    pattern = _PATTERNS[version]
    return {
        sku: _why_not(sku, version)
        for sku in skus
        if isinstance(sku, str) and not _fits(pattern, sku)
    }


def validate_skus(
    skus: object, version: str, argument: str = "skus", served: Collection[str] = ()
) -> list[str]:
    """Check a list of SKUs for ``version``; return them as a list without duplicates.

    Any iterable of strings is a list here (a list, a tuple, ``search(...).index``). Order
    is kept (first occurrence wins). An empty list gives an empty list, which
    ``current`` and ``time_series`` refuse (the service refuses an empty ``skus``).
    A SKU of ``served`` (one the service itself listed, out of the layout: :func:`off_layout`)
    is taken as it is: the service decides what it names.

    Raises
    ------
    ValidationError
        Not a list of strings: a single string (one SKU is ``["ACME-USA"]``), a mapping,
        a frame, None, a number. Or any SKU malformed or of the other version (the message
        names its position, and the character that is clearly a typo: an invisible one, a
        full-width form, another script's digit; else the part of the layout at fault and
        where: a country code in lower case, ``ACME-usa``, names its first lower-case
        letter).

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
    dealframe.errors.ValidationError: invalid skus[1]: expected a v2 SKU <TICKER>-<ISO3>[.N] ('Ａ' at position 0 is a full-width or compatibility form of 'A'), got 'ＡＣＭＥ-USA'
    >>> validate_skus(["CAFÉ-FRA"], "v2")  # a letter beyond ASCII: the service decides
    ['CAFÉ-FRA']
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
    try:  # the common case, at C speed: every item a well-formed ASCII SKU of this version
        if all(map(_PATTERNS[version].match, items)) and all(map(str.isascii, items)):
            return list(dict.fromkeys(items))
    except TypeError:
        pass  # a non-string item: the loop below names it
    seen: dict[str, None] = {}
    for i, sku in enumerate(items):
        if not isinstance(sku, str):
            raise ValidationError(f"{argument}[{i}]", "a SKU string", got=sku)
        found = version if _fits(_PATTERNS[version], sku) or sku in served else sku_version(sku)
        if found != version:
            other = f" (it is a {found} SKU)" if found else _why_not(sku, version)
            shape = "<EXCHANGE>_<TICKER>" if version == "v1" else "<TICKER>-<ISO3>[.N]"
            raise ValidationError(f"{argument}[{i}]", f"a {version} SKU {shape}{other}", got=sku)
        seen.setdefault(sku, None)
    return list(seen)
