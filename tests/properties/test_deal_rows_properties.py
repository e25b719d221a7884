"""Hypothesis: a page of documented deal rows read into typed rows gives the frame the same
page gives read as JSON into dicts (the fallback), whatever characters its text holds and
whatever numbers it carries; participant lists are the same text, byte for byte."""

from __future__ import annotations

import orjson
import pandas as pd
from _client_pages import list_from_pages  # tests/unit: loaded by conftest.py
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealframe.frames import list_frame, list_page_columns
from dealframe.frames.deal_rows import read_deal_page

text = st.none() | st.text(max_size=12)  # any code point but lone surrogates
floats = st.floats(allow_nan=False, allow_infinity=False)
number = st.none() | st.integers(-(2**63), 2**64 - 1) | floats
wide = number | st.integers(-(2**70), 2**70)  # written as JSON integers beyond 64 bits
party = st.fixed_dictionaries(
    {},
    optional={k: text for k in ("id", "name", "short_name", "website", "country")},
)
participants = st.none() | st.lists(
    st.fixed_dictionaries({}, optional={k: text for k in ("country", "id", "name", "website")}),
    max_size=3,
)
offsets = st.sampled_from(["+00:00", "+01:00", "-05:00", "+05:30", "Z"])
deal = st.fixed_dictionaries(
    {
        "id": st.none() | st.text(min_size=1, max_size=10),
        "deal_date": st.none() | st.dates().map(lambda d: d.isoformat()),
        "deal_type": text,
        "deal_subtype": text,
        "deal_synopsis": text,
        "deal_valuation": wide,
        "deal_raised": wide,
        "deal_revenue": wide,
        "deal_ebitda": wide,
        "deal_multiples": st.none()
        | st.fixed_dictionaries({}, optional={"ev_revenue": number, "ev_ebitda": number}),
        "target": st.none() | party,
        "buyers": participants,
        "lead_investors": participants,
        "created_at": st.none()
        | st.builds(lambda t, o: t.isoformat(timespec="seconds") + o, st.datetimes(), offsets),
        "updated_at": st.none(),
        "deleted": st.none() | st.booleans(),
    }
)


def _page(items: list[dict]) -> bytes:
    """The page as a service writes it: numbers beyond 64 bits written as JSON integers."""
    big = {}
    for i, item in enumerate(items):
        for key in ("deal_valuation", "deal_raised", "deal_revenue", "deal_ebitda"):
            value = item[key]
            if isinstance(value, int) and not -(2**63) <= value < 2**64:
                item[key] = token = f"@big{i}{key}@"
                big[orjson.dumps(token)] = str(value).encode()
    page = orjson.dumps({"data": items, "meta": {"total": len(items)}})
    for token, digits in big.items():
        page = page.replace(token, digits)
    return page


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(deal, max_size=8))
def test_typed_rows_give_the_dict_frame(items):
    page = _page(items)
    read = read_deal_page(page)
    assert read is not None  # every row documented: the typed reader takes the page
    typed = list_frame("transactions", [list_page_columns("transactions", read["data"])])
    dicts = list_frame(
        "transactions", [list_page_columns("transactions", orjson.loads(page)["data"])]
    )
    pd.testing.assert_frame_equal(typed, dicts)
    for name in ("buyers", "lead_investors"):
        assert typed[name].tolist() == dicts[name].tolist()
    pd.testing.assert_frame_equal(list_from_pages([page]), dicts)
