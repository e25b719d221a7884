"""Secrets, all together: after every kind of call the tokens are nowhere, and never on the wire
where they do not belong.

test_transport.py and test_client_cache.py check the transport's and the cache's own reprs, logs
and bytes. This file puts everything one research session leaves behind in one place and greps it
for both tokens (UTF-8, UTF-16 and base64 forms): the HTTP cache database with its WAL/SHM side
files, a mirror folder after a sync, every log record at DEBUG (urllib3 and requests-cache
included), the message, repr, attributes and cause chain of every error raised (404, 400, 401,
retries exhausted, an incomplete multi-page result, an exhausted call budget), and the repr of
every object and frame ``attrs``. On the wire, a request hook records the ``Authorization`` each
request really carried: the Family A token only to ``/api/v1``/``/api/v2``, the Family B key only
to ``/api/private/v1``. Redirects to another host are never followed (the other host is never
contacted), and an ``HTTP_PROXY`` from the environment never carries a token in clear text.
"""

from __future__ import annotations

import base64
import logging
import os
import pickle
import secrets
import socket
import stat
import sys
import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests

import dealframe
import dealframe.cli
import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import (
    ApiError,
    AuthenticationError,
    ConfigurationError,
    DealframeError,
    IncompleteResultError,
    TransportError,
)
from dealframe.sandbox.faults import FaultPlan

sys.path.insert(0, str(Path(__file__).parent))
from _asgi_server import serve
from _drift_proxy import Proxy, drop_rows, edit, meta_set, outcome

from dealframe.analytics.buckets import service_methodology
from dealframe.arguments import call_secrets
from dealframe.contract import Findings
from dealframe.frames.public import time_series_long

PUBLIC = "pubtok-" + secrets.token_hex(20)
PRIVATE = "privkey-" + secrets.token_hex(20)
WRONG = ("wrongpub-" + secrets.token_hex(12), "wrongpriv-" + secrets.token_hex(12))
TOKENS = (PUBLIC, PRIVATE, *WRONG)
FAST = {
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "retry_after_max": 0.1,
    "read_timeout": 5.0,
    "max_workers": 2,
    "progress": False,
}


def _forms(token: str) -> list[bytes]:
    """Ways a token could be stored: plain, UTF-16, base64 (alone or in a Bearer header)."""
    return [
        token.encode(),
        token.encode("utf-16-le"),
        base64.b64encode(token.encode()),
        base64.b64encode(f"Bearer {token}".encode()),
    ]


def _blobs(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots for p in root.rglob("*") if p.is_file()}


def _chain(exc: BaseException) -> list[BaseException]:
    out, seen = [], set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        todo += [x for x in (e.__cause__, e.__context__) if x is not None]
        todo += [x for x in (getattr(e, "errors", None) or []) if isinstance(x, BaseException)]
    return out


def _texts_of_error(exc: BaseException) -> list[str]:
    texts = []
    for e in _chain(exc):
        texts += [str(e), repr(e), repr(e.args), repr(getattr(e, "__dict__", {}))]
    return texts


