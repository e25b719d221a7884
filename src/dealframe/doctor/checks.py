"""The checks of ``dealframe doctor``: every assumption the client makes about a service.

Each check sends at most a few read-only requests (a list page or a resolve batch refused
as too large is asked again as the client would, size after size, at most
:data:`SIZES_ASKED` times) and compares the answer with what the client assumes: the interface document where it is explicit, and the client's default for
each point it leaves open (the decisions written in docs/sandbox.md). The verdict of a check:

- ``holds``: the service answers as assumed;
- ``adapted``: it answers another way the client copes with (a clamped ``limit``, another
  label format, another error body ...), and how is said;
- ``breaks``: the client cannot work with what it saw, and what it saw is said; a 500 that
  persists is never a break on its own: its route is asked once more after the family
  answered, and breaks if it answers 500 again (:mod:`dealframe.doctor.waits`);
- ``not checked``: the service was rate limited or unavailable (a 429, a 5xx) to the probe
  and to the one more try the doctor makes after the wait it asked for (within the client's
  ``retry_after_max``; :mod:`dealframe.doctor.waits`), or its family is held back after a
  rate limit that persisted asking for a long wait: nothing was seen, so nothing is said to
  break, and the checks that need what it would have seen, or what a check that broke did
  not see, are not checked either (:mod:`dealframe.doctor.facts`); and a check whose answers
  held nothing to judge (``A.time_series`` when no SKU asked came with a month: data null,
  absent, or holding no month)
  is not checked either, said so. The run then did not check everything (``dealframe
  doctor`` exits 2, as when the request budget runs out).

Nothing is written to the service, no token is ever printed, and the whole run sends at most
:data:`MAX_REQUESTS` requests.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._vocab import DEAL_SUBTYPES, DEAL_TYPES, REGIONS, SKUS_PER_CURRENT_REQUEST
from .._wording import counted
from ..arguments import checked_keywords, integer_in
from ..client import Client
from ..contract import (
    DOCUMENTED_FIELDS,
    Findings,
    as_count,
    blanked,
    read_page,
    shaping,
)
from ..errors import (
    _TOKEN_HINTS,
    ApiError,
    ConfigurationError,
    DealframeError,
    TransportError,
    ValidationError,
    error_from_response,
)
from ..frames.normalize import (
    canonical_uuid,
    no_offset_text,
    numbers_noted,
    offsets_noted,
    to_utc,
    warnings_noted,
    without_offset,
)
from ..frames.private import (
    company_profiles_frame,
    deals_frame,
    list_frame,
    list_page_columns,
)
from ..frames.public import (
    current_frame,
    group_current_frame,
    group_layout,
    read_meta,
    time_series_wide,
)
from ..frames.schemas import CURRENT_DATA
from ..notices import reading_answers
from ..private.aggregate import aggregate_buckets, read_aggregate, threshold_elsewhere
from ..private.api import smaller_page
from ..private.paging import PAGE_SIZE
from ..private.resolve import NAMES_PER_RESOLVE, answered_first, fewer_names, named_positions
from ..private.suppression import UNEXPLAINED
from ..public.api import (
    GROUP_TIME_SERIES_PATH,
    answer_count,
    check_group_classes,
    fewer_skus,
    read_company_items,
    read_group_series,
)
from ..public.rates import adapt_rates
from ..public.sku import sku_version
from ..transport.refusals import stated_bound
from .facts import Facts, NotChecked
from .waits import Judged, Limited, Waits

if TYPE_CHECKING:
    from ..transport.session import Response

__all__ = [
    "ADAPTED",
    "BREAKS",
    "HOLDS",
    "MAX_REQUESTS",
    "NOT_CHECKED",
    "Check",
    "Diagnosis",
    "diagnose",
    "doctor",
]

HOLDS, ADAPTED, BREAKS = "holds", "adapted", "breaks"
#: The verdict of a check that could not run: the service did not let it (rate limited or
#: unavailable), or it needs what a check not checked, or broken, would have seen.
NOT_CHECKED = "not checked"
#: Requests one run may send.
MAX_REQUESTS = 60
#: The most requests ``B.paging.limit`` and ``B.resolve.batch`` each send while their probe
#: is refused as too large: as many sizes as the client's own rule goes through from 1,000
#: to 1 when no bound is stated (1000, 500, 250, 125, 62, 31, 15, 7, 3, 1), so the doctor
#: follows the client to every size it would reach (a stated bound only shortens the way).
#: With both at most, a run sends 18 requests more than one whose sizes are taken at once
#: (about 32): within :data:`MAX_REQUESTS`.
SIZES_ASKED = max(PAGE_SIZE, NAMES_PER_RESOLVE).bit_length()
_A = "/api/v2"
_B = "/api/private/v1"
_NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"


@dataclass(frozen=True)
class Check:
    """One assumption and what the service showed.

    Attributes
    ----------
    name : str
        Short name (``paging.limit``, ``aggregate.labels.quarter`` ...).
    assumption : str
        What the client assumes.
    observed : str
        What the service did.
    verdict : {"holds", "adapted", "breaks", "not checked"}

    Examples
    --------
    The checks of a run are ``diagnosis.checks``; against a sandbox serving pages of 100
    rows at most (the ``limit-100`` profile), the client adapts to the page size:

    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02, profile="limit-100") as sb:
    ...     with dealframe.Client.for_sandbox(sb) as client:
    ...         diagnosis = dealframe.doctor(client)
    >>> [check] = [c for c in diagnosis.checks if c.verdict == ADAPTED]
    >>> check.name, check.observed
    ('B.paging.limit', 'limit 1000 served as 100 (said in meta.limit): pages of 100')
    """

    name: str
    assumption: str
    observed: str
    verdict: str


@dataclass
class Diagnosis:
    """Every check of one run, with the requests it sent.

    Examples
    --------
    >>> d = Diagnosis("http://127.0.0.1:1", [Check("x", "a", "b", HOLDS)], 1)
    >>> d.ok, d.verdict()
    (True, 'dealframe doctor: 1 hold, 0 adapted, 0 break in 1 request: the client works with this service as it is')
    """

    base_url: str
    checks: list[Check] = field(default_factory=list)
    requests: int = 0
    #: Interface families not checked, and why (``"Family B (no private key)"``).
    skipped: list[str] = field(default_factory=list)
    #: The request budget ran out: the checks after it did not run (nothing was seen of them).
    budget_reached: bool = False
    #: Families whose own token the service refused (401/403 to the first request that
    #: carried it): their checks did not run (``"Family A: the public token was rejected
    #: (401 INVALID_TOKEN)"``).
    rejected: list[str] = field(default_factory=list)
    #: Where each token of ``rejected`` is set, in the same order, as the verdict tells to
    #: check it: the transport's ``settings_from`` (a command's words: ``--private-key``,
    #: ``DEALFRAME_PRIVATE_KEY (or --private-key)``), else the Python API's
    #: (``DEALFRAME_PRIVATE_KEY (or private_key=)``).
    rejected_from: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check breaks and the service accepted every token given: nothing
        of what was checked breaks. Whether everything was checked is :attr:`complete`."""
        return not self.rejected and not any(c.verdict == BREAKS for c in self.checks)

    @property
    def not_checked(self) -> list[Check]:
        """The checks that could not run: the service did not let them (rate limited or
        unavailable, after one more try), or they need what a check not checked, or broken,
        would have seen: :data:`NOT_CHECKED`; with any, not everything was checked."""
        return [c for c in self.checks if c.verdict == NOT_CHECKED]

    @property
    def complete(self) -> bool:
        """True when every check ran: no family skipped or rejected, no check not checked,
        the budget not reached (``dealframe doctor`` exits 2 otherwise).

        Examples
        --------
        >>> d = Diagnosis("http://127.0.0.1:1", [Check("x", "a", "-", NOT_CHECKED)], 1)
        >>> d.ok, d.complete
        (True, False)
        """
        return not (self.skipped or self.rejected or self.budget_reached or self.not_checked)

    def count(self, verdict: str) -> int:
        """Checks with this verdict.

        Examples
        --------
        >>> d = Diagnosis("http://127.0.0.1:8765", [Check("B.not_found", "404", "404", HOLDS),
        ...                                         Check("B.errors", "400", "422", BREAKS)], 2)
        >>> d.count(HOLDS), d.count(ADAPTED), d.count(BREAKS)
        (1, 0, 1)
        """
        return sum(1 for c in self.checks if c.verdict == verdict)

    def verdict(self) -> str:
        """The one-line summary.

        Examples
        --------
        >>> d = Diagnosis("http://127.0.0.1:8765", [
        ...     Check("B.paging.limit", "limit up to 1000", "limit 1000 served as 100", ADAPTED),
        ...     Check("B.not_found", "an unknown id is a 404", "404", HOLDS)], 2)
        >>> d.verdict()
        'dealframe doctor: 1 hold, 1 adapted, 0 break in 2 requests: the client adapts to this service'
        """
        holds, adapted, breaks = (self.count(v) for v in (HOLDS, ADAPTED, BREAKS))
        partial = self.not_checked or self.budget_reached or self.skipped  # not all ran
        how = (
            "the client cannot rely on this service where it breaks"
            if breaks
            else "nothing was checked"
            if not holds and not adapted
            else "the client adapts to what was checked"
            if partial and adapted
            else "nothing breaks in what was checked"
            if partial
            else "the client adapts to this service"
            if adapted
            else "the client works with this service as it is"
        )
        missed = [*self.skipped]
        if self.not_checked:  # the first says why: the service limited or was unavailable
            first = self.not_checked[0]
            missed.append(
                f"{counted(len(self.not_checked), 'check')} that could not run "
                f"(first {first.name}: {first.observed})"
            )
        if self.budget_reached:
            missed.append(f"the checks after request {self.requests} (the budget ran out)")
        not_run = f"; not checked: {', '.join(missed)}" if missed else ""
        counts = f"{holds} hold, {adapted} adapted, {breaks} break in {counted(self.requests, 'request')}"
        if self.rejected:
            where = [*self.rejected_from, *["the token"] * len(self.rejected)]
            told = "; ".join(f"{r}, check {w}" for r, w in zip(self.rejected, where))
            return (
                f"dealframe doctor: {told}: the checks could not run (a token may be wrong, "
                f"expired or rotated); {counts}{not_run}"
            )
        return f"dealframe doctor: {counts}: {how}{not_run}"

    def table(self, width: int = 60) -> str:
        """The checks as a text table (assumption, observed, verdict).

        Texts longer than ``width`` characters are cut, ending in ``...``.

        Examples
        --------
        >>> d = Diagnosis("http://127.0.0.1:8765", [
        ...     Check("B.paging.limit", "POST lists take limit up to 1000",
        ...           "limit 1000 served as 100 (said in meta.limit)", ADAPTED),
        ...     Check("B.not_found", "an unknown id is a 404", "404", HOLDS)], 2)
        >>> print(d.table(width=30))
        check           assumption                      observed                        verdict
        --------------  ------------------------------  ------------------------------  -------
        B.paging.limit  POST lists take limit up to...  limit 1000 served as 100 (s...  adapted
        B.not_found     an unknown id is a 404          404                             holds
        """

        def cut(text: str) -> str:
            return text if len(text) <= width else text[: width - 3] + "..."

        rows = [("check", "assumption", "observed", "verdict")]
        rows += [(c.name, cut(c.assumption), cut(c.observed), c.verdict) for c in self.checks]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain data (``--json``).

        Examples
        --------
        >>> import json
        >>> d = Diagnosis("http://127.0.0.1:8765", [Check("B.not_found", "404", "404", HOLDS)], 1)
        >>> data = d.to_dict()
        >>> data["ok"], data["complete"], data["requests"], data["checks"][0]["verdict"]
        (True, True, 1, 'holds')
        >>> data["not_checked"]  # the names of the checks that could not run
        []
        >>> json.loads(json.dumps(data)) == data  # JSON as it is
        True
        """
        return {
            "base_url": self.base_url,
            "ok": self.ok,
            "requests": self.requests,
            "verdict": self.verdict(),
            "skipped": list(self.skipped),
            "budget_reached": self.budget_reached,
            "not_checked": [c.name for c in self.not_checked],
            "complete": self.complete,
            "rejected": list(self.rejected),
            "rejected_from": list(self.rejected_from),
            "checks": [asdict(c) for c in self.checks],
        }


class _Budget(Exception):
    """The run reached :data:`MAX_REQUESTS`."""


class _Rejected(Exception):
    """The service refused a family's own token (``family``: ``"public"``, ``"private"``):
    that family's checks cannot run."""

    def __init__(self, said: str, family: str) -> None:
        super().__init__(said)
        self.family = family


