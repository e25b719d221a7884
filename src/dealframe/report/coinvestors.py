"""The co-investor lists of the report's investors, and what their 404s are said to be.

``client.private.co_investors(ids)`` keeps going past a 404 and lists such ids in
``attrs["missing_ids"]``. A sub-collection's 404 may mean an unknown id, a soft-deleted one, no
items (some services) or a route the service does not serve
(:data:`~dealframe.private.subroutes.SUB_404`), so the report checks, only when some id
answered 404: each such investor's profile, read with ``include_deleted=True`` (soft-deleted
only when it says ``deleted: true``; a profile that could not be read is no evidence, and is
said), and each other id's list asked once more, for the client's words of its own 404. Those
checks are requests too, counted in :attr:`Unserved.checks`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from dealframe._wording import counted, plural
from dealframe.contract import quoted
from dealframe.errors import ApiError, DealframeError, NotFoundError
from dealframe.frames.private import co_investors_frame
from dealframe.notices import missing_expected
from dealframe.private.subroutes import SUB_404, no_route, route_404

if TYPE_CHECKING:
    from dealframe.client import Client

__all__ = ["CHECKS_ENDPOINT", "Unserved", "no_co_investors", "read_co_investors"]

#: The requests of the checks (:attr:`Unserved.checks`), as the provenance names them.
CHECKS_ENDPOINT = (
    "GET /api/private/v1/investors/{id}?include_deleted=true (profiles of the ids answered 404); "
    "GET /api/private/v1/investors/{id}/co_investors (the others asked again)"
)


@dataclass(frozen=True)
class Unserved:
    """The investors whose ``/investors/{id}/co_investors`` answered 404, told apart.

    The report says "soft-deleted" only of the ids whose profile, read with
    ``include_deleted=True``, says ``deleted: true``, and the others in the client's words of
    each one's 404, grouped by those words.

    Examples
    --------
    >>> gone = Unserved(["a", "b", "c"], ["a"], (("no such id", ("b", "c")),))
    >>> gone.others, gone.why
    (['b', 'c'], 'no such id')
    """

    #: Every id answered 404 (the client's ``attrs["missing_ids"]``).
    ids: list[str] = field(default_factory=list)
    #: Those whose profile says ``deleted: true``.
    deleted: list[str] = field(default_factory=list)
    #: The others, grouped by what the client says of their 404: ``(words, ids)`` pairs.
    causes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The ids whose profile could not be read (whether they are soft-deleted is not known).
    unread: list[str] = field(default_factory=list)
    #: What failed reading those profiles (``500``, ``403``, ``TransportError`` ...).
    unread_why: str = ""
    #: Requests of the checks: one profile per id answered 404, one list per other id.
    checks: int = 0

    @property
    def others(self) -> list[str]:
        """The ids answered 404 that are not known to be soft-deleted."""
        return [i for i in self.ids if i not in self.deleted]

    @property
    def why(self) -> str:
        """What the client says of the others' 404s: the words of each group, with how many
        investors said so when they differ; empty when there are none."""
        if len(self.causes) == 1:
            return self.causes[0][0]
        return "; ".join(f"{counted(len(ids), 'investor')}: {words}" for words, ids in self.causes)

    @property
    def profiles_unread(self) -> str:
        """``the profiles of 2 could not be read: 500``, or empty.

        Examples
        --------
        >>> Unserved(["a"], unread=["a"], unread_why="500").profiles_unread
        'the profile of 1 could not be read: 500'
        """
        if not self.unread:
            return ""
        n = len(self.unread)
        return f"the {plural(n, 'profile')} of {n} could not be read: {self.unread_why}"


def _failure(error: BaseException) -> str:
    """What failed, short: an error status, else the error's class (a transport failure, an
    unreadable 200).

    Examples
    --------
    >>> _failure(ApiError(500, "INTERNAL", "boom")), _failure(ApiError(200, "X", "no body"))
    ('500', 'ApiError')
    """
    if isinstance(error, ApiError) and error.status >= 400:
        return str(error.status)
    return type(error).__name__


def _profiles(client: Client, ids: list[str]) -> tuple[list[str], list[str], str]:
    """Which of ``ids`` the service says are soft-deleted (their profiles, read with
    ``include_deleted=True``, say ``deleted: true``), which profiles could not be read (a
    request that failed, whatever the error: no evidence either way), and what failed.

    Each profile is read on its own, one after another (the ids whose list answered 404:
    a few): a failure of one (a 403 for that id) leaves the others read, where a call for all
    of them stopped at its first failure, leaving unread the ids not yet sent, as many as the
    machine's timing made them."""
    deleted: list[str] = []
    unread: list[str] = []
    failures: list[str] = []
    for ident in ids:
        try:
            profile = client.private.investor(ident, include_deleted=True, progress=False)
        except NotFoundError:
            continue  # no profile either: no evidence that it is soft-deleted
        except DealframeError as exc:  # 401/403/429/5xx/transport: no evidence either way
            unread.append(ident)
            failures.append(_failure(exc))
            continue
        if "deleted" in profile and len(profile):
            if bool(profile["deleted"].astype("boolean").fillna(False).iloc[0]):
                deleted.append(ident)
    return deleted, unread, ", ".join(dict.fromkeys(failures))


