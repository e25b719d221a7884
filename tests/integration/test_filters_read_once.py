"""Filter values the client used to spoil or refuse, over HTTP through the drift proxy.

- A filter given as a generator (``deals(id=(x for x in [...]))``, ``{"id": {"in": gen}}``,
  ``aggregate(..., id=gen)``, ``page(..., {"id": gen})``) was emptied by the first of the
  checks that read it (the interface document's types, then the service's discovery
  document, then that document again after an enum value outside its lists) and refused as
  ``got []``. It is now read once into a list, and sent.
- ``valuation_min=Decimal("100.5")`` was refused as no finite number (``Fraction`` was
  taken): a finite ``Decimal`` is now sent as a JSON number.
- Wording: "a investors filter"; several sort keys read as a bad direction; ``fields="name,"``
  said to be an empty list.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    direct,
    fresh,
    fresh_rules,
    proxy,
)

from dealframe.errors import EnumValueError, ValidationError

P = "/api/private/v1"
#: What would ask for data (discovery reads, GET /lookup/..., are no such request).
DATA = rf"^{P}/(companies|investors|transactions)(/aggregate)?$"


@pytest.fixture(scope="module")
def deal(direct: Any) -> dict[str, Any]:
    """One deal as the sandbox lists it (its id, target and type)."""
    row = direct.private.deals(deal_type=["M&A"], limit=1).iloc[0]
    return {"id": row["id"], "target_id": row["target_id"], "deal_type": row["deal_type"]}


def bodies(proxy: Any) -> list[Any]:
    """The JSON bodies of the POSTs through ``proxy`` from now on, in arrival order."""
    seen: list[Any] = []

    def keep(ex: Exchange) -> None:
        seen.append(ex.body)

    proxy.add(rf"^{P}/", Action("keep", on_request=keep), method="POST")
    return seen


def once(*values: str) -> Iterator[str]:
    return (v for v in values)


GENERATORS: list[tuple[str, Callable[[Any, dict[str, Any]], Any], str]] = [
    ("deals id", lambda c, d: c.private.deals(id=once(d["id"])), "id"),
    ("deals target_id", lambda c, d: c.private.deals(target_id=once(d["target_id"])), "target_id"),
    ("deals deal_type", lambda c, d: c.private.deals(deal_type=once("M&A"), limit=5), "deal_type"),
    ("filters in", lambda c, d: c.private.deals(filters={"id": {"in": once(d["id"])}}), "id"),
    ("filters map", lambda c, d: c.private.deals(filters={"id": map(str, [d["id"]])}), "id"),
    ("page", lambda c, d: c.private.page("transactions", {"id": once(d["id"])}), "id"),
    (
        "aggregate",
        lambda c, d: c.private.aggregate("valuation", "year", id=once(d["id"])),
        "id",
    ),
    (
        "refresh",
        lambda c, d: c.private.deals(id=iter([d["id"]]), refresh=True),
        "id",
    ),
]


@pytest.mark.parametrize(("case", "call", "name"), GENERATORS, ids=[g[0] for g in GENERATORS])
def test_a_filter_given_as_an_iterator_is_sent_whole(
    fresh: Any,
    proxy: Any,
    deal: dict[str, Any],
    case: str,
    call: Callable[[Any, dict[str, Any]], Any],
    name: str,
) -> None:
    if case == "refresh":
        fresh.private.lookup("transactions")  # holds the document: refresh reads it again
    sent = bodies(proxy)
    frame = call(fresh, deal)
    wanted = "M&A" if name == "deal_type" else deal[name]
    body = next(b for b in sent if isinstance(b, dict) and "filters" in b)
    assert body["filters"][name] == [wanted], body  # not refused as "got []"
    if case != "aggregate":
        assert len(frame) and set(frame[name]) == {wanted}


def test_an_enum_value_outside_the_list_is_named_from_an_iterator(fresh: Any, proxy: Any) -> None:
    with pytest.raises(EnumValueError) as caught:
        fresh.private.deals(deal_type=once("M&A", "Merger"))
    assert caught.value.argument == "deal_type"
    assert caught.value.got == "Merger", str(caught.value)  # not "got []"
    assert proxy.count(DATA) == 0


def test_a_decimal_bound_is_sent_as_a_json_number(fresh: Any, proxy: Any) -> None:
    sent = bodies(proxy)
    frame = fresh.private.deals(valuation_min=Decimal("100.5"), limit=20)
    assert frame.attrs["filters"]["valuation_min"] == 100.5
    assert sent[0]["filters"]["valuation_min"] == 100.5  # a JSON number, not text
    assert len(frame) and (frame["deal_valuation"] >= 100.5).all()
    whole = fresh.private.deals(valuation_max=Decimal("2E+3"), limit=1)
    assert whole.attrs["filters"]["valuation_max"] == 2000


@pytest.mark.parametrize("bad", [Decimal("NaN"), Decimal("Infinity"), Decimal("sNaN")])
def test_a_decimal_that_is_no_finite_number_is_refused(fresh: Any, proxy: Any, bad: Any) -> None:
    with pytest.raises(ValidationError, match="expected a finite number") as caught:
        fresh.private.deals(valuation_min=bad)
    assert caught.value.argument == "valuation_min"
    assert proxy.count(DATA) == 0


def test_an_unknown_investors_filter_takes_an(fresh: Any, proxy: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        fresh.private.investors(filters={"nmae": "x"})
    assert "expected an investors filter (did you mean 'name'?)" in str(caught.value)
    with pytest.raises(ValidationError, match="expected a companies filter"):
        fresh.private.companies(filters={"nmae": "x"})
    assert proxy.count(DATA) == 0


def test_several_sort_keys_are_said_to_be_one_too_many(fresh: Any, proxy: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        fresh.private.deals(sort="deal_date:asc,deal_valuation:desc", limit=2)
    assert caught.value.argument == "sort"
    assert "one sort key" in str(caught.value) and "direction" not in str(caught.value)
    assert proxy.count(DATA) == 0


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ("name,", "after the last comma"),
        (",name", "before the first comma"),
        ("name,,deal_date", "between commas 1 and 2"),
    ],
)
def test_an_empty_field_name_is_said_where_it_is(
    fresh: Any, proxy: Any, deal: dict[str, Any], fields: str, where: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        fresh.private.deal(deal["id"], fields=fields)
    assert caught.value.argument == "fields"
    assert f"(one is empty {where})" in str(caught.value)
    assert "non-empty list" not in str(caught.value)
    assert proxy.count(rf"^{P}/transactions/") == 0
