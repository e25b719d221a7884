"""The field names a client knows, for its did-you-mean on a ``fields=`` name (issue 14).

``fields=`` names are sent as given and the service decides (time series:
:mod:`dealframe.public.fields`; profiles: :mod:`dealframe.private.fields`). Where a name
turns out not to be served, the client suggests the closest name it knows: the names the
document gives, and those seen with a value in this client's answers (:class:`KnownFields`).
A name that is one of those is never given a suggestion: it is no typo, and a service may
leave out a field no company has a value for (``evRevenueLtm`` is not told "did you mean
'evRevenueNtm'?").

That suggestion is given in two places: the warning on a name no answer held, or held with
no value (said by each family's module), and the note of the service's own 400 whose words
point at a sent field (:func:`note_refused_fields`, :func:`fields_noted`): its words stay the
message.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping

from .contract import _folded as folded  # one rule of "the same name in another spelling"
from .errors import ApiError, BadRequestError, did_you_mean

__all__ = ["SEEN_LIMIT", "KnownFields", "fields_noted", "note_refused_fields"]

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
    members : mapping of str to str, optional
        Names that are no field of their own but a column flattened from a nested object or
        a member of one (``ev_revenue`` of a deal's ``deal_multiples``), each with that
        object's field: the hint names the field to ask for instead of a close name.

    Examples
    --------
    >>> known = KnownFields(["name", "short_name"])
    >>> known.add(["extra_field"])
    >>> "extra_field" in known, known.known("name"), known.known("nmae")
    (True, True, False)
    >>> known.hint("extra_fild"), known.hint("nmae"), known.hint("name")
    (" (did you mean 'extra_field'?)", " (did you mean 'name'?)", '')
    """

    def __init__(self, documented: Iterable[str], members: Mapping[str, str] | None = None) -> None:
        self.documented: frozenset[str] = frozenset(documented)
        self._members = {folded(name): field for name, field in (members or {}).items()}
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
        those seen and ``also``, names the service was seen to serve or said it takes, but
        none of ``leave_out``), or an empty string: always for a known name (no typo).

        A known name that ``name`` spells in another case or with separators
        (:func:`~dealframe.contract._folded`: ``market_cap_lcu`` for ``marketCapLcu``) is the
        one; else the closest of all known names (:func:`_closest`), a name seen served or in
        ``also`` taken instead of a closer document name only when nearly as close (a
        document name the service was never seen to serve may be one it does not serve), and
        never instead of a name one letter from ``name``. A name of ``members`` (a column
        flattened from a nested field, or a member of it) is told that field to ask for
        instead, before a close name is looked for.

        Examples
        --------
        >>> known = KnownFields(["revenueLtm", "revenueNtm", "marketCap", "marketCapLcu"])
        >>> known.add(["revenueLtm", "marketCap"])
        >>> known.hint("revenue"), known.hint("market_cap_lcu"), known.hint("marketCapLcu")
        (" (did you mean 'revenueLtm'?)", " (did you mean 'marketCapLcu'?)", '')
        >>> known.hint("revenueNtn")  # one letter from revenueNtm: never seen served, still it
        " (did you mean 'revenueNtm'?)"
        >>> KnownFields(["deal_revenue"], {"ev_revenue": "deal_multiples"}).hint("ev_revenue")
        " (a member of 'deal_multiples': ask for fields=['deal_multiples'])"
        """
        if self.known(name):
            return ""
        out = {name, *leave_out}
        seen = self._seen - out
        served = (seen | frozenset(also)) - out
        documented = self.documented - served - out
        key = folded(name)
        for tier in (sorted(seen), sorted(served), sorted(documented)):  # the same name first
            same = [choice for choice in tier if folded(choice) == key]
            if same:
                return f" (did you mean {same[0]!r}?)"
        parent = self._members.get(key)
        if parent is not None and parent not in out:  # a column of the frame, not a field
            return f" (a member of {parent!r}: ask for fields=[{parent!r}])"
        return _closest(name, served | documented, served, seen)


#: How alike (:mod:`difflib`'s ratio) a choice is to be close: :func:`did_you_mean`'s cutoff.
_CLOSE = 0.6
#: How much less alike than the closest a name the service serves may be and still be the
#: one suggested (``ebitda``: ``evEbitdaLtm`` at 0.71, served, before ``ebitdaNtm`` at 0.8).
_MARGIN = 0.1


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter changed, added or dropped, or two
    neighbours swapped (case ignored).

    Examples
    --------
    >>> _one_edit("evRevenueNtn", "evRevenueNtm"), _one_edit("nmae", "name")
    (True, True)
    >>> _one_edit("evRevenueNtn", "evRevenueLtm"), _one_edit("ebitda", "ebitdaNtm")
    (False, False)
    """
    a, b = a.casefold(), b.casefold()
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    head = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
    if len(a) < len(b):
        return a[head:] == b[head + 1 :]
    return a[head + 1 :] == b[head + 1 :] or (
        a[head + 2 :] == b[head + 2 :] and a[head : head + 2] == b[head : head + 2][::-1]
    )


