"""``dealframe doctor`` under every sandbox profile (issue 14): it reports as ``adapted``
exactly the checks whose answers the profile changes, says what it saw, and everything else
holds; under ``broken`` the command exits 1 and names each check that breaks."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import pytest

import dealframe
from dealframe.cli import main
from dealframe.doctor import ADAPTED, BREAKS, HOLDS
from dealframe.sandbox import PROFILES, run

#: Every check that reads items: the extra-fields profile adds a member to all of them.
_ITEM_CHECKS = {
    "A.search",
    "A.current",
    "A.time_series",
    "A.groups.current",
    "A.groups.time_series",
    "B.lookup.companies",
    "B.lookup.investors",
    "B.lookup.transactions",
    "B.list_items",
    "B.profile",
    "B.sub_collection",
    "B.resolve.batch",
    "B.aggregate.labels.quarter",
    "B.aggregate.labels.month",
}

#: Profile -> {check adapted: words its observation must hold}.
ADAPTED_BY: dict[str, dict[str, tuple[str, ...]]] = {
    "default": {},
    "group-field-major": {"A.groups.current": ("{field: {sum, median}}",)},
    "group-list": {"A.groups.current": ("a list of {field, sum, median}",)},
    "group-flat": {"A.groups.current": ("statistic in each key", "fieldSum")},
    "quarter-compact": {"B.aggregate.labels.quarter": ("2021Q2", "2021-Q2")},
    "quarter-words": {"B.aggregate.labels.quarter": ("Q2 2021", "2021-Q2")},
    "month-date": {"B.aggregate.labels.month": ("2021-06-01", "2021-06")},
    "threshold-3": {"B.aggregate.methodology": ("small_n_threshold 3",)},
    "small-n-omitted": {"B.aggregate.suppression": ("left out",)},
    "errors-detail": {"B.errors": ("{detail}", "limit")},
    "errors-list": {"B.errors": ("{errors}", "limit")},
    "limit-100": {"B.paging.limit": ("served as 100",)},
    "limit-500": {"B.paging.limit": ("served as 500",)},
    "page-from-0": {"B.paging.page": ("pages count from 0", "then page=1")},
    "resolve-100-400": {"B.resolve.batch": ("100 accepted",)},
    "resolve-100-413": {"B.resolve.batch": ("100 accepted",)},
    "timestamps-z": {"B.timestamps": ("Z",)},
    "timestamps-offset": {"B.timestamps": ("-03:00",)},
    "extra-fields": {
        **{name: ("extra",) for name in _ITEM_CHECKS},
        "A.current": ("netDebt",),
        "A.time_series": ("ruleOf40",),
    },
    "legacy-subresources": {"B.sub_resources": ("acquisitions", "investments")},
    "limit-100,quarter-words": {
        "B.paging.limit": ("served as 100",),
        "B.aggregate.labels.quarter": ("Q2 2021",),
    },
}
#: What broken breaks, and words each observation must hold.
BROKEN: dict[str, tuple[str, ...]] = {
    # read as the client reads it: the service's fault, the class the client raises
    "A.groups.current": ("ServiceContractError", "field"),
    "B.paging.page": ("page 2 repeats page 1",),
    "B.timestamps": ("not an ISO 8601",),
    # the client's own builders read the answers: a shape alone would pass them
    "B.list_items": ("the client cannot read it", "created_at"),
    "B.profile": ("the client cannot read it", "created_at"),
    "B.sub_collection": ("the client cannot read it", "created_at"),
    "B.errors": ("text/plain",),
    "B.aggregate.labels.quarter": ("bucket 1",),
    "B.aggregate.labels.month": ("bucket 1",),
}


def test_every_profile_is_expected_somewhere() -> None:
    assert set(PROFILES) - {"broken"} <= set(ADAPTED_BY)


@pytest.mark.parametrize("profile", list(ADAPTED_BY))
def test_the_doctor_reports_exactly_what_the_profile_changes(profile: str) -> None:
    with (
        run(scale=0.02, profile=profile) as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as client,
    ):
        diagnosis = dealframe.doctor(client)
    verdicts = {c.name: c.verdict for c in diagnosis.checks}
    expected = ADAPTED_BY[profile]
    assert {n for n, v in verdicts.items() if v == ADAPTED} == set(expected)
    assert {n for n, v in verdicts.items() if v != ADAPTED} == set(verdicts) - set(expected)
    assert all(v == HOLDS for n, v in verdicts.items() if n not in expected)
    assert diagnosis.ok and diagnosis.requests <= 60
    observed = {c.name: c.observed for c in diagnosis.checks}
    for name, words in expected.items():
        assert all(w in observed[name] for w in words), (name, observed[name])
    summary = diagnosis.verdict()
    assert f"{len(expected)} adapted, 0 break" in summary
    assert ("as it is" in summary) == (not expected)


def test_a_service_counting_from_0_with_more_than_a_page_is_not_taken_for_a_page_cap() -> None:
    """With 1,000 to 2,000 companies, ``page: 1`` of a service counting from 0 holds the rest
    after its first 1,000: the doctor asks its first page without ``page`` (as a walk does)
    and sees a full page of 1,000 (it reported a cap of the rest's size, and took its facts
    from the second page)."""
    with (
        run(scale=0.1, profile="page-from-0") as sb,
        dealframe.Client.for_sandbox(sb, progress=False) as client,
    ):
        total = len(client.private.companies())
        diagnosis = dealframe.doctor(client)
    assert 1000 < total < 2000
    limit = next(c for c in diagnosis.checks if c.name == "B.paging.limit")
    assert limit.verdict == HOLDS and limit.observed == "1000 rows per page", limit.observed
    page = next(c for c in diagnosis.checks if c.name == "B.paging.page")
    assert page.verdict == ADAPTED and "pages count from 0" in page.observed


@dataclass(frozen=True)
class Done:
    """What a run of the command gave: its exit status and its two outputs."""

    returncode: int
    stdout: str
    stderr: str


def _doctor_cli(
    sb: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> Done:
    """``dealframe doctor`` run in this process (as ``main`` runs it; a child process, which
    test_doctor.py starts, would spend its time importing), its settings on the command line
    only: no DEALFRAME_* variable and no home folder."""
    for key in [k for k in os.environ if k.startswith("DEALFRAME_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", "/nonexistent")
    monkeypatch.delenv("COLUMNS", raising=False)
    capsys.readouterr()
    status = main(
        [
            "doctor",
            "--base-url",
            sb.url,
            "--public-token",
            sb.public_token,
            "--private-key",
            sb.private_key,
            *args,
        ]
    )
    out = capsys.readouterr()
    return Done(status, out.out, out.err)


@pytest.fixture(scope="module")
def broken() -> Any:
    with run(scale=0.02, profile="broken") as sb:
        yield sb


def test_broken_exits_1_and_names_what_broke(
    broken: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    done = _doctor_cli(broken, capsys, monkeypatch)
    assert done.returncode == 1, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[3:-1] if line.strip()}
    breaking = {name for name, line in rows.items() if line.rstrip().endswith(BREAKS)}
    assert breaking == set(BROKEN)  # what each saw: the JSON test (the table cuts long text)
    assert done.stdout.strip().splitlines()[-1].endswith("where it breaks")
    assert f"{len(BROKEN)} break" in done.stdout.strip().splitlines()[-1]
    for secret in (broken.public_token, broken.private_key):
        assert secret not in done.stdout + done.stderr


def test_broken_in_json_names_each_break_with_what_was_seen(
    broken: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    done = _doctor_cli(broken, capsys, monkeypatch, "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False
    seen = {c["name"]: c["observed"] for c in report["checks"] if c["verdict"] == BREAKS}
    assert set(seen) == set(BROKEN)
    for name, words in BROKEN.items():
        assert all(w in seen[name] for w in words), seen[name]
    # ValidationError is the caller's bad argument: never what a service's answer is said as
    assert not [o for o in seen.values() if "ValidationError" in o]
