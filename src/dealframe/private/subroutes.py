"""Sub-collection routes: the name a service serves a sub-collection under, and what its 404
says of the route.

The interface document renamed some sub-collections (section 4.4: ``sellside``, earlier
``acquisitions``). The discovery document says which name a service serves; when it lists
neither, :class:`SubRoutes` asks the service with the first id, once per client, and a 404
is read for what it says of the route (:func:`no_route`: the path is not served) or of the id
(:data:`SUB_404`).
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..contract import quoted
from ..errors import ApiError, DealframeError, NotFoundError, TransportError
from ..notices import ServiceContractWarning, user_stacklevel
from .filters import FilterSchema

if TYPE_CHECKING:
    from ..transport.session import Response

__all__ = ["SUB_404", "SubRoutes", "no_route", "route_404"]

#: What a sub-collection's 404 may mean (the client cannot tell which): said by the error of
#: one id and by the warning of many.
SUB_404 = "no such id, soft-deleted, or no items, as some services answer"
#: A 404 whose message says the path itself is not served (the sandbox's ``No route for``,
#: a framework's ``Cannot GET``): not a matter of the id.
_NO_ROUTE = re.compile(
    r"\bno (such )?(route|endpoint|handler)\b|\b(route|endpoint|path) not found\b|"
    r"\bunknown (route|endpoint|path)\b|\bcannot get\b",
    re.IGNORECASE,
)


def no_route(error: BaseException) -> bool:
    """Whether ``error`` is a 404 saying that the path is not served (no such route).

    Examples
    --------
    >>> no_route(NotFoundError(404, "NOT_FOUND", "No route for /api/private/v1/x/1/sellside"))
    True
    >>> no_route(NotFoundError(404, "NOT_FOUND", "Company not found"))
    False
    """
    return isinstance(error, NotFoundError) and bool(_NO_ROUTE.search(error.message or ""))


def route_404(name: str) -> str:
    """What a 404 with no route means, for the sub-collection ``name``.

    Parameters
    ----------
    name : str
        The sub-collection's name as asked (``sellside``).

    Returns
    -------
    str
        The words a warning or an error's note adds.
    """
    return (
        f"the service says it has no route for {name}: it does not serve this sub-collection "
        "(whatever the id)"
    )


#: What asking a service for a sub-collection route gave (:func:`_route_answer`).
_ROUTED, _NO_ROUTE_SEEN, _OPEN = "routed", "no route", "open"
_SECTION_44 = "interface document section 4.4"
_ASKED_AGAIN = "; the service is asked again on the next call"


def _route_answer(error: DealframeError) -> str:
    """What ``error``, met asking for page 1 of a sub-collection, says of its route: a 404
    saying the path is not served is no route, any other 404 (the id unknown, soft-deleted or
    without items) means the route exists; anything else (5xx, 429, 401, a transport failure)
    says nothing of the route: the question stays open.

    Examples
    --------
    >>> _route_answer(NotFoundError(404, "NOT_FOUND", "No route for /x/1/sellside"))
    'no route'
    >>> _route_answer(NotFoundError(404, "NOT_FOUND", "Company not found"))
    'routed'
    >>> _route_answer(ApiError(500, "INTERNAL", "boom"))
    'open'
    """
    if isinstance(error, NotFoundError):
        return _NO_ROUTE_SEEN if no_route(error) else _ROUTED
    return _OPEN


def _words(error: DealframeError | None) -> str:
    """The service's words in ``error`` (an ``ApiError``'s message), else what it says."""
    return error.message if isinstance(error, ApiError) else str(error)


def _unasked(error: DealframeError | None) -> str:
    """A route question that met ``error`` (no answer about the route), for a warning.

    Examples
    --------
    >>> _unasked(ApiError(503, "SERVICE_UNAVAILABLE", "try later"))
    "could not be asked (503 SERVICE_UNAVAILABLE: 'try later')"
    """
    if isinstance(error, ApiError):
        return f"could not be asked ({error.status} {error.code}: {quoted(error.message, 120)})"
    return f"could not be asked ({quoted(_words(error), 160)})"


def _routed(name: str, error: DealframeError | None) -> str:
    """The words for ``name`` (may be empty) having a route: it answered, or its 404 was for
    the id, not the route (``error``)."""
    lead = f"{name} " if name else ""
    if error is None:
        return f"{lead}answers"
    return f"{lead}has a route (it answered 404 for the id: {quoted(_words(error), 120)})"


class _RouteGate:
    """One sub-collection route question of a client: the lock its askers queue on, how many
    times it was asked, and the name the last answer pointed to (what the callers that
    waited for it use, clear or not: they neither ask again nor say it again)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.asked = 0
        self.used = ""


class _SubRoute(NamedTuple):
    """What asking a service for a sub-collection route gave (:meth:`SubRoutes.name_for`)."""

    #: The name to use for this call.
    used: str
    #: What was seen, for the warning.
    said: str
    #: Whether every answer was a clear one (kept for the client's life), not open.
    decided: bool
    #: Whether the current name has a route (a 2xx, or a 404 for the id): nothing to say
    #: unless the discovery document could not be read.
    plain: bool = False


