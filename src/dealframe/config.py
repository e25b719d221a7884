"""Client settings: one frozen object holding the base URL, tokens, timeouts, retries and cache.

Tokens are never shown: ``repr`` and ``str`` print only the first 8 hex characters of their
SHA-256 (a fingerprint), which is also what the HTTP cache uses to keep tokens apart.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import numbers
import os
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypedDict, Unpack
from urllib.parse import urlsplit

from dealframe.arguments import checked_methods
from dealframe.errors import ConfigurationError, did_you_mean

__all__ = [
    "CACHE_KINDS",
    "DEFAULT_BACKOFF_BASE",
    "DEFAULT_BACKOFF_CAP",
    "DEFAULT_CACHE_EXPIRY",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_MAX_WORKERS",
    "DEFAULT_READ_TIMEOUT",
    "DEFAULT_RETRIES",
    "DEFAULT_RETRY_AFTER_MAX",
    "ENV_VARS",
    "Expiry",
    "SETTING_MAXIMUMS",
    "Settings",
    "SettingsFields",
    "default_cache_path",
    "fingerprint",
    "source_of",
]

DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 60.0
DEFAULT_MAX_WORKERS = 8
DEFAULT_RETRIES = 5
DEFAULT_BACKOFF_BASE = 0.5
DEFAULT_BACKOFF_CAP = 30.0
DEFAULT_RETRY_AFTER_MAX = 60.0

#: The largest value of each number setting, refused above it (``ConfigurationError`` naming
#: the setting and its range) when the settings are made, before any request. Python's
#: sockets, sleeps and the cache's dates take no duration past about 9.2e9 s (a bare
#: ``OverflowError`` at the first request or retry), and urllib3 reserves one slot per pooled
#: connection up front (``max_workers=10**6`` took 1.6 s before the first request, ``2**64``
#: never ended). Each bound is far past any useful value:
#:
#: - ``connect_timeout``, ``read_timeout``: a day. An attempt with no answer in a day has
#:   none coming; a call that may take longer sets ``call_budget`` (or None).
#: - ``backoff_base``, ``backoff_cap``, ``retry_after_max``: a day, for the same reason: a
#:   wait between two attempts.
#: - ``call_budget``: a week (None for no bound at all).
#: - ``max_workers``: 64. Past any useful concurrency against one service (a rate limit closes
#:   the gate for every worker at once), while each worker is a thread, a pooled connection
#:   reserved up front, and a page in flight (about 1 MB of JSON for 1,000 deals).
#: - ``retries``: 1,000 (with the default backoff, up to about eight hours of retrying one
#:   request; about four on average).
#: - ``cache_expiry`` values: 365 days.
SETTING_MAXIMUMS: Mapping[str, float] = MappingProxyType(
    {
        "connect_timeout": 86_400.0,
        "read_timeout": 86_400.0,
        "max_workers": 64,
        "retries": 1_000,
        "backoff_base": 86_400.0,
        "backoff_cap": 86_400.0,
        "retry_after_max": 86_400.0,
        "call_budget": 7 * 86_400.0,
        "cache_expiry": 365 * 86_400.0,
    }
)
#: The spans of :data:`SETTING_MAXIMUMS` in words, for the messages.
_SPANS = {86_400.0: "a day", 7 * 86_400.0: "a week", 365 * 86_400.0: "365 days"}

#: Cache lifetime in seconds per endpoint kind; 0 means "never cached".
DEFAULT_CACHE_EXPIRY: Mapping[str, float] = MappingProxyType(
    {
        "current": 15 * 60,
        "time_series": 12 * 3600,
        "discovery": 24 * 3600,
        "list": 3600,
        "profile": 3600,
        "aggregate": 3600,
        "changefeed": 0,
    }
)
CACHE_KINDS: tuple[str, ...] = tuple(DEFAULT_CACHE_EXPIRY)

#: Environment variable of each setting read by :meth:`Settings.from_env`.
ENV_VARS: Mapping[str, str] = MappingProxyType(
    {
        "base_url": "DEALFRAME_BASE_URL",
        "public_token": "DEALFRAME_PUBLIC_TOKEN",
        "private_key": "DEALFRAME_PRIVATE_KEY",
        "cache_enabled": "DEALFRAME_CACHE",
        "cache_path": "DEALFRAME_CACHE_PATH",
        "max_workers": "DEALFRAME_MAX_WORKERS",
    }
)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def fingerprint(secret: str | None) -> str | None:
    """First 8 hex characters of the SHA-256 of ``secret`` (None stays None).

    A lone surrogate (what a Latin-1 byte read from the environment decodes to) is hashed as
    its code point (``surrogatepass``): the fingerprint of a token no header can carry is
    still given, and no exception quotes the token.

    Examples
    --------
    >>> fingerprint("sandbox-public-token") == fingerprint("sandbox-public-token")
    True
    >>> len(fingerprint("x")), len(fingerprint("tok\\udcff"))
    (8, 8)
    """
    if secret is None:
        return None
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/dealframe/http_cache.sqlite`` (``~/.cache`` when unset).

    Examples
    --------
    >>> default_cache_path().name
    'http_cache.sqlite'
    """
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "dealframe" / "http_cache.sqlite"


