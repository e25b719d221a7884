"""The link between Family B companies (ids) and Family A SKUs (v1 and v2), with evidence.

Both families describe listed companies: a Family B company profile carries
``stock_listing {ticker, exchange, currency}``; a Family A company carries ``ticker`` and
``exchange`` beside its SKU. The link matches them on the listing as :func:`listing_key`
writes it (case, spaces, share-class separators and an exchange's MIC or long name aside)
and records how sure it is. A listing the other family gives only on an exchange spelt
otherwise (or with no exchange) is not matched by ticker alone: its row names those
listings and one :class:`~dealframe.notices.ServiceContractWarning` per call says so.

- :func:`skus_for_companies`: company ids → their profiles' listings → the Family A
  companies with that listing (searched in the companies' countries first, then
  everywhere; everywhere at once when a profile's country is no code a country filter
  takes, such as ``GER``) → ``sku_v1`` and ``sku_v2``;
- :func:`companies_for_skus`: SKUs (either version) → their Family A names, tickers and
  exchanges → Family B ids by name resolution (``resolve_companies``) → the candidates
  whose profile lists the same ticker on the same exchange.

Both return one row per distinct query, in order, with the same columns (:data:`LINK`):
``query``, ``company_id``, ``sku_v1``, ``sku_v2``, ``ticker``, ``exchange``, ``name``
(Family B), ``public_name`` (Family A), ``country``, ``public_country``, ``match``,
``name_score`` and ``evidence``. ``match`` is ``matched`` (one counterpart with the same
listing), ``ambiguous`` (several: the closest name is taken), ``not_listed`` (the profile
has no listing) or ``not_found``; ``name_score`` is the similarity of the two names (0 to 1,
``difflib``), ``evidence`` says in words what was compared.

Examples
--------
>>> name_score("Acme Robotics Inc", "ACME ROBOTICS")
1.0
>>> listing_key(" acme ", "Nyse")
('ACME', 'NYSE')
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import unicodedata
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dealframe._countries import is_country, meant
from dealframe.arguments import checked_keywords
from dealframe.contract import first_of
from dealframe.errors import ValidationError
from dealframe.frames.normalize import build_frame
from dealframe.frames.schemas import LINK
from dealframe.notices import ServiceContractWarning, missing_expected, user_stacklevel
from dealframe.private.ids import check_ids, refuse_bytes
from dealframe.public.sku import sku_version

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["companies_for_skus", "listing_key", "name_score", "skus_for_companies"]

_LEGAL = {
    "inc",
    "ltd",
    "gmbh",
    "sa",
    "plc",
    "llc",
    "ag",
    "bv",
    "co",
    "corp",
    "corporation",
    "limited",
    "nv",
    "ab",
    "as",
    "oy",
    "spa",
    "srl",
    "kk",
}
_PROFILE_FIELDS = ["name", "country", "stock_listing"]
#: Name candidates of an ambiguous resolve checked against their profiles' listings.
CANDIDATES_PER_NAME = 5


def _plain_name(name: Any) -> str:
    if not isinstance(name, str):
        return ""
    folded = unicodedata.normalize("NFKC", name).casefold()
    tokens = re.sub(r"[^\w]+", " ", folded).split()
    while len(tokens) > 1 and tokens[-1] in _LEGAL:
        tokens.pop()
    return " ".join(tokens)


def _cell(value: Any, argument: str, what: str, kinds: str = "a str") -> str | None:
    """``value`` as a cell of a name or listing column: the text, or None for a missing
    value (None, NaN, ``pd.NA``, as a frame holds one); anything else (a number, a list) is
    a :class:`~dealframe.errors.ValidationError` naming ``argument``.

    Examples
    --------
    >>> _cell(float("nan"), "a", "a name"), _cell("Acme", "a", "a name")
    (None, 'Acme')
    """
    if isinstance(value, str):
        return value
    if value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value))):
        return None
    raise ValidationError(argument, f"{what} ({kinds}), or None or NaN when missing", got=value)


def _ticker_cell(value: Any) -> str | None:
    """``value`` as a ticker cell: :func:`_cell`, and a whole number as its digits (numeric
    tickers are real: ``7203`` on TSE, ``700`` on HKEX, ``5930`` on KRX; a CSV read gives
    them as ``int64``, or as ``7203.0`` in a column with gaps). A number with a fraction, a
    negative one, a bool or an infinity is refused.

    Examples
    --------
    >>> import numpy as np
    >>> _ticker_cell(7203), _ticker_cell(np.int64(700)), _ticker_cell(5930.0)
    ('7203', '700', '5930')
    >>> _ticker_cell(float("nan")) is None
    True
    >>> _ticker_cell(72.5)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid ticker: expected a ticker (a str, or a whole number of 0 or more such as 7203), or None or NaN when missing, got 72.5
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return str(int(value))
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value >= 0:
        if float(value).is_integer():
            return str(int(value))
    kinds = "a str, or a whole number of 0 or more such as 7203"
    return _cell(value, "ticker", "a ticker", kinds)


