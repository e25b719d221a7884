"""``dealframe doctor`` judges what the client meets, through the drift proxy, on the manual
clock (no test sleeps): a time series served with ``data: null`` is adapted, as the client
warns of it, the months read of the next SKU (none with data: not checked); an outage of
502/503/504 that ends runs its checks once more, as one of 500s does, a deliberately odd
probe's too; a route that keeps answering 500 while the family's other requests are
answered is a break of that route (exit 1), named with its path and status, one that
answered 503 before is not."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ListedClock, clock  # noqa: F401 - clock: a fixture
from _doctor import answer, by_name, cli, run_doctor  # noqa: F401 - cli: a fixture
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    Proxy,
    edit,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
)

import dealframe
from dealframe.cli import main
from dealframe.doctor import ADAPTED, BREAKS, HOLDS, NOT_CHECKED
from dealframe.notices import MissingDataWarning, ServiceContractWarning

P = "/api/private/v1"
SERIES = r"^/api/v2/companies/time-series$"
CURRENT = r"^/api/v2/companies/current$"
SEARCH = r"^/api/v2/companies$"
ONE_COMPANY = rf"^{P}/companies/[0-9a-f-]{{36}}$"
_NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"


def _first(n: int) -> Any:
    """A rule's ``when``: the first ``n`` requests on its path."""
    seen = itertools.count(1)
    return lambda ex: next(seen) <= n


def _known(ex: Exchange) -> bool:
    """A listed company's profile, not the unknown id's."""
    return not ex.path.endswith(_NO_SUCH_ID)


# -- 1. a time series served with data null is judged as the client reads it ------------------


def _no_data(absent: bool, only: Sequence[str] | None = None) -> Action:
    """Every time-series item's ``data`` null (``absent``: no ``data`` member), or those of
    the SKUs ``only``."""

    def change(item: dict[str, Any]) -> None:
        if only is not None and item.get("sku") not in only:
            return
        if absent:
            item.pop("data", None)
        else:
            item["data"] = None

    return items_edit(change, "no_data")


@pytest.mark.parametrize(
    ("absent", "nulls"), [(False, 1), (True, 1), (False, 2)], ids=["null", "absent", "two-null"]
)
def test_a_time_series_item_without_data_is_adapted_in_the_client_s_words(
    sandbox: Any, proxy: Proxy, absent: bool, nulls: int
) -> None:
    """The items of the first SKU listed (or the first two) hold ``data: null`` (or none),
    the others' data: the client returns no rows for it and warns (the SKU counts as not
    returned); the doctor says so, adapted, quoting the client's warning, never a break,
    and reads the months of the next SKU (the old code read no month at all, and said
    nothing of it)."""
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        found = client.public.search()
        listed = found["sku"] if "sku" in found.columns else found.index
        sku, *more = [str(s) for s in listed[:nulls]]
        proxy.add(SERIES, _no_data(absent, only=[sku, *more]))
        got = outcome(lambda: client.public.time_series([sku]))
        assert got.error is None, got.error
        assert got.value.empty and got.value.attrs["missing_skus"] == [sku]
        words = got.warned(ServiceContractWarning)
        assert [w for w in words if "data is null or absent in 1 of 1 items" in w], words
        assert got.warned(MissingDataWarning)
        ran = outcome(lambda: dealframe.doctor(client, family="A"))
    check = by_name(ran.value)["A.time_series"]
    assert check.verdict == ADAPTED, check
    said = [w.split(": ", 1)[1] for w in words]  # the warnings without their endpoint
    if nulls == 1:
        assert check.observed.startswith(
            "the SKU asked first came with data null or absent: the client returns no rows "
            f"for it (attrs['missing_skus']) and warns: {'; '.join(said)}; the next, "
        ), (check, said)
    else:
        assert check.observed.startswith(
            "the first 2 SKUs asked came with data null or absent: the client returns no rows "
            f"for them (attrs['missing_skus']) and warns: {'; '.join(said)}; "
        ), (check, said)
        assert check.observed.count("data is null or absent in 1 of 1 items") == 2, check
    assert "; the next, " in check.observed, check
    assert "monthly values keyed YYYY-MM" in check.observed, check  # the next SKU's months
    assert proxy.count(SERIES) == 2 + nulls  # the client's one, the doctor's one per SKU
    assert ran.value.ok and ran.value.complete, ran.value.verdict()
    assert ran.warned(ServiceContractWarning) == []  # the doctor itself warns of none of it


