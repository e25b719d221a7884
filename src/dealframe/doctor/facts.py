"""What the doctor's checks have seen, for the checks after them, and which check saw it.

A check that the service did not let run (rate limited, unavailable: ``not checked``) saw
nothing; a later check that needs what it would have seen is not checked either, and says
whose answer it needed. Only those facts count: a fact missing for any other reason (the check
that supplies it broke, or it is optional) is not blamed on a check that was not checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["Facts", "NotChecked"]


class NotChecked(Exception):
    """A probe needs a fact that a check not checked would have seen."""


class Facts(dict[str, Any]):
    """What the checks have seen, and which facts a check not checked would have supplied.

    Reading a fact (``facts[key]``, :meth:`get`) that a check not checked would have
    supplied (:meth:`not_supplied`) raises :class:`NotChecked` naming that check; any other
    missing fact reads as a plain ``dict`` does. :meth:`seen` never raises (for optional
    facts, read only when there).

    Examples
    --------
    >>> facts = Facts(region="Europe")
    >>> facts.not_supplied("A.search", ["skus", "region"])
    >>> facts["region"], facts.get("list_said", [])  # seen, and not the search's to supply
    ('Europe', [])
    >>> facts["skus"]
    Traceback (most recent call last):
    ...
    dealframe.doctor.facts.NotChecked: needs what A.search would have seen
    >>> facts.seen("skus"), facts.lost("skus"), facts.lost("company")
    (None, False, True)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The facts no check has supplied because the check that would have was not checked:
        #: fact -> that check.
        self.unseen: dict[str, str] = {}

    def not_supplied(self, check: str, keys: Iterable[str]) -> None:
        """``check`` was not checked: the facts of ``keys`` it did not supply are unseen."""
        for key in keys:
            if key not in self:
                self.unseen.setdefault(key, check)

    def need(self, key: str) -> None:
        """Raise :class:`NotChecked` when ``key`` is missing because the check that would
        have supplied it was not checked."""
        if key not in self and key in self.unseen:
            raise NotChecked(f"needs what {self.unseen[key]} would have seen")

    def __getitem__(self, key: str) -> Any:
        self.need(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.need(key)
        return super().get(key, default)

    def seen(self, key: str) -> Any:
        """The fact ``key``, None when missing (whoever would have supplied it)."""
        return super().get(key)

    def lost(self, key: str) -> bool:
        """Whether ``key`` is missing (or empty) though its check ran: it saw nothing to
        supply (it broke), so the checks that need it have nothing to check."""
        return not super().get(key) and key not in self.unseen