@checked_keywords
def name_score(a: str | None, b: str | None) -> float:
    """Similarity of two company names, 0 to 1 (case, punctuation and legal suffixes aside).

    Parameters
    ----------
    a, b : str or None
        The names, as a frame's cells hold them: a missing one (None, NaN, ``pd.NA``)
        scores 0.

    Returns
    -------
    float
        The ``difflib`` ratio of the names in plain form, rounded to 4 places.

    Raises
    ------
    dealframe.errors.ValidationError
        A name that is neither text nor missing (a number, a list).

    Examples
    --------
    >>> name_score("Novalum Analytics", "Novalum Analytics GmbH"), name_score("A", None)
    (1.0, 0.0)
    >>> name_score("Acme", 5)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid b: expected a company name (a str), or None or NaN when missing, got 5
    """
    x, y = _cell(a, "a", "a company name"), _cell(b, "b", "a company name")
    return _similarity(_plain_name(x), _plain_name(y))


def _similarity(x: str, y: str) -> float:
    """The ``difflib`` ratio of two plain names (see :func:`_plain_name`), 0 when one is empty."""
    if not x or not y:
        return 0.0
    return round(difflib.SequenceMatcher(None, x, y).ratio(), 4)


class _Scores:
    """:func:`name_score` of each ordered pair of names, computed once per link call.

    A link scores a name against every candidate sharing its listing and then the one taken
    again: each pair (and each name's plain form) is worked out the first time only. The
    order is kept, as ``difflib``'s ratio may differ with it.

    Examples
    --------
    >>> scores = _Scores()
    >>> scores("Acme Robotics Inc", "ACME ROBOTICS"), scores(None, "Acme")
    (1.0, 0.0)
    """

    def __init__(self) -> None:
        self._plain: dict[str, str] = {}
        self._pairs: dict[tuple[str, str], float] = {}

    def __call__(self, a: Any, b: Any) -> float:
        if not isinstance(a, str) or not isinstance(b, str):
            return 0.0  # as _plain_name writes any other value: ""
        score = self._pairs.get((a, b))
        if score is None:
            score = self._pairs[(a, b)] = _similarity(self._plained(a), self._plained(b))
        return score

    def _plained(self, name: str) -> str:
        plain = self._plain.get(name)
        if plain is None:
            plain = self._plain[name] = _plain_name(name)
        return plain


