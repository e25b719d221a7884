"""``dealframe doctor`` against a flapping service, through the drift proxy (a manual clock:
no test sleeps): a 500 that persists (a probe and its try after the wait) is never a break
on its own. Its route is asked once more after another probe of its family has answered: a
500 again is that route's break (said with its method, path and status), an answer says
the outage was over (judged on it), and the family's end or the request budget's coming
first leaves it not checked, "not known" (never said "unavailable": that is for 502, 503
and 504)."""

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
    Action,
    Exchange,
    Proxy,
    fresh_rules,
    no_hang,
    proxy,
)

from dealframe.cli import main
from dealframe.doctor import BREAKS, HOLDS, NOT_CHECKED

P = "/api/private/v1"
COMPANIES = rf"^{P}/companies$"
ONE_COMPANY = rf"^{P}/companies/[0-9a-f-]{{36}}$"
INVESTORS = rf"^{P}/lookup/investors$"
UNKNOWN_ID = rf"^{P}/companies/00000000-0000-4000-8000-000000000000$"


def _shape(proxy: Proxy, start: str, runs: Sequence[tuple[int, int | None]]) -> None:
    """Every Family B request from the first one on ``start`` on, in ``runs`` of (how many,
    status): that status answered in the service's place (None: forwarded); all forwarded
    after the last run."""
    seen = itertools.count(1)
    begun = [False]
    bounds = list(itertools.accumulate(n for n, _ in runs))
    codes = {code: answer(code) for _, code in runs if code is not None}

    def apply(ex: Exchange) -> None:
        begun[0] = begun[0] or bool(re.search(start, ex.path))
        if not begun[0]:
            return
        n = next(seen)
        code = next((c for bound, (_, c) in zip(bounds, runs) if n <= bound), None)
        if code is not None and codes[code].on_request is not None:
            codes[code].on_request(ex)

    proxy.add(rf"^{P}/", Action("shape", on_request=apply))


def _flap(first: int, up: int, second: int) -> list[tuple[int, int | None]]:
    """``first`` requests answering 500, ``up`` forwarded, ``second`` answering 500."""
    return [(first, 500), (up, None), (second, 500)]


#: Shapes of a flapping service (the review's): where it starts, its runs, and the exit of
#: ``dealframe doctor --family B`` (0: everything checked; 2: not everything, the second
#: outage outlasting the checks run once more). None of them breaks anything.
SHAPES = {
    "profile-4-1-6": (ONE_COMPANY, _flap(4, 1, 6), 2),
    "profile-4-1-4": (ONE_COMPANY, _flap(4, 1, 4), 2),
    "list-503x2-1-500x4": (COMPANIES, [(2, 503), (1, None), (4, 500)], 2),
    "investors-6-1-6": (INVESTORS, _flap(6, 1, 6), 2),
    "list-4-1-2": (COMPANIES, _flap(4, 1, 2), 0),
    "list-4-1-3": (COMPANIES, _flap(4, 1, 3), 0),
    "profile-4-2-2": (ONE_COMPANY, _flap(4, 2, 2), 0),
    "profile-4-2-3": (ONE_COMPANY, _flap(4, 2, 3), 0),
    "list-2-1-4": (COMPANIES, _flap(2, 1, 4), 0),
    "list-3-1-4": (COMPANIES, _flap(3, 1, 4), 0),
    "list-2-2-6": (COMPANIES, _flap(2, 2, 6), 0),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_flapping_service_breaks_nothing(
    sandbox: Any,
    proxy: Proxy,
    clock: ListedClock,
    cli: None,
    capsys: pytest.CaptureFixture[str],
    shape: str,
) -> None:
    """A 500 that persists, the family answering after it, then 500s again just when that
    check is asked once more (a second outage of 2 to 6 requests, or the first one's 503s
    then 500s): no check breaks (the old code broke B.paging.limit, B.paging.page,
    B.profile or B.sub_collection, exit 1), and a 500 is never said unavailable."""
    start, runs, status = SHAPES[shape]
    _shape(proxy, start, runs)
    found = run_doctor(sandbox, proxy, family="B")
    assert not [c for c in found.checks if c.verdict == BREAKS], found.table(width=200)
    assert not [c for c in found.checks if "unavailable (500" in c.observed], found.table()
    assert found.complete == (status == 0), found.table(width=200)
    for check in found.not_checked:  # a second outage, or what needs what it hid
        assert check.observed.startswith(("not known", "needs what")), check
    proxy.reset()
    _shape(proxy, start, runs)
    capsys.readouterr()
    assert main(["doctor", "--family", "B"]) == status


def test_a_check_whose_own_probe_answers_is_not_stamped_with_its_route_s_break(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The profile of every listed company answers 500, and the unknown id's first two
    requests too (the service out just then; it answers 404 whenever it is up): once the
    family answers, both are asked once more; the profile's 500 again confirms that route's
    break, said with its method, path and status, while the unknown id, asked once more too,
    answers 404 and holds (the old code stamped it "a break of that route" unasked)."""
    boom = answer(500, {"error": {"code": "INTERNAL_ERROR", "message": "x"}})
    proxy.add(ONE_COMPANY, boom, when=lambda ex: "0000-4000" not in ex.path)
    proxy.add(UNKNOWN_ID, boom, times=2)
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    assert checks["B.profile"].verdict == BREAKS, checks["B.profile"]
    assert checks["B.profile"].observed.endswith(
        "GET /api/private/v1/companies/{id} answered 500 again, as before, while the family's "
        "other requests were answered: a break of that route"
    ), checks["B.profile"]
    assert checks["B.not_found"].verdict == HOLDS, checks["B.not_found"]
    assert checks["B.not_found"].observed == "404"
    assert not found.ok and found.complete


def test_a_route_failing_on_the_family_s_last_probes_is_not_known_never_unavailable(
    sandbox: Any, proxy: Proxy, clock: ListedClock
) -> None:
    """The aggregate route answers 500 to the last two probes of Family B, every other
    request answered: no probe of the family answers after them, so that route is never
    asked once more: not known, said so with the route, never "unavailable" (the old code
    said "unavailable (500, ...; the next probe failed too)")."""
    proxy.add(rf"^{P}/transactions/aggregate$", answer(500))
    found = run_doctor(sandbox, proxy, family="B")
    checks = by_name(found)
    for name in ("B.aggregate.labels.quarter", "B.aggregate.labels.month"):
        assert checks[name].verdict == NOT_CHECKED, checks[name]
        assert checks[name].observed.startswith("not known"), checks[name]
        assert "unavailable" not in checks[name].observed, checks[name]
    assert found.ok and not found.complete
