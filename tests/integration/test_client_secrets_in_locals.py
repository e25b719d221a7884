"""Issue 8 in tracebacks that record local variables (pytest ``-l``, Sentry's default,
``TracebackException(..., capture_locals=True)``): no token of a client is shown by a failing
call of it, however it fails; a client whose construction failed has a repr; a client cannot
be pickled, and says what to do instead.

Over HTTP: a client with tokens of its own talks to the session sandbox through the drift
proxy, which swaps them for the sandbox's (so a token found is the client's, never one the
test or the sandbox holds).
"""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import secrets
import socket
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import orjson
import pytest

import dealframe
from dealframe.client import Client
from dealframe.errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    DealframeError,
    IncompleteResultError,
    NotFoundError,
    ServerError,
    ServiceContractError,
    TransportError,
    ValidationError,
)

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures
    FAST,
    Action,
    Exchange,
    Proxy,
    api_error,
    drop_connection,
    fresh_rules,
    proxy,
)

#: The client's own tokens: module globals, so no frame of a test holds them as a local.
PUBLIC = "locals-pub-" + secrets.token_hex(12)
PRIVATE = "locals-priv-" + secrets.token_hex(12)
#: Tokens the proxy does not know: the service refuses them (401).
WRONG_PUBLIC = "locals-wrong-pub-" + secrets.token_hex(12)
WRONG_PRIVATE = "locals-wrong-priv-" + secrets.token_hex(12)
TOKENS = (PUBLIC, PRIVATE, WRONG_PUBLIC, WRONG_PRIVATE)
PACKAGE = str(Path(dealframe.__file__).parent)
UNKNOWN = "00000000-0000-0000-0000-000000000000"
DEALS = "^/api/private/v1/transactions$"
LOOKUP = "^/api/private/v1/lookup/transactions$"


@pytest.fixture(scope="module")
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    proxy.auth_map.update({PUBLIC: sandbox.public_token, PRIVATE: sandbox.private_key})
    with Client(proxy.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as made:
        yield made


def _frames(error: BaseException) -> Iterator[FrameType]:
    """Every frame of ``error``'s traceback and of the errors chained to it, and of the
    errors a frame of dealframe holds in a local (the transport's retry of a body that
    failed: a debugger's post-mortem walks to its frames too)."""
    seen: set[int] = set()
    todo: list[BaseException] = [error]
    while todo:
        chained: BaseException | None = todo.pop()
        while chained is not None and id(chained) not in seen:
            seen.add(id(chained))
            tb = chained.__traceback__
            while tb is not None:
                yield tb.tb_frame
                if tb.tb_frame.f_code.co_filename.startswith(PACKAGE):
                    held = tb.tb_frame.f_locals.values()
                    todo += [v for v in held if isinstance(v, BaseException)]
                tb = tb.tb_next
            chained = chained.__cause__ or chained.__context__


def _shown(value: Any, depth: int = 0) -> Iterator[str]:
    """What an error tracker shows of a local: its repr, and the items of a list, tuple, set
    or mapping one by one (as Sentry does, whatever their container's repr)."""
    yield repr(value)
    if depth >= 3 or isinstance(value, (str, bytes)):
        return
    if isinstance(value, Mapping):
        for key, item in list(value.items()):
            yield from _shown(key, depth + 1)
            yield from _shown(item, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _shown(item, depth + 1)


def _leaks(error: BaseException) -> list[str]:
    """Where a token shows: lines of the traceback formatted with its locals, and the locals
    of dealframe's frames that hold one (item by item)."""
    text = "".join(traceback.TracebackException.from_exception(error, capture_locals=True).format())
    found = [line.strip()[:200] for line in text.splitlines() if any(t in line for t in TOKENS)]
    for frame in _frames(error):
        if not frame.f_code.co_filename.startswith(PACKAGE):
            continue
        for name, value in frame.f_locals.items():
            if any(t in shown for shown in _shown(value) for t in TOKENS):
                found.append(f"{frame.f_code.co_qualname}: {name}")
    return found


def _env_leaks(error: BaseException) -> list[str]:
    """What :func:`_leaks` finds, and the frames holding the process environment."""
    found = _leaks(error)
    for frame in _frames(error):
        for name, value in frame.f_locals.items():
            if value is os.environ or (isinstance(value, Mapping) and _ENV_MARK in value):
                found.append(f"{frame.f_code.co_qualname}: {name} (the environment)")
    return found


#: A variable set in the environment of the construction tests, to find it in a frame.
_ENV_MARK = "DEALFRAME_LOCALS_TEST_MARK"


def _failure(call: Callable[[], Any]) -> DealframeError:
    try:
        call()
    except DealframeError as error:
        return error
    raise AssertionError("the call did not fail")


def _refusing_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_404_shows_no_token_in_the_locals(client: Client) -> None:
    error = _failure(lambda: client.private.company(UNKNOWN))
    assert isinstance(error, NotFoundError)
    assert _leaks(error) == []


def test_a_401_shows_no_token_in_the_locals(proxy: Proxy) -> None:
    with Client(proxy.url, WRONG_PUBLIC, WRONG_PRIVATE, cache_enabled=False, **FAST) as refused:
        error = _failure(lambda: refused.private.company(UNKNOWN))
    assert isinstance(error, AuthenticationError)
    assert _leaks(error) == []


def test_a_refused_connection_shows_no_token_in_the_locals() -> None:
    url = f"http://127.0.0.1:{_refusing_port()}"
    with Client(url, PUBLIC, PRIVATE, cache_enabled=False, **{**FAST, "retries": 1}) as gone:
        error = _failure(lambda: gone.public.search())
    assert isinstance(error, TransportError) and error.kind == "connection"
    assert _leaks(error) == []


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.public.search(countries=["gbr"]),  # refused before any request
        lambda c: c.private.deals(deal_type="Ventrue"),  # refused after the discovery document
    ],
    ids=["before-sending", "after-discovery"],
)
def test_a_refused_argument_shows_no_token_in_the_locals(
    client: Client, call: Callable[[Client], Any]
) -> None:
    error = _failure(lambda: call(client))
    assert isinstance(error, ValidationError)
    assert _leaks(error) == []