@pytest.mark.parametrize("absent", [False, True], ids=["null", "absent"])
def test_a_time_series_without_data_for_any_sku_asked_leaves_its_months_not_checked(
    sandbox: Any,
    proxy: Proxy,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    absent: bool,
) -> None:
    """Every time-series item served without data: the doctor asks the three SKUs it saw,
    one by one, and reads no month of any: how months are keyed is not checked, said with
    what the client does and warns of, and the run did not check everything (the old code
    said it adapted: complete, exit 0)."""
    proxy.add(SERIES, _no_data(absent))
    found = run_doctor(sandbox, proxy, family="A")
    check = by_name(found)["A.time_series"]
    assert check.verdict == NOT_CHECKED, check
    assert check.observed.startswith(
        "each of the 3 SKUs asked (one by one) came with data null or absent: the client "
        "returns no rows for them (attrs['missing_skus']), so no month was seen and how "
        "months are keyed is not checked; the client warns: "
    ), check
    assert check.observed.count("data is null or absent in 1 of 1 items") == 3, check
    assert proxy.count(SERIES) == 3
    assert [c.name for c in found.not_checked] == ["A.time_series"]
    assert found.ok and not found.complete and not found.to_dict()["complete"]
    proxy.reset()
    proxy.add(SERIES, _no_data(absent))
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 2


def _no_months(how: str, only: Sequence[str] | None = None) -> Action:
    """Every time-series item's ``data`` (those of the SKUs ``only``, when given) holding no
    month: ``{}`` (``"empty"``), every field ``{}`` (``"fields"``) or null (``"nulls"``)."""

    def change(item: dict[str, Any]) -> None:
        if only is not None and item.get("sku") not in only:
            return
        data = item.get("data")
        if how == "empty" or not isinstance(data, dict):
            item["data"] = {}
        else:
            item["data"] = {name: {} if how == "fields" else None for name in data}

    return items_edit(change, "no_months")


def _one_company(doc: Any) -> Any:
    """A search page cut to its first company, its count saying so."""
    if isinstance(doc, dict) and isinstance(doc.get("data"), list):
        doc["data"] = doc["data"][:1]
        if isinstance(doc.get("meta"), dict) and "count" in doc["meta"]:
            doc["meta"]["count"] = 1
    return doc


def test_a_time_series_with_no_month_for_the_one_sku_asked_says_so_in_plain_words(
    sandbox: Any, proxy: Proxy
) -> None:
    """The search finds one company, its time series served with ``data: {}``: the row
    says the SKU asked came with no monthly values (the old code said "not the SKU asked
    came with monthly values")."""
    proxy.add(SEARCH, edit(_one_company, "one_company"))
    proxy.add(SERIES, _no_months("empty"))
    check = by_name(run_doctor(sandbox, proxy, family="A"))["A.time_series"]
    assert check.verdict == NOT_CHECKED, check
    assert check.observed.startswith(
        "the SKU asked came with no monthly values (data null, absent, or with no month), so "
        "no month was seen and how months are keyed is not checked: "
    ), check
    assert proxy.count(SERIES) == 1