class Wire:
    """Records (path, Authorization) of every request a client really sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def hook(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        if getattr(response, "from_cache", False):
            return  # served from the cache: nothing went on the wire (its headers are redacted)
        request = response.request
        with self._lock:
            self.sent.append(
                (
                    requests.utils.urlparse(request.url).path,
                    request.headers.get("Authorization", ""),
                )
            )


@pytest.fixture(scope="module")
def plan() -> FaultPlan:
    return FaultPlan(seed=3, retry_after=0.05)


@pytest.fixture(scope="module")
def sb(plan: FaultPlan) -> Iterator[Any]:
    with dealframe.sandbox.run(
        scale=0.05, seed=7, public_token=PUBLIC, private_key=PRIVATE, faults=plan
    ) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def session(sb: Any, plan: FaultPlan, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One research session: every kind of call, errors included, a mirror sync, DEBUG logs."""
    root = tmp_path_factory.mktemp("secrets")
    cache_dir, mirror_dir = root / "cache", root / "mirror"
    handler = _ListHandler()
    logger = logging.getLogger()
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    wire = Wire()
    texts: list[str] = []
    errors: list[BaseException] = []

    def expect_error(call: Any) -> None:
        try:
            call()
        except DealframeError as exc:
            errors.append(exc)
        else:  # pragma: no cover - each call below is built to fail
            raise AssertionError("expected a dealframe error")

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            client = Client.for_sandbox(
                sb, cache_enabled=True, cache_path=cache_dir / "h.sqlite", **FAST
            )
            client._transport._session.hooks["response"].append(wire.hook)
            frames = _calls(client)
            for _ in range(2):  # the second round reads the cache
                frames += _calls(client)
            report = mirror.sync(client, mirror_dir, progress=False)
            frames += [mirror.load(mirror_dir, "deals"), mirror.status(mirror_dir)]
            texts += [repr(report), repr(frames[-1])]
            deal_id = frames[0]["id"].iloc[0] if "id" in frames[0] else None
            expect_error(lambda: client.private.company("00000000-0000-4000-8000-000000000000"))
            # The client refuses an unknown profile field itself; a 400 from the service needs
            # the request sent as is, through the transport.
            expect_error(
                lambda: client._transport.request(
                    "private",
                    "GET",
                    f"/api/private/v1/transactions/{deal_id}",
                    params={"fields": "no_such_field"},
                    kind="profile",
                )
            )
            plan.script(r"/fundings$", ["503"] * 6)
            ids = client.private.companies(limit=3)["id"].tolist()
            expect_error(lambda: client.private.fundings(ids, cache=False))
            plan.script(r"/lookup/investors$", ["drop", "drop"])
            expect_error(lambda: client.private.lookup("investors", refresh=True))
            plan.reset()
            with Client.for_sandbox(sb, call_budget=0.3, **FAST) as slow:
                plan.rate, plan.kinds, plan.slow_seconds = 1.0, ("slow",), 0.4
                try:
                    expect_error(lambda: slow.private.deals(cache=False))
                finally:
                    plan.rate, plan.kinds = 0.0, ("429", "500", "502", "503")
                texts += [repr(slow), repr(slow.settings)]
            with Client(
                sb.url,
                WRONG[0],
                WRONG[1],
                cache_enabled=True,
                cache_path=cache_dir / "h.sqlite",
                **FAST,
            ) as bad:
                bad._transport._session.hooks["response"].append(wire.hook)
                expect_error(lambda: bad.public.search())
                expect_error(lambda: bad.private.deals(limit=5))
                texts += [repr(bad), str(bad.settings), repr(bad._transport), repr(bad.cache)]
            texts += [
                repr(client),
                repr(client.settings),
                str(client.settings),
                repr(client._transport),
                repr(client.stats),
                repr(client.cache),
                repr(client.public),
                repr(client.public_v1),
                repr(client.private),
            ]
            texts += [repr(f.attrs) for f in frames if hasattr(f, "attrs")]
            open_modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in cache_dir.iterdir()}
            client.close()
        texts += [str(w.message) for w in caught]
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    for exc in errors:
        texts += _texts_of_error(exc)
    return {
        "texts": texts,
        "logs": handler.messages,
        "errors": errors,
        "wire": wire.sent,
        "cache_dir": cache_dir,
        "mirror_dir": mirror_dir,
        "open_modes": open_modes,
    }


class _ListHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.name} {record.getMessage()} {record.args!r}"
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        with self._guard:
            self.messages.append(text)


def _calls(client: Client) -> list[Any]:
    skus = client.public.search().index[:120].tolist()
    investor = client.private.investors(limit=2)["id"].tolist()
    company = client.private.companies(limit=2)["id"].tolist()
    return [
        client.private.deals(limit=1500),
        client.public.current(skus),
        client.public_v1.search(regions=["Western Europe"]),
        client.public.time_series(skus[:5], fields=["evRevenueLtm"]),
        client.public.group_current(regions=["North America"]),
        client.public.group_time_series(regions=["North America"], date_from="2025-01"),
        client.private.company(company),
        client.private.investor(investor),
        client.private.fundings(company),
        client.private.portfolio(investor),
        client.private.resolve_companies(["Acme", "O'Brien %"]).matches,
        client.private.aggregate("ev_revenue", "year"),
        client.private.lookup("companies"),
    ]


# ---------------------------------------------------------------------------- nowhere at rest