def _closest(
    name: str, choices: frozenset[str], served: frozenset[str], seen: frozenset[str]
) -> str:
    """The suggestion for ``name`` among ``choices``: the closest (:mod:`difflib`'s ratio,
    case ignored, at least :data:`_CLOSE`), unless a ``served`` one (a name the service
    serves) is within :data:`_MARGIN` of it, or as close when the closest is one letter from
    ``name`` (:func:`_one_edit`); between those as close, one of ``seen`` first. When none is close,
    :func:`~dealframe.errors.did_you_mean`'s other rule (a choice ``name`` begins with), the
    served first.

    Examples
    --------
    >>> docs = frozenset({"revenueNtm", "revenueLtm", "ebitdaNtm", "evEbitdaLtm"})
    >>> served = frozenset({"revenueLtm", "evEbitdaLtm"})
    >>> _closest("ebitda", docs, served, served), _closest("revenueNtn", docs, served, served)
    (" (did you mean 'evEbitdaLtm'?)", " (did you mean 'revenueNtm'?)")
    """
    word = name.casefold()
    scores = {c: difflib.SequenceMatcher(None, c.casefold(), word).ratio() for c in choices}
    best = max(scores.values(), default=0.0)
    if best < _CLOSE:
        return did_you_mean(name, sorted(served)) or did_you_mean(name, sorted(choices))
    top = min(c for c, score in scores.items() if score == best)
    margin = 0.0 if _one_edit(name, top) else _MARGIN  # a typo of the closest: only as close
    near = [c for c in served if scores[c] >= max(best - margin, _CLOSE)]
    if near:
        top = min(near, key=lambda c: (-scores[c], c not in seen, c))
    return f" (did you mean {top!r}?)"


#: ``fields[i]``: the words pointing at the ``i``-th name sent.
_POSITION = re.compile(r"(?<![\w-])fields\[(\d+)\]")
#: Where a problem's words list the names the service takes (``is not one of a, b``,
#: ``allowed: a, b``, ``valid values are: a, b``, ``did you mean 'a'?``): the list follows.
_ALLOWED = re.compile(
    r"\b(?:one of:?|did you mean:?|(?:allowed|valid|supported|accepted|available)"
    r"(?: (?:fields|names|values|field names))?(?: are:?|:| =))\s*(?P<rest>[^;]*)",
    re.IGNORECASE,
)
#: Where such a list ends: at ``(`` (``a, b (see the docs)``) or a sentence's end.
_LIST_END = re.compile(r"(?<=\S)\s*\(|[.!?](?=\s|$)")
#: One name of such a list, without its quotes or brackets.
_NAME = re.compile(r"[A-Za-z_][\w.-]*")
#: The words of a suggestion (``did you mean 'x'?``): the names quoted there are allowed ones,
#: not names the words point at.
_SUGGESTION = re.compile(r"\bdid you mean\b[^?;)]*\??", re.IGNORECASE)


