"""What the drift proxy does to the exchange itself (issue 12, cases 6 to 10): empty and non-JSON
200s and the HTTP cache, bodies that trickle past ``call_budget``, secrets after connection
failures, a gateway's HTML error page, malformed answers, and arguments no service could take.

Outcomes allowed, as everywhere in the drift tests: the undisturbed result, a
``MissingDataWarning`` naming what and where, or a typed dealframe error. Never a foreign
exception, never a hang (each test is bounded by ``signal.alarm``), never a message that pastes
a body, never a token or a ``requests``/``urllib3`` object reachable from an error.
"""

from __future__ import annotations

import http.client
import secrets
import socket
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests
import requests.auth
import requests.structures
import urllib3
import urllib3._collections
import urllib3.connectionpool
import urllib3.response

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    HTML_DEEP,
    HTML_FIRST_LINE,
    Action,
    Outcome,
    _replace,
    assert_same,
    cut_body,
    direct,
    drop_connection,
    edit,
    empty_200,
    fresh_rules,
    html,
    no_hang,
    outcome,
    proxy,
    set_field,
    trickle,
    via,
)

from dealframe import Client
from dealframe.errors import (
    ConfigurationError,
    DealframeError,
    IncompleteResultError,
    ServerError,
    ServiceContractError,
    TransportError,
    ValidationError,
)
from dealframe.notices import MissingDataWarning

HANG_LIMIT = 40
P = "/api/private/v1"
DEALS = f"^{P}/transactions$"
SEARCH = "^/api/v2/companies$"
CURRENT = "^/api/v2/companies/current$"
SMALL = {"deal_type": ["Secondary"]}  # a few hundred deals: one page
SECRET_PUBLIC = "drift-pub-" + secrets.token_hex(16)
SECRET_PRIVATE = "drift-priv-" + secrets.token_hex(16)


@pytest.fixture(scope="module")
def secret_client(sandbox: Any, proxy: Any) -> Iterator[Client]:
    """A client with tokens of its own; the proxy swaps them for the sandbox's."""
    proxy.auth_map.update(
        {SECRET_PUBLIC: sandbox.public_token, SECRET_PRIVATE: sandbox.private_key}
    )
    with Client(proxy.url, SECRET_PUBLIC, SECRET_PRIVATE, cache_enabled=False, **FAST) as client:
        yield client


def ok(o: Outcome) -> pd.DataFrame:
    assert o.error is None, f"raised {o.error!r}"
    assert isinstance(o.value, pd.DataFrame)
    return o.value


def typed(o: Outcome, *classes: type[BaseException]) -> BaseException:
    """The call raised a dealframe error (of one of ``classes`` when given), nothing foreign."""
    assert o.error is not None, "no error was raised"
    assert isinstance(o.error, DealframeError), f"foreign exception: {o.error!r}"
    if classes:
        assert isinstance(o.error, classes), repr(o.error)
    return o.error


# ------------------------------------------------------------------------------- case 6: the cache


@pytest.fixture
def cache_file(tmp_path: Path) -> Path:
    return tmp_path / "http-cache.sqlite"


def cached_client(sandbox: Any, proxy: Any, path: Path) -> Client:
    return Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=True,
        cache_path=path,
        **FAST,
    )


BAD_200 = {
    "empty": empty_200(),
    "html": html(200, size=3000),
    "no-data": edit(lambda doc: {"items": doc.get("data")}, "no-data"),
    "list": edit(lambda doc: doc.get("data"), "bare-list"),
}


@pytest.mark.parametrize("bad", BAD_200)
def test_one_bad_200_is_asked_again_and_never_cached(bad, sandbox, proxy, direct, cache_file):
    ref = direct.public.search()
    proxy.add(SEARCH, BAD_200[bad], times=1)
    with cached_client(sandbox, proxy, cache_file) as client:
        got = ok(outcome(lambda: client.public.search()))
        assert_same(got, ref)
        assert proxy.count(SEARCH) == 2  # the bad answer, then the good one
        again = ok(outcome(lambda: client.public.search()))
        assert_same(again, ref)
        assert again.attrs["from_cache"] is True and proxy.count(SEARCH) == 2
    with cached_client(sandbox, proxy, cache_file) as fresh:
        assert_same(ok(outcome(lambda: fresh.public.search())), ref)
    assert proxy.count(SEARCH) == 2


