"""explode_participants and co_investment_edges on hand-written deals."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import dealframe.frames.nested as nested
from dealframe import MissingDataWarning, MissingInvestorsWarning
from dealframe.errors import ValidationError
from dealframe.frames import co_investment_edges, deals_frame, explode_participants
from dealframe.frames.participants import role_names

PAYLOADS = Path(__file__).parent / "payloads"
ACME = "0b6c2f0e-3c1d-4f4a-9a51-7d2e8f1c0a11"
HARBOUR = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
NORTHWIND = "9f1e2d3c-4b5a-4697-8877-665544332211"
BAYSIDE = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
LEADS_AND_BUYERS = ("lead_investor", "buyer")


def load(name: str):
    return json.loads((PAYLOADS / name).read_text())


@pytest.fixture()
def deals() -> pd.DataFrame:
    """List rows: lead investors and buyers, no full investor lists."""
    return deals_frame(load("deals_page.json"))


@pytest.fixture()
def complete() -> pd.DataFrame:
    """The list rows with full investor lists (leads included), as single deals have them."""
    items = load("deals_page.json")["data"]
    return deals_frame([{**d, "investors": d["lead_investors"] + d["buyers"]} for d in items])


def test_explode_rows_and_order(deals):
    ex = explode_participants(deals, roles=LEADS_AND_BUYERS)
    assert list(ex.columns) == [
        "deal_id",
        "role",
        "participant_id",
        "participant_name",
        "participant_short_name",
        "participant_country",
        "participant_website",
        "deal_date",
        "deal_type",
        "deal_subtype",
        "target_id",
        "deleted",
        "investors_missing",
    ]
    # deal 1: two buyers; deal 2: three leads; deal 3: none; deal 4: one lead
    assert [d[-1] for d in ex["deal_id"]] == ["1", "1", "2", "2", "2", "4"]
    assert ex["role"].tolist() == ["buyer"] * 2 + ["lead_investor"] * 4
    assert ex["participant_id"].tolist() == [ACME, HARBOUR, NORTHWIND, HARBOUR, ACME, NORTHWIND]
    # one vocabulary: the role of investments / buyside rows
    assert list(ex["role"].cat.categories) == ["lead_investor", "buyer", "investor"]
    investments = deals_frame(load("investments.json"))
    assert ex["role"].dtype == investments["role"].dtype
    assert len(pd.concat([ex["role"], investments["role"]])) == 8  # stays categorical


def test_explode_null_country_and_carried_columns(deals):
    ex = explode_participants(deals, roles=LEADS_AND_BUYERS)
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


def test_missing_investor_lists_warn(deals, complete):
    with pytest.warns(MissingInvestorsWarning, match="4 of 4 deals have no full investor"):
        ex = explode_participants(deals)
    assert issubclass(MissingInvestorsWarning, MissingDataWarning)
    assert ex.attrs["deals_without_investors"] == 4
    with pytest.warns(MissingInvestorsWarning, match="^2 deals lack their full investor"):
        co_investment_edges(ex)  # deal 4 is deleted, deal 3 has no participant row
    with pytest.warns(MissingInvestorsWarning, match="^2 deals lack their full investor"):
        co_investment_edges(ex, roles=["investor"])  # no investor row: the other roles say it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = explode_participants(deals, roles=LEADS_AND_BUYERS)
        assert quiet.attrs["deals_without_investors"] == 0
        co_investment_edges(quiet)
        co_investment_edges(ex, roles=LEADS_AND_BUYERS)  # leads and buyers only: complete
        full = explode_participants(complete)
        co_investment_edges(full)
    partly = complete.copy()
    partly.loc[1, "investors"] = None  # a profile that could not be read
    with pytest.warns(MissingInvestorsWarning, match="1 of 4 deals"):
        explode_participants(partly)


def test_co_investment_edges_warn_on_frames_without_attrs(deals):
    with pytest.warns(MissingInvestorsWarning):
        ex = explode_participants(deals)
    ex.attrs.clear()  # reloaded: the rows still say which deals lack their list
    with pytest.warns(MissingInvestorsWarning, match="^2 deals"):  # deal 4 is deleted
        co_investment_edges(ex)
    with pytest.warns(MissingInvestorsWarning, match="^3 deals"):
        co_investment_edges(ex, include_deleted=True)
    # built by hand (no investors_missing column): leads without an investor row are seen;
    # deal 1 has buyers only, which says nothing (a service may send "investors": [] there)
    by_hand = explode_participants(deals, roles=LEADS_AND_BUYERS).drop(columns="investors_missing")
    by_hand.attrs.clear()
    with pytest.warns(MissingInvestorsWarning, match="^2 deals"):
        co_investment_edges(by_hand, include_deleted=True)
    with pytest.warns(MissingInvestorsWarning, match="^2 deals"):  # the lead rows say it
        co_investment_edges(by_hand, roles=("investor",), include_deleted=True)


@pytest.mark.parametrize("odd", ["yes", "0", "1", 2], ids=repr)
def test_a_deleted_value_that_is_no_boolean_is_refused(deals, odd):
    """``deleted`` is read as co_investment_edges and bucket_medians read it: an odd value is a
    ValidationError naming the column, never a deal taken as live."""
    bad = deals.astype({"deleted": object})
    bad.loc[1, "deleted"] = odd
    with pytest.raises(ValidationError, match=f"invalid deleted: .*got {odd!r}"):
        explode_participants(bad, roles=LEADS_AND_BUYERS)
    ex = explode_participants(deals, roles=LEADS_AND_BUYERS).astype({"deleted": object})
    ex.loc[0, "deleted"] = odd
    with pytest.raises(ValidationError, match="invalid deleted"):
        co_investment_edges(ex)
    co_investment_edges(ex, include_deleted=True)  # not read then
    read = deals.astype({"deleted": object})
    read["deleted"] = ["TRUE", "false", 0, None]  # what is read: booleans, 0/1, true/false
    assert explode_participants(read, roles=LEADS_AND_BUYERS)["deleted"].tolist() == [
        True,
        True,
        False,
        False,
        False,
        pd.NA,
    ]


def test_explode_roles_argument(deals, complete):
    only_leads = explode_participants(deals, roles=("lead_investor",))
    assert only_leads["role"].tolist() == ["lead_investor"] * 4
    # the deal column names are taken too
    same = explode_participants(deals, roles=["lead_investors"])
    pd.testing.assert_frame_equal(same, only_leads)
    profile = deals_frame(load("deal_profile.json"))
    ex = explode_participants(profile)
    assert ex["role"].tolist() == ["lead_investor", "investor", "investor"]
    assert ex["participant_id"].tolist() == [NORTHWIND, NORTHWIND, BAYSIDE]
    ordered = explode_participants(complete, roles=("investor", "buyer"))
    assert ordered["role"].tolist()[:4] == ["investor", "investor", "buyer", "buyer"]
    assert role_names("buyers") == ("buyer",)
    with pytest.raises(ValidationError, match="did you mean 'lead_investor'"):
        explode_participants(deals, roles=["lead_investr"])
    with pytest.raises(ValidationError):
        explode_participants(deals, roles=[])
    with pytest.raises(ValidationError):
        co_investment_edges(explode_participants(deals, roles=LEADS_AND_BUYERS), roles=["x"])


def test_explode_null_lists_and_empty():
    deals = deals_frame(
        [
            {"id": "a", "buyers": None, "lead_investors": None},
            {"id": "b", "buyers": [{"id": "x"}], "lead_investors": None},
        ]
    )
    assert pd.isna(deals.loc[0, "buyers"])
    ex = explode_participants(deals, roles=LEADS_AND_BUYERS)
    assert ex["deal_id"].tolist() == ["b"] and ex["participant_id"].tolist() == ["x"]
    assert pd.isna(ex.loc[0, "participant_name"])
    empty = explode_participants(deals_frame([]), roles=LEADS_AND_BUYERS)
    assert len(empty) == 0 and list(empty.dtypes) == list(ex.dtypes)
    with pytest.warns(MissingInvestorsWarning):
        from_items = explode_participants(load("deals_page.json")["data"])  # items too
    assert len(from_items) == 6


def test_explode_refuses_a_frame_without_participant_columns():
    companies = pd.DataFrame({"id": ["c1"], "name": ["Acme"], "region": ["Oceania"]})
    with pytest.raises(ValidationError, match="participant columns") as info:
        explode_participants(companies)
    assert info.value.argument == "deals"


def test_explode_odd_values():
    deals = deals_frame(
        [{"id": "a", "investors": [], "buyers": [{"id": 7, "name": "Seven", "extra": 1}]}]
    )
    assert deals.loc[0, "buyers"] == (
        '[{"country":null,"extra":1,"id":"7","name":"Seven","short_name":null,"website":null}]'
    )  # nothing cut
    ex = explode_participants(deals)
    assert ex["participant_id"].tolist() == ["7"] and ex["participant_name"].tolist() == ["Seven"]
    # a participant that is not an object is refused when the deals are shaped
    with pytest.raises(ValidationError, match=r"buyers\[1\]\[0\]"):
        deals_frame([{"id": "a", "buyers": []}, {"id": "b", "buyers": ["not a participant"]}])
    with pytest.raises(ValidationError):
        deals_frame([{"id": "a", "lead_investors": {"id": "x"}}])  # an object, not a list
    with pytest.raises(ValidationError, match="buyers"):
        explode_participants(pd.DataFrame({"id": ["a"], "buyers": ['["x"]']}), roles=["buyer"])
    with pytest.raises(ValidationError, match="JSON"):
        explode_participants(pd.DataFrame({"id": ["a"], "buyers": ["[{"]}), roles=["buyer"])


@pytest.mark.parametrize("spelling", ["spaces", "escapes", "python objects"])
def test_explode_reads_any_spelling_the_same(complete, spelling):
    want = explode_participants(complete)
    roles = ["buyers", "lead_investors", "investors"]
    lists = {r: nested.to_lists(complete[r]) for r in roles}
    if spelling == "spaces":  # json.dumps: spaces, ASCII escapes, another key order
        other = {r: pd.Series([json.dumps(v)[::1] for v in lists[r]], dtype="str") for r in roles}
    elif spelling == "escapes":
        other = {
            r: pd.Series([json.dumps(v, ensure_ascii=True) for v in lists[r]], dtype="str")
            for r in roles
        }
    else:  # Python lists of dicts in an object column (a frame built by hand)
        other = {r: pd.Series(list(lists[r]), dtype=object) for r in roles}
    got = explode_participants(complete.assign(**other))
    pd.testing.assert_frame_equal(got, want)


def test_explode_names_with_quotes_backslashes_and_unicode():
    odd = ['Quote "Q" Capital', "Back\\slash Ventures", "Café 日本 Partners", '{"id":"x"}', ""]
    deals = deals_frame(
        [
            {
                "id": str(i),
                "investors": [],
                "lead_investors": [{"id": f"p{i}", "name": name, "country": None}],
            }
            for i, name in enumerate(odd)
        ]
    )
    ex = explode_participants(deals)
    assert ex["participant_name"].tolist() == odd
    assert ex["participant_id"].tolist() == [f"p{i}" for i in range(len(odd))]


def test_explode_on_a_filtered_frame(deals):
    sub = deals[deals["deal_type"] != "M&A"]  # non-default index
    ex = explode_participants(sub, roles=LEADS_AND_BUYERS)
    assert ex["participant_id"].tolist() == [NORTHWIND, HARBOUR, ACME, NORTHWIND]


def test_explode_after_parquet_with_default_arguments(complete, tmp_path):
    complete.to_parquet(tmp_path / "d.parquet")
    back = pd.read_parquet(tmp_path / "d.parquet")
    pd.testing.assert_frame_equal(back, complete)
    pd.testing.assert_frame_equal(explode_participants(back), explode_participants(complete))


def test_co_investment_edges(deals):
    edges = co_investment_edges(explode_participants(deals, roles=LEADS_AND_BUYERS))
    assert list(edges.columns) == [
        "investor_a",
        "investor_b",
        "name_a",
        "name_b",
        "shared_deals",
        "first_date",
        "last_date",
    ]
    assert (edges["investor_a"] < edges["investor_b"]).all()
    top = edges.iloc[0]
    assert {top["investor_a"], top["investor_b"]} == {ACME, HARBOUR}
    assert top["shared_deals"] == 2
    assert top["first_date"] == pd.Timestamp("2024-11-05")
    assert top["last_date"] == pd.Timestamp("2025-03-14")
    assert top["name_a"] == "Acme Robotics Inc" and top["name_b"] == "Harbour Capital"
    assert edges["shared_deals"].tolist() == [2, 1, 1]
    pairs = {frozenset((a, b)) for a, b in zip(edges["investor_a"], edges["investor_b"])}
    assert pairs == {
        frozenset((ACME, HARBOUR)),
        frozenset((NORTHWIND, HARBOUR)),
        frozenset((NORTHWIND, ACME)),
    }


def test_co_investment_edges_count_a_participant_once_per_deal(complete):
    # leads are in the investor lists too: every role at once counts each deal once
    edges = co_investment_edges(explode_participants(complete))
    assert edges["shared_deals"].tolist() == [2, 1, 1]


def test_co_investment_edges_roles_and_empty(deals):
    ex = explode_participants(deals, roles=LEADS_AND_BUYERS)
    only_buyers = co_investment_edges(ex, roles=["buyer"])
    assert len(only_buyers) == 1 and only_buyers.loc[0, "shared_deals"] == 1
    assert co_investment_edges(ex, roles=["buyers"]).equals(only_buyers)
    with pytest.warns(MissingInvestorsWarning, match="role 'investor'"):  # never exploded
        none = co_investment_edges(ex, roles=["investor"])
    assert len(none) == 0 and list(none.dtypes) == list(only_buyers.dtypes)
    with pytest.raises(ValidationError):
        co_investment_edges(pd.DataFrame({"x": [1]}))


def test_explode_names_the_column_and_row_of_a_bad_cell():
    deals = pd.DataFrame(
        {
            "id": ["a", "b"],
            "lead_investors": ['[{"id":"x"}]', None],
            "buyers": ['[{"id":"y"}]', '["not an object"]'],
        }
    )
    with pytest.raises(ValidationError, match=r"buyers\[1\]"):
        explode_participants(deals, roles=["lead_investor", "buyer"])


def test_columns_of_different_kinds_are_each_read_as_they_are():
    # Python lists beside JSON text: the text column is not re-read through Python objects
    # (a raw line break in it is read as by a column of text alone)
    deals = pd.DataFrame(
        {
            "id": ["a", "b"],
            "lead_investors": pd.Series([[{"id": "x"}], None], dtype=object),
            "buyers": pd.Series(['[{"id":"y\nz"}]', None], dtype="str"),
        }
    )
    both = explode_participants(deals, roles=("lead_investor", "buyer"))
    alone = explode_participants(deals.drop(columns="lead_investors"), roles=("buyer",))
    assert both["participant_id"].tolist() == ["x", *alone["participant_id"].tolist()]
    assert both["role"].tolist() == ["lead_investor", "buyer"]


REPEATED = ["id", "deal_date", "deleted", "lead_investors"]


@pytest.mark.parametrize("name", REPEATED)
def test_a_column_read_twice_is_refused_naming_the_frame_and_the_column(complete, name):
    """A ``concat`` along the columns repeats a column: the messages named internal arguments
    (``invalid series``, ``invalid column``) or were an AttributeError."""
    twice = pd.concat([complete, complete[[name]]], axis=1)
    with pytest.raises(ValidationError, match=f"one column named '{name}'") as info:
        explode_participants(twice)
    assert info.value.argument == "deals"
    exploded = explode_participants(complete)
    carried = {"id": "deal_id", "lead_investors": "participant_id"}.get(name, name)
    with pytest.raises(ValidationError, match=f"one column named '{carried}'") as info:
        co_investment_edges(pd.concat([exploded, exploded[[carried]]], axis=1))
    assert info.value.argument == "exploded"


@pytest.mark.parametrize("name", ["id", "deleted"])
def test_bucket_medians_refuses_a_column_it_reads_twice_naming_deals(name):
    from dealframe.analytics import bucket_medians

    deals = deals_frame(
        [
            {"id": f"d{i}", "deal_date": f"2024-01-0{i + 1}", "deleted": False}
            | {"deal_multiples": {"ev_revenue": 2.0 + i}}
            for i in range(4)
        ]
    )
    twice = pd.concat([deals, deals[[name]]], axis=1)
    with pytest.raises(ValidationError, match=f"one column named '{name}'") as info:
        bucket_medians(twice, "ev_revenue", "quarter", "2024-01-01", "2024-03-31")
    assert info.value.argument == "deals"


def test_attrs_count_live_deals_lacking_their_lists_as_the_rows_do():
    """Columns selected (no ``investors_missing``): the count came from
    ``attrs["deals_without_investors"]``, every deal, a soft-deleted one left out too."""
    items = [
        {"id": "d1", "deal_date": "2024-01-01", "lead_investors": [{"id": "a"}]}
        | {"investors": [{"id": "a"}, {"id": "b"}], "deleted": False},
        {"id": "d2", "deal_date": "2024-01-02", "deleted": True}
        | {"lead_investors": [{"id": "a"}, {"id": "c"}]},
        {"id": "d3", "deal_date": "2024-01-03", "deleted": False},  # no row at all
    ]
    with pytest.warns(MissingInvestorsWarning, match="^2 of 3 deals"):
        ex = explode_participants(items)
    assert ex.attrs["live_deals_without_investors"] == ""
    assert ex.attrs["deleted_deals_without_investors"] == "d2"
    selected = ex[["deal_id", "role", "participant_id", "deal_date", "deleted"]]
    for frame in (ex, selected):
        with warnings.catch_warnings():
            warnings.simplefilter("error", MissingInvestorsWarning)
            assert len(co_investment_edges(frame)) == 1
        with pytest.warns(MissingInvestorsWarning, match="^1 deals lack"):
            co_investment_edges(frame, include_deleted=True)
    without = selected.drop(columns="deleted")  # nothing left out: every deal with rows
    with pytest.warns(MissingInvestorsWarning, match="^1 deals lack"):
        co_investment_edges(without)


def test_attrs_ids_are_counted_among_the_rows_after_a_row_filter():
    """pandas keeps ``attrs`` through ``sel[mask]``: the ids of the deals lacking their list
    are counted among the rows left, so a filter by role or by deal is exact (the row count
    guard of before guessed 3 deals from lead rows without investor rows)."""
    items = [
        {"id": "d1", "deal_date": "2024-01-01", "lead_investors": [{"id": "a"}, {"id": "b"}]},
        {"id": "d2", "deal_date": "2024-01-02", "lead_investors": [{"id": "a"}, {"id": "c"}]},
        {"id": "d3", "deal_date": "2024-01-03", "lead_investors": [{"id": "a"}, {"id": "b"}]}
        | {"investors": [{"id": "a"}, {"id": "b"}]},
    ]
    with pytest.warns(MissingInvestorsWarning, match="^2 of 3 deals"):
        ex = explode_participants(items)
    assert ex.attrs["live_deals_without_investors"] == "d1\nd2"
    selected = ex[["deal_id", "role", "participant_id", "deal_date", "deleted"]]
    with pytest.warns(MissingInvestorsWarning, match="^2 deals lack"):
        co_investment_edges(selected)
    kept = selected[selected["deal_id"] == "d3"]  # the attrs came along
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingInvestorsWarning)  # d3 has its list
        assert len(co_investment_edges(kept)) == 1
    leads = selected[selected["role"] == "lead_investor"]  # d3's lead rows: it has its list
    with pytest.warns(MissingInvestorsWarning, match="^2 deals lack") as said:
        co_investment_edges(leads)
    assert len(said) == 1
    one = selected[selected["deal_id"].isin(["d1", "d3"])]
    with pytest.warns(MissingInvestorsWarning, match="^1 deals lack"):
        co_investment_edges(pd.concat([one, one]))  # equal frames keep their attrs
