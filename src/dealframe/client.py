"""The :class:`Client`: one configured transport, exposing each interface family."""

from __future__ import annotations

from typing import Any

from .config import Settings
from .public.api import PublicApi
from .transport.session import Transport

__all__ = ["Client"]


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
    **settings
        Any :class:`dealframe.config.Settings` field: ``max_workers``,
        ``retries``, ``read_timeout``, ``cache_enabled``, ``cache_path``,
        ``cache_expiry``, ``progress``, ``call_budget`` ...

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

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
    ...     len(client.public.search()) > 0
    True
    """

    def __init__(self, base_url: str | None = None, public_token: str | None = None,
                 private_key: str | None = None, **settings: Any) -> None:
        given = {k: v for k, v in (("base_url", base_url), ("public_token", public_token),
                                   ("private_key", private_key)) if v is not None}
        self.settings = Settings.from_env(**given, **settings)
        self._transport = Transport(self.settings)
        self.public = PublicApi(self._transport, "v2")
        self.public_v1 = PublicApi(self._transport, "v1")
        from .private.api import PrivateApi

        self.private = PrivateApi(self._transport)

    @classmethod
    def for_sandbox(cls, sandbox: Any, **settings: Any) -> "Client":
        """A client pointed at a running :mod:`dealframe.sandbox` (cache off unless asked).

        Examples
        --------
        >>> with dealframe.sandbox.run(scale=0.02) as sb:  # doctest: +SKIP
        ...     client = dealframe.Client.for_sandbox(sb)
        """
        settings.setdefault("cache_enabled", False)
        return cls(sandbox.url, sandbox.public_token, sandbox.private_key, **settings)

    @property
    def cache(self) -> Any:
        return self._transport.cache

    @property
    def stats(self) -> Any:
        """Counts of requests, retries and faults seen by this client's transport."""
        return self._transport.stats

    def public_api(self, version: str = "v2") -> PublicApi:
        """Family A for ``version`` (``"v1"`` or ``"v2"``)."""
        return self.public_v1 if version == "v1" else self.public if version == "v2" else \
            PublicApi(self._transport, version)

    def close(self) -> None:
        """Close pooled connections and the cache."""
        self._transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<dealframe.Client {self.settings.base_url!r} settings={self.settings!r}>"
