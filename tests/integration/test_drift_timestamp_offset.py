"""Timestamps without an offset are read as UTC and said, over real HTTP through the drift
proxy; RFC 3339's lower-case ``z`` and ``t`` are read as ``Z`` and ``T``.

The interface document gives every timestamp an offset. A service writing its local time
without one (``2023-09-28T15:53:22``, even a date alone in a timestamp field) used to be read
as UTC in silence, and the doctor said "read and converted to UTC": every ``updated_at``,
the mirror's change-feed checkpoint among them, would be shifted without a word. The client
now reads them as UTC and warns once per call, naming the field and such a value; the
doctor says "no offset; assumed UTC". ``...:07z`` used to be refused as "not ISO8601 format".
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    clamp_limit,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    set_field,
)

from dealframe import mirror
from dealframe.doctor.checks import ADAPTED, diagnose
from dealframe.notices import ServiceContractWarning

HANG_LIMIT = 120  # the doctor's run asks every check
P = "/api/private/v1"
PROFILE = f"^{P}/companies/[^/]+$"
COMPANIES = f"^{P}/companies$"
INVESTORS = f"^{P}/investors$"
#: The offset ending a timestamp, as the sandbox writes it (``+05:30``, ``Z``).
STATED = re.compile(r"(?:Z|[+-]\d{2}:\d{2})$")


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
    # a finding of the call (no_offset), naming its endpoint first
    assert said[0].startswith(f"GET {P}/companies/{{id}}: updated_at: "), said
    assert repr(stamp) in said[0], said
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["no_offset"]
    assert "read as UTC" in said[0], said


def test_a_lower_case_z_is_read_as_utc(company, fresh, proxy):
    """``...:07z`` (RFC 3339 allows it) is UTC, read without a warning (it used to be
    refused as "not ISO8601 format")."""
    proxy.add(PROFILE, set_field("updated_at", "2023-09-28T15:53:07.250z"), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert o.error is None, repr(o.error)
    assert o.value["updated_at"].iloc[0] == pd.Timestamp("2023-09-28 15:53:07.25", tz="UTC")
    assert not _offsets(o), o.caught


@pytest.mark.parametrize(
    "stamp", ["2023-09-28t15:53:07.250z", "2023-09-28t17:53:07.250+02:00"], ids=["tz", "t-offset"]
)
def test_a_lower_case_t_is_read_as_the_separator(stamp, company, fresh, proxy):
    """RFC 3339 allows a lower-case ``t`` between date and time, as ``z``: the profile's
    stamp and a list's stamps are read (every Family B read used to fail as "not ISO8601")."""
    proxy.add(PROFILE, set_field("updated_at", stamp), method="GET")
    proxy.add(COMPANIES, set_field("created_at", stamp))
    o = outcome(lambda: fresh.private.company(company))
    assert o.error is None, repr(o.error)
    assert o.value["updated_at"].iloc[0] == pd.Timestamp("2023-09-28 15:53:07.25", tz="UTC")
    assert not _offsets(o), o.caught
    listed = outcome(lambda: fresh.private.companies(limit=5))
    assert listed.error is None, repr(listed.error)
    assert (listed.value["created_at"] == pd.Timestamp("2023-09-28 15:53:07.25", tz="UTC")).all()


def test_a_list_of_many_pages_says_it_once(fresh, proxy):
    """A list walk over several pages, every row's ``updated_at`` without offset: one
    warning for the call, not one per page."""
    proxy.add(COMPANIES, clamp_limit(50), set_field("updated_at", "2023-09-28T15:53:22"))
    o = outcome(lambda: fresh.private.companies(limit=200))
    assert o.error is None, repr(o.error)
    assert len(proxy.pages(COMPANIES)) >= 3, proxy.seen
    assert (o.value["updated_at"] == pd.Timestamp("2023-09-28 15:53:22", tz="UTC")).all()
    assert len(_offsets(o)) == 1, _offsets(o)


def test_the_doctor_says_no_offset_assumed_utc(fresh, proxy):
    """The doctor's ``B.timestamps`` says the stamps had no offset and were assumed UTC (it
    used to say they were "read and converted to UTC", as for a stated offset)."""
    proxy.add(COMPANIES, set_field("updated_at", "2023-09-28T15:53:22"), method="POST")
    checks = {c.name: c for c in diagnose(fresh, family="B").checks}
    seen = checks["B.timestamps"]
    assert seen.verdict == ADAPTED, seen
    assert "no offset; assumed UTC" in seen.observed and "2023-09-28T15:53:22" in seen.observed


@pytest.mark.parametrize(
    ("stamp", "read"),
    [
        ("2023-09-28T15:53:22 +02:00", "2023-09-28 13:53:22"),
        ("2023-09-28T15:53:22 Z", "2023-09-28 15:53:22"),
        ("nan", None),
    ],
    ids=["space-offset", "space-z", "nan"],
)
def test_an_offset_after_a_space_or_no_time_is_not_said(stamp, read, company, fresh, proxy):
    """An offset after a space is an offset, and a text read as no time (``"nan"``) is no
    timestamp without offset: neither is warned of (both were, as "no offset in a timestamp
    (such as '2023-09-28T15:53:22 +02:00')" and "(such as 'nan')")."""
    proxy.add(PROFILE, set_field("updated_at", stamp), method="GET")
    o = outcome(lambda: fresh.private.company(company))
    assert o.error is None, repr(o.error)
    got = o.value["updated_at"].iloc[0]
    assert pd.isna(got) if read is None else got == pd.Timestamp(read, tz="UTC"), got
    assert not _offsets(o), _offsets(o)


def _unstated(doc: Any) -> Any:
    """Every timestamp of the page's rows without its offset (a proxy stripping them)."""
    for item in doc.get("data") or () if isinstance(doc, dict) else ():
        for name in ("updated_at", "created_at", "deleted_at"):
            if isinstance(item.get(name), str):
                item[name] = STATED.sub("", item[name])
    return doc


def test_a_mirror_sync_says_it_once_per_field(fresh, proxy, tmp_path):
    """A sync reading the change feed page by page, every stamp without offset: one warning
    per field, with how many stamps there were, for the sync (each page used to say it again:
    six pages, six warnings for ``updated_at`` each quoting another stamp); the incremental
    sync after it says it once too."""
    proxy.add(INVESTORS, edit(_unstated, "unstated"), method="POST")
    o = outcome(lambda: mirror.sync(fresh, tmp_path / "m", entities=("investors",), page_size=50))
    assert o.error is None, repr(o.error)
    rows = o.value["investors"].rows_received
    assert len(proxy.pages(INVESTORS)) >= 4 and rows > 150, (proxy.seen, rows)
    said = _offsets(o)
    fields = [w.split(": ")[1] for w in said]
    assert len(said) == len(set(fields)) and "updated_at" in fields, said
    (updated,) = (w for w in said if ": updated_at: " in w)
    assert updated.startswith("the change feed of investors: updated_at: no offset in "), updated
    count = re.search(r"no offset in ([\d,]+) timestamps", updated)
    assert count and int(count[1].replace(",", "")) >= rows, updated  # and the count's pages
    again = outcome(lambda: mirror.sync(fresh, tmp_path / "m", entities=("investors",)))
    assert again.error is None, repr(again.error)
    fields = [w.split(": ")[1] for w in _offsets(again)]
    assert len(fields) == len(set(fields)), _offsets(again)
