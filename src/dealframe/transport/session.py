"""The HTTP transport: one session, per-family authentication, retries, cache, statistics.

The only module of dealframe that performs client-side I/O. Everything above it works on
:class:`Response` objects (status, bytes, headers) and parsed JSON.

Rules it enforces:

- A family's token goes only to that family's paths: the Family A token to ``/api/v1`` and
  ``/api/v2``, the Family B key to ``/api/private/v1``. A mismatch is refused before sending.
- Redirects are never followed, so a token never follows one to another host.
- 429 and 500/502/503/504 are retried for every method; so are connection errors, timeouts and
  truncated or unreadable bodies, and a 401/403 that says it is a rate limit (a
  :class:`~dealframe.errors.RateLimitedError`: GitHub's 403 ``RATE_LIMITED``). ``Retry-After``
  is honoured (capped), or for a rate limit or a 503 without one, the reset that
  ``RateLimit-Reset`` / ``X-RateLimit-Reset`` states (:func:`~dealframe.errors.stated_wait`);
  otherwise exponential backoff with full jitter. A rate limit closes a gate shared by every
  worker (waited out, as is the client's own backoff), also when the request that met it is
  not retried (its retries or the call's budget spent): for the wait it stated, else a first
  retry's backoff. A call whose budget cannot outlast the closed gate fails at once, unsent,
  rather than sleep its budget there (also when the gate moves past it while the call
  waits); an answer in the HTTP cache is served at once, closed gate or not. One whose wait
  is longer than
  ``retry_after_max`` is not waited for but honoured: until it has passed (a day at most) the
  client sends nothing to that family (each family has its own credential, so its own rate
  limit), each such request failing at once with a ``RateLimitedError`` that says how long
  is left; once no more than ``retry_after_max`` is left, requests wait at the gate instead.
- Tokens never appear in logs, reprs, the cache file or error messages.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import sqlite3
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

import orjson
import requests
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict

from dealframe._tokens import Tokens
from dealframe._version import __version__
from dealframe.arguments import checked_methods
from dealframe.config import SETTING_MAXIMUMS, Settings, _is_loopback, default_cache_path
from dealframe.contract import EchoedAnswer, blank_echoed
from dealframe.errors import (
    _ANYWHERE,
    ApiError,
    AuthenticationError,
    ConfigurationError,
    RateLimitedError,
    RequestInfo,
    ServiceContractError,
    TransportError,
    ValidationError,
    _scrub,
    answer_said,
    error_from_response,
    summarize_body,
    with_answers,
)
from dealframe.notices import DealframeWarning, ServiceContractWarning, setting, user_stacklevel
from dealframe.transport import body as _body
from dealframe.transport import retry as _retry
from dealframe.transport.cache import (
    DO_NOT_CACHE,
    STORE_BY,
    CacheControl,
    build_cached_session,
    cache_file,
    canonical_json,
    expiry_for,
    requesting,
)
from dealframe.transport.deadline import BodyDeadlineExceeded, read_body
from dealframe.transport.failures import (
    budget_text,
    failure_text,
    refused,
    resolver_busy,
    unresolved,
)
from dealframe.transport.paging import WorkerPool, closed_error, on_worker
from dealframe.transport.ratelimit import RateGate, clock_text, utc_in
from dealframe.transport.stragglers import Latencies

__all__ = [
    "FAMILY_PREFIXES",
    "TOKEN_ENV_VARS",
    "Response",
    "Transport",
    "TransportStats",
    "not_picklable",
    "resume",
]

logger = logging.getLogger("dealframe.transport")

#: Path prefixes each interface family may be sent to.
FAMILY_PREFIXES: Mapping[str, tuple[str, ...]] = {
    "public": ("/api/v1/", "/api/v2/"),
    "private": ("/api/private/v1/",),
}
#: Environment variable that supplies each family's token.
TOKEN_ENV_VARS: Mapping[str, str] = {
    "public": "DEALFRAME_PUBLIC_TOKEN",
    "private": "DEALFRAME_PRIVATE_KEY",
}
_TOKEN_FIELDS = {"public": "public_token", "private": "private_key"}
#: The answer whose body is judged first by the next request of this context (:func:`resume`).
_RESUMED: ContextVar[Response | None] = ContextVar("dealframe_resumed", default=None)
_METHODS = ("GET", "POST")
_UNSET: Any = object()
#: What a call stopped by its time budget tells to do.
_NARROW = "raise call_budget or narrow the call"
_USER_AGENT = f"dealframe/{__version__} (+python-requests)"
#: Per-request proxies that override HTTP(S)_PROXY from the environment (None drops a key).
_NO_PROXIES: dict[str, Any] = {"http": None, "https": None, "all": None}
#: The longest hold (seconds): a wait the service asks past it (``Retry-After: 99999999999``,
#: a date in the year 9999) holds a family back this long, no longer. The largest
#: ``retry_after_max`` there is (a day): a longer wait is no wait a client makes.
HOLD_MAX = SETTING_MAXIMUMS["retry_after_max"]


@dataclass(eq=False)
class Response:
    """One HTTP response, fully read.

    Attributes
    ----------
    status : int
        HTTP status.
    content : bytes
        Body.
    headers : mapping
        Response headers (case-insensitive).
    from_cache : bool
        Served from the on-disk cache.
    elapsed : float
        Seconds the whole call took, retries and waits included.
    request : RequestInfo
        Method, path and family.
    attempts : int
        Times the request was sent (1 when it worked first time).
    read : object
        The body as the caller's schema'd reader read it
        (:func:`~dealframe.transport.body.expecting`), or None; :meth:`json` parses it anyway.
    cache_key : str or None
        The HTTP cache entry the answer was read from or may have been written to (None when
        the cache was not used): :meth:`Transport.forget` drops it.
    stored_at : datetime.datetime or None
        For an answer ``from_cache``, when the service's answer was stored in the HTTP cache
        (UTC; requests-cache's ``created_at`` of the cached response): when its data was
        fetched. None for an answer from the service.

    Examples
    --------
    >>> r = Response(200, b'{"data": []}', {}, False, 0.01, RequestInfo("GET", "/x", "public"), 1)
    >>> r.json()
    {'data': []}
    """

    status: int
    content: bytes = field(repr=False)
    headers: Mapping[str, str] = field(repr=False)
    from_cache: bool
    elapsed: float
    request: RequestInfo
    attempts: int
    _parsed: Any = field(default=_UNSET, repr=False)
    read: Any = field(default=None, repr=False)
    cache_key: str | None = field(default=None, repr=False)
    stored_at: dt.datetime | None = field(default=None, repr=False)
    # of ``attempts``: the straggler resends that used no retry, and the temporary resolver
    # failures; a request resumed from this answer (:func:`resume`) goes on from them
    _spent: tuple[int, int] = field(default=(0, 0), repr=False, compare=False)

    def json(self) -> Any:
        """The body parsed with orjson (parsed once, then reused).

        Raises
        ------
        TransportError
            The body is not valid JSON (kind ``invalid_json``).
        """
        if self._parsed is _UNSET:
            try:
                self._parsed = orjson.loads(self.content)
            except orjson.JSONDecodeError as exc:
                raise TransportError(
                    f"response body is not valid JSON ({len(self.content)} bytes)",
                    request=self.request,
                    attempts=self.attempts,
                    kind="invalid_json",
                ) from exc
        return self._parsed


def _stored_at(raw: Any) -> dt.datetime | None:
    """When a cached answer was stored (requests-cache's ``created_at`` of a
    ``CachedResponse``, UTC; a time written without a zone is read as UTC), or None when it
    says none.

    Examples
    --------
    >>> class Cached:
    ...     created_at = dt.datetime(2026, 1, 2, 3, 4, 5)
    >>> _stored_at(Cached()).isoformat(), _stored_at(object())
    ('2026-01-02T03:04:05+00:00', None)
    >>> Cached.created_at = dt.datetime(2026, 1, 2, 12, tzinfo=dt.timezone(dt.timedelta(hours=9)))
    >>> _stored_at(Cached()).isoformat()
    '2026-01-02T03:00:00+00:00'

    """
    created = getattr(raw, "created_at", None)
    if not isinstance(created, dt.datetime):
        return None
    return created.replace(tzinfo=dt.UTC) if created.tzinfo is None else created.astimezone(dt.UTC)


def resume(answer: Response) -> AbstractContextManager[None]:
    """The next request made within this block (this thread or task only) goes on from
    ``answer``: its own answer, whose body another thread left unread
    (:func:`~dealframe.transport.body.later`). That body is checked here first, as the
    request's last attempt, with the warning a body read as null gives; only if it fails as
    a sent body fails (cut short, not a ``{data, meta}`` document) is the request sent again,
    within what ``answer.attempts`` left of its ``retries`` (a straggler's free resend
    there still used none); with none left, its error is raised, as it
    would have been on the other thread. The request then counts no new call.
    """
    return setting(_RESUMED, answer)


@dataclass(frozen=True)
class _Hold:
    """What a hold says of the rate limit that made it (kept by the gate while it stands:
    the words, not the error, whose traceback would keep a call's frames alive)."""

    status: int
    code: str
    asked: float | None
    request: RequestInfo | None
    said_from: str | None
    limited_by: str | None


@dataclass(frozen=True)
class _Call:
    """One request, checked and built: what :meth:`Transport.request` sends or looks up."""

    info: RequestInfo
    url: str
    kwargs: dict[str, Any]
    use_cache: bool
    expire: float | None


@checked_methods
class TransportStats:
    """Thread-safe counters of what the transport did (``client.stats``: for tests and
    provenance); its methods take no arguments (a dealframe ``CallError`` if given one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Zero every counter."""
        with self._lock:
            self.calls = 0
            self.attempts = 0
            self.network = 0
            self.cache_hits = 0
            self.retries = 0
            self.failures = 0
            self.held_back = 0
            self.bytes_received = 0
            self.gate_wait_seconds = 0.0
            self.faults: Counter[str] = Counter()

    def _add(self, **amounts: float) -> None:
        with self._lock:
            for name, amount in amounts.items():
                setattr(self, name, getattr(self, name) + amount)

    def _fault(self, kind: str) -> None:
        with self._lock:
            self.faults[kind] += 1

    def snapshot(self) -> dict[str, Any]:
        """A consistent copy of the counters.

        Examples
        --------
        >>> TransportStats().snapshot()["retries"]
        0
        """
        with self._lock:
            return {
                "calls": self.calls,
                "attempts": self.attempts,
                "network": self.network,
                "cache_hits": self.cache_hits,
                "retries": self.retries,
                "failures": self.failures,
                "held_back": self.held_back,
                "bytes_received": self.bytes_received,
                "gate_wait_seconds": self.gate_wait_seconds,
                "faults": dict(self.faults),
            }

    def __repr__(self) -> str:
        return f"TransportStats({self.snapshot()})"


def not_picklable() -> ConfigurationError:
    """The error of pickling (or copying) a client, one of its APIs or its transport: it
    holds open connections, a worker pool and its tokens, which no other process can use.

    Examples
    --------
    >>> print(not_picklable())
    a dealframe.Client cannot be pickled or copied, nor its public, public_v1 or private \
parts pickled or deep-copied: it holds open connections, worker threads and its tokens; \
create a Client in each process instead, with the same settings (the same arguments, the \
DEALFRAME_* environment variables, or its pickled settings)
    """
    return ConfigurationError(
        "a dealframe.Client cannot be pickled or copied, nor its public, public_v1 or private "
        "parts pickled or deep-copied: it holds open connections, worker threads and its "
        "tokens; create a Client in each process instead, with the same settings (the same "
        "arguments, the DEALFRAME_* environment variables, or its pickled settings)"
    )


class _Bearer(requests.auth.AuthBase):
    """Sets ``Authorization: Bearer <token>``; its repr never shows the token."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self._token}"
        return request

    def __repr__(self) -> str:
        return "_Bearer(***)"


#: Retries of a call after a temporary resolver failure (``EAI_AGAIN``): each try costs the
#: resolver's own time-out (seconds), and a resolver that fails twice in a row is more
#: likely a network without DNS than a passing hiccup, so a call tries at most twice.
RESOLVER_RETRIES = 1

#: Retries of a call whose connection is refused while its client has had no HTTP answer
#: yet: nothing listening at the base URL's port is a wrong URL or a service not started far
#: more often than a restart, so such a call fails after one retry (about a second) with
#: what to check, not after ``retries`` with backoff (about 10 s). Once the service has
#: answered this client, a refused connection is a restart: the call's ``retries`` apply.
REFUSED_RETRIES = 1


class _Retry(Exception):
    """Internal: this attempt failed in a retryable way (``resolver``: the resolver failed
    for the time being, see :data:`RESOLVER_RETRIES`; ``refused``: the connection was
    refused, see :data:`REFUSED_RETRIES`)."""

    def __init__(
        self,
        error: Exception,
        kind: str,
        retry_after: float | None = None,
        *,
        resolver: bool = False,
        refused: bool = False,
    ) -> None:
        super().__init__(kind)
        self.error = error
        self.kind = kind
        self.retry_after = retry_after
        self.resolver = resolver
        self.refused = refused


class _StaleCache(Exception):
    """Internal: the HTTP cache answered with a stored body that fails its checks. The entry
    is deleted (and the discard warned of); the loop asks the service at once, outside the
    call's ``retries`` and without backoff, since the service has not failed."""


def _not_sent(sent: int) -> str:
    """How the error of a request the client did not send begins: ``not sent``, or ``not
    sent again`` when it was ``sent`` before (a 503, then a rate limit closed its gate): its
    status, 429, is that rate limit's, not its own earlier answers'.

    Examples
    --------
    >>> _not_sent(0), _not_sent(2)
    ('not sent', 'not sent again')
    """
    return "not sent again" if sent else "not sent"


def _classify(exc: requests.RequestException) -> tuple[str, bool]:
    """(fault kind, retryable) of a requests exception. A host name that does not resolve is
    not retried: it is a wrong base URL far more often than a passing DNS hiccup (a
    resolver's temporary failure is a ``connection`` failure, retried once:
    :data:`RESOLVER_RETRIES`). A body
    still arriving when the call's budget ran out is ``budget`` (the loop then gives up: no
    time is left for a retry)."""
    if isinstance(exc, BodyDeadlineExceeded):
        return "budget", True
    if isinstance(exc, requests.exceptions.ConnectionError) and unresolved(exc):
        return "dns", False
    if isinstance(exc, requests.exceptions.SSLError):
        return "ssl", False
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return "connect_timeout", True
    if isinstance(exc, requests.exceptions.Timeout):
        return "timeout", True
    if isinstance(
        exc, (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError)
    ):
        return "truncated", True
    if isinstance(exc, requests.exceptions.ConnectionError):
        return "connection", True
    return "request", False


def _stamp(read: list[float]) -> Callable[..., None]:
    """A response hook (after :func:`read_body`) noting when the answer was in, before
    requests-cache stores it."""

    def hook(response: requests.Response, *args: Any, **kwargs: Any) -> None:
        read.append(time.monotonic())

    return hook


def _close_pools(session: requests.Session) -> None:
    """Close every pooled connection now.

    urllib3 2.8's ``PoolManager.clear()`` only forgets its pools and leaves closing them to the
    garbage collector, so a response kept alive by a traceback pins its socket open.
    """
    for adapter in {id(a): a for a in session.adapters.values()}.values():
        managers = [getattr(adapter, "poolmanager", None)]
        managers += list(getattr(adapter, "proxy_manager", {}).values())
        for manager in managers:
            pools = getattr(manager, "pools", None)
            if pools is None:
                continue
            for key in list(pools.keys()):
                try:
                    pools[key].close()
                except KeyError:
                    continue


class Transport:
    """Sends requests for one client: auth per family, retries, shared 429 gate, cache.

    Parameters
    ----------
    settings : Settings
        Base URL, tokens, timeouts, retries and cache configuration.

    Attributes
    ----------
    stats : TransportStats
        Counters of calls, attempts, retries, cache hits and faults seen.
    cache : CacheControl
        ``info()`` and ``clear()`` for the on-disk cache.
    gate : RateGate
        The gate every worker waits at after a 429, before its next request of that
        family, and the holds of each family (a wait longer than ``retry_after_max``:
        :meth:`_hold`).
    skus_per_request : dict of str to int
        Family A SKUs per request by path (``/companies/current``), once the service refused
        more: learned by v1 or v2 calls, sent by both; updated under ``skus_lock``.
    skus_lock : threading.Lock
        Held while a call updates ``skus_per_request`` (it reads the size there, then
        writes the smaller): calls on other threads learning at once keep the smallest.
    settings_from : dict of str to str
        Where the base URL (``base_url``) and each family's token (``public``,
        ``private``) were set, as errors tell to check them; empty (the Python API's
        words: the variable and the ``Client`` argument) unless a command says its own
        (:func:`dealframe.clitools.service_client`: its option or the variable).

    Examples
    --------
    >>> t = Transport(Settings(base_url="http://127.0.0.1:9", cache_enabled=False))
    >>> t.request("public", "GET", "/api/private/v1/lookup/companies")
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: ...
    >>> t.close()
    """

    def __init__(self, settings: Settings) -> None:
        if not isinstance(settings, Settings):
            raise ConfigurationError("settings must be a dealframe Settings", field="settings")
        self.settings = settings
        self.stats = TransportStats()
        self.gate = RateGate()
        self.skus_per_request: dict[str, int] = {}
        self.skus_lock = threading.Lock()
        self.settings_from: dict[str, str] = {}
        self._latencies = Latencies()
        # blanked out of what this transport shows, and out of the findings of each call of
        # its client (dealframe.arguments.client_call: for the call's duration, kept nowhere)
        self._secrets = Tokens([settings.public_token, settings.private_key])
        # A loopback base URL is reached directly: an HTTP_PROXY from the environment would
        # otherwise carry the token in clear text to the proxy host (and a proxy cannot reach
        # this machine's loopback anyway).
        host = urlsplit(settings.base_url).hostname if settings.base_url else None
        self._direct = host is not None and _is_loopback(host)
        cache_path = cache_file(settings.cache_path or default_cache_path())
        if settings.cache_enabled:
            try:
                self._session: requests.Session = build_cached_session(cache_path)
            except (OSError, sqlite3.Error) as exc:
                why = getattr(exc, "strerror", None) or str(exc)
                raise ConfigurationError(
                    f"cannot open the HTTP cache at {cache_path}: {why}; set "
                    "cache_path= (DEALFRAME_CACHE_PATH) to a writable file, or "
                    "cache_enabled=False",
                    field="cache_path",
                ) from None
        else:
            self._session = requests.Session()
        # pool_block: more threads than pooled connections (several user threads sharing one
        # client, each fanning out on max_workers) wait for a free connection instead of
        # opening extra ones that urllib3 then discards ("Connection pool is full").
        # A body abandoned part-read closes its connection and hands it back
        # (transport.deadline), so a waiting thread always gets one.
        adapter = HTTPAdapter(
            pool_connections=2,
            pool_maxsize=max(settings.max_workers, 4),
            pool_block=True,
            max_retries=0,
        )
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)
        self._session.headers.update({"User-Agent": _USER_AGENT, "Accept": "application/json"})
        if self._direct:
            # loopback: no proxy, .netrc or CA bundle from the environment applies, so requests
            # need not read the environment on every request
            self._session.trust_env = False
        self.cache = CacheControl(self._session, cache_path, settings.cache_enabled)
        #: Worker threads reused by every concurrent call of this client (see WorkerPool).
        self.pool = WorkerPool(
            settings.max_workers, returned=self._after_cache, starting=self._starting
        )
        self._closed = False
        #: Whether the service has sent this transport an HTTP answer (any status): until it
        #: has, a refused connection is retried once only (:data:`REFUSED_RETRIES`).
        self._answered = False

    def __repr__(self) -> str:
        return (
            f"Transport(base_url={self.settings.base_url!r}, "
            f"cache={'on' if self.settings.cache_enabled else 'off'})"
        )

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise not_picklable()  # a dealframe error, not "cannot pickle 'mappingproxy' object"

    # -- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Close pooled connections and the cache database."""
        if not self._closed:
            self._closed = True
            self.pool.shutdown()
            _close_pools(self._session)
            self._session.close()

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- helpers --------------------------------------------------------------------------

    def deadline(self, budget: float | None = _UNSET) -> float | None:
        """Monotonic deadline for a whole call (``settings.call_budget`` when not given)."""
        seconds = self.settings.call_budget if budget is _UNSET else budget
        return None if seconds is None else time.monotonic() + seconds

    def _token(self, family: str) -> str:
        token = getattr(self.settings, _TOKEN_FIELDS[family])
        if not token:
            var = TOKEN_ENV_VARS[family]
            raise ConfigurationError(
                f"no {family} token configured: set {var} or pass "
                f"{_TOKEN_FIELDS[family]}= to the client",
                field=var,
            )
        return token

    def _check(self, family: str, method: str, path: str) -> RequestInfo:
        if family not in FAMILY_PREFIXES:
            raise ValidationError("family", "'public' or 'private'", got=family)
        method = method.upper() if isinstance(method, str) else method
        if method not in _METHODS:
            raise ValidationError("method", "GET or POST", got=method)
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValidationError("path", "a path starting with '/'", got=path)
        bad = (
            "?" in path
            or "#" in path
            or "\\" in path
            or "//" in path
            or any(ch.isspace() or not ch.isprintable() for ch in path)
            or any(seg in (".", "..") for seg in path.split("/"))
        )
        if bad:
            raise ValidationError(
                "path", "a plain path without query, '..' segments or spaces (use params=)"
            )
        if not path.startswith(FAMILY_PREFIXES[family]):
            allowed = " or ".join(p.rstrip("/") for p in FAMILY_PREFIXES[family])
            raise ConfigurationError(
                f"refusing to send the {family} token to {path}: it is only sent to {allowed}",
                field="family",
            )
        if not self.settings.base_url:
            raise ConfigurationError(
                "base_url is not set: pass base_url= or set DEALFRAME_BASE_URL", field="base_url"
            )
        return RequestInfo(method, path, family)

    @staticmethod
    def _params(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if params is None:
            return None
        out: dict[str, Any] = {}
        for key, value in sorted(params.items()):  # one URL per request: one cache entry
            if value is None:
                continue
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, (list, tuple)):
                value = ",".join(str(v) for v in value)
            out[key] = value
        return out

    # -- the call -------------------------------------------------------------------------

    def request(
        self,
        family: str,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        kind: str = "list",
        cache: bool = True,
        refresh: bool = False,
        deadline: float | None = _UNSET,
        retries: int | None = None,
    ) -> Response:
        """Send one request with retries and return the successful response.

        Parameters
        ----------
        family : {"public", "private"}
            Interface family; picks the token and the paths it may go to.
        method : {"GET", "POST"}
            HTTP method.
        path : str
            Path below the base URL, without query string (``/api/v2/companies``).
        json : object, optional
            Body; serialised canonically (keys sorted at every level).
        params : mapping, optional
            Query parameters (booleans become ``true``/``false``, lists are comma-joined).
        kind : str
            Endpoint kind for cache expiry (``current``, ``time_series``, ``discovery``,
            ``list``, ``profile``, ``aggregate``, ``changefeed``; changefeed is never cached).
        cache : bool
            False bypasses the cache (no read, no write).
        refresh : bool
            True skips any cached entry, fetches anew and overwrites it.
        deadline : float, optional
            Monotonic time by which the whole call must end (retries included); defaults to
            now plus ``settings.call_budget``. Pass :meth:`deadline` once per multi-request
            call to share one budget.
        retries : int, optional
            Retries after the first attempt, for this request only; None for
            ``settings.retries``. ``0`` is one attempt: its failure (a refused connection, a
            timeout, a 5xx, a 429 whatever its ``Retry-After``) is raised at once, with no
            backoff and no straggler resend, for a request whose answer nobody waits for (a
            hint; a read whose failure only names the user's typo). Like any last attempt, a
            429 then still closes its family's gate for the wait it states, else a first
            retry's backoff (every later request of that family waits it out, nothing here
            sleeps; a DEBUG log line of ``dealframe.transport`` names the wait), or, when
            it asks for longer than ``retry_after_max``, holds every request of its family
            back (:meth:`_hold`).

        Returns
        -------
        Response

        Raises
        ------
        ConfigurationError
            Missing token or base URL, or a path outside the family.
        ValidationError
            A ``family``, ``method``, ``path``, ``kind`` or ``retries`` that is not one.
        ApiError
            The typed subclass for the final error status.
        TransportError
            Connection failure, timeout or unreadable body after the retries.

        Examples
        --------
        >>> with Transport(Settings(base_url="http://127.0.0.1:9", cache_enabled=False)) as t:
        ...     t.request("private", "GET", "/api/v2/companies")
        Traceback (most recent call last):
        ...
        dealframe.errors.ConfigurationError: ...
        """
        call = self._prepare(family, method, path, json, params, kind, cache)
        if retries is None:
            retries = self.settings.retries
        elif isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValidationError("retries", "a count of retries (0 or more) or None", got=retries)
        resumed = _RESUMED.get()
        if resumed is not None:
            _RESUMED.set(None)  # for this request only (the block's end restores the rest)
            resumed = resumed if resumed.request == call.info else None
        if call.use_cache and not on_worker() and resumed is None:
            requesting()  # where this thread's call begins, for the checks' drop
        if deadline is _UNSET:
            deadline = self.deadline()
        if resumed is None:
            self.stats._add(calls=1)
        by = STORE_BY.set(deadline)  # a store waiting for the cache's lock stops then too
        try:
            return self._loop(
                call.info,
                call.url,
                call.kwargs,
                call.use_cache,
                call.expire,
                refresh,
                deadline,
                retries,
                resumed,
            )
        finally:
            STORE_BY.reset(by)

    def forget(self, response: Response) -> None:
        """Drop the HTTP cache entry of ``response`` (an answer its checks found wrong), so
        the next call asks the service again; nothing when it did not use the cache.

        Examples
        --------
        >>> with Transport(Settings(base_url="http://127.0.0.1:9", cache_enabled=False)) as t:
        ...     t.forget(Response(200, b"{}", {}, False, 0.0, RequestInfo("GET", "/x", "public"), 1))
        """
        self.cache._delete(response.cache_key)

    def cached(
        self,
        family: str,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        kind: str = "list",
    ) -> Response | None:
        """The HTTP cache's fresh, well-formed answer to this request, or None; never sends.

        Multi-request calls look here on their own thread first and hand only the misses to
        worker threads: a hit is a short burst of CPU, which threads under the GIL only slow
        down. Arguments are those of :meth:`request` (the same cache key). A stored answer
        that fails its checks is deleted, warned of (``DealframeWarning``) and read as a miss,
        so the request asks the service (:meth:`_stored_fault`).

        Examples
        --------
        >>> with Transport(Settings(base_url="http://127.0.0.1:9", public_token="t",
        ...                         cache_enabled=False)) as t:
        ...     t.cached("public", "POST", "/api/v2/current-data", json={"skus": ["A-USA"]})
        """
        if not self.settings.cache_enabled:
            return None
        call = self._prepare(family, method, path, json, params, kind, True)
        if not call.use_cache:
            return None
        if not on_worker():
            requesting()
        return self._lookup(call.info, call.url, call.kwargs, call.expire)

    def probe(
        self,
        family: str,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        token: str | None = _UNSET,
        raw_body: bytes | None = None,
    ) -> Response:
        """Send one request once and return the answer whatever its status (diagnostics).

        No retry, no cache, no status check, no hold: ``dealframe doctor`` uses it to see
        how a service answers a request without a token (``token=None``), with a wrong one,
        or with a malformed body (``raw_body``). It is sent while a rate limit holds its
        family back (:meth:`_hold`: the doctor is run to see how the service answers now),
        and a 429 it gets holds nothing back. The family's rules still apply (paths,
        base URL, redirects not followed), and the token never leaves through it.

        Examples
        --------
        >>> with Transport(Settings(base_url="http://127.0.0.1:9", cache_enabled=False)) as t:
        ...     t.probe("public", "GET", "/api/private/v1/lookup/companies")
        Traceback (most recent call last):
        ...
        dealframe.errors.ConfigurationError: ...
        """
        info = self._check(family, method, path)
        # the token straight into its _Bearer: no local of this frame holds it in clear
        auth = None if token is None else _Bearer(self._token(family) if token is _UNSET else token)
        kwargs: dict[str, Any] = {
            "params": self._params(params),
            "allow_redirects": False,
            "timeout": (self.settings.connect_timeout, self.settings.read_timeout),
        }
        if auth is not None:
            kwargs["auth"] = auth
        if self._direct:
            kwargs["proxies"] = _NO_PROXIES
        if raw_body is not None or json is not None:
            kwargs["data"] = raw_body if raw_body is not None else canonical_json(json)
            kwargs["headers"] = {"Content-Type": "application/json"}
        if self.settings.cache_enabled:
            kwargs["expire_after"] = DO_NOT_CACHE
        started = time.monotonic()
        failure = None
        try:
            raw = self._session.request(
                info.method, f"{self.settings.base_url}{info.path}", **kwargs
            )
            content = raw.content or b""
            raw.close()
        except requests.RequestException as exc:
            kind, _ = _classify(exc)
            failure = TransportError(self._failure_text(kind, exc), request=info, kind=kind)
        if failure is not None:
            self.stats._add(calls=1, attempts=1, network=1)  # sent, and no HTTP answer
            raise failure
        self.stats._add(calls=1, attempts=1, network=1, bytes_received=len(content))
        return Response(
            raw.status_code,
            content,
            CaseInsensitiveDict(raw.headers),
            False,
            time.monotonic() - started,
            info,
            1,
        )

    def _prepare(
        self,
        family: str,
        method: str,
        path: str,
        json: Any,
        params: Mapping[str, Any] | None,
        kind: str,
        cache: bool,
    ) -> _Call:
        if self._closed:
            raise closed_error()
        info = self._check(family, method, path)
        if kind not in self.settings.cache_expiry:
            raise ValidationError(
                "kind", f"one of {', '.join(self.settings.cache_expiry)}", got=kind
            )
        # the token goes straight into its _Bearer (whose repr hides it), never into a local
        # of this frame: a traceback recording locals would show it (a body JSON refuses)
        auth = _Bearer(self._token(family))
        expire = expiry_for(kind, self.settings.cache_expiry)
        use_cache = self.settings.cache_enabled and cache and expire is not None
        query = self._params(params)
        kwargs: dict[str, Any] = {"params": query, "auth": auth, "allow_redirects": False}
        if self._direct:
            kwargs["proxies"] = _NO_PROXIES
        body = canonical_json(json) if json is not None else None
        if body is not None:
            kwargs["data"] = body
            kwargs["headers"] = {"Content-Type": "application/json"}
        url = f"{self.settings.base_url}{info.path}"
        return _Call(info, url, kwargs, use_cache, expire)

    def _loop(
        self,
        info: RequestInfo,
        url: str,
        kwargs: dict[str, Any],
        use_cache: bool,
        expire: float | None,
        refresh: bool,
        deadline: float | None,
        retries: int,
        resumed: Response | None = None,
    ) -> Response:
        """Send the request until it succeeds, fails for good or its ``retries`` ran out;
        ``resumed``: its answer so far, whose body is judged first (:func:`resume`).

        A stored answer that fails its checks (:meth:`_stored_fault`) is not a failed attempt:
        the service has not answered yet. It is asked at once, bypassing the cache, with
        the call's attempts and retries untouched."""
        s = self.settings
        cut = s.cut_stragglers and retries > 0  # one attempt: no early cut to send again
        # a resumed answer's time so far counts: the call began on the other thread
        started = time.monotonic() - (resumed.elapsed if resumed is not None else 0.0)
        force = refresh
        attempt = 0
        spare = 0  # a straggler's second send: it does not use up a retry
        resolver_failures = 0  # temporary resolver failures (EAI_AGAIN) of this call
        refusals = 0  # connections refused in this call
        answers: list[str] = []  # what each attempt got (answer_said), for the final error
        while True:
            answer, resumed = resumed, None
            if answer is not None:  # its attempts were made elsewhere: its body, judged here
                attempt, (spare, resolver_failures) = answer.attempts, answer._spent
            else:
                if self._closed:  # closed from another thread: no attempt opens a connection
                    raise closed_error()
                attempt += 1
                stored = self._through_gate(
                    info,
                    url,
                    kwargs,
                    use_cache and not force,
                    expire,
                    deadline,
                    attempt - 1,
                    answers,
                )
                if stored is not None:
                    return stored  # held back, and answered from the cache: nothing is sent
                if deadline is not None and time.monotonic() >= deadline:
                    self.stats._add(failures=1)
                    when = "before the request could be sent"
                    if left := self.gate.remaining(info.family):  # a 429's wait not yet over
                        when += (
                            f", waiting out a rate limit ({info.family} requests of this "
                            f"client wait {left:.1f} s more)"
                        )
                    raise with_answers(
                        TransportError(
                            budget_text(self.settings.call_budget, when),
                            request=info,
                            attempts=attempt - 1,
                            kind="budget",
                            note=_NARROW,
                        ),
                        answers,
                    )
            try:
                if answer is not None:
                    return self._judge(answer, started)
                got = self._attempt(
                    info, url, kwargs, use_cache, expire, force, deadline, attempt, started, cut
                )
                # what a resumed request goes on from (its body may be judged elsewhere)
                return (
                    replace(got, _spent=(spare, resolver_failures))
                    if spare or resolver_failures
                    else got
                )
            except _StaleCache:
                # a stored body that failed its checks (deleted, warned): the service is asked
                # now, as if the cache had missed; not an attempt, no retry used, no backoff
                attempt -= 1
                force = True  # and never read the cache again in this call
                continue
            except _Retry as caught:
                failure = caught
                answer = None  # a resumed answer judged: not kept in the frame that raises
            # Out of the except block: the error raised below carries no __context__ (a
            # foreign exception there would hold the request and its Authorization header).
            self.stats._fault(failure.kind)
            answers.append(answer_said(failure.error))
            force = True  # never let a retry be answered by a cached entry
            delay = _retry.retry_delay(
                attempt,
                failure.retry_after,
                base=s.backoff_base,
                cap=s.backoff_cap,
                retry_after_max=s.retry_after_max,
            )
            if failure.kind == "straggler":
                spare = 1
            resolver_failures += failure.resolver
            note = self._give_up_note(
                attempt - spare, delay, deadline, failure.retry_after, retries
            )
            if note is None and resolver_failures > RESOLVER_RETRIES:
                note = (  # each try cost the resolver's own time-out: not one more
                    f"a temporary resolver failure on {resolver_failures} tries of this "
                    "call: not retried further"
                )
            refusals += failure.refused
            if note is None and refusals > REFUSED_RETRIES and not self._answered:
                note = (  # nothing listens there: a wrong URL or port, or no service yet
                    f"refused on {refusals} tries, and the service has not answered this "
                    "client yet: not retried further"
                )
            if note is not None:
                self.stats._add(failures=1)
                error = self._final(failure, note, answers)
                if isinstance(error, RateLimitedError):
                    if self._too_long(failure.retry_after):
                        self._hold(error, failure.retry_after, info.family)
                    else:  # given up, yet the wait stands: the family's next requests wait
                        self._close_given_up(info, failure.retry_after)
                raise error
            self.stats._add(retries=1)
            logger.debug(
                "retry %s %s after %s in %.3fs (attempt %d)",
                info.method,
                info.path,
                failure.kind,
                delay,
                attempt,
            )
            if isinstance(failure.error, RateLimitedError):  # a 429, or a 403 saying so
                # every worker waits before its next request of this family, this one
                # included; the other family (its own credential and limit) goes on
                self.gate.block_for(delay, key=info.family)
            else:
                _retry.sleep(delay)

    def _starting(self) -> None:
        """A multi-request call begins on the caller's thread: where its cache entries begin
        (:func:`~dealframe.transport.cache.requesting`), though every request of it runs on
        the workers."""
        if self.settings.cache_enabled and not on_worker():
            requesting()

    def _after_cache(self) -> None:
        """:meth:`CacheControl._after_request`, whose warning (answers not stored) waits on a
        worker thread for the caller's: the pool's ``returned`` calls this there."""
        self.cache._after_request(warn=not on_worker())

    def _give_up_note(
        self,
        attempt: int,
        delay: float,
        deadline: float | None,
        asked: float | None,
        retries: int,
    ) -> str | None:
        """None to retry; otherwise the reason to stop ("" when the ``retries`` ran out).

        A ``Retry-After`` (or a stated rate-limit reset, :func:`~dealframe.errors.stated_wait`)
        longer than ``retry_after_max`` stops at once: waiting less than
        the service asked would only meet the same answer, and waiting ``retries`` times as
        long in silence looks like a hung call (60 s x 5 retries by default)."""
        if asked is not None and asked > self.settings.retry_after_max:
            return f"not retried: more than retry_after_max ({self.settings.retry_after_max:g} s)"
        if attempt > retries:
            return ""
        if deadline is not None and time.monotonic() + delay > deadline:
            return f"call budget exhausted (next retry was due in {delay:.1f} s)"
        return None

    def _through_gate(
        self,
        info: RequestInfo,
        url: str,
        kwargs: dict[str, Any],
        cached: bool,
        expire: float | None,
        deadline: float | None,
        sent: int,
        answers: Sequence[str] = (),
    ) -> Response | None:
        """Wait at the gate (a 429's wait or the client's backoff, shared by every worker,
        however long) before a send; None once the request may go (or the ``deadline``
        came first: the caller says so).

        While the gate is closed (or the family held), an answer the HTTP cache holds is
        served at once when ``cached``: nothing is sent, so nothing waits. A hold of the
        request's family longer than ``retry_after_max`` (a wait the service asked that this
        client does not make: :meth:`_hold`), there before or made while waiting, is not
        waited for: the request is not sent, and fails with the error that says how long is
        left (:meth:`_held_back`; ``sent``: the times this request was sent before, ``answers``
        what those got). Once no
        more than ``retry_after_max`` of the hold is left, it is waited out at the gate,
        unless the call's ``deadline`` comes first: a wait the budget left cannot outlast is
        not made, and the request not sent (the
        :class:`~dealframe.errors.RateLimitedError` of :meth:`_gate_outlasts`), also when
        another request's 429 moves the gate past the deadline while this one waits there
        (:meth:`RateGate.wait` returns then, and the wait is judged again)."""
        longest = self.settings.retry_after_max
        family = info.family
        looked = not cached  # the cache is read once, and only when the gate holds it back
        while True:
            left, by = self.gate.held(family)
            closed = max(self.gate.remaining(family), left)
            if closed > 0 and not looked:
                looked = True
                stored = self._lookup(info, url, kwargs, expire, call=False)
                if stored is not None:
                    return stored
            if left > longest:
                self.stats._add(failures=1, held_back=1)
                raise self._held_back(info, left, by, sent, answers)
            if deadline is not None:  # a wait the budget cannot outlast: not slept, said
                if (
                    outlasted := self._gate_outlasts(info, closed, deadline, sent, answers)
                ) is not None:
                    self.stats._add(failures=1)
                    raise outlasted
            if closed <= 0:
                return None
            waited = self.gate.wait(deadline, key=family, longest=longest)
            if waited:
                self.stats._add(gate_wait_seconds=waited)
            # judged again: open (None), held longer, or past what the deadline leaves

    def _close_given_up(self, info: RequestInfo, asked: float | None) -> None:
        """Close the gate of ``info``'s family after a rate limit given up on (its retries or
        the call's budget spent), nothing slept here: for the wait the service stated
        (``asked``, within ``retry_after_max``), else (none stated, or 0) for the backoff of
        a first retry (up to ``backoff_base``). Not the backoff the last attempt would have
        waited: grown by every retry (up to ``backoff_cap``), it is the client's own, and
        stalled the next call for up to 30 s after a 429 that asked 1 s."""
        s = self.settings
        wait = asked if asked else _retry.backoff_delay(1, s.backoff_base, s.backoff_cap)
        self.gate.block_for(wait, key=info.family)
        logger.debug(  # a best-effort read's 429 too: the next call's wait is not unexplained
            "%s %s: rate limit given up on; %s requests of this client wait %.3fs at the gate",
            info.method,
            info.path,
            info.family,
            self.gate.remaining(info.family),  # a longer closure already there stands
        )

    def _gate_outlasts(
        self,
        info: RequestInfo,
        closed: float,
        deadline: float,
        sent: int,
        answers: Sequence[str] = (),
    ) -> RateLimitedError | None:
        """The error of a request that the gate of its family holds ``closed`` seconds more
        than the call's ``deadline`` leaves (the request is not sent), None when the wait fits.
        Waiting would only sleep the rest of the budget on the caller's thread, then fail;
        the error says at once how long is left (``.retry_after``), as a retry that would
        end past the deadline does. Its status and code (429, ``RATE_LIMITED``) are the rate
        limit's that closed the gate, whatever this request's own earlier answers were (a 503
        before a retry); ``.attempts`` is ``sent`` (0: the call sent nothing of it, and a
        call of many requests none of which went out raises it itself:
        :func:`~dealframe.transport.paging.map_concurrent`), ``.answers`` what those got
        (``answers``), and the message says ``not sent again`` after an attempt, and those
        answers (``gave up after 2 attempts (503, 503)``)."""
        left = deadline - time.monotonic()
        if closed <= max(left, 0.0):
            return None
        budget = self.settings.call_budget
        named = f"call_budget ({budget:g} s)" if budget is not None else "the call's time budget"
        error = RateLimitedError(
            429,
            "RATE_LIMITED",
            f"{_not_sent(sent)}: a rate limit closes this client's {info.family} requests for "
            f"{closed:.1f} s more, longer than the {max(left, 0.0):.1f} s left of {named}",
            request=info,
            attempts=sent,
            note=f"call again after {clock_text(utc_in(closed))}"
            + (", or raise call_budget" if budget is not None else ""),
        )
        with_answers(error, answers)  # before .retry_after: the message does not say it
        error.retry_after = math.ceil(closed * 10) / 10  # what is left of the wait
        return error

    def _too_long(self, asked: float | None) -> bool:
        """Whether the service asked for a longer wait than this client makes."""
        return asked is not None and asked > self.settings.retry_after_max

    def _hold(self, error: RateLimitedError, asked: float | None, family: str) -> None:
        """A rate limit whose wait is longer than ``retry_after_max``: it is not waited for,
        but honoured. ``family`` (each has its own credential, so its own rate limit) is held
        back for the whole wait the service stated, :data:`HOLD_MAX` at most: every request
        of that family of this client (the rest of this call, and later calls) fails at once
        without being sent while more than ``retry_after_max`` of it is left
        (:meth:`_held_back`); ``error`` says until when (``.held_until``). The other
        family's requests go on."""
        seconds = min(float(asked or 0.0), HOLD_MAX)
        error.held_until = utc_in(seconds)
        said = _Hold(
            error.status,
            error.code,
            error.retry_after,
            error.request,
            error.retry_after_from,
            error.limited_by,
        )
        self.gate.hold(family, seconds, by=said)
        note = f"this client sends no {family} request before {clock_text(error.held_until)}"
        if seconds < float(asked or 0.0):
            note += " (held back a day at most)"
        error.with_note(note)

    def _held_back(
        self, info: RequestInfo, left: float, by: Any, sent: int = 0, answers: Sequence[str] = ()
    ) -> RateLimitedError:
        """The error of a request not sent because the service asked this client to wait
        longer than ``retry_after_max`` and ``left`` seconds of that wait remain (``by``:
        what :meth:`_hold` said of it, kept by the gate; ``sent``: the times this request was
        sent before, ``answers`` what those got, said as :meth:`_gate_outlasts` says them)."""
        max_wait = self.settings.retry_after_max
        status, code, asked = 429, "RATE_LIMITED", None
        if isinstance(by, _Hold):
            status, code, asked = by.status, by.code, by.asked
        said = (
            f"the service asked this client to wait {asked:g} s"
            if asked
            else f"a rate limit holds this client's {info.family} requests back"
        )
        if isinstance(by, _Hold) and by.request is not None:
            said += f" (a {by.status} to {by.request}"
            said += f", {by.said_from})" if by.said_from else ")"
        until = utc_in(left)
        error = RateLimitedError(
            status,
            code,
            f"{_not_sent(sent)}: {said}, and {left:.1f} s of it are left, more than retry_after_max "
            f"({max_wait:g} s)",
            request=info,
            attempts=sent,
            note=f"call again after {clock_text(until)}, or raise retry_after_max",
            limited_by=by.limited_by if isinstance(by, _Hold) else None,
        )
        with_answers(error, answers)  # before .retry_after: the message does not say it
        error.retry_after = math.ceil(left * 10) / 10  # what is left of the wait, not the wait
        error.held_until = until
        return error

    def _lookup(
        self,
        info: RequestInfo,
        url: str,
        kwargs: dict[str, Any],
        expire: float | None,
        *,
        call: bool = True,
    ) -> Response | None:
        """The HTTP cache's fresh, well-formed answer to a built request, or None (a stored
        answer that fails its checks is deleted and warned of: :meth:`_stored_fault`);
        ``call``: counted as a call of its own (not within :meth:`request`, which counts it)."""
        started = time.monotonic()
        try:
            raw = self.cache._stored(
                info.method,
                url,
                kwargs.get("params"),
                kwargs.get("data"),
                kwargs.get("auth"),
                expire,
            )
        except sqlite3.Error:
            return None  # a busy or damaged file: the request itself goes to the cache and on
        if raw is None:
            return None
        content = raw.content or b""
        try:
            found = self._success(
                raw, info, content, CaseInsensitiveDict(raw.headers), True, 1, started
            )
        except _StaleCache:
            return None  # the stored body failed its checks and was deleted: the request refetches
        assert isinstance(found, Response)  # a stored body that fails is a _StaleCache
        self.stats._add(calls=int(call), attempts=1, bytes_received=len(content), cache_hits=1)
        self.cache._seen(found.cache_key)
        logger.debug("%s %s from_cache=True (looked up)", info.method, info.path)
        return found

    @staticmethod
    def _final(failure: _Retry, note: str, answers: Sequence[str]) -> Exception:
        """The error of a request given up on: its last failure's, with ``note`` (why it was
        not retried) and every answer the request got (``answers``, in order: the message
        lists them when one is not of this error's own status, ``gave up after 3 attempts
        (503, 503, 429)``; it used to name the last alone)."""
        error = failure.error
        if failure.kind == "budget":  # its message already says the budget ran out
            note = _NARROW
        if isinstance(error, (ApiError, TransportError)):
            if note:
                error.note = f"{error.note}; {note}" if error.note else note
            with_answers(error, answers)
        return error

    def _failure_text(self, kind: str, exc: BaseException) -> str:
        """The sentence of a request that got no HTTP answer (see :mod:`.failures`)."""
        s = self.settings
        if kind == "budget":
            waiting = isinstance(exc, BodyDeadlineExceeded)
            return budget_text(
                s.call_budget,
                "while the answer was arriving" if waiting else "while waiting for the answer",
            )
        return failure_text(
            kind,
            exc,
            base_url=s.base_url or "",
            connect_timeout=s.connect_timeout,
            read_timeout=s.read_timeout,
            base_url_from=self.settings_from.get("base_url"),
        )

    def _attempt(
        self,
        info: RequestInfo,
        url: str,
        kwargs: dict[str, Any],
        use_cache: bool,
        expire: float | None,
        force: bool,
        deadline: float | None,
        attempt: int,
        started: float,
        cut: bool,
    ) -> Response:
        """One send; with ``cut``, a first attempt far slower than the recent answers of its
        endpoint is cut short, to be sent again (a straggler)."""
        s = self.settings
        read_timeout = s.read_timeout
        endpoint = (info.method, info.path)
        early = None
        if attempt == 1 and cut:
            early = self._latencies.first_timeout(endpoint, read_timeout)
            read_timeout = read_timeout if early is None else early
        bounded = False  # whether the call's budget, not read_timeout, bounds this attempt
        if deadline is not None and deadline - time.monotonic() < read_timeout:
            read_timeout = max(0.001, deadline - time.monotonic())
            early = None  # the call's budget bounds this attempt, not the straggler rule
            bounded = True
        read: list[float] = []  # when the body was in: the store that follows is not latency
        call = dict(
            kwargs,
            timeout=(s.connect_timeout, read_timeout),
            # per-request hooks replace the session's: keep those after ours
            hooks={
                "response": [
                    read_body(deadline),
                    _stamp(read),
                    *self._session.hooks.get("response", []),
                ]
            },
        )
        if s.cache_enabled:
            if use_cache:
                call.update(expire_after=expire, force_refresh=force)
            else:
                call.update(expire_after=DO_NOT_CACHE)
        raw, failure = None, None
        sent = time.monotonic()
        try:
            raw = self._session.request(info.method, url, **call)
            content = raw.content or b""
            # headers and body (the read timeout bounds both), not the cache's store after
            took = (read[0] if read else time.monotonic()) - sent
        except requests.RequestException as exc:
            # Only text is kept: the requests exception holds the request (and its headers).
            kind, retryable = _classify(exc)
            if bounded and kind == "timeout":
                kind = "budget"  # the budget ran out waiting: read_timeout was not reached
            text = self._failure_text(kind, exc)
            if (
                early is not None
                and kind == "timeout"
                and not isinstance(exc, BodyDeadlineExceeded)
            ):
                kind = "straggler"  # sent again at once, with the full read timeout
                text = f"no answer in {early:.2f} s, far longer than recent answers of {info.path}"
            failure = (
                TransportError(text, request=info, attempts=attempt, kind=kind),
                kind,
                retryable,
                kind == "connection" and resolver_busy(exc),
                kind == "connection" and refused(exc),
            )
        finally:
            if raw is not None:
                raw.close()  # a response kept alive by a traceback would pin its socket open
        if failure is not None:
            # sent (or tried) and no HTTP answer: an attempt all the same, counted as the
            # answered ones are (a drop, a timeout, a cut body, a refused connection)
            self.stats._add(attempts=1, network=1)
            error, kind, retryable, busy, shut = failure
            logger.debug("%s %s -> %s attempt=%d", info.method, info.path, kind, attempt)
            if retryable:
                wait = 0.0 if kind == "straggler" else None
                raise _Retry(error, kind, wait, resolver=busy, refused=shut)
            raise error
        assert raw is not None
        if not getattr(raw, "from_cache", False):
            self._answered = True  # the service is there: a refused connection is a restart
        from_cache = bool(getattr(raw, "from_cache", False))
        headers = CaseInsensitiveDict(raw.headers)
        status = raw.status_code
        found = None  # judged before it counts: a bad stored body is no hit (_StaleCache)
        if from_cache and 200 <= status < 300:
            found = self._success(raw, info, content, headers, True, attempt, started)
        self.stats._add(
            attempts=1,
            bytes_received=len(content),
            **({"cache_hits": 1} if from_cache else {"network": 1}),
        )
        if use_cache:
            self._after_cache()
            if raw.status_code == 200:
                self.cache._seen(getattr(raw, "cache_key", None))
        logger.debug(
            "%s %s status=%d attempt=%d from_cache=%s",
            info.method,
            info.path,
            raw.status_code,
            attempt,
            from_cache,
        )
        got: Response | Exception
        if found is not None:
            got = found
        elif 200 <= status < 300:
            self._latencies.record(endpoint, took)
            got = self._success(raw, info, content, headers, False, attempt, started)
        else:
            got = self._refusal(info, status, content, headers, attempt)
        if isinstance(got, Response):
            return got
        # Raised from a frame that no longer holds the answer: a traceback that records
        # locals (pytest -l, Sentry) shows every local of this frame, and the service may
        # have echoed the token in a header (a redirect's Location) or in the body (an
        # error body, a 200 that is no document, one cut short).
        del raw, content, headers
        raise got

    def _refusal(
        self,
        info: RequestInfo,
        status: int,
        content: bytes,
        headers: CaseInsensitiveDict,
        attempt: int,
    ) -> Exception:
        """What an answer that is no success raises (returned, not raised, so that no frame
        of the error's traceback holds the answer): a redirect's :class:`ApiError`, the typed
        error of the status, or, for a status or rate limit that is retried, a ``_Retry``
        holding it."""
        if 300 <= status < 400:
            return self._redirect(info, status, headers)
        api_error = error_from_response(
            status, content, info, headers, attempts=attempt, secrets=self._secrets
        )
        if isinstance(api_error, AuthenticationError) and info.family in self.settings_from:
            api_error.said_from(self.settings_from[info.family])
        if _retry.is_retryable_status(status) or isinstance(api_error, RateLimitedError):
            # the wait the service asked: Retry-After, else a rate limit's stated reset
            return _Retry(api_error, str(status), api_error.retry_after)
        return api_error

    def _success(
        self,
        raw: requests.Response,
        info: RequestInfo,
        content: bytes,
        headers: CaseInsensitiveDict,
        from_cache: bool,
        attempt: int,
        started: float,
    ) -> Response | _Retry:
        """The answer of a 2xx, its body read and checked; the ``_Retry`` of a body that fails
        its checks (cut short, no ``{data, meta}`` document), returned for :meth:`_attempt`
        to raise from a frame that no longer holds the body."""
        declared = headers.get("Content-Length")
        if (
            declared is not None
            and not headers.get("Content-Encoding")
            and not from_cache
            and declared.isdigit()
            and int(declared) != len(content)
        ):
            self.cache._delete(getattr(raw, "cache_key", None))
            error: TransportError | ServiceContractError = TransportError(
                f"truncated body: {len(content)} bytes, Content-Length said {declared}",
                request=info,
                attempts=attempt,
                kind="truncated",
            )
            return _Retry(error, "truncated")
        doc, problem = _body.parse(content)
        if from_cache:
            self._stored_fault(raw, info, content, headers, doc, problem)
        elif (echoed := self._echo_blanked(content, doc, problem)) is not None:
            content, doc, problem = echoed  # read here, whatever the caller's reader or later()
        answer = Response(
            raw.status_code,
            content,
            headers,
            from_cache,
            0.0,
            info,
            attempt,
            cache_key=getattr(raw, "cache_key", None) or None,
            stored_at=_stored_at(raw) if from_cache else None,
        )
        return self._taken(answer, doc, problem, started)

    def _echo_blanked(
        self, content: bytes, doc: Any, problem: str | None
    ) -> tuple[bytes, EchoedAnswer, str | None] | None:
        """A success body whose texts hold a token of this client, with those texts blanked
        (:func:`~dealframe.contract.blank_echoed`): the body written again, its document and
        the problem of its reading (:func:`~dealframe.transport.body.document`); None for a
        body that holds none (the usual one) or is no document.

        A service that echoes the caller's token as a value (an item's ``name``) would put it
        in the frame and every file written of it. Such a body is never stored in the HTTP
        cache (:func:`~dealframe.transport.body.storable`), so a network answer is the only
        one that can hold it; its document is read here, not left to the caller's reader.

        The body is first searched for the tokens as bytes (:func:`~dealframe.transport.body
        .holds`: their JSON forms, in a body written with optional escapes too): only one
        that holds one is walked. ``doc`` and ``problem`` are :func:`~dealframe.transport.body
        .parse`'s: its document is blanked (one read with ``NaN`` tokens as null too); a body
        it left to a schema'd reader or to :func:`~dealframe.transport.body.later` is read."""
        tokens = [t for t in self._secrets if len(t) >= _ANYWHERE]  # as blank_echoed has it
        if not tokens or not _body.holds(content, tokens):
            return None
        if isinstance(doc, _body.Read):
            doc, problem = _body.document(content)
        if doc is None:  # no {data, meta} document: an error, its message blanked
            return None
        answer = blank_echoed(doc, tokens)
        if not isinstance(answer, EchoedAnswer):
            return None
        try:
            written = orjson.dumps(answer)
        except TypeError:  # an integer beyond 64 bits
            written = json.dumps(answer, ensure_ascii=False).encode("utf-8", "surrogatepass")
        return written, answer, problem

    def _judge(self, answer: Response, started: float) -> Response:
        """``answer``, whose body another thread left unread (:func:`resume`), checked here
        as :meth:`_success` checks a body; a body that fails is raised as its ``_Retry``
        from this frame, without the answer."""
        doc, problem = _body.parse(answer.content)
        got = self._taken(answer, doc, problem, started)
        if isinstance(got, Response):
            return got
        del answer, doc
        raise got

    def _taken(
        self, answer: Response, doc: Any, problem: str | None, started: float
    ) -> Response | _Retry:
        """``answer`` with its body's reading (:func:`~dealframe.transport.body.parse`)
        (a body read with ``NaN`` tokens as null warned of), or the ``_Retry`` of a body cut
        short or that is no ``{data, meta}`` document: returned, not raised, so that no frame
        of its traceback holds the body (a token the service echoed in it)."""
        info, content, attempt = answer.request, answer.content, answer.attempts
        if doc is not None and problem is not None:  # NaN/Infinity tokens, read as null
            warnings.warn(
                f"{info.method} {info.path}: the body holds {problem}",
                ServiceContractWarning,
                stacklevel=user_stacklevel(),
            )
            problem = None
        if problem is None:
            read = isinstance(doc, _body.Read)
            return replace(
                answer,
                elapsed=time.monotonic() - started,
                _parsed=_UNSET if read else doc,
                read=doc.doc if read else None,
            )
        error: TransportError | ServiceContractError
        if problem == _body.TRUNCATED:
            error = TransportError(
                f"truncated or invalid body: {problem} ({len(content)} bytes)",
                request=info,
                attempts=attempt,
                kind="truncated",
            )
            return _Retry(error, "truncated")
        error = ServiceContractError(
            answer.status,
            "the service's success answer is not a {data, meta} document: "
            f"{problem} ({self._shown(content, answer.headers)})",
            finding="invalid_body",
            request=info,
            attempts=attempt,
        )
        return _Retry(error, "invalid_body")

    def _stored_fault(
        self,
        raw: requests.Response,
        info: RequestInfo,
        content: bytes,
        headers: CaseInsensitiveDict,
        doc: Any,
        problem: str | None,
    ) -> None:
        """Nothing when a body read from the HTTP cache passes the checks a body must pass
        to be stored (:func:`~dealframe.transport.body.storable`); otherwise delete its
        entry, warn that it was discarded (``DealframeWarning``: the cache's fault, not the
        service's) and raise :class:`_StaleCache`, for the service to be asked.

        Such a body was never what the service sent to this client's checks: a file written
        by another release, edited, or damaged. It is never blamed on the service
        (``ServiceContractError`` is about what the service answered), and refetching it
        does not use up one of the call's ``retries`` (with ``retries=0`` the call used to
        fail without asking the service).

        A stored answer that holds one of the client's tokens (written by a release that
        stored such answers: :func:`~dealframe.transport.body.echoes`) is discarded the same
        way, the warning naming where the token was, never the token nor the body."""
        if problem is None:
            problem = _body.unsound(doc)
        shown = problem is not None
        if problem is None:
            where = _body.echoes(raw, self._secrets)
            problem = None if where is None else f"it holds the client's token in {where}"
        if problem is None:
            return
        self.cache._delete(getattr(raw, "cache_key", None))  # requests-cache's filter may have
        said = f" ({self._shown(content, headers)})" if shown else ""  # nor a token's escapes
        warnings.warn(
            f"{info.method} {info.path}: a stored answer in the HTTP cache "
            f"({self.cache.path}) fails its checks: {problem}{said}; "
            "it was discarded and the service asked instead",
            DealframeWarning,
            stacklevel=user_stacklevel(),
        )
        raise _StaleCache(problem)

    def _shown(self, content: bytes, headers: Mapping[str, str]) -> str:
        """One line about a body (:func:`~dealframe.errors.summarize_body`), tokens blanked
        out before it is cut to one line, so no part of a token echoed back shows."""
        scrubbed = _scrub(content.decode("utf-8", "replace"), self._secrets).encode()
        return summarize_body(scrubbed, headers.get("Content-Type"))

    def _redirect(self, info: RequestInfo, status: int, headers: Mapping[str, str]) -> ApiError:
        target = urlsplit(headers.get("Location", ""))
        host = target.netloc.rpartition("@")[2]  # user:password@ is a credential: never shown
        where = _scrub(f"{host}{target.path}", self._secrets)  # nor a token echoed in the path
        return ApiError(
            status,
            "REDIRECT_NOT_FOLLOWED",
            f"the service redirected to {where or 'an unknown location'}; redirects are not "
            "followed so tokens never leave the configured host",
            request=info,
        )
