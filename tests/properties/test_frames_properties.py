"""Hypothesis properties of the shaping layer.

- flatten → explode → regroup gives back every deal's participant ids, in order;
- nested values → JSON text → Python (and → Arrow, for lists of objects) gives them back,
  whatever characters they hold;
- 0, 1 or N rows give one schema;
- the client's page path equals the item path however the rows are split into pages.
"""

from __future__ import annotations

import warnings

import orjson
import pandas as pd
from _client_pages import list_from_items, list_from_pages  # tests/unit: loaded by conftest.py
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealframe._vocab import DEAL_SUBTYPES, DEAL_TYPES, REGIONS
from dealframe.frames import (
    deals_frame,
    explode_participants,
    resolve_frames,
)
from dealframe.frames.nested import contains_any, encode, to_lists
from dealframe.frames.objects import object_lists

ROLES = {"buyers": "buyer", "lead_investors": "lead_investor", "investors": "investor"}
FIELDS = ("id", "name", "short_name", "country", "website")
ids = st.text(alphabet="0123456789abcdef-", min_size=1, max_size=12)
maybe_text = st.none() | st.text(max_size=8)
participant = st.fixed_dictionaries(
    {
        "id": ids,
        "name": maybe_text,
        "short_name": maybe_text,
        "country": st.none() | st.sampled_from(["USA", "GBR", "NOR"]),
        "website": maybe_text,
    }
)
participants = st.none() | st.lists(participant, max_size=4)
offsets = st.sampled_from(["+00:00", "+01:00", "-05:00", "+05:30", "Z"])


@st.composite
def deal(
    draw, with_investors: bool = False, types: tuple[str, ...] = (*DEAL_TYPES, "Crowdfunding")
):
    d = {
        "id": draw(ids),
        "deal_date": draw(st.dates().map(lambda x: x.isoformat())),
        "deal_type": draw(st.sampled_from(types)),
        "deal_subtype": draw(st.none() | st.sampled_from(DEAL_SUBTYPES)),
        "deal_valuation": draw(st.none() | st.floats(-1e6, 1e6, allow_nan=False)),
        "deal_multiples": draw(
            st.none()
            | st.fixed_dictionaries(
                {"ev_revenue": st.none() | st.floats(-100, 100), "ev_ebitda": st.none()}
            )
        ),
        "target": draw(
            st.none()
            | st.fixed_dictionaries(
                {
                    "id": ids,
                    "name": maybe_text,
                    "country": st.none() | st.just("USA"),
                    "region": st.none() | st.sampled_from(REGIONS),
                }
            )
        ),
        "buyers": draw(participants),
        "lead_investors": draw(participants),
        "created_at": draw(st.datetimes(timezones=st.none())).isoformat(timespec="seconds")
        + draw(offsets),
        "deleted": draw(st.booleans()),
    }
    if with_investors:
        d["investors"] = draw(participants)
    return d