def test_the_session_did_what_it_should(session):
    kinds = {type(e) for e in session["errors"]}
    assert {AuthenticationError, IncompleteResultError, TransportError} <= kinds | {
        type(c) for e in session["errors"] for c in _chain(e)
    }
    assert any(isinstance(e, ApiError) and e.status == 404 for e in session["errors"])
    assert any(isinstance(e, ApiError) and e.status == 400 for e in session["errors"])
    assert any("budget" in str(e) for e in session["errors"])
    logs = session["logs"]
    assert any(m.startswith("urllib3") for m in logs)  # DEBUG really was on, for every library
    assert any(m.startswith("requests_cache") for m in logs)
    assert any(m.startswith("dealframe.transport") and "status=200" in m for m in logs)
    assert (session["mirror_dir"] / "state.json").exists() or any(session["mirror_dir"].iterdir())


def test_tokens_are_in_no_file_log_error_or_repr(session):
    blobs = _blobs(session["cache_dir"], session["mirror_dir"])
    assert any(name.endswith("-wal") for name in blobs) or any(
        name.endswith(".sqlite") for name in blobs
    )
    assert any(name.endswith(".parquet") for name in blobs)
    for token in TOKENS:
        for form in _forms(token):
            leaked = [name for name, blob in blobs.items() if form in blob]
            assert not leaked, (token[:8], leaked)
        for where, texts in (("texts", session["texts"]), ("logs", session["logs"])):
            leaked = [t[:120] for t in texts if token in t]
            assert not leaked, (token[:8], where, leaked[:2])


