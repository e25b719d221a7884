"""Warnings dealframe emits (never for errors: those are raised, see :mod:`dealframe.errors`)."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import TypeVar

__all__ = [
    "DealframeWarning",
    "MissingDataWarning",
    "MissingInvestorsWarning",
    "ServiceContractWarning",
    "data_warning",
    "findings_held",
    "held",
    "holding",
    "missing_expected",
    "missing_held",
    "missing_kept",
    "reading_answers",
    "setting",
    "user_stacklevel",
    "warn_missing",
]

#: Frames in files under this folder are dealframe's own (see :func:`user_stacklevel`).
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_T = TypeVar("_T")
_C = TypeVar("_C")


class DealframeWarning(UserWarning):
    """Base of dealframe's warnings."""


class MissingDataWarning(DealframeWarning):
    """Some requested entities were not returned by the service (see ``df.attrs``)."""


class ServiceContractWarning(MissingDataWarning):
    """The answer differs from what its request implies (``df.attrs["findings"]`` lists how).

    Counts that contradict ``meta``, pages that repeat earlier pages, repeated or missing
    identities, documented fields absent, items of the wrong shape. Raised instead as
    :class:`~dealframe.errors.ServiceContractError` (or
    :class:`~dealframe.errors.IncompleteResultError` when rows are missing) under
    ``strict=True``.
    """


class MissingInvestorsWarning(MissingDataWarning):
    """Deals without their full investor list were exploded or paired.

    Deal list rows carry lead investors and buyers only; the full ``investors`` list
    is in each single deal. ``client.private.deals(..., with_investors=True)`` reads
    them (see :func:`dealframe.explode_participants`).
    """


@contextmanager
def setting(where: ContextVar[_T], value: _T) -> Iterator[None]:
    """``value`` set in ``where`` for the current thread or task while the block runs (the
    value before it set again after, also when the block raises; blocks nest). The ``with``
    blocks of dealframe that hold a setting for their thread or task use it
    (:func:`missing_expected`, :func:`dealframe.transport.body.later` ...). Use them as
    ``with`` blocks: as a decorator, a :func:`holding` one would share its list between calls.

    Examples
    --------
    >>> where: ContextVar[int] = ContextVar("example", default=0)
    >>> with setting(where, 1):
    ...     with setting(where, 2):
    ...         where.get()
    ...     where.get()
    2
    1
    >>> where.get()
    0
    """
    token = where.set(value)
    try:
        yield
    finally:
        where.reset(token)


#: Whether the calls of this thread (or task) leave unreturned ids to their caller to report.
_MISSING_EXPECTED: ContextVar[bool] = ContextVar("dealframe_missing_expected", default=False)


def missing_expected() -> AbstractContextManager[None]:
    """Within it, calls do not warn about ids or SKUs the service did not return: the
    caller reports them (the frames still list them in ``attrs``). Other warnings pass.

    It holds for the current thread or task only; ``warnings.catch_warnings`` would change
    the warning filters of the whole process, and hide other threads' warnings meanwhile.

    Examples
    --------
    >>> with missing_expected():
    ...     warn_missing("1 of 2 SKUs were not returned")  # not shown
    """
    return setting(_MISSING_EXPECTED, True)


@contextmanager
def holding(where: ContextVar[_C | None], into: _C) -> Iterator[_C]:
    """``into``, a new list or dict, set in ``where`` as :func:`setting` does, and yielded:
    what a warning would say goes there instead, for the caller to say once
    (:func:`missing_held`, :func:`findings_held`,
    :func:`dealframe.frames.normalize.warnings_noted`).

    Examples
    --------
    >>> where: ContextVar[list[str] | None] = ContextVar("example", default=None)
    >>> with holding(where, []) as said:
    ...     where.get().append("noted")
    >>> said, where.get()
    (['noted'], None)
    """
    with setting(where, into):
        yield into


#: Where this thread's (or task's) missing-data warnings go instead (:func:`missing_held`).
_MISSING_HELD: ContextVar[list[str] | None] = ContextVar("dealframe_missing_held", default=None)