def _why_404(client: Client, ident: str, served: int) -> str:
    """What the client sees of ``ident``'s co-investor 404, asked once more on its own: the
    route not served (:func:`~dealframe.private.subroutes.route_404`) only when no id of the
    route was ``served``; else :data:`~dealframe.private.subroutes.SUB_404` with the
    service's words."""
    try:
        client.private.co_investors(ident, progress=False)
    except NotFoundError as exc:
        if no_route(exc) and not served:
            return route_404("co_investors")
        if no_route(exc):
            return (
                f"the service said {quoted(exc.message, 120)} (no route), though it served "
                f"the lists of {counted(served, 'other investor')}"
            )
        return f"{SUB_404}; the service said {quoted(exc.message, 120)}"
    except DealframeError as exc:  # not answered: what the client could say of the first 404
        return f"{SUB_404}; asked again, it failed ({_failure(exc)})"
    return f"{SUB_404}; asked again, it was served"


def read_co_investors(client: Client, ids: list[str]) -> tuple[pd.DataFrame, Unserved]:
    """The co-investors of ``ids``, and the ids whose list answered 404 (:class:`Unserved`),
    which the report says in its stage line and on its page instead of a warning. Any failure
    of the lists other than a 404 is raised; a failed check (a profile, a list asked again) is
    said, never raised: the user did not ask for it."""
    with missing_expected():  # said by the report, not as a MissingDataWarning
        frame = client.private.co_investors(ids, progress=False)
        gone = [str(item) for item in frame.attrs.get("missing_ids", [])]
        if not gone:
            return frame, Unserved()
        deleted, unread, unread_why = _profiles(client, gone)
        others = [i for i in gone if i not in deleted]
        grouped: dict[str, list[str]] = {}
        for ident in others:
            grouped.setdefault(_why_404(client, ident, len(ids) - len(gone)), []).append(ident)
    causes = tuple((words, tuple(group)) for words, group in grouped.items())
    checks = len(gone) + len(others)
    return frame, Unserved(gone, deleted, causes, unread, unread_why, checks)


def no_co_investors() -> pd.DataFrame:
    """``client.private.co_investors([])`` without a request: the frame builder's columns and
    dtypes with no row, the parent's ``investor_id`` first (as the client inserts it), so a
    cohort with no investor has the tables of one with some (dates in microseconds too).

    Examples
    --------
    >>> frame = no_co_investors()
    >>> list(frame.columns[:2]), str(frame["first_shared_date"].dtype)
    (['investor_id', 'id'], 'datetime64[us]')
    """
    frame = co_investors_frame([])
    frame.insert(0, "investor_id", pd.array([], dtype="str"))
    return frame