@pytest.mark.parametrize("bad", BAD_200)
def test_bad_200s_that_exhaust_the_retries_do_not_poison_the_cache(
    bad, sandbox, proxy, direct, cache_file
):
    ref = direct.public.search()
    proxy.add(SEARCH, BAD_200[bad], times=FAST["retries"] + 1)
    with cached_client(sandbox, proxy, cache_file) as client:
        error = typed(outcome(lambda: client.public.search()), ServiceContractError)
        assert not isinstance(error, ValidationError)
        got = ok(outcome(lambda: client.public.search()))  # the rule is spent: good data now
        assert_same(got, ref)
        assert got.attrs["from_cache"] is False
    with cached_client(sandbox, proxy, cache_file) as fresh:
        again = ok(outcome(lambda: fresh.public.search()))
        assert_same(again, ref)
    assert proxy.count(SEARCH) == FAST["retries"] + 2


def test_empty_200_on_a_private_list_does_not_poison_the_cache(sandbox, proxy, direct, cache_file):
    ref = direct.private.deals(**SMALL)
    proxy.add(DEALS, empty_200(), times=FAST["retries"] + 1)
    with cached_client(sandbox, proxy, cache_file) as client:
        typed(outcome(lambda: client.private.deals(**SMALL)), ServiceContractError)
        assert_same(ok(outcome(lambda: client.private.deals(**SMALL))), ref)
    with cached_client(sandbox, proxy, cache_file) as fresh:
        got = ok(outcome(lambda: fresh.private.deals(**SMALL)))
        assert_same(got, ref)
        assert got.attrs["from_cache"] is True


def test_contract_findings_are_not_served_again_from_the_cache_as_clean(
    sandbox, proxy, direct, cache_file
):
    """A page the client warned about, read again from the cache, is warned about again."""
    proxy.add(SEARCH, edit(lambda doc: {**doc, "data": doc["data"][:-2]}, "cut"), times=1)
    with cached_client(sandbox, proxy, cache_file) as client:
        first = outcome(lambda: client.public.search())
        second = outcome(lambda: client.public.search())
    ok(first), ok(second)
    assert first.warned(MissingDataWarning)
    assert second.value.attrs["from_cache"] is False or second.warned(MissingDataWarning)


# ----------------------------------------------------------------------------- case 7: call_budget


def _budget_client(sandbox: Any, proxy: Any, budget: float) -> Client:
    return Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=False,
        **{**FAST, "call_budget": budget},
    )


def _discovered(client: Client) -> None:
    """Read the deals' discovery document before the test's rules, within the client's short
    budget: on a loaded machine (other jobs on both CPUs) the sandbox's answer alone can take
    longer than it, which says nothing of the case under test, so it is asked again."""
    for attempt in range(5):
        try:
            client.private.schema("transactions")
            return
        except TransportError as exc:
            if exc.kind != "budget" or attempt == 4:
                raise


def _budget_error(error: BaseException | None) -> None:
    """The call ended with a typed error that says the budget ended it (kind ``budget``), not
    the read timeout or the end of the body: what stopped it, rather than when it stopped."""
    assert isinstance(error, (TransportError, IncompleteResultError)), repr(error)
    errors = error.errors if isinstance(error, IncompleteResultError) else [error]
    assert errors and all(isinstance(e, TransportError) for e in errors), errors
    assert all(e.kind == "budget" for e in errors), [(e.kind, str(e)) for e in errors]
    assert f"call_budget ({BUDGET:g} s) exhausted" in str(error), str(error)


#: The budget of these tests, and bodies four times as slow: no read ever times out (a piece
#: arrives every tenth of a second), only the budget can stop them.
BUDGET = 1.0


