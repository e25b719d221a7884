"""``say_participants`` (one read of every participant's ``id`` and ``country``) says what
``say_participant_countries`` and ``say_participant_ids`` say, each reading its own member,
on every kind of participant cell a deal frame may hold."""

from __future__ import annotations

import pandas as pd
import pytest

from dealframe.contract import Findings
from dealframe.frames.participants import (
    say_participant_countries,
    say_participant_ids,
    say_participants,
)

WHERE = "POST /api/private/v1/transactions"

CELLS = {
    "clean": '[{"id":"a","country":"GBR"},{"id":"b","country":"USA"}]',
    "no id": '[{"country":"GBR"},{"id":"b","country":"USA"}]',
    "null id": '[{"id":null,"country":"GBR"}]',
    "empty id": '[{"id":"","country":"DEU"}]',
    "unknown country": '[{"id":"a","country":"GER"}]',
    "null country": '[{"id":"a","country":null}]',
    "number id": '[{"id":5,"country":"GBR"}]',
    "number country": '[{"id":"a","country":7}]',
    "empty list": "[]",
}

#: The cells whose participants are said (a missing id, a country outside the codes).
SAID = {"no id", "null id", "empty id", "unknown country", "number country"}


def _said(check, deals: pd.DataFrame) -> list[tuple[str, str, str]]:
    found = Findings(WHERE)
    check(deals, found)
    return [(f.kind, f.where, f.message) for f in found]


def _deals(cells: list[str | None], *, categorical: bool = False) -> pd.DataFrame:
    deals = pd.DataFrame(
        {
            "id": [f"d{i}" for i in range(len(cells))],
            "lead_investors": pd.Series(cells, dtype="str"),
            "buyers": pd.Series(list(reversed(cells)), dtype="str"),
        }
    )
    if categorical:
        deals["lead_investors"] = deals["lead_investors"].astype("category")
    return deals


@pytest.mark.parametrize("kind", [k for k in CELLS if k != "clean"])
@pytest.mark.parametrize("categorical", [False, True])
def test_one_read_says_what_the_two_checks_say(kind: str, categorical: bool) -> None:
    cells = [CELLS["clean"], CELLS[kind], None, CELLS[kind], CELLS["empty list"]]
    deals = _deals(cells, categorical=categorical)
    both = _said(say_participant_countries, deals) + _said(say_participant_ids, deals)
    assert sorted(_said(say_participants, deals)) == sorted(both)
    if kind in SAID:
        assert both, kind  # the comparison is of something said


def test_clean_participants_say_nothing() -> None:
    deals = _deals([CELLS["clean"]] * 3 + [None])
    assert _said(say_participants, deals) == []
