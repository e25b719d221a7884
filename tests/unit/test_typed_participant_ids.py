"""Participant ids of typed deal rows (the schema'd reader of ``client.private.deals()``)
found in C passes: the same verdict as the check of parsed JSON, and the same frame."""

from __future__ import annotations

import msgspec
import pytest

from dealframe.frames.deal_rows import read_deal_page
from dealframe.frames.normalize import _members_spelt
from dealframe.frames.private import list_frame, list_page_columns

UPPER = "5F38873F-6E1C-4D6F-AD87-E6977CDA30BA"
LOWER = UPPER.lower()
DOCUMENTED = dict.fromkeys(
    [
        "id",
        "deal_date",
        "deal_type",
        "deal_subtype",
        "deal_synopsis",
        "deal_valuation",
        "deal_raised",
        "deal_revenue",
        "deal_ebitda",
        "deal_multiples",
        "target",
        "buyers",
        "lead_investors",
        "created_at",
        "updated_at",
        "deleted",
    ]
)


def _rows(*participants: list[dict] | None) -> list:
    items = [{**DOCUMENTED, "id": f"d{k}", "buyers": p} for k, p in enumerate(participants)]
    page = read_deal_page(msgspec.json.encode({"data": items}))
    assert page is not None  # typed rows, not the JSON reading
    return page["data"]


@pytest.mark.parametrize(
    "lists",
    [
        [[{"id": LOWER}], None, []],
        [[{"id": UPPER}], None],
        [[{"id": "d1"}, {"id": None}], [{"id": ""}]],
        [[{"id": "{" + UPPER + "}"}]],
        [[{"id": "00000000-0000-0000-0000-000000000000"}], [{"name": "no id"}]],
        [None, None],
    ],
)
def test_typed_ids_judged_as_parsed_json(lists: list) -> None:
    rows = _rows(*lists)
    values = [row.buyers for row in rows]
    assert _members_spelt(values, typed=True) is _members_spelt(lists)


def test_typed_upper_ids_written_in_one_spelling() -> None:
    rows = _rows([{"id": UPPER, "name": "A"}], None, [])
    frame = list_frame("transactions", [list_page_columns("transactions", rows)])
    assert frame["buyers"].tolist()[0] == (
        f'[{{"country":null,"id":"{LOWER}","name":"A","short_name":null,"website":null}}]'
    )
    assert frame["buyers"].isna().tolist() == [False, True, False]
    assert frame["buyers"].tolist()[2] == "[]"
