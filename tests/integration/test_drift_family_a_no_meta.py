"""A Family A answer without ``meta``, over the drift proxy.

Section 2.1: "Every Family A success response is ``{data, meta}``. ``meta.count`` is an
integer." A Family B list page without ``meta`` was said (``no meta``), but search, current
data, time series and the two group calls read an answer without one silently. Each is now
read all the same (the frame as with ``meta``) and said in one ``bad_meta`` warning for the
call, however many chunks of SKUs came without one; ``strict=True`` raises it. A
``meta.count`` that is no count is said on every one of them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    edit,
    fresh,
    fresh_rules,
    meta_set,
    outcome,
    proxy,
    refuse,
    via,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

NO_META = "no meta, where the document gives every Family A answer {data, meta}"


def _skus(client: Any) -> list[str]:
    return list(client.public.search(countries=["GBR"]).index[:3])


CALLS = {
    "search": (
        "^/api/v2/companies$",
        lambda c, skus, **kw: c.public.search(countries=["GBR"], **kw),
    ),
    "current": ("^/api/v2/companies/current$", lambda c, skus, **kw: c.public.current(skus, **kw)),
    "time_series": (
        "^/api/v2/companies/time-series$",
        lambda c, skus, **kw: c.public.time_series(skus, fields=["evRevenueLtm"], **kw),
    ),
    "group_time_series": (
        "^/api/v1/groups/time-series$",
        lambda c, skus, **kw: c.public.group_time_series(
            countries=["GBR"], fields=["evRevenueLtm"], **kw
        ),
    ),
    "group_current": (
        "^/api/v2/groups/current$",
        lambda c, skus, **kw: c.public.group_current(countries=["GBR"], **kw),
    ),
}


def _without_meta(doc: Any) -> Any:
    doc.pop("meta", None)
    return doc


@pytest.mark.parametrize("name", list(CALLS))
def test_an_answer_without_meta_is_said_once_and_read(via, proxy, name):
    path, call = CALLS[name]
    skus = _skus(via)
    plain = outcome(lambda: call(via, skus))
    assert plain.error is None, plain.error
    assert not [m for m in plain.warned(ServiceContractWarning) if NO_META in m]

    proxy.add(path, edit(_without_meta, "no meta"))
    got = outcome(lambda: call(via, skus))
    assert got.error is None, got.error
    said = [m for m in got.warned(ServiceContractWarning) if NO_META in m]
    assert len(said) == 1, got.warned(Warning)
    kinds = [f["kind"] for f in got.value.attrs["findings"]]
    assert kinds.count("bad_meta") == 1, kinds
    assert isinstance(got.value, pd.DataFrame)
    assert got.value.shape == plain.value.shape  # the rows read all the same

    strict = outcome(lambda: call(via, skus, strict=True))
    assert isinstance(strict.error, ServiceContractError), strict.error
    assert NO_META in str(strict.error)


@pytest.mark.parametrize("name", list(CALLS))
def test_a_count_that_is_no_count_is_said(via, proxy, name):
    path, call = CALLS[name]
    skus = _skus(via)
    proxy.add(path, meta_set(count="7x"))
    got = outcome(lambda: call(via, skus))
    assert got.error is None, got.error
    assert any("meta.count is '7x', not a count: ignored" in m for m in got.warned(Warning))


AT_MOST_25 = {"error": {"code": "BAD_REQUEST", "message": "skus: at most 25 SKUs per request"}}


def test_chunks_without_meta_are_said_once_for_the_call(fresh, proxy):
    """Current data sent in chunks (a service that takes 25 SKUs a request): every chunk
    without ``meta``, one warning for the call."""
    skus = fresh.public.search().index.tolist()[:100]
    proxy.add(
        "^/api/v2/companies/current$",
        refuse(400, lambda sent: AT_MOST_25, 25, "skus"),
        edit(_without_meta, "no meta"),
    )
    got = outcome(lambda: fresh.public.current(skus))
    assert got.error is None, got.error
    assert proxy.count("/companies/current$") == 1 + 4  # refused once, then four chunks
    assert len([m for m in got.warned(ServiceContractWarning) if NO_META in m]) == 1
    assert len(got.value) == len(skus)