def _named(name: str, text: str) -> bool:
    """Whether ``text`` holds ``name`` as a word of its own (``'nmae'``, ``fields[0]: nmae``),
    not inside another (``name`` in ``names``)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def _quoted(name: str, text: str) -> bool:
    """Whether ``text`` holds ``name`` in quotes (``'nmae'``, ``"nmae"``, ```nmae```)."""
    return re.search(rf"(['\"`]){re.escape(name)}\1", text) is not None


def _allowed(problems: Iterable[str]) -> set[str]:
    """The names ``problems`` (a 400's words) list as the ones the service takes: each
    comma-separated item of one word after ``one of``, ``allowed:``, ``valid values are:``,
    ``did you mean`` ..., up to a ``(`` or a sentence's end, its quotes, brackets and trailing
    punctuation left out.

    Examples
    --------
    >>> sorted(_allowed(["fields[1]: 'x' is not one of a, bB, c_d"]))
    ['a', 'bB', 'c_d']
    >>> sorted(_allowed(["fields: unknown field 'nmae'; allowed: id, 'name'"]))
    ['id', 'name']
    >>> _allowed(["fields[0]: expected one of the documented fields", "'x' is not a valid field"])
    set()
    >>> sorted(_allowed(["fields[1]: must be one of marketCap, evRevenueNtm, evEbitdaNtm."]))
    ['evEbitdaNtm', 'evRevenueNtm', 'marketCap']
    >>> sorted(_allowed(["allowed values: marketCap, evEbitdaNtm (see https://x/docs)"]))
    ['evEbitdaNtm', 'marketCap']
    >>> sorted(_allowed(["Valid values are: a, b"])), _allowed(["'x' (did you mean 'xy'?)"])
    (['a', 'b'], {'xy'})
    """
    found: set[str] = set()
    for problem in problems:
        for listed in _ALLOWED.finditer(problem):
            rest = _LIST_END.split(listed["rest"].lstrip("([{ "), maxsplit=1)[0]
            for item in re.split(r",|\bor\b|\band\b", rest):
                word = item.strip().strip("'\"`[](){}.,:!?").strip()
                if _NAME.fullmatch(word):
                    found.add(word)
    return found


def _pointed(sent: list[str], problems: list[str], typo: Callable[[str], bool] = bool) -> list[str]:
    """The names of ``sent`` that ``problems`` point at, the names quoted after ``did you
    mean`` left out (they are allowed names).

    Where the words hold positions (``fields[i]``), only those count, quotes confirming or
    overriding them, never adding names: ``fields[i]`` is the ``i``-th name sent (counted
    from 0) when it is quoted, else the one before it when that one is (a service counting
    from 1); when neither is, how the service counts is not known, and ``fields[i]`` is the
    one of the two (counted from 0, or from 1) that may be a typo (``typo``: a name the client
    does not know), or none when both may. Without positions: the names in quotes, else those
    held as a word of their own (:func:`_named`).

    Examples
    --------
    >>> _pointed(["a", "b"], ["fields[1]: 'b' is not one of a, c"])
    ['b']
    >>> _pointed(["a", "nmae"], ["unknown field nmae"])
    ['nmae']
    >>> _pointed(["a", "b"], ["fields[2]: 'b' is not served"])  # counted from 1
    ['b']
    >>> _pointed(["x", "y", "z"], ["fields[2]: unknown field"])  # y or z: not known
    []
    >>> _pointed(["a", "y", "z"], ["fields[1]: unknown field"], typo=lambda n: n != "a")
    ['y']
    """
    text = _SUGGESTION.sub("", " ".join(problems))
    at = list(dict.fromkeys(int(m[1]) for m in _POSITION.finditer(text)))
    if not at:
        quoted = [name for name in sent if name and _quoted(name, text)]
        return quoted or [name for name in sent if name and _named(name, text)]
    pointed: list[str] = []
    for i in at:
        both = [j for j in (i, i - 1) if 0 <= j < len(sent)]
        told = [j for j in both if sent[j] and _quoted(sent[j], text)][:1]  # i first: from 0
        maybe = told or [j for j in both if typo(sent[j])]
        if len(maybe) == 1:
            pointed.append(sent[maybe[0]])
    return pointed


def note_refused_fields(error: ApiError, sent: Iterable[str] | None, known: KnownFields) -> None:
    """Add to ``error``'s note (after its own; its message is the service's words, kept) the
    closest known name of each of ``sent`` that its words point at, when it is neither a name
    the document gives, nor one seen served, nor one the words list as allowed, and one is
    close: ``fields: 'nmae' (did you mean 'name'?)``. Nothing else changes.

    The words point at a name by its position (``fields[1]``: the second name sent, counted
    from 0, unless the name there is not quoted in the words while the one before it is: a
    service counting from 1; with no quote telling, the one of the two the client does not
    know, or none when it knows neither) or, when they hold no position, by the name in
    quotes (``'nmae'``), else as a word of its own (:func:`_pointed`). A name they list as
    one the service takes (``is not one of a, b``, ``allowed: a, b``, ``valid values are:
    a, b``, quoted after ``did you mean``) is known: no suggestion for it, and one to
    suggest.

    Parameters
    ----------
    error : ApiError
        The service's refusal of a request that sent ``fields``.
    sent : iterable of str or None
        The names sent, in the order sent.
    known : KnownFields
        The names the client knows for those fields.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> error = BadRequestError(400, "BAD_REQUEST", "fields: unknown field 'nmae'")
    >>> note_refused_fields(error, ["name", "nmae"], KnownFields(["name"]))
    >>> str(error)
    "400 BAD_REQUEST: fields: unknown field 'nmae'; fields: 'nmae' (did you mean 'name'?)"
    >>> error = BadRequestError(400, "BAD_REQUEST", "fields[1]: 'bNtn' is not one of aNtm, bNtm")
    >>> note_refused_fields(error, ["aNtm", "bNtn"], KnownFields(["aLtm"]))
    >>> error.note
    "fields: 'bNtn' (did you mean 'bNtm'?)"
    """
    listed = error.details.get("errors")
    problems = [error.words, *(map(str, listed) if isinstance(listed, list) else ())]
    allowed = _allowed(problems)
    names = [name if isinstance(name, str) else "" for name in sent or ()]  # positions kept

    def unknown(name: str) -> bool:  # a name that may be a typo
        return bool(name) and name not in allowed and not known.known(name)

    said = [
        f"{name!r}{hint}"
        for name in dict.fromkeys(_pointed(names, problems, unknown))
        if unknown(name) and (hint := known.hint(name, also=allowed))
    ]
    if said:
        error.with_note(f"fields: {', '.join(said)}")


@contextlib.contextmanager
def fields_noted(sent: Iterable[str] | None, known: KnownFields) -> Iterator[None]:
    """Run the block; the service's refusal (:class:`~dealframe.errors.BadRequestError`) of the
    request it makes, which sent ``sent`` as ``fields``, leaves it with the closest known name
    of each it points at in its note (:func:`note_refused_fields`): its words stay the message.

    Examples
    --------
    >>> from dealframe.errors import BadRequestError
    >>> try:
    ...     with fields_noted(["nmae"], KnownFields(["name"])):
    ...         raise BadRequestError(400, "BAD_REQUEST", "fields: unknown field 'nmae'")
    ... except BadRequestError as exc:
    ...     print(exc.note)
    fields: 'nmae' (did you mean 'name'?)
    """
    try:
        yield
    except BadRequestError as exc:
        note_refused_fields(exc, sent, known)
        raise