def test_a_page_failing_on_a_worker_shows_no_token_in_the_locals(
    client: Client,
    proxy: Proxy,
) -> None:
    # page 2 fails for good on a worker thread: the error crosses the thread with its frames
    proxy.add(DEALS, api_error(503, "SERVICE_UNAVAILABLE", "down"), page=2)
    error = _failure(lambda: client.private.deals(limit=2_000))
    assert proxy.count(DEALS) >= 2
    assert _leaks(error) == []


def test_a_client_whose_construction_failed_has_a_repr(sandbox: Any) -> None:
    error = _failure(lambda: Client(sandbox.url, "bad token", "k", cache_enabled=False))
    assert isinstance(error, ConfigurationError)
    # the repr of the half-built client in the constructor's frames must not hide the error
    text = "".join(traceback.TracebackException.from_exception(error, capture_locals=True).format())
    assert "<dealframe.Client (not set up: its construction failed)>" in text
    assert text.rstrip().splitlines()[-1].startswith("dealframe.errors.ConfigurationError:")


def test_a_client_cannot_be_pickled_and_says_what_to_do(client: Client) -> None:
    assert len(client.public.search()) > 0  # a client that has talked to the service
    for part in (client, client.public, client.private):
        with pytest.raises(ConfigurationError, match="create a Client in each process") as info:
            pickle.dumps(part)
        assert not any(t in str(info.value) for t in TOKENS)
        assert _leaks(info.value) == []
    with pytest.raises(ConfigurationError, match="cannot be pickled or copied"):
        copy.copy(client)
    assert len(client.public.search()) > 0  # and it still works


@pytest.mark.parametrize("how", ["refused", "dropped"])
def test_a_failing_doctor_shows_no_token_in_the_locals(proxy: Proxy, how: str) -> None:
    # the doctor held each family's token in a loop variable while its checks ran
    if how == "refused":
        url = f"http://127.0.0.1:{_refusing_port()}"
    else:  # the service is reached, then every connection is dropped unanswered
        url = proxy.url
        proxy.add("^/api/", drop_connection())
    with Client(url, PUBLIC, PRIVATE, cache_enabled=False, **{**FAST, "retries": 1}) as sick:
        error = _failure(lambda: dealframe.doctor(sick))
    assert isinstance(error, TransportError)
    assert _leaks(error) == []


