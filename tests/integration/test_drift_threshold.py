"""The aggregate's ``small_n_threshold`` where the service's answer does not give it.

The interface document reports the threshold as 3 in one discovery listing and as 5 in the
aggregate response and another listing, and makes the value the service returns at run time
authoritative (section 4.3 rule 9). These tests run a sandbox that suppresses at 3
(``threshold-3``) behind the drift proxy, and take ``meta.methodology.small_n_threshold`` out
of its aggregate answer (absent, null, moved to ``meta.small_n_threshold``): the analytics
read it from where the answer moved it or from the discovery document, and say so; with it
nowhere they use 5 and say that. ``client.private.aggregate`` records the missing key as a
finding. (They used to take 5 silently, suppressing buckets of 3 and 4 deals this service
shows.)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Proxy,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    outcome,
    proxy,
)

from dealframe import analytics
from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox import run

P = "/api/private/v1"
AGGREGATE = f"^{P}/transactions/aggregate$"
LOOKUP = f"^{P}/lookup/transactions$"
FIELD = "meta.methodology.small_n_threshold"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A service suppressing buckets below 3 deals (its discovery document says 3 too)."""
    with run(scale=0.05, seed=11, profile="threshold-3") as served:
        yield served


@pytest.fixture(scope="module")
def deals(direct: Any) -> Any:
    return direct.private.deals()


@pytest.fixture(scope="module")
def reference(direct: Any, deals: Any) -> Any:
    """The buckets with the service's own threshold, read undisturbed."""
    frame = analytics.bucket_medians(deals, "ev_revenue", "month", client=direct)
    assert frame.attrs["methodology"]["small_n_threshold"] == 3
    # the test means something only if 3 and 5 give other buckets
    assert ((frame["n"] >= 3) & (frame["n"] < 5)).any()
    return frame


def _methodology(change: Callable[[dict[str, Any], dict[str, Any]], None]) -> Any:
    """Rewrite the aggregate answer: ``change(meta, methodology)``."""

    def apply(doc: Any) -> Any:
        change(doc["meta"], doc["meta"]["methodology"])
        return doc

    return edit(apply, "methodology")


def _absent(meta: dict[str, Any], methodology: dict[str, Any]) -> None:
    methodology.pop("small_n_threshold")


def _null(meta: dict[str, Any], methodology: dict[str, Any]) -> None:
    methodology["small_n_threshold"] = None


def _moved(meta: dict[str, Any], methodology: dict[str, Any]) -> None:
    meta["small_n_threshold"] = methodology.pop("small_n_threshold")


def _listed(value: Any) -> Any:
    """Rewrite the transactions discovery document's aggregate threshold (None: remove it)."""

    def apply(doc: Any) -> Any:
        methodology = doc["data"]["aggregate"]["methodology"]
        if value is None:
            methodology.pop("small_n_threshold")
        else:
            methodology["small_n_threshold"] = value
        return doc

    return edit(apply, f"listed({value!r})")


def _medians(client: Any, deals: Any) -> Any:
    return outcome(lambda: analytics.bucket_medians(deals, "ev_revenue", "month", client=client))


@pytest.mark.parametrize("change", [_absent, _null], ids=["absent", "null"])
def test_a_threshold_the_answer_lacks_is_read_from_the_discovery_document(
    change, fresh, proxy, deals, reference
):
    proxy.add(AGGREGATE, _methodology(change))
    o = _medians(fresh, deals)
    assert o.error is None, repr(o.error)
    assert_same(o.value, reference)
    assert o.value.attrs["methodology"]["small_n_threshold"] == 3
    said = [m for m in o.warned(ServiceContractWarning) if "small_n_threshold 3 used" in m]
    assert len(said) == 1, o.warned(ServiceContractWarning)
    assert "missing_field" in said[0] and FIELD in said[0]
    assert "discovery document" in said[0]


def test_a_threshold_moved_in_the_answer_is_read_where_it_is(fresh, proxy, deals, reference):
    """``meta.small_n_threshold`` (3) is the runtime answer: it wins over a discovery
    document that says otherwise (7 here)."""
    proxy.add(AGGREGATE, _methodology(_moved))
    proxy.add(LOOKUP, _listed(7))
    o = _medians(fresh, deals)
    assert o.error is None, repr(o.error)
    assert_same(o.value, reference)
    said = [m for m in o.warned(ServiceContractWarning) if "small_n_threshold 3 used" in m]
    assert len(said) == 1 and "meta.small_n_threshold" in said[0], o.warned(Warning)


