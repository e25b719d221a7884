"""The :class:`Client`: one configured transport, exposing each interface family."""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import Any, Protocol

from .arguments import checked_methods
from .config import Settings, source_of
from .errors import ValidationError
from .private.api import PrivateApi
from .public.api import PublicApi
from .transport.cache import CacheControl
from .transport.session import Transport, TransportStats, not_picklable

__all__ = ["SANDBOX_SOURCE", "UNSET", "Client", "SandboxLike"]


class _Unset:
    """The type of :data:`UNSET`: a setting not given (None means something for some)."""

    def __repr__(self) -> str:
        return "UNSET"


#: Default of the settings for which None is a value (``call_budget``, ``progress``).
UNSET = _Unset()


#: How :attr:`Client.source` of a :meth:`Client.for_sandbox` client begins.
SANDBOX_SOURCE = "dealframe-sandbox"


def _sandbox_source(sandbox: Any) -> str | None:
    """``dealframe-sandbox (seed 7, scale 1.0[, profile P], as of T)``: the data a sandbox serves,
    whatever its port (None when ``sandbox`` does not say its seed and scale)."""
    config = getattr(getattr(sandbox, "state", None), "config", None)
    seed, scale = getattr(config, "seed", None), getattr(config, "scale", None)
    if seed is None or scale is None:
        return None
    profile = getattr(sandbox, "profile", "default")
    extra = f", profile {profile}" if profile and profile != "default" else ""
    as_of: Any = getattr(config, "as_of", None)  # another clock, other data
    if hasattr(as_of, "isoformat"):
        extra += f", as of {as_of.isoformat()}"
    return f"{SANDBOX_SOURCE} (seed {seed}, scale {float(scale)!r}{extra})"


class SandboxLike(Protocol):
    """What :meth:`Client.for_sandbox` reads: a running :mod:`dealframe.sandbox`'s address
    and credentials (:class:`dealframe.sandbox.Sandbox` has them)."""

    @property
    def url(self) -> str: ...

    @property
    def public_token(self) -> str: ...

    @property
    def private_key(self) -> str: ...


