"""A service taking fewer Family A SKUs per request than the document's 100: the cap a client
learns on one version's calls applies to the other's (it used to be relearned with a refused
request per version), and ``dealframe doctor`` asks for it and says what the client does."""

from __future__ import annotations

import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    fresh,
    fresh_rules,
    proxy,
    refuse,
    via,
)

from dealframe import doctor
from dealframe.doctor import ADAPTED, BREAKS, HOLDS, Check
from dealframe.public.api import PublicApi

CURRENT = "^/api/v[12]/companies/current$"
CAP = 30


def _refusal(message: str) -> Any:
    return lambda sent: {"error": {"code": "BAD_REQUEST", "message": message.format(sent)}}


def _capped(proxy: Any, message: str = "skus: at most 30 SKUs per request, got {}") -> None:
    proxy.add(CURRENT, refuse(400, _refusal(message), CAP, "skus"), method="POST")


@pytest.fixture(scope="module")
def skus(direct: Any) -> dict[str, list[str]]:
    """Up to 100 SKUs of each version."""
    found = {v: direct.public_api(v).search().index.tolist()[:100] for v in ("v1", "v2")}
    assert min(len(s) for s in found.values()) > CAP
    return found


@pytest.mark.parametrize("first", ["v1", "v2"])
def test_a_cap_learned_by_one_version_applies_to_the_other(first, fresh, proxy, skus, direct):
    """After ``first``'s call found the cap, the other version's call sends requests of 30
    at once: no refused request, nothing said in its ``attrs``."""
    other = "v2" if first == "v1" else "v1"
    _capped(proxy)
    learnt = fresh.public_api(first).current(skus[first])
    assert learnt.attrs["skus_per_request_refused"].endswith(f"requests of {CAP} SKUs")
    before = proxy.count(CURRENT)
    got = fresh.public_api(other).current(skus[other])
    assert_same(got, direct.public_api(other).current(skus[other]))
    assert proxy.count(CURRENT) - before == -(-len(skus[other]) // CAP)  # none refused
    assert "skus_per_request_refused" not in got.attrs


def _check(client: Any) -> Check:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diagnosis = doctor(client)
    return next(c for c in diagnosis.checks if c.name == "A.skus_per_request")


def test_the_doctor_sees_100_skus_taken(via, skus):
    check = _check(via)
    assert check.verdict == HOLDS, check.observed
    assert check.observed.startswith("100 SKUs in one request answered with 100 items")


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("skus: at most 30 SKUs per request, got {}", "30 SKUs per request (the bound stated)"),
        ("too many SKUs in one request", "50 SKUs per request (half: no bound stated"),
    ],
    ids=["stated", "unstated"],
)
def test_the_doctor_says_what_the_client_does_with_a_cap(message, said, fresh, proxy):
    """What it asks (100 SKUs), what it saw (the refusal, in the service's words) and what
    the client will do (the size it sends, shared by both versions)."""
    _capped(proxy, message)
    check = _check(fresh)
    assert check.verdict == ADAPTED, check.observed
    assert check.observed.startswith("100 SKUs in one request refused (400: ")
    assert message.format(100) in check.observed
    assert f"the client sends {said}" in check.observed and "v1 and v2" in check.observed


def test_the_doctor_says_a_refusal_it_cannot_read_breaks(fresh, proxy):
    """A refusal that names one SKU's position is not about how many: the client would raise
    it, and the doctor says what it saw."""
    _capped(proxy, "skus[42]: not served")
    check = _check(fresh)
    assert check.verdict == BREAKS
    assert "skus[42]: not served" in check.observed
    assert "not read as a refusal of that many SKUs" in check.observed


class _Interleaved(dict):
    """``skus_per_request`` whose first write lets ``other()`` run on another thread first
    (up to 3 s): the moment between a call's read of the cap and its write of the smaller."""

    def __init__(self, other: Any) -> None:
        super().__init__()
        self.other, self.thread = other, None

    def __setitem__(self, key: str, value: int) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self.other)
            self.thread.start()
            self.thread.join(3.0)  # it waits for the lock (the fix): the 3 s run out
        super().__setitem__(key, value)


def test_two_calls_learning_a_cap_at_once_keep_the_smaller(fresh, proxy, skus, direct):
    """The cap was read, then written: a call learning 30 read no cap, another learned 10
    and wrote it, then the first wrote 30 over it, and every later call was refused again."""
    proxy.add("^/api/v2/companies/current$", refuse(400, _refusal("skus: at most 30"), 30, "skus"))
    proxy.add("^/api/v1/companies/current$", refuse(400, _refusal("skus: at most 10"), 10, "skus"))
    results: dict[str, Any] = {}
    transport = fresh._transport
    transport.skus_per_request = caps = _Interleaved(
        lambda: results.setdefault("v1", PublicApi(transport, "v1").current(skus["v1"]))
    )
    results["v2"] = PublicApi(transport, "v2").current(skus["v2"])
    caps.thread.join(30)
    assert results["v1"].attrs["skus_per_request_refused"].endswith("requests of 10 SKUs")
    assert results["v2"].attrs["skus_per_request_refused"].endswith("requests of 30 SKUs")
    assert dict(caps) == {"/companies/current": 10}
