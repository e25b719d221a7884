"""The ``fields`` allowlist of a Family B profile: checked before the request, and the names
no answer held said after it.

``GET /companies/{id}``, ``/investors/{id}`` and ``/transactions/{id}`` take
``fields``, a comma-separated allowlist of top-level response fields. The names each profile
has (interface document section 2.2) are :data:`dealframe.frames.schemas.PROFILE_FIELDS`, the
same tuples the profile frames are built from; a service may serve more (issue 14: the
``extra_field`` of an answer read without ``fields`` can be asked for by name). So:

- a name is sent as given, and the service decides (its 400 naming it is the error);
- one name is refused before any request, because it is certainly a typo: one that spells a
  field of the profile in another case or with separators (``Name``, ``shortName``,
  ``short-name`` for ``short_name``), the same rule as time-series fields
  (:func:`dealframe.contract.respelled_fields`'s spelling);
- a name the document does not give that no answer holds is a ``missing_field`` finding
  naming it with the closest name known (:func:`absent_fields`): the profile's fields and the
  names seen with a value in this client's answers (:func:`profile_fields`, kept per client),
  given only for a name that is neither; so is the note of the service's 400 whose words name
  it (:func:`dealframe.field_names.note_refused_fields`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..contract import Findings
from ..contract import _folded as folded  # one rule of "the same name in another spelling"
from ..errors import ValidationError
from ..field_names import KnownFields
from ..frames.schemas import COMPANY_PROFILE, DEAL, INVESTOR_PROFILE, PROFILE_FIELDS, Schema

__all__ = [
    "absent_fields",
    "check_fields",
    "nested_members",
    "profile_fields",
    "respelled_profile_field",
    "valued_keys",
]

_LABELS = {"companies": "company", "investors": "investor", "transactions": "deal"}


def _names(fields: Any) -> list[str]:
    """``fields`` as a list of stripped names (a string may hold several, comma-separated)."""
    if isinstance(fields, str):
        items: list[Any] = fields.split(",")
    elif isinstance(fields, (Mapping, bytes)) or not isinstance(fields, Iterable):
        raise ValidationError("fields", "a list of field names", got=fields)
    else:
        items = list(fields)
    names = [f.strip() if isinstance(f, str) else f for f in items]
    if isinstance(fields, str) and fields.strip() and "" in names:
        # "name," or "name,,founded": say where the empty name is, not that the list is empty
        blank = names.index("")
        where = (
            "before the first comma"
            if blank == 0
            else "after the last comma"
            if blank == len(names) - 1
            else f"between commas {blank} and {blank + 1}"
        )
        raise ValidationError(
            "fields",
            f"field names separated by commas, none empty (one is empty {where})",
            got=fields,
        )
    if not items or not all(isinstance(f, str) and f.strip() for f in items):
        raise ValidationError("fields", "a non-empty list of field names (strings)", got=fields)
    for f in items:
        if "," in f:  # sent comma-separated, it would be several names
            raise ValidationError(
                "fields", "field names without a comma (a list, or one string of names)", got=f
            )
    return [f.strip() for f in items]


def respelled_profile_field(entity: str, name: str) -> str | None:
    """The field of ``entity``'s profile that ``name`` spells in another case or with
    separators (``_``, ``.``, ``-``, whitespace, zero-width characters; full-width letters
    read as theirs: :func:`~dealframe.contract._folded`), or None (``name`` is that field, or
    spells none).

    Examples
    --------
    >>> respelled_profile_field("companies", "shortName"), respelled_profile_field("companies", "NAME")
    ('short_name', 'name')
    >>> respelled_profile_field("companies", "short name")
    'short_name'
    >>> respelled_profile_field("companies", "nmae"), respelled_profile_field("companies", "name")
    (None, None)
    """
    by_fold = {folded(field): field for field in PROFILE_FIELDS[entity]}
    field = by_fold.get(folded(name))
    return field if field is not None and field != name else None


def check_fields(entity: str, fields: Any) -> list[str] | None:
    """Validate a profile's ``fields`` allowlist; the names to send, each once, in order.

    Parameters
    ----------
    entity : {"companies", "investors", "transactions"}
        Whose profile.
    fields : list of str, str or None
        Top-level field names (``id`` is always returned by the service); a string
        is one name or several separated by commas. None means every field. A name the
        document does not give is sent (the service may serve it; it decides).

    Returns
    -------
    list of str or None
        The names, stripped and without repeats; None when ``fields`` is None.

    Raises
    ------
    ValidationError
        Naming ``fields``: not a list of names, empty, a name in a list that holds a comma,
        or a name that spells a field of the profile in another case or with separators
        (naming that field).

    Examples
    --------
    >>> check_fields("companies", ["name", " valuation", "name"])
    ['name', 'valuation']
    >>> check_fields("investors", "name,stats,extra_field")  # extra_field: the service decides
    ['name', 'stats', 'extra_field']
    >>> check_fields("companies", ["shortName"])
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid fields: expected a field of the company profile as the document spells it (did you mean 'short_name'?), got 'shortName'
    """
    if fields is None:
        return None
    names = list(dict.fromkeys(_names(fields)))
    for name in names:
        if (field := respelled_profile_field(entity, name)) is not None:
            raise ValidationError(
                "fields",
                f"a field of the {_LABELS[entity]} profile as the document spells it "
                f"(did you mean {field!r}?)",
                got=name,
            )
    return names


_SCHEMAS: dict[str, Schema] = {
    "companies": COMPANY_PROFILE,
    "investors": INVESTOR_PROFILE,
    "transactions": DEAL,
}


def nested_members(entity: str) -> dict[str, str]:
    """The names of ``entity``'s profile that belong to a nested field and are no field of
    their own, each with that field: the frame's columns flattened from it
    (``valuation_market_cap``, a deal's ``ev_revenue``) and its members (``market_cap``); a
    member of two nested fields is left out.

    Examples
    --------
    >>> members = nested_members("transactions")
    >>> members["ev_revenue"], members["target_name"]
    ('deal_multiples', 'target')
    >>> members = nested_members("companies")
    >>> members["market_cap"], members["fundamentals_ev_revenue_ntm"], "name" in members
    ('valuation', 'fundamentals', False)
    """
    top = set(PROFILE_FIELDS[entity])
    columns: dict[str, str] = {}
    members: dict[str, set[str]] = {}
    for column in _SCHEMAS[entity]:
        if len(column.path) > 1:
            columns[column.name] = column.path[0]
            members.setdefault(column.path[1], set()).add(column.path[0])
    out = {name: parents.pop() for name, parents in members.items() if len(parents) == 1}
    out.update(columns)
    return {name: field for name, field in out.items() if name not in top}


def profile_fields(entity: str) -> KnownFields:
    """The field names known for ``entity``'s profile: the document's, and (added by the
    caller) those seen with a value in a client's answers; one per client and entity. A
    column or member of a nested field (:func:`nested_members`) is told that field."""
    return KnownFields(PROFILE_FIELDS[entity], nested_members(entity))


def valued_keys(datas: Iterable[Mapping[str, Any]]) -> set[str]:
    """The members of ``datas`` that hold a value (not null) in at least one of them: the
    names a service is seen to serve (one that echoes an unknown name as null serves none).

    Examples
    --------
    >>> sorted(valued_keys([{"id": "x", "nmae": None}, {"id": "y", "extra_field": 1}]))
    ['extra_field', 'id']
    """
    return {
        key
        for data in datas
        for key, value in data.items()
        if isinstance(key, str) and value is not None
    }


def absent_fields(
    entity: str,
    names: list[str] | None,
    datas: list[Mapping[str, Any]],
    found: Findings,
    known: KnownFields | None = None,
) -> None:
    """A ``missing_field`` finding naming each of ``names`` that the document does not give
    for ``entity``'s profile and no answer's ``data`` (of ``datas``) holds, with the closest
    name known (the profile's fields, those ``known`` was seen to serve before and the
    answers' members) for a name that is none of the document's nor seen before. The
    document's own fields are said per answer (:func:`dealframe.contract.missing_fields`).

    Examples
    --------
    >>> found = Findings("GET /companies/{id}")
    >>> absent_fields("companies", ["name", "extra_fild"], [{"id": "x", "extra_field": 1}], found)
    >>> found.items[0].message
    "field(s) asked for with fields= absent from all 1 answers: extra_fild (did you mean 'extra_field'?) (the service may not serve them: no column for them)"
    """
    if not names or not datas:
        return
    known = known or profile_fields(entity)
    held = {key for data in datas for key in data if isinstance(key, str)}
    absent = [n for n in names if n not in known.documented and n not in held]
    if absent:
        said = ", ".join(name + known.hint(name, held, absent) for name in absent)
        found.add(
            "missing_field",
            f"field(s) asked for with fields= absent from all {len(datas)} answers: {said} "
            "(the service may not serve them: no column for them)",
        )
