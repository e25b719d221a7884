"""Review fixes of the private filters and pages, over HTTP (through the drift proxy where the
sandbox would not serve the variant).

- A filter of one value (``valuation_min``, ``include_deleted``, ``date_from``) given an
  iterator was read whole before any check: an endless one used up all memory, a finite one
  was refused as the list it was read into. It is refused at once, as given.
- Sub-collection rows served soft-deleted made a finding that dropped the call's HTTP cache
  entries, though the answer is used as it came: asked again, the same. They are a
  ``deleted_served`` finding now, kept in the cache, naming ids as other findings do.
- ``mirror.sync`` warned of a row dropped from its own one-row count request.
- ``page()`` kept rows below ``updated_at`` without a word; it says them now (``kept``).
- ``Decimal("1E+20")`` was refused where ``1e20`` is taken.
- ``deals(with_investors=True)`` said its list pages' ``fetched_at``, though its profiles
  came from the cache earlier.
"""

from __future__ import annotations

import datetime as dt
import itertools
import sys
import warnings
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import age_cache_entries
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Exchange,
    cached,
    direct,
    edit,
    fresh,
    fresh_rules,
    proxy,
)

from dealframe import Client, mirror
from dealframe.errors import ServiceContractError, ValidationError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
LIST = rf"^{P}/transactions$"


def _guarded(value: Any, most: int = 1000) -> Iterator[Any]:
    """``value`` over and over, as an endless iterator would give it; read past ``most``
    values, it fails the test (the old code read it to the end, which never comes)."""
    for n in itertools.count():
        if n >= most:
            raise AssertionError("a filter of one value was read as an endless list")
        yield value


@pytest.mark.parametrize(
    ("name", "value"),
    [("valuation_min", 1), ("include_deleted", True), ("date_from", "2024-01-01")],
)
def test_an_endless_iterator_given_to_a_filter_of_one_value_is_refused_unread(
    fresh: Any, proxy: Any, name: str, value: Any
) -> None:
    given = _guarded(value)
    with pytest.raises(ValidationError, match="generator object") as caught:
        fresh.private.deals(limit=1, **{name: given})
    assert caught.value.argument == name
    assert next(given) == value  # not read: its first value is still there
    assert proxy.count(LIST) == 0  # refused before any list request


def test_a_finite_iterator_given_to_a_filter_of_one_value_is_named_as_given(fresh: Any) -> None:
    with pytest.raises(ValidationError, match="list_iterator") as caught:
        fresh.private.deals(valuation_min=iter([5]), limit=1)
    assert "[5]" not in str(caught.value)  # it was refused as the list it was read into


def test_a_list_operator_still_reads_its_iterator(fresh: Any, direct: Any) -> None:
    ids = direct.private.deals(limit=3)["id"].tolist()
    frame = fresh.private.deals(filters={"id": {"in": (i for i in ids)}})
    assert sorted(frame["id"]) == sorted(ids)


def test_a_decimal_beyond_64_bits_is_sent_as_a_float(fresh: Any) -> None:
    frame = fresh.private.deals(valuation_min=Decimal("1E+20"))
    assert frame.attrs["filters"]["valuation_min"] == 1e20  # as 1e20 is
    assert len(frame) == 0
    with pytest.raises(ValidationError, match=r"got Decimal\('1E\+400'\)"):
        fresh.private.deals(valuation_min=Decimal("1E+400"))


def _all_deleted(doc: Any) -> Any:
    for row in doc.get("data") or ():
        row["deleted"] = True
    return doc


def test_deleted_sub_collection_rows_keep_the_cache_and_name_ids(
    cached: Any, proxy: Any, direct: Any
) -> None:
    investors = direct.private.investors(limit=20)["id"].tolist()
    proxy.add(rf"^{P}/investors/[^/]+/investments$", edit(_all_deleted))
    with pytest.warns(ServiceContractWarning, match="soft-deleted") as said:
        first = cached.private.investments(investors)
    assert len(first) > 5 and first["deleted"].all()
    (finding,) = [f for f in first.attrs["findings"] if f["kind"] == "deleted_served"]
    assert not [f for f in first.attrs["findings"] if f["kind"] == "unrequested"]
    shown = first["id"].head(5).tolist()
    assert f"flagged in the deleted column: id {', '.join(shown)} and " in finding["message"]
    assert f"and {len(first) - 5:,} more" in finding["message"]
    assert any(finding["message"] in str(w.message) for w in said)
    sent = proxy.count(rf"^{P}/investors/[^/]+/investments$")
    with pytest.warns(ServiceContractWarning, match="soft-deleted"):
        again = cached.private.investments(investors)
    assert again.attrs["from_cache"] is True  # the answer used as it came: kept
    assert proxy.count(rf"^{P}/investors/[^/]+/investments$") == sent


