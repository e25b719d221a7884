"""Filters given as flags: ``--deal-type Venture --date-from 2024-01-01`` to a filters dict.

Pure. Flag names are the filter names with ``-`` for ``_``; a flag given twice, or a
comma-separated value, gives a list for list filters; ``--include-deleted`` alone means true.
Values are converted by the filter's type in the discovery document (numbers, booleans),
and the client's own filter check then validates them as the Python API does.

Examples
--------
>>> tokens_to_values(["--deal-type", "Venture,Growth", "--valuation-min=100"])
{'deal-type': ['Venture,Growth'], 'valuation-min': ['100']}
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from dealframe.cli_options import is_decimal, is_whole, spoken, unquoted
from dealframe.clitools import flag_name, in_shell_words  # re-exported: pull.cli's names
from dealframe.errors import ValidationError, renamed
from dealframe.private.filters import FilterSchema, sort_form
from dealframe.public.query import search_body
from dealframe.public.sku import sku_version, validate_skus

from .entities import PUBLIC_FILTERS

__all__ = [
    "checked_sort",
    "flag_name",
    "in_shell_words",
    "public_filters",
    "public_skus",
    "schema_filters",
    "tokens_to_values",
    "unknown_flag",
]


def tokens_to_values(tokens: Sequence[str], options: Collection[str] = ()) -> dict[str, list[str]]:
    """``--name value`` / ``--name=value`` pairs to ``{name: [values]}`` (name without ``--``).

    A flag followed by another flag (or by nothing) gets the value ``"true"``.

    Raises
    ------
    dealframe.errors.ValidationError
        A token that is not a flag where a flag was expected: named when it is one of the
        command's ``options`` (or a one-letter option), else not quoted (a token may begin
        with ``-``: ``-pSECRET``, :func:`~dealframe.cli_options.spoken`).

    Examples
    --------
    >>> tokens_to_values(["--deal-type", "Venture", "--include-deleted"])
    {'deal-type': ['Venture'], 'include-deleted': ['true']}
    >>> tokens_to_values(["-pSECRET0123456789"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid filters: expected flags such as --deal-type Venture (a filter flag, then its value; 1 argument not quoted (it may hold a token))
    """
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("--") or token == "--":
            expected = "flags such as --deal-type Venture (a filter flag, then its value"
            said = spoken(token, options)
            if said is None:
                raise ValidationError("filters", f"{expected}; {unquoted(1)})")
            raise ValidationError("filters", f"{expected})", got=said)
        name, sep, value = token[2:].partition("=")
        if not sep:
            if i + 1 < len(tokens) and not tokens[i + 1].startswith("--"):
                value = tokens[i + 1]
                i += 1
            else:
                value = "true"
        out.setdefault(name, []).append(value)
        i += 1
    return out


def _split(values: list[str]) -> list[str]:
    return [part.strip() for v in values for part in v.split(",") if part.strip()]


def _number(text: str, flag: str) -> int | float:
    """``text`` as a number, read as every numeric option reads it
    (:func:`~dealframe.cli_options.is_decimal`: ``1_000``, ``0x10``, ``nan`` refused).

    Examples
    --------
    >>> _number("1000", "--valuation-min"), _number("2.5e3", "--valuation-min")
    (1000, 2500.0)
    >>> _number("1_000", "--valuation-min")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --valuation-min: expected a number, got '1_000'
    """
    if not is_decimal(text):
        raise ValidationError(flag, "a number", got=text)
    return int(text) if is_whole(text) else float(text)


def _boolean(text: str, flag: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ValidationError(flag, "true or false", got=text)


def unknown_flag(flag: str, known: Collection[str], options: Collection[str] = ()) -> str | None:
    """How a refusal names ``flag``, given where a filter flag was expected: the flag with
    did-you-mean against the ``known`` filters, then the command's ``options`` (``--limt``:
    ``--limit``), or None when it is no option nor a close slip of one (not quoted: a token
    may be given as a flag, ``--sk_live_SECRET``; :func:`~dealframe.cli_options.spoken`).

    Examples
    --------
    >>> unknown_flag("--limt", ["--id", "--deal-type"], ["--limit", "--sort"])
    "--limt (did you mean '--limit'?)"
    >>> unknown_flag("--sk_live_0123456789abcdef", ["--id"], ["--limit"]) is None
    True
    """
    return spoken(flag, known, options)


def _unknown_filter(
    flag: str, flags: Collection[str], options: Collection[str], what: str
) -> ValidationError:
    """The refusal of ``flag``, no filter of ``flags`` (:func:`unknown_flag`); ``what``:
    ``a filter of deals``."""
    listed = f"filters: {', '.join(flags)}"
    said = unknown_flag(flag, flags, options)
    if said is None:
        return ValidationError("filters", f"{what} ({unquoted(1)}; {listed})")
    hint = said[len(flag) :]  # " (did you mean '--x'?)" or ""
    return ValidationError(flag, f"{what}{hint[:-1]}; {listed})" if hint else f"{what} ({listed})")


def schema_filters(
    values: Mapping[str, list[str]],
    schema: FilterSchema,
    *,
    known_only: bool = False,
    entity: str | None = None,
    options: Collection[str] = (),
) -> dict[str, Any]:
    """Flag values to the filters of a Family B list, checked against its discovery document.

    ``entity`` is the list as the user named it (``deals``), for the messages; default the
    document's own name (``transactions``). ``options``: the command's own options, for
    did-you-mean (``--limt``: ``--limit``). An unknown flag is named only when it is a
    close slip of one (:func:`unknown_flag`), else not quoted.

    With ``known_only`` (the document as the interface document writes it: the check made
    before any request, :func:`~dealframe.private.filters.service_decides`) only the flags
    of the filters ``schema`` lists are converted and checked, by
    :meth:`FilterSchema.precheck`: a flag it does not list and an enum value outside its
    lists are left to the service's own document.

    Raises
    ------
    dealframe.errors.ValidationError
        An unknown filter (with the closest flag), a value of the wrong type, or whatever
        :meth:`FilterSchema.build` refuses (an ``EnumValueError`` for a value outside an enum list).

    Examples
    --------
    >>> doc = {"filters": [{"field": "deal_type", "type": "array_string", "operators": ["in"],
    ...         "values": ["Venture", "Growth"]},
    ...        {"field": "valuation_min", "type": "number", "operators": ["gte"]}]}
    >>> schema = FilterSchema("transactions", doc)
    >>> schema_filters({"deal-type": ["Venture,Growth"], "valuation-min": ["100"]}, schema)
    {'deal_type': ['Venture', 'Growth'], 'valuation_min': 100}
    >>> schema_filters({"deal-type": ["Ventre"]}, schema)
    Traceback (most recent call last):
    ...
    dealframe.errors.EnumValueError: invalid --deal-type: expected values from Venture, Growth (did you mean 'Venture'?), got 'Ventre'
    >>> schema_filters({"deal-typ": ["Venture"]}, schema)
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --deal-typ: expected a filter of transactions (did you mean '--deal-type'?; filters: --deal-type, --valuation-min)
    >>> schema_filters({"profile": ["x"]}, schema, entity="deals", options=["--profile"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --profile: expected a filter of deals (filters: --deal-type, --valuation-min)
    >>> schema_filters({"sk_live_0123456789abcdef": ["x"]}, schema, entity="deals")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid filters: expected a filter of deals (1 argument not quoted (it may hold a token); filters: --deal-type, --valuation-min)
    >>> schema_filters({"valuation-min": ["9"], "valuation-max": ["1"]},
    ...     FilterSchema("transactions", {"filters": [
    ...         {"field": "valuation_min", "type": "number", "operators": ["gte"]},
    ...         {"field": "valuation_max", "type": "number", "operators": ["lte"]}]}))
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --valuation-min: expected a number not above --valuation-max (1): the range would match no row, got 9
    """
    flags = {flag_name(f): f for f in schema.fields}
    filters: dict[str, Any] = {}
    for name, given in values.items():
        flag = "--" + name
        field = flags.get(flag) or flags.get(flag_name(name))
        if field is None:
            if known_only:
                continue
            raise _unknown_filter(flag, flags, options, f"a filter of {entity or schema.entity}")
        spec = schema.fields[field]
        if spec.type.startswith("array"):
            filters[field] = _split(given)
            if not filters[field]:  # ``--deal-type ""``: the client's message says "None"
                raise ValidationError(
                    flag,
                    "at least one value (leave the flag out for no constraint)",
                    got=" ".join(given),
                )
            continue
        if len(given) > 1:
            raise ValidationError(flag, "one value (it is not a list filter)", got=given)
        text = given[0]
        if spec.type == "number":
            filters[field] = _number(text, flag)
        elif spec.type == "boolean":
            filters[field] = _boolean(text, flag)
        else:
            filters[field] = text
    try:  # the Python API's own check: types, enum lists, operators
        if known_only:
            schema.precheck(filters)
        else:
            schema.build(filters)
    except ValidationError as exc:  # named as the flag the value came from (``--date-from``)
        named = exc.argument.partition("[")[0]
        if named not in schema.fields:
            raise
        raise in_shell_words(renamed(exc, flag_name(named)), schema.fields) from None
    return filters


def checked_sort(schema: FilterSchema | None, sort: str | None) -> str | None:
    """``--sort`` checked against the list's sort keys, the error naming the flag; with no
    ``schema`` (before a service's discovery document is read), its form only
    (:func:`~dealframe.private.filters.sort_form`).

    Examples
    --------
    >>> schema = FilterSchema("x", {"filters": [], "sort_fields": ["name"]})
    >>> checked_sort(schema, "nme:asc")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --sort: expected a sort key among name (did you mean 'name'?), got 'nme'
    >>> checked_sort(None, "name:up")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --sort: expected direction 'asc' or 'desc', got 'up'
    """
    try:
        return sort_form(sort) if schema is None else schema.check_sort(sort)
    except ValidationError as exc:
        raise renamed(exc, "--sort") from None


def public_skus(skus: list[str]) -> list[str]:
    """``--sku`` values checked as ``client.public.current`` checks them (v2 SKUs); a
    comma-separated value gives several SKUs, as for the other list flags.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming ``--sku`` and the SKU that is malformed or a v1 SKU, or a flag given with no
        SKU (``--sku ,``).

    Examples
    --------
    >>> public_skus(["ACME-USA,ACME-USA.1", "BETA-GBR"])
    ['ACME-USA', 'ACME-USA.1', 'BETA-GBR']
    >>> public_skus(["ACME-USA", "NYSE_ACME"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --sku: expected a v2 SKU <TICKER>-<ISO3>[.N] (it is a v1 SKU), got 'NYSE_ACME'
    >>> public_skus(["celz-gbr"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --sku: expected an upper-case v2 SKU <TICKER>-<ISO3>[.N] (did you mean 'CELZ-GBR'?), got 'celz-gbr'
    """
    given = _split(skus)
    if skus and not given:
        raise ValidationError(
            "--sku", "at least one SKU (leave the flag out for none)", got=" ".join(skus)
        )
    try:
        return validate_skus(given, "v2")
    except ValidationError as exc:
        lower = next((k for k in given if k != k.upper() and sku_version(k.upper()) == "v2"), None)
        if lower is not None:  # 'celz-gbr': SKUs are upper case
            raise ValidationError(
                "--sku",
                f"an upper-case v2 SKU <TICKER>-<ISO3>[.N] (did you mean {lower.upper()!r}?)",
                got=lower,
            ) from None
        raise renamed(exc, "--sku") from None


def public_filters(
    values: Mapping[str, list[str]], options: Collection[str] = ()
) -> dict[str, Any]:
    """Flag values to the keywords of ``client.public.search``, checked as the client
    checks them (the regions of the vocabulary, ISO-3 countries ...), errors naming the flag.

    Raises
    ------
    dealframe.errors.ValidationError
        An unknown flag (with the closest one), or a value the client would refuse.

    Examples
    --------
    >>> public_filters({"regions": ["Western Europe"], "enterprise-value-above": ["500"]})
    {'regions': ['Western Europe'], 'enterprise_value_above': 500}
    >>> public_filters({"countries": ["GBR,usa"]})
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid --countries: expected an upper-case ISO 3166 alpha-3 code such as 'USA' (did you mean 'USA'?), got 'usa'
    """
    out: dict[str, Any] = {}
    flags = [flag_name(f) for f in PUBLIC_FILTERS]
    for name, given in values.items():
        spec = PUBLIC_FILTERS.get(name)
        if spec is None:
            raise _unknown_filter("--" + name, flags, options, "a search filter")
        keyword, kind = spec
        if kind == "list":
            out[keyword] = _split(given)
            if not out[keyword]:  # ``--industries ,``: the client's own message says "None"
                raise ValidationError(
                    "--" + name,
                    "at least one value (leave the flag out for no constraint)",
                    got=" ".join(given),
                )
        else:
            if len(given) > 1:
                raise ValidationError("--" + name, "one value", got=given)
            out[keyword] = _number(given[0], "--" + name)
    for keyword, value in out.items():  # one by one: an error names that flag
        try:
            search_body({keyword: value})
        except ValidationError as exc:
            raise renamed(exc, flag_name(keyword)) from None
    return out
