"""Every exception dealframe raises, and the one place HTTP responses become exceptions.

The hierarchy::

    DealframeError                 base of everything raised on purpose
    ├── ConfigurationError         bad settings, missing token, insecure base URL
    ├── ValidationError            bad argument to a public function (also a ValueError)
    ├── ApiError                   the service answered with an error status; its words,
    │   │                          ``details.errors`` joined into the message (any status)
    │   ├── BadRequestError        400 (and 422); ``errors`` lists each problem
    │   ├── AuthenticationError    401 / 403 (part-way through a call: ``partial`` holds what arrived)
    │   ├── NotFoundError          404; ``deleted`` is True for a soft-deleted entity
    │   ├── RateLimitedError       429, or a 401/403 saying rate limit; ``retry_after`` seconds
    │   ├── ServerError            5xx
    │   └── ServiceContractError   a success answer that breaks the interface document
    ├── TransportError             connection errors, timeouts, truncated or invalid bodies
    ├── IncompleteResultError      some pages or chunks failed; ``partial`` holds what arrived
    ├── AmbiguousNameError         resolve with on_ambiguous="raise" met ambiguous names
    └── ExtraMissing               a part that needs an extra, without it (also an ImportError)

Foreign exceptions (``requests``, ``urllib3``, ``orjson``) are translated once, at the transport
boundary, with ``raise ... from exc`` so the cause stays on ``__cause__``.

No error message or attribute ever holds a token, and ``RequestInfo.path`` never holds a query
string.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import difflib
import email.utils
import math
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Self, TypeVar
from urllib.parse import quote, quote_plus

import orjson
from requests.structures import CaseInsensitiveDict

__all__ = [
    "AmbiguousNameError",
    "ApiError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "DealframeError",
    "EnumValueError",
    "ExtraMissing",
    "IncompleteResultError",
    "NotFoundError",
    "RateLimitedError",
    "RequestInfo",
    "ServerError",
    "ServiceContractError",
    "TransportError",
    "UnknownArgumentError",
    "CallError",
    "ValidationError",
    "answer_said",
    "did_you_mean",
    "error_from_response",
    "incomplete",
    "needs_extra",
    "parse_retry_after",
    "renamed",
    "reworded",
    "stated_wait",
    "summarize_body",
    "with_answers",
    "without_python_types",
]

_MISSING = object()
#: An error that :func:`with_answers` returns as itself.
_E = TypeVar("_E", bound=BaseException)
#: The values a ValidationError keeps on ``.got`` (what a service's JSON holds).
_JSON_TYPES = (str, int, float, bool, list, dict, type(None))
#: The tokens of the client whose call is running in this context: set by
#: :func:`dealframe.arguments.client_call` (read with :func:`dealframe.arguments.call_secrets`),
#: here because every error made in the call blanks them (:func:`_call_blanked`).
#: ``client_call`` sets a :class:`~dealframe._tokens.Tokens`, which no traceback's record of
#: locals shows (this module, shared with the sandbox, imports no other dealframe module).
_CALL_SECRETS: ContextVar[Iterable[str]] = ContextVar("dealframe_call_secrets", default=())
#: How an error message without ``details.deleted`` says an entity is soft-deleted.
_SAYS_DELETED = re.compile(r"\b(?:is|was|been|soft)[- ]deleted\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """What an error may say about the request that caused it: never a token or a query string.

    Parameters
    ----------
    method : str
        HTTP method, upper case.
    path : str
        URL path without query string, e.g. ``/api/v2/companies``.
    family : str
        ``"public"`` (Family A) or ``"private"`` (Family B).

    Examples
    --------
    >>> RequestInfo("POST", "/api/v2/companies?x=1", "public").path
    '/api/v2/companies'
    """

    method: str
    path: str
    family: str

    def __post_init__(self) -> None:
        clean = self.path.split("?", 1)[0].split("#", 1)[0]
        object.__setattr__(self, "path", clean)
        object.__setattr__(self, "method", self.method.upper())

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


def _seconds_said(seconds: float) -> str:
    """A wait as a message says it, to a tenth (an HTTP date's wait is 2.58255 s from now).

    Examples
    --------
    >>> _seconds_said(2.58255), _seconds_said(30.0), _seconds_said(0.05)
    ('2.6 s', '30 s', '0.05 s')
    """
    shown = round(seconds, 1) if seconds >= 0.1 else seconds
    return f"{shown:g} s"


def _context(
    request: RequestInfo | None,
    attempts: int,
    note: str | None,
    retry_after: float | None = None,
    retry_after_from: str | None = None,
    answers: Sequence[str] = (),
) -> str:
    """What an error's message says after its own words: the request, the attempts made (and
    the ``answers`` they got, when given: :func:`_answers_shown`), the wait the service asked
    for (and the header that said it, when not ``Retry-After``), a note."""
    text = f" ({request})" if request is not None else ""
    if attempts > 1 or answers:
        text += f"; gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
        text += f" ({', '.join(answers)})" if answers else ""
    if retry_after is not None:
        text += f"; the service asked to wait {_seconds_said(retry_after)}"
        text += f" ({retry_after_from})" if retry_after_from else ""
    return text + (f"; {note}" if note else "")


def answer_said(error: BaseException) -> str:
    """How an error's message names one answer its request got before it gave up: the
    status, with the wait it asked (``429 (asked to wait 30 s)``); a failure with no HTTP
    answer, its kind (``timeout``, ``connection``, ``truncated`` ...); a success answer
    whose body broke the interface document, its status and finding.

    Examples
    --------
    >>> answer_said(RateLimitedError(429, "RATE_LIMITED", "Slow down", retry_after=30))
    '429 (asked to wait 30 s)'
    >>> answer_said(ServerError(503, "UNAVAILABLE", "down")), answer_said(
    ...     TransportError("no answer", kind="timeout"))
    ('503', 'timeout')
    >>> answer_said(ServiceContractError(200, "not JSON", finding="invalid_body"))
    '200 (invalid_body)'
    """
    if isinstance(error, ServiceContractError):
        return f"{error.status} ({error.finding})"
    if isinstance(error, ApiError):
        said = str(error.status)
        if error.retry_after is not None:
            said += f" (asked to wait {_seconds_said(error.retry_after)})"
        return said
    return str(getattr(error, "kind", type(error).__name__))


def _answers_shown(error: ApiError | TransportError) -> tuple[str, ...]:
    """The answers ``error``'s message lists (:func:`_context`): all of ``.answers`` when one
    of them is not of the error's own status (or kind), none when every answer was (its
    message says them: ``503 ...; gave up after 6 attempts``; none kept: none said). The
    error's own answer, last, is named by its status alone: the message says the rest (the
    wait it asked)."""
    answers, own = error.answers, answer_said(error)
    word = own.split(" ", 1)[0]
    if all(a.split(" ", 1)[0] == word for a in answers):
        return ()
    if answers[-1] == own:
        return (*answers[:-1], word)
    return answers


def with_answers(error: _E, answers: Sequence[str]) -> _E:
    """``error`` (an :class:`ApiError` or :class:`TransportError`) with the ``answers`` its
    request got, in order (:func:`answer_said` of each), kept in ``.answers`` and said in its
    message when they are not all of its own status (``gave up after 3 attempts (503, 503,
    429)``); returns itself. ``answers`` that are not one per attempt (``.attempts``) are
    not kept: some were not known.

    Examples
    --------
    >>> info = RequestInfo("POST", "/api/v2/companies", "public")
    >>> error = RateLimitedError(429, "RATE_LIMITED", "Slow down", request=info, attempts=3,
    ...                          retry_after=30)
    >>> str(with_answers(error, ["503", "503", "429 (asked to wait 30 s)"]))
    '429 RATE_LIMITED: Slow down (POST /api/v2/companies); gave up after 3 attempts (503, 503, \
429); the service asked to wait 30 s'
    >>> str(with_answers(ServerError(503, "UNAVAILABLE", "down", attempts=2), ["503", "503"]))
    '503 UNAVAILABLE: down; gave up after 2 attempts'
    """
    if isinstance(error, (ApiError, TransportError)):
        # some not known (a request resumed on another thread, whose attempts began there):
        # none kept, rather than a list that reads as every answer
        error.answers = tuple(answers) if len(answers) == error.attempts else ()
        error.args = (error._render(),)
    return error


def _listed(items: Sequence[Any]) -> str:
    """The first ten items at most, comma-separated within about 1,000 characters (the first
    said whatever its length, cut to them: :func:`_cut`), then how many more there are
    (:func:`_joined` with ``", "``).

    Examples
    --------
    >>> _listed(range(12))
    '0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... and 2 more'
    >>> _listed(["x" * 600, "y" * 600])[-20:]
    'xxxx, ... and 1 more'
    """
    return _joined(items, ", ")


def _rebuilt(cls: type[DealframeError], args: tuple[Any, ...]) -> DealframeError:
    """An error of class ``cls`` with ``args``, without running its ``__init__`` (pickle then
    restores its attributes): what :meth:`DealframeError.__reduce__` names."""
    return cls.__new__(cls, *args)


class DealframeError(Exception):
    """Base class of every error dealframe raises on purpose.

    Every one pickles (so it crosses ``multiprocessing``, ``concurrent.futures`` and joblib
    workers as itself) with its message and attributes unchanged; none holds a token. One
    made during a client's call (:func:`~dealframe.arguments.client_call`) blanks that
    client's tokens (``***``) in its message, and an :class:`ApiError` in its ``message``,
    ``code``, ``details`` and ``note`` too, wherever it is raised: a service that echoes the
    token into a value the error quotes does not put it in the message, the repr or a log.

    Examples
    --------
    >>> import pickle
    >>> error = ValidationError("limit", "an integer", got="x")
    >>> again = pickle.loads(pickle.dumps(error))
    >>> type(again).__name__, str(again) == str(error), again.argument
    ('ValidationError', True, 'limit')
    >>> from dealframe.arguments import client_call
    >>> with client_call(["sk_live_0123456789abcdef"]):
    ...     error = ServiceContractError(200, "meta.x is 'sk_live_0123456789abcdef'",
    ...                                  finding="bad_meta")
    >>> str(error), error.message
    ("200 SERVICE_CONTRACT: meta.x is '***'", "meta.x is '***'")
    """

    def __init__(self, *args: Any) -> None:
        # every message is made here: a service value it quotes (a methodology, an unknown
        # key, a layout) may be the caller's token echoed back, blanked like the findings
        super().__init__(*(_call_blanked(a) if isinstance(a, str) else a for a in args))

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception's own reduce calls ``cls(*self.args)``: args holds the rendered message,
        # not the constructor's arguments. Rebuild from the class and args instead, then let
        # pickle restore ``__dict__`` (and ImportError's ``name``/``path``).
        state = super().__reduce__()[2:]
        return (_rebuilt, (type(self), self.args), *state)


class ExtraMissing(DealframeError, ImportError):
    """A part of dealframe was used without the extra it needs; the message says what to
    install (``pip install "dealframe[report]"``). It is an ``ImportError``: ``.extra`` is
    the extra's name, ``.name`` the module that could not be imported.

    Raised by :func:`needs_extra`, and as ``dealframe.sandbox.SandboxExtraMissing`` (a
    subclass) by the sandbox served without its extra.

    Examples
    --------
    >>> str(ExtraMissing("dealframe.plot", "report", "matplotlib"))
    'dealframe.plot needs matplotlib: pip install "dealframe[report]"'
    """

    def __init__(self, what: str, extra: str, module: str, detail: str = "") -> None:
        self.extra, self.detail = extra, detail
        message = f'{what} needs {module}: pip install "dealframe[{extra}]"'
        super().__init__(message + (f" ({detail})" if detail else ""))
        self.name = module  # ImportError's: DealframeError takes the message alone


@contextlib.contextmanager
def needs_extra(what: str, extra: str, *modules: str) -> Iterator[None]:
    """Turn the failed import of one of ``modules`` (top-level names) in the block into
    :class:`ExtraMissing` naming ``extra``, said of ``what`` (an ``ExtraMissing`` from a
    nested block too); any other ``ImportError`` passes unchanged.

    Examples
    --------
    >>> with needs_extra("dealframe.plot", "report", "matplotlib_not_here"):
    ...     import matplotlib_not_here.axes
    Traceback (most recent call last):
    ...
    dealframe.errors.ExtraMissing: dealframe.plot needs matplotlib_not_here: pip install "dealframe[report]" (No module named 'matplotlib_not_here')
    """
    try:
        yield
    except ExtraMissing as exc:  # said of what the caller used, not of an inner module
        raise ExtraMissing(what, exc.extra, exc.name or "", exc.detail) from None
    except ImportError as exc:
        module = (exc.name or "").split(".")[0]
        if module not in modules:
            raise
        raise ExtraMissing(what, extra, module, str(exc)) from None


class ConfigurationError(DealframeError):
    """Invalid settings, a missing token, or a base URL that would leak tokens.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    field : str, optional
        The setting (or environment variable) at fault.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class ValidationError(DealframeError, ValueError):
    """A public function was called with an argument it cannot use.

    Parameters
    ----------
    argument : str
        Name of the argument (dotted for nested members, e.g. ``filters.deal_type``).
    expected : str
        What would have been accepted.
    got : object, optional
        The value received; shown with ``repr`` (shortened), and kept on ``.got`` when it is
        a value JSON holds (text, number, boolean, None, list, dict).

    Examples
    --------
    >>> str(ValidationError("limit", "an integer between 1 and 1000", got=0))
    'invalid limit: expected an integer between 1 and 1000, got 0'
    """

    def __init__(self, argument: str, expected: str, *, got: Any = _MISSING) -> None:
        # what is expected may list the service's own words (a discovery document's keys)
        self.argument = _call_blanked(argument)
        self.expected = _call_blanked(expected)
        message = f"invalid {argument}: expected {expected}"
        if got is not _MISSING:
            if isinstance(got, _JSON_TYPES):  # a value as JSON holds it: kept, tokens blanked
                self.got = _call_blanked(got)
            shown = _call_blanked(repr(got))  # before it is cut: no part of a token shows
            message += f", got {shown[:80] + '...' if len(shown) > 80 else shown}"
        super().__init__(message)


