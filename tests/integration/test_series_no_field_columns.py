"""A series called with no ``fields`` whose answer holds no field keeps its field columns.

Before, ``time_series(["ZZZZ-USA", "YYYY-GBR"])`` (SKUs none of which the service returns) was
a (0, 0) frame, also over 230 unknown SKUs in 3 requests, where one known SKU beside an unknown
one gave every field with all-NaN columns for the unknown: issue 3's "the same columns whether
0, 1 or N entities come back" and the method's "one not returned: all-NaN columns" broke. A
group series that nothing answers had no column either. Now the columns are the fields the
client was served before by default for the endpoint, else the document's time-series fields,
with a warning saying so; the index is the window asked, as for any SKU not returned. Over HTTP
against the session sandbox.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dealframe.client import Client
from dealframe.notices import MissingDataWarning

#: The time-series fields the interface document names (section 2.1, CompanyTimeSeriesData).
SERIES_EXAMPLES = ("evRevenueLtm", "evRevenueNtm", "marginEbitdaLtm")

UNKNOWN = ["ZZZZ-USA", "YYYY-GBR"]
WINDOW = {"date_from": "2024-01", "date_to": "2024-03"}
NOTHING = {"countries": ["ATA"]}  # a group no company of the sandbox is in
GUESSED = "the columns are the document's time-series fields"


@pytest.fixture
def client(sandbox: Any) -> Iterator[Client]:
    """A new client each test: what it was served before decides the columns."""
    with Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as c:
        yield c


def _called(call: Any) -> tuple[pd.DataFrame, list[str]]:
    """The frame of ``call()`` and the messages of its missing-data warnings."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        frame = call()
    return frame, [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]


def _fields(frame: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(frame.columns.get_level_values("field")))


def test_unknown_skus_alone_have_the_documents_fields_and_say_so(client):
    frame, said = _called(lambda: client.public.time_series(UNKNOWN))
    assert frame.shape == (0, len(SERIES_EXAMPLES) * 2)  # was (0, 0)
    assert frame.columns.tolist() == [(f, s) for f in SERIES_EXAMPLES for s in UNKNOWN]
    assert frame.columns.names == ["field", "sku"]
    assert (frame.dtypes == np.float64).all()
    assert frame.attrs["missing_skus"] == UNKNOWN
    assert any(GUESSED in m and "name fields for fixed columns" in m for m in said)
    windowed, _ = _called(lambda: client.public.time_series(UNKNOWN, **WINDOW))
    assert windowed.index.astype(str).tolist() == ["2024-01", "2024-02", "2024-03"]
    assert windowed["evRevenueLtm"].columns.tolist() == UNKNOWN
    assert windowed.isna().all(axis=None)


def test_unknown_skus_after_a_default_answer_have_the_fields_served(client):
    known = client.public.search().index[:1].tolist()
    with pytest.warns(MissingDataWarning):  # the unknown SKU, said
        served = client.public.time_series([*known, UNKNOWN[0]], **WINDOW)
    fields = _fields(served)
    assert len(fields) > len(SERIES_EXAMPLES)  # the sandbox serves more than the examples
    frame, said = _called(lambda: client.public.time_series(UNKNOWN, **WINDOW))
    assert frame.columns.tolist() == [(f, s) for f in fields for s in UNKNOWN]
    assert frame.shape == (3, len(fields) * 2) and frame.isna().all(axis=None)
    assert not any(GUESSED in m for m in said)  # known: no guess to say
    many = [f"ZQ{i:03d}-USA" for i in range(230)]  # three requests: 100 + 100 + 30
    frame, _ = _called(lambda: client.public.time_series(many, **WINDOW))
    assert frame.attrs["requests"] == 3
    assert frame.shape == (3, len(fields) * 230)
    assert _fields(frame) == fields


def test_the_long_shape_and_named_fields_keep_their_schema(client):
    long, said = _called(lambda: client.public.time_series(UNKNOWN, shape="long"))
    assert long.columns.tolist() == ["sku", "field", "month", "value"] and long.empty
    assert not any(GUESSED in m for m in said)  # no field column to guess in rows
    named, _ = _called(lambda: client.public.time_series(UNKNOWN, fields=["marketCap"]))
    assert named.columns.tolist() == [("marketCap", s) for s in UNKNOWN]


def test_a_group_nothing_answers_has_the_documents_then_the_served_fields(client):
    frame, said = _called(lambda: client.public.group_time_series(**NOTHING, **WINDOW))
    assert frame.columns.tolist() == list(SERIES_EXAMPLES)  # was no column
    assert frame.index.astype(str).tolist() == ["2024-01", "2024-02", "2024-03"]
    assert frame.isna().all(axis=None) and (frame.dtypes == np.float64).all()
    assert any(GUESSED in m and "no period" in m for m in said)
    served = client.public.group_time_series(countries=["USA"], **WINDOW)
    assert len(served.columns) > len(SERIES_EXAMPLES)
    frame, said = _called(lambda: client.public.group_time_series(**NOTHING))
    assert frame.columns.tolist() == served.columns.tolist()
    assert frame.shape == (0, len(served.columns))
    assert said and not any(GUESSED in m for m in said)