#: Exchanges by their ISO 10383 MIC and common long names, each written as the acronym the
#: listings use (``XNYS`` and ``New York Stock Exchange`` are ``NYSE``): the interface
#: document leaves the spelling open, and a real service may use either in either family.
_EXCHANGES: dict[str, tuple[str, ...]] = {
    "NYSE": ("XNYS", "NEW YORK STOCK EXCHANGE"),
    "NASDAQ": ("XNAS", "NASDAQ STOCK MARKET", "NASDAQ GLOBAL SELECT MARKET"),
    "TSX": ("XTSE", "TORONTO STOCK EXCHANGE"),
    "LSE": ("XLON", "LONDON STOCK EXCHANGE"),
    "OMX": ("XSTO", "NASDAQ STOCKHOLM"),
    "OSE": ("XOSL", "OSLO BORS", "OSLO STOCK EXCHANGE"),
    "CSE": ("XCSE", "NASDAQ COPENHAGEN"),
    "HEX": ("XHEL", "NASDAQ HELSINKI"),
    "ISE": ("XDUB", "EURONEXT DUBLIN", "IRISH STOCK EXCHANGE"),
    "XETRA": ("XETR",),
    "EPA": ("XPAR", "EURONEXT PARIS"),
    "AMS": ("XAMS", "EURONEXT AMSTERDAM"),
    "EBR": ("XBRU", "EURONEXT BRUSSELS"),
    "ELI": ("XLIS", "EURONEXT LISBON"),
    "SIX": ("XSWX", "SIX SWISS EXCHANGE"),
    "BME": ("XMAD", "BOLSA DE MADRID"),
    "MIL": ("XMIL", "BORSA ITALIANA"),
    "WBAG": ("XWBO", "WIENER BORSE", "VIENNA STOCK EXCHANGE"),
    "WSE": ("XWAR", "WARSAW STOCK EXCHANGE"),
    "ATHEX": ("XATH", "ATHENS STOCK EXCHANGE"),
    "BIST": ("XIST", "BORSA ISTANBUL"),
    "BVB": ("XBSE", "BUCHAREST STOCK EXCHANGE"),
    "JSE": ("XJSE", "JOHANNESBURG STOCK EXCHANGE"),
    "ASX": ("XASX", "AUSTRALIAN SECURITIES EXCHANGE"),
    "NZX": ("XNZE", "NEW ZEALAND EXCHANGE"),
    "HKEX": ("XHKG", "HONG KONG STOCK EXCHANGE"),
    "SSE": ("XSHG", "SHANGHAI STOCK EXCHANGE"),
    "SZSE": ("XSHE", "SHENZHEN STOCK EXCHANGE"),
    "TSE": ("XTKS", "TOKYO STOCK EXCHANGE"),
    "KRX": ("XKRX", "KOREA EXCHANGE"),
    "TWSE": ("XTAI", "TAIWAN STOCK EXCHANGE"),
    "SGX": ("XSES", "SINGAPORE EXCHANGE"),
    "NSE": ("XNSE", "NATIONAL STOCK EXCHANGE OF INDIA"),
    "BSE": ("XBOM", "BOMBAY STOCK EXCHANGE"),
    "IDX": ("XIDX", "INDONESIA STOCK EXCHANGE"),
    "MYX": ("XKLS", "BURSA MALAYSIA"),
    "SET": ("XBKK", "STOCK EXCHANGE OF THAILAND"),
    "PSE": ("XPHS", "PHILIPPINE STOCK EXCHANGE"),
    "HOSE": ("XSTC", "HO CHI MINH STOCK EXCHANGE"),
    "PSX": ("XKAR", "PAKISTAN STOCK EXCHANGE"),
    "DSE": ("XDHA", "DHAKA STOCK EXCHANGE"),
    "B3": ("BVMF", "B3 SA BRASIL BOLSA BALCAO"),
    "BCBA": ("XBUE", "BUENOS AIRES STOCK EXCHANGE"),
    "BCS": ("XSGO", "SANTIAGO STOCK EXCHANGE"),
    "BVC": ("XBOG", "COLOMBIA STOCK EXCHANGE"),
    "BMV": ("XMEX", "BOLSA MEXICANA DE VALORES", "MEXICAN STOCK EXCHANGE"),
    "TASE": ("XTAE", "TEL AVIV STOCK EXCHANGE"),
    "TADAWUL": ("XSAU", "SAUDI EXCHANGE"),
    "DFM": ("XDFM", "DUBAI FINANCIAL MARKET"),
    "EGX": ("XCAI", "EGYPTIAN EXCHANGE"),
    "NGX": ("XNSA", "NIGERIAN EXCHANGE"),
    "NSE-KE": ("XNAI", "NAIROBI SECURITIES EXCHANGE"),
    "KASE": ("XKAZ", "KAZAKHSTAN STOCK EXCHANGE"),
}
_ALIASES = {alias: name for name, aliases in _EXCHANGES.items() for alias in aliases}


