"""``dealframe doctor`` under rate limits, through the drift proxy: what one check was not let
see never hides another check's verdict; a 500 to a deliberately odd probe is judged; a
rate limit (a 429, or a 401/403 that says it is one) is waited out at the client's gate, on
its clock (a manual clock here: no test sleeps), said when long, capped by
``--retry-after-max``, and a family that stays limited is held back as the client would."""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import ListedClock, ManualClock, clock  # noqa: F401 - clock: a fixture
from _doctor import answer, by_name, cli, run_doctor  # noqa: F401 - cli: a fixture
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Exchange,
    Proxy,
    edit,
    fresh_rules,
    ignore_page,
    no_hang,
    proxy,
    zero_indexed,
)

import dealframe
from dealframe.cli import main
from dealframe.doctor import ADAPTED, BREAKS, HOLDS, NOT_CHECKED

P = "/api/private/v1"
CURRENT = r"^/api/v2/companies/current$"
SEARCH = r"^/api/v2/companies$"
COMPANIES = rf"^{P}/companies$"
ONE_COMPANY = rf"^{P}/companies/[0-9a-f-]{{36}}$"
UNKNOWN_ID = rf"^{P}/companies/00000000-0000-4000-8000-000000000000$"
LIMITED = {"error": {"code": "RATE_LIMITED", "message": "API rate limit exceeded"}}


def _nth(*which: int) -> Any:
    """A rule's ``when``: the requests of these numbers (from 1) among those on its path."""
    seen = itertools.count(1)
    return lambda ex: next(seen) in which


# -- 1. a verdict reached is kept, whatever else was not checked -----------------------------


def test_a_break_is_kept_when_an_unrelated_check_was_rate_limited(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    proxy.add(COMPANIES, ignore_page())
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "1"}), times=2)
    found = run_doctor(sandbox, proxy)
    checks = by_name(found)
    assert checks["A.current"].verdict == NOT_CHECKED
    page = checks["B.paging.page"]
    assert page.verdict == BREAKS, page
    assert "page 2 repeats page 1 on /companies" in page.observed
    assert not found.ok
    assert not [c for c in found.checks if "A.current would have seen" in c.observed]


def test_a_limit_break_is_blamed_on_no_rate_limited_check(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    bad = {"error": {"code": "BAD_REQUEST", "message": "nope"}}
    proxy.add(COMPANIES, answer(400, bad), when=lambda ex: ex.body.get("limit") == 1000)
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "1"}), times=2)
    checks = by_name(run_doctor(sandbox, proxy))
    assert checks["B.paging.limit"].verdict == BREAKS
    assert checks["B.list_items"].verdict == NOT_CHECKED
    assert checks["B.list_items"].observed == "needs what B.paging.limit would have seen (it broke)"
    assert not [c for c in checks.values() if "A.current would have seen" in c.observed]


# -- 2. a 500 that always answers an odd probe is judged, not "not checked" ------------------


def _page_zero(ex: Exchange) -> bool:
    return isinstance(ex.body, dict) and ex.body.get("page") == 0


@pytest.mark.parametrize(
    ("path", "when", "status", "check", "verdict", "said"),
    [
        (COMPANIES, _page_zero, 500, "B.paging.page", HOLDS, "page 0 is refused"),
        (ONE_COMPANY, None, 500, "B.not_found", BREAKS, "500"),
        (rf"^{P}/companies/resolve$", None, 500, "B.resolve.batch", BREAKS, "500"),
        # the last probe of Family A: no later answer of the family before the run ends,
        # so its route is never asked once more: not known (a 500 is no break on its own)
        (CURRENT, lambda ex: ex.body.get("skus") == [], 500, "A.errors", NOT_CHECKED, "not known"),
    ],
    ids=["page-0", "unknown-id", "resolve", "empty-skus"],
)
def test_a_5xx_an_odd_probe_always_gets_is_judged(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    path: str,
    when: Any,
    status: int,
    check: str,
    verdict: str,
    said: str,
) -> None:
    if path == ONE_COMPANY:  # the unknown id only: the profile of a listed one goes on
        when = lambda ex: ex.path.endswith("00000000-0000-4000-8000-000000000000")  # noqa: E731
    proxy.add(path, answer(status, {"error": {"code": "INTERNAL", "message": "boom"}}), when=when)
    found = run_doctor(sandbox, proxy)
    seen = by_name(found)[check]
    assert seen.verdict == verdict, seen
    assert said in seen.observed
    assert [c.name for c in found.not_checked] == ([check] if verdict == NOT_CHECKED else [])
    assert clock.made == [0.5] * len(clock.made) and clock.made  # sent once more, as the client