def missing_held() -> AbstractContextManager[list[str]]:
    """Within it, what :func:`warn_missing` would warn is appended to the list yielded, for
    the caller to say once: a call made of other calls (``reconcile_groups``) gathers what
    each said of missing data into one warning, not one per call. Other warnings pass, and
    what :func:`missing_expected` silences stays silent.

    It holds for the current thread or task only, as :func:`missing_expected` does.

    Examples
    --------
    >>> with missing_held() as said:
    ...     warn_missing("no value in this window")  # not shown
    >>> said
    ['no value in this window']
    """
    return holding(_MISSING_HELD, [])


#: Whether this thread (or task) is shaping answers of the service (:func:`reading_answers`).
_READING_ANSWERS: ContextVar[bool] = ContextVar("dealframe_reading_answers", default=False)


def reading_answers() -> AbstractContextManager[None]:
    """Within it, the frames built come from answers of the service, not from items the user
    built: what their values are said of is the service's (:func:`data_warning`).

    :func:`dealframe.contract.shaping` holds every frame a client call builds from its answers
    in it. It holds for the current thread or task only, as :func:`missing_expected` does.

    Examples
    --------
    >>> with reading_answers():
    ...     data_warning().__name__
    'ServiceContractWarning'
    """
    return setting(_READING_ANSWERS, True)


#: Where the findings of this thread's (or task's) calls go instead of a warning
#: (:func:`findings_held`); None: warned.
_FINDINGS_HELD: ContextVar[list[str] | None] = ContextVar("dealframe_findings_held", default=None)


def findings_held() -> AbstractContextManager[list[str]]:
    """Within it, what a call's answers contradict of the document (its findings, said by
    :meth:`~dealframe.contract.Findings.report`) is not warned: each message is appended to
    the list yielded, for the caller to say once it knows the answer is kept (a change-feed
    walk asks a page short of rows once more, and says nothing of the answer dropped).
    ``strict`` calls still raise. Other warnings pass.

    It holds for the current thread or task only, as :func:`missing_expected` does.

    Examples
    --------
    >>> with findings_held() as said:
    ...     held("meta.total is 'x', not a count: ignored")
    True
    >>> said
    ["meta.total is 'x', not a count: ignored"]
    >>> held("not held outside the block")
    False
    """
    return holding(_FINDINGS_HELD, [])


def held(message: str) -> bool:
    """Hold ``message``, a finding of a call, when within :func:`findings_held` (True);
    else False: the caller warns it."""
    said = _FINDINGS_HELD.get()
    if said is None:
        return False
    said.append(message)
    return True


def data_warning() -> type[DealframeWarning]:
    """The class of a warning about the data a frame is built from: a
    :class:`ServiceContractWarning` for answers of the service (within
    :func:`reading_answers`), else a plain :class:`DealframeWarning` (items the user built and
    handed to a frame builder: no service answered them, and no contract was broken).

    Examples
    --------
    >>> data_warning().__name__
    'DealframeWarning'
    """
    return ServiceContractWarning if _READING_ANSWERS.get() else DealframeWarning


def user_stacklevel() -> int:
    """The ``stacklevel`` for a ``warnings.warn`` in the calling function that points at the
    first frame outside dealframe: the user's line, however many of the library's own calls
    (and argument-checking wrappers) lie between. Counted, not hand-set per call site.

    Examples
    --------
    >>> user_stacklevel() >= 1
    True
    """
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn_missing(message: str) -> None:
    """A :class:`MissingDataWarning` about unreturned entities, at the user's line, unless
    the caller expects them (:func:`missing_expected`) or says them itself
    (:func:`missing_held`)."""
    if not _MISSING_EXPECTED.get() and not missing_kept(message):
        warnings.warn(message, MissingDataWarning, stacklevel=user_stacklevel())


def missing_kept(message: str) -> bool:
    """Keep ``message``, a :class:`MissingDataWarning` to say, when within
    :func:`missing_held` (True); else False: the caller warns it."""
    said = _MISSING_HELD.get()
    if said is None:
        return False
    said.append(message)
    return True
