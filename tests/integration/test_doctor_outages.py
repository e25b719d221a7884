"""``dealframe doctor`` judges what the client meets, through the drift proxy, on the manual
clock (no test sleeps): a time series served with ``data: null`` is adapted, as the client
warns of it; an outage of 502/503/504 that ends runs its checks once more, as one of 500s
does; a route that keeps answering 500 while the family's other requests are answered is a
break of that route (exit 1), named with its path and status."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ListedClock, clock  # noqa: F401 - clock: a fixture
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    Proxy,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
)

import dealframe
from dealframe.cli import main
from dealframe.doctor import ADAPTED, BREAKS, HOLDS, NOT_CHECKED, Check, Diagnosis
from dealframe.notices import MissingDataWarning, ServiceContractWarning

P = "/api/private/v1"
SERIES = r"^/api/v2/companies/time-series$"
CURRENT = r"^/api/v2/companies/current$"
SEARCH = r"^/api/v2/companies$"
ONE_COMPANY = rf"^{P}/companies/[0-9a-f-]{{36}}$"
_NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"


def _answer(status: int, headers: dict[str, str] | None = None) -> Action:
    """Answer without forwarding: ``status``, an error body, ``headers``."""

    def apply(ex: Exchange) -> None:
        ex.forward, ex.status, ex._doc = False, status, None
        ex.headers = {"Content-Type": "application/json", **(headers or {})}
        ex.content = orjson.dumps({"error": {"code": "DOWN", "message": f"answered {status}"}})

    return Action(f"answer({status})", on_request=apply)


def _first(n: int) -> Any:
    """A rule's ``when``: the first ``n`` requests on its path."""
    seen = itertools.count(1)
    return lambda ex: next(seen) <= n


def _known(ex: Exchange) -> bool:
    """A listed company's profile, not the unknown id's."""
    return not ex.path.endswith(_NO_SUCH_ID)


def _doctor(
    sandbox: Any,
    proxy: Proxy,
    *,
    family: str | None = None,
    max_requests: int = 60,
    **settings: Any,
) -> Diagnosis:
    """The doctor through the proxy, by a client of its own."""
    with dealframe.Client(
        proxy.url,
        sandbox.public_token,
        sandbox.private_key,
        cache_enabled=False,
        progress=False,
        **settings,
    ) as client:
        return dealframe.doctor(client, family=family, max_requests=max_requests)


def _by_name(found: Diagnosis) -> dict[str, Check]:
    return {c.name: c for c in found.checks}