def _folded(text: str) -> str:
    """Upper case, accents off, each run of spaces one space (``Börse `` -> ``BORSE``)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(plain.upper().split())


@checked_keywords
def listing_key(ticker: str | int | None, exchange: str | None) -> tuple[str, str] | None:
    """``(TICKER, EXCHANGE)`` as both families can be compared; None when either is missing.

    Upper case, spaces around and runs of spaces inside as one; a share-class separator
    (``BRK.B``, ``BRK-B``, ``BRK/B``, ``BRK B``) is written ``.``; an exchange written as its
    MIC or long name (``XNYS``, ``New York Stock Exchange``) as its acronym (``NYSE``); a
    ticker prefixed with its own exchange (``NYSE:BRK.B``, ``XNYS:BRK.B``) loses the prefix.

    Parameters
    ----------
    ticker, exchange : str or None
        As a frame's cells hold them (Family A's ``ticker`` and ``exchange``, Family B's
        ``stock_listing_ticker`` and ``stock_listing_exchange``): a missing one (None, NaN,
        ``pd.NA``) gives None. A ticker may be a whole number (``7203``, ``np.int64(7203)``,
        ``7203.0``: numeric tickers of TSE, HKEX, KRX, as a CSV read gives them): its digits.

    Returns
    -------
    tuple of (str, str) or None

    Raises
    ------
    dealframe.errors.ValidationError
        A ticker or exchange that is neither text nor missing (a list; a number, but a whole
        number of 0 or more as a ticker).

    Examples
    --------
    >>> listing_key("brk-b ", "XNYS"), listing_key("BRK B", "New York Stock Exchange")
    (('BRK.B', 'NYSE'), ('BRK.B', 'NYSE'))
    >>> listing_key("NYSE:BRK.B", "XNYS"), listing_key("LSE:BRK.B", "NYSE")
    (('BRK.B', 'NYSE'), ('LSE:BRK.B', 'NYSE'))
    >>> listing_key("ACME", None) is None, listing_key("ACME", float("nan")) is None
    (True, True)
    >>> listing_key(7203, "TSE"), listing_key(7203.0, "TSE")  # numeric tickers (TSE, HKEX)
    (('7203', 'TSE'), ('7203', 'TSE'))
    >>> listing_key(72.5, "TSE")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid ticker: expected a ticker (a str, or a whole number of 0 or more such as 7203), or None or NaN when missing, got 72.5
    """
    return _listing_key(_ticker_cell(ticker), _cell(exchange, "exchange", "an exchange"))


def _listing_key(ticker: Any, exchange: Any) -> tuple[str, str] | None:
    """:func:`listing_key` without its argument checks, for the link's own loops."""
    if not isinstance(ticker, str) or not isinstance(exchange, str):
        return None
    e = _exchange(exchange)
    prefix, colon, rest = ticker.partition(":")
    if colon and _exchange(prefix) == e:  # "NYSE:BRK.B" on NYSE: the ticker is BRK.B
        ticker = rest
    t = re.sub(r"\s*[./-]\s*|\s+", ".", ticker.strip().upper())
    return (t, e) if t and e else None


@functools.lru_cache(maxsize=1024)
def _exchange(exchange: str) -> str:
    """An exchange as the listings write it: its acronym for a MIC or long name (the few
    spellings a call meets are worked out once: a search reads it for every row)."""
    e = _folded(exchange.strip())
    return _ALIASES.get(re.sub(r"[^\w ]+", "", e).strip(), e)


def _listings(search: pd.DataFrame) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Family A search rows by listing key."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    rows = search.reset_index()
    for sku, ticker, exchange, name, country in zip(
        rows["sku"], rows["ticker"], rows["exchange"], rows["name"], rows["countryCodeIso3"]
    ):
        key = _listing_key(ticker, exchange)
        if key is not None:
            out.setdefault(key, []).append(
                {"sku": sku, "name": name, "country": country, "exchange": exchange}
            )
    return out