#: How the verdict names each family's token.
_TOKENS = {"public": "Family A: the public token", "private": "Family B: the private key"}


class _Doctor:
    """Sends the probes and records the checks of one run."""

    def __init__(
        self, client: Client, max_requests: int, say: Callable[[str], None] | None = None
    ) -> None:
        self.t = client._transport
        self.max = max_requests
        self.sent = 0
        self.found: list[Check] = []
        self.facts = Facts()
        self.waits = Waits(self.t, self.error, say)
        #: Families whose own token an answer has accepted.
        self.accepted: set[str] = set()
        #: A probe to wait out found no request left to send it again: the budget ran out.
        self.spent = False
        #: Family -> the rows of the checks judged for now on a lone 500, or on the 500s of
        #: a route that may keep answering 500 (:class:`Waits`), what to say of each instead
        #: should the service look out after all (the family's next probe, on another
        #: route, failing too), and the run of 500s (``Waits.judged``) it is of.
        self.judged: dict[str, list[tuple[int, str, list[Judged]]]] = {}
        #: Family -> the rows of the checks judged on a 500 that persisted (a lone 500, or
        #: those of a route that may keep answering 500), the family answering since, with
        #: the run of 500s (``Waits.judged``) each is of: a 500 is never a break on its own,
        #: so that route is asked once more (:meth:`_settle`) unless its break is confirmed.
        self.unsettled: dict[str, list[tuple[int, list[Judged]]]] = {}
        #: Family -> the rows of the checks not checked while it looked unavailable (one
        #: judged on a lone 500, those finding it down after, those a 502/503/504 found
        #: unavailable): run once more should a later probe of the family answer
        #: (:meth:`_again`).
        self.outage: dict[str, list[int]] = {}
        #: The rows already run once more (:meth:`_again`): never run again a second time.
        self.rerun: set[int] = set()
        #: The rows run once more to settle a route's break (:meth:`_settle`): once only.
        self.settled: set[int] = set()
        #: The probe of each row of :attr:`found`, with the facts it supplies.
        self.probes: list[tuple[Callable[[], tuple[str, str]], tuple[str, ...]]] = []

    # -- plumbing ---------------------------------------------------------------------------

    def send(
        self,
        family: str,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        token: Any = "family",
    ) -> Response:
        """Send one probe (:meth:`~dealframe.transport.session.Transport.probe`); a 429, 5xx
        or rate-limit 401/403 is waited out once and sent again (:class:`Waits`)."""
        self.waits.before(family)  # held back: not sent
        if self.sent >= self.max:
            raise _Budget()
        self.sent += 1
        extra = {} if token == "family" else {"token": token}

        def resend() -> Response:
            self.sent += 1
            return self.t.probe(family, method, path, json=json, params=params, **extra)

        response = self.t.probe(family, method, path, json=json, params=params, **extra)
        if self.waits.limited(response):
            left = self.max - self.sent
            self.spent = self.spent or left <= 0
            response = self.waits.again(family, response, resend, left=left)
        else:
            self.waits.answered(family, response.request)
        if token == "family" and family not in self.accepted:
            if response.status in (401, 403):
                error = self.error(response)
                code = getattr(error, "code", "")
                said = f"{_TOKENS[family]} was rejected ({response.status} {code})"
                raise _Rejected(said, family)
            self.accepted.add(family)
        return response

    def answer(self, family: str, method: str, path: str, **request: Any) -> Any:
        """The JSON document of a successful answer to one request (:meth:`send`)."""
        return self.ok_json(self.send(family, method, path, **request))

    def error(self, response: Response) -> DealframeError:
        """The typed error the client raises for an unsuccessful ``response``."""
        return error_from_response(
            response.status,
            response.content,
            response.request,
            response.headers,
            secrets=self.t._secrets,
        )

    def ok_json(self, response: Response) -> Any:
        if response.status != 200:
            raise _Seen(f"status {response.status}: {self.error(response)}")
        try:
            doc = response.json()
        except DealframeError as exc:
            raise _Seen(f"status 200 but {exc}") from None
        if not isinstance(doc, dict) or "data" not in doc:
            raise _Seen("status 200 but not a {data, meta} document")
        return doc

    def add(self, name: str, assumption: str, observed: str, verdict: str) -> None:
        """Record one check, the client's tokens blanked out of its words: they quote what
        the service sent (labels, member names, statistic keys), which may echo a token.
        :func:`diagnose` runs in the client's call (``checked_keywords``), so
        :func:`~dealframe.contract.blanked` knows its tokens."""
        self.found.append(Check(name, blanked(assumption), blanked(observed), verdict))

    def run(
        self,
        name: str,
        assumption: str,
        probe: Callable[[], tuple[str, str]],
        provides: Sequence[str] = (),
    ) -> None:
        """Run one check and record it; ``provides``: the facts it supplies to later checks
        (those it could not, when it is not checked or breaks, make them not checked in
        turn)."""
        observed, verdict, limited = self._check(name, probe, provides, len(self.found))
        self.probes.append((probe, tuple(provides)))
        self.add(name, assumption, observed, verdict)
        self._unavailable(limited)

    def _check(
        self,
        name: str,
        probe: Callable[[], tuple[str, str]],
        provides: Sequence[str],
        row: int,
    ) -> tuple[str, str, str | None]:
        """What one check (to be recorded at ``row``) observed, its verdict, and the family
        of the probe the service did not let run (:class:`Limited`), None when it ran. A
        verdict reached on a 500 that persisted (a break, or a page 0 "refused") is for now:
        noted to be judged again should the service look out after all (a check run once
        more after an outage too, :meth:`_again`: a second outage then breaks nothing
        either), else once its route is asked once more (:meth:`_settle`); one on a route
        whose break is confirmed says so."""
        before = {family: (judged, len(judged)) for family, judged in self.waits.judged.items()}
        opened = len(self.waits.opened)
        limited = None
        try:
            observed, verdict = probe()
        except _Budget:
            raise
        except Limited as exc:
            observed, verdict, limited = str(exc), NOT_CHECKED, exc.family
        except NotChecked as exc:
            observed, verdict = str(exc), NOT_CHECKED
        except TransportError as exc:
            if exc.kind in _UNREACHABLE:
                raise  # the service cannot be reached: nothing to diagnose
            observed, verdict = f"{type(exc).__name__}: {exc}", BREAKS
        except _Seen as seen:
            observed, verdict = str(seen), BREAKS
        except DealframeError as exc:
            observed, verdict = f"{type(exc).__name__}: {exc}", BREAKS
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            observed, verdict = f"unexpected answer ({type(exc).__name__}: {exc})", BREAKS
        if verdict in (NOT_CHECKED, BREAKS):  # what it did not see: the later checks say so
            self.facts.not_supplied(name, provides, broke=verdict == BREAKS)
        if verdict != NOT_CHECKED:  # judged on a 500 (a page 0 refused so holds, too):
            # unless the service looks unavailable after all
            for family, judged in self.waits.judged.items():
                old, known = before.get(family, (None, 0))
                new = judged[known:] if old is judged else judged  # this check's probes'
                if new:
                    rows = self.judged.setdefault(family, [])
                    if not [r for r in rows if r[0] == row and r[2] is judged]:
                        rows.append((row, new[0].said, judged))
                    words = [j.words for j in new if self.waits.confirmed(family, j.path)]
                    if words and verdict == BREAKS:  # a confirmed route's break: said so
                        observed = f"{observed}; {words[0]}"
            self._over(row, self.waits.opened[opened:])
        return observed, verdict, limited

    def _over(self, row: int, opened: Sequence[tuple[str, list[Judged]]]) -> None:
        """The runs of 500s ``opened`` by the check of ``row`` that the family answered before
        the check ended (a probe of it after the 500s: the run is no longer in
        ``Waits.judged``): a 500 is never a break on its own, so their route is to be asked
        once more (:attr:`unsettled`), unless its break is confirmed, or the check is being
        run to settle it (:meth:`_settle` judges what it gets)."""
        for family, run in opened:
            if self.waits.judged.get(family) is run or row in self.settled:
                continue  # still open: judged with the family's next probe (:meth:`_confirmed`)
            if run and not self.waits.confirmed(family, run[0].path):
                pending = self.unsettled.setdefault(family, [])
                if row not in [r for r, _ in pending]:
                    pending.append((row, run))

    def _unavailable(self, limited: str | None) -> None:
        """A check judged on a 500 whose family's next probe failed too: the service
        looks unavailable, so it is not checked after all, and the checks needing what it
        would have seen say so without "(it broke)" (those already recorded too). The check
        just recorded, ``limited`` (the family whose probe failed too, or found it down, or
        was found unavailable by a 502/503/504), waits with it. Should a later probe of that
        family answer, the service is up after all: they are run once more
        (:meth:`_again`), each once at most; and the checks judged on a 500 that
        persisted, the family's last probe answering since, have their route asked once
        more (:meth:`_settle`)."""
        row = len(self.found) - 1
        self._confirmed()
        if limited is not None and self.waits.down.get(limited) and row not in self.rerun:
            rows = self.outage.setdefault(limited, [])
            if row not in rows:
                rows.append(row)
        for family, rows in list(self.outage.items()):
            if self.waits.down.get(family) is False:  # a later probe of the family answered
                del self.outage[family]
                self._again(family, rows)
        for family in list(self.unsettled):
            if self.waits.down.get(family) is False and not self.waits.judged.get(family):
                self._settle(family)  # the family's last probe answered: ask the route

    def _confirmed(self) -> None:
        """The checks judged on a 500 whose family's next probe failed too: not checked
        after all (said not known), and noted to run once more should the family answer
        again, unless they already did (:attr:`rerun`: each row runs once more at most).
        Those of a run of 500s the family answered since are judged as they stand when that
        route's break is confirmed (``Waits.broken``), else their route is to be asked once
        more: :attr:`unsettled`."""
        for family, judged in list(self.judged.items()):
            down = self.waits.down.get(family)
            now = self.waits.judged.get(family)
            kept = []
            for first, said, of in judged:
                if of is now and down:
                    old = self.found[first]
                    if first not in self.rerun:
                        self.outage.setdefault(family, []).append(first)
                    self.found[first] = Check(old.name, old.assumption, blanked(said), NOT_CHECKED)
                    self._needs(old.name, broke=False)
                elif of is now:
                    kept.append((first, said, of))  # the family's next probe is yet to come
                elif not self.waits.confirmed(family, of[0].path):  # the family answered since
                    pending = self.unsettled.setdefault(family, [])
                    if first not in [row for row, _ in pending]:
                        pending.append((first, of))
            if kept:
                self.judged[family] = kept
            else:
                del self.judged[family]

    def _again(self, family: str, rows: Sequence[int]) -> None:
        """The service answers ``family`` again after an outage: the checks of ``rows`` (the
        one judged on a lone 500, those that found the family down after it, those a
        502/503/504 found unavailable) are run once more, in their order, each in its own
        row, with the rows needing what they would have seen: what they get now is judged as
        on the first pass (a 500 that persists is judged for now, its route asked once more
        once the family answers, :meth:`_settle`, unless the family's next probe fails too:
        a second outage, which leaves them not checked, never breaks). Each row runs once more at most (:attr:`rerun`). Within the
        request budget and the waits' (:data:`~dealframe.doctor.waits.WAIT_BUDGET`): those
        the request budget leaves are not checked, and say so (the budget then ran out:
        raised once every row is said)."""
        again: set[str] = set()
        spent = False
        if not self.waits.judged.get(family):  # the service answered since: the outage is
            self.waits.answered(family)  # over (a 500 of the check just run waits for the
            # next answer of the family, as any other)
        for row in range(min(rows, default=len(self.found)), len(self.found)):
            check = self.found[row]
            if check.verdict != NOT_CHECKED or row in self.rerun:
                continue
            if row in rows or _needing(check, again):
                self.rerun.add(row)
                again.add(check.name)
                spent = not self._rerun(row) or spent
        if spent:
            raise _Budget()

    def _settle(self, family: str) -> None:
        """The checks judged on a 500 that persisted (:attr:`unsettled`), the family
        answering since: a 500 is never a break on its own, so the route of each run of
        them is asked once more, its first check run once more. A 500 that persists then
        confirms that route's break (``Waits.broken``): it breaks, said so with the route's
        method, path and status (unless the family's next probe fails too: the service then
        looks out after all, and it does not); the other checks of that run are run once
        more too, each judged on what it gets (a 500 of that route: its break, said so; an
        answer: judged on it). An answer says the outage is over: each of them, and the rows
        needing what they would have seen, are run once more, judged on what they get. Each
        row is run so once at most (:attr:`settled`): one whose route was asked so already is
        not known. Within the request budget, as :meth:`_again`."""
        pending = dict(sorted(self.unsettled.pop(family)))
        firsts = {id(of): row for row, of in reversed(list(pending.items()))}
        again, spent = set[str](), False
        for row in range(min(pending), len(self.found)):
            check = self.found[row]
            of = pending.get(row)
            if row in self.settled:
                if of is not None and not self.waits.confirmed(family, of[0].path):
                    self._not_known(row, of, "asked once more already")
                continue
            if of is None and not (check.verdict == NOT_CHECKED and _needing(check, again)):
                continue
            self.settled.add(row)
            again.add(check.name)
            opened = len(self.waits.opened)
            spent = not self._rerun(row) or spent
            if of is None or firsts[id(of)] != row:
                continue
            path = of[0].path
            now = [*(self.waits.judged.get(family) or [])]  # and a run over within the check:
            now += [j for f, run in self.waits.opened[opened:] if f == family for j in run]
            if any(j.path == path for j in now) and not self.waits.confirmed(family, path):
                self.waits.confirm(family, path)  # that route's 500 again: its break
                first = self.found[row]
                if first.verdict == BREAKS:  # said so (a page 0 "refused" holds on it)
                    words = f"{first.observed}; {of[0].words}"
                    self.found[row] = replace(first, observed=words)
        if spent:
            raise _Budget()

    def _not_known(self, row: int, of: Sequence[Judged], why: str) -> None:
        """The check of ``row``, judged on the run of 500s ``of``, is not checked: whether
        that route breaks or the service was out is not known (``why``: why its route was
        not asked once more after the family answered). The checks needing what it would
        have seen say so without "(it broke)"."""
        old = self.found[row]
        said = (
            f"not known: {of[0].path} answered 500 to {counted(len(of), 'probe')} (each "
            f"again after the wait), and {why}: whether that route breaks or the service "
            "was out"
        )
        self.found[row] = replace(old, observed=blanked(said), verdict=NOT_CHECKED)
        self._needs(old.name, broke=False)

    def finish(self) -> None:
        """At the end of the run: the checks judged on a 500 that persisted whose route's
        break is not confirmed (the run ended before the family answered and that route was
        asked once more) are not checked, said so: whether that route or the whole service
        failed is not known. The checks needing what they would have seen say so without
        "(it broke)"."""
        self._confirmed()
        why = "the run ended before that route was asked once more after the family answered"
        for family in {*self.judged, *self.unsettled}:
            rows = [(row, of) for row, _, of in self.judged.get(family, [])]
            for row, of in [*rows, *self.unsettled.get(family, [])]:
                if not self.waits.confirmed(family, of[0].path):
                    self._not_known(row, of, why)

    def _rerun(self, row: int) -> bool:
        """Run the check of ``row`` once more, in its row; False when the request budget ran
        out first (said in its row, and what it supplies stays unseen)."""
        check = self.found[row]
        probe, provides = self.probes[row]
        self.facts.forget(check.name)
        ran = True
        try:
            observed, verdict, _ = self._check(check.name, probe, provides, row)
        except _Budget:  # not run again: what it supplies stays unseen, said by its row
            ran = False
            self.facts.not_supplied(check.name, provides)
            observed, verdict = _NOT_AGAIN, NOT_CHECKED
        self.found[row] = Check(check.name, check.assumption, blanked(observed), verdict)
        self._confirmed()  # a 500 the next probe got too: not checked after all
        return ran

    def _needs(self, name: str, *, broke: bool) -> None:
        """What the checks needing what ``name`` would have seen say of it (the rows recorded,
        and those to come: :attr:`Facts.unseen`): that it broke, or (``broke`` false) not."""
        plain = f"needs what {name} would have seen"
        said, was = (f"{plain} (it broke)", plain) if broke else (plain, f"{plain} (it broke)")
        for key, needs in self.facts.unseen.items():
            if needs == was:
                self.facts.unseen[key] = said
        for at, check in enumerate(self.found):
            if check.verdict == NOT_CHECKED and check.observed == was:
                self.found[at] = Check(check.name, check.assumption, said, NOT_CHECKED)