class EnumValueError(ValidationError):
    """A value outside a closed list of a field (a Family B discovery vocabulary).

    The service's lists grow: the client reads its discovery document again once before
    raising this. ``dealframe.private.filters.EnumValueError`` is the same class.

    Examples
    --------
    >>> str(EnumValueError("deal_type", "values from Early, Growth", got="Seed"))
    "invalid deal_type: expected values from Early, Growth, got 'Seed'"
    """


class CallError(ValidationError, TypeError):
    """A public function was called with arguments its signature does not take: too many
    positional arguments, a required one missing, one given twice.

    Raised in place of Python's own ``TypeError`` (it is one, and a :class:`ValidationError`);
    ``.function`` is the function's name. :class:`UnknownArgumentError` is the case of a
    keyword the function does not take.

    Examples
    --------
    >>> str(CallError("PrivateApi.aggregate", "missing a required argument: 'metric'"))
    "invalid arguments: expected those of PrivateApi.aggregate (missing a required argument: 'metric')"
    """

    def __init__(self, function: str, problem: str) -> None:
        self.function = function
        super().__init__("arguments", f"those of {function} ({problem})")


class UnknownArgumentError(CallError):
    """A public function was called with a keyword it does not take (a typo, most often).

    Raised in place of Python's own ``TypeError``, with the closest keyword the function
    takes, then every keyword it takes; it is a :class:`ValidationError` and a
    ``TypeError``. ``.argument`` is the keyword given, ``.function`` the function's name.

    Parameters
    ----------
    argument : str
        The keyword given.
    function : str
        The function's name, as the user typed the call.
    accepted : iterable of str
        Every keyword it takes (listed sorted).
    groups : mapping of str to sequence of str, optional
        The keywords listed by group instead, each in its order under its label (the list
        calls of ``client.private``: the service's filters apart from the call's options).

    Examples
    --------
    >>> error = UnknownArgumentError("contry", "PrivateApi.companies", ["country", "limit"])
    >>> str(error)
    "invalid contry: expected a keyword of PrivateApi.companies (did you mean 'country'?); valid: country, limit, got 'contry'"
    >>> str(UnknownArgumentError("x", "f", ["sort"], groups={"filters": ["id", "name"],
    ...                                                       "call options": ["sort"]}))
    "invalid x: expected a keyword of f; filters: id, name; call options: sort, got 'x'"
    """

    def __init__(
        self,
        argument: str,
        function: str,
        accepted: Iterable[str],
        *,
        groups: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.function = function
        names = sorted(accepted)
        if groups:
            names = sorted({*names, *(name for group in groups.values() for name in group)})
            listed = "; ".join(f"{label}: {', '.join(group)}" for label, group in groups.items())
        else:
            listed = f"valid: {', '.join(names)}" if names else "it takes no arguments"
        # ``investors=True`` for ``with_investors=True``: the flag's name without its "with_"
        flag = f"with_{argument}"
        hint = f" (did you mean {flag!r}?)" if flag in names else did_you_mean(argument, names)
        ValidationError.__init__(
            self, argument, f"a keyword of {function}{hint}; {listed}", got=argument
        )


def did_you_mean(word: Any, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the choice closest to ``word``, or an empty string.

    Case is ignored; the choice is at least 0.6 alike (as :mod:`difflib` scores it, so
    ``'Nordics'`` suggests no ``'North America'``), or else one ``word`` begins with.

    Examples
    --------
    >>> did_you_mean("ma", ["Early", "M&A"]), did_you_mean("ascending", ["asc", "desc"])
    (" (did you mean 'M&A'?)", " (did you mean 'asc'?)")
    >>> did_you_mean("Nordics", ["North America", "Western Europe"])
    ''
    """
    by_fold = {c.casefold(): c for c in choices}
    folded = str(word).casefold()
    close = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.6) or [
        c for c in by_fold if len(c) > 2 and folded.startswith(c)
    ]
    return f" (did you mean {by_fold[close[0]]!r}?)" if close else ""


def renamed(error: ValidationError, argument: str) -> ValidationError:
    """``error`` restated under another name (the flag ``--countries`` for the client's
    ``countries[1]``), all else kept: its class (an ``EnumValueError`` stays one), what was
    expected (the allowed values, the close match) and the value given.

    Examples
    --------
    >>> error = renamed(ValidationError("countries[1]", "an ISO-3 code", got="usa"), "--countries")
    >>> type(error).__name__, error.argument, str(error)
    ('ValidationError', '--countries', "invalid --countries: expected an ISO-3 code, got 'usa'")
    """
    again = copy.copy(error)  # by DealframeError.__reduce__: the class and every attribute
    again.argument = argument
    again.args = (str(error).replace(f"invalid {error.argument}:", f"invalid {argument}:", 1),)
    return again


def reworded(error: ValidationError, expected: str) -> ValidationError:
    """``error`` expecting ``expected`` instead (the same in other words), all else kept as
    :func:`renamed` keeps it; ``error`` itself when the words are the same.

    Examples
    --------
    >>> str(reworded(ValidationError("--top", "an integer", got="x"), "a whole number"))
    "invalid --top: expected a whole number, got 'x'"
    """
    if expected == error.expected:
        return error
    again = copy.copy(error)  # by DealframeError.__reduce__: the class and every attribute
    again.expected = expected
    again.args = (str(error).replace(f"expected {error.expected}", f"expected {expected}", 1),)
    return again


#: The Python types a check names among what it expects (``, datetime.date or
#: pandas.Timestamp`` of a date): words for a caller in Python.
_PYTHON_TYPES = re.compile(r", (?:datetime\.date|datetime) or pandas\.Timestamp\b")


def without_python_types(error: ValidationError) -> ValidationError:
    """``error`` as said to someone who writes text (a command line, a TOML file): no Python
    type among what is expected (:func:`reworded`).

    Examples
    --------
    >>> error = ValidationError(
    ...     "since", "a date YYYY-MM-DD, datetime.date or pandas.Timestamp", got="2024-02-30")
    >>> str(without_python_types(error))
    "invalid since: expected a date YYYY-MM-DD, got '2024-02-30'"
    """
    return reworded(error, _PYTHON_TYPES.sub("", error.expected))


class _Noted:
    """An error whose ``note`` the caller can add to (:meth:`with_note`): :class:`ApiError`
    and :class:`TransportError`."""

    note: str | None
    args: tuple[Any, ...]

    def with_note(self, note: str) -> Self:
        """This error with ``note`` added after its own note and at the end of its message
        (the running call's tokens blanked, as every note is); returns itself.

        Not :meth:`BaseException.add_note` (PEP 678: a line printed under the traceback):
        ``note`` is part of the message and of the ``note`` attribute.

        Examples
        --------
        >>> error = BadRequestError(400, "BAD_REQUEST", "fields: unknown field 'nmae'")
        >>> str(error.with_note("one").with_note("two")), error.note
        ("400 BAD_REQUEST: fields: unknown field 'nmae'; one; two", 'one; two')
        >>> error = TransportError("the answer was cut short", kind="truncated")
        >>> str(error.with_note("page 3")), error.note
        ('the answer was cut short; page 3', 'page 3')
        """
        note = _call_blanked(note)
        self.note = f"{self.note}; {note}" if self.note else note
        self.args = (f"{self}; {note}",)  # what the message held after it stays (incomplete)
        return self


class ApiError(DealframeError, _Noted):
    """The service answered with an error status.

    Attributes
    ----------
    status : int
        HTTP status code.
    code : str
        The body's ``error.code``; when the body has none, the status's name
        (``BAD_REQUEST``, ``UNAUTHORIZED``, ``FORBIDDEN``, ``NOT_FOUND``, ``RATE_LIMITED``,
        ``SERVICE_UNAVAILABLE`` ...), else ``HTTP_<status>``.
    message : str
        The body's message; a one-line summary of the body when it is not JSON or says
        nothing the client reads (``HTTP <status>`` alone for an empty body).
    words : str
        What the service wrote, never what dealframe composed: the body's message as read,
        else the text of a body the client does not read (markup tags left out, its first
        4096 bytes), empty for an empty body. A bound the service states (``at most 100``)
        is read from these words and ``details`` alone (:mod:`dealframe.transport.refusals`),
        never from the summary in ``message`` (its byte count is no bound). An error made
        with no ``words`` takes its ``message`` as the service's words.
    details : dict
        The body's ``error.details`` (empty when absent); the problems another body shape
        lists are its ``errors``, ``"<field>: <text>"`` when they name their field.
    request : RequestInfo or None
        Method, path (no query string) and family of the failing request.
    attempts : int
        How many times the request was sent before giving up.
    answers : tuple of str
        What each of those attempts got, in order (:func:`answer_said`: ``("503", "503",
        "429 (asked to wait 30 s)")``), when the client sent the request and gave up on it;
        the message lists them when one is not of the error's own status (``gave up after 3
        attempts (503, 503, 429)``). Empty for an error made otherwise.
    retry_after : float or None
        Seconds the service asked to wait, if it said: ``Retry-After``, else, for a rate
        limit (:class:`RateLimitedError`) or a 503, ``RateLimit-Reset`` or
        ``X-RateLimit-Reset`` (see :func:`stated_wait`).
    retry_after_from : str or None
        The header that stated ``retry_after`` as the service sent it (``RateLimit-Reset:
        20``) when it was not ``Retry-After``; the message quotes it. None otherwise.
    partial : object or None
        What had arrived when this error stopped a multi-request call part-way (a token that
        expired on page 3, a 400 on a later chunk): see :func:`incomplete`. None otherwise.
    expected, received : int or None
        Units the whole call should have had (None when unknown) and did get, as
        :class:`IncompleteResultError` counts them; None unless ``partial`` is set.
    failed : sequence
        The items (pages, chunks, ids) not received; empty unless ``partial`` is set.
    labels : sequence of str
        How the message names each of ``failed`` (``SKUs 1-100 (A ... B)``), in the same
        order, as :class:`IncompleteResultError`'s ``.labels``; empty unless ``partial`` is set.
    """

    partial: Any = None
    expected: int | None = None
    received: int | None = None
    failed: Sequence[Any] = ()
    labels: Sequence[str] = ()
    retry_after_from: str | None = None
    answers: tuple[str, ...] = ()

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        request: RequestInfo | None = None,
        attempts: int = 1,
        retry_after: float | None = None,
        note: str | None = None,
        words: str | None = None,
        retry_after_from: str | None = None,
    ) -> None:
        self.status = status
        self.code = _call_blanked(code)
        self.message = _call_blanked(message)
        self.words = self.message if words is None else _call_blanked(words)
        self.details = _call_blanked(dict(details or {}))
        self.request = request
        self.attempts = attempts
        self.retry_after = retry_after
        self.retry_after_from = (
            None if retry_after_from is None else _call_blanked(retry_after_from)
        )
        self.note = None if note is None else _call_blanked(note)
        super().__init__(self._render())

    def _describe(self) -> str:
        """The message, then each problem of ``details.errors`` it does not already say
        (``"<message>: <problem>; <problem>"``), whatever the status: a 404 or a 409 listing
        its problems says them as a 400 does. At most ten problems, within about 1,000
        characters, are said (:func:`_joined`), and a longer message is cut (:func:`_cut`):
        ``details["errors"]`` keeps them all."""
        said = self.message
        listed = _listed_errors(self.details)
        if listed and said == _joined(listed):
            return said  # a body whose message is its problems says them once
        errors = [e for e in listed if e != said]
        return f"{_cut(said)}: {_joined(errors)}" if errors else _cut(said)

    def _render(self) -> str:
        return f"{self.status} {self.code}: {self._describe()}" + _context(
            self.request,
            self.attempts,
            self.note,
            self.retry_after,
            self.retry_after_from,
            _answers_shown(self),
        )


class BadRequestError(ApiError):
    """400 (or 422): the service rejected the request; ``errors`` lists each problem."""

    @property
    def errors(self) -> list[str]:
        """The strings of ``details.errors`` (empty when the body gave none)."""
        return _listed_errors(self.details)


def _listed_errors(details: Mapping[str, Any]) -> list[str]:
    """The strings of ``details["errors"]`` (empty when the body gave none)."""
    found = details.get("errors")
    if isinstance(found, list):
        return [str(item) for item in found]
    return []


class AuthenticationError(ApiError):
    """401 or 403: the token is missing, wrong, or belongs to the other interface family.

    A 401/403 that says it is a rate limit (GitHub's 403 ``RATE_LIMITED``) is a
    :class:`RateLimitedError` instead.

    Its message says, after the request, which token the service refused and where it comes
    from (the family of the request's path: ``/api/v1`` and ``/api/v2`` take the public
    token, ``/api/private/v1`` the private key): the environment variable and the
    :class:`~dealframe.Client` argument, or, from a command, the variable and the command's
    option (``token_from``).

    Attributes
    ----------
    token_from : str or None
        Where the refused token is set, as the message names it; None for the Python API's
        words (``DEALFRAME_PRIVATE_KEY (or private_key=)``). Set with :meth:`said_from`.

    Examples
    --------
    >>> str(AuthenticationError(401, "INVALID_TOKEN", "Invalid or expired token",
    ...     request=RequestInfo("GET", "/api/private/v1/lookup/transactions", "private")))
    '401 INVALID_TOKEN: Invalid or expired token (GET /api/private/v1/lookup/transactions): \
the service refused the Family B key; check DEALFRAME_PRIVATE_KEY (or private_key=); each \
family accepts only its own token'
    """

    token_from: str | None = None

    def said_from(self, token_from: str) -> AuthenticationError:
        """This error, its message naming ``token_from`` as where the refused token is set
        (a command's words: ``DEALFRAME_PRIVATE_KEY``, ``--private-key``); returns itself.

        Examples
        --------
        >>> err = AuthenticationError(403, "FORBIDDEN", "Forbidden",
        ...     request=RequestInfo("POST", "/api/v2/companies", "public"))
        >>> str(err.said_from("DEALFRAME_PUBLIC_TOKEN (or --public-token)"))
        '403 FORBIDDEN: Forbidden (POST /api/v2/companies): the service refused the Family A \
token; check DEALFRAME_PUBLIC_TOKEN (or --public-token); each family accepts only its own token'
        """
        self.token_from = token_from
        self.args = (self._render(),)
        return self

    def _render(self) -> str:
        hint = _TOKEN_HINTS.get(self.request.family) if self.request is not None else None
        if hint is None:
            return super()._render()
        token, where = hint
        said = (
            f"the service refused the {token}; check {self.token_from or where}; each family "
            "accepts only its own token"
        )
        return f"{self.status} {self.code}: {self._describe()} ({self.request}): {said}" + _context(
            None,
            self.attempts,
            self.note,
            self.retry_after,
            self.retry_after_from,
            _answers_shown(self),
        )


#: The token a refusal names, and where the Python API says it is set, by the family of the
#: request's path.
_TOKEN_HINTS = {
    "public": ("Family A token", "DEALFRAME_PUBLIC_TOKEN (or public_token=)"),
    "private": ("Family B key", "DEALFRAME_PRIVATE_KEY (or private_key=)"),
}


class NotFoundError(ApiError):
    """404. ``deleted`` is True when the entity exists but is soft-deleted."""

    @property
    def deleted(self) -> bool:
        """Whether the service said the entity is soft-deleted: ``details.deleted``, or, from
        a service whose error bodies carry no ``details.deleted``, words that say so
        (``"Resource is deleted: ..."``).

        Examples
        --------
        >>> NotFoundError(404, "NOT_FOUND", "Resource is deleted: pass include_deleted").deleted
        True
        >>> NotFoundError(404, "NOT_FOUND", "Company not found").deleted
        False
        """
        said = self.details.get("deleted")
        if isinstance(said, bool):
            return said
        return bool(_SAYS_DELETED.search(self.message or ""))

    def _describe(self) -> str:
        if self.deleted:
            ident = self.details.get("id")
            what = f"entity {ident}" if ident else "the entity"
            if self.request is not None and self.request.path.count("/") > 5:
                # a sub-collection (/api/private/v1/<entity>/<id>/<sub>): not served for a
                # deleted entity, and include_deleted is no parameter of it
                return (
                    f"{what} is soft-deleted; its sub-collections are not served (read "
                    "its profile with include_deleted=True)"
                )
            return f"{what} is soft-deleted; pass include_deleted=True to read it"
        return super()._describe()


class RateLimitedError(ApiError):
    """429, or a 401/403 that says it is a rate limit: too many requests.

    ``retry_after`` holds the seconds the service asked to wait (``Retry-After``, else
    ``RateLimit-Reset`` or ``X-RateLimit-Reset``: :func:`stated_wait`). Some services
    (GitHub's among them) refuse a request over their rate limit with a 403, not a 429: a
    401/403 whose code or message speaks of a rate limit, a quota or too many requests
    (``RATE_LIMITED``, ``TOO_MANY_REQUESTS``, ``rateLimitExceeded``, ``API rate limit
    exceeded``), or a 403 sent with ``X-RateLimit-Remaining: 0``, is this error, retried and
    waited out as a 429 is, never an :class:`AuthenticationError` telling to check the token.

    Attributes
    ----------
    limited_by : str or None
        For a status other than 429, what said it is a rate limit (``the code
        'RATE_LIMITED'``, ``X-RateLimit-Remaining: 0``); the message quotes it. None for a
        429.
    held_until : datetime.datetime or None
        When the wait the service asked is longer than the client's ``retry_after_max``: the
        moment (UTC; a day ahead at most) until which the client sends no request of the
        refused request's family (each has its own credential, so its own rate limit), every
        later request of it (of this call and of the next ones) failing at once with a
        ``RateLimitedError`` that says how long is left, ``.attempts`` 0 (not sent), while
        more than ``retry_after_max`` of the wait is left. None for a wait the client made
        (or would have made).

    Examples
    --------
    >>> error = error_from_response(429, b"", RequestInfo("POST", "/api/v2/companies", "public"),
    ...                             {"RateLimit-Reset": "20"})
    >>> error.retry_after, error.retry_after_from, error.limited_by
    (20.0, 'RateLimit-Reset: 20', None)
    >>> error = error_from_response(403, b'{"error": {"code": "RATE_LIMITED", "message": '
    ...     b'"API rate limit exceeded"}}', RequestInfo("POST", "/api/private/v1/companies",
    ...     "private"), {"X-RateLimit-Reset": "20"})
    >>> type(error).__name__, error.code, error.retry_after
    ('RateLimitedError', 'RATE_LIMITED', 20.0)
    >>> error.limited_by, "not a refused token" in str(error)
    ("the code 'RATE_LIMITED'", True)
    >>> str(error).endswith("the service asked to wait 20 s (X-RateLimit-Reset: 20)")
    True
    """

    limited_by: str | None = None
    held_until: dt.datetime | None = None

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: Mapping[str, Any] | None = None,
        request: RequestInfo | None = None,
        attempts: int = 1,
        retry_after: float | None = None,
        note: str | None = None,
        words: str | None = None,
        retry_after_from: str | None = None,
        limited_by: str | None = None,
    ) -> None:
        self.limited_by = limited_by
        super().__init__(
            status,
            code,
            message,
            details=details,
            request=request,
            attempts=attempts,
            retry_after=retry_after,
            note=note,
            words=words,
            retry_after_from=retry_after_from,
        )

    def _describe(self) -> str:
        said = super()._describe()
        if self.limited_by is None or self.status == 429:
            return said
        return f"{said} (a rate limit, as {self.limited_by} says; not a refused token)"


class ServerError(ApiError):
    """5xx: the service failed."""


class ServiceContractError(ApiError):
    """The service answered, but not as the interface document says it does.

    A malformed success body (empty, not JSON, no ``data``), items of the wrong shape, pages
    that contradict their own ``meta`` or repeat earlier pages. Not the caller's fault (that is
    :class:`ValidationError`) and not a failure status (:class:`ServerError`): the answer
    itself cannot be trusted. Under ``strict=True`` every finding that is otherwise a
    :class:`~dealframe.MissingDataWarning` is raised as this error.

    Attributes
    ----------
    finding : str
        A short key of what broke (``invalid_body``, ``count_mismatch``, ``repeated_page``,
        ``repeated_ids``, ``conflicting_rows``, ``missing_field``, ``wrong_shape`` ...).

    Examples
    --------
    >>> err = ServiceContractError(200, "a JSON object without 'data'", finding="invalid_body",
    ...                            request=RequestInfo("POST", "/api/v2/companies", "public"))
    >>> str(err)
    "200 SERVICE_CONTRACT: a JSON object without 'data' (POST /api/v2/companies)"
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        finding: str,
        request: RequestInfo | None = None,
        attempts: int = 1,
        details: Mapping[str, Any] | None = None,
        note: str | None = None,
    ) -> None:
        self.finding = finding
        super().__init__(
            status,
            "SERVICE_CONTRACT",
            message,
            details=details,
            request=request,
            attempts=attempts,
            note=note,
        )


class TransportError(DealframeError, _Noted):
    """The exchange itself failed: connection refused or dropped, timeout, truncated body.

    Parameters
    ----------
    message : str
        What happened.
    request : RequestInfo, optional
        The request that failed.
    attempts : int
        How many times it was sent.
    kind : str
        A short label: ``connection``, ``timeout``, ``truncated``, ``invalid_json`` ...

    Attributes
    ----------
    answers : tuple of str
        What each attempt got, in order, as :attr:`ApiError.answers` (``("503", "timeout")``).
    """

    answers: tuple[str, ...] = ()

    def __init__(
        self,
        message: str,
        *,
        request: RequestInfo | None = None,
        attempts: int = 1,
        kind: str = "transport",
        note: str | None = None,
    ) -> None:
        self.request = request
        self.attempts = attempts
        self.kind = kind
        self.note = note
        self._said = _call_blanked(message)
        super().__init__(self._render())

    def _render(self) -> str:
        return self._said + _context(
            self.request, self.attempts, self.note, answers=_answers_shown(self)
        )


class IncompleteResultError(DealframeError):
    """Some pages or chunks of a multi-request result failed after their retries.

    Parameters
    ----------
    expected : int or None
        Rows the result should have had (None when unknown).
    received : int
        Rows that did arrive.
    failed : sequence
        The items (pages, chunks, ids) that failed, kept whole in ``.failed``.
    errors : sequence of BaseException, optional
        The error of each failed item, in the same order; empty when the items are
        missing from answers that did arrive (``strict=True``), not failed requests.
    partial : object, optional
        What did arrive (usually a DataFrame), attached as ``.partial``.
    what : str
        Name of the units counted, for the message.
    labels : sequence of str, optional
        How the message names each failed item (``SKUs 1-100 (A-USA ... Z-USA)`` for a chunk
        of SKUs), in the same order; by default the item itself. Kept in ``.labels``.

    Notes
    -----
    The message names the failed items within about 1,000 characters, then how many more
    there are (``.failed`` keeps them all), and the first error cut to as many, followed by
    its PEP 678 notes (where the SKUs of a refused chunk are in the caller's list), cut to as
    many together. When every
    error is of one class, it says so (``each failed with RateLimitedError``).
    ``.retry_after`` is the longest wait the errors carry (a 429's, a 503's ``Retry-After``),
    or None: wait that long before calling again.

    Examples
    --------
    >>> str(IncompleteResultError(1000, 900, [3]))
    'incomplete result: received 900 of 1000 rows; 1 failed item(s): 3'
    >>> error = IncompleteResultError(300, 0, [["A"], ["B"]], labels=["SKU 1 (A)", "SKU 2 (B)"],
    ...     errors=[RateLimitedError(429, "RATE_LIMITED", "Slow down", retry_after=s)
    ...             for s in (5, 60)], what="SKUs")
    >>> error.retry_after, str(error).split("; ")[1:3]
    (60, ['2 failed item(s): SKU 1 (A), SKU 2 (B)', 'each failed with RateLimitedError'])
    """

    def __init__(
        self,
        expected: int | None,
        received: int,
        failed: Sequence[Any],
        *,
        errors: Sequence[BaseException] = (),
        partial: Any = None,
        what: str = "rows",
        labels: Sequence[str] | None = None,
    ) -> None:
        self.expected = expected
        self.received = received
        self.failed = list(failed)
        self.labels = [str(item) for item in failed] if labels is None else list(labels)
        self.errors = list(errors)
        self.partial = partial
        self.what = what
        waits = [w for e in self.errors if (w := getattr(e, "retry_after", None)) is not None]
        self.retry_after: float | None = max(waits) if waits else None
        message = f"incomplete result: {self.counts()}"
        if self.errors:
            classes = {type(e).__name__ for e in self.errors}
            if len(classes) == 1:
                message += f"; each failed with {classes.pop()}"
            message += f"; first error: {_with_notes(self.errors[0])}"
        super().__init__(message)

    def counts(self) -> str:
        """What arrived and what did not, as the message says it (the failed items named
        within about 1,000 characters, then how many more).

        Examples
        --------
        >>> IncompleteResultError(None, 2, ["page 3"], what="deals").counts()
        'received 2 deals; 1 failed item(s): page 3'
        >>> IncompleteResultError(None, 0, [[i] for i in range(400)]).counts()[-30:]
        '7], [8], [9], ... and 390 more'
        """
        of = f" of {self.expected}" if self.expected is not None else ""
        return (
            f"received {self.received}{of} {self.what}; "
            f"{len(self.failed)} failed item(s): {_listed(self.labels)}"
        )


def incomplete(
    expected: int | None,
    received: int,
    failed: Sequence[Any],
    *,
    errors: Sequence[BaseException] = (),
    partial: Any = None,
    what: str = "rows",
    stop: ApiError | None = None,
    labels: Sequence[str] | None = None,
) -> DealframeError:
    """The error of a multi-request call some of whose requests failed for good.

    An :class:`IncompleteResultError` (same arguments), unless the call was stopped part-way
    by an error every later request would meet too: ``stop`` (a 400 on page 3 of a list
    walk), or else the first :class:`AuthenticationError` of ``errors`` (a token that expired
    part-way). That error is returned as itself (``except AuthenticationError`` still catches
    it), carrying ``partial``, ``expected``, ``received``, ``failed`` and ``labels`` as the
    incomplete result would, and saying in its message how many units arrived before it. Its
    ``.retry_after`` stays its own (the wait that error carries, usually None), not the
    longest wait of the failed requests: waiting does not cure what stopped the call.

    Examples
    --------
    >>> expired = AuthenticationError(401, "INVALID_TOKEN", "Token expired")
    >>> error = incomplete(150, 100, ["page 3"], errors=[expired], partial="df")
    >>> type(error).__name__, error.received, error.partial
    ('AuthenticationError', 100, 'df')
    >>> str(error).split("; ")[:2]
    ['401 INVALID_TOKEN: Token expired', 'stopped part-way: received 100 of 150 rows']
    >>> slow = RateLimitedError(429, "RATE_LIMITED", "Slow down", retry_after=30)
    >>> error = incomplete(300, 100, [["A"], ["B"]], errors=[slow, expired], labels=["1", "2"])
    >>> error.labels, error.retry_after
    (['1', '2'], None)
    >>> type(incomplete(150, 100, ["page 3"], errors=[ServerError(503, "X", "down")])).__name__
    'IncompleteResultError'
    """
    result = IncompleteResultError(
        expected, received, failed, errors=errors, partial=partial, what=what, labels=labels
    )
    if stop is None:
        stop = next((e for e in errors if isinstance(e, AuthenticationError)), None)
    if stop is None:
        return result
    again = copy.copy(stop)  # by DealframeError.__reduce__: the class and every attribute
    again.partial, again.expected, again.received = partial, expected, received
    again.failed, again.labels = result.failed, result.labels
    again.args = (
        f"{stop}; stopped part-way: {result.counts()} (what arrived is on the error's .partial)",
    )
    return again


# --------------------------------------------------------------------------------------------
# status -> error class
# --------------------------------------------------------------------------------------------

_DEFAULT_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    422: "BAD_REQUEST",
    429: "RATE_LIMITED",
    500: "INTERNAL_ERROR",
    502: "BAD_GATEWAY",
    503: "SERVICE_UNAVAILABLE",
    504: "GATEWAY_TIMEOUT",
}


_CLASSES: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: AuthenticationError,
    404: NotFoundError,
    422: BadRequestError,
    429: RateLimitedError,
}


#: ``delay-seconds`` of a ``Retry-After`` (RFC 9110: digits), a decimal fraction allowed,
#: either side of its point left out (``5.``, ``.5``); no sign, exponent, ``inf`` or ``nan``.
_DELAY_SECONDS = re.compile(r"[0-9]+\.?[0-9]*|\.[0-9]+", re.ASCII)
#: The longest wait a ``Retry-After`` is read as (seconds): RFC 9111 reads a longer
#: ``delta-seconds`` as 2**31 too.
_LONGEST_DELAY = float(2**31)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or HTTP date).

    Parameters
    ----------
    value : str or None
        The header value.
    now : float, optional
        Current wall-clock time (``time.time()``), for HTTP dates; stubbable in tests.

    Returns
    -------
    float or None
        Non-negative seconds (0 for a date already past), or None when the header is absent
        or is neither of RFC 9110's forms: ``delay-seconds`` is digits (a decimal fraction
        is read too: ``0.5``, ``5.``, ``.5``), so a sign (``-1``, ``+5``), an exponent
        (``1e12``), ``inf`` or ``nan`` states no wait. A wait past ``_LONGEST_DELAY`` (2**31 s, as RFC 9111 reads an
        overlong ``delta-seconds``; a date in the year 9999) is read as that.

    Examples
    --------
    >>> [parse_retry_after(v) for v in ("2", "0.5", "5.", ".5")]
    [2.0, 0.5, 5.0, 0.5]
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0)
    10.0
    >>> [parse_retry_after(v) for v in ("-1", "+5", "1e12", "inf", "nan", "", ".")]
    [None, None, None, None, None, None, None]
    >>> parse_retry_after("9" * 400) == _LONGEST_DELAY
    True
    """
    if value is None:
        return None
    text = value.strip()
    if _DELAY_SECONDS.fullmatch(text):
        seconds: float | None = float(text)
    else:
        seconds = _date_seconds(text, now)
    return None if seconds is None else min(max(0.0, seconds), _LONGEST_DELAY)


def _date_seconds(text: str, now: float | None) -> float | None:
    """Seconds from ``now`` (default ``time.time()``) until the HTTP date ``text``
    (negative when past), None when it is no HTTP date.

    Examples
    --------
    >>> _date_seconds("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470.0), _date_seconds("5", None)
    (10.0, None)
    """
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    return when.timestamp() - (time.time() if now is None else now)


#: Secrets this long or longer are redacted wherever they appear; shorter ones (a test token
#: such as ``"e"``) only as whole tokens, so ordinary words of a message stay readable.
_ANYWHERE = 12
_TOKEN_CHARS = r"[A-Za-z0-9_\-]"


#: Characters a URL never escapes: a token of these alone has no other form in a URL.
_URL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
#: A percent-escape, as :func:`_forms` writes its lower-case twin.
_PERCENT = re.compile(r"%[0-9A-F]{2}")


def _forms(secret: str) -> tuple[str, ...]:
    """The forms in which a service may echo ``secret`` back in a text, the token itself
    first: as a URL writes it (a key with ``+ / =`` inside a ``Location``, a ``Link``, a
    next-page URL or a website value): ``quote(secret, safe="")``, ``quote(secret)`` and
    ``quote_plus(secret)``, each also with lower-case escapes, where they differ from it.

    This is the one list of the forms every search and blanking of a token uses (the
    messages of errors and findings: :func:`_scrub`; the texts of an answer:
    :func:`dealframe.contract.blank_echoed`; a body or header the cache must not store:
    :func:`dealframe.transport.body.echoes`, which adds each form's JSON escapes). Nothing
    of it is kept: the forms are made again at each use.

    Examples
    --------
    >>> _forms("sk_live_0123456789abcdef")
    ('sk_live_0123456789abcdef',)
    >>> _forms("Kx7priv+SEC/RET42==")  # doctest: +NORMALIZE_WHITESPACE
    ('Kx7priv+SEC/RET42==', 'Kx7priv%2BSEC%2FRET42%3D%3D', 'Kx7priv%2bSEC%2fRET42%3d%3d',
     'Kx7priv%2BSEC/RET42%3D%3D', 'Kx7priv%2bSEC/RET42%3d%3d')
    """
    if _URL_SAFE.issuperset(secret):
        return (secret,)
    forms = [secret]
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret)):
        forms += (encoded, _PERCENT.sub(lambda m: m[0].lower(), encoded))
    return tuple(dict.fromkeys(forms))


def _scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret, in each of its forms (:func:`_forms`), replaced by ``***``.

    Examples
    --------
    >>> _scrub("Invalid or expired token e (got e)", ["e"])
    'Invalid or expired token *** (got ***)'
    >>> _scrub("key=sk_live_0123456789abcdef!", ["sk_live_0123456789abcdef"])
    'key=***!'
    >>> _scrub("/next?api_key=Kx7priv%2BSEC%2FRET42%3D%3D&page=2", ["Kx7priv+SEC/RET42=="])
    '/next?api_key=***&page=2'
    """
    forms = {(f, len(s) >= _ANYWHERE) for s in secrets if s for f in _forms(s)}
    for form, anywhere in sorted(forms, key=lambda f: len(f[0]), reverse=True):
        if anywhere:
            text = text.replace(form, "***")
        else:
            text = re.sub(f"(?<!{_TOKEN_CHARS}){re.escape(form)}(?!{_TOKEN_CHARS})", "***", text)
    return text


def _call_blanked(value: Any) -> Any:
    """``value`` (a text, or JSON read from the service) with the tokens of the client whose
    call is running blanked (:func:`_scrubbed`); as it is outside any client call.

    What every error keeps goes through here (:class:`DealframeError`), as every finding's
    words go through :func:`dealframe.contract.blanked`: the tokens are the running call's
    own (:data:`_CALL_SECRETS`, a context variable), never a process-wide list, so a short
    token of another client leaves this call's words alone.

    Examples
    --------
    >>> from dealframe.arguments import client_call
    >>> with client_call(["e"]):
    ...     _call_blanked("token e (got e)"), _call_blanked({"e": ["e"]})
    ('token *** (got ***)', {'***': ['***']})
    >>> _call_blanked("token e")
    'token e'
    """
    secrets = _CALL_SECRETS.get()
    return _scrubbed(value, secrets) if secrets else value


def _scrubbed(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` (read from JSON) with each secret blanked out of its texts and keys; a
    number or literal whose JSON text holds one becomes that text scrubbed (the structure is
    kept, whatever the secrets are).

    Examples
    --------
    >>> _scrubbed({"errors": ["token e is unknown"], "e": 1, "max": 100}, ["e", "1"])
    {'errors': ['token *** is unknown'], '***': '***', 'max': 100}
    """
    if isinstance(value, str):
        return _scrub(value, secrets)
    if isinstance(value, Mapping):
        return {_scrub(str(k), secrets): _scrubbed(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(item, secrets) for item in value]
    literal = value is None or isinstance(value, bool)  # as JSON writes it: null, true, false
    text = orjson.dumps(value).decode() if literal else str(value)
    scrubbed = _scrub(text, secrets)
    return value if scrubbed == text else scrubbed


#: Members of an error object that say what it is, never a field it names: not read as one
#: when the whole object is read as DRF's ``{field: [texts]}``.
_NOT_FIELDS = frozenset(
    {
        "code",
        "detail",
        "details",
        "error",
        "error_description",
        "errors",
        "instance",
        "invalid-params",
        "invalid_params",
        "invalidParams",
        "message",
        "path",
        "status",
        "statusCode",
        "timestamp",
        "title",
        "type",
    }
)
#: DRF's and Django's keys for the problems of no one field: their texts stand alone.
_NO_FIELD = frozenset({"non_field_errors", "__all__"})
#: How a message joins several problems of a body (and an error's message its problems).
_PROBLEMS_JOINED = "; "


def _read_body(
    body: bytes, content_type: str | None = None, *, shown: bytes | None = None
) -> tuple[str | None, str | None, dict[str, Any], str]:
    """(code, message, details, words) from any of the error body shapes a service might use.

    A JSON object is read by :func:`_read_object`; a top-level JSON array of texts or
    objects as the problems it lists; a JSON text as the message; a body that is not JSON
    is summarised (``shown``, the body with its secrets blanked out, when given). The
    message is None when the body says nothing the reader knows (an empty body, ``{}``,
    ``[1, 2]``, only unknown members): :func:`error_from_response` then summarises it.
    ``words`` are the service's own (:attr:`ApiError.words`): the message read, else the
    body's text (:func:`_body_words`), never the summary.

    Examples
    --------
    >>> _read_body(b'["limit: at most 100"]')
    (None, 'limit: at most 100', {'errors': ['limit: at most 100']}, 'limit: at most 100')
    >>> _read_body(b'"limit too large"')
    (None, 'limit too large', {}, 'limit too large')
    >>> _read_body(b'{"requestId": "r-1"}')
    (None, None, {}, '{"requestId": "r-1"}')
    >>> _read_body(b"limit too large", "text/plain")
    (None, "not a JSON error body (15 bytes of text/plain, first line 'limit too large')", {}, 'limit too large')
    """
    words = _body_words(body if shown is None else shown)
    try:
        parsed = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        summary = summarize_body(body if shown is None else shown, content_type)
        return None, f"not a JSON error body ({summary})", {}, words
    code, message, details = _read_parsed(parsed)
    return code, message, details, words if message is None else message


#: A markup tag (``<title>``, ``<div style="width: 600px">``): no words of the service.
_TAG = re.compile(r"<[^<>]*>")


def _body_words(body: bytes, limit: int = 4096) -> str:
    """The text of an error body as the service wrote it (its first ``limit`` bytes, markup
    tags left out, white space made single), for :attr:`ApiError.words`.

    Examples
    --------
    >>> _body_words(b"<html><head><title>413 Request Entity Too Large</title></head></html>")
    '413 Request Entity Too Large'
    >>> _body_words(b"Error: too many items\\r\\nin request"), _body_words(b"")
    ('Error: too many items in request', '')
    """
    text = body[:limit].decode("utf-8", "replace")
    return " ".join(_TAG.sub(" ", text).split())


def _read_parsed(parsed: Any) -> tuple[str | None, str | None, dict[str, Any]]:
    """(code, message, details) of a parsed JSON error body (see :func:`_read_body`)."""
    if isinstance(parsed, Mapping):
        return _read_object(parsed)
    if isinstance(parsed, list) and all(isinstance(p, str | Mapping) for p in parsed):
        # ["limit: at most 100"], [{field, message}, ...]; a problem repeated is said once
        problems = list(dict.fromkeys(_list_problems(parsed)))
        return None, _message_of(None, problems), {"errors": problems} if problems else {}
    if isinstance(parsed, str) and parsed.strip():
        return None, parsed, {}
    return None, None, {}


def _read_object(doc: Mapping[str, Any]) -> tuple[str | None, str | None, dict[str, Any]]:
    """(code, message, details) of a JSON error object, whichever members carry them.

    The documented ``{"error": {"code", "message", "details"}}`` (``details`` an object whose
    ``errors`` is a list or a text, or a list of problems); Spring Boot's ``{"error":
    "<status phrase>", "message": ...}``; NestJS's ``{"error": "<status phrase>", "message":
    [problem, ...]}``; FastAPI's ``{"detail": text or [problem, ...] or {"msg", "code"}}``;
    ``{"errors": [problem, ...]}`` (JSON:API's with ``source.pointer``); Rails' and Laravel's
    ``{"errors": {field: text or [texts]}}`` (Laravel's with a ``message``); Django REST
    framework's ``{field: [texts]}``; problem+json's ``{"title", "detail"}`` (RFC 7807), with
    its ``invalid-params`` (``[{"name", "reason"}]``) or an ``errors`` list (RFC 9457's
    ``[{"detail", "pointer"}]``); OAuth's ``{"error", "error_description"}``. The service's
    own words are kept as the message, each problem listed in ``details["errors"]`` as
    ``"<field>: <text>"`` when it names its field (a ``detail`` text is one problem, whatever
    it joins); a status phrase is the message only when nothing else says more, and a body
    that lists several problems and says nothing else has them, joined with ``"; "``, as its
    message (never a phrase of the client's).

    Examples
    --------
    >>> _read_object({"status": 400, "error": "Bad Request", "message": "limit: at most 100"})
    (None, 'limit: at most 100', {})
    >>> _read_object({"statusCode": 400, "message": ["limit: at most 100"], "error": "Bad Request"})
    (None, 'limit: at most 100', {'errors': ['limit: at most 100']})
    >>> _read_object({"error": {"code": "E", "message": "Invalid", "details": ["limit: <= 100"]}})
    ('E', 'Invalid', {'errors': ['limit: <= 100']})
    >>> _read_object({"title": "Bad Request", "message": None, "detail": "limit: at most 100"})
    (None, 'limit: at most 100', {'errors': ['limit: at most 100']})
    >>> _read_object({"message": "The given data was invalid.", "errors": {"limit": ["max 100"]}})
    (None, 'The given data was invalid.', {'errors': ['limit: max 100']})
    >>> _read_object({"limit": ["Ensure this value is less than or equal to 100."]})
    (None, 'limit: Ensure this value is less than or equal to 100.', {'errors': [...]})
    >>> _read_object({"type": "about:blank", "title": "Bad Request", "detail": "Invalid",
    ...               "invalid-params": [{"name": "limit", "reason": "must be <= 500"}]})
    (None, 'Invalid', {'errors': ['limit: must be <= 500', 'Invalid']})
    >>> _read_object({"detail": {"msg": "Company not found", "code": "NOT_FOUND"}})
    ('NOT_FOUND', 'Company not found', {})
    >>> _read_object({"errors": [{"field": None, "message": "Company not found"},
    ...                          {"field": None, "message": "id was merged into 123"}]})
    (None, 'Company not found; id was merged into 123', {'errors': [...]})
    """
    top, inner, phrase = doc, doc.get("error"), None
    if isinstance(inner, Mapping):  # the documented body: what it says is inside "error"
        doc = inner
    else:  # a status phrase ("Bad Request"), or a service's only words
        phrase = _as_text(inner) or _as_text(doc.get("title"))
    said = next(  # the first that says something (a null "message" beside a "detail" ...)
        (doc[k] for k in ("message", "detail", "error_description") if doc.get(k) is not None),
        None,
    )
    code = doc.get("code")
    if isinstance(said, Mapping) and any(said.get(k) for k in _PROBLEM_TEXT):
        # FastAPI's HTTPException(detail={"msg": ..., "code": ...}): one problem, in its
        # own words (and its code, when the body has none), not a map of fields
        code = said.get("code") if code is None else code
        said = _error_text(said)
    problems: list[str] = []
    if isinstance(said, list | Mapping):  # NestJS's message, FastAPI's detail: the problems
        problems, said = _problems(said), None
    problems += _problems(doc.get("errors"))
    problems += _param_problems(doc)  # problem+json's invalid-params: [{name, reason}]
    details = doc.get("details")
    if isinstance(details, list):  # {"details": ["limit: must be <= 100"]}
        problems += _list_problems(details)
    detail = doc.get("detail")
    if isinstance(detail, str) and detail.strip():  # FastAPI's, problem+json's: one problem
        problems.append(detail)
    details = dict(details) if isinstance(details, Mapping) else {}
    problems = _problems(details.get("errors")) + problems  # the documented list first
    if not problems and said is None:  # nothing else said: DRF's {field: [texts]}
        problems = _field_problems(top, lists_only=True)
    problems = list(dict.fromkeys(problems))  # a problem repeated is said once
    if problems:
        details["errors"] = problems
    return _as_text(code), _message_of(said, problems, phrase), details


def _message_of(said: Any, problems: list[str], phrase: str | None = None) -> str | None:
    """The message: what the body said, else its one problem, else its status phrase, else
    its problems joined with ``"; "`` (the service's words, never a phrase of the client's);
    None when the body said nothing.

    Examples
    --------
    >>> _message_of(None, ["Company not found", "id was merged into 123"])
    'Company not found; id was merged into 123'
    >>> _message_of("Invalid", ["limit: at most 100"]), _message_of(None, [], "Not Found")
    ('Invalid', 'Not Found')
    """
    message = _as_text(said) or (problems[0] if len(problems) == 1 else None) or phrase
    if message is None and problems:
        message = _joined(problems)
    return message


#: At most this many problems are said in a message, within about this many characters (the
#: first is said whatever its length, cut to them): ``details["errors"]`` keeps them all.
_SHOWN_PROBLEMS = 10
_SHOWN_CHARS = 1000


def _cut(text: str, limit: int = _SHOWN_CHARS) -> str:
    """``text``, or its first ``limit`` characters and how long it was.

    Examples
    --------
    >>> _cut("x" * 1500)[-40:]
    'xxxxxx... (cut: 1,500 characters in all)'
    >>> _cut("Company not found")
    'Company not found'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (cut: {len(text):,} characters in all)"


def _with_notes(error: BaseException) -> str:
    """``error``'s message, then each of its PEP 678 notes (``__notes__``, which ``str(error)``
    leaves out: where a refused chunk's SKUs are in the caller's list), ``; `` between them: an
    error quoted inside another keeps what its notes say. The message is cut (:func:`_cut`),
    and the notes together are cut alike: a long message leaves room for the notes, and
    neither a long SKU a note names nor many notes make the quote long.

    Examples
    --------
    >>> error = BadRequestError(400, "BAD_REQUEST", "skus[3]: not served")
    >>> error.add_note("skus[i] in the service's message is position 50 + i of yours")
    >>> _with_notes(error)
    "400 BAD_REQUEST: skus[3]: not served; skus[i] in the service's message is position 50 + i of yours"
    >>> error.add_note("x" * 5000)
    >>> len(_with_notes(error)) < 2200
    True
    """
    notes = "; ".join(map(str, getattr(error, "__notes__", ())))
    return "; ".join([_cut(str(error)), *([_cut(notes)] if notes else [])])


def _joined(problems: Sequence[Any], sep: str = _PROBLEMS_JOINED) -> str:
    """``problems`` joined with ``sep`` (``"; "``): the first ten at most, within about 1,000
    characters (a longer one cut: :func:`_cut`), then how many more there are.

    Examples
    --------
    >>> _joined(["same", "other"])
    'same; other'
    >>> _joined([f"row {i}: bad" for i in range(25)])[-39:]
    'row 8: bad; row 9: bad; ... and 15 more'
    """
    shown: list[str] = []
    size = 0
    for problem in problems[:_SHOWN_PROBLEMS]:
        text = str(problem)
        if shown and size + len(text) > _SHOWN_CHARS:
            break
        shown.append(_cut(text))
        size += len(shown[-1]) + len(sep)
    more = len(problems) - len(shown)
    return sep.join(shown) + (f"{sep}... and {more} more" if more else "")


def _problems(value: Any) -> list[str]:
    """The problems a member lists: a list of them, ``{field: text or [texts]}``, or one text.

    Examples
    --------
    >>> _problems({"limit": ["max 100", "must be even"], "sort": "unknown key"})
    ['limit: max 100', 'limit: must be even', 'sort: unknown key']
    >>> _problems("limit: must be <= 100"), _problems(None)
    (['limit: must be <= 100'], [])
    """
    if isinstance(value, list):
        return _list_problems(value)
    if isinstance(value, Mapping):
        return _field_problems(value)
    text = _as_text(value)
    return [text] if text and text.strip() else []


def _list_problems(items: list[Any], *, named: bool = False) -> list[str]:
    """One problem per entry of a list (a text, or an object with its message and where;
    ``named``: its ``name`` is where, as in problem+json's ``invalid-params``)."""
    return [_error_text(item, named=named) for item in items if item not in (None, "", {}, [])]


#: The member of a problem+json body (RFC 7807) listing the parameters it refused, as the
#: RFC's example writes it and as others spell it.
_INVALID_PARAMS = ("invalid-params", "invalid_params", "invalidParams")


def _param_problems(doc: Mapping[str, Any]) -> list[str]:
    """``"<name>: <reason>"`` for each entry of a problem+json ``invalid-params`` list.

    Examples
    --------
    >>> _param_problems({"invalid-params": [{"name": "limit", "reason": "must be <= 500"}]})
    ['limit: must be <= 500']
    """
    problems: list[str] = []
    for key in _INVALID_PARAMS:
        value = doc.get(key)
        if isinstance(value, list):
            problems += _list_problems(value, named=True)
    return problems


def _field_problems(
    fields: Mapping[str, Any], where: str = "", *, lists_only: bool = False
) -> list[str]:
    """``"<field>: <text>"`` for each text of a ``{field: text or [texts] or {field: ...}}``
    mapping (Rails', Laravel's, DRF's), nested fields joined with ``.``; DRF's
    ``non_field_errors`` stand alone. ``lists_only`` reads a whole error object as one: only
    its members holding lists (at any depth) and not naming the object's own parts.

    Examples
    --------
    >>> _field_problems({"filters": {"date_from": ["bad date"]}, "non_field_errors": ["no"]})
    ['filters.date_from: bad date', 'no']
    >>> _field_problems({"path": "/x", "limit": ["max 100"], "id": "r-1"}, lists_only=True)
    ['limit: max 100']
    """
    problems: list[str] = []
    for key, value in fields.items():
        if lists_only and (
            not isinstance(value, list | Mapping) or (key in _NOT_FIELDS and not where)
        ):
            continue
        field = where if key in _NO_FIELD else f"{where}.{key}" if where else str(key)
        if isinstance(value, Mapping):
            problems += _field_problems(value, field, lists_only=lists_only)
        else:
            texts = _list_problems(value) if isinstance(value, list) else _problems(value)
            problems += [f"{field}: {text}" if field else text for text in texts]
    return problems


def summarize_body(body: bytes, content_type: str | None, limit: int = 120) -> str:
    """One line about a body that is not what was expected (never the body itself).

    Examples
    --------
    >>> summarize_body(b"<html>\\n<title>502 Bad Gateway</title>\\n" + b"x" * 5000, "text/html")
    "5038 bytes of text/html, first line '<html>'"
    >>> summarize_body(b"", None)
    'an empty body'
    """
    if not body:
        return "an empty body"
    text = body[:4096].decode("utf-8", "replace").strip()
    first = text.splitlines()[0].strip() if text else ""
    if len(first) > limit:
        first = first[:limit] + "..."
    kind = content_type.split(";")[0].strip() if content_type else "no content type"
    return f"{len(body)} bytes of {kind}, first line {first!r}"


#: The members a problem object says its text in, in the order read: Spring's field errors
#: say ``defaultMessage``; JSON:API's may only ``title``; problem+json's invalid-params say
#: ``reason``; FastAPI's ``msg``.
_PROBLEM_TEXT = ("message", "detail", "msg", "defaultMessage", "title", "reason")


def _error_text(item: Any, *, named: bool = False) -> str:
    """One entry of an ``errors`` list: a string, or an object's message (and where; with
    ``named``, its ``name`` too: see :func:`_where`).

    Examples
    --------
    >>> _error_text({"loc": ["body", "limit"], "msg": "Input should be <= 100"})
    'body.limit: Input should be <= 100'
    >>> _error_text({"title": "Invalid", "detail": "at most 100", "source": {"pointer": "/limit"}})
    'limit: at most 100'
    >>> _error_text({"detail": "must be <= 500", "pointer": "#/limit"})
    'limit: must be <= 500'
    >>> _error_text({"name": "limit", "reason": "must be <= 500"}, named=True)
    'limit: must be <= 500'
    """
    if isinstance(item, Mapping):
        text = next((item[k] for k in _PROBLEM_TEXT if item.get(k)), None)
        where = _where(item, named=named)
        if text is not None:
            return f"{where}: {_as_text(text)}" if where else str(_as_text(text))
    return str(_as_text(item))


def _where(item: Mapping[str, Any], *, named: bool = False) -> str | None:
    """The field a problem object names: ``field``, FastAPI's ``loc`` (``["body", "limit"]``
    read ``body.limit``), ``path``, JSON:API's ``source`` (its ``pointer``, ``/limit`` read
    ``limit``, or ``parameter``), RFC 9457's ``pointer`` (``#/limit``), and, with ``named``
    (an entry of problem+json's ``invalid-params``), ``name``: elsewhere a ``name`` may be
    the error's own (``ValidationError``), not a field."""
    where = item.get("field") or item.get("loc") or item.get("path")
    source = item.get("source")
    if not where and isinstance(source, Mapping):
        where = _pointer(source.get("pointer")) or source.get("parameter")
    if not where:
        where = _pointer(item.get("pointer")) or (item.get("name") if named else None)
    if isinstance(where, list):
        where = ".".join(str(part) for part in where)
    return _as_text(where) if where else None


def _pointer(pointer: Any) -> str | None:
    """A JSON pointer as a dotted field: ``/data/attributes/limit`` is
    ``data.attributes.limit``; None for the whole document or no text.

    Examples
    --------
    >>> _pointer("/limit"), _pointer("/filters/a~1b"), _pointer(""), _pointer("#/limit")
    ('limit', 'filters.a/b', None, 'limit')
    """
    if isinstance(pointer, str):
        pointer = pointer.removeprefix("#")  # in a URI fragment, as RFC 9457 writes it
    if not isinstance(pointer, str) or not pointer.strip("/"):
        return None
    parts = pointer.lstrip("/").split("/")
    return ".".join(part.replace("~1", "/").replace("~0", "~") for part in parts)


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def error_from_response(
    status: int,
    body: bytes,
    request: RequestInfo | None,
    headers: Mapping[str, str] | None = None,
    *,
    attempts: int = 1,
    secrets: Iterable[str] = (),
    note: str | None = None,
) -> ApiError:
    """Build the typed error for an error response, for either interface family.

    Reads the documented ``{"error": {"code", "message", "details"}}`` body and tolerates
    ``{"detail": ...}``, ``{"errors": [...]}`` and ``{"errors": {field: ...}}``, ``{"message":
    ...}`` (with Spring Boot's or NestJS's ``"error": "<status phrase>"`` beside it), Django
    REST framework's ``{field: [texts]}``, a top-level array of problems, plain text and
    empty bodies (Family B's error body is not shown by the interface document): the
    service's message and each problem it lists are kept (see :func:`_read_object`); a body
    saying nothing the reader knows is summarised in the message, never dropped. Tokens are
    blanked out of what the error keeps: the message, code and details read from the body
    (so a short token equal to a JSON literal, such as ``1``, cannot break the body's
    reading), and the body itself before any of it is summarised (before the summary's cut).

    A body that says nothing (RFC 6750's empty 401) leaves the words to the ``WWW-Authenticate``
    challenge: its ``error_description`` (else ``error``) is the message, its ``error``
    (``invalid_token``) the code, both kept in ``details["www_authenticate"]``. A 401/403
    that says it is a rate limit (a code naming one, ``RATE_LIMITED``; with no code but the
    status's, a message saying a limit is exceeded, ``API rate limit exceeded``; a 403 with
    ``X-RateLimit-Remaining: 0``: :func:`_limited_by`) is a :class:`RateLimitedError`, not an
    :class:`AuthenticationError`; a code naming the token (``INVALID_TOKEN``) never is. The
    wait asked is ``Retry-After``, else, for a rate
    limit or a 503, the reset a ``RateLimit-Reset`` or ``X-RateLimit-Reset`` header states
    (:func:`stated_wait`).

    Parameters
    ----------
    status : int
        HTTP status (400 or more).
    body : bytes
        Raw response body.
    request : RequestInfo or None
        The request, for the message.
    headers : mapping, optional
        Response headers (``Retry-After`` and the rate-limit reset headers, the
        ``WWW-Authenticate`` challenge and ``X-RateLimit-Remaining`` are read from them).
    attempts : int
        How many times the request was sent.
    secrets : iterable of str
        Strings (tokens) to blank out should the body echo them.
    note : str, optional
        Extra text appended to the message (e.g. why retries stopped).

    Returns
    -------
    ApiError
        An instance of the subclass that matches ``status``.

    Examples
    --------
    >>> err = error_from_response(
    ...     404, b'{"error": {"code": "NOT_FOUND", "message": "Resource is deleted",'
    ...     b' "details": {"deleted": true}}}', RequestInfo("GET", "/x", "private"))
    >>> type(err).__name__, err.deleted
    ('NotFoundError', True)
    """
    headers = CaseInsensitiveDict(headers or {})
    secrets = tuple(secrets)
    content_type = headers.get("Content-Type")
    # the body as a summary may show it: scrubbed before the summary cuts it to one line
    shown = _scrub(body.decode("utf-8", "replace"), secrets).encode() if secrets else body
    # read from the raw body (a scrubbed one may no longer be JSON), its outputs scrubbed
    code, message, details, words = _read_body(body, content_type, shown=shown)
    challenge = _challenge(headers.get("WWW-Authenticate"))
    if challenge:  # RFC 6750: an empty 401 says why in its header alone
        details = {**details, "www_authenticate": challenge}
        code = code or challenge.get("error")
        if message is None:
            message = words = challenge.get("error_description") or challenge["error"]
    message = _scrub(message or _unread(status, shown, content_type), secrets)
    words = _scrub(words, secrets)  # the service's, never the summary: bounds are read here
    code = _scrub(code, secrets) if code else code
    details = _scrubbed(details, secrets) if secrets else details
    cls = _CLASSES.get(status, ServerError if status >= 500 else ApiError)
    limited_by = _limited_by(status, code, message, headers)
    if limited_by is not None:
        cls = RateLimitedError
    retry_after, said_by = stated_wait(headers, limited=cls is RateLimitedError or status == 503)
    extra: dict[str, Any] = {"limited_by": limited_by} if limited_by is not None else {}
    return cls(
        status,
        code or _DEFAULT_CODES.get(status, f"HTTP_{status}"),
        message,
        details=details,
        request=request,
        attempts=attempts,
        retry_after=retry_after,
        retry_after_from=None if said_by == "Retry-After" else said_by,
        note=note,
        words=words,
        **extra,
    )


#: A code naming a rate limit: ``RATE_LIMITED``, ``rateLimitExceeded``, ``TOO_MANY_REQUESTS``,
#: ``QUOTA_EXCEEDED`` / ``quotaExceeded``, ``REQUEST_LIMIT_EXCEEDED``, ``dailyLimitExceeded``,
#: ``OVER_QUERY_LIMIT``, ``Throttled``, ``ThrottlingException``. Not a bare
#: ``quota`` or ``limit`` (``PLAN_LIMIT``, ``NO_QUOTA``: a plan's terms, not a wait).
_LIMIT_CODE = re.compile(
    r"rate[\s_-]*limit|throttl|too[\s_-]*many[\s_-]*requests"
    r"|(?:quota|limit)[\s_-]*exceeded|exceeded[\s_-]*(?:quota|limit)"
    r"|(?<![a-z])over[\s_-]*(?:[a-z]+[\s_-]*)?limit",
    re.IGNORECASE,
)
#: A code naming the credentials (``INVALID_TOKEN``, ``MISSING_TOKEN``, ``TOKEN_EXPIRED``,
#: RFC 6750's ``invalid_token`` and ``insufficient_scope``, ``INVALID_API_KEY``,
#: ``UNAUTHENTICATED``) and no rate limit (``API_KEY_RATE_LIMITED`` names one: a limit on
#: the key): never a rate limit, whatever its message or headers say.
_AUTH_CODE = re.compile(r"token|key|auth|scope|credential", re.IGNORECASE)
#: Codes that say no more than the status (the client's own defaults, or a number): the
#: message is read only then.
_STATUS_CODE = re.compile(r"(?:unauthorized|forbidden|(?:http[\s_-]*)?\d{3})", re.IGNORECASE)
#: A message saying a rate limit: a limit or quota *exceeded* (``API rate limit exceeded``,
#: ``You have exceeded a secondary rate limit``, ``Quota exceeded for ...``), ``too many
#: requests``, ``throttled``, ``rate limited``. Not ``quota`` or ``rate limit`` in another
#: sense (``no quota for the private API``, ``rate limit tier Basic``).
_LIMIT_WORDS = re.compile(
    r"\b(?:limit|quota)s?(?:\s+(?:has|have|was|were|is|are|been))*\s+exceeded\b"
    r"|\bexceed(?:ed|s|ing)?\b[^.;:!?]{0,40}?\b(?:limit|quota)s?\b"
    r"|too\s+many\s+requests|\bthrottl|\brate[\s_-]*limited\b"
    r"|\brate[\s_-]*limit\s+(?:was\s+|has\s+been\s+)?(?:reached|hit)\b"
    r"|\b(?:hit|reached|over)\s+(?:the\s+|your\s+|a\s+|its\s+)?rate[\s_-]*limit",
    re.IGNORECASE,
)
#: Headers whose ``0`` says no request is left in the window (GitHub's 403 sends the first).
_REMAINING = ("X-RateLimit-Remaining", "RateLimit-Remaining")


def _limited_by(
    status: int, code: str | None, message: str | None, headers: Mapping[str, str]
) -> str | None:
    """What says a 401/403 is a rate limit, as the message quotes it; None for any other
    answer. Only the service saying so makes it one:

    - a code naming a rate limit (:data:`_LIMIT_CODE`: ``RATE_LIMITED``, ``QUOTA_EXCEEDED``);
    - unless the code names the credentials, a message saying a limit is exceeded or
      reached, too many requests or throttled (:data:`_LIMIT_WORDS`);
    - a 403 with ``X-RateLimit-Remaining: 0`` (GitHub's).

    A code naming the credentials (:data:`_AUTH_CODE`: ``INVALID_TOKEN``,
    ``insufficient_scope``, ``INVALID_API_KEY``) is never a rate limit: a refused token is
    not sent again.

    Examples
    --------
    >>> _limited_by(403, "RATE_LIMITED", "API rate limit exceeded", {})
    "the code 'RATE_LIMITED'"
    >>> _limited_by(403, "FORBIDDEN", "API rate limit exceeded for 203.0.113.7", {})
    'the message'
    >>> _limited_by(403, "FORBIDDEN", "Forbidden", {"X-RateLimit-Remaining": "0"})
    'X-RateLimit-Remaining: 0'
    >>> _limited_by(401, "INVALID_TOKEN", "Invalid API key for this quota plan", {}) is None
    True
    >>> _limited_by(403, "FORBIDDEN", "Your plan has no quota for the private API", {}) is None
    True
    >>> _limited_by(403, "API_KEY_RATE_LIMITED", "Slow down", {})
    "the code 'API_KEY_RATE_LIMITED'"
    >>> _limited_by(403, "ACCESS_DENIED", "API rate limit exceeded", {})
    'the message'
    """
    if status not in (401, 403):
        return None
    named = bool(code) and not _STATUS_CODE.fullmatch(str(code).strip())
    if named and _LIMIT_CODE.search(str(code)):  # before the credentials: API_KEY_RATE_LIMITED
        return f"the code {code!r}"
    if named and _AUTH_CODE.search(str(code)):
        return None
    if message and _LIMIT_WORDS.search(message):  # a code naming neither: the words decide
        return "the message"
    for name in _REMAINING:
        if status == 403 and (headers.get(name) or "").strip() == "0":
            return f"{name}: 0"
    return None


#: Headers stating a rate limit's reset, in the order read: the IETF draft's
#: ``RateLimit-Reset`` (seconds), the ``reset``/``t`` parameter of its later ``RateLimit``
#: field, and the common ``X-RateLimit-Reset`` (seconds) and ``X-RateLimit-Reset-After``
#: (seconds). Each but the last, whose name says it is a delay, may be sent as a Unix time
#: instead (see :func:`_reset_seconds`).
_RESETS = ("RateLimit-Reset", "RateLimit", "X-RateLimit-Reset", "X-RateLimit-Reset-After")
#: A reset at or above this is a Unix time in seconds (2001-09-09), not seconds to wait (31
#: years); at or above the next, a Unix time in milliseconds.
_EPOCH_SECONDS = 1e9
_EPOCH_MILLISECONDS = 1e12
#: A piece of a ``RateLimit`` field: a quoted string (a policy's name, which may hold ``,``,
#: ``;`` or ``=``), or any run of other characters but the separators.
_FIELD_PIECE = re.compile(r'"(?:[^"\\]|\\.)*"|[^",;]+|[,;]')


def stated_wait(
    headers: Mapping[str, str], *, limited: bool = True, now: float | None = None
) -> tuple[float | None, str | None]:
    """Seconds the service asked to wait, and the header that said it as it was sent.

    ``Retry-After`` (seconds or an HTTP date: :func:`parse_retry_after`) first. For a rate
    limit (``limited``: a 429, a 401/403 read as one, a 503), a service that states its wait
    only as the moment its window resets is read too: ``RateLimit-Reset`` (the IETF draft's
    seconds), the ``reset``/``t`` parameter of a ``RateLimit`` field (of the policy with
    nothing left, ``r=0``, when it lists several: :func:`_policy_reset`), ``X-RateLimit-Reset``,
    ``X-RateLimit-Reset-After`` (each but the last in seconds, or a Unix time:
    :func:`_reset_seconds`). The
    transport waits this out as a ``Retry-After``, under the same ``retry_after_max``.

    Parameters
    ----------
    headers : mapping
        Response headers (case-insensitive).
    limited : bool
        Whether the answer is a rate limit (reset headers are read only then).
    now : float, optional
        Current wall-clock time (``time.time()``), for Unix times; stubbable in tests.

    Returns
    -------
    tuple of (float or None, str or None)
        Non-negative seconds and ``"<header>: <value>"`` (``"Retry-After"`` alone for it),
        or ``(None, None)`` when no header says a readable wait.

    Examples
    --------
    >>> stated_wait({"Retry-After": "2", "RateLimit-Reset": "20"})
    (2.0, 'Retry-After')
    >>> stated_wait({"RateLimit-Limit": "100", "RateLimit-Reset": "20"})
    (20.0, 'RateLimit-Reset: 20')
    >>> stated_wait({"X-RateLimit-Reset": "1445412480"}, now=1445412470.0)
    (10.0, 'X-RateLimit-Reset: 1445412480')
    >>> stated_wait({"RateLimit": '"default";r=0;t=7'})
    (7.0, 'RateLimit: "default";r=0;t=7')
    >>> stated_wait({"RateLimit-Reset": "1445412480"}, now=1445412470.0)
    (10.0, 'RateLimit-Reset: 1445412480')
    >>> stated_wait({"RateLimit-Reset": "20"}, limited=False)
    (None, None)
    """
    headers = CaseInsensitiveDict(headers)
    asked = parse_retry_after(headers.get("Retry-After"))
    if asked is not None:
        return asked, "Retry-After"
    if not limited:
        return None, None
    for name in _RESETS:
        value = headers.get(name)
        if value is None:
            continue
        text = value.strip()
        if name == "RateLimit":
            text = _policy_reset(text)
        seconds = _reset_seconds(text, now=now, epoch=name != "X-RateLimit-Reset-After")
        if seconds is not None:
            return seconds, f"{name}: {value.strip()}"
    return None, None


def _policies(field: str) -> list[dict[str, str]]:
    """The parameters of each policy of a ``RateLimit`` field, names lower-cased: a list of
    ``"name";r=0;t=7`` members (later drafts), or draft 7's ``limit=100, remaining=0,
    reset=12`` (one policy whose members are its parameters).

    Examples
    --------
    >>> _policies('"hour";r=50;t=3600, "burst";r=0;t=2')
    [{'r': '50', 't': '3600'}, {'r': '0', 't': '2'}]
    >>> _policies('"t=9, r=1";r=0;t=5'), _policies("limit=100, remaining=0, reset=12")
    ([{'r': '0', 't': '5'}], [{'limit': '100', 'remaining': '0', 'reset': '12'}])
    """
    members: list[list[str]] = [[""]]
    for piece in _FIELD_PIECE.findall(field):
        if piece == ",":
            members.append([""])
        elif piece == ";":
            members[-1].append("")
        else:
            members[-1][-1] += piece
    named: list[dict[str, str]] = []
    bare: dict[str, str] = {}  # draft 7: each member is one parameter
    for parts in members:
        params: dict[str, str] = {}
        for part in parts:
            key, eq, value = part.partition("=")
            if eq and not part.lstrip().startswith('"'):
                params.setdefault(key.strip().lower(), value.strip())
        if parts[0].strip().startswith('"') or "=" not in parts[0]:
            named.append(params)
        else:
            for key, value in params.items():
                bare.setdefault(key, value)
    return [p for p in [*named, bare] if p]


def _policy_reset(field: str) -> str:
    """The reset (``t``, draft 7's ``reset``) of a ``RateLimit`` field that applies: the
    longest among the policies with nothing left (``r``/``remaining`` 0: the ones that
    refused), else the shortest stated; ``""`` when none states one.

    Examples
    --------
    >>> _policy_reset('"hour";r=50;t=3600, "burst";r=0;t=2')
    '2'
    >>> _policy_reset('"a";r=0;t=7, "b";r=0;t=30, "day";r=10;t=80000')
    '30'
    >>> _policy_reset('"a";r=5;t=70, "b";r=9;t=30'), _policy_reset('"a";r=0')
    ('30', '')
    """
    stated: list[tuple[float, str, bool]] = []
    for params in _policies(field):
        reset = params.get("t", params.get("reset"))
        left = params.get("r", params.get("remaining"))
        try:
            at = float(reset) if reset is not None else math.nan
        except ValueError:
            at = math.nan
        if math.isfinite(at) and at >= 0:
            stated.append((at, reset or "", _is_zero(left)))
    spent = [s for s in stated if s[2]]
    if spent:
        return max(spent)[1]
    return min(stated)[1] if stated else ""


def _is_zero(text: str | None) -> bool:
    """Whether ``text`` is the number 0 (``r=0``)."""
    try:
        return text is not None and float(text) == 0
    except ValueError:
        return False


def _reset_seconds(text: str, *, now: float | None, epoch: bool) -> float | None:
    """Seconds until a stated reset: ``text`` is seconds to wait, or, when ``epoch`` (a
    ``RateLimit-Reset``, ``RateLimit`` or ``X-RateLimit-Reset``: GitHub and many others send
    a Unix time, others seconds) and it is at least 1e9 (31 years as seconds), a Unix time in
    seconds (at least 1e12: in milliseconds), or an HTTP date (as ``Retry-After``'s), counted
    from ``now``. None when ``text`` is no finite number, or the reset is at or before now (0
    seconds, or a Unix time past, as a client whose clock runs ahead sees it): no wait is
    stated, and the retry backs off as without the header (a wait of 0 spent every retry in
    a burst).

    Examples
    --------
    >>> _reset_seconds("20", now=None, epoch=True), _reset_seconds("0.5", now=None, epoch=False)
    (20.0, 0.5)
    >>> _reset_seconds("1445412470500", now=1445412470.0, epoch=True)
    0.5
    >>> _reset_seconds("1445412000", now=1445412470.0, epoch=True), _reset_seconds("0", now=None, epoch=False)
    (None, None)
    >>> _reset_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0, epoch=True)
    10.0
    """
    try:
        seconds = float(text)
    except ValueError:  # an HTTP date, as Retry-After's (a reset named as a moment)
        at = _date_seconds(text, now) if epoch else None
        return min(at, _LONGEST_DELAY) if at is not None and at > 0 else None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    if epoch and seconds >= _EPOCH_SECONDS:
        at = seconds / 1000 if seconds >= _EPOCH_MILLISECONDS else seconds
        seconds = at - (time.time() if now is None else now)
        seconds = math.ceil(seconds * 10) / 10  # waited to the tenth after the reset
    return seconds if seconds > 0 else None


#: A parameter of a ``WWW-Authenticate`` challenge: ``name="quoted text"`` or ``name=token``.
_AUTH_PARAM = re.compile(r'([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))')
#: The parameters of an RFC 6750 challenge kept on the error (never ``realm`` or ``scope``).
_CHALLENGE_SAYS = ("error", "error_description")


def _challenge(value: str | None) -> dict[str, str]:
    """The ``error`` and ``error_description`` of a ``WWW-Authenticate`` challenge (RFC
    6750's, with a Bearer token), empty when it names neither.

    Examples
    --------
    >>> _challenge('Bearer realm="api", error="invalid_token", '
    ...            'error_description="The access token expired"')
    {'error': 'invalid_token', 'error_description': 'The access token expired'}
    >>> _challenge('Bearer realm="api"'), _challenge(None)
    ({}, {})
    """
    said: dict[str, str] = {}
    for name, quoted, bare in _AUTH_PARAM.findall(value or ""):
        key = name.lower()
        if key in _CHALLENGE_SAYS and key not in said:
            text = re.sub(r"\\(.)", r"\1", quoted) if quoted else bare
            if text.strip():
                said[key] = text
    return said


def _unread(status: int, body: bytes, content_type: str | None) -> str:
    """The message of an error whose body says nothing the reader knows: the status, and a
    one-line summary of the body when there is one (what the service said is never dropped).

    Examples
    --------
    >>> print(_unread(400, b'{"requestId": "r-1"}', "application/json"))
    HTTP 400, an error body of no known shape (20 bytes of application/json, first line '{"requestId": "r-1"}')
    >>> _unread(413, b"", None)
    'HTTP 413'
    """
    if not body:
        return f"HTTP {status}"
    return f"HTTP {status}, an error body of no known shape ({summarize_body(body, content_type)})"


class AmbiguousNameError(DealframeError):
    """Names that resolved to several candidates when ``on_ambiguous="raise"`` was asked.

    A name the service said ``ambiguous`` without listing any candidate (``unlisted``) has
    none to choose from: the message says so, with the id the service served for it against
    its ``match_type`` (``ids``), if any.

    Attributes
    ----------
    names : list of str
        The ambiguous queries, in input order.
    unlisted : list of str
        Those of them served without candidates.
    ids : dict of str to str
        The id the service served with an ambiguous name, by name (the document gives such
        a name a null id).

    Examples
    --------
    >>> str(AmbiguousNameError(["Acme"]))
    "1 ambiguous name(s): 'Acme'; pass on_ambiguous='best' or inspect the candidates"
    >>> print(AmbiguousNameError(["Acme"], unlisted=["Acme"], ids={"Acme": "c0ffee"}))
    1 ambiguous name(s): 'Acme'; served without candidates, so none to choose from (on_ambiguous='best' leaves their id null): 'Acme'; ids the service served with them: 'Acme' -> 'c0ffee'
    """

    def __init__(
        self,
        names: Sequence[str],
        unlisted: Sequence[str] = (),
        ids: Mapping[str, str] | None = None,
    ) -> None:
        self.names = list(names)
        self.unlisted = list(unlisted)
        self.ids = dict(ids or {})
        said = [f"{len(self.names)} ambiguous name(s): {_listed([repr(n) for n in self.names])}"]
        if len(set(self.unlisted)) < len(set(self.names)):
            said.append("pass on_ambiguous='best' or inspect the candidates")
        if self.unlisted:
            said.append(
                "served without candidates, so none to choose from (on_ambiguous='best' "
                f"leaves their id null): {_listed([repr(n) for n in self.unlisted])}"
            )
        shown = {n: i for n, i in self.ids.items() if n in set(self.names)}
        if shown:
            pairs = [f"{n!r} -> {i!r}" for n, i in shown.items()]
            said.append(f"ids the service served with them: {_listed(pairs)}")
        super().__init__("; ".join(said))