class _Universe:
    """Family A companies of both versions by listing, searched by country, then everywhere.

    The countries come from the service (the profiles' ``country``, the SKUs'
    ``countryCodeIso3``), never from the caller: a value the country filters would refuse
    (``GER``, ``ANT``, ``KOS``: no assigned ISO 3166 code, see
    :func:`~dealframe._countries.is_country`) is not passed as one, and as the companies of
    that country could then be missed, everything is searched instead; so it is for a
    country the service leaves null or blank.
    """

    def __init__(self, client: Client) -> None:
        self._client = client
        self._v1: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._v2: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._tickers: dict[str, list[dict[str, Any]]] = {}
        self._countries: set[str] = set()
        self._everything = False

    def load(self, countries: Iterable[Any]) -> None:
        given = list(countries)
        if self._everything or not given:
            return
        if not all(isinstance(c, str) and is_country(c) for c in given):
            # a country no filter takes, or none (null, blank): its companies are anywhere
            self.load_everything()
            return
        wanted = sorted(set(given) - self._countries)
        if not wanted:
            return
        self._countries.update(wanted)
        self._add(
            self._client.public_v1.search(countries=wanted),
            self._client.public.search(countries=wanted),
        )

    def load_everything(self) -> None:
        if not self._everything:
            self._everything = True
            self._add(self._client.public_v1.search(), self._client.public.search())

    def _add(self, v1: pd.DataFrame, v2: pd.DataFrame) -> None:
        for index, found in ((self._v1, _listings(v1)), (self._v2, _listings(v2))):
            for key, rows in found.items():
                known = {r["sku"] for r in index.get(key, [])}
                new = [r for r in rows if r["sku"] not in known]
                index.setdefault(key, []).extend(new)
                self._tickers.setdefault(key[0], []).extend(new)

    def find(self, key: tuple[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return self._v1.get(key, []), self._v2.get(key, [])

    def elsewhere(self, ticker: str) -> list[dict[str, Any]]:
        """Family A companies (either version) listing ``ticker`` (a listing key's) anywhere."""
        return self._tickers.get(ticker, [])


def _listed(queries: Any) -> Any:
    """A list of the queries when they are a collection (an iterator is read once), else as
    given, for the argument checks to refuse."""
    if isinstance(queries, (str, bytes, bytearray, memoryview, Mapping)) or not isinstance(
        queries, Iterable
    ):  # one value (bytes too: refused whole by the checks, not read as numbers)
        return queries
    return list(queries)


def _link_frame(rows: list[dict[str, Any]], direction: str, queries: int) -> pd.DataFrame:
    frame = build_frame(rows, LINK)
    frame.attrs.update({"direction": direction, "queries": queries})
    return frame


def _best(rows: list[dict[str, Any]], name: Any, scores: _Scores) -> dict[str, Any] | None:
    """The row whose name is closest to ``name`` (the first of equals), None for no rows."""
    if len(rows) < 2:
        return rows[0] if rows else None
    first = rows[0]["sku"]
    return max(rows, key=lambda r: (scores(r["name"], name), r["sku"] == first))


def _profiles(client: Client, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Name, country, listing (as written, and its :func:`listing_key`) of each known id.

    Read from the profiles' frame once, column by column: the matching loops then look a
    profile up in a dict rather than a frame row (a pandas scalar read copies the frame's
    ``attrs`` each time).
    """
    with missing_expected():  # unknown ids: their rows say not_found
        frame = client.private.company(ids, fields=_PROFILE_FIELDS)
    out: dict[str, dict[str, Any]] = {}
    for ident, name, country, ticker, exchange in zip(
        frame["id"],
        frame["name"],
        frame["country"],
        frame["stock_listing_ticker"],
        frame["stock_listing_exchange"],
    ):
        out.setdefault(
            ident,
            {
                "name": name,
                "country": country,
                "ticker": ticker,
                "exchange": exchange,
                "key": _listing_key(ticker, exchange),
            },
        )
    return out


def _ticker(value: Any) -> str | None:
    """A ticker as :func:`listing_key` writes it, None when it is not one."""
    key = _listing_key(value, "-")
    return key[0] if key else None


def _may_be_same(ours: str | None, theirs: Any) -> bool:
    """Whether the other family's exchange ``theirs`` (as written) may be the exchange
    ``ours`` (a listing key's, or None) written otherwise: not when both are exchanges the
    client knows (two known exchanges are two exchanges: a ticker on both is two listings).

    Examples
    --------
    >>> _may_be_same("AMS", "NYSE"), _may_be_same("AMS", "Bourse AMS"), _may_be_same(None, "NYSE")
    (False, True, True)
    """
    key = _listing_key("T", theirs)
    return not (ours in _EXCHANGES and key is not None and key[1] in _EXCHANGES)


def _spelt_otherwise(ticker: str, elsewhere: list[str], unlinked: list[str]) -> str:
    """Evidence words for a ticker the other family lists on an exchange written otherwise
    (``elsewhere``: how, with whom), noted in ``unlinked`` for the call's one warning."""
    if not elsewhere:
        return ""
    unlinked.append(f"{ticker} ({'; '.join(elsewhere)})")
    return f"; the other family lists {ticker} on {', '.join(elsewhere)}: not linked"


def _warn_unlinked(unlinked: list[str], direction: str) -> None:
    """One :class:`ServiceContractWarning` naming the tickers the families list on exchanges
    written otherwise: the link cannot tell one exchange in two spellings from two exchanges."""
    if unlinked:
        shown = first_of(unlinked)
        warnings.warn(
            f"{direction}: {len(unlinked)} listing(s) not linked, the two families giving the "
            f"ticker on exchanges written otherwise (or none): {shown}; see the rows' evidence",
            ServiceContractWarning,
            stacklevel=user_stacklevel(),
        )


def _countries_agree(ours: Any, theirs: Any) -> str:
    """Evidence words on two countries of one company: ``same country``, ``other country``,
    compared as the codes they mean (:func:`~dealframe._countries.meant`: the IOC's ``GER``
    is ``DEU``, said so), ``country 'ZZZ' (no ISO 3166 code)`` for a value meaning none, and
    nothing when either is null or blank.

    Examples
    --------
    >>> _countries_agree("DEU", "DEU"), _countries_agree("DEU", "FRA")
    ('; same country', '; other country')
    >>> _countries_agree("GER", "DEU")
    "; same country ('GER' taken as 'DEU')"
    >>> _countries_agree("ANT", "ATG"), _countries_agree(None, "DEU")
    ("; country 'ANT' (no ISO 3166 code)", '')
    """
    given = [c for c in (ours, theirs) if isinstance(c, str) and c.strip()]
    if len(given) < 2:
        return ""
    if ours == theirs:
        return "; same country"
    codes = [meant(c) for c in given]
    unknown = [c for c, code in zip(given, codes) if code is None]
    if unknown:
        return "; " + "; ".join(f"country {c!r} (no ISO 3166 code)" for c in unknown)
    if codes[0] != codes[1]:
        return "; other country"
    taken = ", ".join(f"{c!r} taken as {code!r}" for c, code in zip(given, codes) if c != code)
    return f"; same country ({taken})"


def _agreement(countries: str, sharing: int, who: str) -> str:
    """The evidence's last words: whether the countries agree (:func:`_countries_agree`),
    and if the listing is shared."""
    text = countries
    if sharing > 1:
        text += f"; {sharing} {who} share this listing: closest name taken"
    return text


def _describe(
    key: tuple[str, str],
    v1: dict[str, Any] | None,
    v2: dict[str, Any] | None,
    score: float,
    countries: str,
    counts: tuple[int, int],
) -> str:
    where = " and ".join(f"{r['sku']} ({r['name']})" for r in (v2, v1) if r is not None)
    return f"listing {key[0]} on {key[1]} = Family A {where}; name similarity {score:.2f}" + (
        _agreement(countries, max(counts), "Family A companies")
    )


@checked_keywords
def skus_for_companies(client: Client, company_ids: Iterable[str] | str) -> pd.DataFrame:
    """Family A SKUs (v1 and v2) of Family B companies, through their stock listings.

    Parameters
    ----------
    client : dealframe.Client
    company_ids : str or list of str
        Family B company ids (UUIDs); repeats are asked once. An empty list (the
        ``target_id`` column of no deals) gives no rows and sends no request.

    Returns
    -------
    pandas.DataFrame
        One row per distinct id, in order, with the columns of :data:`LINK` (``query`` is the
        id): ``sku_v1`` and ``sku_v2`` where a Family A company lists the same ticker on the
        same exchange, ``match`` (``matched``, ``ambiguous``, ``not_listed``, ``not_found``)
        and the evidence.

    Raises
    ------
    dealframe.errors.ValidationError
        ``company_ids`` not UUIDs, before any request.

    Examples
    --------
    >>> deals = client.private.deals(deal_type=["Public listing"])
    >>> links = dealframe.skus_for_companies(client, deals["target_id"])
    >>> matched = links[links["match"] == "matched"]
    >>> matched[["name", "sku_v2"]].head(2)
                   name   sku_v2
    ...
    >>> print(matched["evidence"].iloc[0])
    listing ... on ... = Family A ... (...) and ... (...); name similarity ...
    """
    company_ids = _listed(company_ids)
    if isinstance(company_ids, list) and not company_ids:
        return _link_frame([], "companies -> skus", 0)
    ids = check_ids(company_ids, "company_ids")
    profiles = _profiles(client, ids)
    universe = _Universe(client)
    keys = {i: profiles[i]["key"] for i in ids if i in profiles}
    tickers = {i: _ticker(profiles[i]["ticker"]) for i in keys}
    universe.load([profiles[i]["country"] for i in keys if tickers[i]])
    if any(t and not any(universe.find(keys[i] or ("", ""))) for i, t in tickers.items()):
        universe.load_everything()  # listed abroad, or a country the search does not file
    scores = _Scores()
    rows: list[dict[str, Any]] = []
    unlinked: list[str] = []
    for ident in ids:
        row: dict[str, Any] = {"query": ident, "company_id": ident}
        if ident not in profiles:
            rows.append(
                {
                    **row,
                    "company_id": None,
                    "match": "not_found",
                    "evidence": "no company profile (unknown or soft-deleted id)",
                }
            )
            continue
        p = profiles[ident]
        key = keys[ident]
        row.update(name=p["name"], country=p["country"], ticker=p["ticker"], exchange=p["exchange"])
        ticker = tickers[ident]
        if key is None and ticker is None:
            rows.append(
                {
                    **row,
                    "match": "not_listed",
                    "evidence": "the company profile has no stock_listing (or none with a ticker)",
                }
            )
            continue
        in_v1, in_v2 = universe.find(key) if key else ([], [])
        v1, v2 = _best(in_v1, p["name"], scores), _best(in_v2, p["name"], scores)
        if v1 is None and v2 is None:
            assert ticker is not None  # as a key has one
            where = f"on {key[1]}" if key else "with no exchange in the profile's stock_listing"
            elsewhere = [
                f"{r['exchange']!r} ({r['sku']})"
                for r in universe.elsewhere(ticker)
                if _may_be_same(key[1] if key else None, r["exchange"])
            ]
            rows.append(
                {
                    **row,
                    "match": "not_found",
                    "evidence": f"no Family A company lists {ticker} {where}"
                    + _spelt_otherwise(ticker, elsewhere, unlinked),
                }
            )
            continue
        assert key is not None  # as a counterpart was found by it
        public = v2 or v1
        assert public is not None
        score = scores(p["name"], public["name"])
        countries = _countries_agree(p["country"], public["country"])
        counts = (len(in_v1), len(in_v2))
        rows.append(
            {
                **row,
                "sku_v1": v1 and v1["sku"],
                "sku_v2": v2 and v2["sku"],
                "public_name": public["name"],
                "public_country": public["country"],
                "match": "ambiguous" if max(counts) > 1 else "matched",
                "name_score": score,
                "evidence": _describe(key, v1, v2, score, countries, counts),
            }
        )
    _warn_unlinked(unlinked, "skus_for_companies")
    return _link_frame(rows, "companies -> skus", len(ids))


def _identities(client: Client, skus: list[str]) -> dict[str, dict[str, Any]]:
    """Ticker, exchange, name and country of each SKU, from current data of its version."""
    out: dict[str, dict[str, Any]] = {}
    for version, api in (("v1", client.public_v1), ("v2", client.public)):
        mine = [s for s in skus if sku_version(s) == version]
        if not mine:
            continue
        with missing_expected():  # unknown SKUs: their rows say not_found
            current = api.current(mine)
        for sku, ticker, exchange, name, country in zip(
            current.index,
            current["ticker"],
            current["exchange"],
            current["name"],
            current["countryCodeIso3"],
        ):  # column by column: a row read per SKU would copy the frame's attrs each time
            out[sku] = {"ticker": ticker, "exchange": exchange, "name": name, "country": country}
    return out


def _resolved(client: Client, names: list[str]) -> dict[str, list[str]]:
    """Family B candidate ids of each name: the exact match, else the best candidates."""
    if not names:
        return {}
    matches, candidates = client.private.resolve_companies(names)
    out: dict[str, list[str]] = {}
    for query, ident in zip(matches["query"], matches["id"]):
        out[query] = [ident] if isinstance(ident, str) else []
    ranked = candidates[candidates["rank"] <= CANDIDATES_PER_NAME]
    for query, ident in zip(ranked["query"], ranked["id"]):
        if isinstance(ident, str) and ident not in out.setdefault(query, []):
            out[query].append(ident)
    return out


@checked_keywords
def companies_for_skus(client: Client, skus: Iterable[str] | str) -> pd.DataFrame:
    """Family B company ids of Family A SKUs (v1 or v2, mixed), with both SKU versions.

    Each SKU's name, ticker and exchange come from its current data; the name is resolved
    to Family B candidates (``resolve_companies``), and a candidate is kept when its profile
    lists the same ticker on the same exchange.

    Parameters
    ----------
    client : dealframe.Client
    skus : str or list of str
        SKUs of either version (``ACME-USA``, ``ACME-USA.1``, ``NYSE_ACME``); repeats are
        asked once. An empty list gives no rows and sends no request.

    Returns
    -------
    pandas.DataFrame
        One row per distinct SKU, in order, with the columns of :data:`LINK` (``query`` is
        the SKU): ``company_id``, both SKU versions, ``match`` and the evidence.

    Raises
    ------
    dealframe.errors.ValidationError
        A SKU that is neither a v1 nor a v2 SKU, before any request.

    Examples
    --------
    >>> comps = client.public.search(regions=["Western Europe"])
    >>> links = dealframe.companies_for_skus(client, comps.index)
    >>> links[["query", "company_id", "match"]].head(2)
          query                            company_id    match
    0 ... matched
    1 ... matched
    >>> rounds = client.private.fundings(links["company_id"].dropna())  # their private rounds
    """
    items = [skus] if isinstance(skus, str) else skus
    refuse_bytes(items, "skus", "a SKU or a list of SKUs")
    if isinstance(items, Mapping) or not isinstance(items, Iterable):
        raise ValidationError("skus", "a SKU or a list of SKUs", got=skus)
    items = list(items)
    for i, sku in enumerate(items):  # before the duplicates go: a list in it is unhashable
        if not isinstance(sku, str) or sku_version(sku) is None:
            raise ValidationError(
                f"skus[{i}]",
                "a v1 SKU <EXCHANGE>_<TICKER> or a v2 SKU <TICKER>-<ISO3>[.N]",
                got=sku,
            )
    wanted = list(dict.fromkeys(items))
    known = _identities(client, wanted)
    universe = _Universe(client)
    universe.load(k["country"] for k in known.values())
    resolved = _resolved(
        client,
        sorted({k["name"] for k in known.values() if isinstance(k["name"], str) and k["name"]}),
    )
    candidates = sorted({i for ids in resolved.values() for i in ids})
    profiles = _profiles(client, candidates) if candidates else {}
    scores = _Scores()
    rows: list[dict[str, Any]] = []
    unlinked: list[str] = []
    for sku in wanted:
        row: dict[str, Any] = {"query": sku}
        a = known.get(sku)
        if a is None:
            rows.append(
                {
                    **row,
                    "match": "not_found",
                    "evidence": "the SKU has no current data (unknown SKU)",
                }
            )
            continue
        key = _listing_key(a["ticker"], a["exchange"])
        in_v1, in_v2 = universe.find(key) if key else ([], [])
        v2 = next((r for r in in_v2 if r["sku"] == sku), None) or _best(in_v2, a["name"], scores)
        v1 = next((r for r in in_v1 if r["sku"] == sku), None) or _best(in_v1, a["name"], scores)
        row.update(
            ticker=a["ticker"],
            exchange=a["exchange"],
            public_name=a["name"],
            public_country=a["country"],
            sku_v1=v1["sku"] if v1 else (sku if sku_version(sku) == "v1" else None),
            sku_v2=v2["sku"] if v2 else (sku if sku_version(sku) == "v2" else None),
        )
        names = resolved.get(a["name"], [])
        same = (
            [] if key is None else [i for i in names if i in profiles and profiles[i]["key"] == key]
        )
        if not same:
            what = (
                f"{len(names)} Family B candidate(s) for the name {a['name']!r}, none "
                + (
                    f"listing {key[0]} on {key[1]}"
                    if key
                    else f"matching ticker {a['ticker']} and exchange {a['exchange']} (one missing)"
                )
                if names
                else f"no Family B company resolves from the name {a['name']!r}"
            )
            ticker = _ticker(a["ticker"])
            elsewhere = [
                f"{profiles[i]['exchange']!r} ({i})"
                for i in names
                if i in profiles
                and ticker is not None
                and _ticker(profiles[i]["ticker"]) == ticker
                and _may_be_same(key[1] if key else None, profiles[i]["exchange"])
            ]
            if ticker is not None:
                what += _spelt_otherwise(ticker, elsewhere, unlinked)
            rows.append({**row, "match": "not_found", "evidence": what})
            continue
        assert key is not None  # as ``same`` is not empty
        best = (
            same[0]
            if len(same) == 1
            else max(same, key=lambda i: scores(profiles[i]["name"], a["name"]))
        )
        chosen = profiles[best]
        score = scores(chosen["name"], a["name"])
        country = chosen["country"]
        text = (
            f"name {a['name']!r} resolves to {len(names)} candidate(s); "
            f"{chosen['name']!r} lists {key[0]} on {key[1]} as the SKU does; "
            f"name similarity {score:.2f}"
        ) + _agreement(_countries_agree(country, a["country"]), len(same), "candidates")
        rows.append(
            {
                **row,
                "company_id": best,
                "name": chosen["name"],
                "country": country,
                "name_score": score,
                "match": "ambiguous" if len(same) > 1 else "matched",
                "evidence": text,
            }
        )
    _warn_unlinked(unlinked, "companies_for_skus")
    return _link_frame(rows, "skus -> companies", len(wanted))
