"""How ``dealframe doctor`` waits out a rate limit or an unavailable service, as the client would.

A probe answered with a 429, a 5xx, or a 401/403 that says it is a rate limit is waited out
once (the wait the service asked, never less than the client's ``backoff_base``, at most its
``retry_after_max``), at the client's own gate (so on the transport's clock; under a key of
the doctor's own, so no call of the client's waits for it), and sent once more. What persists makes the check ``not checked``, never ``breaks``:

- a rate limit that persists through that wait, or asks for more than ``retry_after_max``,
  holds its family back, as the client's own hold would: the family's later probes are not
  sent, and are not checked at once;
- a 5xx that persists on an ordinary probe: the service is unavailable;
- a 5xx that persists on a deliberately odd probe (an unknown id, an empty list, page 0, a
  batch of 1,000 names ...) is the service's answer to that request, judged by its check (the
  client would raise a ``ServerError`` there), unless the service looks unavailable: the
  family's last ordinary probe got a 5xx that persisted too.

A wait longer than :data:`SAID_AFTER` seconds is said before it starts (``say``), so a long
run is never silent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import DealframeError, RateLimitedError
from ..transport import retry as _retry

if TYPE_CHECKING:
    from ..transport.session import Response, Transport

__all__ = ["SAID_AFTER", "Limited", "Waits", "seconds"]

#: Waits longer than this (seconds) are said before they start.
SAID_AFTER = 2.0


class Limited(Exception):
    """The service did not let a probe run (rate limited or unavailable, after the one more
    try, or its family held back): the check is not checked; the message says why."""


def seconds(value: float) -> str:
    """A wait in words: ``1.5 s``, ``59 s``, ``2,147,483,648 s`` (never ``2.14748e+09 s``).

    Examples
    --------
    >>> seconds(1.5), seconds(59), seconds(2**31)
    ('1.5 s', '59 s', '2,147,483,648 s')
    """
    if value >= 100:
        return f"{value:,.0f} s"
    return f"{value:g} s"


def _why(response: Response, asked: float | None, why: str) -> str:
    """Why a check is not checked: the status of a 429/5xx (or rate-limit 401/403) answer
    and the wait asked.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> _why(SimpleNamespace(status=429), 1.0, "again after the wait")
    'rate limited: the service asked 1 s (429, again after the wait)'
    >>> _why(SimpleNamespace(status=503), None, "again after the wait")
    'unavailable (503, again after the wait)'
    """
    what = "unavailable" if response.status >= 500 else "rate limited"  # a 429, a 401/403
    waited = f": the service asked {seconds(asked)}" if asked is not None else ""
    return f"{what}{waited} ({response.status}, {why})"


class Waits:
    """The waits of one doctor run, and the families held back or looking unavailable.

    Parameters
    ----------
    transport : Transport
        The client's transport: its settings (``backoff_base``, ``retry_after_max``) and its
        gate (whose clock the waits run on).
    error : callable
        The typed error the client raises for an answer (to read a rate limit and its wait).
    say : callable, optional
        Told a line before a wait longer than :data:`SAID_AFTER` seconds.
    """

    def __init__(
        self,
        transport: Transport,
        error: Callable[[Response], DealframeError],
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.t = transport
        self.error = error
        self.say = say
        #: Families held back (a rate limit that persisted): why their probes are not sent.
        self.held: dict[str, str] = {}
        #: Families whose last ordinary probe got a 5xx that persisted.
        self.down: dict[str, bool] = {}

    def rate_limit(self, response: Response) -> bool:
        """A 429, or a 401/403 that says it is a rate limit
        (:class:`~dealframe.errors.RateLimitedError`)."""
        if response.status == 429:
            return True
        return response.status in (401, 403) and isinstance(self.error(response), RateLimitedError)

    def limited(self, response: Response) -> bool:
        """Whether ``response`` is one the client waits out: a 5xx it retries, or a rate limit."""
        return _retry.is_retryable_status(response.status) or self.rate_limit(response)

    def before(self, family: str) -> None:
        """Raise :class:`Limited` when ``family`` is held back: its probe is not sent."""
        if family in self.held:
            raise Limited(self.held[family])

    def answered(self, family: str) -> None:
        """An answer not to wait out: the service is up for ``family``."""
        self.down[family] = False

    def again(
        self,
        family: str,
        response: Response,
        resend: Callable[[], Response],
        *,
        left: int,
        odd: bool = False,
    ) -> Response:
        """``response`` (a 429, 5xx or rate-limit 401/403) waited out once, then sent once more
        (``resend``; ``left``: requests left in the run's budget).

        Returns the second answer when it is not one to wait out, or, for an ``odd`` probe,
        a 5xx to judge (see the module's docstring); else raises :class:`Limited`."""
        settings = self.t.settings
        asked = getattr(self.error(response), "retry_after", None)
        if asked is not None and asked > settings.retry_after_max:
            return self._stop(family, response, asked, "more than retry_after_max", odd)
        if left <= 0:
            return self._stop(family, response, asked, "no request left to try again", odd)
        wait = max(asked or 0.0, settings.backoff_base)  # as the client: never less
        if self.say is not None and wait > SAID_AFTER:
            what = "rate limited" if self.rate_limit(response) else "unavailable"
            self.say(
                f"waiting {seconds(wait)}: {response.request} answered {response.status} "
                f"({what}{', the wait it asked' if asked is not None else ''}), then sending "
                "it once more"
            )
        # at the client's gate, on its clock, under a key of the doctor's own: the client's
        # calls of the family are not held by it, nor is this wait cut short by their holds
        key = f"doctor:{family}"
        self.t.gate.block_for(wait, key=key)
        self.t.gate.wait(key=key)
        second = resend()
        if not self.limited(second):
            self.answered(family)
            return second
        asked = getattr(self.error(second), "retry_after", None)
        return self._stop(family, second, asked, "again after the wait", odd)

    def _stop(
        self, family: str, response: Response, asked: float | None, why: str, odd: bool
    ) -> Response:
        """The probe is not sent again: raise :class:`Limited`, holding a rate-limited family
        back; or return an odd probe's 5xx, to judge, while the service looks available."""
        said = _why(response, asked, why)
        if self.rate_limit(response):
            if why != "no request left to try again":  # as the client's hold would
                self.held[family] = (
                    f"rate limited: not sent, the {family} requests being held back ("
                    f"{response.status} to {response.request}, {why})"
                )
            raise Limited(said)
        if odd and not self.down.get(family, False):
            return response  # what the service answers this request: the check judges it
        if not odd:
            self.down[family] = True
        raise Limited(said)
