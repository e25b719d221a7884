"""``dedupe_at`` keeps one row per id whatever the ids look like: its quick test of text ids
(a summary of each: length, first and last 8 bytes) may only ever say "all different" when
they are, and the rows kept are those the exact check keeps."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from dealframe.contract import Findings, dedupe_at

#: Ids alike at both ends and in length, short ids, non-ASCII text, empty and null ids.
_IDS = st.one_of(
    st.builds(lambda n: f"deal-id-{n:04d}-the-same-end", st.integers(0, 30)),
    st.text(alphabet="ab\u00e9\u20ac", min_size=0, max_size=12),
    st.none(),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_IDS, min_size=1, max_size=40))
def test_dedupe_keeps_one_row_per_id(ids):
    frame = pd.DataFrame({"id": pd.array(ids, dtype="str"), "row": range(len(ids))})
    out, at = dedupe_at(frame, "id", Findings("POST /x"), np.arange(len(ids)))
    assert at.tolist() == out["row"].tolist()  # the positions cut as the rows are
    named = [i for i in ids if i]  # null and empty ids are never merged
    kept = [i for i in out["id"].tolist() if isinstance(i, str) and i]
    assert sorted(kept) == sorted(set(named))
    assert len(out) == len(ids) - (len(named) - len(set(named)))
