"""The cohort of a report: region, vertical, deal types and start date, checked before any I/O.

Every check here runs without a service, so a typo fails in a fraction of a second with a
one-line message and a suggestion, before a sandbox starts or a request is sent. The two
checks that need the service (a vertical no listed company has, a date after the service's
today) happen in :mod:`.gather`, before the large pulls.

Examples
--------
>>> c = parse_cohort({"region": "Western Europe", "deal_type": ["Venture", "Growth"]})
>>> c.label
'Western Europe · Venture, Growth'
>>> parse_cohort({"region": "Westren Europe"})
Traceback (most recent call last):
...
dealframe.errors.EnumValueError: invalid region: expected one of Africa, ..., Western Europe (did you mean 'Western Europe'?), got 'Westren Europe'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dealframe._vocab import AGGREGATE_METRICS, DEAL_TYPES, REGIONS
from dealframe.errors import EnumValueError, ValidationError, did_you_mean
from dealframe.private.filters import to_date_string

__all__ = [
    "COHORT_KEYS",
    "DEFAULT_COHORT",
    "Cohort",
    "check_metric",
    "parse_cohort",
    "parse_date",
    "unknown_to_service",
]

#: Keys of a cohort mapping (and of a ``[[cohort]]`` table of a config file).
COHORT_KEYS: tuple[str, ...] = ("name", "region", "vertical", "deal_type", "since")
#: The cohort when none is given.
DEFAULT_COHORT: Mapping[str, Any] = {"region": "Western Europe"}


def _choice(
    value: Any, argument: str, choices: tuple[str, ...], what: str, open_list: bool = False
) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(argument, f"{what} (a non-empty string)", got=value)
    value = value.strip()
    if value in choices:
        return value
    folded = {c.lower(): c for c in choices}
    if value.lower() in folded:
        return folded[value.lower()]
    hint = did_you_mean(value, choices)
    if open_list and not hint:  # a value the service may have added since: it will check
        return value
    raise ValidationError(
        argument, f"{what}{hint or ' (one of ' + ', '.join(choices) + ')'}", got=value
    )


def _region(value: Any) -> str:
    """A region of the interface document (case aside), or an ``EnumValueError`` worded and
    typed as the clients' own region errors."""
    if isinstance(value, str):
        folded = {r.lower(): r for r in REGIONS}
        if value.strip().lower() in folded:
            return folded[value.strip().lower()]
    hint = did_you_mean(value, REGIONS) if isinstance(value, str) else ""
    raise EnumValueError("region", f"one of {', '.join(REGIONS)}{hint}", got=value)


def parse_date(value: Any, argument: str) -> str | None:
    """An ISO date ``YYYY-MM-DD`` from a string, date or Timestamp (None stays None), read
    and refused as the client's date filters are
    (:func:`~dealframe.private.filters.to_date_string`): a ValidationError naming
    ``argument`` (the command line names its option instead: ``--since``).

    Examples
    --------
    >>> import datetime as dt
    >>> parse_date(dt.date(2024, 1, 31), "since")
    '2024-01-31'
    >>> parse_date("2024-02-30", "since")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid since: expected a date YYYY-MM-DD, datetime.date or pandas.Timestamp, got '2024-02-30'
    """
    return None if value is None else to_date_string(value, argument)


def unknown_to_service(key: str, value: str, known: Sequence[str]) -> str:
    """What the cohort's ``key`` expects when the service's ``known`` values lack ``value``,
    in the words of the check that refuses it once the service answers: the report's own
    for a vertical (no listed company has it, :mod:`.gather`), the client's filter check
    for a deal type (the deal lists' ``deal_type`` values). A check made before the service
    answers (the sandbox's lists are known before it starts) says the same.

    Examples
    --------
    >>> unknown_to_service("deal_type", "Seed", ("Early", "Growth"))
    'values from Early, Growth'
    >>> unknown_to_service("vertical", "Fintec", ("Edtech", "Fintech"))
    "a vertical of the service's companies (did you mean 'Fintech'?)"
    """
    hint = did_you_mean(value, known)
    if key == "vertical":
        return f"a vertical of the service's companies{hint}"
    return f"values from {', '.join(known)}{hint}"


def not_after_latest(latest: str) -> str:
    """What ``since`` expects of a service whose latest date is ``latest``, in the words of
    the check made once the service answers and of the one made before the sandbox starts.

    Examples
    --------
    >>> not_after_latest("2026-06-30")
    "a date not after the service's latest date (2026-06-30)"
    """
    return f"a date not after the service's latest date ({latest})"


