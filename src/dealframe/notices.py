"""Warnings dealframe emits (never for errors: those are raised, see :mod:`dealframe.errors`)."""

from __future__ import annotations

__all__ = [
    "DealframeWarning",
    "MissingDataWarning",
    "MissingInvestorsWarning",
    "ServiceContractWarning",
]


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