class SubRoutes:
    """The sub-collection names one client's service serves, found by asking it when its
    discovery document lists neither the current nor the earlier name.

    Parameters
    ----------
    request : callable
        ``request(method, path, kind, refresh, cache, deadline, params=...)``: the request
        of ``path`` under ``prefix`` (:meth:`~dealframe.private.api.PrivateApi._request`).
    prefix : str
        The path of the private interface (``/api/private/v1``), as warnings name the
        discovery document.
    """

    def __init__(self, request: Callable[..., Response], prefix: str) -> None:
        self._request = request
        self._prefix = prefix
        #: The sub-collection name a service serves, found by asking it when its discovery
        #: document lists neither name (``(entity, name)`` -> ``sellside`` or ``acquisitions``).
        self._routes: dict[tuple[str, str], str] = {}
        #: One gate per ``(entity, name)``, its lock held while the service is asked.
        self._gates: dict[tuple[str, str], _RouteGate] = {}
        self._lock = threading.Lock()

    def name_for(
        self,
        entity: str,
        schema: FilterSchema,
        name: str,
        ident: str,
        refresh: bool,
        cache: bool,
        deadline: Any,
    ) -> str:
        """The name this service serves the sub-collection ``name`` under.

        The discovery document's choice (:meth:`FilterSchema.sub_resource`) when it lists the
        current or the earlier name (section 4.4). When it lists neither (``sub_resources``
        absent or unreadable, said in a ``ServiceContractWarning`` with what was seen), the
        service is asked with the first id: a 404 saying it has no route for the current name
        (not an id that is unknown, soft-deleted or without items) tries the earlier one, used
        when it has a route. Only a clear answer is kept for the client's life (a 2xx, or a
        404 saying which of route or id is missing); any other (5xx, 429 past the retries, a
        dropped connection, a timeout) leaves the question open: this call uses the name the
        answers so far point to, its pull says its own error, and the next call asks again.
        Concurrent first calls wait for one another and use its answer, clear or not: one
        question, one warning (each asking in turn took a whole question's retries).

        Parameters
        ----------
        entity : {"companies", "investors"}
            The parent's family.
        schema : FilterSchema
            The family's discovery document.
        name : str
            The sub-collection's current name (``sellside``).
        ident : str
            The id the service is asked with.
        refresh, cache : bool
            As the call asks of the HTTP cache.
        deadline : float or None
            The call's deadline.

        Returns
        -------
        str
            The name to use for this call.
        """
        name = schema.sub_resource(name)
        earlier = schema.earlier_name(name)
        if earlier is None:
            return name
        key = (entity, name)
        with self._lock:
            gate = self._gates.setdefault(key, _RouteGate())
            before = gate.asked
        with gate.lock:  # held across the question: a concurrent first call waits for it
            with self._lock:
                known = None if refresh else self._routes.get(key)
            if known is not None:
                return known
            if gate.asked != before:  # asked while this call waited: that answer serves it
                return gate.used
            unread = schema.sub_resources_unread
            found = self._ask(entity, name, earlier, ident, refresh, cache, deadline)
            if unread is not None or not found.plain:
                where = f"GET {self._prefix}/lookup/{entity}: " + (
                    f"sub_resources {unread}, so the sub-collection names cannot be read there"
                    if unread is not None
                    else f"sub_resources lists neither {name} nor {earlier}"
                )
                warnings.warn(
                    f"{where}; {found.said}", ServiceContractWarning, stacklevel=user_stacklevel()
                )
            with self._lock:
                if found.decided:
                    self._routes[key] = found.used
                gate.asked, gate.used = gate.asked + 1, found.used
        return found.used

    def _ask(
        self,
        entity: str,
        name: str,
        earlier: str,
        ident: str,
        refresh: bool,
        cache: bool,
        deadline: Any,
    ) -> _SubRoute:
        """Ask the service whether it routes ``name`` (else ``earlier``), with ``ident``'s
        first page (:func:`_route_answer` reads each answer)."""

        def ask(segment: str) -> tuple[str, DealframeError | None]:
            try:
                self._request(
                    "GET",
                    f"/{entity}/{ident}/{segment}",
                    "list",
                    refresh,
                    cache,
                    deadline,
                    params={"page": 1, "limit": 1},
                )
            except (ApiError, TransportError) as exc:
                return _route_answer(exc), exc
            return _ROUTED, None

        state, seen = ask(name)
        if state == _ROUTED:
            return _SubRoute(name, _routed(name, seen), decided=True, plain=True)
        if state == _OPEN:
            return _SubRoute(name, f"{name} {_unasked(seen)}{_ASKED_AGAIN}", decided=False)
        gone = f"{name} answered 404 ({quoted(_words(seen), 120)})"
        state, seen = ask(earlier)
        if state == _ROUTED:
            said = f"{gone}; the earlier name {earlier} ({_SECTION_44}) {_routed('', seen)}"
            return _SubRoute(earlier, f"{said}, and is used", decided=True)
        if state == _NO_ROUTE_SEEN:
            said = f"neither {name} nor the earlier {earlier} has a route on this service"
            return _SubRoute(name, said, decided=True)
        said = f"{gone}; the earlier name {earlier} ({_SECTION_44}) {_unasked(seen)}"
        return _SubRoute(earlier, f"{said}: it is used for this call{_ASKED_AGAIN}", decided=False)