def check_metric(metric: Any) -> str:
    """The aggregate metric, checked against the interface document's list.

    Examples
    --------
    >>> check_metric("ev_ebitda")
    'ev_ebitda'
    """
    if not isinstance(metric, str) or metric not in AGGREGATE_METRICS:
        hint = did_you_mean(metric, AGGREGATE_METRICS) if isinstance(metric, str) else ""
        raise ValidationError("metric", f"one of {', '.join(AGGREGATE_METRICS)}{hint}", got=metric)
    return metric


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "cohort"


@dataclass(frozen=True)
class Cohort:
    """Who the report is about: companies of a region and/or vertical, deals of some types.

    ``region`` and ``vertical`` select the listed companies (Family A ``regions`` /
    ``industries``) and the deals' targets (``target_region`` / ``target_verticals``);
    ``deal_types`` narrows the deals; ``since`` is the first deal date.
    """

    region: str | None = None
    vertical: str | None = None
    deal_types: tuple[str, ...] = ()
    since: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        """Human label, e.g. ``"Western Europe · Fintech · Venture"``."""
        parts = [p for p in (self.region, self.vertical) if p]
        if self.deal_types:
            parts.append(", ".join(self.deal_types))
        return " · ".join(parts) if parts else "all companies"

    @property
    def companies_label(self) -> str:
        """The region and vertical only (what selects the listed companies)."""
        parts = [p for p in (self.region, self.vertical) if p]
        return " · ".join(parts) if parts else "all companies"

    @property
    def slug(self) -> str:
        """A folder name for this cohort: its ``name``, else made from its label."""
        return _slug(self.name or self.label)

    def public_filters(self) -> dict[str, Any]:
        """Family A search and group filters (``regions``, ``industries``)."""
        out: dict[str, Any] = {}
        if self.region:
            out["regions"] = [self.region]
        if self.vertical:
            out["industries"] = [self.vertical]
        return out

    def deal_filters(self) -> dict[str, list[str]]:
        """Family B deal filters (``target_region``, ``target_verticals``, ``deal_type``)."""
        out: dict[str, list[str]] = {}
        if self.region:
            out["target_region"] = [self.region]
        if self.vertical:
            out["target_verticals"] = [self.vertical]
        if self.deal_types:
            out["deal_type"] = list(self.deal_types)
        return out

    def as_dict(self) -> dict[str, Any]:
        """The cohort as it would be written in a config file."""
        out: dict[str, Any] = {
            "name": self.name,
            "region": self.region,
            "vertical": self.vertical,
            "deal_type": list(self.deal_types) or None,
            "since": self.since,
        }
        return {k: v for k, v in out.items() if v is not None}


def _deal_types(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise ValidationError("deal_type", "a deal type or a list of them", got=value)
    what = "a deal type of the interface document"
    return tuple(
        dict.fromkeys(
            _choice(part, "deal_type", DEAL_TYPES, what, open_list=True)
            for item in items
            for part in (item.split(",") if isinstance(item, str) else [item])
        )
    )


def parse_cohort(cohort: Any, *, where: str = "cohort") -> Cohort:
    """A :class:`Cohort` from a mapping (``region``, ``vertical``, ``deal_type``, ``since``,
    ``name``), checked without any request.

    Raises
    ------
    dealframe.errors.ValidationError
        Naming the key: an unknown key or region (with the closest valid one), a deal type
        close to a known one but not it, an empty vertical, a bad date, or neither region
        nor vertical.

    Examples
    --------
    >>> parse_cohort({"vertical": "Fintech", "since": "2023-01-01"}).deal_filters()
    {'target_verticals': ['Fintech']}
    """
    if isinstance(cohort, Cohort):
        return cohort
    if not isinstance(cohort, Mapping):
        raise ValidationError(where, "a mapping such as {'region': 'Western Europe'}", got=cohort)
    for key in cohort:
        if key not in COHORT_KEYS:
            raise ValidationError(
                where,
                f"keys among {', '.join(COHORT_KEYS)}{did_you_mean(str(key), COHORT_KEYS)}",
                got=key,
            )
    region = cohort.get("region")
    if region is not None:
        region = _region(region)
    vertical = cohort.get("vertical")
    if vertical is not None and (not isinstance(vertical, str) or not vertical.strip()):
        raise ValidationError(
            "vertical", "a vertical such as 'Fintech' (a non-empty string)", got=vertical
        )
    if region is None and vertical is None:
        given = ", ".join(map(str, cohort)) or "no keys"
        raise ValidationError(  # the keys given, not a Python dict
            where, f"a region or a vertical (or both), got neither ({given})"
        )
    name = cohort.get("name")
    if name is not None and (not isinstance(name, str) or not _slug(name).strip("-")):
        raise ValidationError("name", "a short name for the cohort's folder", got=name)
    return Cohort(
        region=region,
        vertical=vertical.strip() if vertical else None,
        deal_types=_deal_types(cohort.get("deal_type")),
        since=parse_date(cohort.get("since"), "since"),
        name=name,
    )