deal_lists = st.lists(deal(with_investors=True) | deal(), max_size=12)
#: Values inside the vocabularies only: an unknown value adds a category by design.
vocab_deal_lists = st.lists(
    deal(with_investors=True, types=DEAL_TYPES) | deal(types=DEAL_TYPES), max_size=12
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal_lists)
def test_explode_then_regroup_gives_back_participants(items):
    frame = deals_frame(items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # list rows lack investor lists: warned, not tested here
        ex = explode_participants(frame)
    grouped = {
        (row_deal, role): list(group["participant_id"])
        for (row_deal, role), group in ex.assign(pos=range(len(ex))).groupby(
            ["deal_id", "role"], observed=True, sort=False
        )
    }
    expected: dict[tuple[str, str], list[str]] = {}
    # a deal that several items hold is exploded once: from its last item (these have no
    # updated_at to tell the newest); a deal without an id repeats nothing
    last = {item["id"]: at for at, item in enumerate(items) if item["id"]}
    kept = [item for at, item in enumerate(items) if not item["id"] or last[item["id"]] == at]
    for item in kept:
        for column, role in ROLES.items():
            for p in item.get(column) or []:
                expected.setdefault((item["id"], role), []).append(p["id"])
    assert grouped == expected
    assert len(ex) == sum(len(v) for v in expected.values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(vocab_deal_lists)
def test_deals_schema_is_stable_for_0_1_n(items):
    for profile in (False, True):
        frames = [deals_frame(part, profile=profile) for part in ([], items[:1], items)]
        base = frames[0]
        for f in frames[1:]:
            n = len(base.columns)
            assert list(f.columns[:n]) == list(base.columns)
            assert list(f.dtypes.iloc[:n]) == list(base.dtypes)
            if profile:  # single deals: every field known
                assert list(f.columns) == list(base.columns)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal_lists, st.lists(st.integers(0, 12), max_size=4))
def test_pages_equal_items_however_split(items, cuts):
    bounds = sorted({0, len(items), *(min(c, len(items)) for c in cuts)})
    pages = [orjson.dumps({"data": items[a:b], "meta": {}}) for a, b in zip(bounds, bounds[1:])]
    got = list_from_pages(pages, with_role=None)  # a role kept, as deals_frame keeps it
    pd.testing.assert_frame_equal(got, deals_frame(items, profile=False))


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "id": ids,
                "name": maybe_text,
                "founded": st.none() | st.integers(1800, 2030),
                "region": st.none() | st.sampled_from(REGIONS),
                "active": st.none() | st.booleans(),
                "verticals": st.lists(st.text(max_size=5), max_size=3),
                "updated_at": st.datetimes(timezones=st.none()).map(
                    lambda d: d.isoformat() + "+02:00"
                ),
            }
        ),
        max_size=6,
    )
)
def test_companies_schema_is_stable_for_0_1_n(items):
    frames = [list_from_items("companies", i) for i in ([], items[:1], items)]
    for f in frames[1:]:
        assert list(f.columns) == list(frames[0].columns)
        assert list(f.dtypes) == list(frames[0].dtypes)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "query": st.text(max_size=6),
                "id": st.none() | ids,
                "match_type": st.sampled_from(["exact", "ambiguous", "no_match"]),
                "candidates": st.lists(
                    st.fixed_dictionaries(
                        {
                            "id": ids,
                            "name": st.text(max_size=5),
                            "country": st.just("USA"),
                            "score": st.floats(0, 1),
                        }
                    ),
                    max_size=3,
                ),
            }
        ),
        max_size=5,
    )
)
def test_resolve_schema_and_ranks(items):
    results, candidates = resolve_frames(items)
    r0, c0 = resolve_frames([])
    assert list(results.dtypes) == list(r0.dtypes) and list(candidates.dtypes) == list(c0.dtypes)
    assert results["query"].tolist() == [i["query"] for i in items]
    expected_ranks = [r for i in items for r in range(1, len(i["candidates"]) + 1)]
    assert candidates["rank"].tolist() == expected_ranks


any_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6
) | st.sampled_from(['"', "\\", '"id":', "},{", "null", "[]", "\u00e9", "\x01"])
any_participant = st.dictionaries(st.sampled_from(FIELDS), st.none() | any_text)
any_lists = st.lists(st.none() | st.lists(any_participant, max_size=3), max_size=8)


@settings(max_examples=60, deadline=None)
@given(any_lists)
def test_lists_of_objects_round_trip_through_text(cells):
    text = pd.Series(encode(cells, "people", fields=FIELDS))
    assert [
        None if c is None else [{f: o.get(f) for f in FIELDS} for o in c] for c in cells
    ] == to_lists(text).tolist()
    rows, values = object_lists(text, FIELDS)
    assert rows.tolist() == [i for i, c in enumerate(cells) if c for _ in c]
    for f in FIELDS:
        assert values[f].to_pylist() == [o.get(f) for c in cells if c for o in c]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.none() | st.lists(any_text, max_size=4), max_size=8), any_text)
def test_string_lists_round_trip_and_contains_any(cells, probe):
    text = pd.Series(encode(cells, "tags", array=True))
    assert to_lists(text).tolist() == cells
    hits = contains_any(text, [probe]).tolist()
    assert hits == [c is not None and probe in c for c in cells]