def source_of(base_url: str | None) -> str | None:
    """The service at ``base_url``, as a mirror records it: the URL without query, credentials
    or trailing slash, with its port (two services on one host are two sources).

    Examples
    --------
    >>> source_of("http://127.0.0.1:41865/")
    'http://127.0.0.1:41865'
    >>> source_of("https://api.example.com/data/")
    'https://api.example.com/data'
    """
    if not base_url:
        return None
    url = urlsplit(base_url)
    host = url.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if url.port is not None:
        netloc += f":{url.port}"
    return f"{url.scheme}://{netloc}{url.path.rstrip('/')}"


def _is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_number(
    name: str,
    value: Any,
    *,
    minimum: float,
    maximum: float,
    integer: bool = False,
    source: str | None = None,
) -> Any:
    """``value`` as a Python ``int`` (any integral number: ``numpy.int64`` too, never a
    boolean) or, unless ``integer``, a ``float`` (any real number), from ``minimum`` to
    ``maximum`` (:data:`SETTING_MAXIMUMS`); ``source`` is the environment variable it was
    read from, named in the message.

    Examples
    --------
    >>> _check_number("read_timeout", 1e10, minimum=0.001, maximum=86400.0)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: read_timeout must be from 0.001 to 86,400 seconds (a day), got 10000000000.0
    >>> _check_number("max_workers", 2**64, minimum=1, maximum=64, integer=True)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: max_workers must be from 1 to 64, got 18446744073709551616
    >>> import numpy as np
    >>> _check_number("max_workers", np.int64(4), minimum=1, maximum=64, integer=True)
    4
    >>> _check_number("retries", True, minimum=0, maximum=1000, integer=True)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: retries must be an integer, got True
    >>> _check_number("read_timeout", "10", minimum=0.001, maximum=86400.0)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: read_timeout must be a number of seconds, got '10'
    """
    label = name if source is None else f"{name} ({source})"
    if (  # numpy's bool is neither
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or (integer and not isinstance(value, numbers.Integral))
    ):
        what = "an integer" if integer else "a number of seconds"  # every float is a duration
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ConfigurationError(f"{label} must be {what}, got {shown}", field=name)
    try:
        number = float(value)
    except OverflowError:  # an integer past any float: past every maximum too
        number = math.inf
    if not math.isfinite(number) or not minimum <= number <= maximum:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ConfigurationError(
            f"{label} must be from {minimum:g} to {_limit(maximum, integer)}, got {shown}",
            field=name,
        )
    if isinstance(value, numbers.Integral):
        return int(value)
    return value if type(value) is float else number


def _limit(maximum: float, integer: bool) -> str:
    """A maximum as the messages write it.

    Examples
    --------
    >>> _limit(86400.0, False), _limit(1000, True)
    ('86,400 seconds (a day)', '1,000')
    """
    if integer:
        return f"{int(maximum):,}"
    span = _SPANS.get(maximum)
    return f"{maximum:,.0f} seconds" + (f" ({span})" if span else "")


