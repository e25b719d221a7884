"""``dealframe doctor`` under rate limits and an unavailable service (issue 14): a 429 or a 5xx
is waited out once, as the client would, and sent once more; one that persists leaves the check
"not checked" (and the checks that need its answer), never "breaks", and the command exits 2."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _clock import clock  # noqa: F401 - a fixture, used by name

import dealframe
import dealframe.sandbox
from dealframe.cli import main
from dealframe.doctor import BREAKS, HOLDS, NOT_CHECKED
from dealframe.sandbox import FaultPlan

_CURRENT = r"/api/v2/companies/current$"
_LOOKUP = r"/api/private/v1/lookup/companies$"


@pytest.fixture(scope="module")
def limited():
    """A sandbox whose faults each test scripts (a 429 asks for 1 s)."""
    plan = FaultPlan(retry_after=1)
    with dealframe.sandbox.run(scale=0.02, seed=7, faults=plan) as sb:
        yield sb, plan


def _doctor(sb, **settings):
    with dealframe.Client.for_sandbox(sb, cache_enabled=False, progress=False, **settings) as c:
        return dealframe.doctor(c)


def test_one_429_is_waited_out_and_the_check_holds(limited, clock):
    sb, plan = limited
    plan.script(_CURRENT, ["429"])
    found = _doctor(sb)
    current = next(c for c in found.checks if c.name == "A.current")
    assert current.verdict == HOLDS, current.observed
    assert clock.made == [1.0]
    assert found.ok and not found.not_checked
    assert {c.verdict for c in found.checks} == {HOLDS}


def test_a_429_that_persists_asking_a_short_wait_is_not_checked_never_a_break(limited, clock):
    sb, plan = limited
    plan.script(_CURRENT, ["429", "429"])
    found = _doctor(sb)
    current = next(c for c in found.checks if c.name == "A.current")
    assert current.verdict == NOT_CHECKED
    assert current.observed.startswith("rate limited: the service asked 1 s (429")
    assert not [c.name for c in found.checks if c.verdict == BREAKS]
    # a short wait asked again: the client would wait it and go on, so Family A goes on
    assert found.ok and [c.name for c in found.not_checked] == ["A.current"]
    assert all(c.verdict == HOLDS for c in found.checks if c.name != "A.current")
    assert "not checked: 1 check that could not run (first A.current" in found.verdict()
    assert clock.made == [1.0]


def test_a_wait_longer_than_retry_after_max_is_not_made(limited, clock):
    sb, plan = limited
    plan.script(_CURRENT, ["429"])
    found = _doctor(sb, retry_after_max=0.5)
    current = next(c for c in found.checks if c.name == "A.current")
    assert current.verdict == NOT_CHECKED
    assert "more than retry_after_max" in current.observed
    assert clock.made == []


def test_an_unavailable_lookup_leaves_what_needs_it_not_checked(limited, clock):
    sb, plan = limited
    # B.auth sends two first; the lookup's two tries, and its two once the family answers
    # again (B.lookup.investors): it stays unavailable, a second outage
    plan.script(_LOOKUP, [None, None, "503", "503", "503", "503"])
    found = _doctor(sb)
    verdicts = {c.name: c.verdict for c in found.checks}
    lookup = next(c for c in found.checks if c.name == "B.lookup.companies")
    assert lookup.verdict == NOT_CHECKED and lookup.observed.startswith("unavailable")
    for needing in ("B.vocabulary.region", "B.sub_resources"):
        assert verdicts[needing] == NOT_CHECKED
    said = next(c for c in found.checks if c.name == "B.sub_resources").observed
    assert said == "needs what B.lookup.companies would have seen"
    assert BREAKS not in verdicts.values()
    assert len(clock.made) == 2  # one wait for each time it was asked


def test_the_command_exits_2_when_a_check_was_not_checked(limited, clock, monkeypatch, capsys):
    sb, plan = limited
    for key, value in (
        ("DEALFRAME_BASE_URL", sb.url),
        ("DEALFRAME_PUBLIC_TOKEN", sb.public_token),
        ("DEALFRAME_PRIVATE_KEY", sb.private_key),
    ):
        monkeypatch.setenv(key, value)
    plan.script(_CURRENT, ["429", "429"])
    capsys.readouterr()
    code = main(["doctor"])
    out, _ = capsys.readouterr()
    assert code == 2
    assert "A.current" in out and "not checked" in out.splitlines()[-1]
    assert "0 break" in out.splitlines()[-1]
