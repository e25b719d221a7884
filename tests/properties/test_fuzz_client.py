"""Fuzzing every public client function: bad input is refused with a dealframe error that names
the argument; good input succeeds or raises a dealframe error; nothing else ever escapes.

Hypothesis draws arguments for every method of ``client.public`` / ``client.public_v1`` and
``client.private`` (filters by discovery name with valid and junk values, SKUs, ids, dates and
months in every form, names with quotes, percent signs, unicode and SQL fragments, limits,
metrics, buckets, fields, shapes, sort strings, ``on_ambiguous``...). Each call goes over HTTP
to the session sandbox. The property:

- the call returns, or raises a :class:`~dealframe.errors.DealframeError`; a ``KeyError``,
  ``TypeError``, ``AttributeError``, pandas or pyarrow error is a failure;
- a :class:`~dealframe.errors.ValidationError` names one of the arguments that were passed
  (``argument`` is that name, or a dotted/indexed path inside it);
- the service never answers a 500 to anything the client lets through.

``derandomize=True`` and a bounded number of examples keep the file under a minute.
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
import re
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dealframe._vocab import AGGREGATE_METRICS, DEAL_TYPES, REGIONS, TIME_BUCKETS
from dealframe.client import Client
from dealframe.errors import DealframeError, ServerError, ValidationError
from dealframe.sandbox.vocab import TIME_SERIES_FIELDS

EXAMPLES = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
FEW = settings(EXAMPLES, max_examples=20)

NASTY_NAMES = [
    "O'Brien & Sons",
    'Acme "Quoted" Ltd',
    "100% Organic",
    "50%_off",
    "a_b%c",
    "Robert'); DROP TABLE companies;--",
    "' OR '1'='1",
    "1; SELECT * FROM deals",
    "%",
    "_",
    "",
    " ",
    "\t\n",
    "Ünïcödé GmbH",
    "株式会社テスト",
    "שלום",
    "🚀 Rocket Labs",
    "\u200b\u200d",
    "a" * 5000,
    "NULL",
    "None",
    "null",
    "{}",
    "[]",
    "\\",
    "../../etc/passwd",
    "%00",
    "\x00x",
]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.sampled_from([2**63, 2**64, -(2**64) - 1, 10**30, -(10**40), 2**1000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.binary(max_size=6),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.tuples(st.text(max_size=3)),
    st.sampled_from(
        [
            object(),
            1j,
            b"x",
            {1, 2},
            frozenset(),
            np.int64(3),
            np.float64("nan"),
            pd.NaT,
            pd.Timestamp("2024-01-01"),
            dt.date(2024, 2, 29),
            np.datetime64("NaT"),
            pd.NA,
            Ellipsis,
        ]
    ),
)
TEXT = st.one_of(st.sampled_from(NASTY_NAMES), st.text(max_size=30))
MONTHS = st.one_of(
    st.sampled_from(
        [
            "2020-01",
            "2024-12",
            "2026-06",
            "1999-13",
            "2024-1",
            "2024/01",
            "",
            "x",
            "2024-00",
            " 2024-03 ",
            "９９９９-０１",
        ]
    ),
    st.builds(lambda y, m: f"{y:04d}-{m:02d}", st.integers(1, 9999), st.integers(0, 13)),
    st.dates().map(pd.Timestamp),
    st.dates(),
    st.builds(pd.Period, st.sampled_from(["2024-03", "2023Q2", "2021"])),
    JUNK,
)
DATES = st.one_of(
    st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 1, 1)),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(
        ["2024-02-30", "2024-13-01", "24-01-01", "2024-1-1", "", "yesterday", "2024-01-01T10:00"]
    ),
    st.datetimes().map(pd.Timestamp),
    st.just(np.datetime64("2024-05-06")),
    JUNK,
)
UUIDS = st.one_of(
    st.uuids().map(str),
    st.uuids().map(lambda u: str(u).upper()),
    st.uuids().map(lambda u: u.hex),
    st.text(max_size=40),
    JUNK,
)


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Valid values three times in four: both sides of the property get examples."""
    return st.integers(0, 3).flatmap(lambda i: bad if i == 0 else good)