def _check_token(name: str, value: Any, *, source: str | None = None) -> None:
    """Refuse a token that could not be sent as ``Authorization: Bearer <token>``.

    The message names the setting (and ``source``, the environment variable it was read
    from) and shows the token's fingerprint only; for a character an HTTP header cannot carry
    it gives its position and code point, so a pasted typographic dash can be found (or the
    lone surrogate a Latin-1 byte of the environment decodes to).

    Examples
    --------
    >>> _check_token("public_token", "tok\u2013ab")
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: public_token must be ASCII, as tokens are issued (an
    HTTP header cannot carry other characters): character 4 of 6 is U+2013 EN DASH
    (fingerprint ...)
    """
    if value is None:
        return
    label = name if source is None else f"{name} ({source})"
    if not isinstance(value, str):
        raise ConfigurationError(
            f"{label} must be a string, got {type(value).__name__}", field=name
        )
    if not value.isascii():  # http.client would fail with the header in its exception
        at, char = next((i, ch) for i, ch in enumerate(value, 1) if not ch.isascii())
        what = f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()
        if unicodedata.category(char) == "Cs":
            what += " (a lone surrogate: a byte that is not UTF-8, as from a Latin-1 text)"
        raise ConfigurationError(
            f"{label} must be ASCII, as tokens are issued (an HTTP header cannot carry other "
            f"characters): character {at} of {len(value)} is {what} "
            f"(fingerprint {fingerprint(value)})",
            field=name,
        )
    if not value or any(ch.isspace() for ch in value) or not value.isprintable():
        raise ConfigurationError(
            f"{label} must be a non-empty string without spaces or control characters "
            f"(fingerprint {fingerprint(value)})",
            field=name,
        )


#: Characters of a host name: letters (internationalised ones too), digits, '-', '.', '_';
#: ':' and '%' for an IPv6 address and its zone.
_HOST = re.compile(r"[\w.\-:%]+")


#: A bracketed (IPv6) host and its port, as a URL's authority may hold it.
_BRACKETED = re.compile(r"\[[^\[\]]*\](?::[0-9]*)?")


def _without_userinfo(url: str) -> str:
    """``url`` as an error may show it: any user and password before the host masked.

    Examples
    --------
    >>> _without_userinfo("http://user:s3cret@[::1]x/api")
    'http://***@[::1]x/api'
    >>> _without_userinfo("https://api.example.com/x@y")
    'https://api.example.com/x@y'
    """
    return re.sub(r"(?<=//)[^/?#]*@", "***@", url, count=1)


def _check_base_url(value: Any, allow_insecure_http: bool) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigurationError(
            f"base_url must be a string, got {type(value).__name__}", field="base_url"
        )
    text = value.strip()
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        # urlsplit drops tabs and newlines silently: "https://api.exa\nmple.com" would become
        # another host
        raise ConfigurationError(
            f"base_url must not contain spaces or control characters, got {_without_userinfo(value)!r}",
            field="base_url",
        )
    try:
        parts = urlsplit(text)
    except ValueError as exc:  # "http://[::1": Invalid IPv6 URL
        raise ConfigurationError(
            f"base_url is not a valid URL ({exc}), got {_without_userinfo(value)!r}",
            field="base_url",
        ) from None
    host = parts.netloc.rpartition("@")[2]
    if ("[" in host or "]" in host) and not _BRACKETED.fullmatch(host):  # "[::1]x", "[::1]]"
        raise ConfigurationError(
            f"base_url is not a valid URL (an IPv6 host is [address] or [address]:port), got "
            f"{_without_userinfo(value)!r}",
            field="base_url",
        )
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            f"base_url must be an http:// or https:// URL with a host, got {_without_userinfo(value)!r}",
            field="base_url",
        )
    if not _HOST.fullmatch(parts.hostname):
        raise ConfigurationError(
            f"base_url has an invalid host name {parts.hostname!r} (letters, digits, '-' and "
            "'.', or an IP address)",
            field="base_url",
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ConfigurationError(
            "base_url must not carry credentials, a query string or a fragment",
            field="base_url",
        )
    if parts.scheme == "http" and not allow_insecure_http and not _is_loopback(parts.hostname):
        raise ConfigurationError(
            f"refusing plain http:// to non-loopback host {parts.hostname!r}: tokens would "
            "travel unencrypted. Use an https:// URL, or reach the service through a loopback "
            "address (for example an SSH tunnel: ssh -L 8765:localhost:8765 HOST, then "
            "DEALFRAME_BASE_URL=http://127.0.0.1:8765); no command or environment variable "
            "lifts this, only Python code can: Client(..., allow_insecure_http=True).",
            field="base_url",
        )
    try:
        _ = parts.port  # reading it validates it
    except ValueError as exc:
        raise ConfigurationError(f"base_url has an invalid port: {exc}", field="base_url") from exc
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _check_expiry(value: Any) -> Mapping[str, float]:
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            "cache_expiry must be a mapping of endpoint kind to seconds", field="cache_expiry"
        )
    merged = dict(DEFAULT_CACHE_EXPIRY)
    for kind, seconds in value.items():
        name = f"cache_expiry[{kind!r}]"
        if not isinstance(kind, str):
            raise ConfigurationError(f"{name}: kind must be a string", field="cache_expiry")
        if kind not in DEFAULT_CACHE_EXPIRY:  # a misspelt kind would never apply
            raise ConfigurationError(
                f"{name}: unknown endpoint kind{did_you_mean(kind, CACHE_KINDS)}; "
                f"kinds: {', '.join(CACHE_KINDS)}",
                field="cache_expiry",
            )
        merged[kind] = _check_number(
            name, seconds, minimum=0, maximum=SETTING_MAXIMUMS["cache_expiry"]
        )
        if kind == "changefeed" and merged[kind] != 0:  # it would never apply: refused
            raise ConfigurationError(
                f"{name}: change-feed pulls are never cached (each must see the changes made "
                f"since the last), so no expiry applies to them; leave the kind out (or give 0), "
                f"got {seconds!r}",
                field="cache_expiry",
            )
    return Expiry(merged)