def test_an_odd_probe_s_5xx_is_not_checked_when_the_service_looks_unavailable(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    # the profile (an ordinary probe) and the unknown id both get 503s: the service is down
    proxy.add(ONE_COMPANY, answer(503, {"error": {"code": "UNAVAILABLE", "message": "down"}}))
    checks = by_name(run_doctor(sandbox, proxy))
    assert checks["B.profile"].verdict == NOT_CHECKED
    assert checks["B.not_found"].verdict == NOT_CHECKED
    assert checks["B.not_found"].observed.startswith("unavailable (503")


# -- 3. checks needing what a not-checked check would have seen are rows, not gone ------------


def test_checks_needing_an_unseen_search_are_said_not_checked_and_the_others_run(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    down = answer(503, {"error": {"code": "UNAVAILABLE", "message": "down"}})
    # A.auth sends two first; then A.search's two tries, and its two once the family answers
    # again (A.search.v1): the search stays unavailable, a second outage
    proxy.add(SEARCH, down, when=_nth(3, 4, 5, 6))
    found = run_doctor(sandbox, proxy)
    checks = by_name(found)
    assert checks["A.search"].verdict == NOT_CHECKED
    for name in ("A.current", "A.skus_per_request", "A.time_series"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == "needs what A.search would have seen"
    for name in ("A.search.v1", "A.groups.current", "A.groups.time_series", "A.errors"):
        assert checks[name].verdict == HOLDS, checks[name]
    assert len(found.not_checked) == 4


def test_checks_needing_an_unseen_company_list_are_said_not_checked(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    down = {"error": {"code": "UNAVAILABLE", "message": "down"}}
    # the list of 1,000 only, its two tries and its two once the family answers again (the
    # pages of B.paging.page): it stays unavailable, a second outage
    proxy.add(COMPANIES, answer(503, down), when=lambda ex: ex.body.get("limit") == 1000)
    checks = by_name(run_doctor(sandbox, proxy))
    assert checks["B.paging.limit"].verdict == NOT_CHECKED
    for name in ("B.list_items", "B.timestamps", "B.profile", "B.errors"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == "needs what B.paging.limit would have seen"
    assert checks["B.not_found"].verdict == HOLDS
    assert checks["B.paging.page"].verdict == HOLDS


# -- 4. long waits are said, capped, and a family that stays limited is held back -------------


def test_a_long_wait_is_said_before_it_starts(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "7"}), times=1)
    said: list[str] = []
    found = run_doctor(sandbox, proxy, said=said)
    assert by_name(found)["A.current"].verdict == HOLDS
    assert clock.made == [7.0]
    assert said == [
        "waiting 7 s: POST /api/v2/companies/current answered 429 (rate limited, the wait "
        "it asked), then sending it once more"
    ]


def test_a_short_wait_is_not_said(sandbox: Any, proxy: Proxy, clock: ListedClock) -> None:
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "1"}), times=1)
    said: list[str] = []
    run_doctor(sandbox, proxy, said=said)
    assert clock.made == [1.0] and said == []


def test_a_family_still_limited_after_its_wait_is_held_back(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    proxy.add(r"^/api/v2/", answer(429, LIMITED, {"Retry-After": "59"}))
    found = run_doctor(sandbox, proxy)
    assert clock.made == [59.0]  # one wait for the family, not one per probe
    assert proxy.count("/api/v2/") == 2  # A.auth's first probe and its one more try
    family_a = [c for c in found.checks if c.name.startswith("A.")]
    assert {c.verdict for c in family_a} == {NOT_CHECKED}
    assert family_a[-1].observed.startswith("rate limited: not sent")
    assert all(c.verdict == HOLDS for c in found.checks if c.name.startswith("B."))


def test_the_command_says_long_waits_and_takes_a_cap(
    proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "7"}), times=1)
    capsys.readouterr()
    assert main(["doctor"]) == 0
    _, err = capsys.readouterr()
    assert err.splitlines() == [
        "dealframe doctor: waiting 7 s: POST /api/v2/companies/current answered 429 (rate "
        "limited, the wait it asked), then sending it once more"
    ]
    proxy.reset()
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "7"}), times=1)
    made = len(clock.made)
    assert main(["doctor", "--retry-after-max", "5", "--json"]) == 2
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["not_checked"][0] == "A.current" and err == ""
    assert len(clock.made) == made  # no wait made: 7 s is more than 5
    current = next(c for c in doc["checks"] if c["name"] == "A.current")
    assert current["observed"] == (
        "rate limited: the service asked 7 s (429, more than retry_after_max)"
    )


# -- 5, 6. the verdict and the JSON say what was not checked ---------------------------------


