"""Where an explode's rows live: the participant rows' text (tens of MB for 50,000 deals) is
taken from the system's allocator (``malloc``), passed to each call, not from pyarrow's
default pool, which gives freed pages back to the system within milliseconds, so that each
call made after other work wrote its whole output into fresh pages (a page fault each: 10-20
ms of system time a call, measured). The process's default pool is left as it is."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa

from dealframe.frames.participants import explode_participants
from dealframe.frames.private import deals_frame


def _deals(n: int) -> pd.DataFrame:
    people = [
        {
            "id": f"{i:08d}-0000-4000-8000-000000000000",
            "name": f"Investor {i} Capital",
            "short_name": f"Inv{i}",
            "country": "GER",
            "website": f"https://inv{i}.example.com",
        }
        for i in range(300)
    ]
    items = []
    for d in range(n):
        leads = [people[(d * 7) % 300], people[(d * 11 + 1) % 300]]
        buyers = [people[(d * 13 + 2) % 300]] if d % 3 == 0 else []
        items.append(
            {
                "id": f"{d:08d}-1111-4000-8000-000000000000",
                "deal_type": "Venture",
                "deal_date": "2021-01-01",
                "lead_investors": leads,
                "buyers": buyers,
                "investors": leads + buyers,
            }
        )
    return deals_frame(json.loads(json.dumps(items)))


def _arrow_bytes(frame: pd.DataFrame) -> int:
    return sum(
        frame[c].array.__arrow_array__().nbytes
        for c in frame.columns
        if isinstance(frame[c].dtype, pd.StringDtype)
    )


def test_the_rows_text_is_not_held_by_the_default_pool():
    deals = _deals(5_000)
    explode_participants(deals)  # whatever a first call sets up
    pool = pa.default_memory_pool()
    before = pool.bytes_allocated()
    exploded = explode_participants(deals)
    held = pool.bytes_allocated() - before
    text = _arrow_bytes(exploded)
    assert len(exploded) == 5_000 * 4 + 2 * (5_000 // 3 + 1)
    assert text > 2_000_000
    assert held < text // 20, f"{held:,} bytes of {text:,} held by the default pool"