def test_cache_database_and_its_side_files_are_owner_only(session):
    folder = session["cache_dir"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    while_open = session["open_modes"]  # SQLite removes -wal and -shm when it closes
    assert any(name.endswith("-wal") for name in while_open)
    assert all(mode == 0o600 for mode in while_open.values()), while_open
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_mirror_folder_and_state_are_owner_only(session):
    folder = session["mirror_dir"]
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    for path in folder.rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path.relative_to(folder)


# ---------------------------------------------------------------------------- on the wire


def test_every_request_carried_only_its_own_familys_token(session):
    sent = session["wire"]
    assert len(sent) > 50
    families = {
        "/api/private/v1/": (PRIVATE, WRONG[1]),
        "/api/v1/": (PUBLIC, WRONG[0]),
        "/api/v2/": (PUBLIC, WRONG[0]),
    }
    seen = set()
    for path, header in sent:
        prefix = next(p for p in families if path.startswith(p))
        assert header in {f"Bearer {t}" for t in families[prefix]}, (path, header[:14])
        seen.add(prefix)
    assert seen == set(families)
    assert any("/transactions" in p and "include_deleted" not in p for p, _ in sent)


@pytest.fixture(scope="module")
def _two_served() -> Iterator[tuple[Any, Any]]:
    with serve(PUBLIC, PRIVATE) as origin, serve(PUBLIC, PRIVATE) as other:
        yield origin, other


@pytest.fixture
def two_servers(_two_served: tuple[Any, Any]) -> tuple[Any, Any]:
    """Two echo servers with nothing canned and nothing counted yet."""
    for served in _two_served:
        with served.state.lock:
            served.state.responses.clear()
            served.state.hits.clear()
            served.state.auth_seen.clear()
    return _two_served


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_host_is_not_followed(two_servers, status):
    origin, other = two_servers
    target = f"http://localhost:{other.port}/api/v2/companies"
    origin.state.responses["/api/v2/companies"] = (status, b"", {"Location": target})
    origin.state.responses["/api/private/v1/lookup/companies"] = (
        status,
        b"",
        {"Location": f"https://evil.example/steal?k={PRIVATE[:6]}"},
    )
    with Client(origin.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
        with pytest.raises(ApiError) as public:
            client.public.search()
        with pytest.raises(ApiError) as private:
            client.private.lookup("companies")
    assert other.state.total() == 0  # the redirect target never heard of us
    assert origin.state.total() == 2  # and the origin was asked once each (no retry)
    for info in (public, private):
        assert info.value.status == status and info.value.code == "REDIRECT_NOT_FOLLOWED"
        for token in TOKENS:
            assert not [t for t in _texts_of_error(info.value) if token in t]


def test_a_token_echoed_in_a_redirect_location_is_blanked(two_servers):
    origin, other = two_servers
    location = f"http://u:{PUBLIC}@localhost:{other.port}/cb/{PUBLIC}?access_token={PUBLIC}"
    origin.state.responses["/api/v2/companies"] = (302, b"", {"Location": location})
    with Client(origin.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
        with pytest.raises(ApiError) as info:
            client.public.search()
    assert other.state.total() == 0
    assert info.value.code == "REDIRECT_NOT_FOLLOWED"
    # where it pointed is told (host and path), but not the userinfo nor the echoed token
    assert f"redirected to localhost:{other.port}/cb/***;" in str(info.value)
    assert "u:" not in str(info.value) and "@" not in str(info.value)
    for token in TOKENS:
        assert not [t for t in _texts_of_error(info.value) if token in t]
        assert not any(form in pickle.dumps(info.value) for form in _forms(token))


def test_a_token_echoed_in_a_body_value_is_blanked_in_the_findings(two_servers):
    origin, _ = two_servers
    echoed = {"data": [], "meta": {"count": PUBLIC, "returned": PRIVATE}}
    origin.state.responses["/api/v2/companies"] = (200, orjson.dumps(echoed), {})
    with Client(origin.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = client.public.search()
        with pytest.raises(dealframe.ServiceContractError) as strict:
            client.public.search(strict=True)
    said = [str(w.message) for w in caught]
    assert "POST /api/v2/companies: meta.count is '***', not a count: ignored" in said
    texts = [*said, repr(frame.attrs), *_texts_of_error(strict.value)]
    assert "meta.count is '***'" in str(strict.value)
    for token in TOKENS:
        assert not [t for t in texts if token in t]


# ---------------------------------------------------------------------------- one client's own


#: A token short enough to be a word of any count ("page 2", "2 rows"): the proxy before the
#: sandbox takes it for PUBLIC.
SHORT = "2"


@pytest.fixture(scope="module")
def _drift(sb: Any) -> Iterator[Proxy]:
    with Proxy(sb.url, auth_map={SHORT: PUBLIC}) as served:
        yield served


@pytest.fixture
def drift(_drift: Proxy) -> Iterator[Proxy]:
    """The drift proxy before the sandbox, with no rule."""
    _drift.reset()
    yield _drift
    _drift.reset()


def _said(o: Any) -> list[str]:
    return o.warned(dealframe.ServiceContractWarning)


def test_a_short_token_is_blanked_out_of_its_own_clients_findings_only(drift):
    """A token is blanked out of the findings of its own client's calls, not out of those of
    another client open at the same time (it used to be: a short token such as "2" turned
    ``page 2`` into ``page ***`` in every client of the process)."""
    drift.add(r"^/api/v2/companies$", meta_set(count=SHORT))
    drift.add(r"^/api/private/v1/transactions$", drop_rows(2), page=2)
    with (
        Client(drift.url, SHORT, PRIVATE, cache_enabled=False, **FAST) as short,
        Client(drift.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as other,
    ):
        mine = outcome(short.public.search)
        theirs = outcome(other.public.search)
        walked = outcome(lambda: other.private.deals())
    assert mine.error is None and theirs.error is None and walked.error is None
    # the short client's own token, echoed back, is blanked, however short
    assert any("meta.count says *** companies" in m for m in _said(mine)), _said(mine)
    assert not any("says 2 " in m for m in _said(mine))
    # the other client's words are its own
    assert any("meta.count says 2 companies" in m for m in _said(theirs)), _said(theirs)
    page = (
        "POST /api/private/v1/transactions page 2: meta.returned says 1000 rows, the page holds 998"
    )
    assert page in _said(walked), _said(walked)
    findings = walked.value.attrs["findings"]
    assert any(f["where"].endswith("page 2") for f in findings), findings


def test_a_frame_built_with_no_client_call_keeps_its_words(drift):
    """A frame built from items at hand is no client's call: nothing is blanked in what it
    says, whichever clients are open (and whatever their last call was)."""
    items = [
        {"sku": "A-USA", "data": {"marketCap": {"2024-02": 1.0, "2024-02-01": 2.0}}},
        {"sku": "A-USA", "data": {"marketCap": {"2024-02": 2.0}}},
    ]
    with Client(drift.url, SHORT, PRIVATE, cache_enabled=False, **FAST) as short:
        assert len(short.public.search()) > 0
        found = Findings("POST /api/v2/companies/time-series page 2")
        frame = time_series_long(items, found=found)
    assert len(frame) == 1
    assert [str(f) for f in found] == [
        "POST /api/v2/companies/time-series page 2: 2 month(s) came more than once with "
        "different content: kept the first"
    ]


def test_a_token_echoed_to_a_worker_thread_is_blanked_and_the_worker_keeps_none(drift):
    """The ids of one call are read on worker threads: their findings blank the client's
    tokens too, and once the call returns no worker (nor the caller) holds them."""
    drift.add(r"/fundings$", meta_set(total=PUBLIC, returned=PRIVATE))
    with Client(drift.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
        ids = client.private.companies(limit=6)["id"].tolist()
        o = outcome(lambda: client.private.fundings(ids))
        executor = client._transport.pool.executor()
        together = threading.Barrier(FAST["max_workers"], timeout=10)

        def held() -> tuple[str, tuple[str, ...]]:
            together.wait()  # one task on each worker
            return threading.current_thread().name, call_secrets()

        workers = [executor.submit(held) for _ in range(FAST["max_workers"])]
        seen = dict(w.result(timeout=10) for w in workers)
    assert o.error is None, repr(o.error)
    said = _said(o)
    assert any("meta.total is '***', not a count" in m for m in said), said
    texts = [*said, repr(o.value.attrs)]
    for token in TOKENS:
        assert not [t for t in texts if token in t]
    assert len(seen) == FAST["max_workers"] and set(seen.values()) == {()}, list(
        map(len, seen.values())
    )
    assert call_secrets() == ()


def _threshold_nowhere(doc: Any) -> Any:
    doc["meta"]["methodology"].pop("small_n_threshold", None)
    return doc


def _threshold_listed_as_token(doc: Any) -> Any:
    doc["data"]["aggregate"]["methodology"]["small_n_threshold"] = PUBLIC
    return doc


def test_a_token_echoed_in_the_discovery_threshold_is_blanked_in_the_warning(drift):
    """The analytics' own warning about the threshold they used quotes the discovery
    document's value: a token echoed there is blanked, as in a finding."""
    drift.add(r"^/api/private/v1/transactions/aggregate$", edit(_threshold_nowhere))
    drift.add(r"^/api/private/v1/lookup/transactions$", edit(_threshold_listed_as_token))
    with Client(drift.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
        o = outcome(lambda: service_methodology(client))
    assert o.error is None, repr(o.error)
    assert o.value[0] == 5
    said = _said(o)
    used = [m for m in said if "small_n_threshold 5 used" in m]
    assert len(used) == 1, said
    assert "aggregate.methodology.small_n_threshold is '***')" in used[0]
    for token in TOKENS:
        assert not [t for t in said if token in t]


def _region_values_as_text(doc: Any) -> Any:
    for entry in doc["data"]["filters"]:
        if entry["field"] == "region":
            entry["values"] = f"allowed: {PRIVATE}"
    return doc


def test_a_token_echoed_in_discovery_values_is_blanked_in_the_warning(drift):
    """A discovery document whose ``values`` are no array is warned of, quoting them: a token
    echoed there is blanked, as in a finding."""
    drift.add(r"^/api/private/v1/lookup/companies$", edit(_region_values_as_text))
    with Client(drift.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
        o = outcome(lambda: client.private.schema("companies"))
    assert o.error is None, repr(o.error)
    said = _said(o)
    assert any("the values of region are not arrays" in m and "***" in m for m in said), said
    for token in TOKENS:
        assert not [t for t in said if token in t]


# a typographic dash an editor put in place of '-', a Cyrillic look-alike of 'a', a Latin-1 'É'
@pytest.mark.parametrize(
    ("bad", "at", "code"),
    [
        (PUBLIC.replace("-", "\u2013", 1), PUBLIC.index("-") + 1, "U+2013 EN DASH"),
        ("\u0430" + PUBLIC[1:], 1, "U+0430 CYRILLIC SMALL LETTER A"),
        (PUBLIC + "\u00c9", len(PUBLIC) + 1, "U+00C9"),
    ],
    ids=["en-dash", "cyrillic", "latin-1"],
)
def test_a_token_a_header_cannot_carry_is_refused_before_anything_is_sent(
    two_servers, monkeypatch, capsys, tmp_path, bad, at, code
):
    origin, _ = two_servers
    with pytest.raises(ConfigurationError) as given:
        Client(origin.url, bad, PRIVATE, cache_enabled=False, **FAST)
    for var in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("DEALFRAME_BASE_URL", origin.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", PUBLIC)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", bad)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    with pytest.raises(ConfigurationError) as from_env:
        Client()
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert dealframe.cli.main(["pull", "deals", "-o", "x.csv", "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert origin.state.total() == 0  # refused here, not sent to the service
    assert given.value.field == "public_token" and from_env.value.field == "private_key"
    assert "DEALFRAME_PRIVATE_KEY" in str(from_env.value)
    assert "Traceback" not in err and err.startswith("dealframe pull: error: private_key")
    for info in (given, from_env):
        assert f"character {at} of {len(bad)} is {code}" in str(info.value)
        assert "fingerprint" in str(info.value)
        texts = [*_texts_of_error(info.value), out, err]
        for secret in (bad, PUBLIC, PRIVATE, bad.encode("unicode_escape").decode()):
            assert not [t for t in texts if secret in t]
            assert secret.encode("utf-8") not in pickle.dumps(info.value)


class _Listener:
    """A TCP port that records whatever bytes reach it (a stand-in proxy)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(0.5)
                try:
                    self.received += conn.recv(65536)
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


def test_an_http_proxy_from_the_environment_never_sees_a_token(two_servers, monkeypatch):
    origin, _ = two_servers
    proxy = _Listener()
    try:
        for var in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
            monkeypatch.setenv(var, f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        with Client(origin.url, PUBLIC, PRIVATE, cache_enabled=False, **FAST) as client:
            # the echo origin answers {data: {...}}, not a list of companies: a finding, not rows
            with pytest.warns(dealframe.ServiceContractWarning) as seen:
                assert len(client.public.search()) == 0
            assert any("data is dict" in str(w.message) for w in seen)
            with pytest.raises(dealframe.ServiceContractError):  # an echo: no list of filters
                client.private.lookup("companies")
    finally:
        proxy.close()
    assert proxy.received == b""  # nothing, let alone "Authorization: Bearer ..."
    assert origin.state.total() == 2


@pytest.mark.parametrize(
    "url", ["http://data.example.com", "http://10.0.0.5:8080", "http://[2001:db8::1]/api"]
)
def test_plain_http_to_a_remote_host_is_refused_before_anything_is_sent(url, monkeypatch):
    with pytest.raises(ConfigurationError) as given:
        Client(url, PUBLIC, PRIVATE, cache_enabled=False)
    monkeypatch.setenv("DEALFRAME_BASE_URL", url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", PUBLIC)
    with pytest.raises(ConfigurationError) as from_env:
        Client(cache_enabled=False)
    for info in (given, from_env):
        assert info.value.field == "base_url"
        assert "allow_insecure_http" in str(info.value)
        assert PUBLIC not in str(info.value) and PRIVATE not in repr(info.value)
    assert os.environ.get("DEALFRAME_BASE_URL") == url


# ---------------------------------------------------------------------------- across processes


def test_every_error_pickles_as_itself_without_a_token(session):
    for error in session["errors"]:
        for exc in _chain(error):
            if not isinstance(exc, DealframeError):
                continue
            blob = pickle.dumps(exc)
            for token in TOKENS:
                assert not any(form in blob for form in _forms(token)), (token[:8], type(exc))
            again = pickle.loads(blob)
            assert type(again) is type(exc) and str(again) == str(exc)


def _search_with_a_wrong_token(url: str) -> int:
    with Client(url, WRONG[0], WRONG[1], cache_enabled=False, **FAST) as client:
        return len(client.public.search())


def test_a_401_in_a_worker_process_reaches_the_parent_as_authentication_error(sandbox):
    with ProcessPoolExecutor(1) as pool:
        with pytest.raises(AuthenticationError) as caught:
            pool.submit(_search_with_a_wrong_token, sandbox.url).result()
    assert caught.value.status == 401 and caught.value.code == "INVALID_TOKEN"
    assert caught.value.request is not None and caught.value.request.family == "public"
    assert not any(token in str(caught.value) for token in TOKENS)