def test_verdict_and_json_say_what_was_not_checked(
    proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    proxy.add(rf"^{P}/transactions/aggregate$", answer(503, {"error": {"code": "DOWN"}}))
    capsys.readouterr()
    assert main(["doctor", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    names = ["B.aggregate.labels.quarter", "B.aggregate.labels.month"]
    names += ["B.aggregate.methodology", "B.aggregate.suppression"]
    assert doc["not_checked"] == names
    assert doc["ok"] is True and doc["complete"] is False
    assert "nothing breaks in what was checked" in doc["verdict"]
    assert "works with this service as it is" not in doc["verdict"]


def test_a_run_that_checked_nothing_says_so(sandbox: Any, proxy: Proxy, clock: ListedClock) -> None:
    proxy.add(".", answer(503, {"error": {"code": "DOWN", "message": "down"}}))
    found = run_doctor(sandbox, proxy)
    assert found.checks and all(c.verdict == NOT_CHECKED for c in found.checks)
    assert "nothing was checked" in found.verdict()
    assert "works with this service" not in found.verdict()


# -- 7. a 401/403 that says it is a rate limit is waited out at the gate ---------------------


@pytest.mark.parametrize(
    ("status", "body", "headers", "wait"),
    [
        (401, LIMITED, {"Retry-After": "1"}, 1.0),
        (403, LIMITED, {"Retry-After": "1"}, 1.0),
        (403, {"message": "Forbidden"}, {"X-RateLimit-Remaining": "0"}, 0.5),
        (403, LIMITED, {"RateLimit-Reset": "7"}, 7.0),
    ],
    ids=["401", "403", "remaining-0", "ratelimit-reset"],
)
def test_a_401_or_403_that_says_it_is_a_rate_limit_is_waited_out(
    sandbox: Any,
    proxy: Proxy,
    status: int,
    body: Any,
    headers: dict[str, str],
    wait: float,
) -> None:
    clock = ManualClock()
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, progress=False
    ) as client:
        client._transport.gate = clock.gate()  # the doctor waits at it: on this clock
        proxy.add(CURRENT, answer(status, body, headers), times=1)
        found = dealframe.doctor(client, family="A")
    assert clock.slept == wait
    assert proxy.count(CURRENT) == 4  # A.current twice, A.skus_per_request, A.errors
    current = by_name(found)["A.current"]
    assert current.verdict == HOLDS, current
    assert found.ok and found.complete and not found.rejected


def test_a_rate_limit_401_that_persists_is_not_checked_not_a_rejected_token(
    sandbox: Any, proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    proxy.add(CURRENT, answer(401, LIMITED, {"Retry-After": "1"}), times=2)
    capsys.readouterr()
    assert main(["doctor", "--family", "A"]) == 2
    out = capsys.readouterr().out
    assert clock.made == [1.0]
    assert "rejected" not in out and "A.current" in out
    assert "not checked: 1 check that could not run (first A.current: rate " in out


# -- 8. a wait of 0 is the client's backoff; a huge one is written in full -----------------


def test_retry_after_0_waits_the_backoff_and_huge_waits_are_written_in_full(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "0"}), times=1)
    assert by_name(run_doctor(sandbox, proxy))["A.current"].verdict == HOLDS
    assert clock.made == [0.5]  # backoff_base, as the client waits at least
    proxy.reset()
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": str(2**31)}), times=1)
    current = by_name(run_doctor(sandbox, proxy, retry_after_max=86_400))["A.current"]
    assert current.verdict == NOT_CHECKED
    assert current.observed == (
        "rate limited: the service asked 2,147,483,648 s (429, more than retry_after_max)"
    )
    assert ADAPTED != current.verdict


# -- 9. checks needing what a broken check would have seen are rows, not gone ---------------


def _no_company(doc: Any) -> Any:
    """A search answered with no company (its 401s to A.auth left as they are)."""
    return {**doc, "data": []} if "data" in doc else doc


def _no_sku(doc: Any) -> Any:
    """A search whose companies carry no ``sku``."""
    if isinstance(doc.get("data"), list):
        doc["data"] = [{k: v for k, v in i.items() if k != "sku"} for i in doc["data"]]
    return doc


@pytest.mark.parametrize("change", [_no_company, _no_sku], ids=["no-company", "no-sku"])
def test_checks_needing_what_a_broken_search_saw_are_not_checked(
    sandbox: Any, proxy: Proxy, clock: ListedClock, change: Any
) -> None:
    needing = ["A.current", "A.skus_per_request", "A.time_series"]
    proxy.add(SEARCH, edit(change))
    found = run_doctor(sandbox, proxy, family="A")
    checks = by_name(found)
    assert checks["A.search"].verdict == BREAKS
    for name in needing:
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == "needs what A.search would have seen (it broke)"
    assert [c.name for c in found.not_checked] == needing
    assert not found.complete and not found.to_dict()["complete"]
    assert "3 checks that could not run (first A.current: needs what A.search" in found.verdict()


def test_checks_needing_a_company_a_broken_limit_check_did_not_see_are_not_checked(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    bad = {"error": {"code": "BAD_REQUEST", "message": "nope"}}
    proxy.add(COMPANIES, answer(400, bad), when=lambda ex: "page" not in ex.body)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.paging.limit"].verdict == BREAKS
    for name in ("B.list_items", "B.timestamps", "B.profile", "B.errors"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == "needs what B.paging.limit would have seen (it broke)"
    # the sub-collection is asked of a deal's target: it needs no listed company
    assert checks["B.sub_collection"].verdict == HOLDS, checks["B.sub_collection"]
    assert checks["B.not_found"].verdict == HOLDS
    assert not found.complete and not found.ok


# -- 10. a probe the budget leaves no request to send again is never judged -------------------


def test_an_odd_probe_s_5xx_with_no_request_left_is_not_judged(
    sandbox: Any, proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = run_doctor(sandbox, proxy, family="A").requests  # the empty-SKU probe is the last
    down = answer(503, {"error": {"code": "UNAVAILABLE", "message": "busy"}})
    proxy.add(CURRENT, down, when=lambda ex: ex.body == {"skus": []}, times=1)
    found = run_doctor(sandbox, proxy, family="A", max_requests=whole)
    errors = by_name(found)["A.errors"]
    assert errors.verdict == NOT_CHECKED, errors
    assert errors.observed == "unavailable (503, no request left to try again)"
    assert found.ok and found.budget_reached and not found.complete
    assert clock.made == []
    proxy.reset()
    proxy.add(CURRENT, down, when=lambda ex: ex.body == {"skus": []}, times=1)
    capsys.readouterr()
    assert main(["doctor", "--family", "A", "--max-requests", str(whole)]) == 2


# -- 11. a run's waits are under a gate key of its own ---------------------------------------


class _Interrupted(ListedClock):
    """A clock whose first sleep is interrupted (Ctrl-C in the middle of a wait)."""

    def sleep(self, seconds: float) -> None:
        if not self.made:
            self.made.append(seconds)
            raise KeyboardInterrupt
        super().sleep(seconds)


def test_an_interrupted_wait_holds_no_later_run(sandbox: Any, proxy: Proxy) -> None:
    clock = _Interrupted()
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, progress=False
    ) as client:
        client._transport.gate = clock.gate()
        proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "30"}), times=1)
        with pytest.raises(KeyboardInterrupt):
            dealframe.doctor(client, family="A")
        assert clock.made == [30.0]
        assert client._transport.gate.remaining() == 0.0  # the cut wait's closure is dropped
        proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "1"}), times=1)
        found = dealframe.doctor(client, family="A")  # the run after it, on the same client
    assert clock.made == [30.0, 1.0]  # its own wait only: not the 30 s left of the first
    assert by_name(found)["A.current"].verdict == HOLDS
    assert found.complete


