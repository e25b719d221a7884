"""explode_participants and co_investment_edges on hand-written deals."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from dealframe.errors import ValidationError
from dealframe.frames import co_investment_edges, deals_frame, explode_participants

PAYLOADS = Path(__file__).parent / "payloads"
ACME = "0b6c2f0e-3c1d-4f4a-9a51-7d2e8f1c0a11"
HARBOUR = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
NORTHWIND = "9f1e2d3c-4b5a-4697-8877-665544332211"
BAYSIDE = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"


def load(name: str):
    return json.loads((PAYLOADS / name).read_text())


@pytest.fixture()
def deals() -> pd.DataFrame:
    return deals_frame(load("deals_page.json"))


def test_explode_rows_and_order(deals):
    ex = explode_participants(deals)
    assert list(ex.columns) == [
        "deal_id", "role", "participant_id", "participant_name", "participant_short_name",
        "participant_country", "participant_website", "deal_date", "deal_type", "deal_subtype",
        "target_id"]
    # deal 1: two buyers; deal 2: three leads; deal 3: none; deal 4: one lead
    assert [d[-1] for d in ex["deal_id"]] == ["1", "1", "2", "2", "2", "4"]
    assert ex["role"].tolist() == ["buyers"] * 2 + ["lead_investors"] * 4
    assert ex["participant_id"].tolist() == [ACME, HARBOUR, NORTHWIND, HARBOUR, ACME, NORTHWIND]
    assert list(ex["role"].cat.categories) == ["buyers", "lead_investors", "investors"]


def test_explode_null_country_and_carried_columns(deals):
    ex = explode_participants(deals)
    harbour = ex[ex["participant_id"] == HARBOUR]
    assert harbour["participant_country"].isna().all()
    assert harbour["participant_website"].isna().all()
    assert harbour["participant_short_name"].tolist() == ["Harbour", "Harbour"]
    first = ex.iloc[0]
    assert first["deal_date"] == pd.Timestamp("2025-03-14")
    assert first["deal_type"] == "M&A" and first["deal_subtype"] == "Strategic M&A"
    assert first["target_id"] == "5e9d7a21-8b44-4c0e-b1f2-63a0c9d4e702"
    assert ex["deal_type"].dtype == deals["deal_type"].dtype
    assert ex["deal_date"].dtype == deals["deal_date"].dtype


def test_explode_roles_argument_and_missing_roles(deals):
    only_leads = explode_participants(deals, roles=("lead_investors",))
    assert only_leads["role"].tolist() == ["lead_investors"] * 4
    assert list(only_leads["role"].cat.categories) == ["lead_investors"]
    # list rows have no investors: skipped, not an error
    assert explode_participants(deals, roles=("investors",)).empty
    profile = deals_frame(load("deal_profile.json"))
    ex = explode_participants(profile)
    assert ex["role"].tolist() == ["lead_investors", "investors", "investors"]
    assert ex["participant_id"].tolist() == [NORTHWIND, NORTHWIND, BAYSIDE]


def test_explode_null_lists_and_empty():
    deals = deals_frame([{"id": "a", "buyers": None, "lead_investors": None},
                         {"id": "b", "buyers": [{"id": "x"}], "lead_investors": None}])
    ex = explode_participants(deals)
    assert ex["deal_id"].tolist() == ["b"] and ex["participant_id"].tolist() == ["x"]
    assert pd.isna(ex.loc[0, "participant_name"])
    empty = explode_participants(deals_frame([]))
    assert len(empty) == 0 and list(empty.dtypes) == list(ex.dtypes)
    from_items = explode_participants(load("deals_page.json")["data"])  # items accepted too
    assert len(from_items) == 6


def test_explode_odd_values():
    deals = deals_frame([{"id": "a", "buyers": [{"id": 7, "name": "Seven", "extra": 1}]}])
    assert deals.loc[0, "buyers"] == [{"id": "7", "name": "Seven", "short_name": None,
                                       "country": None, "website": None}]  # extra key not kept
    ex = explode_participants(deals)
    assert ex["participant_id"].tolist() == ["7"] and ex["participant_name"].tolist() == ["Seven"]
    # a participant that is not an object is refused when the deals are shaped
    with pytest.raises(ValidationError, match=r"buyers\[1\]\[0\]"):
        deals_frame([{"id": "a", "buyers": []}, {"id": "b", "buyers": ["not a participant"]}])
    with pytest.raises(ValidationError):
        deals_frame([{"id": "a", "lead_investors": {"id": "x"}}])  # an object, not a list
    with pytest.raises(ValidationError):
        explode_participants(deals, roles="buyers")


def test_explode_is_pure_arrow_on_arrow_columns(deals, monkeypatch):
    import dealframe.frames.participants as participants_mod

    want = explode_participants(deals)

    def no_python(*args, **kwargs):
        raise AssertionError("participants went through Python objects")

    monkeypatch.setattr(participants_mod, "struct_lists", no_python)
    pd.testing.assert_frame_equal(explode_participants(deals), want)


def test_explode_accepts_object_list_columns_and_parquet_round_trips(deals, tmp_path):
    want = explode_participants(deals)
    roles = ["buyers", "lead_investors", "investors"]
    as_objects = deals.assign(**{r: pd.Series(deals[r].tolist(), dtype=object) for r in roles})
    assert as_objects["buyers"].dtype == object
    pd.testing.assert_frame_equal(explode_participants(as_objects), want)
    deals.to_parquet(tmp_path / "d.parquet")
    back = pd.read_parquet(tmp_path / "d.parquet", dtype_backend="pyarrow")
    got = explode_participants(back)
    for col in ("deal_id", "role", "participant_id", "participant_name", "participant_country"):
        assert got[col].tolist() == want[col].tolist() or col == "participant_country"
    assert got["participant_country"].isna().tolist() == want["participant_country"].isna().tolist()
    with pytest.raises(ValidationError):
        explode_participants(pd.DataFrame({"id": ["a"], "buyers": pd.Series([["x"]], dtype=object)}))


def test_explode_on_a_filtered_frame(deals):
    sub = deals[deals["deal_type"] != "M&A"]  # non-default index
    ex = explode_participants(sub)
    assert ex["participant_id"].tolist() == [NORTHWIND, HARBOUR, ACME, NORTHWIND]


def test_co_investment_edges(deals):
    edges = co_investment_edges(explode_participants(deals))
    assert list(edges.columns) == ["investor_a", "investor_b", "name_a", "name_b", "shared_deals",
                                   "first_date", "last_date"]
    assert (edges["investor_a"] < edges["investor_b"]).all()
    top = edges.iloc[0]
    assert {top["investor_a"], top["investor_b"]} == {ACME, HARBOUR}
    assert top["shared_deals"] == 2
    assert top["first_date"] == pd.Timestamp("2024-11-05")
    assert top["last_date"] == pd.Timestamp("2025-03-14")
    assert top["name_a"] == "Acme Robotics Inc" and top["name_b"] == "Harbour Capital"
    assert edges["shared_deals"].tolist() == [2, 1, 1]
    pairs = {frozenset((a, b)) for a, b in zip(edges["investor_a"], edges["investor_b"])}
    assert pairs == {frozenset((ACME, HARBOUR)), frozenset((NORTHWIND, HARBOUR)),
                     frozenset((NORTHWIND, ACME))}


def test_co_investment_edges_roles_and_empty(deals):
    ex = explode_participants(deals)
    only_buyers = co_investment_edges(ex, roles=["buyers"])
    assert len(only_buyers) == 1 and only_buyers.loc[0, "shared_deals"] == 1
    none = co_investment_edges(ex, roles=["investors"])
    assert len(none) == 0 and list(none.dtypes) == list(only_buyers.dtypes)
    with pytest.raises(ValidationError):
        co_investment_edges(pd.DataFrame({"x": [1]}))


def test_documented_parquet_round_trips(tmp_path):
    # docs/frames.md: participant columns read back with dtype_backend="pyarrow",
    # and exploded participants round trip with plain read_parquet.
    import pandas as pd

    from dealframe import explode_participants
    from dealframe.frames.private import deals_frame

    deals = deals_frame([{"id": "d1", "deal_date": "2024-01-01",
                          "buyers": [{"id": "b1", "name": "B", "country": None}],
                          "lead_investors": []}])
    deals.to_parquet(tmp_path / "deals.parquet")
    back = pd.read_parquet(tmp_path / "deals.parquet", dtype_backend="pyarrow")
    assert back.loc[0, "buyers"][0]["id"] == "b1"
    flat = explode_participants(deals)
    flat.to_parquet(tmp_path / "people.parquet")
    again = pd.read_parquet(tmp_path / "people.parquet")
    assert again["participant_id"].tolist() == ["b1"]
