"""How ``dealframe doctor`` waits out a rate limit or an unavailable service, as the client would.

A probe answered with a 429, a 5xx, or a 401/403 that says it is a rate limit is waited out
once (the wait the service asked, never less than the client's ``backoff_base``, at most its
``retry_after_max``), at the client's own gate (so on the transport's clock; under a key of
the run's own, so no call of the client's waits for it, nor another run, nor a later run after
one interrupted), and sent once more. What persists makes the check ``not checked``, never
``breaks``, except a 500 its route answers again, once asked after the family answered
(below):

- a rate limit that asks for more than ``retry_after_max`` (the client does not wait it: it
  holds the family), or that persists through the wait and asks again for a long one (more
  than :data:`SAID_AFTER` seconds), holds its family back for the rest of the run: the
  family's later probes are not sent, and are not checked at once. One that persists asking
  for a short wait leaves that check not checked, and the family goes on (the client would
  wait it and try again);
- a 502, 503 or 504 that persists: the service is unavailable, until a later probe of the
  family answers (the service is up again: the checks that found it unavailable are run once
  more, once only, as after an outage of 500s, below);
- a 500 that persists is never a break on its own (it may be that route's, or the service
  out for a moment): its check is judged on it for now (:attr:`Waits.judged`), and its
  route is asked once more (``dealframe.doctor.checks``: its check run once more, once only)
  after another probe of the family has answered: a 500 again is that route's break
  (:attr:`Waits.broken`: said with its method, path and status), an answer says the outage
  was over (judged on that answer). Should the family's next probe fail too, the service
  looks out: that check is not checked after all, until a later probe of the family answers
  (then it, and those that found the family down after it, are run once more, once only,
  and judged as on the first pass). Should the family's probes, or the request budget, end
  first, it is not checked: "not known", never said unavailable (that is for a 502, 503 or
  504). A deliberately odd probe (an unknown id, an empty list, page 0, a batch of 1,000
  names ...) is no exception: its 500 is judged alike, its 502/503/504 is unavailability;
- a route that keeps answering 500 (:func:`route`: the method and the path, ids read as
  ``{id}``): one that got a 500 which persisted before, the family answering since, and
  gets one again is not a second outage when the next probe, on the same route, gets a 500
  too: both may be that route's (:attr:`Waits.judged`), unless a probe on another route of
  the family fails too before the family answers (then the service looks out after all,
  and none of them breaks). Once the route's break is confirmed, a 500 of that route is
  judged as its answer, whatever the probes before it got (its checks break, said so);
  a probe of it that gets another answer is judged on that answer. Only 500s count for
  this rule: a 502/503/504 says the service is unavailable, not that a route fails;
- a probe the budget leaves no request to send again, or whose wait is not made (longer
  than ``retry_after_max``, or past :data:`WAIT_BUDGET`), is not checked, whatever it got (a
  5xx too): one answer is not judged on.

A wait longer than :data:`SAID_AFTER` seconds is said before it starts (``say``), so a long
run is never silent; the waits of one run take :data:`WAIT_BUDGET` seconds in all at most,
so a wait longer than that is never made, whatever ``retry_after_max`` allows. A wait that
would pass the budget is not made, and said so (what it was for is not checked); once the
budget is spent (less is left than the client's shortest wait, ``backoff_base``), the doctor
says once that it waits no more.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from ..errors import DealframeError, RateLimitedError
from ..transport import retry as _retry

if TYPE_CHECKING:
    from ..errors import RequestInfo
    from ..transport.session import Response, Transport

__all__ = ["SAID_AFTER", "WAIT_BUDGET", "Judged", "Limited", "Waits", "route", "seconds"]

#: Waits longer than this (seconds) are said before they start; a rate limit that persists
#: asking for longer holds its family back.
SAID_AFTER = 2.0
#: The seconds one run waits in all, at most (five minutes): past that, no more waits.
WAIT_BUDGET = 300.0
#: The 5xx that say the service is unavailable (a gateway, an overload): what persists of
#: them is never judged, whatever the probe (a deliberately odd one too).
_UNAVAILABLE = frozenset({502, 503, 504})
#: Why a probe is not sent again when the budget has no request left.
_NO_REQUEST_LEFT = "no request left to try again"
#: Runs numbered, for a gate key of each run's own.
_RUNS = itertools.count(1)


#: A path segment that is an id (it holds a digit, and is not a version: ``v2``).
_ID = re.compile(r"(?!v\d+$)[^/]*\d[^/]*")


class Limited(Exception):
    """The service did not let a probe run (rate limited or unavailable, after the one more
    try, or its family held back): the check is not checked; the message says why.

    Parameters
    ----------
    said : str
        Why (the check's observed text).
    family : str
        The family of the probe (``"public"``, ``"private"``).
    """

    def __init__(self, said: str, family: str) -> None:
        super().__init__(said)
        self.family = family


def route(request: RequestInfo) -> str:
    """The route of a request: its method and path, each segment holding a digit (an id,
    not a version) read as ``{id}``, so the profile of a company and an unknown id are one
    route.

    Examples
    --------
    >>> from dealframe.errors import RequestInfo
    >>> route(RequestInfo("GET", "/api/private/v1/companies/3f2a-41c9/sellside", "private"))
    'GET /api/private/v1/companies/{id}/sellside'
    >>> route(RequestInfo("POST", "/api/v2/companies/current", "public"))
    'POST /api/v2/companies/current'
    """
    path = "/".join("{id}" if _ID.fullmatch(part) else part for part in request.path.split("/"))
    return f"{request.method} {path}"


class Judged(NamedTuple):
    """A 500 that persisted, handed back to be judged by its check.

    Examples
    --------
    >>> lone = Judged("not known: 500 ...", "GET /api/private/v1/companies/{id}", False)
    >>> lone.words  # doctest: +NORMALIZE_WHITESPACE
    "GET /api/private/v1/companies/{id} answered 500 again, as before, while the family's
    other requests were answered: a break of that route"
    """

    #: What is said of it should the family look unavailable after all.
    said: str
    #: Its route (:func:`route`).
    path: str
    #: Whether that route got a 500 that persisted before, the family answering since.
    again: bool

    @property
    def words(self) -> str:
        """What its check adds to its break once that route's break is confirmed
        (:attr:`Waits.broken`): that the route keeps answering 500."""
        return (
            f"{self.path} answered 500 again, as before, while the family's other requests "
            "were answered: a break of that route"
        )


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
    and the wait asked. A 500 is never said unavailable: the route, or the service, failed.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> _why(SimpleNamespace(status=429), 1.0, "again after the wait")
    'rate limited: the service asked 1 s (429, again after the wait)'
    >>> _why(SimpleNamespace(status=503), None, "again after the wait")
    'unavailable (503, again after the wait)'
    >>> _why(SimpleNamespace(status=500), None, "again after the wait")
    'not known (500, again after the wait)'
    """
    what = "unavailable" if response.status >= 500 else "rate limited"  # a 429, a 401/403
    if response.status == 500:  # that route failed, or the service: which is not known
        what = "not known"
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
        #: Families whose last probe got a 5xx that persisted.
        self.down: dict[str, bool] = {}
        #: Families whose last probes got a 500 that persisted, handed back to be judged for
        #: now: a lone 500, or those of a route that may keep answering 500 (a list started
        #: anew for each run of them), what is said of each should the service look out
        #: after all. Dropped once the family answers (:meth:`answered`): then that route is
        #: asked once more (``dealframe.doctor.checks``), unless its break is confirmed.
        self.judged: dict[str, list[Judged]] = {}
        #: The routes of each family whose break is confirmed: asked once more after the
        #: family answered, they answered 500 again.
        self.broken: dict[str, set[str]] = {}
        #: The routes of each family whose probes got a 500 that persisted since the family
        #: last answered, and those that did before it answered (and have not answered
        #: since): a route in both keeps answering 500.
        self.failing: dict[str, set[str]] = {}
        self.failed: dict[str, set[str]] = {}
        #: Every run of 500s opened in this run, in order, with its family: a check that
        #: opens one and gets an answer of the family before it ends (a run over within the
        #: check, so no longer in :attr:`judged`) still has its route asked once more.
        self.opened: list[tuple[str, list[Judged]]] = []
        #: Seconds waited in this run, and whether a wait past :data:`WAIT_BUDGET` was said.
        self.waited = 0.0
        self.spent = False
        #: The gate key of this run's waits (a family's own after it).
        self.key = f"doctor:{next(_RUNS)}"

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
            raise Limited(self.held[family], family)

    def answered(self, family: str, request: RequestInfo | None = None) -> None:
        """An answer not to wait out (to ``request``, when one was sent): the service is up
        for ``family``, and that route answers. The last run of 500s (:attr:`judged`) is
        over: its route is to be asked once more, unless its break is confirmed."""
        self.down[family] = False
        self.judged.pop(family, None)
        failed = self.failed.setdefault(family, set())
        failed |= self.failing.pop(family, set())
        if request is not None:
            failed.discard(route(request))

    def confirmed(self, family: str, path: str) -> bool:
        """Whether the route ``path`` of ``family`` is a confirmed break (:attr:`broken`)."""
        return path in self.broken.get(family, ())

    def confirm(self, family: str, path: str) -> None:
        """The route ``path`` of ``family``, asked once more after the family answered,
        answered 500 again: its break is confirmed (:attr:`broken`)."""
        self.broken.setdefault(family, set()).add(path)

    def again(
        self,
        family: str,
        response: Response,
        resend: Callable[[], Response],
        *,
        left: int,
    ) -> Response:
        """``response`` (a 429, 5xx or rate-limit 401/403) waited out once, then sent once more
        (``resend``; ``left``: requests left in the run's budget).

        Returns the second answer when it is not one to wait out, or a 5xx to judge (see the
        module's docstring); else raises :class:`Limited`."""
        settings = self.t.settings
        asked = getattr(self.error(response), "retry_after", None)
        if asked is not None and asked > settings.retry_after_max:
            return self._stop(family, response, asked, "more than retry_after_max")
        if left <= 0:
            return self._stop(family, response, asked, _NO_REQUEST_LEFT)
        wait = max(asked or 0.0, settings.backoff_base)  # as the client: never less
        if self.waited + wait > WAIT_BUDGET:
            return self._stop(family, response, asked, self._spent(wait))
        if self.say is not None and wait > SAID_AFTER:
            what = (
                "rate limited"
                if self.rate_limit(response)
                else "a server error"
                if response.status == 500
                else "unavailable"
            )
            self.say(
                f"waiting {seconds(wait)}: {response.request} answered {response.status} "
                f"({what}{', the wait it asked' if asked is not None else ''}), then sending "
                "it once more"
            )
        # at the client's gate, on its clock, under a key of this run's own: the client's
        # calls of the family are not held by it, nor is this wait cut short by their holds,
        # and no other run (nor a later one, should this wait be interrupted) waits for it
        key = f"{self.key}:{family}"
        self.waited += wait
        try:
            self.t.gate.block_for(wait, key=key)
            self.t.gate.wait(key=key)
        finally:  # the key is this wait's alone: the gate keeps no entry of it (nor of one cut)
            self.t.gate.forget(key)
        second = resend()
        if not self.limited(second):
            self.answered(family, second.request)
            return second
        asked = getattr(self.error(second), "retry_after", None)
        return self._stop(family, second, asked, "again after the wait")

    def _spent(self, wait: float) -> str:
        """Why a wait is not made: it would pass :data:`WAIT_BUDGET`, said as it is not made,
        unless the budget is spent (less left than the shortest wait, ``backoff_base``): then
        "no more waits", said once."""
        left = WAIT_BUDGET - self.waited
        if wait > WAIT_BUDGET:
            why = f"not waited: more than the {seconds(WAIT_BUDGET)} the doctor waits in all"
        else:
            why = (
                f"not waited: {seconds(wait)} more would pass the {seconds(WAIT_BUDGET)} the "
                f"doctor waits in all ({seconds(self.waited)} waited)"
            )
        if left <= 0 or left < self.t.settings.backoff_base:  # no wait fits any more
            if self.say is not None and not self.spent:
                self.say(
                    f"waited {seconds(self.waited)} in all: no more waits in this run (what "
                    "the service asks to wait for is not checked)"
                )
            self.spent = True  # said once
        elif self.say is not None:  # a shorter wait may still be made: said of this one
            self.say(
                f"not waiting {seconds(wait)}: {why.removeprefix('not waited: ')} (what asked "
                "for it is not checked)"
            )
        return why

    def _stop(self, family: str, response: Response, asked: float | None, why: str) -> Response:
        """The probe is not sent again: raise :class:`Limited` (holding a family whose rate
        limit asks for long back), or return a 5xx to judge (module docstring)."""
        said = _why(response, asked, why)
        if self.rate_limit(response):
            settings = self.t.settings
            long = asked is not None and asked > min(settings.retry_after_max, SAID_AFTER)
            if why == "more than retry_after_max" or (why == "again after the wait" and long):
                self.held[family] = (  # the client's hold, for the rest of the run
                    f"rate limited: not sent, the {family} requests being held back ("
                    f"{response.status} to {response.request}, {why})"
                )
            raise Limited(said, family)
        if why != "again after the wait":
            raise Limited(said, family)  # not sent again (no request left, a wait not made):
            # one answer is not judged on
        path = route(response.request)
        judged = self.judged.get(family)
        again = path in self.failed.get(family, ())
        next_failed = _why(response, asked, f"{why}; the next probe failed too")
        if (
            response.status == 500
            and self.confirmed(family, path)
            and not self.down.get(family, False)
            and all(j.path == path for j in judged or ())
        ):  # a 500 of a route whose break is confirmed: its answer
            self._open(family).append(Judged(next_failed, path, True))
            return response
        if (
            judged
            and response.status == 500
            and again
            and {(j.path, j.again) for j in judged} == {(path, True)}
        ):  # that route's 500 again, the next probe's too, its other requests answered: its
            # break, once confirmed (asked once more after the family answers)
            judged.append(Judged(next_failed, path, True))
            return response
        if response.status == 500:  # only 500s say a route fails (a 502/503/504: unavailable)
            self.failing.setdefault(family, set()).add(path)
        if self.down.get(family, False) or judged or response.status in _UNAVAILABLE:
            self.down[family] = True  # a second 5xx in a row, or a 502/503/504: unavailable
            if response.status == 500:  # not known why: the family's probe before failed too
                said = _why(response, asked, f"{why}; the probe before failed too")
            raise Limited(said, family)
        # a lone 500: judged for now, its route asked once more once the family answers
        self._open(family, new=True).append(Judged(next_failed, path, again))
        return response

    def _open(self, family: str, *, new: bool = False) -> list[Judged]:
        """The run of 500s of ``family`` (:attr:`judged`), a new one when none is open (or
        ``new``), noted in :attr:`opened`."""
        if new or family not in self.judged:
            self.judged[family] = []
            self.opened.append((family, self.judged[family]))
        return self.judged[family]