@pytest.mark.parametrize(
    ("env", "given"),
    [
        ({}, {"read_timeout": -1}),
        ({"DEALFRAME_MAX_WORKERS": "abc"}, {}),
        ({"DEALFRAME_MAX_WORKERS": "0"}, {}),
        ({"DEALFRAME_PUBLIC_TOKEN": PUBLIC + "\u2013"}, {}),
        ({"DEALFRAME_PRIVATE_KEY": PRIVATE + " x"}, {}),
        ({}, {"cache_expiry": {"curent": 5}}),
        ({}, {"backoff_base": 10.0, "backoff_cap": 1.0}),
    ],
    ids=[
        "timeout",
        "workers",
        "workers-range",
        "non-ascii-token",
        "spaced-key",
        "expiry",
        "backoff",
    ],
)
def test_a_failing_construction_shows_no_env_token_nor_the_environment(
    sandbox: Any, monkeypatch: Any, env: dict[str, str], given: dict[str, Any]
) -> None:
    # the tokens come from the environment, as a deployment sets them: no frame of the
    # error may hold them, nor the environment (which holds every other secret of the process)
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", PUBLIC)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", PRIVATE)
    monkeypatch.setenv(_ENV_MARK, "1")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    error = _failure(lambda: Client(cache_enabled=False, **given))
    assert isinstance(error, ConfigurationError)
    assert _env_leaks(error) == []
    error = _failure(lambda: dealframe.Settings.from_env(**given))
    assert isinstance(error, ConfigurationError)
    assert _env_leaks(error) == []
    # the same environment, fixed, makes a client that talks to the sandbox
    for name in env:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    with Client(cache_enabled=False, **FAST) as fixed:
        assert len(fixed.public.search()) > 0


def test_a_part_can_be_shallow_copied_and_the_message_says_what_cannot(client: Client) -> None:
    shallow = copy.copy(client.public)  # shares the transport: harmless, and kept
    assert shallow._t is client.public._t and len(shallow.search()) > 0
    for part in (client.public, client.public_v1, client.private):
        with pytest.raises(ConfigurationError, match="pickled or deep-copied") as info:
            copy.deepcopy(part)
        assert "public_v1" in str(info.value)


def test_the_settings_can_be_pickled_and_make_a_client_elsewhere(client: Client) -> None:
    settings = client.settings
    for again in (
        pickle.loads(pickle.dumps(settings)),
        copy.deepcopy(settings),
        dealframe.Settings(**dataclasses.asdict(settings)),
    ):
        assert again == settings and again.public_token == PUBLIC  # the tokens travel
        assert dict(again.cache_expiry) == dict(settings.cache_expiry)
        assert PUBLIC not in repr(again)
        with Client(**dataclasses.asdict(again)) as made:
            assert len(made.private.deals(limit=3)) == 3


def test_the_transport_holds_its_tokens_where_no_repr_shows_them(client: Client) -> None:
    held = client.public._t._secrets
    assert PUBLIC in held and PRIVATE in held and len(held) == 2
    assert not any(t in repr(held) for t in TOKENS)
    assert not isinstance(held, (tuple, list))  # an error tracker shows their items one by one


# ------------------------------------------------------------ a token the service echoes back


def _redirect_holding_the_token(ex: Exchange) -> None:
    """A 307 whose ``Location`` carries the caller's token (nothing forwarded)."""
    ex.forward, ex.status, ex.content = False, 307, b""
    ex.headers = {"Location": f"http://127.0.0.1:9/next?token={PRIVATE}&public={PUBLIC}"}


def _error_holding_the_token(status: int) -> Callable[[Exchange], None]:
    def apply(ex: Exchange) -> None:
        ex.forward, ex.status = False, status
        ex.headers = {"Content-Type": "application/json"}
        message = f"bad token {PRIVATE} {PUBLIC}"
        ex.content = orjson.dumps({"error": {"code": "BAD_TOKEN", "message": message}})

    return apply


def _discovery_holding_the_token(data: Any) -> Callable[[Exchange], None]:
    def apply(ex: Exchange) -> None:
        if callable(data):
            ex.set_doc({"data": data(ex.doc()["data"])})
        else:
            ex.set_doc({"data": data})

    return apply


