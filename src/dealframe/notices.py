"""Warnings dealframe emits (never for errors: those are raised, see :mod:`dealframe.errors`)."""

from __future__ import annotations

__all__ = ["DealframeWarning", "MissingDataWarning", "ServiceContractWarning"]


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
