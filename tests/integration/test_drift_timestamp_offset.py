"""Timestamps without an offset are read as UTC and said, over real HTTP through the drift
proxy; RFC 3339's lower-case ``z`` is read as ``Z``.

The interface document gives every timestamp an offset. A service writing its local time
without one (``2023-09-28T15:53:22``, even a date alone in a timestamp field) used to be read
as UTC in silence, and the doctor said "read and converted to UTC": every ``updated_at``,
the mirror's change-feed checkpoint among them, would be shifted without a word. The client
now reads them as UTC and warns once per call, naming the field and such a value; the
doctor says "no offset; assumed UTC". ``...:07z`` used to be refused as "not ISO8601 format".
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Proxy,
    clamp_limit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    set_field,
)

from dealframe import Client
from dealframe.doctor.checks import ADAPTED, diagnose
from dealframe.notices import ServiceContractWarning

HANG_LIMIT = 120  # the doctor's run asks every check
P = "/api/private/v1"
PROFILE = f"^{P}/companies/[^/]+$"
COMPANIES = f"^{P}/companies$"


@pytest.fixture(scope="module")
def company(sandbox: Any) -> str:
    """The id of a company the sandbox serves, read with plain requests."""
    answer = requests.post(
        f"{sandbox.url}{P}/companies",
        json={"filters": {}, "limit": 1},
        headers={"Authorization": f"Bearer {sandbox.private_key}"},
        timeout=60,
    )
    return str(answer.json()["data"][0]["id"])


def _offsets(o: Any) -> list[str]:
    return [w for w in o.warned(ServiceContractWarning) if "no offset" in w]


@pytest.mark.parametrize(
    ("stamp", "read"),
    [("2023-09-28T15:53:22", "2023-09-28 15:53:22"), ("2023-09-28", "2023-09-28 00:00:00")],
    ids=["no-offset", "date-alone"],
)
def test_a_stamp_without_offset_is_read_as_utc_and_said(stamp, read, company, fresh, proxy):
    """The profile's ``updated_at`` is read as UTC, and one warning names the field, the
    value, and that it had no offset (it used to be read so in silence)."""
    proxy.add(PROFILE, set_field("updated_at", stamp), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert o.error is None, repr(o.error)
    assert o.value["updated_at"].iloc[0] == pd.Timestamp(read, tz="UTC")
    said = _offsets(o)
    assert len(said) == 1, o.caught
    assert said[0].startswith("updated_at: ") and repr(stamp) in said[0], said
    assert "read as UTC" in said[0], said


def test_a_lower_case_z_is_read_as_utc(company, fresh, proxy):
    """``...:07z`` (RFC 3339 allows it) is UTC, read without a warning (it used to be
    refused as "not ISO8601 format")."""
    proxy.add(PROFILE, set_field("updated_at", "2023-09-28T15:53:07.250z"), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert o.error is None, repr(o.error)
    assert o.value["updated_at"].iloc[0] == pd.Timestamp("2023-09-28 15:53:07.25", tz="UTC")
    assert not _offsets(o), o.caught


def test_a_list_of_many_pages_says_it_once(fresh, proxy):
    """A list walk over several pages, every row's ``updated_at`` without offset: one
    warning for the call, not one per page."""
    proxy.add(COMPANIES, clamp_limit(50), set_field("updated_at", "2023-09-28T15:53:22"))
    o = outcome(lambda: fresh.private.companies(limit=200))
    assert o.error is None, repr(o.error)
    assert len(proxy.pages(COMPANIES)) >= 3, proxy.seen
    assert (o.value["updated_at"] == pd.Timestamp("2023-09-28 15:53:22", tz="UTC")).all()
    assert len(_offsets(o)) == 1, _offsets(o)


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (nothing learned is shared between tests)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def test_the_doctor_says_no_offset_assumed_utc(client, proxy):
    """The doctor's ``B.timestamps`` says the stamps had no offset and were assumed UTC (it
    used to say they were "read and converted to UTC", as for a stated offset)."""
    proxy.add(COMPANIES, set_field("updated_at", "2023-09-28T15:53:22"), method="POST")
    checks = {c.name: c for c in diagnose(client, family="B").checks}
    seen = checks["B.timestamps"]
    assert seen.verdict == ADAPTED, seen
    assert "no offset; assumed UTC" in seen.observed and "2023-09-28T15:53:22" in seen.observed