def test_runs_that_wait_leave_no_entry_at_the_gate(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    with dealframe.Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, progress=False
    ) as client:
        gate = client._transport.gate
        for run in range(1, 4):  # a client that runs the doctor again and again
            proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "1"}), times=1)
            assert dealframe.doctor(client, family="A").complete
            assert clock.made == [1.0] * run  # each run waited once
            assert not [key for key in gate._open_at if str(key).startswith("doctor:")]


# -- 12. a persisting 500 is judged, unless the next probe fails too; a route's break is ----
# -- confirmed by asking it once more after the family answered ------------------------------


def test_a_lone_500_that_persists_on_an_ordinary_probe_breaks(
    sandbox: Any, proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    known = lambda ex: not ex.path.endswith("00000000-0000-4000-8000-000000000000")  # noqa: E731
    proxy.add(ONE_COMPANY, boom, when=known)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.profile"].verdict == BREAKS, checks["B.profile"]
    assert "500 INTERNAL_ERROR: boom" in checks["B.profile"].observed
    assert checks["B.not_found"].verdict == HOLDS  # the service answers the next probe
    assert found.complete and not found.ok
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 1


def test_a_route_that_keeps_answering_500_on_two_checks_in_a_row_breaks(
    sandbox: Any, proxy: Proxy, clock: ListedClock, cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every GET /companies/{id} answers 500 (the profile, then the unknown id), while the
    family's later probes answer: once one does, the profile and the unknown id are asked
    once more (once only), and get 500 again, two probes in a row on that route, the
    family's other requests answered meanwhile and after: a break of that route, said with
    its path and status (the old code said both not checked, exit 2)."""
    proxy.add(ONE_COMPANY, answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "x"}}))
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    said = (
        "GET /api/private/v1/companies/{id} answered 500 again, as before, while the family's "
        "other requests were answered: a break of that route"
    )
    for name in ("B.profile", "B.not_found"):
        assert checks[name].verdict == BREAKS, checks[name]
        assert checks[name].observed.endswith(said), checks[name]
    assert "500 INTERNAL_ERROR: x" in checks["B.profile"].observed
    assert checks["B.not_found"].observed.startswith("an unknown id answered 500, not 404")
    assert checks["B.sub_collection"].verdict == HOLDS  # the later probes answer
    # each probe and its try after the wait, twice; and each once more, after the family
    # answered (B.errors): the profile's confirms that route's break, the unknown id's is
    # judged on what it gets (a 500 of that route again)
    assert proxy.count(ONE_COMPANY) == 12
    assert not found.ok and found.complete
    proxy.reset()
    proxy.add(ONE_COMPANY, answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "x"}}))
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 1


def test_a_route_s_break_confirmed_the_next_probe_failing_too_is_an_outage(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """Every GET /companies/{id} answers 500, and the resolve batch, the probe after the
    profile is asked once more to confirm that route's break, answers 503 twice: the service
    looks unavailable again, so neither the profile nor the unknown id breaks; both are
    not checked, said not known (the old code broke both before the resolve batch ran)."""
    proxy.add(ONE_COMPANY, answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "x"}}))
    proxy.add(rf"^{P}/companies/resolve$", answer(503), times=2)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    for name in ("B.profile", "B.not_found"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == (
            "not known (500, again after the wait; the next probe failed too)"
        )
    assert checks["B.resolve.batch"].verdict == HOLDS  # asked once more once B answers
    assert proxy.count(ONE_COMPANY) == 12
    assert found.ok and not found.complete


def _outage(start: str, answers: int = 4) -> Any:
    """A rule's ``when`` for every Family B path: the first ``answers`` requests from the
    first one on ``start`` (the proxy's ``times`` counts them), none before it."""
    begun = [False]

    def when(ex: Exchange) -> bool:
        begun[0] = begun[0] or bool(re.search(start, ex.path))
        return begun[0]

    return when


@pytest.mark.parametrize(
    ("start", "first", "confirming"),
    [
        (COMPANIES, "B.paging.limit", "B.paging.page"),
        (ONE_COMPANY, "B.profile", "B.not_found"),
        (UNKNOWN_ID, "B.not_found", "B.sub_collection"),  # from an odd probe: judged alike
    ],
    ids=["from-the-list", "from-the-profile", "from-the-unknown-id"],
)
def test_a_short_outage_breaks_nothing_once_the_service_answers_again(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    start: str,
    first: str,
    confirming: str,
) -> None:
    """Four Family B requests in a row answer 500 from the first one on ``start`` (two
    probes and their tries after the wait), then the service answers: the check of the first
    probe is asked once more and judged on what it gets now, the check whose probe found the
    family down too, and those needing what they would have seen, alike: nothing breaks and
    nothing is left not checked (the old code broke the first, exit 1)."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    proxy.add(rf"^{P}/", boom, when=_outage(start), times=4)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks[first].verdict == HOLDS, checks[first]
    assert checks[confirming].verdict == HOLDS, checks[confirming]
    assert not found.not_checked, found.not_checked
    assert found.ok and found.complete, found.verdict()
    assert clock.made == [0.5, 0.5]  # the two waits of the outage, on the manual clock
    proxy.reset()
    proxy.add(rf"^{P}/", boom, when=_outage(start), times=4)
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 0


def test_an_outage_from_page_0_leaves_no_verdict_reached_on_it(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A service counting pages from 0, and four Family B requests answering 500 from the
    page-0 probe on (it and its try, the profile and its try): page 0 "refused" on a 500
    the next probe gets too is no verdict: B.paging.page is asked once more with the
    profile once the family answers, and says pages count from 0 (the old code said page
    0 is refused, holds, and broke the profile, exit 1)."""
    begun = [False]

    def outage(ex: Exchange) -> bool:
        begun[0] = begun[0] or _page_zero(ex)
        return begun[0]

    def rules() -> None:
        begun[0] = False
        proxy.add(rf"^{P}/(companies|investors|transactions)$", zero_indexed())
        proxy.add(rf"^{P}/", answer(500), when=outage, times=4)

    rules()
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.paging.page"].verdict == ADAPTED, checks["B.paging.page"]
    assert "pages count from 0" in checks["B.paging.page"].observed
    assert checks["B.profile"].verdict == HOLDS, checks["B.profile"]
    assert found.ok and found.complete, found.verdict()
    proxy.reset()
    rules()
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 0


def _flap(first: int, up: int, second: int, start: str = COMPANIES) -> Any:
    """A rule's ``when`` for every Family B path from the first request on ``start`` (the
    company list) on: ``first`` requests in a row answer 500, then ``up`` are forwarded,
    then ``second`` answer 500 again (a second outage, while the checks are asked once
    more), then all are forwarded."""
    seen = itertools.count(1)
    begun = [False]

    def when(ex: Exchange) -> bool:
        begun[0] = begun[0] or bool(re.search(start, ex.path))
        if not begun[0]:
            return False
        n = next(seen)
        return n <= first or first + up < n <= first + up + second

    return when


@pytest.mark.parametrize("second", [6, 30])
def test_a_second_outage_while_the_checks_run_again_breaks_nothing(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    second: int,
) -> None:
    """Four Family B requests answer 500 from the company list on, one is answered, then
    ``second`` more answer 500: the checks asked once more meet a second outage (a 500 to the
    list check, the next probe's too): they are not checked, said not known, never broken,
    and none is asked a third time (the old code broke B.paging.limit and B.paging.page,
    exit 1)."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    proxy.add(rf"^{P}/", boom, when=_flap(4, 1, second))
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert not [c for c in found.checks if c.verdict == BREAKS], found.table()
    assert checks["B.paging.limit"].verdict == NOT_CHECKED, checks["B.paging.limit"]
    assert checks["B.paging.limit"].observed == (
        "not known (500, again after the wait; the next probe failed too)"
    )
    assert checks["B.paging.page"].verdict == NOT_CHECKED, checks["B.paging.page"]
    assert checks["B.not_found"].verdict == HOLDS  # the service is up again at the end
    assert found.ok and not found.complete, found.verdict()
    proxy.reset()
    proxy.add(rf"^{P}/", boom, when=_flap(4, 1, second))
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 2


@pytest.mark.parametrize(
    ("start", "up", "second", "checks"),
    [
        (COMPANIES, 1, 4, ("B.paging.limit", "B.paging.page")),
        (COMPANIES, 1, 5, ("B.paging.limit", "B.paging.page")),
        (ONE_COMPANY, 2, 4, ("B.profile", "B.not_found")),
        (ONE_COMPANY, 2, 5, ("B.profile", "B.not_found")),
    ],
    ids=["list-4", "list-5", "profile-4", "profile-5"],
)
def test_a_second_outage_on_the_checks_run_again_of_one_route_breaks_nothing(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    start: str,
    up: int,
    second: int,
    checks: tuple[str, str],
) -> None:
    """A flapping service: four Family B requests answer 500 from ``start`` on (two probes
    on one route and their tries), ``up`` are answered (the family is up: both checks are
    asked once more), then ``second`` answer 500 again: both checks asked once more get 500
    twice in a row on their route, and the next probe, on another route, is answered (at
    once, or after its wait). That is not yet a break of that route: asked once more, after
    the family answered, the route answers: the outage was over, and both checks hold on
    what they get (the old code broke both, "a break of that route", exit 1)."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    proxy.add(rf"^{P}/", boom, when=_flap(4, up, second, start))
    found = run_doctor(sandbox, proxy, family="B")
    seen = by_name(found)
    assert not [c for c in found.checks if c.verdict == BREAKS], found.table()
    for name in checks:
        assert seen[name].verdict == HOLDS, seen[name]
    assert found.ok and found.complete, found.verdict()
    proxy.reset()
    proxy.add(rf"^{P}/", boom, when=_flap(4, up, second, start))
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == 0


def test_a_route_s_500s_the_run_ends_before_asking_again_break_nothing(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The same flapping service, the request budget running out once both checks asked
    once more got 500 twice in a row on their route (14 requests: B.auth's two, the three
    discovery documents, the list and page probes with their tries, the unknown id, both
    asked once more with their tries): the route was never asked once more after the family
    answered, so nothing says it breaks rather than the service being out: not checked, said
    so (the old code broke both, exit 1)."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    proxy.add(rf"^{P}/", boom, when=_flap(4, 1, 4))
    found = run_doctor(sandbox, proxy, family="B", max_requests=14)
    checks = by_name(found)
    for name in ("B.paging.limit", "B.paging.page"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == (
            "not known: POST /api/private/v1/companies answered 500 to 2 probes (each again "
            "after the wait), and the run ended before that route was asked once more after "
            "the family answered: whether that route breaks or the service was out"
        )
    assert checks["B.profile"].observed == "needs what B.paging.limit would have seen"
    assert found.ok and found.budget_reached and found.requests == 14


def test_a_route_that_answers_500_breaks_when_run_again_and_the_next_probe_answers(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The company list of 1,000 always answers 500, and B.paging.page's first probe twice
    (the family looks down): once the service answers, both are asked once more; the list
    probe gets 500 again while the page's answers: a lone 500, that route's: it breaks,
    and those needing what it would have seen say "(it broke)"."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    asked: list[int] = []  # the list probes of 1,000
    proxy.add(
        COMPANIES,
        boom,
        when=lambda ex: (ex.body or {}).get("limit") == 1000 and not asked.append(1),
    )
    pages = _nth(1, 2)
    proxy.add(COMPANIES, boom, when=lambda ex: (ex.body or {}).get("limit") == 2 and pages(ex))
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.paging.limit"].verdict == BREAKS, checks["B.paging.limit"]
    assert "500 INTERNAL_ERROR: boom" in checks["B.paging.limit"].observed
    assert checks["B.paging.page"].verdict == HOLDS, checks["B.paging.page"]
    assert checks["B.profile"].observed == "needs what B.paging.limit would have seen (it broke)"
    # each sent twice (its try), three times: first, after the outage, and once more after
    # the family answered (a 500 is no break on its own)
    assert len(asked) == 6 and not found.ok


def test_checks_the_budget_leaves_no_request_to_run_again_say_so(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The same short outage from the list, with 14 requests in all: the list check runs
    again and holds, B.paging.page (seven requests) finds no request left: it says so, and
    no row says it needs what the list check (which holds) would have seen."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "boom"}})
    proxy.add(rf"^{P}/", boom, when=_outage(COMPANIES), times=4)
    found = run_doctor(sandbox, proxy, family="B", max_requests=14)
    checks = by_name(found)
    assert checks["B.paging.limit"].verdict == HOLDS, checks["B.paging.limit"]
    assert checks["B.list_items"].verdict == HOLDS, checks["B.list_items"]
    assert checks["B.paging.page"].verdict == NOT_CHECKED
    assert checks["B.paging.page"].observed == (
        "the service answered again, but the request budget ran out before this check ran again"
    )
    assert not [c for c in found.checks if c.observed.startswith("needs what B.paging.limit")]
    assert found.budget_reached and found.requests == 14 and found.ok


def test_a_500_the_next_probe_gets_too_is_said_unavailable_while_nothing_answers(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """Every Family B request but the discovery documents answers 500 from the list on: the
    list check is not checked after all, and every row needing what it would have seen says so
    without "(it broke)", B.list_items (recorded before the next probe failed) too."""
    boom = {"error": {"code": "INTERNAL_ERROR", "message": "x"}}
    proxy.add(rf"^{P}/(?!lookup/)", answer(500, boom))
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.paging.limit"].verdict == NOT_CHECKED
    assert checks["B.paging.limit"].observed == (
        "not known (500, again after the wait; the next probe failed too)"
    )
    for name in ("B.list_items", "B.timestamps", "B.profile", "B.errors"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed == "needs what B.paging.limit would have seen", name
    assert not [c for c in found.checks if "(it broke)" in c.observed]
    assert found.ok and not found.complete


def test_a_list_route_that_always_answers_500_breaks_and_those_needing_it_say_so(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """POST /companies always 500, the rest answers: the list check and B.paging.page (its
    next probe, on the same route) are asked once more once the service answers, and get 500
    twice in a row again, the family's other requests answered meanwhile: that route's
    break, both said so with its path and status, and every row needing what the list check
    would have seen says it broke (the old code said them all not checked)."""
    proxy.add(COMPANIES, answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "x"}}))
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    said = (
        "POST /api/private/v1/companies answered 500 again, as before, while the family's "
        "other requests were answered: a break of that route"
    )
    for name in ("B.paging.limit", "B.paging.page"):
        assert checks[name].verdict == BREAKS, checks[name]
        assert checks[name].observed.endswith(said), checks[name]
    broke = "needs what B.paging.limit would have seen (it broke)"
    for name in ("B.list_items", "B.timestamps", "B.profile", "B.errors"):
        assert checks[name].observed == broke, checks[name]
    assert checks["B.not_found"].verdict == HOLDS
    # two probes and their tries, each run once more only; then each once more, after the
    # family answered: the list probe's confirms that route's break
    assert proxy.count(COMPANIES) == 12
    assert not found.ok and not found.complete


@pytest.mark.parametrize(
    ("path", "when", "status", "check"),
    [
        (CURRENT, lambda ex: ex.body == {"skus": []}, 503, "A.errors"),  # an odd probe
        (CURRENT, lambda ex: ex.body == {"skus": []}, 500, "A.errors"),
        (ONE_COMPANY, lambda ex: "0000-4000" not in ex.path, 500, "B.profile"),  # ordinary
    ],
    ids=["odd-503", "odd-500", "profile-500"],
)
def test_a_5xx_asking_a_wait_longer_than_retry_after_max_is_not_judged(
    sandbox: Any, proxy: Proxy, clock: ListedClock, path: str, when: Any, status: int, check: str
) -> None:
    """One 5xx asking 120 s (more than the default ``retry_after_max``, 60 s), then answers:
    the wait is not made, so the probe is not sent again, and one answer is not judged on."""
    boom = {"error": {"code": "DOWN", "message": "busy"}}
    proxy.add(path, answer(status, boom, {"Retry-After": "120"}), when=when, times=1)
    found = run_doctor(sandbox, proxy)
    seen = by_name(found)[check]
    assert seen.verdict == NOT_CHECKED, seen
    what = "not known" if status == 500 else "unavailable"  # a 500 is never unavailable
    assert seen.observed == (
        f"{what}: the service asked 120 s ({status}, more than retry_after_max)"
    )
    assert [c.name for c in found.not_checked] == [check]
    assert found.ok and clock.made == []


@pytest.mark.parametrize("status", [502, 503, 504])
def test_a_gateway_5xx_that_persists_on_an_ordinary_probe_is_unavailable(
    sandbox: Any, proxy: Proxy, clock: ListedClock, status: int
) -> None:
    known = lambda ex: not ex.path.endswith("00000000-0000-4000-8000-000000000000")  # noqa: E731
    proxy.add(ONE_COMPANY, answer(status, {"error": {"code": "DOWN"}}), when=known)
    checks = by_name(run_doctor(sandbox, proxy, family="B"))
    assert checks["B.profile"].verdict == NOT_CHECKED
    assert checks["B.profile"].observed == f"unavailable ({status}, again after the wait)"
    assert checks["B.not_found"].verdict == HOLDS


# -- 13. a family is held back only for a long wait; the waits of a run are capped -----------


def test_a_short_rate_limit_that_persists_holds_no_family_back(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "1"}), times=2)
    found = run_doctor(sandbox, proxy, family="A")
    assert [c.name for c in found.not_checked] == ["A.current"]
    assert by_name(found)["A.errors"].verdict == HOLDS  # its probe was sent
    assert clock.made == [1.0]


def test_a_long_rate_limit_that_persists_holds_the_family_back(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "7"}), times=2)
    found = run_doctor(sandbox, proxy, family="A")
    names = ["A.current", "A.skus_per_request", "A.time_series", "A.groups.current"]
    assert [c.name for c in found.not_checked] == [*names, "A.groups.time_series", "A.errors"]
    assert by_name(found)["A.errors"].observed.startswith("rate limited: not sent")


def test_the_waits_of_a_run_are_capped_in_all_and_said(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    odd = itertools.count(1)
    proxy.add(
        r"^/api/", answer(429, LIMITED, {"Retry-After": "59"}), when=lambda ex: next(odd) % 2 == 1
    )
    said: list[str] = []
    found = run_doctor(sandbox, proxy, said=said)
    assert sum(clock.made) <= 300  # dealframe.doctor.waits.WAIT_BUDGET
    assert clock.made == [59.0] * 5  # 295 s: the sixth would pass 300 s
    capped = [c for c in found.checks if "not waited" in c.observed]
    assert len(capped) > 1 and all(c.verdict == NOT_CHECKED for c in capped)
    assert {c.observed for c in capped} == {
        "rate limited: the service asked 59 s (429, not waited: 59 s more would pass the 300 s "
        "the doctor waits in all (295 s waited))"
    }
    # 5 s are left, more than the client's shortest wait: each wait not made is said, and
    # "no more waits" never (a shorter wait would still be made)
    assert not [line for line in said if "no more waits" in line]
    assert [line for line in said if line.startswith("not waiting")] == [
        "not waiting 59 s: 59 s more would pass the 300 s the doctor waits in all (295 s "
        "waited) (what asked for it is not checked)"
    ] * len(capped)
    assert not found.complete and found.ok


def test_no_more_waits_is_said_once_the_budget_is_spent(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    odd = itertools.count(1)
    proxy.add(
        r"^/api/", answer(429, LIMITED, {"Retry-After": "60"}), when=lambda ex: next(odd) % 2 == 1
    )
    said: list[str] = []
    found = run_doctor(sandbox, proxy, said=said)
    assert clock.made == [60.0] * 5  # 300 s: spent
    assert [line for line in said if not line.startswith("waiting")] == [
        "waited 300 s in all: no more waits in this run (what the service asks to wait for is "
        "not checked)"
    ]
    assert len([c for c in found.checks if "not waited" in c.observed]) > 1


def test_a_wait_longer_than_the_budget_is_never_made_and_said_so(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """``retry_after_max=600`` from Python: a 400 s wait passes the 300 s a run waits in all
    by itself; it is said as not made, and a later short wait is made."""
    proxy.add(CURRENT, answer(429, LIMITED, {"Retry-After": "400"}), times=1)
    lookup = rf"^{P}/lookup/investors$"
    proxy.add(lookup, answer(429, LIMITED, {"Retry-After": "10"}), times=1)
    said: list[str] = []
    found = run_doctor(sandbox, proxy, said=said, retry_after_max=600)
    checks = by_name(found)
    assert checks["A.current"].observed == (
        "rate limited: the service asked 400 s (429, not waited: more than the 300 s the "
        "doctor waits in all)"
    )
    assert checks["B.lookup.investors"].verdict == HOLDS
    assert clock.made == [10.0]
    assert said[0] == (
        "not waiting 400 s: more than the 300 s the doctor waits in all (what asked for it is "
        "not checked)"
    )
    assert not [line for line in said if "no more waits" in line]


# -- 14. --retry-after-max is bounded where the command reads it -----------------------------


def test_retry_after_max_is_bounded_by_the_wait_budget_naming_the_flag(
    cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["doctor", "--retry-after-max", "400"])  # no wait over 300 s is ever made
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--retry-after-max" in err
    assert "'400' is not a number of seconds from 0 to 300 (the doctor waits 300 s in all" in err
    assert "retry_after_max must" not in err
    with pytest.raises(SystemExit):
        main(["doctor", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "from 0 to 300;" in helped and "86,400" not in helped