def test_a_threshold_given_nowhere_is_5_and_said(fresh, direct, proxy, deals):
    proxy.add(AGGREGATE, _methodology(_absent))
    proxy.add(LOOKUP, _listed(None))
    o = _medians(fresh, deals)
    assert o.error is None, repr(o.error)
    assert o.value.attrs["methodology"]["small_n_threshold"] == 5
    want = analytics.bucket_medians(
        deals, "ev_revenue", "month", client=direct, small_n_threshold=5
    )
    assert_same(o.value, want)
    said = [m for m in o.warned(ServiceContractWarning) if "small_n_threshold 5 used" in m]
    assert len(said) == 1, o.warned(ServiceContractWarning)
    assert FIELD in said[0] and "missing_field" in said[0] and "gives none either" in said[0]


@pytest.mark.parametrize(
    ("change", "listed", "used"),
    [
        (_absent, 7, "small_n_threshold 7 used, from the transactions discovery document"),
        (_null, 7, "small_n_threshold 7 used, from the transactions discovery document"),
        (_moved, 7, "small_n_threshold 3 used, from the answer's meta.small_n_threshold"),
        (_absent, None, "small_n_threshold 5 used, the interface document's value"),
    ],
    ids=["absent", "null", "moved", "nowhere"],
)
@pytest.mark.parametrize("call", ["bucket_medians", "service_methodology"])
def test_a_missing_threshold_is_said_in_exactly_one_warning(
    change, listed, used, call, fresh, proxy, deals
):
    """One cause, one warning: the aggregate call's own ``missing_field`` is left to the
    analytics, whose warning names the field, where the value came from and the value used."""
    proxy.add(AGGREGATE, _methodology(change))
    proxy.add(LOOKUP, _listed(listed))
    if call == "bucket_medians":
        o = _medians(fresh, deals)
    else:
        o = outcome(lambda: analytics.buckets.service_methodology(fresh))
    assert o.error is None, repr(o.error)
    said = o.warned(Warning)
    assert len(said) == 1, said
    assert FIELD in said[0] and "missing_field" in said[0] and used in said[0], said


def test_a_threshold_of_the_callers_own_is_not_said(fresh, proxy, deals):
    """With ``small_n_threshold=`` given, the answer's is not needed: nothing about it is
    said beyond the aggregate's own finding."""
    proxy.add(AGGREGATE, _methodology(_absent))
    o = outcome(
        lambda: analytics.bucket_medians(
            deals, "ev_revenue", "month", client=fresh, small_n_threshold=4
        )
    )
    assert o.error is None, repr(o.error)
    assert not [m for m in o.warned(ServiceContractWarning) if " used" in m]
    said = o.warned(Warning)  # the aggregate's own finding, once
    assert len(said) == 1 and f"{FIELD} is absent" in said[0], said


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_absent, f"{FIELD} is absent"),
        (_null, f"{FIELD} is null"),
        (_moved, f"{FIELD} is absent (meta.small_n_threshold is 3)"),
    ],
    ids=["absent", "null", "moved"],
)
def test_the_aggregate_records_a_missing_threshold(change, words, fresh, proxy):
    proxy.add(AGGREGATE, _methodology(change))
    o = outcome(lambda: fresh.private.aggregate("ev_revenue", "quarter"))
    assert o.error is None, repr(o.error)
    found = [f for f in o.value.attrs["findings"] if f["kind"] == "missing_field"]
    assert len(found) == 1 and found[0]["message"].startswith(words), found
    assert any(words in m for m in o.warned(ServiceContractWarning))
    with pytest.raises(ServiceContractError) as caught:
        fresh.private.aggregate("ev_revenue", "quarter", strict=True)
    assert words in str(caught.value)


def test_an_answer_with_its_threshold_says_nothing(fresh, proxy, reference, deals):
    o = _medians(fresh, deals)
    assert o.error is None and not o.warned(Warning), o.warned(Warning)
    assert_same(o.value, reference)
