"""The field names a client knows, for its did-you-mean on a ``fields=`` name (issue 14).

``fields=`` names are sent as given and the service decides (time series:
:mod:`dealframe.public.fields`; profiles: :mod:`dealframe.private.fields`). Where a name
turns out not to be served, the client suggests the closest name it knows: the names the
document gives, and those seen with a value in this client's answers (:class:`KnownFields`).
A name that is one of those is never given a suggestion: it is no typo, and a service may
leave out a field no company has a value for (``evRevenueLtm`` is not told "did you mean
'evRevenueNtm'?").

That suggestion is given in two places: a ``missing_field`` warning for a name no answer held
(said by each family's module), and the note of the service's own 400 whose words name a sent
field (:func:`note_refused_fields`): its words stay the message.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from .errors import ApiError, did_you_mean

__all__ = ["SEEN_LIMIT", "KnownFields", "note_refused_fields"]

#: How many names seen in answers a :class:`KnownFields` keeps (the first seen go first): a
#: service that serves ever new names (one per company) does not grow a client without end.
SEEN_LIMIT = 1000


class KnownFields:
    """The names the document gives for some ``fields=`` and those seen served with a value
    in a client's answers (at most :data:`SEEN_LIMIT`, the oldest left out first).
    Thread-safe.

    Parameters
    ----------
    documented : iterable of str
        The document's names.

    Examples
    --------
    >>> known = KnownFields(["name", "short_name"])
    >>> known.add(["extra_field"])
    >>> "extra_field" in known, known.known("name"), known.known("nmae")
    (True, True, False)
    >>> known.hint("extra_fild"), known.hint("nmae"), known.hint("name")
    (" (did you mean 'extra_field'?)", " (did you mean 'name'?)", '')
    """

    def __init__(self, documented: Iterable[str]) -> None:
        self.documented: frozenset[str] = frozenset(documented)
        self._lock = threading.Lock()
        self._order: dict[str, None] = {}  # insertion order: the oldest is left out first
        self._seen: frozenset[str] = frozenset()  # read without the lock

    def add(self, names: Iterable[str]) -> None:
        """Keep ``names``: field names an answer held with a value (not only null)."""
        new = frozenset(n for n in names if isinstance(n, str))
        if new <= self._seen:
            return
        with self._lock:
            for name in sorted(new - self._seen):
                self._order[name] = None
            while len(self._order) > SEEN_LIMIT:
                del self._order[next(iter(self._order))]
            self._seen = frozenset(self._order)

    def __contains__(self, name: object) -> bool:
        """Whether an answer was seen to hold ``name`` with a value."""
        return name in self._seen

    def known(self, name: str) -> bool:
        """Whether ``name`` is a name the document gives or one seen served."""
        return name in self.documented or name in self._seen

    def hint(self, name: str, also: Iterable[str] = (), leave_out: Iterable[str] = ()) -> str:
        """`` (did you mean 'x'?)`` for the known name closest to ``name`` (the document's,
        those seen and ``also``, an answer's own, but none of ``leave_out``), or an empty
        string: always for a known name (no typo)."""
        if self.known(name):
            return ""
        choices = (self.documented | self._seen | frozenset(also)) - {name, *leave_out}
        return did_you_mean(name, sorted(choices))


def _named(name: str, text: str) -> bool:
    """Whether ``text`` holds ``name`` as a word of its own (``'nmae'``, ``fields[0]: nmae``),
    not inside another (``name`` in ``names``)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def note_refused_fields(error: ApiError, sent: Iterable[str] | None, known: KnownFields) -> None:
    """Add to ``error``'s note (after its own; its message is the service's words, kept) the
    closest known name of each of ``sent`` that its words name, when it is neither a name the
    document gives nor one seen served and one is close: ``fields: 'nmae' (did you mean
    'name'?)``. Nothing else changes.

    Parameters
    ----------
    error : ApiError
        The service's refusal of a request that sent ``fields``.
    sent : iterable of str or None
        The names sent.
    known : KnownFields
        The names the client knows for those fields.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> error = BadRequestError(400, "BAD_REQUEST", "fields: unknown field 'nmae'")
    >>> note_refused_fields(error, ["name", "nmae"], KnownFields(["name"]))
    >>> str(error)
    "400 BAD_REQUEST: fields: unknown field 'nmae'; fields: 'nmae' (did you mean 'name'?)"
    """
    listed = error.details.get("errors")
    text = " ".join([error.words, *(map(str, listed) if isinstance(listed, list) else ())])
    said = [
        f"{name!r}{hint}"
        for name in dict.fromkeys(sent or ())
        if _named(name, text) and (hint := known.hint(name))
    ]
    if said:
        note = f"fields: {', '.join(said)}"
        error.note = f"{error.note}; {note}" if error.note else note
        error.args = (error._render(),)