def test_deleted_sub_collection_rows_raise_under_strict(
    fresh: Any, proxy: Any, direct: Any
) -> None:
    companies = direct.private.deals(deal_type=["Venture"], limit=3)["target_id"].tolist()
    proxy.add(rf"^{P}/companies/[^/]+/fundings$", edit(_all_deleted))
    with pytest.raises(ServiceContractError, match="fundings rows are soft-deleted") as caught:
        fresh.private.fundings(companies, strict=True)
    assert caught.value.finding == "deleted_served"


def test_page_says_the_rows_below_updated_at_it_keeps(fresh: Any, proxy: Any) -> None:
    def stamped_early(doc: Any) -> Any:
        if doc.get("data"):
            doc["data"][0]["updated_at"] = "2001-01-01T00:00:00Z"
        return doc

    proxy.add(LIST, edit(stamped_early), method="POST")
    with pytest.warns(ServiceContractWarning, match="below the filters sent") as said:
        frame = fresh.private.page(
            "transactions",
            {"updated_at": "2010-01-01T00:00:00Z", "include_deleted": True},
            sort="updated_at:asc",
            limit=3,
        )
    assert len(frame) == 3  # kept: a change-feed walk reads it as its cursor ignored
    message = str(said[0].message)
    assert "1 of 3 rows" in message and "kept" in message and "updated_at: 1 row" in message
    assert [f["kind"] for f in frame.attrs["findings"]] == ["unrequested"]


def _count_request(ex: Exchange) -> bool:
    body = ex.body if isinstance(ex.body, dict) else {}
    return body.get("limit") == 1 and not (body.get("filters") or {}).get("include_deleted")


def test_the_mirror_says_nothing_of_its_own_count_request(
    sandbox: Any, proxy: Any, tmp_path: Path
) -> None:
    """The one-row count without ``include_deleted`` served a deleted row (a service that
    ignores the filter there): dropped from a request the user never made, not warned of."""

    def first_deleted(doc: Any) -> Any:
        if doc.get("data"):
            doc["data"][0]["deleted"] = True
        return doc

    proxy.add(rf"^{P}/investors$", edit(first_deleted), method="POST", when=_count_request)
    with (
        Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
        warnings.catch_warnings(record=True) as seen,
    ):
        warnings.simplefilter("always")
        report = mirror.sync(client, tmp_path / "m", entities=("investors",), progress=False)
    assert report["investors"].table_rows
    assert proxy.count(rf"^{P}/investors$") > 0
    said = [str(w.message) for w in seen]
    assert not [m for m in said if "outside the filters sent" in m], said


def test_with_investors_says_when_its_cached_profiles_were_fetched(
    sandbox: Any, tmp_path: Path
) -> None:
    age = 1800  # within the hour profiles stay cached
    path = tmp_path / "c.sqlite"
    with Client.for_sandbox(sandbox, cache_enabled=True, cache_path=path, **FAST) as client:
        client.private.deals(limit=5, with_investors=True)  # the profiles cached
        age_cache_entries(path, age)
        between = dt.datetime.now(dt.UTC)
        frame = client.private.deals(limit=4, with_investors=True)  # another list request
    profiles = frame.attrs["profiles"]
    assert profiles["from_cache"] is True
    oldest = between - dt.timedelta(seconds=age)
    assert dt.datetime.fromisoformat(profiles["fetched_at"]) <= oldest
    assert dt.datetime.fromisoformat(frame.attrs["fetched_at"]) <= oldest  # was the list's
    assert dt.datetime.fromisoformat(frame.attrs["fetched_at"]) > oldest - dt.timedelta(hours=1)