def test_call_budget_covers_a_body_that_trickles_in(sandbox, proxy):
    with _budget_client(sandbox, proxy, BUDGET) as client:
        _discovered(client)  # discovery read before the clock starts
        proxy.add(DEALS, trickle(4 * BUDGET))
        o = outcome(lambda: client.private.deals(**SMALL))
    _budget_error(o.error)
    assert isinstance(o.error, TransportError) and o.error.attempts == 1  # the one page
    assert "while the answer was arriving" in str(o.error)  # its body, not before it
    assert proxy.count(DEALS) == 1  # not sent again


def test_call_budget_covers_a_trickling_family_a_chunk(sandbox, proxy, direct):
    skus = direct.public.search().index.tolist()[:50]
    with _budget_client(sandbox, proxy, BUDGET) as client:
        proxy.add(CURRENT, trickle(4 * BUDGET))
        o = outcome(lambda: client.public.current(skus))
    _budget_error(o.error)
    assert isinstance(o.error, TransportError) and o.error.attempts == 1  # the one chunk
    assert "while the answer was arriving" in str(o.error)  # its body, not before it
    assert proxy.count(CURRENT) == 1  # not sent again


def test_call_budget_covers_many_pages_that_each_trickle(sandbox, proxy):
    with _budget_client(sandbox, proxy, BUDGET) as client:
        _discovered(client)
        # each page well within the budget; page 1, then the other four at once, are not
        proxy.add(DEALS, trickle(0.7 * BUDGET, pieces=8))
        o = outcome(lambda: client.private.deals())
    _budget_error(o.error)  # every page the budget ended says so
    pages = proxy.pages(DEALS)
    assert len(pages) == len(set(pages)) <= 5, pages  # each page asked once: not retried
    if isinstance(o.error, IncompleteResultError):
        assert o.error.received < o.error.expected


# --------------------------------------------------------------------------------- case 8: secrets


FOREIGN = (
    requests.Request,
    requests.PreparedRequest,
    requests.Response,
    requests.Session,
    requests.auth.AuthBase,
    requests.structures.CaseInsensitiveDict,
    urllib3.response.BaseHTTPResponse,
    urllib3._collections.HTTPHeaderDict,
    urllib3.connectionpool.ConnectionPool,
    urllib3.PoolManager,
    http.client.HTTPResponse,
    http.client.HTTPMessage,
    http.client.HTTPConnection,
    socket.socket,
)
_SKIP = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.TracebackType,
    types.FrameType,
    types.CodeType,
)


def leaks(root: BaseException, token: str) -> list[str]:
    """Where ``token`` or a requests/urllib3 object is reachable from ``root``.

    Follows ``__cause__``, ``__context__``, ``args``, ``__dict__``, slots, and every value
    reachable from them (lists, tuples, sets, dicts, frames' ``attrs`` and cells); not
    ``__traceback__``.
    """
    found: list[str] = []
    seen: set[int] = set()
    todo: list[tuple[Any, str]] = [(root, "error")]
    while todo:
        obj, where = todo.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (bool, int, float, complex)):
            continue
        seen.add(id(obj))
        if isinstance(obj, FOREIGN):
            found.append(f"{where}: a {type(obj).__module__}.{type(obj).__qualname__}")
            continue
        if isinstance(obj, (str, bytes, bytearray)):
            text = obj if isinstance(obj, str) else bytes(obj).decode("utf-8", "replace")
            if token in text:
                found.append(f"{where}: holds the token")
            continue
        if isinstance(obj, _SKIP):
            continue
        if isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
            if token in obj.to_csv():
                found.append(f"{where}: a cell holds the token")
            todo.append((dict(getattr(obj, "attrs", {})), f"{where}.attrs"))
            continue
        try:
            shown = repr(obj)
        except Exception:
            shown = ""
        if token in shown:
            found.append(f"{where}: its repr holds the token")
        if isinstance(obj, BaseException):
            todo += [
                (obj.__cause__, f"{where}.__cause__"),
                (obj.__context__, f"{where}.__context__"),
                (obj.args, f"{where}.args"),
                (str(obj), f"str({where})"),
            ]
        if isinstance(obj, dict):
            for key, value in obj.items():
                todo += [(key, f"{where} key"), (value, f"{where}[{key!r}]")]
            continue
        if isinstance(obj, (list, tuple, set, frozenset)):
            todo += [(item, f"{where}[{i}]") for i, item in enumerate(obj)]
            continue
        for name, value in vars(obj).items() if hasattr(obj, "__dict__") else ():
            todo.append((value, f"{where}.{name}"))
        for klass in type(obj).__mro__:
            for name in getattr(klass, "__slots__", ()):
                if isinstance(name, str) and hasattr(obj, name):
                    todo.append((getattr(obj, name), f"{where}.{name}"))
    return found


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("family", ["private", "public"])
def test_no_secret_reachable_after_connection_refused(family):
    url = f"http://127.0.0.1:{_closed_port()}"
    with Client(url, SECRET_PUBLIC, SECRET_PRIVATE, cache_enabled=False, **FAST) as client:
        run = (
            (lambda: client.private.deals(**SMALL))
            if family == "private"
            else (lambda: client.public.search())
        )
        error = typed(outcome(run), TransportError)
    token = SECRET_PRIVATE if family == "private" else SECRET_PUBLIC
    assert leaks(error, token) == []


