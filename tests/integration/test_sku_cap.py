"""A service taking fewer Family A SKUs per request than the document's 100: the cap a client
learns on one version's calls applies to the other's (it used to be relearned with a refused
request per version), and ``dealframe doctor`` asks for it and says what the client does."""

from __future__ import annotations

import sys
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


class _Raced(dict):
    """``skus_per_request`` as a call racing another sees it: the call reads no cap when it
    starts, then another call writes ``other`` before this one writes what it learned. Each
    write records whether the writer held ``lock``."""

    def __init__(self, lock: Any, other: int) -> None:
        super().__init__()
        self.lock, self.other, self.held = lock, other, []

    def get(self, key: str, default: Any = None) -> Any:
        if not self.held and key not in self:  # the call's first read: none yet
            super().__setitem__(key, self.other)  # the other call writes right after it
            return default
        return super().get(key, default)

    def __setitem__(self, key: str, value: int) -> None:
        self.held.append(self.lock.locked())
        super().__setitem__(key, value)


def test_a_learned_cap_is_written_under_the_lock_and_the_smaller_kept(fresh, proxy, skus):
    """The cap was read, then written, with no lock: a call learning 30 could write it over
    the 10 another call had just learned, and every later call was refused again. The size is
    read and written under ``skus_lock``, so the smaller stays."""
    proxy.add("^/api/v2/companies/current$", refuse(400, _refusal("skus: at most 30"), 30, "skus"))
    transport = fresh._transport
    transport.skus_per_request = caps = _Raced(transport.skus_lock, other=10)
    got = PublicApi(transport, "v2").current(skus["v2"])
    assert got.attrs["skus_per_request_refused"].endswith("requests of 30 SKUs")
    assert caps.held == [True]
    assert dict(caps) == {"/companies/current": 10}