@pytest.fixture
def cli(sandbox: Any, proxy: Proxy, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``dealframe doctor`` through the proxy."""
    for key, value in (
        ("DEALFRAME_BASE_URL", proxy.url),
        ("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token),
        ("DEALFRAME_PRIVATE_KEY", sandbox.private_key),
    ):
        monkeypatch.setenv(key, value)
    yield


# -- 1. a time series served with data null is judged as the client reads it ------------------


def _no_data(absent: bool) -> Action:
    """Every time-series item's ``data`` null (``absent``: no ``data`` member)."""

    def change(item: dict[str, Any]) -> None:
        if absent:
            item.pop("data", None)
        else:
            item["data"] = None

    return items_edit(change, "no_data")


@pytest.mark.parametrize("absent", [False, True], ids=["null", "absent"])
def test_a_time_series_item_without_data_is_adapted_in_the_client_s_words(
    sandbox: Any, proxy: Proxy, absent: bool
) -> None:
    """The item of the SKU asked holds ``data: null`` (or none): the client returns no rows
    for it and warns (the SKU counts as not returned); the doctor says so, adapted, quoting
    the client's warning, never a break (the old code broke: "no item with a data
    object")."""
    proxy.add(SERIES, _no_data(absent))
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        found = client.public.search()
        sku = str(found["sku"].iloc[0] if "sku" in found.columns else found.index[0])
        got = outcome(lambda: client.public.time_series([sku]))
        assert got.error is None, got.error
        assert got.value.empty and got.value.attrs["missing_skus"] == [sku]
        words = got.warned(ServiceContractWarning)
        assert [w for w in words if "data is null or absent in 1 of 1 items" in w], words
        assert got.warned(MissingDataWarning)
        ran = outcome(lambda: dealframe.doctor(client, family="A"))
    check = _by_name(ran.value)["A.time_series"]
    assert check.verdict == ADAPTED, check
    assert check.observed.startswith("the SKU asked came with data null or absent: the client ")
    said = [w.split(": ", 1)[1] for w in words]  # the warnings without their endpoint
    assert check.observed.endswith(f"the client warns: {'; '.join(said)}"), (check, said)
    assert ran.value.ok and ran.value.complete, ran.value.verdict()
    assert ran.warned(ServiceContractWarning) == []  # the doctor itself warns of none of it


# -- 2. an outage of 502/503/504 that ends runs its checks once more ---------------------------


@pytest.mark.parametrize(
    ("status", "headers", "waits"),
    [
        (502, None, [0.5]),
        (503, {"Retry-After": "1"}, [1.0]),
        (503, None, [0.5]),
        (504, None, [0.5]),
    ],
    ids=["502", "503-retry-after", "503", "504"],
)
def test_an_unavailable_outage_that_ends_runs_its_check_once_more(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    status: int,
    headers: dict[str, str] | None,
    waits: list[float],
) -> None:
    """The profile answers ``status`` twice (the probe and its try after the wait), then the
    service answers (the unknown id): the profile is asked once more and holds; nothing is
    left not checked, exit 0 (the old code left it not checked, exit 2)."""
    proxy.add(ONE_COMPANY, _answer(status, headers), when=lambda ex: _known(ex), times=2)
    found = _doctor(sandbox, proxy, family="B")
    profile = _by_name(found)["B.profile"]
    assert profile.verdict == HOLDS, profile
    assert found.ok and found.complete, found.verdict()
    assert proxy.count(ONE_COMPANY) == 4  # twice unavailable, once more, the unknown id
    assert clock.made == waits  # the wait the outage asked, once
    proxy.reset()
    proxy.add(ONE_COMPANY, _answer(status, headers), when=lambda ex: _known(ex), times=2)
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 0


def test_checks_needing_what_an_unavailable_search_saw_run_once_it_answers(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """A.search answers 503 twice (after A.auth's two), then the family answers (the v1
    search): A.search runs once more, and so do the checks needing the SKUs it sees."""
    seen = itertools.count(1)
    proxy.add(SEARCH, _answer(503), when=lambda ex: next(seen) in (3, 4))
    found = _doctor(sandbox, proxy, family="A")
    checks = _by_name(found)
    for name in ("A.search", "A.current", "A.skus_per_request", "A.time_series"):
        assert checks[name].verdict == HOLDS, checks[name]
    assert found.complete and found.ok, found.verdict()


def test_an_unavailable_outage_over_several_checks_runs_each_once_more(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """Every Family B request answers 503 for four requests from the profile on (the profile
    and the unknown id, each with its try), then the service answers: both run once more
    and hold."""
    begun = [False]

    def outage(ex: Exchange) -> bool:
        begun[0] = begun[0] or bool(re.search(ONE_COMPANY, ex.path))
        return begun[0]

    proxy.add(rf"^{P}/", _answer(503), when=outage, times=4)
    found = _doctor(sandbox, proxy, family="B")
    checks = _by_name(found)
    assert checks["B.profile"].verdict == HOLDS, checks["B.profile"]
    assert checks["B.not_found"].verdict == HOLDS, checks["B.not_found"]
    assert found.complete and found.ok, found.verdict()
    assert clock.made == [0.5, 0.5]


def test_a_second_unavailable_outage_leaves_the_check_not_checked_asked_twice_only(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The profile is always unavailable, the rest answers: it is asked once more once the
    family answers (a second outage: not checked, said unavailable), never a third time."""
    proxy.add(ONE_COMPANY, _answer(503), when=lambda ex: _known(ex))
    found = _doctor(sandbox, proxy, family="B")
    profile = _by_name(found)["B.profile"]
    assert profile.verdict == NOT_CHECKED, profile
    assert profile.observed == "unavailable (503, again after the wait)"
    assert proxy.count(ONE_COMPANY) == 5  # twice, twice once more, and the unknown id
    assert [c.name for c in found.not_checked] == ["B.profile"]
    assert found.ok and not found.complete
    assert clock.made == [0.5, 0.5]


def test_an_unavailable_check_to_run_once_more_is_within_the_request_budget(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The same ended outage, the budget running out with the unknown id's answer: the
    profile is not asked once more, and says so (the budget ran out)."""
    paths: list[str] = []
    proxy.add(".", when=lambda ex: bool(paths.append(ex.path)))  # the order, nothing changed
    _doctor(sandbox, proxy, family="B")
    before = next(i for i, path in enumerate(paths) if re.search(ONE_COMPANY, path))
    proxy.reset()
    proxy.add(ONE_COMPANY, _answer(503), when=lambda ex: _known(ex), times=2)
    budget = before + 3  # the profile twice, then the unknown id
    found = _doctor(sandbox, proxy, family="B", max_requests=budget)
    profile = _by_name(found)["B.profile"]
    assert profile.verdict == NOT_CHECKED, profile
    assert profile.observed == (
        "the service answered again, but the request budget ran out before this check ran again"
    )
    assert _by_name(found)["B.not_found"].verdict == HOLDS
    assert found.budget_reached and found.requests == budget


def test_an_unavailable_check_s_wait_once_more_is_within_the_wait_budget(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The profile answers 503 asking 200 s twice, then 503 asking 200 s again once the
    family answers (``retry_after_max=250`` from Python): the first wait is made, the one
    more it asks would pass the 300 s the doctor waits in all: not made, so it is not
    checked, said so."""
    wait = {"Retry-After": "200"}
    proxy.add(ONE_COMPANY, _answer(503, wait), when=lambda ex: _known(ex), times=3)
    found = _doctor(sandbox, proxy, family="B", retry_after_max=250)
    profile = _by_name(found)["B.profile"]
    assert profile.verdict == NOT_CHECKED, profile
    assert profile.observed == (
        "unavailable: the service asked 200 s (503, not waited: 200 s more would pass the 300 s "
        "the doctor waits in all (200 s waited))"
    )
    assert clock.made == [200.0]
    assert proxy.count(ONE_COMPANY) == 4  # twice, once more (its wait not made), unknown id


# -- 3. a route that keeps answering 500 while the family answers breaks ------------------------


def test_a_family_a_route_that_keeps_answering_500_breaks_naming_it(
    sandbox: Any, proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every current-data request of SKUs answers 500 (A.current, then A.skus_per_request,
    on one route), while A.time_series and the other probes answer: asked once more, both
    get 500 again, two checks in a row on that route: a break of it, named with its path and
    status, exit 1 (the old code left both not checked, exit 2)."""
    proxy.add(CURRENT, _answer(500), when=lambda ex: bool((ex.body or {}).get("skus")))
    found = _doctor(sandbox, proxy, family="A")
    checks = _by_name(found)
    said = (
        "POST /api/v2/companies/current answered 500 again, as before, while the family's "
        "other requests were answered: a break of that route"
    )
    for name in ("A.current", "A.skus_per_request"):
        assert checks[name].verdict == BREAKS, checks[name]
        assert checks[name].observed.endswith(said), checks[name]
    assert "status 500" in checks["A.current"].observed
    assert checks["A.time_series"].verdict == HOLDS
    assert not found.ok and found.complete
    proxy.reset()
    proxy.add(CURRENT, _answer(500), when=lambda ex: bool((ex.body or {}).get("skus")))
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 1
