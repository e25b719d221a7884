"""What the doctor's checks have seen, for the checks after them, and which check saw it.

A check that the service did not let run (rate limited, unavailable: ``not checked``) saw
nothing, and one that broke may have seen nothing to go on (no company listed, no SKU); a later
check that needs what it would have seen is not checked either, and says whose answer it
needed (``needs what B.paging.limit would have seen (it broke)``): a row of its own, and the
run did not check everything. Only those facts count: a fact missing for any other reason (it
is optional) is not blamed on another check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["Facts", "NotChecked"]


class NotChecked(Exception):
    """A probe needs a fact that a check not checked would have seen."""


class Facts(dict[str, Any]):
    """What the checks have seen, and which facts a check not checked, or broken, would have
    supplied.

    Reading a fact (``facts[key]``, :meth:`get`) that such a check would have supplied
    (:meth:`not_supplied`) raises :class:`NotChecked` naming that check; any other missing
    fact reads as a plain ``dict`` does. :meth:`seen` never raises (for optional facts, read
    only when there).

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
    >>> facts["company"] = None  # a check that broke saw no company
    >>> facts.not_supplied("B.paging.limit", ["company"], broke=True)
    >>> facts.get("company")
    Traceback (most recent call last):
    ...
    dealframe.doctor.facts.NotChecked: needs what B.paging.limit would have seen (it broke)
    >>> facts.seen("skus"), facts.seen("company")
    (None, None)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The facts no check has supplied because the check that would have was not checked,
        #: or broke before it saw them: fact -> what the later checks say they needed.
        self.unseen: dict[str, str] = {}

    def not_supplied(self, check: str, keys: Iterable[str], *, broke: bool = False) -> None:
        """``check`` was not checked (``broke``: it broke): the facts of ``keys`` it did not
        supply (missing, or, when it broke, empty: it saw nothing to go on) are unseen."""
        for key in keys:
            if key not in self or (broke and not super().get(key)):
                said = f"needs what {check} would have seen" + (" (it broke)" if broke else "")
                self.unseen.setdefault(key, said)

    def forget(self, check: str) -> None:
        """``check`` runs once more: the facts it did not supply are not said unseen any
        more (what it supplies now, or not, is said anew).

        Examples
        --------
        >>> facts = Facts()
        >>> facts.not_supplied("A.search", ["skus"])
        >>> facts.forget("A.search")
        >>> facts.get("skus") is None
        True
        """
        for key, said in list(self.unseen.items()):
            if said.startswith(f"needs what {check} would have seen"):
                del self.unseen[key]

    def need(self, key: str) -> None:
        """Raise :class:`NotChecked` when ``key`` is missing because the check that would
        have supplied it was not checked, or broke."""
        if key in self.unseen and not super().get(key):
            raise NotChecked(self.unseen[key])

    def __getitem__(self, key: str) -> Any:
        self.need(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.need(key)
        return super().get(key, default)

    def seen(self, key: str) -> Any:
        """The fact ``key``, None when missing (whoever would have supplied it)."""
        return super().get(key)