@checked_methods
class Client:
    """Entry point to the service.

    Configuration comes from the arguments, then the environment
    (``DEALFRAME_BASE_URL``, ``DEALFRAME_PUBLIC_TOKEN``, ``DEALFRAME_PRIVATE_KEY``,
    ``DEALFRAME_CACHE``, ``DEALFRAME_CACHE_PATH``, ``DEALFRAME_MAX_WORKERS``).
    Each family's token is sent only to that family's paths.

    Parameters
    ----------
    base_url : str, optional
        Service root. Plain ``http://`` only for loopback unless
        ``allow_insecure_http=True``.
    public_token : str, optional
        Family A token (``/api/v1``, ``/api/v2``).
    private_key : str, optional
        Family B key (``/api/private/v1``).
    max_workers, retries, connect_timeout, read_timeout, backoff_base, backoff_cap,
    retry_after_max, cut_stragglers, call_budget, cache_enabled, cache_path, cache_expiry,
    allow_insecure_http, progress
        The :class:`dealframe.config.Settings` of the same names; a setting not given
        comes from the environment (``DEALFRAME_*``), else its default.

    Attributes
    ----------
    public : PublicApi
        Family A, v2 SKUs.
    public_v1 : PublicApi
        Family A, v1 SKUs.
    private : PrivateApi
        Family B.
    cache : CacheControl
        ``info()`` and ``clear()`` of the HTTP cache.
    stats : TransportStats
        Counts of requests, retries and faults (``snapshot()``).
    source : str or None
        The service this client reads, as a mirror records it (read-only): the base URL
        without query or trailing slash, port included; for :meth:`for_sandbox`,
        ``dealframe-sandbox (seed S, scale X, as of T)`` (and ``, profile P`` unless the
        default), which does not change with the sandbox's port. Never holds a token.

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
    ...     len(client.public.search()) > 0
    True
    """

    def __init__(
        self,
        base_url: str | None = None,
        public_token: str | None = None,
        private_key: str | None = None,
        *,
        max_workers: int | None = None,
        retries: int | None = None,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        backoff_base: float | None = None,
        backoff_cap: float | None = None,
        retry_after_max: float | None = None,
        cut_stragglers: bool | None = None,
        call_budget: float | None | _Unset = UNSET,
        cache_enabled: bool | None = None,
        cache_path: str | PathLike[str] | None = None,
        cache_expiry: Mapping[str, float] | None = None,
        allow_insecure_http: bool | None = None,
        progress: bool | None | _Unset = UNSET,
    ) -> None:
        # the settings given: None means "not given", but for the two where it is a value
        given: dict[str, Any] = {
            name: value
            for name, value in locals().items()
            if name != "self"
            and value is not UNSET
            and (value is not None or name in ("call_budget", "progress"))
        }
        self.settings = Settings.from_env(**given)
        self._transport = Transport(self.settings)
        self.public = PublicApi(self._transport, "v2")
        self.public_v1 = PublicApi(self._transport, "v1")
        self.private = PrivateApi(self._transport)
        self._source: str | None = None  # for_sandbox: the sandbox's data, not its port

    @classmethod
    def for_sandbox(
        cls,
        sandbox: SandboxLike,
        *,
        max_workers: int | None = None,
        retries: int | None = None,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        backoff_base: float | None = None,
        backoff_cap: float | None = None,
        retry_after_max: float | None = None,
        cut_stragglers: bool | None = None,
        call_budget: float | None | _Unset = UNSET,
        cache_enabled: bool = False,
        cache_path: str | PathLike[str] | None = None,
        cache_expiry: Mapping[str, float] | None = None,
        allow_insecure_http: bool | None = None,
        progress: bool | None | _Unset = UNSET,
    ) -> Client:
        """A client pointed at a running :mod:`dealframe.sandbox` (cache off unless asked).

        Parameters
        ----------
        sandbox : Sandbox
            What :func:`dealframe.sandbox.run` or :func:`dealframe.sandbox.start` returns
            (anything with ``url``, ``public_token`` and ``private_key``).
        max_workers, retries, connect_timeout, read_timeout, backoff_base, backoff_cap, \
retry_after_max, cut_stragglers, call_budget, cache_enabled, cache_path, cache_expiry, \
allow_insecure_http, progress
            As for :class:`Client`; ``cache_enabled`` defaults to False here
            (``allow_insecure_http`` for a sandbox served on another interface than loopback).

        Raises
        ------
        dealframe.errors.ValidationError
            ``sandbox`` is not a sandbox.

        Examples
        --------
        >>> with dealframe.sandbox.run(scale=0.02) as sb:  # doctest: +SKIP
        ...     client = dealframe.Client.for_sandbox(sb, max_workers=2)
        """
        settings = {k: v for k, v in locals().items() if k not in ("cls", "sandbox")}
        parts = [getattr(sandbox, name, None) for name in ("url", "public_token", "private_key")]
        if not all(isinstance(part, str) for part in parts):
            raise ValidationError(
                "sandbox",
                "a running sandbox (from dealframe.sandbox.run or start) with url, "
                "public_token and private_key",
                got=type(sandbox).__name__,
            )
        client = cls(*parts, **settings)
        client._source = _sandbox_source(sandbox)
        return client

    @property
    def source(self) -> str | None:
        """The service this client reads, as a mirror records it (see the class docstring).

        Examples
        --------
        >>> Client("https://api.example.com/", cache_enabled=False).source
        'https://api.example.com'
        """
        return self._source or source_of(self.settings.base_url)

    @property
    def cache(self) -> CacheControl:
        """The HTTP cache of this client: ``info()`` and ``clear(expired=...)``.

        Examples
        --------
        >>> Client("https://api.example.com", cache_enabled=False).cache.info()["enabled"]
        False
        """
        return self._transport.cache

    @property
    def stats(self) -> TransportStats:
        """Counts of requests, retries and faults seen by this client's transport
        (``snapshot()`` copies them, ``reset()`` zeroes them).

        Examples
        --------
        >>> Client("https://api.example.com", cache_enabled=False).stats.snapshot()["network"]
        0
        """
        return self._transport.stats

    def public_api(self, version: str = "v2") -> PublicApi:
        """Family A for ``version`` (``"v1"`` or ``"v2"``).

        Parameters
        ----------
        version : {"v1", "v2"}, default "v2"
            ``"v1"`` is :attr:`public_v1`, ``"v2"`` is :attr:`public`.

        Examples
        --------
        >>> client.public_api("v1") is client.public_v1
        True
        """
        return (
            self.public_v1
            if version == "v1"
            else self.public
            if version == "v2"
            else PublicApi(self._transport, version)
        )

    def close(self) -> None:
        """Close pooled connections and the cache; closing again does nothing.

        ``with Client(...) as client:`` closes it at the end of the block.

        Examples
        --------
        >>> client = Client("http://127.0.0.1:8765", public_token="t", cache_enabled=False)
        >>> client.close()
        >>> client.close()
        """
        transport = getattr(self, "_transport", None)  # None: its construction failed
        if transport is not None:
            transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Refused with a :class:`~dealframe.errors.ConfigurationError` saying to create a
        client in each process: a client holds open connections, worker threads and its
        tokens (``pickle``, ``copy``, ``multiprocessing`` arguments).

        Examples
        --------
        >>> import pickle
        >>> pickle.dumps(Client("https://api.example.com", cache_enabled=False))
        Traceback (most recent call last):
        ...
        dealframe.errors.ConfigurationError: a dealframe.Client cannot be pickled or copied, ...
        """
        raise not_picklable()

    def __repr__(self) -> str:
        """The base URL and the settings (each token as a fingerprint); a client whose
        construction failed (seen in a traceback that records locals) says so.

        Examples
        --------
        >>> Client.__new__(Client)
        <dealframe.Client (not set up: its construction failed)>
        """
        settings = getattr(self, "settings", None)
        if settings is None:
            return "<dealframe.Client (not set up: its construction failed)>"
        return f"<dealframe.Client {settings.base_url!r} settings={settings!r}>"