class Expiry(Mapping[str, float]):
    """:attr:`Settings.cache_expiry`: seconds per endpoint kind, read-only.

    Unlike a ``types.MappingProxyType`` it can be pickled and deep-copied, so a
    :class:`Settings` can be too (``pickle``, ``copy.deepcopy``, ``dataclasses.asdict``).

    Examples
    --------
    >>> import copy, pickle
    >>> expiry = Expiry({"current": 60.0})
    >>> pickle.loads(pickle.dumps(expiry)) == copy.deepcopy(expiry) == {"current": 60.0}
    True
    >>> expiry
    Expiry({'current': 60.0})
    """

    __slots__ = ("_seconds",)

    def __init__(self, seconds: Mapping[str, float]) -> None:
        self._seconds = dict(seconds)

    def __getitem__(self, kind: str) -> float:
        return self._seconds[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._seconds)

    def __len__(self) -> int:
        return len(self._seconds)

    def __reduce__(self) -> tuple[type[Expiry], tuple[dict[str, float]]]:
        return (type(self), (dict(self._seconds),))

    def __repr__(self) -> str:
        return f"Expiry({self._seconds!r})"


def _check_backoff(base: float, cap: float) -> None:
    """Refuse a ``backoff_cap`` below ``backoff_base``: every wait
    (``uniform(0, min(cap, base * 2**n))``) would be bounded by the cap, the base would
    count for nothing, and one of the two is a mistake. A value equal to its default is said
    to be the default, and the error's ``field`` is the other one (the one given).

    Examples
    --------
    >>> _check_backoff(0.5, 30.0)
    >>> _check_backoff(10, 1)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: backoff_base 10 is above backoff_cap 1: the waits grow from the base up to the cap; pass backoff_cap=10 or more, or a smaller backoff_base
    >>> _check_backoff(60, 30.0)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: backoff_base 60 is above backoff_cap 30 (the default): the waits grow from the base up to the cap; pass backoff_cap=60 or more, or a smaller backoff_base
    """
    if cap >= base:
        return
    base_default, cap_default = base == DEFAULT_BACKOFF_BASE, cap == DEFAULT_BACKOFF_CAP
    raise ConfigurationError(
        f"backoff_base {base:.12g}{' (the default)' if base_default else ''} is above "
        f"backoff_cap {cap:.12g}{' (the default)' if cap_default else ''}: the waits grow from "
        f"the base up to the cap; pass backoff_cap={base:.12g} or more, or a smaller "
        "backoff_base",
        field="backoff_base" if cap_default and not base_default else "backoff_cap",
    )