def _needing(check: Check, names: Iterable[str]) -> bool:
    """Whether ``check`` is not checked for want of what one of the checks ``names`` would
    have seen (:class:`~dealframe.doctor.facts.Facts`)."""
    return any(check.observed.startswith(f"needs what {name} would") for name in names)


#: What a check to run once more after an outage says when the request budget ran out first.
_NOT_AGAIN = (
    "the service answered again, but the request budget ran out before this check ran again"
)

#: The kinds of :class:`~dealframe.errors.TransportError` that say the service cannot be
#: reached at all (refused, no connection in time, TLS failed, a host name that does not
#: resolve): the run stops, "cannot run" (exit 2), never a break of every check.
_UNREACHABLE = frozenset({"connection", "connect_timeout", "ssl", "dns"})


class _Seen(Exception):
    """What a probe saw that makes the check break (the message says it)."""


def _items(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    data = doc.get("data")
    if not isinstance(data, list) or not all(isinstance(i, Mapping) for i in data):
        raise _Seen(f"data is not a list of objects ({type(data).__name__})")
    return data


#: Fields beyond the document's tables that the client's defaults expect (docs/sandbox.md):
#: the columns its current-data frame types beyond the documented ones (the ``Lcu`` variants
#: the document describes by rule, and the fields it says exist without listing them). Any
#: other field is kept as an extra column.
_EXPECTED_EXTRAS: Mapping[str, frozenset[str]] = {
    "current": frozenset(c.name for c in CURRENT_DATA) - frozenset(DOCUMENTED_FIELDS["current"]),
}


#: Time-series field names the client's defaults were written against (docs/sandbox.md); the
#: document gives examples only, so any other name is served as a column of its own.
_EXPECTED_SERIES = frozenset(
    {
        "marketCap",
        "enterpriseValue",
        "revenueLtm",
        "evRevenueLtm",
        "evRevenueNtm",
        "evEbitdaLtm",
        "evEbitdaNtm",
        "marginGrossLtm",
        "marginEbitdaLtm",
        "revenueGrowthNtmLtm",
    }
)
#: Members of a discovery document's filter entry (section 4.4).
_FILTER_MEMBERS = ("field", "type", "operators", "values", "description")


def _beyond(items: Sequence[Mapping[str, Any]], known: Iterable[str]) -> list[str]:
    """Members of ``items`` that are not in ``known``, sorted."""
    present = set().union(*items) if items else set()
    return sorted(present - set(known))


def _noting(found: tuple[str, str], extra: Sequence[str], what: str = "member") -> tuple[str, str]:
    """``found``, with members beyond those expected noted (and read as extra columns).

    Examples
    --------
    >>> _noting(("3 items", HOLDS), ["x"])
    ('3 items; plus 1 more member (x): kept as extra columns', 'adapted')
    """
    observed, verdict = found
    if not extra or verdict == BREAKS:
        return found
    shown = ", ".join(extra[:6]) + (" ..." if len(extra) > 6 else "")
    plural = "s" if len(extra) > 1 else ""
    return (
        f"{observed}; plus {len(extra)} more {what}{plural} ({shown}): kept as extra columns",
        ADAPTED,
    )


def _fields(items: Sequence[Mapping[str, Any]], answer: str) -> tuple[str, str]:
    present = set().union(*items) if items else set()
    documented = DOCUMENTED_FIELDS[answer]
    missing = [f for f in documented if f not in present]
    extra = sorted(present - set(documented) - _EXPECTED_EXTRAS.get(answer, frozenset()))
    if missing:
        return f"documented fields absent: {', '.join(missing)}", BREAKS
    if extra:
        return (
            f"{len(items)} items, every documented field, plus {len(extra)} more "
            f"({', '.join(extra[:6])}{' ...' if len(extra) > 6 else ''}): kept as extra "
            "columns",
            ADAPTED,
        )
    return f"{len(items)} items with exactly the documented fields", HOLDS


#: SKUs of the ``A.current`` request: enough that some company quoted in another currency
#: than USD shows which way ``rateToUsd`` goes.
_CURRENT_SKUS = 20


def _monthless(data: Any) -> str:
    """What a time-series item's ``data`` object holding no monthly value is (``"data {}"``,
    ``"2 fields, no month"``): nothing to judge months on, as data null; empty when it holds
    a month or another value (judged by the client's reader), or is no object (judged as
    such).

    Examples
    --------
    >>> _monthless({}), _monthless({"revenue": {}, "ebitda": None}), _monthless({"r": {"2024-01": 1}})
    ('data {}', '2 fields, no month', '')
    """
    if not isinstance(data, Mapping):
        return ""
    if not all(v is None or (isinstance(v, Mapping) and not v) for v in data.values()):
        return ""  # a month, or a value the client's reader judges
    return "data {}" if not data else f"{counted(len(data), 'field')}, no month"


def _rates(
    items: Sequence[Mapping[str, Any]], found: tuple[str, str], said: Findings
) -> tuple[str, str]:
    """``found``, with which way the items' ``rateToUsd`` goes, as the client reads it
    (:func:`~dealframe.public.rates.adapt_rates`): what it says is added to ``said``; rows
    whose values agree with neither way break (their conversions are wrong).

    Examples
    --------
    >>> items = [{"sku": "A-COL", "marketCap": 1.0, "marketCapLcu": 4000.0, "rateToUsd": 4000.0}]
    >>> found = Findings("doctor")
    >>> _rates(items, ("1 item", HOLDS), found)
    ('1 item; rateToUsd: units per USD', 'holds')
    >>> [f.kind for f in found]
    ['inverted_rate']
    """
    observed, verdict = found
    with reading_answers():  # the service's answers (the caller notes what is said of them)
        frame = adapt_rates(current_frame(items), said)
    seen = frame.attrs["rate_direction"]
    if seen == "not seen":
        seen = "which way it goes not seen (no company with both values at a rate other than 1)"
    wrong = [f.message for f in said if f.kind == "rate_mismatch"]
    if wrong:
        return f"{observed}; {wrong[0]}", BREAKS
    return f"{observed}; rateToUsd: {seen}", verdict


def _meta_said(doc: Mapping[str, Any], items: Sequence[Any], how: str) -> list[str]:
    """What the client's reader of this answer's ``meta`` warns of on every call (counts
    written as text, a ``meta`` that is not an object ...), in its words.

    ``how`` names the reader: ``"page"`` (a Family B list page or sub-collection page,
    ``read_page``), ``"group"`` (groups/current, ``read_meta``), else the noun of Family A's
    ``meta.count`` (``"items"``, ``"companies"``: :func:`~dealframe.public.api.answer_count`).

    Examples
    --------
    >>> _meta_said({"data": [], "meta": [1]}, [], "items")
    ['meta is list, not an object: ignored']
    """
    found = Findings("doctor")
    if how == "page":
        read_page(doc, found, number=1)
    elif how == "group":
        read_meta(doc.get("meta"), found)
    else:
        answer_count(doc, list(items), found, how)
    return list(dict.fromkeys(f.message for f in found))


def _warned(found: tuple[str, str], said: Sequence[str]) -> tuple[str, str]:
    """``found``, ``adapted`` and quoting the client's warnings when it warns (a check the
    client warns of on every call never ``holds``); a break stays a break.

    Examples
    --------
    >>> _warned(("3 items", HOLDS), ["meta.count written as text"])
    ('3 items; the client warns: meta.count written as text', 'adapted')
    """
    observed, verdict = found
    if not said or verdict == BREAKS:
        return found
    return f"{observed}; the client warns: {'; '.join(said)}", ADAPTED


def _error_body(response: Response, secrets: Iterable[str]) -> tuple[str, str]:
    """How an error body reads: the documented {error: {...}} shape, another, or nothing."""
    error = error_from_response(
        response.status, response.content, response.request, response.headers, secrets=secrets
    )
    try:
        doc = response.json()
    except DealframeError:
        doc = None
    inner = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(inner, dict) and "code" in inner and "message" in inner:
        return f"{response.status} {{error: {{code: {inner['code']}, message, details}}}}", HOLDS
    if error.message and not error.message.startswith(("HTTP ", "not a JSON error body")):
        keys = ", ".join(sorted(doc)) if isinstance(doc, dict) else "text"
        return f"{response.status} with a {{{keys}}} body, read as: {error.message[:80]}", ADAPTED
    return f"{response.status} with a body the client cannot read: {error.message[:80]}", BREAKS


# ------------------------------------------------------------------------------- Family A


def _family_a(d: _Doctor) -> None:
    def auth() -> tuple[str, str]:
        bare = d.send("public", "POST", f"{_A}/companies", json={}, token=None)
        wrong = d.send("public", "POST", f"{_A}/companies", json={}, token="doctor-not-a-token")
        code = _code(bare)
        if bare.status == 401 and code == "MISSING_TOKEN" and wrong.status in (401, 403):
            return f"no header: 401 {code}; a wrong token: {wrong.status}", HOLDS
        if bare.status in (401, 403) and wrong.status in (401, 403):
            return (
                f"no header: {bare.status} {code or ''}; a wrong token: {wrong.status} "
                "(read as AuthenticationError)"
            ), ADAPTED
        return f"no header: {bare.status}; a wrong token: {wrong.status}", BREAKS

    d.run("A.auth", "401 MISSING_TOKEN without a token, 401/403 for a wrong one", auth)

    def search() -> tuple[str, str]:
        doc = d.answer("public", "POST", f"{_A}/companies", json={})
        items = _items(doc)
        if not items:
            raise _Seen("the search returned no company: the checks that need a SKU cannot run")
        skus = [i.get("sku") for i in items if isinstance(i.get("sku"), str)]
        d.facts["skus"] = skus[:3]
        d.facts["chunk"] = list(dict.fromkeys(skus))[:SKUS_PER_CURRENT_REQUEST]
        d.facts["region"] = next((i.get("region") for i in items if i.get("region")), None)
        bad = [i.get("sku") for i in items if sku_version(i.get("sku")) != "v2"]
        if bad:
            return f"{len(bad)} SKUs not <TICKER>-<ISO3>[.N]: {bad[:3]}", BREAKS
        # meta.count as the client reads it (answer_count): what it warns of is adapted, in its
        # words; only a count above the rows held (or has_more: true) says rows are lost, and
        # breaks quoting every warning of it (a count written as text too)
        said = Findings(f"POST {_A}/companies")
        count = answer_count(doc, items, said, "companies")
        lost = [f.message for f in said if f.kind == "count_mismatch" and f.shortfall > 0]
        if lost:
            words = list(dict.fromkeys(f.message for f in said if f.message not in lost))
            too = f"; the client warns too: {'; '.join(words)}" if words else ""
            return (
                f"{lost[0]}: the client returns the {len(items)} rows held and warns{too}",
                BREAKS,
            )
        observed, verdict = _fields(items, "search")
        counted = "no meta.count read" if count is None else f"meta.count = {count}"
        return _warned(
            (f"v2 SKUs, {counted}; {observed}", verdict), _meta_said(doc, items, "companies")
        )

    d.run(
        "A.search",
        "{data: [CompanyIdentifier], meta: {count}}, v2 SKUs",
        search,
        provides=("skus", "chunk", "region"),
    )

    def search_v1() -> tuple[str, str]:
        region = d.facts.seen("region")  # optional: without it, every company
        body = {"regions": [region]} if region else {}
        doc = d.answer("public", "POST", "/api/v1/companies", json=body)
        skus = [i.get("sku") for i in _items(doc)]
        bad = [s for s in skus if sku_version(s) != "v1" and not (isinstance(s, str) and "_" in s)]
        if bad:
            return f"{len(bad)} of {len(skus)} SKUs not <EXCHANGE>_<TICKER>: {bad[:3]}", BREAKS
        return f"{len(skus)} v1 SKUs <EXCHANGE>_<TICKER>", HOLDS

    d.run("A.search.v1", "v1 SKUs <EXCHANGE>_<TICKER>", search_v1)
    _family_a_skus(d)
    _family_a_groups(d)


def _family_a_skus(d: _Doctor) -> None:
    """The Family A checks that ask for the SKUs ``A.search`` saw: not checked when it was
    not, or saw none (:class:`~dealframe.doctor.facts.NotChecked`)."""

    def current() -> tuple[str, str]:
        skus = d.facts["chunk"][:_CURRENT_SKUS]  # enough to hold a company not quoted in USD
        endpoint = f"POST {_A}/companies/current"
        response = d.send("public", "POST", f"{_A}/companies/current", json={"skus": skus})
        served = _items(d.ok_json(response))
        # the items as the client takes them (read_company_items: a SKU repeated kept once,
        # items of SKUs not asked dropped, Lcu keys respelt, meta.count read), what it says
        # of them quoted with the values' warnings below; a SKU asked it lacks breaks
        said = Findings(endpoint)
        items = read_company_items([response], [skus], skus, said, "current")
        if sorted(str(i.get("sku")) for i in items) != sorted(skus):
            shown = [i.get("sku") for i in served]
            return (
                f"asked for {len(skus)} SKUs {skus[:3]}..., got {len(served)}: {shown[:3]}",
                BREAKS,
            )
        # numbers written as text, said as the client says them; what it cannot read, raised
        # as it raises it (a ServiceContractError)
        with shaping(response.request, endpoint), _spelt() as spelt:
            found = _rates(items, _fields(items, "current"), said)
        return _warned(found, [*dict.fromkeys(f.message for f in said), *spelt])

    d.run("A.current", "CompanyCurrentData for each SKU asked", current)
    d.run(
        "A.skus_per_request",
        f"current data takes {SKUS_PER_CURRENT_REQUEST} SKUs per request (section 8)",
        lambda: _skus_per_request(d),
    )

    def series() -> tuple[str, str]:
        endpoint = f"POST {_A}/companies/time-series"
        # one SKU at a time (up to the three seen), the next one asked when the client reads
        # no row of it (data null or absent) or its data holds no month (``{}``, every
        # field ``{}`` or null): no month seen of any SKU leaves the months not checked
        skus, empty, monthless = list(dict.fromkeys(d.facts["skus"])), list[str](), 0
        for sku in skus:
            body = {"skus": [sku]}
            response = d.send("public", "POST", f"{_A}/companies/time-series", json=body)
            served = _items(d.ok_json(response))
            # the items as the client takes them (read_company_items): the SKU asked once
            # (the first of a repeated one), items of other SKUs dropped, one without data
            # left out; what it says of them quoted with the values' warnings below
            said = Findings(endpoint)
            items = read_company_items([response], [[sku]], [sku], said, "time_series")
            if items and len(items) == 1 and _monthless(items[0].get("data")):
                monthless += 1  # as data null: nothing to judge months on
                empty.append(f"{sku}: {_monthless(items[0].get('data'))}")
                continue
            if items or not any(i.get("sku") == sku and i.get("data") is None for i in served):
                break
            empty.append("; ".join(f.message for f in said))  # the client warns, no rows
        else:
            many = len(skus) > 1
            if monthless:
                return (
                    f"{'none of the ' + str(len(skus)) + ' SKUs' if many else 'the SKU'} "
                    f"asked {'(one by one) came with' if many else 'came with no'} monthly "
                    "values (data null, absent, or with no month), so no month was seen and "
                    f"how months are keyed is not checked: {'; '.join(empty)}",
                    NOT_CHECKED,
                )
            return (
                f"{'each of the ' + str(len(skus)) + ' SKUs' if many else 'the SKU'} asked "
                f"{'(one by one) ' if many else ''}came with data null or absent: the client "
                f"returns no rows for {'them' if many else 'it'} (attrs['missing_skus']), so "
                f"no month was seen and how months are keyed is not checked; the client "
                f"warns: {'; '.join(empty)}",
                NOT_CHECKED,
            )
        first = "the SKU asked first" if len(empty) == 1 else f"the first {len(empty)} SKUs asked"
        before = (
            f"{first} came with data null or absent: the client returns no rows for "
            f"{'it' if len(empty) == 1 else 'them'} (attrs['missing_skus']) and warns: "
            f"{'; '.join(empty)}; the next, {sku}: "
            if empty and not monthless
            else f"{first} came with no monthly value (data null, absent, or with no month): "
            f"{'; '.join(empty)}; the next, {sku}: "
            if empty
            else ""
        )
        if len(items) != 1 or not isinstance(items[0].get("data"), Mapping):
            words = "; ".join(f.message for f in said)
            return (
                f"{before}no item with a data object for the SKU asked"
                f"{': ' if words else ''}{words}",
                BREAKS,
            )
        data = items[0]["data"]
        # the months and values as the client reads them (its own reader): what it cannot
        # read raised as it raises it (a ServiceContractError: the check breaks), a month
        # spelt as a day ("2024-01-01") read as its month, numbers written as text said in
        # its words
        with shaping(response.request, endpoint), _spelt() as spelt:
            time_series_wide(items, skus=[sku], found=said)
        months = [m for v in data.values() if isinstance(v, Mapping) for m in v]
        # every key read is a month: those not of seven characters are spelt otherwise
        other = [m for m in dict.fromkeys(months) if len(m) != 7]
        keyed = f"keyed like {other[0]!r}: read as months (YYYY-MM)" if other else "keyed YYYY-MM"
        found = _noting(
            (
                f"{before}{len(data)} fields ({', '.join(sorted(data)[:4])}...), "
                f"{len(months)} monthly values {keyed}",
                ADAPTED if other or empty else HOLDS,
            ),
            _beyond(items, DOCUMENTED_FIELDS["time_series"]),
        )
        found = _noting(found, sorted(set(data) - _EXPECTED_SERIES), "field")
        return _warned(found, [*(f.message for f in said), *spelt])

    d.run("A.time_series", "data: {field: {YYYY-MM: number}}, any field names", series)


def _family_a_groups(d: _Doctor) -> None:
    """The Family A checks that need no SKU: group statistics and the error body."""
    region = d.facts.seen("region")  # optional: else a country
    group = {"regions": [region]} if region else {"countries": ["USA"]}

    def group_current() -> tuple[str, str]:
        response = d.send("public", "POST", f"{_A}/groups/current", json=group)
        doc = d.ok_json(response)
        data = doc.get("data")
        endpoint = f"POST {_A}/groups/current"
        # as the client reads it: meta first (what it says of it is quoted below), then data
        meta = read_meta(doc.get("meta"), Findings(endpoint))
        with shaping(response.request, endpoint), _spelt() as spelt:
            frame = group_current_frame(data, meta)
            layout = group_layout(data)
        if not len(frame) or frame[["sum", "median"]].isna().all().all():
            return f"no sum or median could be read from {layout}", BREAKS
        said = Findings(endpoint)
        check_group_classes(frame, said)  # what the client warns of on every call
        if len(said):
            return f"{layout}: {'; '.join(f.message for f in said)}", BREAKS
        known = set(DOCUMENTED_FIELDS["current"]) | _EXPECTED_EXTRAS["current"]
        extra = sorted(set(frame.index) - known)
        warned = [*spelt, *_meta_said(doc, [], "group")]
        if isinstance(data, Mapping) and {"sum", "median"} <= set(data):
            found = _noting((f"{layout} over {len(frame)} fields", HOLDS), extra, "field")
        else:
            found = _noting((f"{layout} over {len(frame)} fields: read", ADAPTED), extra, "field")
        # statistics beyond the sum and the median (stddev ...) are columns of the frame
        stats = [str(c) for c in frame.columns if c not in ("sum", "median")]
        return _warned(_noting(found, stats, "statistic"), warned)

    d.run("A.groups.current", "data {sum: {...}, median: {...}} (layout not shown)", group_current)

    def group_series() -> tuple[str, str]:
        start, end = "2024-01", "2024-03"
        body = {**group, "dateFrom": start, "dateTo": end}
        endpoint = f"POST {GROUP_TIME_SERIES_PATH}"
        response = d.send("public", "POST", GROUP_TIME_SERIES_PATH, json=body)
        doc = d.ok_json(response)
        meta = doc.get("meta") if isinstance(doc.get("meta"), Mapping) else {}
        if not {"count", "companies"} <= set(meta):
            return f"meta lacks count/companies: {sorted(meta)}", BREAKS
        # read as the client reads it, by its own reader (day-spelt months, a period repeated
        # kept once, the window asked: periods outside it never read, its meta): what it
        # cannot read raised as it raises it, what it warns of quoted in its words
        said = Findings(endpoint)
        with _spelt() as spelt:
            items = read_group_series(
                doc, said, response.request, date_from=start, date_to=end, window=True
            ).items
        found = _noting(
            (f"{len(items)} periods, meta {{count, companies}}", HOLDS),
            _beyond(items, DOCUMENTED_FIELDS["group_time_series"]),
        )
        medians = [i["median"] for i in items if isinstance(i.get("median"), Mapping)]
        found = _noting(found, _beyond(medians, _EXPECTED_SERIES), "field")
        return _warned(found, [*(f.message for f in said), *spelt])

    d.run("A.groups.time_series", "[{period, median}], meta {count, companies}", group_series)

    def error_body() -> tuple[str, str]:
        response = d.send("public", "POST", f"{_A}/companies/current", json={"skus": []})
        if response.status != 400:
            return f"an empty skus list answered {response.status}, not 400", BREAKS
        return _error_body(response, d.t._secrets)

    d.run("A.errors", "400 {error: {code, message, details.errors}}", error_body)


def _skus_per_request(d: _Doctor) -> tuple[str, str]:
    """Send one current-data request of as many SKUs as the client sends at once."""
    skus = d.facts["chunk"]
    response = d.send("public", "POST", f"{_A}/companies/current", json={"skus": skus})
    fewer = f"only {len(skus)} companies listed: " if len(skus) < SKUS_PER_CURRENT_REQUEST else ""
    if response.status == 200:
        items = _items(d.ok_json(response))
        return f"{fewer}{len(skus)} SKUs in one request answered with {len(items)} items", HOLDS
    error = d.error(response)
    size = fewer_skus(error, len(skus)) if isinstance(error, ApiError) else None
    seen = f"{fewer}{len(skus)} SKUs in one request refused ({response.status}: {error})"
    if size is None or not isinstance(error, ApiError):
        return f"{seen}: not read as a refusal of that many SKUs", BREAKS
    how = (
        "the bound stated"
        if stated_bound(error, len(skus)) is not None
        else "half: no bound stated; halved again until a size is taken"
    )
    return (
        f"{seen}: the client sends {size} SKUs per request ({how}), learned on its first "
        "refusal for v1 and v2 calls alike, and says so in attrs['skus_per_request_refused']",
        ADAPTED,
    )


def _code(response: Response) -> str | None:
    try:
        doc = response.json()
    except DealframeError:
        return None
    inner = doc.get("error") if isinstance(doc, dict) else None
    return inner.get("code") if isinstance(inner, dict) else None


# ------------------------------------------------------------------------------- Family B


def _family_b(d: _Doctor) -> None:
    def auth() -> tuple[str, str]:
        bare = d.send("private", "GET", f"{_B}/lookup/companies", token=None)
        wrong = d.send("private", "GET", f"{_B}/lookup/companies", token="doctor-not-a-key")
        code = _code(bare)
        if bare.status == 401 and wrong.status in (401, 403):
            return f"no header: 401 {code or ''}; a wrong key: {wrong.status}", HOLDS
        if bare.status in (401, 403) and wrong.status in (401, 403):  # as A.auth says it
            return (
                f"no header: {bare.status} {code or ''}; a wrong key: {wrong.status} "
                "(read as AuthenticationError)"
            ), ADAPTED
        return f"no header: {bare.status}; a wrong key: {wrong.status}", BREAKS

    d.run("B.auth", "401 without a key, 401/403 for a wrong one", auth)

    def lookup(entity: str) -> Callable[[], tuple[str, str]]:
        def check() -> tuple[str, str]:
            doc = d.answer("private", "GET", f"{_B}/lookup/{entity}")
            data = doc.get("data")
            if not isinstance(data, Mapping) or not isinstance(data.get("filters"), list):
                return "data is not {filters, sort_fields, sub_resources}", BREAKS
            d.facts[f"lookup:{entity}"] = data
            entries = [f for f in data["filters"] if isinstance(f, Mapping)]
            return _noting(
                (f"{len(data['filters'])} filters, sort keys {data.get('sort_fields')}", HOLDS),
                _beyond(entries, _FILTER_MEMBERS),
                "filter member",
            )

        return check

    for entity in ("companies", "investors", "transactions"):
        d.run(
            f"B.lookup.{entity}",
            "{filters, sort_fields, sub_resources}",
            lookup(entity),
            provides=(f"lookup:{entity}",),
        )
    _vocabularies(d)
    _paging(d)
    _entities(d)
    _resolve(d)
    _aggregate(d)


def _values(d: _Doctor, entity: str, name: str) -> Any:
    """The ``values`` a discovery document lists for filter ``name``: a list of text, None
    when it lists none, or what it wrote instead of a list (a string ...)."""
    doc = d.facts.get(f"lookup:{entity}") or {}
    for entry in doc.get("filters") or []:
        if isinstance(entry, Mapping) and entry.get("field") == name:
            values = entry.get("values")
            return [str(v) for v in values] if isinstance(values, list) else values
    return None


def _vocabularies(d: _Doctor) -> None:
    for entity, name, ours in (
        ("companies", "region", REGIONS),
        ("transactions", "deal_type", DEAL_TYPES),
        ("transactions", "deal_subtype", DEAL_SUBTYPES),
    ):

        def check(
            entity: str = entity, name: str = name, ours: Sequence[str] = ours
        ) -> tuple[str, str]:
            listed = _values(d, entity, name)  # not checked without its discovery answer
            if listed is None:
                return "no values listed (the client then checks none)", ADAPTED
            if not isinstance(listed, list):
                return (
                    f"values is {type(listed).__name__} {str(listed)[:60]!r}, not a list: "
                    "the client cannot check this filter's values (the service decides) and "
                    "warns so on every call that filters by it"
                ), ADAPTED
            more, fewer = sorted(set(listed) - set(ours)), sorted(set(ours) - set(listed))
            if not more and not fewer:
                return f"the document's {len(ours)} values", HOLDS
            parts = [
                f"{len(more)} more ({', '.join(more[:4])})" if more else "",
                f"{len(fewer)} fewer ({', '.join(fewer[:4])})" if fewer else "",
            ]
            return (
                "; ".join(p for p in parts if p) + ": the client checks filters against the "
                "live list"
            ), ADAPTED

        d.run(f"B.vocabulary.{name}", "the document's values (lists may grow)", check)

    def subs() -> tuple[str, str]:
        doc = d.facts["lookup:companies"]  # not checked without the discovery answer
        listed = {str(p).rstrip("/").rsplit("/", 1)[-1] for p in doc.get("sub_resources") or []}
        if {"sellside", "buyside"} <= listed:
            return "sellside and buyside", HOLDS
        if {"acquisitions", "investments"} & listed:
            return (
                f"the earlier names {sorted(listed & {'acquisitions', 'investments'})}: "
                "used instead"
            ), ADAPTED
        return f"listed: {sorted(listed)}", ADAPTED

    d.run("B.sub_resources", "/companies/{id}/sellside and /buyside", subs)


def _how(error: ApiError, sent: int, smaller: int) -> str:
    """How the client came to ``smaller`` after ``error`` refused ``sent``."""
    stated = stated_bound(error, sent) is not None
    return f"{smaller} ({'the bound stated' if stated else 'half: no bound stated'})"


def _paging(d: _Doctor) -> None:
    def limit() -> tuple[str, str]:
        """Page 1 at the client's page size; a refusal about ``limit`` is asked again as the
        client asks (:func:`~dealframe.private.api.smaller_page`: the bound stated, else
        half) until a size is taken, at most :data:`SIZES_ASKED` requests."""
        asked, steps, last = PAGE_SIZE, list[str](), ""
        # the documented body, without page (as a list walk asks its first page): any service
        # answers it with its first page, however it counts pages (B.paging.page tells that)
        body = {"filters": {}, "sort": "name:asc", "limit": asked}
        response = d.send("private", "POST", f"{_B}/companies", json=body)
        for _ in range(SIZES_ASKED - 1):
            if response.status == 200:
                break
            error = d.error(response)
            smaller = smaller_page(error, asked) if isinstance(error, ApiError) else None
            if smaller is None or not isinstance(error, ApiError):
                break  # not about limit: the client raises it, as ok_json says below
            words = f"({response.status}: {error})"
            steps.append(f"limit {asked} refused {'alike' if words == last else words}")
            steps[-1] += f": the client asks {_how(error, asked, smaller)}"
            asked, last = smaller, words
            body["limit"] = asked
            response = d.send("private", "POST", f"{_B}/companies", json=body)
        refused = f"{'; '.join(steps)}; asked again: " if steps else ""
        if response.status != 200 and steps:
            error = d.error(response)
            more = isinstance(error, ApiError) and smaller_page(error, asked) is not None
            return (
                f"{refused}limit {asked} refused ({response.status}: {error}): "
                + (
                    f"still refused after {SIZES_ASKED} sizes (the doctor asks no more)"
                    if more
                    else "the client raises it"
                ),
                BREAKS,
            )
        doc = d.ok_json(response)
        items = _items(doc)
        meta = doc.get("meta") if isinstance(doc.get("meta"), Mapping) else {}
        d.facts["company"] = next(
            (i.get("id") for i in items if isinstance(i.get("id"), str)), None
        )
        d.facts["stamps"] = [i.get("updated_at") for i in items[:200]]
        d.facts["names"] = [i.get("name") for i in items[:3] if isinstance(i.get("name"), str)]
        d.facts["company_items"] = items[:100]
        # meta as the client's walk reads it: counts written as text are read, and warned of
        read = read_page(doc, Findings("doctor"), number=1)
        d.facts["list_said"] = _meta_said(doc, items, "page")
        served = read.limit
        missing = [k for k in ("page", "limit", "returned", "total", "has_more") if k not in meta]
        note = (
            f"; meta lacks {', '.join(missing)} (the walk follows has_more / empty pages)"
            if missing
            else ""
        )
        if served is not None and served < asked:
            return (
                f"{refused}limit {asked} served as {served} (said in meta.limit): "
                f"pages of {served}{note}",
                ADAPTED,
            )
        got = len(items)
        if got >= asked:
            return f"{refused}{asked} rows per page{note}", ADAPTED if missing or refused else HOLDS
        seen = f"{refused}{got} rows of {asked:,} asked"
        total = read.total
        if read.has_more is True:
            return f"{seen} with has_more true: pages of {got}{note}", ADAPTED
        if total is not None and total > got:
            return f"{seen} of meta.total {total}: pages of {got}{note}", ADAPTED
        if total is None and read.has_more is None and got:
            return (
                f"{seen}, and meta says neither total nor has_more: the walk asks for page 2 "
                f"at {got} rows and goes on until an empty or short page{note}",
                ADAPTED,
            )
        whole = f"{seen}: the whole list" + ("" if total is None else f" (meta.total {total})")
        return f"{whole}{note}", ADAPTED if missing or refused else HOLDS

    d.run(
        "B.paging.limit",
        "POST lists take limit up to 1000 (bound not shown)",
        lambda: _warned(limit(), d.facts.seen("list_said") or []),
        provides=("company", "stamps", "names", "company_items", "list_said"),
    )

    def items() -> tuple[str, str]:
        found = d.facts.get("company_items")
        if not found:
            return "no company list items seen", BREAKS
        unreadable, said = _read(_list_frame("companies"), found)
        if unreadable:
            return unreadable, BREAKS
        return _warned(_fields(found, "companies"), said)

    d.run("B.list_items", "company list items carry the documented fields", items)

    def page() -> tuple[str, str]:
        body = {"filters": {}, "sort": "name:asc", "limit": 2}
        first = _items(d.answer("private", "POST", f"{_B}/companies", json={**body, "page": 1}))
        second = _items(d.answer("private", "POST", f"{_B}/companies", json={**body, "page": 2}))
        ids = (_ids(first), _ids(second))
        if second and ids[0] == ids[1]:
            return "page 2 repeats page 1 on /companies: the body member page is ignored", BREAKS
        # every list the client walks: one ignoring page would be read as its first page
        # over and over (deals() stops at repeated_page), so each is asked for pages 1 and 2
        ignored = [entity for entity in ("investors", "transactions") if _page_ignored(d, entity)]
        if ignored:
            lists = " and ".join(f"/{entity}" for entity in ignored)
            return (
                f"page 2 repeats page 1 on {lists} (not on /companies): the body member page "
                "is ignored there",
                BREAKS,
            )
        zero = d.send("private", "POST", f"{_B}/companies", json={**body, "page": 0})
        before = _ids(_items(d.ok_json(zero))) if zero.status == 200 else []
        if before and before != ids[0]:
            return (
                "page 2 follows page 1 on every list, and page 0 holds the rows before page "
                "1: pages count from 0 (a list walk asks its first page without page, then "
                "page=1, whose rows are new to the first page: the later pages are asked from "
                "page=2, and the client's later list calls count from 0)",
                ADAPTED,
            )
        return "page 2 follows page 1 on /companies, /investors and /transactions" + (
            "" if zero.status == 200 else "; page 0 is refused"
        ), HOLDS

    d.run(
        "B.paging.page",
        "page is a body member of every POST list (not shown)",
        lambda: _warned(page(), list(dict.fromkeys(d.facts.seen("pages_said") or []))),
    )

    def stamps() -> tuple[str, str]:
        seen = d.facts.get("stamps") or []
        values = [v for v in seen if isinstance(v, str)]
        if not values:
            return (
                f"updated_at is not an ISO 8601 string: {seen[:2]}"
                if seen
                else "no updated_at seen"
            ), BREAKS
        parsed = to_utc(values, "updated_at", warn=False)  # said here, as a finding
        if pd.isna(parsed).any():
            return f"unreadable timestamps: {values[:2]}", BREAKS
        bare = without_offset(values)
        if bare:  # the document gives an offset: local time would shift every stamp
            return (
                f"{len(bare)} of {len(values)} stamps like {bare[0]}: no offset; assumed UTC"
            ), ADAPTED
        if all(v.endswith("+00:00") and "." not in v for v in values):
            return f"{len(values)} stamps like {values[0]}", HOLDS
        odd = next(v for v in values if not v.endswith("+00:00") or "." in v)
        return f"stamps like {odd}: read and converted to UTC", ADAPTED

    d.run("B.timestamps", "ISO 8601 with offset, +00:00", stamps)


def _ids(items: Sequence[Any]) -> list[Any]:
    """The ``id`` of each item in the one spelling the client compares ids in
    (:func:`~dealframe.frames.normalize.canonical_uuid`): a page served with its ids in upper
    case holds the rows of the same page in lower case, as the client's walk reads them.

    Examples
    --------
    >>> _ids([{"id": "5F38873F-6E1C-4D6F-AD87-E6977CDA30BA"}, {"name": "x"}])
    ['5f38873f-6e1c-4d6f-ad87-e6977cda30ba', None]
    """
    return [canonical_uuid(i.get("id")) if isinstance(i, Mapping) else None for i in items]


def _page_ignored(d: _Doctor, entity: str) -> bool:
    """Whether the POST list of ``entity`` answers page 2 with page 1's rows (two small
    pages, asked as the client's walk asks them: no sort)."""

    def ids(page: int) -> list[Any]:
        body = {"filters": {}, "limit": 2, "page": page}
        doc = d.answer("private", "POST", f"{_B}/{entity}", json=body)
        items = _items(doc)
        said = d.facts.setdefault("pages_said", [])
        said += [f"/{entity}: {words}" for words in _meta_said(doc, items, "page")]
        unreadable, spelt = _read(_list_frame(entity), items)
        if unreadable:  # deals() and investors() raise it: B.list_items reads /companies only
            raise _Seen(f"/{entity} page {page}: {unreadable}")
        said += [f"/{entity}: {words}" for words in spelt]
        return _ids(items)

    first, second = ids(1), ids(2)
    return bool(second) and first == second


def _read(build: Callable[[Any], Any], items: Sequence[Any]) -> tuple[str | None, list[str]]:
    """``items`` read by the client's own frame builder: what stops it (None when nothing
    does: a shape check alone would pass answers the client then refuses, timestamps as Unix
    seconds), and what it says of them on every call, in its words (:func:`_spelt`).

    Examples
    --------
    >>> _read(company_profiles_frame, [{"id": _NO_SUCH_ID, "deleted": "false"}])
    (None, ["deleted: booleans written as text or as 0/1 in 1 of 1 values (such as 'false'; id 00000000-0000-4000-8000-000000000000): read as the booleans they say"])
    """
    with reading_answers(), _spelt() as said:  # the service's answers: never warned of
        try:
            build(items)
        except DealframeError as exc:
            return f"the client cannot read it: {exc}", []
    return None, said


@contextlib.contextmanager
def _spelt() -> Iterator[list[str]]:
    """Within it, what the client's frame readers warn of in the values they meet is
    collected, not warned of (this thread's alone, no warning filter changed): numbers and
    booleans written as text (``"1.5"``, ``"true"``:
    :func:`~dealframe.frames.normalize.numbers_noted`), timestamps without an offset
    (:func:`~dealframe.frames.normalize.offsets_noted`), empty strings or text that is no
    finite number where a number is documented
    (:func:`~dealframe.frames.normalize.warnings_noted`). Once the block ends, the list
    yielded holds what the client warns of them on every call, in its words."""
    said: list[str] = []
    with numbers_noted() as spelt, offsets_noted() as bare, warnings_noted() as other:
        try:
            yield said
        finally:
            said += [numbers.text(name) for name, numbers in spelt.items()]
            said += [no_offset_text(name, *seen) for name, seen in bare.items()]
            said += other


def _list_frame(entity: str) -> Callable[[Sequence[Any]], Any]:
    """The client's reader of one page of the POST list of ``entity``."""
    return lambda items: list_frame(entity, [list_page_columns(entity, items)])


def _entities(d: _Doctor) -> None:
    def missing() -> tuple[str, str]:
        response = d.send("private", "GET", f"{_B}/companies/{_NO_SUCH_ID}")
        if response.status == 404:
            return "404", HOLDS
        return f"an unknown id answered {response.status}, not 404", BREAKS

    def profile() -> tuple[str, str]:
        company = d.facts["company"]  # not checked when B.paging.limit was not, or broke
        doc = d.answer("private", "GET", f"{_B}/companies/{company}")
        data = doc.get("data")
        # ids compared as the client compares them: one spelling (upper case is the same id)
        if not isinstance(data, Mapping) or canonical_uuid(data.get("id")) != canonical_uuid(
            company
        ):
            return "data is not the company asked for", BREAKS
        unreadable, said = _read(company_profiles_frame, [data])
        if unreadable:
            return unreadable, BREAKS
        extra = sorted(
            set(data)
            - set(DOCUMENTED_FIELDS["companies"])
            - {"employee_count", "stock_listing", "valuation", "fundamentals", "deal_activity"}
        )
        if extra:
            found = f"the profile, plus {', '.join(extra[:5])}: kept as extra columns", ADAPTED
            return _warned(found, said)
        return _warned(("the documented profile", HOLDS), said)

    d.run("B.profile", "GET /companies/{id}: {data: profile}", profile)
    d.run("B.not_found", "an unknown id is a 404", missing)

    def sub() -> tuple[str, str]:
        listed = (d.facts.seen("lookup:companies") or {}).get("sub_resources") or []
        name = (
            "acquisitions"
            if any(str(p).endswith("/acquisitions") for p in listed)
            and not any(str(p).endswith("/sellside") for p in listed)
            else "sellside"
        )
        # The target of a recent M&A deal has a sellside row whose shape can be checked.
        body = {"filters": {"deal_type": ["M&A"]}, "sort": "deal_date:desc", "limit": 1, "page": 1}
        deal = _items(d.answer("private", "POST", f"{_B}/transactions", json=body))
        target = deal[0].get("target") if deal and isinstance(deal[0], Mapping) else None
        ident = target.get("id") if isinstance(target, Mapping) else None
        # the deal's target, else a listed company (not checked when none was seen)
        path = f"{_B}/companies/{ident or d.facts['company']}/{name}"
        doc = d.answer("private", "GET", path, params={"page": 1, "limit": 5})
        rows = _items(doc)
        if not rows:
            return f"/{name} answered with no rows: their shape could not be checked", HOLDS
        unreadable, said = _read(deals_frame, rows)
        if unreadable:
            return unreadable, BREAKS
        said += _meta_said(doc, rows, "page")  # counts written as text, as the client says
        extra = _beyond(rows, DOCUMENTED_FIELDS["transactions"])
        meta = doc.get("meta") if isinstance(doc.get("meta"), Mapping) else {}
        if not {"page", "limit", "total"} <= set(meta):
            found = _noting((f"meta {sorted(meta)} lacks page/limit/total", ADAPTED), extra)
        else:
            found = _noting(
                (f"/{name} pages with {{page, limit, returned, total, has_more}}", HOLDS), extra
            )
        return _warned(found, said)

    d.run("B.sub_collection", "GET sub-collections page with page/limit", sub)

    def errors() -> tuple[str, str]:
        company = d.facts["company"]
        response = d.send(
            "private",
            "GET",
            f"{_B}/companies/{company}/fundings",
            params={"page": 1, "limit": 0},
        )
        if response.status != 400:
            return f"limit=0 answered {response.status}, not 400", BREAKS
        return _error_body(response, d.t._secrets)

    d.run("B.errors", "400 in Family A's {error: {...}} body (Family B's not shown)", errors)


#: The fields a resolve result may hold without being "beyond" the document.
_RESOLVED = (*DOCUMENTED_FIELDS["resolve"], "candidates")


def _resolve(d: _Doctor) -> None:
    d.run(
        "B.resolve.batch",
        f"up to {NAMES_PER_RESOLVE} names per request (limit not shown)",
        lambda: _resolve_batch(d),
    )


def _resolve_batch(d: _Doctor) -> tuple[str, str]:
    """Send one resolve request of as many names as the client sends at once; a refusal is
    judged by the client's own rule (:func:`~dealframe.private.resolve.fewer_names`): one about
    how many names the batch holds is asked again at the size the client would send (the
    bound stated, else half) until a size is taken, as the client splits its batches, at
    most :data:`SIZES_ASKED` requests; a refusal naming names (``names[3]``) is the client
    sending each name it may mean alone (failed only if refused alone) and the rest again, any other is what the client raises."""
    sent, refused, last = NAMES_PER_RESOLVE, list[str](), ""
    for _ in range(SIZES_ASKED):  # 1000 -> a stated bound, or halves down to 1
        names = [f"zz doctor probe {i}" for i in range(sent)]
        response = d.send("private", "POST", f"{_B}/companies/resolve", json={"names": names})
        if response.status == 200:
            break
        error = d.error(response)
        fewer = fewer_names(error, sent) if isinstance(error, ApiError) else None
        words = f"({response.status}: {error})"
        seen = f"{sent} names refused {'alike' if words == last else words}"
        if fewer is None or not isinstance(error, ApiError):
            named = isinstance(error, ApiError) and named_positions(error)
            what = (
                "names of ordinary text refused one by one (the client sends each named name "
                "alone, reports it failed only when refused alone, and sends the rest again)"
                if named
                else "not read as a refusal of that many names (the client raises it)"
                if sent > 1
                else "one name refused (the client splits no further and raises it)"
            )
            return f"{'; '.join([*refused, seen])}: {what}", BREAKS
        refused.append(f"{seen}: the client sends {_how(error, sent, fewer)}")
        sent, last = fewer, words
    else:
        return (
            f"{'; '.join(refused)}: still refused after {SIZES_ASKED} sizes (the doctor asks "
            "no more)"
        ), BREAKS
    items = _items(d.ok_json(response))
    if len(items) != sent:
        first = answered_first(names, items)
        if first is None:
            return f"{sent} names gave {len(items)} results", BREAKS
        said = (
            f"{sent} names gave results for the first {first} only (paired by their query): "
            f"the client sends the names left again in batches of {first}, and keeps that "
            "size once a batch sent again comes back whole"
        )
        return _noting(("; ".join([*refused, said]), ADAPTED), _beyond(items, _RESOLVED))
    extra = _beyond(items, _RESOLVED)
    if not refused:
        return _noting((f"{sent} names in one request", HOLDS), extra)
    return _noting(
        (
            f"{'; '.join(refused)}; {sent} accepted: the client splits its batches to that "
            "size and keeps it for its later calls",
            ADAPTED,
        ),
        extra,
    )


def _bucket_list(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """An aggregate's buckets as plain objects (for the members they carry)."""
    data = aggregate_buckets(doc.get("data"), Findings("aggregate"))
    return [i for i in data if isinstance(i, Mapping)] if isinstance(data, list) else []


def _total_deals(doc: Mapping[str, Any]) -> int:
    """``meta.total_deals`` of an aggregate answer, 0 when it says none."""
    meta = doc.get("meta")
    total = as_count(meta.get("total_deals")) if isinstance(meta, Mapping) else None
    return total or 0


def _threshold_elsewhere(d: _Doctor, meta: Any) -> str:
    """Where the client's analytics take ``small_n_threshold`` from when the aggregate answer
    has no ``meta.methodology.small_n_threshold`` (:func:`threshold_elsewhere`)."""

    def listed() -> Any:
        document = d.facts.seen("lookup:transactions")
        if document is None:  # not read (a failed or refused read): nothing to say of it
            raise LookupError
        return document

    try:
        threshold, source = threshold_elsewhere(meta, listed)
    except LookupError:
        return (
            "the client looks next in the transactions discovery document, which the doctor "
            "could not read (the client's analytics fail where they cannot read it either)"
        )
    return f"the client uses {threshold}, {source}, and warns"


#: The metric of the aggregates the doctor asks for.
_METRIC = "ev_revenue"
#: Aggregate findings that make the client's frame lose deals or buckets: the check breaks.
_AGGREGATE_LOSSES = ("wrong_shape", "count_mismatch", "unreadable_label")


def _read_aggregate(
    doc: Mapping[str, Any], bucket: str, *, suppression: bool = False
) -> tuple[pd.DataFrame, Findings, list[str]]:
    """An aggregate answer read as ``client.private.aggregate`` reads it: its frame, the
    findings the client warns of (the ``small_n_threshold`` ones are left to
    ``B.aggregate.methodology``, which says where the client takes the value instead; the
    ``threshold_mismatch`` one, buckets that disagree with it, to ``B.aggregate.suppression``,
    which asks for it with ``suppression``), and what its readers warn of in the values
    (:func:`_spelt`: noted, not warned).

    Examples
    --------
    >>> frame, found, spelt = _read_aggregate({"data": {"buckets": []}, "meta": {}}, "month")
    >>> len(frame), [f.kind for f in found], spelt
    (0, ['wrong_shape'], [])
    """
    found = Findings(f"POST {_B}/transactions/aggregate")
    with _spelt() as spelt:
        frame = read_aggregate(
            doc, bucket, found, metric=_METRIC, threshold=False, suppression=suppression
        )
    return frame, found, spelt


def _said_of(found: Findings) -> str:
    """The words of the client's findings, as its warnings give them."""
    return "; ".join(f.message for f in found)


def _aggregate(d: _Doctor) -> None:
    for bucket, canonical in (("quarter", "YYYY-Qn"), ("month", "YYYY-MM")):

        def labels(bucket: str = bucket, canonical: str = canonical) -> tuple[str, str]:
            body = {"metric": _METRIC, "time_bucket": bucket, "filters": {}}
            doc = d.answer("private", "POST", f"{_B}/transactions/aggregate", json=body)
            if bucket == "quarter":
                d.facts["aggregate_meta"] = doc.get("meta")
            d.facts[f"aggregate_{bucket}"] = doc
            frame, found, spelt = _read_aggregate(doc, bucket)
            said = "; ".join(filter(None, [_said_of(found), *spelt]))
            if any(f.kind in _AGGREGATE_LOSSES for f in found):
                return f"the client warns: {said}", BREAKS
            if not len(frame) and _total_deals(doc):
                return (
                    f"no bucket read, while meta.total_deals is {_total_deals(doc)}: the "
                    "client returns an empty frame"
                ), BREAKS
            keyed = (
                "; data keyed by label: read as buckets"
                if isinstance(doc.get("data"), Mapping)
                else ""
            )
            served = list(frame.attrs["labels_as_served"])
            read = list(frame["bucket"])
            extra = _beyond(_bucket_list(doc), DOCUMENTED_FIELDS["aggregate"])
            warned = f"; the client warns: {said}" if said else ""
            if all(str(s) == r for s, r in zip(served, read)):
                like = served[0] if served else "-"
                seen = f"{len(served)} buckets labelled like {like}{keyed}{warned}"
                return _noting((seen, ADAPTED if keyed or said else HOLDS), extra)
            return _noting(
                (f"labels like {served[0]!r}: read as {read[0]}{keyed}{warned}", ADAPTED), extra
            )

        d.run(
            f"B.aggregate.labels.{bucket}",
            f"{bucket} labels {canonical} (not shown)",
            labels,
            provides=(f"aggregate_{bucket}", "aggregate_meta")
            if bucket == "quarter"
            else (f"aggregate_{bucket}",),
        )

    def method() -> tuple[str, str]:
        meta = d.facts.get("aggregate_meta")
        methodology = meta.get("methodology") if isinstance(meta, Mapping) else None
        if not isinstance(methodology, Mapping):
            return f"no meta.methodology: {_threshold_elsewhere(d, meta)}", BREAKS
        rule, written = methodology.get("outlier_rule"), methodology.get("small_n_threshold")
        n = as_count(written)
        if n is None:
            return (
                f"outlier_rule {rule!r}, small_n_threshold {written!r}: "
                f"{_threshold_elsewhere(d, meta)}"
            ), BREAKS
        if rule != "iqr_1.5":
            return f"outlier_rule {rule!r}, small_n_threshold {written!r}", BREAKS
        if n != 5 or type(written) is not int:
            said = n if type(written) is int else f"{written!r}, read as {n},"
            return (
                f"small_n_threshold {said}: read at run time (analytics take the service's value)"
            ), ADAPTED
        return "iqr_1.5, small_n_threshold 5, default window 5 years", HOLDS

    d.run("B.aggregate.methodology", "iqr_1.5 trimming, small_n_threshold 5", method)

    def suppression() -> tuple[str, str]:
        doc = d.facts.get("aggregate_month")
        doc = doc if isinstance(doc, Mapping) else {}
        meta = doc.get("meta")
        meta = meta if isinstance(meta, Mapping) else {}
        methodology = meta.get("methodology")
        threshold = as_count(
            methodology.get("small_n_threshold") if isinstance(methodology, Mapping) else None
        )
        if threshold is None:
            return (
                "no meta.methodology.small_n_threshold to read buckets by: "
                f"{_threshold_elsewhere(d, meta)}"
            ), BREAKS
        # the values the client warns of are the labels checks' to say
        frame, found, _ = _read_aggregate(doc, "month", suppression=True)
        # unreadable labels are the labels checks' break; here, the deals the frame loses,
        # and buckets suppressed by another threshold than the one reported (the analytics
        # and reconcile cut local buckets by the reported one: they disagree on those)
        lost = [
            f.message
            for f in found
            if f.kind in ("wrong_shape", "count_mismatch", "threshold_mismatch")
        ]
        if lost or (not len(frame) and _total_deals(doc)):
            words = "; ".join(lost) or f"no bucket read of meta.total_deals {_total_deals(doc)}"
            return f"the client warns: {words}", BREAKS
        # no one threshold gives the buckets' suppression: n may count deals without a value
        # (the document says only "n (deal count)"), not a break
        unexplained = [f.message for f in found if f.kind == UNEXPLAINED]
        if unexplained:
            return f"the client warns: {'; '.join(unexplained)}", ADAPTED
        n = frame["n"]
        small = int(((n > 0) & (n < threshold)).fillna(False).sum())
        left = frame.attrs["buckets_left_out"]
        if small:
            return (
                f"{small} month buckets below {threshold} deals returned with null statistics"
            ), HOLDS
        if left:
            return (
                f"{len(left)} month buckets of the window left out (suppressed: read from "
                "the window, in attrs['buckets_left_out'])"
            ), ADAPTED
        return "no month bucket below the threshold in the answer", HOLDS

    d.run(
        "B.aggregate.suppression",
        "buckets below the threshold returned with null statistics (rule 3)",
        suppression,
    )


#: The families ``family=`` takes, with the token each needs.
_FAMILIES = {"A": ("public_token", "the public token"), "B": ("private_key", "the private key")}


@checked_keywords
def doctor(
    client: Client,
    *,
    max_requests: int = MAX_REQUESTS,
    family: str | None = None,
    say: Callable[[str], None] | None = None,
) -> Diagnosis:
    """Check every assumption the client makes about the service it points at.

    Read-only; at most ``max_requests`` requests. Family A checks run when the client has a
    public token, Family B checks when it has a private key; a family without its token is
    listed in ``.skipped`` (``dealframe doctor`` then exits 2), unless ``family`` asks for
    the other one alone.

    Parameters
    ----------
    client : dealframe.Client
        A configured client (its base URL and tokens are used; nothing is cached).
    max_requests : int
        Upper bound on the requests sent (default 60).
    family : {"A", "B"}, optional
        Check this family only (its token is then required); default both.
    say : callable, optional
        Told one line before each wait longer than a few seconds
        (:data:`~dealframe.doctor.waits.SAID_AFTER`) the service asks for (a 429's
        ``Retry-After``), so a long run is not silent; ``dealframe doctor`` prints it to
        standard error. The client's ``retry_after_max`` caps every wait, and the waits of
        a run take :data:`~dealframe.doctor.waits.WAIT_BUDGET` (300) seconds in all at most:
        a wait that would pass that is not made (whatever ``retry_after_max`` allows), and
        what it was for is not checked.

    Returns
    -------
    Diagnosis
        ``.checks``, ``.ok`` (nothing of what was checked breaks, every token accepted),
        ``.complete`` (every check ran), ``.rejected`` (the families whose token the
        service refused: their checks did not run), ``.not_checked`` (the checks that
        could not run: rate limited or unavailable after one more try, their family held
        back after a rate limit that persisted, and those needing what such a check, or
        one that broke, would have seen, or whose answers held nothing to judge),
        ``.table()``, ``.verdict()``, ``.to_dict()``.

    Raises
    ------
    ValidationError
        ``client`` is not a client, ``max_requests`` is not a positive whole number, or
        ``family`` is not ``"A"`` or ``"B"``.
    ConfigurationError
        No base URL, no token, or no token for the ``family`` asked for.
    TransportError
        The service cannot be reached at all (connection refused, TLS failure, a host name
        that does not resolve).

    Examples
    --------
    >>> import dealframe, dealframe.sandbox
    >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as c:
    ...     diagnosis = dealframe.doctor(c)
    >>> diagnosis.ok, diagnosis.requests <= 60
    (True, True)
    """
    if not isinstance(client, Client):
        raise ValidationError("client", "a dealframe.Client", got=type(client).__name__)
    max_requests = integer_in(
        max_requests, "max_requests", 1, None, "a whole number of requests, 1 or more"
    )
    if family is not None:
        if not isinstance(family, str) or family.strip().upper() not in _FAMILIES:
            raise ValidationError("family", "'A' or 'B' (or None: both)", got=family)
        family = family.strip().upper()
    settings = client.settings
    if not settings.base_url:
        raise ConfigurationError(
            "base_url is not set: pass base_url= (--base-url) or set DEALFRAME_BASE_URL",
            field="base_url",
        )
    if not (settings.public_token or settings.private_key):
        raise ConfigurationError(
            "no token: set DEALFRAME_PUBLIC_TOKEN and/or DEALFRAME_PRIVATE_KEY "
            "(or --public-token/--private-key)",
            field="public_token",
        )
    if family is not None and not getattr(settings, _FAMILIES[family][0]):
        option = _FAMILIES[family][0].replace("_", "-")
        raise ConfigurationError(
            f"Family {family} asked for, but {_FAMILIES[family][1]} is not set: set "
            f"DEALFRAME_{_FAMILIES[family][0].upper()} (or --{option})",
            field=_FAMILIES[family][0],
        )
    if say is not None and not callable(say):
        raise ValidationError("say", "a callable taking one line, or None", got=type(say).__name__)
    d = _Doctor(client, max_requests, say)
    budget_reached = False
    rejected: list[str] = []
    rejected_from: list[str] = []
    # a flag per family, never the token: a traceback recording locals shows this frame
    has = {"A": bool(settings.public_token), "B": bool(settings.private_key)}
    try:
        for name, checks in (("A", _family_a), ("B", _family_b)):
            if not has[name] or family not in (None, name):
                continue
            try:
                checks(d)
            except _Rejected as exc:  # a wrong or rotated token: nothing of it to diagnose
                rejected.append(str(exc))
                rejected_from.append(_token_from(d.t.settings_from, exc.family))
    except _Budget:  # not the service's fault: said as checks not run, never as a break
        budget_reached = True
    d.finish()
    budget_reached = budget_reached or d.spent  # a probe not sent again for want of requests
    skipped = [
        said
        for name, said in (("A", "Family A (no public token)"), ("B", "Family B (no private key)"))
        if not has[name] and family in (None, name)
    ]
    return Diagnosis(
        settings.base_url, d.found, d.sent, skipped, budget_reached, rejected, rejected_from
    )


#: The same function under the name the package and the command give it
#: (``dealframe.doctor.diagnose``); its argument errors name ``doctor``.
diagnose = doctor


def _token_from(settings_from: Mapping[str, str], family: str) -> str:
    """Where ``family``'s token is set, as a refusal tells to check it: as a command's user
    set it (``settings_from``, :func:`dealframe.clitools.said_from`), else as the Python
    API's errors say (:class:`~dealframe.errors.AuthenticationError`).

    Examples
    --------
    >>> _token_from({}, "private")
    'DEALFRAME_PRIVATE_KEY (or private_key=)'
    >>> _token_from({"private": "--private-key"}, "private")
    '--private-key'
    """
    return settings_from.get(family) or _TOKEN_HINTS[family][1]