def names_argument(exc: BaseException, passed: set[str]) -> bool:
    """True when a ValidationError's argument is one of ``passed`` (or a path inside one)."""
    if not isinstance(exc, ValidationError):
        return True
    root = re.split(r"[.\[]", exc.argument, maxsplit=1)[0]
    return root in passed and root in str(exc)


def check(call: Callable[[], Any], passed: set[str]) -> Any:
    """Run ``call``; only dealframe errors may escape, validation errors name an argument."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = call()
            event("succeeded")
            return result
        except DealframeError as exc:
            event(f"refused: {type(exc).__name__}")
            assert not isinstance(exc, ServerError), exc  # never a 5xx for bad input
            assert names_argument(exc, passed), (exc.argument, passed, str(exc))
            assert str(exc)
            return exc


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(
        sandbox, progress=False, retries=1, backoff_base=0.01, backoff_cap=0.02, max_workers=4
    ) as c:
        yield c


@pytest.fixture(scope="module")
def known(client: Client) -> dict[str, Any]:
    search = client.public.search()
    v1 = client.public_v1.search()
    companies = client.private.companies(limit=30)
    investors = client.private.investors(limit=30)
    deals = client.private.deals(limit=30)
    schemas = {e: client.private.schema(e) for e in ("companies", "investors", "transactions")}
    return {
        "skus": search.index.tolist()[:60],
        "skus_v1": v1.index.tolist()[:60],
        "names": search["name"].tolist()[:60],
        "company_ids": companies["id"].tolist(),
        "investor_ids": investors["id"].tolist(),
        "deal_ids": deals["id"].tolist(),
        "investor_names": investors["name"].tolist(),
        "schemas": schemas,
    }


def _skus(known: dict[str, Any], key: str = "skus") -> st.SearchStrategy[Any]:
    good = st.lists(st.sampled_from(known[key]), min_size=1, max_size=5)
    mixed = st.lists(st.one_of(st.sampled_from(known[key]), TEXT, JUNK), max_size=4)
    return mostly(
        st.one_of(
            good,
            st.just(known[key][:1] * 3),
            st.just(known[key][:3] + [f"ZZ{i:03d}-ZZZ" for i in range(120)]),
        ),
        st.one_of(mixed, TEXT, JUNK),
    )


def _ids(pool: list[str]) -> st.SearchStrategy[Any]:
    return mostly(
        st.one_of(
            st.sampled_from(pool),
            st.lists(st.sampled_from(pool), min_size=1, max_size=4),
            st.just(pool[:2] + [pool[0].upper()]),
            st.uuids().map(str),
        ),
        st.one_of(st.lists(UUIDS, max_size=3), UUIDS, st.just([])),
    )


def _filter_value(field: Any) -> st.SearchStrategy[Any]:
    t = field.type
    if field.values:
        good: st.SearchStrategy[Any] = st.lists(
            st.sampled_from(field.values), min_size=1, max_size=3
        )
    elif t in ("array_string",):
        good = st.lists(TEXT, max_size=3)
    elif t == "array_uuid":
        good = st.lists(st.uuids().map(str), max_size=3)
    elif t == "number":
        good = st.one_of(st.integers(-10, 10**6), st.floats(-1e9, 1e9, allow_nan=False))
    elif t == "boolean":
        good = st.booleans()
    elif t == "date":
        good = DATES
    elif t == "datetime":
        good = st.one_of(
            st.datetimes(timezones=st.just(dt.UTC)),
            st.sampled_from(["2025-01-01T00:00:00+01:00", "2025-01-01", "nope"]),
        )
    else:
        good = TEXT
    ops = list(field.operators) or ["eq"]
    with_op = st.builds(lambda op, v: {op: v}, st.sampled_from(ops + ["between", "like", ""]), good)
    return mostly(
        st.one_of(good, with_op),
        st.one_of(
            JUNK, st.dictionaries(st.sampled_from([*ops, "zz"]), good, min_size=2, max_size=3)
        ),
    )


def _filters(schema: Any) -> st.SearchStrategy[dict[str, Any]]:
    fields = list(schema.fields.values())
    keyed = st.sampled_from(fields).flatmap(lambda f: st.tuples(st.just(f.name), _filter_value(f)))
    unknown = st.tuples(st.one_of(TEXT, st.sampled_from(["deal_types", "Name", "id "])), JUNK)
    return st.lists(mostly(keyed, unknown), max_size=3).map(dict)


def _sort(schema: Any) -> st.SearchStrategy[Any]:
    keys = list(schema.sort_fields)
    return st.one_of(
        st.none(),
        st.sampled_from(keys),
        st.builds(
            lambda k, d: f"{k}:{d}",
            st.sampled_from(keys + ["nope", ""]),
            st.sampled_from(["asc", "desc", "ASC", "up", "", "asc:desc"]),
        ),
        TEXT,
        JUNK,
    )


LIMITS = st.one_of(
    st.none(), st.integers(-5, 2500), st.sampled_from([0, True, 1.5, "10", 10**9]), JUNK
)


# ---------------------------------------------------------------------------- Family A


@EXAMPLES
@given(data=st.data())
def test_search_and_groups(client, known, data):
    keys = ["industries", "themes", "regions", "countries", "enterprise_value_above"]
    good = {
        "regions": st.lists(st.sampled_from(REGIONS), max_size=2),
        "countries": st.lists(st.sampled_from(["USA", "GBR", "DEU", "ATA"]), max_size=2),
        "enterprise_value_above": st.floats(0, 5e4),
    }
    bad = st.one_of(
        st.lists(st.one_of(TEXT, st.sampled_from(["usa", "US"])), max_size=3),
        TEXT,
        st.floats(allow_nan=True),
        st.integers(),
        JUNK,
    )
    kw = data.draw(
        mostly(
            st.fixed_dictionaries({}, optional=good),
            st.dictionaries(st.sampled_from(keys), bad, max_size=3),
        )
    )
    api = data.draw(st.sampled_from([client.public, client.public_v1]))
    method = data.draw(st.sampled_from(["search", "group_current", "group_time_series"]))
    result = check(
        lambda: getattr(api, method)(**kw), set(kw) | {"filters", "fields", "date_from", "date_to"}
    )
    if isinstance(result, pd.DataFrame) and method == "search":
        assert result.index.is_unique


@EXAMPLES
@given(data=st.data())
def test_current(client, known, data):
    version = data.draw(st.sampled_from(["v2", "v1"]))
    skus = data.draw(_skus(known, "skus" if version == "v2" else "skus_v1"))
    strict = data.draw(st.booleans())
    api = client.public if version == "v2" else client.public_v1
    result = check(lambda: api.current(skus, strict=strict), {"skus", "strict"})
    if isinstance(result, pd.DataFrame):
        asked = [skus] if isinstance(skus, str) else list(skus)
        assert set(result.index) <= set(asked) and result.index.is_unique


@EXAMPLES
@given(data=st.data())
def test_time_series(client, known, data):
    skus = data.draw(_skus(known))
    fields = data.draw(
        mostly(
            st.one_of(
                st.none(), st.lists(st.sampled_from(TIME_SERIES_FIELDS), min_size=1, max_size=3)
            ),
            st.one_of(st.lists(TEXT, max_size=2), JUNK),
        )
    )
    good_month = st.one_of(
        st.none(),
        st.builds(lambda y, m: f"{y}-{m:02d}", st.integers(2015, 2027), st.integers(1, 12)),
    )
    date_from, date_to = (
        data.draw(mostly(good_month, MONTHS)),
        data.draw(mostly(good_month, MONTHS)),
    )
    shape = data.draw(mostly(st.sampled_from(["wide", "long"]), st.one_of(TEXT, JUNK)))
    check(
        lambda: client.public.time_series(skus, fields, date_from, date_to, shape),
        {"skus", "fields", "date_from", "date_to", "shape"},
    )


# ---------------------------------------------------------------------------- Family B lists


@EXAMPLES
@given(data=st.data())
def test_lists(client, known, data):
    entity = data.draw(st.sampled_from(["companies", "investors", "transactions"]))
    schema = known["schemas"][entity]
    filters = data.draw(_filters(schema))
    sort, limit = data.draw(_sort(schema)), data.draw(LIMITS)
    as_kwargs = data.draw(st.booleans())
    method = getattr(client.private, "deals" if entity == "transactions" else entity)
    limit = (
        limit
        if limit is None or (isinstance(limit, int) and limit > 0 and limit <= 2500)
        else limit
    )
    # filters as keyword parameters only where each is one the method declares (a name it
    # does not declare is Python's TypeError at the call, tested on its own)
    declared = set(inspect.signature(method).parameters) - {
        "sort",
        "limit",
        "strict",
        "progress",
        "refresh",
        "cache",
        "filters",
    }
    if as_kwargs and all(isinstance(k, str) and k in declared for k in filters):
        call = lambda: method(sort=sort, limit=limit, **filters)  # noqa: E731
    else:
        call = lambda: method(filters, sort=sort, limit=limit)  # noqa: E731
    result = check(call, {*map(str, filters), "filters", "sort", "limit"})
    if isinstance(result, pd.DataFrame):
        assert result["id"].is_unique
        if isinstance(limit, int) and not isinstance(limit, bool):
            assert len(result) <= limit


@FEW
@given(filters=st.one_of(JUNK, st.lists(st.text(), max_size=2)))
def test_lists_with_a_filters_argument_that_is_not_a_mapping(client, filters):
    result = check(lambda: client.private.deals(filters, limit=5), {"filters"})
    assert isinstance(result, (pd.DataFrame, ValidationError))
    if isinstance(result, pd.DataFrame):
        assert filters is None or filters == {}  # only "no filters" may succeed


# ---------------------------------------------------------------------------- profiles, subs


@EXAMPLES
@given(data=st.data())
def test_profiles(client, known, data):
    method, pool = data.draw(
        st.sampled_from(
            [("company", "company_ids"), ("investor", "investor_ids"), ("deal", "deal_ids")]
        )
    )
    ids = data.draw(_ids(known[pool]))
    fields = data.draw(
        mostly(
            st.one_of(
                st.none(),
                st.lists(
                    st.sampled_from(["id", "name", "deal_date", "updated_at"]),
                    min_size=1,
                    max_size=3,
                ),
            ),
            st.one_of(
                st.lists(st.sampled_from(["stats", "nope", "", "name,id"]), max_size=2), TEXT, JUNK
            ),
        )
    )
    include_deleted = data.draw(mostly(st.booleans(), JUNK))
    result = check(
        lambda: getattr(client.private, method)(
            ids, fields=fields, include_deleted=include_deleted
        ),
        {"id", "ids", "fields", "include_deleted"},
    )
    if isinstance(result, pd.DataFrame) and "id" in result:
        assert result["id"].is_unique


@EXAMPLES
@given(data=st.data())
def test_investor_top(client, known, data):
    ids = data.draw(_ids(known["investor_ids"]))
    what = data.draw(mostly(st.sampled_from(["countries", "verticals"]), st.one_of(TEXT, JUNK)))
    check(lambda: client.private.investor_top(ids, what), {"id", "ids", "what"})


SUBS = {
    "fundings": "company_ids",
    "sellside": "company_ids",
    "buyside": "company_ids",
    "company_investors": "company_ids",
    "investments": "investor_ids",
    "co_investors": "investor_ids",
    "portfolio": "investor_ids",
}


@EXAMPLES
@given(data=st.data())
def test_sub_collections(client, known, data):
    name = data.draw(st.sampled_from(sorted(SUBS)))
    ids = data.draw(_ids(known[SUBS[name]]))
    limit = data.draw(LIMITS)
    result = check(lambda: getattr(client.private, name)(ids, limit=limit), {"id", "ids", "limit"})
    if isinstance(result, pd.DataFrame) and isinstance(limit, int) and limit > 0:
        parent = result.columns[0]
        assert (result.groupby(parent).size() <= limit).all()


# ---------------------------------------------------------------------------- resolve, aggregate


@EXAMPLES
@given(data=st.data())
def test_resolve(client, known, data):
    entity = data.draw(st.sampled_from(["companies", "investors"]))
    pool = known["names"] if entity == "companies" else known["investor_names"]
    names = data.draw(
        mostly(
            st.lists(st.one_of(st.sampled_from(pool), TEXT), min_size=1, max_size=6),
            st.one_of(st.lists(st.one_of(TEXT, JUNK), max_size=3), TEXT, JUNK),
        )
    )
    on_ambiguous = data.draw(
        mostly(st.sampled_from(["none", "best", "raise"]), st.one_of(TEXT, JUNK))
    )
    method = getattr(client.private, f"resolve_{entity}")
    result = check(lambda: method(names, on_ambiguous=on_ambiguous), {"names", "on_ambiguous"})
    if isinstance(result, tuple):
        matches = result.matches
        assert matches["query"].tolist() == list(names)
        assert set(matches["match_type"]) <= {"exact", "ambiguous", "no_match"}


def test_resolve_10000_names_is_batched_and_keeps_order(client, known):
    base = known["names"] + [n for n in NASTY_NAMES[:-1] if n.strip()]  # blanks are refused
    names = [
        f"{base[i % len(base)]}" if i % 3 else f"{base[i % len(base)]} #{i}" for i in range(10_000)
    ]
    matches, candidates = client.private.resolve_companies(names)
    assert matches["query"].tolist() == names
    distinct = len(set(names))  # a repeated name is sent once
    assert 3000 < distinct < 4000 and matches.attrs["requests"] == -(-distinct // 1000)
    exact = matches["match_type"] == "exact"
    assert exact.sum() > 0 and matches.loc[exact, "id"].notna().all()
    assert set(candidates["query"]) <= set(names)


@EXAMPLES
@given(data=st.data())
def test_aggregate(client, known, data):
    metric = data.draw(mostly(st.sampled_from(AGGREGATE_METRICS), st.one_of(TEXT, JUNK)))
    bucket = data.draw(mostly(st.sampled_from(TIME_BUCKETS), st.one_of(TEXT, JUNK)))
    good_date = st.dates(min_value=dt.date(2015, 1, 1), max_value=dt.date(2027, 1, 1))
    kw = {}
    if data.draw(st.booleans()):
        kw["date_from"] = data.draw(mostly(good_date, DATES))
    if data.draw(st.booleans()):
        kw["date_to"] = data.draw(mostly(good_date, DATES))
    if data.draw(st.booleans()):
        kw["deal_type"] = data.draw(
            st.one_of(st.lists(st.sampled_from(DEAL_TYPES), max_size=2), JUNK)
        )
    result = check(
        lambda: client.private.aggregate(metric, bucket, **kw), {"metric", "time_bucket", *kw}
    )
    if isinstance(result, pd.DataFrame) and len(result):
        n = result["n"].to_numpy(dtype=float)
        assert (n >= 0).all() and not any(math.isnan(v) for v in n)


@FEW
@given(
    entity=mostly(
        st.sampled_from(["companies", "investors", "transactions", "deals"]), st.one_of(TEXT, JUNK)
    )
)
def test_lookup_and_schema(client, entity):
    check(lambda: client.private.lookup(entity), {"entity"})
    check(lambda: client.private.schema(entity), {"entity"})


def test_uuid_forms_are_canonical(client, known):
    ident = known["company_ids"][0]
    forms = [ident, ident.upper(), uuid.UUID(ident).hex, "{" + ident + "}", "urn:uuid:" + ident]
    frames = [client.private.company(f) for f in forms]
    assert all(f["id"].tolist() == [ident] for f in frames)