#: The number fields of :class:`Settings`: (name, least value, whether an integer); their
#: largest values are :data:`SETTING_MAXIMUMS`.
_NUMBERS = (
    ("connect_timeout", 0.001, False),
    ("read_timeout", 0.001, False),
    ("max_workers", 1, True),
    ("retries", 0, True),
    ("backoff_base", 0, False),
    ("backoff_cap", 0, False),
    ("retry_after_max", 0, False),
    ("call_budget", 0.001, False),  # or None
)


class SettingsFields(TypedDict, total=False):
    """The :class:`Settings` fields as keyword arguments (:meth:`Settings.replace`,
    :meth:`Settings.from_env`), so a type checker names a misspelt one, as Python's own
    check does at run time (``ConfigurationError`` with a did-you-mean)."""

    base_url: str | None
    public_token: str | None
    private_key: str | None
    connect_timeout: float
    read_timeout: float
    max_workers: int
    retries: int
    backoff_base: float
    backoff_cap: float
    retry_after_max: float
    cut_stragglers: bool
    call_budget: float | None
    cache_enabled: bool
    cache_path: str | os.PathLike[str] | None
    cache_expiry: Mapping[str, float]
    allow_insecure_http: bool
    progress: bool | None


@checked_methods
@dataclass(frozen=True, repr=False)
class Settings:
    """Everything the client needs to talk to the service.

    Parameters
    ----------
    base_url : str, optional
        Service root, e.g. ``https://data.example.com`` (trailing slash dropped). Plain
        ``http://`` is accepted only for loopback hosts unless ``allow_insecure_http``.
    public_token : str, optional
        Family A token (``/api/v1``, ``/api/v2``).
    private_key : str, optional
        Family B key (``/api/private/v1``).
    connect_timeout, read_timeout : float
        Seconds per attempt, from 0.001 to a day (86,400).
    max_workers : int
        Concurrent requests for multi-page and multi-chunk calls, from 1 to 64: past any
        useful concurrency against one service, while each worker is a thread, a pooled
        connection reserved up front and a page in flight (:data:`SETTING_MAXIMUMS`).
    retries : int
        Retries after the first attempt (so ``retries + 1`` attempts at most), 0 to 1,000.
    backoff_base, backoff_cap : float
        Exponential backoff with full jitter: ``uniform(0, min(cap, base * 2**n))``; each
        at most a day, and the cap at least the base (a ``ConfigurationError`` naming
        both otherwise).
    retry_after_max : float
        Longest ``Retry-After`` (or stated reset) waited out (at most a day); a service
        asking for more fails the request at once (``RateLimitedError`` naming the wait),
        without sleeping. A rate limit asking for more is honoured all the same: its family
        is held back (``.held_until``, a day at most), each request of it failing at once,
        unsent, while more than ``retry_after_max`` of the wait is left, then waiting the
        rest out. The client's own backoff is waited out whatever this says.
    cut_stragglers : bool
        Give a first attempt a shorter read timeout once its endpoint has answered a few
        times: four times the slowest recent answer, at least 0.25 s (in a list pull that
        has needed a retry, four times its typical page, at least 0.05 s). When it runs out
        the request is sent again at once with ``read_timeout`` (one extra request per
        straggler; see :mod:`dealframe.transport.stragglers`). False waits
        ``read_timeout`` every time.
    call_budget : float, optional
        Seconds a whole call may take, retries included, at most a week; None for no bound.
    cache_enabled : bool
        Use the on-disk HTTP cache.
    cache_path : str or Path, optional
        SQLite file, written at exactly this path (no ``.sqlite`` added to a name without a
        suffix); default :func:`default_cache_path`.
    cache_expiry : mapping
        Seconds per endpoint kind (at most 365 days), merged over
        :data:`DEFAULT_CACHE_EXPIRY`; ``changefeed`` is always 0 (never cached: any other
        value is a :class:`~dealframe.errors.ConfigurationError`). Held as a
        read-only :class:`Expiry`, so settings can be pickled and deep-copied (the tokens
        with them, in clear: treat the bytes as the tokens).
    allow_insecure_http : bool
        Permit ``http://`` to a non-loopback host.
    progress : bool, optional
        Progress bars: True, False, or None for "when interactive".

    Raises
    ------
    dealframe.errors.ConfigurationError
        A setting of the wrong type or out of its range (naming it and the range), before
        any request.

    Examples
    --------
    >>> s = Settings(base_url="http://127.0.0.1:8765", public_token="secret-token")
    >>> "secret-token" in repr(s)
    False
    >>> s.max_workers
    8
    """

    base_url: str | None = None
    public_token: str | None = field(default=None, repr=False)
    private_key: str | None = field(default=None, repr=False)
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    max_workers: int = DEFAULT_MAX_WORKERS
    retries: int = DEFAULT_RETRIES
    backoff_base: float = DEFAULT_BACKOFF_BASE
    backoff_cap: float = DEFAULT_BACKOFF_CAP
    retry_after_max: float = DEFAULT_RETRY_AFTER_MAX
    cut_stragglers: bool = True
    call_budget: float | None = None
    cache_enabled: bool = True
    cache_path: Path | None = None
    cache_expiry: Mapping[str, float] = field(default_factory=dict, hash=False)
    allow_insecure_http: bool = False
    progress: bool | None = None

    def __post_init__(self) -> None:
        for name in ("cache_enabled", "allow_insecure_http", "cut_stragglers"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigurationError(f"{name} must be True or False", field=name)
        if self.progress is not None and not isinstance(self.progress, bool):
            raise ConfigurationError("progress must be True, False or None", field="progress")
        url = _check_base_url(self.base_url, self.allow_insecure_http)
        object.__setattr__(self, "base_url", url)
        _check_token("public_token", self.public_token)
        _check_token("private_key", self.private_key)
        for name, minimum, integer in _NUMBERS:
            value = getattr(self, name)
            if value is not None or name != "call_budget":
                value = _check_number(
                    name,
                    value,
                    minimum=minimum,
                    maximum=SETTING_MAXIMUMS[name],
                    integer=integer,
                )
                object.__setattr__(self, name, value)  # numpy's numbers as Python's
        _check_backoff(self.backoff_base, self.backoff_cap)
        object.__setattr__(self, "cache_expiry", _check_expiry(self.cache_expiry))
        path = self.cache_path
        if path is None:
            path = default_cache_path()
        elif (
            not isinstance(path, (str, os.PathLike))
            or not os.fspath(path)
            or "\x00" in str(os.fspath(path))
        ):
            raise ConfigurationError("cache_path must be a file path", field="cache_path")
        try:
            file = Path(path).expanduser()
        except (RuntimeError, TypeError, ValueError) as exc:  # e.g. "~nobody/x"
            raise ConfigurationError(
                f"cache_path {path!r} is not usable: {exc}", field="cache_path"
            ) from None
        _check_cache_file(file, self.cache_enabled)
        object.__setattr__(self, "cache_path", file)

    # -- tokens ---------------------------------------------------------------------------

    @property
    def public_token_fingerprint(self) -> str | None:
        """Fingerprint of the Family A token (None when unset)."""
        return fingerprint(self.public_token)

    @property
    def private_key_fingerprint(self) -> str | None:
        """Fingerprint of the Family B key (None when unset)."""
        return fingerprint(self.private_key)

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("public_token", "private_key"):
                shown.append(f"{f.name}={'None' if value is None else f'{fingerprint(value)}…'}")
            elif f.name == "cache_expiry":
                shown.append(f"{f.name}={dict(value)!r}")
            else:
                shown.append(f"{f.name}={value!r}")
        return f"Settings({', '.join(shown)})"

    __str__ = __repr__

    def replace(self, **changes: Unpack[SettingsFields]) -> Settings:
        """A copy with some fields changed (validated again).

        Examples
        --------
        >>> Settings().replace(max_workers=2).max_workers
        2
        """
        _known(type(self), changes)
        given: dict[str, Any] = dict(changes)  # a path as text is made a Path on the way
        return replace(self, **given)

    # -- environment ----------------------------------------------------------------------

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, **overrides: Unpack[SettingsFields]
    ) -> Settings:
        """Settings from ``DEALFRAME_*`` environment variables; keyword overrides win.

        Reads ``DEALFRAME_BASE_URL``, ``DEALFRAME_PUBLIC_TOKEN``, ``DEALFRAME_PRIVATE_KEY``,
        ``DEALFRAME_CACHE`` (``0``/``1``/``off``/``on``/``true``/``false``),
        ``DEALFRAME_CACHE_PATH`` and ``DEALFRAME_MAX_WORKERS``.

        Parameters
        ----------
        env : mapping, optional
            Environment to read instead of ``os.environ``.
        **overrides
            Any :class:`Settings` field.

        Returns
        -------
        Settings

        Raises
        ------
        dealframe.errors.ConfigurationError
            A variable or override holds a value the setting cannot take (naming it).

        Examples
        --------
        >>> s = Settings.from_env({"DEALFRAME_CACHE": "off", "DEALFRAME_MAX_WORKERS": "3"})
        >>> s.cache_enabled, s.max_workers
        (False, 3)
        """
        try:
            return cls(**_env_values(cls, env, overrides))
        except ConfigurationError as err:
            # cut where no frame holds a token: those below hold the values read (tokens
            # included) and the environment, which a traceback recording locals would show
            err.__context__ = None
            raise err.with_traceback(None) from None