@pytest.mark.parametrize("how", ["empty", "fields", "nulls"])
def test_a_time_series_with_no_month_for_any_sku_asked_leaves_its_months_not_checked(
    sandbox: Any, proxy: Proxy, cli: None, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """Every time-series item served with ``data: {}``, or every field ``{}`` or null: no
    month of any SKU asked (the three it saw, one by one): how months are keyed is not
    checked, said so, and the run did not check everything (the old code said "0 fields" or
    "10 fields (...), 0 monthly values keyed YYYY-MM", holds, complete, exit 0)."""
    proxy.add(SERIES, _no_months(how))
    found = run_doctor(sandbox, proxy, family="A")
    check = by_name(found)["A.time_series"]
    assert check.verdict == NOT_CHECKED, check
    assert check.observed.startswith(
        "none of the 3 SKUs asked (one by one) came with monthly values (data null, absent, "
        "or with no month), so no month was seen and how months are keyed is not checked: "
    ), check
    assert "monthly values keyed" not in check.observed, check
    assert proxy.count(SERIES) == 3
    assert found.ok and not found.complete
    proxy.reset()
    proxy.add(SERIES, _no_months(how))
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 2


def test_a_time_series_with_months_after_two_null_and_one_without_is_read_from_none(
    sandbox: Any, proxy: Proxy
) -> None:
    """The first two SKUs listed served with data null, the third with every field ``{}``:
    no SKU asked came with a month, so the months are not checked (the old code said it
    adapted, "the next, X: 10 fields (...), 0 monthly values": contradictory)."""
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        found = client.public.search()
    listed = [str(s) for s in (found["sku"] if "sku" in found.columns else found.index)[:3]]
    proxy.add(SERIES, _no_data(False, only=listed[:2]))
    proxy.add(SERIES, _no_months("fields", only=listed[2:]))
    ran = run_doctor(sandbox, proxy, family="A")
    check = by_name(ran)["A.time_series"]
    assert check.verdict == NOT_CHECKED, check
    assert "0 monthly values" not in check.observed, check
    assert f"{listed[2]}: " in check.observed and "fields, no month" in check.observed, check
    assert ran.ok and not ran.complete


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
    proxy.add(ONE_COMPANY, answer(status, headers=headers), when=lambda ex: _known(ex), times=2)
    found = run_doctor(sandbox, proxy, family="B")
    profile = by_name(found)["B.profile"]
    assert profile.verdict == HOLDS, profile
    assert found.ok and found.complete, found.verdict()
    assert proxy.count(ONE_COMPANY) == 4  # twice unavailable, once more, the unknown id
    assert clock.made == waits  # the wait the outage asked, once
    proxy.reset()
    proxy.add(ONE_COMPANY, answer(status, headers=headers), when=lambda ex: _known(ex), times=2)
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 0


def test_checks_needing_what_an_unavailable_search_saw_run_once_it_answers(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """A.search answers 503 twice (after A.auth's two), then the family answers (the v1
    search): A.search runs once more, and so do the checks needing the SKUs it sees."""
    seen = itertools.count(1)
    proxy.add(SEARCH, answer(503), when=lambda ex: next(seen) in (3, 4))
    found = run_doctor(sandbox, proxy, family="A")
    checks = by_name(found)
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

    proxy.add(rf"^{P}/", answer(503), when=outage, times=4)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.profile"].verdict == HOLDS, checks["B.profile"]
    assert checks["B.not_found"].verdict == HOLDS, checks["B.not_found"]
    assert found.complete and found.ok, found.verdict()
    assert clock.made == [0.5, 0.5]


def test_a_second_unavailable_outage_leaves_the_check_not_checked_asked_twice_only(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The profile is always unavailable, the rest answers: it is asked once more once the
    family answers (a second outage: not checked, said unavailable), never a third time."""
    proxy.add(ONE_COMPANY, answer(503), when=lambda ex: _known(ex))
    found = run_doctor(sandbox, proxy, family="B")
    profile = by_name(found)["B.profile"]
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
    run_doctor(sandbox, proxy, family="B")
    before = next(i for i, path in enumerate(paths) if re.search(ONE_COMPANY, path))
    proxy.reset()
    proxy.add(ONE_COMPANY, answer(503), when=lambda ex: _known(ex), times=2)
    budget = before + 3  # the profile twice, then the unknown id
    found = run_doctor(sandbox, proxy, family="B", max_requests=budget)
    profile = by_name(found)["B.profile"]
    assert profile.verdict == NOT_CHECKED, profile
    assert profile.observed == (
        "the service answered again, but the request budget ran out before this check ran again"
    )
    assert by_name(found)["B.not_found"].verdict == HOLDS
    assert found.budget_reached and found.requests == budget


def test_an_unavailable_check_s_wait_once_more_is_within_the_wait_budget(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The profile answers 503 asking 200 s twice, then 503 asking 200 s again once the
    family answers (``retry_after_max=250`` from Python): the first wait is made, the one
    more it asks would pass the 300 s the doctor waits in all: not made, so it is not
    checked, said so."""
    wait = {"Retry-After": "200"}
    proxy.add(ONE_COMPANY, answer(503, headers=wait), when=lambda ex: _known(ex), times=3)
    found = run_doctor(sandbox, proxy, family="B", retry_after_max=250)
    profile = by_name(found)["B.profile"]
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
    proxy.add(CURRENT, answer(500), when=lambda ex: bool((ex.body or {}).get("skus")))
    found = run_doctor(sandbox, proxy, family="A")
    checks = by_name(found)
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
    proxy.add(CURRENT, answer(500), when=lambda ex: bool((ex.body or {}).get("skus")))
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 1


# -- 4. a 5xx to a deliberately odd probe is judged as any other -------------------------------


@pytest.mark.parametrize("status", [502, 503, 504])
def test_an_unavailable_outage_from_an_odd_probe_runs_its_checks_once_more(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    status: int,
) -> None:
    """Four Family B requests answer ``status`` from the unknown id on (B.not_found's probe
    and its try, then B.sub_collection's and its try), then the service answers (B.errors):
    a 502/503/504 says the service is unavailable, even to a deliberately odd probe, never
    that it answers that request so: both checks are asked once more and hold (the old code
    broke B.not_found, "an unknown id answered 503, not 404", exit 1)."""
    begun = [False]

    def outage(ex: Exchange) -> bool:
        begun[0] = begun[0] or ex.path.endswith(_NO_SUCH_ID)
        return begun[0]

    proxy.add(rf"^{P}/", answer(status), when=outage, times=4)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    for name in ("B.not_found", "B.sub_collection"):
        assert checks[name].verdict == HOLDS, checks[name]
    assert found.ok and found.complete, found.verdict()
    assert clock.made == [0.5, 0.5]
    begun[0] = False
    proxy.reset()
    proxy.add(rf"^{P}/", answer(status), when=outage, times=4)
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 0


@pytest.mark.parametrize(
    ("status", "headers"),
    [(503, {"Retry-After": "1"}), (502, None), (504, None)],
    ids=["503", "502", "504"],
)
def test_a_gateway_5xx_that_persists_on_an_odd_probe_is_not_checked(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    status: int,
    headers: dict[str, str] | None,
) -> None:
    """A.errors' probe (an empty SKU list, Family A's last) answers ``status`` twice (a blip):
    the service was unavailable, so the check is not checked, never a break (the old code
    broke it, "an empty skus list answered 503, not 400", exit 1); no later probe of the
    family answers to run it once more: exit 2."""
    empty = lambda ex: ex.body == {"skus": []}  # noqa: E731
    proxy.add(CURRENT, answer(status, headers=headers), when=empty, times=2)
    found = run_doctor(sandbox, proxy, family="A")
    errors = by_name(found)["A.errors"]
    assert errors.verdict == NOT_CHECKED, errors
    assert errors.observed.startswith("unavailable")
    assert errors.observed.endswith(f"({status}, again after the wait)"), errors
    assert found.ok and not found.complete
    proxy.reset()
    proxy.add(CURRENT, answer(status, headers=headers), when=empty, times=2)
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 2


def test_a_route_unavailable_before_is_no_break_of_it_when_it_answers_500(
    sandbox: Any, proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Current data of SKUs answers 503 to its first four requests (A.current and
    A.skus_per_request, each with its try), then 500: once the family answers
    (A.time_series) both are asked once more and get 500 twice in a row. A 503 says the
    service was unavailable, not that the route fails: this is a second outage, not a
    break of that route "as before" (the old code broke both so, exit 1): not checked."""

    def rule() -> None:
        asked = itertools.count(1)
        seen: list[int] = []

        def first(ex: Exchange) -> bool:
            if not (ex.body or {}).get("skus"):
                return False
            seen.append(next(asked))
            return seen[-1] <= 4

        proxy.add(CURRENT, answer(503), when=first)
        later = lambda ex: bool((ex.body or {}).get("skus")) and seen[-1] > 4  # noqa: E731
        proxy.add(CURRENT, answer(500), when=later)

    rule()
    found = run_doctor(sandbox, proxy, family="A")
    checks = by_name(found)
    for name in ("A.current", "A.skus_per_request"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
    assert checks["A.current"].observed == (
        "not known (500, again after the wait; the next probe failed too)"
    )
    assert not [c for c in found.checks if "as before" in c.observed], found.table()
    assert found.ok and not found.complete
    proxy.reset()
    rule()
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 2


def test_a_time_series_item_with_no_month_is_passed_over_for_the_next_sku(
    sandbox: Any, proxy: Proxy
) -> None:
    """The first SKU listed served with ``data: {}``: the doctor asks the next one and judges
    its months, adapted, saying the first had none (the old code held on "0 fields")."""
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as client:
        found = client.public.search()
    first = str((found["sku"] if "sku" in found.columns else found.index)[0])
    proxy.add(SERIES, _no_months("empty", only=[first]))
    ran = run_doctor(sandbox, proxy, family="A")
    check = by_name(ran)["A.time_series"]
    assert check.verdict == ADAPTED, check
    assert check.observed.startswith(
        "the SKU asked first came with no monthly value (data null, absent, or with no "
        f"month): {first}: data {{}}; the next, "
    ), check
    assert "monthly values keyed YYYY-MM" in check.observed and "0 monthly" not in check.observed
    assert ran.ok and ran.complete


# -- 6. a lone 500 to the first of two probes of one check is no break on its own -------------


@pytest.mark.parametrize(("family", "prefix"), [("A", "^/api/v"), ("B", "^/api/private/")])
def test_a_lone_500_to_the_no_header_probe_asks_the_route_once_more(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    family: str,
    prefix: str,
) -> None:
    """The family answers 500 to its first two requests only (the auth check's no-header
    probe and its one more try), then its wrong-key probe is answered: a 500 is never a
    break on its own, so the auth check is run once more after the family answered, and
    holds on the 401 it then gets, exit 0 (the old code broke it on the lone 500, exit 1,
    its route never asked again)."""
    proxy.add(prefix, answer(500), when=_first(2))
    found = run_doctor(sandbox, proxy, family=family)
    check = by_name(found)[f"{family}.auth"]
    assert check.verdict == HOLDS, check
    assert check.observed.startswith("no header: 401"), check
    assert found.ok, [c for c in found.checks if c.verdict == BREAKS]
    proxy.reset()
    proxy.add(prefix, answer(500), when=_first(2))
    capsys.readouterr()
    assert main(["doctor", "--family", family]) == 0
    out = capsys.readouterr().out
    assert f"{family}.auth" in out and "no header: 500" not in out


def test_a_lone_500_to_the_no_header_probe_is_not_known_when_the_run_ends_first(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """As above, with the request budget ending with the auth check's probes: its route is
    not asked once more (the budget ran out first), so the auth check is not checked,
    never a break."""
    proxy.add("^/api/private/", answer(500), when=_first(2))
    found = run_doctor(sandbox, proxy, family="B", max_requests=3)
    check = by_name(found)["B.auth"]
    assert check.verdict == NOT_CHECKED, check
    assert "budget ran out" in check.observed, check
    assert not [c for c in found.checks if c.verdict == BREAKS]


def test_a_lone_500_to_the_no_header_probe_again_when_asked_once_more_breaks_naming_it(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """As above, the no-header probe answering 500 again (and its one more try) when the
    auth check is run once more, its wrong-key probe answered: that route's break,
    confirmed, said with its method, path and status."""
    seen = itertools.count(1)
    proxy.add("^/api/private/", answer(500), when=lambda ex: next(seen) in (1, 2, 4, 5))
    found = run_doctor(sandbox, proxy, family="B")
    check = by_name(found)["B.auth"]
    assert check.verdict == BREAKS, check
    assert check.observed.startswith("no header: 500"), check
    assert "answered 500 again, as before" in check.observed, check
    assert not found.ok


def test_a_500_after_a_500_says_why_it_is_not_known(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """Both auth probes of Family B answer 500 (each again after the wait), and the run
    ends there: the row says why it is not known, the probe before failing too, as the
    docs quote it (the old code said only "not known (500, again after the wait)")."""
    proxy.add("^/api/private/", answer(500), when=_first(4))
    check = by_name(run_doctor(sandbox, proxy, family="B", max_requests=4))["B.auth"]
    assert check.verdict == NOT_CHECKED, check
    assert check.observed == (
        "not known (500, again after the wait; the probe before failed too)"
    ), check