@pytest.mark.parametrize(
    "rewrite",
    [drop_connection(), drop_connection(reset=True), cut_body(0.4), html(502), trickle(6.0)],
    ids=["dropped", "reset", "cut-short", "html-502", "trickle"],
)
def test_no_secret_reachable_after_a_failed_first_request(rewrite, proxy, secret_client):
    secret_client.private.schema("transactions")
    proxy.add(DEALS, rewrite)
    if "trickle" in rewrite.name:
        with Client(
            secret_client.settings.base_url,
            SECRET_PUBLIC,
            SECRET_PRIVATE,
            cache_enabled=False,
            **{**FAST, "call_budget": 1.0},
        ) as short:
            error = typed(outcome(lambda: short.private.deals(**SMALL)))
    else:
        error = typed(outcome(lambda: secret_client.private.deals(**SMALL)))
    assert leaks(error, SECRET_PRIVATE) == []


def test_no_secret_reachable_from_an_incomplete_result(proxy, secret_client):
    proxy.add(DEALS, drop_connection(), page=2)
    error = typed(
        outcome(lambda: secret_client.private.deals(deal_type=["M&A", "Venture"])),
        IncompleteResultError,
    )
    assert len(error.partial) > 0
    assert leaks(error, SECRET_PRIVATE) == []


def test_no_secret_reachable_from_a_family_a_chunk_failure(proxy, secret_client, direct):
    skus = direct.public.search().index.tolist()[:10]
    proxy.add(CURRENT, drop_connection())
    error = typed(outcome(lambda: secret_client.public.current(skus)))
    assert leaks(error, SECRET_PUBLIC) == []


def test_no_secret_reachable_after_a_refused_token(sandbox, proxy):
    wrong = "drift-wrong-" + secrets.token_hex(16)  # not mapped: the sandbox refuses it
    with Client(proxy.url, wrong, wrong, cache_enabled=False, **FAST) as client:
        error = typed(outcome(lambda: client.public.search()))
    assert leaks(error, wrong) == []


def _echo_page(token: str) -> Action:
    """A 200 sign-on page that echoes the request's Authorization header, past the point
    where a one-line summary is cut (a proxy or SSO page answering in the service's place)."""
    page = f"<html><body>{'x' * 70} session for Bearer {token}</body></html>".encode()
    return Action("echo-token", on_response=_replace(200, page, "text/html"))


@pytest.mark.parametrize("page", [1, 2])
def test_no_secret_reachable_from_a_200_page_that_echoes_the_token(page, proxy, secret_client):
    secret_client.private.schema("transactions")
    proxy.add(DEALS, _echo_page(SECRET_PRIVATE), page=page)
    kind = ServiceContractError if page == 1 else IncompleteResultError
    error = typed(outcome(lambda: secret_client.private.deals(deal_type=["M&A", "Venture"])), kind)
    assert "***" in str(error)  # the summary is there, redacted
    assert leaks(error, SECRET_PRIVATE) == []
    assert leaks(error, SECRET_PRIVATE[:16]) == []  # not even the start of it