def _env_values(
    cls: type[Settings], env: Mapping[str, str] | None, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """The keyword arguments of :meth:`Settings.from_env`'s settings: the variables of
    ``env`` (``os.environ`` when None) that are set, each read and checked, then
    ``overrides``."""
    if env is not None and not isinstance(env, Mapping):
        raise ConfigurationError(
            "env must be a mapping of environment variable names to values (like "
            f"os.environ), got {type(env).__name__}",
            field="env",
        )
    _known(cls, overrides)
    values: dict[str, Any] = {}
    for name, var in ENV_VARS.items():
        raw = (os.environ if env is None else env).get(var)  # never the environment as a local
        if raw is not None and not isinstance(raw, str):
            raise ConfigurationError(
                f"{var} must be a string, got {type(raw).__name__}", field=name
            )
        if raw is None or raw.strip() == "" or name in overrides:
            continue
        values[name] = _from_text(name, var, raw.strip())
        if name in ("public_token", "private_key"):
            _check_token(name, values[name], source=var)
    values.update(overrides)
    return values


def _known(cls: type[Settings], names: Mapping[str, Any]) -> None:
    """Refuse names that are not :class:`Settings` fields, with the closest one."""
    known = [f.name for f in fields(cls)]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ConfigurationError(
            f"unknown setting(s): {', '.join(unknown)}{did_you_mean(unknown[0], known)}",
            field=unknown[0],
        )


def _check_cache_file(path: Path, enabled: bool) -> None:
    """Refuse a ``cache_path`` that exists and is neither a file nor a folder (a device such
    as ``/dev/null``, a pipe, a socket): SQLite would open it and fail at the first request
    with its own error. A folder is refused when the cache opens (it names the folder).

    Examples
    --------
    >>> _check_cache_file(Path("/dev/null"), True)
    Traceback (most recent call last):
    ...
    dealframe.errors.ConfigurationError: cache_path /dev/null is not a regular file ...
    >>> _check_cache_file(Path("/dev/null"), False)  # no cache: the path is not used
    """
    if not enabled:
        return
    try:
        special = path.exists() and not (path.is_file() or path.is_dir())
    except OSError:  # a path the user cannot look into: the cache's opening says why
        return
    if special:
        raise ConfigurationError(
            f"cache_path {path} is not a regular file (a device, pipe or socket): the HTTP "
            "cache is a SQLite file. To turn the cache off, pass cache_enabled=False "
            "(DEALFRAME_CACHE=0)",
            field="cache_path",
        )


def _from_text(name: str, var: str, raw: str) -> Any:
    if name == "cache_enabled":
        lowered = raw.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ConfigurationError(
            f"{var} must be one of 0, 1, on, off, true, false, got {raw!r}", field=var
        )
    if name == "max_workers":  # ASCII digits, as the command-line options read numbers
        if re.fullmatch(r"[+-]?[0-9]+", raw, re.ASCII) is None:  # int() takes 1_0, "٣"
            raise ConfigurationError(f"{var} must be an integer, got {raw!r}", field=var)
        # its range is checked here, to name the variable; the digits past leading zeros are
        # cut to 101 (int() refuses over 4,300), which is past the maximum all the same
        digits = raw.lstrip("+-").lstrip("0") or "0"
        number = int(raw[0] + digits[:101] if raw[0] in "+-" else digits[:101])
        return _check_number(
            name, number, minimum=1, maximum=SETTING_MAXIMUMS[name], integer=True, source=var
        )
    return raw