def _filter_holding_the_token(data: dict[str, Any]) -> dict[str, Any]:
    """A filter that is no ``{field, type, operators}`` object, with a member NAMED by the
    token (the transport blanks a token written as a value as the answer arrives: a member
    name is left to the readers, so this one reaches the discovery's check)."""
    data["filters"].append({"field": 5, PRIVATE: "x"})
    return data


def _no_document(content: Callable[[], bytes], page: int = 1) -> Callable[[Exchange], None]:
    """A 200 whose body is no ``{data, meta}`` document, holding the caller's token (to the
    request of ``page`` only: a later page is read on a worker thread, its body checked on
    the caller's)."""

    def apply(ex: Exchange) -> None:
        if (ex.page or 1) != page:
            return
        ex.forward, ex.status = False, 200
        ex.headers = {"Content-Type": "application/json"}
        ex.content = content()

    return apply


@pytest.mark.parametrize(
    ("path", "action", "call", "kind"),
    [
        (
            DEALS,
            Action("307", on_request=_redirect_holding_the_token),
            lambda c: c.private.deals(limit=3),
            ApiError,
        ),
        (
            "^/api/v2/companies$",
            Action("307", on_request=_redirect_holding_the_token),
            lambda c: c.public.search(),
            ApiError,
        ),
        (
            DEALS,
            Action("400", on_request=_error_holding_the_token(400)),
            lambda c: c.private.deals(limit=3),
            BadRequestError,
        ),
        (
            DEALS,
            Action("503", on_request=_error_holding_the_token(503)),
            lambda c: c.private.deals(limit=3),
            ServerError,
        ),
        (
            LOOKUP,
            Action("list", on_response=_discovery_holding_the_token({PRIVATE: [1]})),
            lambda c: c.private.deals(limit=3, refresh=True),
            ServiceContractError,
        ),
        (
            LOOKUP,
            Action("filter", on_response=_discovery_holding_the_token(_filter_holding_the_token)),
            lambda c: c.private.schema("transactions", refresh=True),
            ServiceContractError,
        ),
        (
            DEALS,
            Action("no-data", on_request=_no_document(lambda: orjson.dumps({"items": [PRIVATE]}))),
            lambda c: c.private.deals(limit=3),
            ServiceContractError,
        ),
        (
            DEALS,
            Action("list", on_request=_no_document(lambda: orjson.dumps([PRIVATE, PUBLIC]))),
            lambda c: c.private.deals(limit=3),
            ServiceContractError,
        ),
        (
            DEALS,
            Action(
                "cut",
                on_request=_no_document(lambda: b'{"data": [{"name": "%s"' % PRIVATE.encode()),
            ),
            lambda c: c.private.deals(limit=3),
            TransportError,
        ),
        (
            DEALS,
            Action("page-2", on_request=_no_document(lambda: orjson.dumps([PRIVATE]), page=2)),
            lambda c: c.private.deals(),
            IncompleteResultError,  # a page failed: the rows before it are kept
        ),
        (
            "^/api/v2/companies$",
            Action("no-data", on_request=_no_document(lambda: orjson.dumps({"x": PUBLIC}))),
            lambda c: c.public.search(countries=["GBR"]),
            ServiceContractError,
        ),
    ],
    ids=[
        "redirect",
        "redirect-public",
        "400-body",
        "503-body",
        "discovery-list",
        "discovery-filter",
        "200-no-data",
        "200-a-list",
        "200-cut-short",
        "200-page-2-on-a-worker",
        "200-public",
    ],
)
def test_a_token_the_service_echoes_is_in_no_local(
    client: Client, proxy: Proxy, path: str, action: Action, call: Any, kind: type
) -> None:
    """The service echoes the caller's token back (a redirect's ``Location``, an error body,
    a discovery answer that is no discovery document): the error said nothing of it, but
    ``Transport._attempt`` kept the answer in its locals ``headers`` and ``content``, and
    ``PrivateApi._discovery`` and ``FilterSchema.__init__`` the document (``doc``,
    ``document``)."""
    proxy.add(path, action)
    error = _failure(lambda: call(client))
    assert isinstance(error, kind), repr(error)
    assert proxy.count(path) >= 1
    assert _leaks(error) == []