def test_no_secret_reachable_from_a_family_a_200_page_that_echoes_the_token(proxy, secret_client):
    proxy.add(SEARCH, _echo_page(SECRET_PUBLIC))
    error = typed(outcome(lambda: secret_client.public.search()), ServiceContractError)
    assert leaks(error, SECRET_PUBLIC) == [] and leaks(error, SECRET_PUBLIC[:16]) == []


# ------------------------------------------------------------------------ case 10: readable errors


def test_gateway_html_502_is_summarised_not_pasted(proxy, via):
    via.private.schema("transactions")
    proxy.add(DEALS, html(502, size=20_000))
    error = typed(outcome(lambda: via.private.deals(**SMALL)), ServerError)
    text = str(error)
    assert error.status == 502
    assert len(text) < 400, f"{len(text)} characters: {text[:120]}..."
    assert "502" in text and "text/html" in text and HTML_FIRST_LINE in text
    assert HTML_DEEP not in text and "<p>" not in text
    assert len(getattr(error, "message", "")) < 400


def test_html_page_with_status_200_is_a_short_contract_error(proxy, via):
    via.private.schema("transactions")
    proxy.add(DEALS, html(200, size=20_000))
    error = typed(outcome(lambda: via.private.deals(**SMALL)), ServiceContractError)
    text = str(error)
    assert len(text) < 400 and "text/html" in text and HTML_DEEP not in text


def test_a_page_failing_with_html_502_gives_a_short_incomplete_message(proxy, via):
    via.private.schema("transactions")
    proxy.add(DEALS, html(502, size=20_000), page=2)
    error = typed(outcome(lambda: via.private.deals()), IncompleteResultError)
    assert len(str(error)) < 600 and HTML_DEEP not in str(error)


MALFORMED_DEALS = {
    "deal_date-text": set_field("deal_date", "yesterday", first=1),
    "deal_date-number": set_field("deal_date", 20240101, first=1),
    "valuation-text": set_field("deal_valuation", "big", first=1),
    "multiples-text": set_field("deal_multiples", "x", first=1),
    "target-list": set_field("target", [1, 2], first=1),
    "participants-text": set_field("lead_investors", "Sequoia", first=1),
    "participant-number": set_field("buyers", [7], first=1),
    "created_at-number": set_field("created_at", 12, first=1),
    "deleted-text": set_field("deleted", "no", first=1),
    "id-number": set_field("id", 123, first=1),
    "data-object": edit(lambda doc: {**doc, "data": {"rows": doc["data"]}}, "data-object"),
    "data-text": edit(lambda doc: {**doc, "data": "oops"}, "data-text"),
    "meta-list": edit(lambda doc: {**doc, "meta": [1, 2]}, "meta-list"),
}


@pytest.mark.parametrize("name", MALFORMED_DEALS)
def test_malformed_deal_answers_are_contract_errors_or_warned_never_validation(
    name, proxy, via, direct
):
    ref = direct.private.deals(**SMALL)
    proxy.add(DEALS, MALFORMED_DEALS[name])
    o = outcome(lambda: via.private.deals(**SMALL))
    if o.error is not None:
        typed(o)
        assert not isinstance(o.error, ValidationError), (
            f"the service's malformed answer was blamed on the caller: {o.error!r}"
        )
        return
    same = o.value.equals(ref)
    assert same or o.warned(MissingDataWarning), "a malformed answer changed the frame silently"


MALFORMED_COMPANIES = {
    "founded-text": set_field("founded", "abc", first=1),
    "verticals-text": set_field("verticals", "Fintech", first=1),
    "active-text": set_field("active", "yes", first=1),
    "ipoed-bad-date": set_field("ipoed", "2020-13-45", first=1),
}


@pytest.mark.parametrize("name", MALFORMED_COMPANIES)
def test_malformed_company_answers_are_contract_errors_or_warned(name, proxy, via, direct):
    ref = direct.private.companies(country=["GBR"])
    proxy.add(f"^{P}/companies$", MALFORMED_COMPANIES[name])
    o = outcome(lambda: via.private.companies(country=["GBR"]))
    if o.error is not None:
        typed(o)
        assert not isinstance(o.error, ValidationError), repr(o.error)
        return
    assert o.value.equals(ref) or o.warned(MissingDataWarning), "changed silently"


@pytest.mark.parametrize(
    "rewrite",
    [
        edit(lambda doc: {**doc, "data": [doc["data"]]}, "list"),
        edit(lambda doc: {**doc, "data": "x"}, "text"),
        set_field("employee_count", "many"),
    ],
    ids=["data-list", "data-text", "employee-count-text"],
)
def test_malformed_profile_is_a_contract_error_or_warned(rewrite, proxy, via, direct):
    ident = direct.private.companies(limit=1)["id"].iloc[0]
    ref = direct.private.company(ident)
    proxy.add(f"^{P}/companies/{ident}$", rewrite)
    o = outcome(lambda: via.private.company(ident))
    if o.error is not None:
        typed(o)
        assert not isinstance(o.error, ValidationError), repr(o.error)
        return
    assert o.value.equals(ref) or o.warned(MissingDataWarning), "changed silently"


def test_malformed_aggregate_bucket_is_a_contract_error_or_warned(proxy, via, direct):
    ref = direct.private.aggregate("ev_revenue", "year")
    proxy.add(f"^{P}/transactions/aggregate$", set_field("n", "many", first=1))
    o = outcome(lambda: via.private.aggregate("ev_revenue", "year"))
    if o.error is not None:
        typed(o)
        assert not isinstance(o.error, ValidationError), repr(o.error)
        return
    assert o.value.equals(ref) or o.warned(MissingDataWarning), "changed silently"


# ------------------------------------------------------------------------------- case 9: arguments


@pytest.mark.parametrize(
    "filters",
    [{"valuation_min": 2**64}, {"raised_max": -(2**70)}, {"founded_min": 10**30}],
    ids=["2**64", "-2**70", "10**30"],
)
def test_huge_filter_numbers_are_refused_before_any_request_or_answered(filters, proxy, via):
    entity = "companies" if "founded_min" in filters else "deals"
    via.private.schema(entity)
    o = outcome(lambda: getattr(via.private, entity)(**filters))
    if o.error is not None:
        error = typed(o, ValidationError)
        assert next(iter(filters)) in str(error)
        assert proxy.count(f"^{P}/(transactions|companies)$") == 0
    else:
        assert isinstance(o.value, pd.DataFrame)


@pytest.mark.parametrize("page", [2**64, 10**30])
def test_huge_page_number_is_a_typed_error(page, via):
    typed(outcome(lambda: via.private.page("transactions", page=page)))


def test_huge_sub_collection_limit_is_refused(via, direct):
    ident = direct.private.investors(limit=1)["id"].iloc[0]
    error = typed(outcome(lambda: via.private.investments(ident, limit=2**64)), ValidationError)
    assert "limit" in str(error)


@pytest.mark.parametrize("where", ["directory", "under-a-file", "nul"])
def test_unusable_cache_path_is_a_typed_error(where, tmp_path, sandbox, proxy):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    path = {
        "directory": tmp_path,
        "under-a-file": blocker / "cache.sqlite",
        "nul": tmp_path / "bad\x00name.sqlite",
    }[where]

    def run() -> Any:
        with Client(
            proxy.url,
            sandbox.public_token,
            sandbox.private_key,
            cache_enabled=True,
            cache_path=path,
            **FAST,
        ) as client:
            return client.public.search()

    o = outcome(run)
    typed(o, ConfigurationError, ValidationError)


def test_errors_carry_no_foreign_cause_after_retries(proxy, via):
    """``raise ... from exc`` keeps a cause, never a requests exception holding its request."""
    via.private.schema("transactions")
    proxy.add(DEALS, drop_connection())
    error = typed(outcome(lambda: via.private.deals(**SMALL)), TransportError)
    chain = [error.__cause__, error.__context__]
    assert not any(
        isinstance(c, requests.RequestException) and getattr(c, "request", None) for c in chain
    ), chain
