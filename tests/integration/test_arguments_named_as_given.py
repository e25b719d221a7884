"""Small argument checks of the audit of issue 13's explicit API, over HTTP against the
session sandbox (its answers are what the shaping functions are given).

Before:

- ``build_report(client, out, group={"regions": [...]})`` said ``invalid cohort: ...``: the
  user passed ``group``.
- ``dealframe.sandbox.run(profile=None)`` and ``start(profile=None)`` started the default
  profile, where every other None they do not take is refused.
- ``time_series_long``/``time_series_wide`` took ``found=1+2j`` (read only once a repeat was
  said to it).
- The shaping functions named the payload (``invalid deals[1]``, ``invalid time_series``),
  not their parameter (``items``, ``data``).
- ``Changes.insert("deal", 1)`` gave no "did you mean", unlike every other vocabulary error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests

import dealframe
import dealframe.sandbox
from dealframe import frames
from dealframe.errors import ValidationError
from dealframe.frames.nested import contains_any
from dealframe.report import build_report
from dealframe.sandbox import SandboxArgumentError
from dealframe.sandbox.changes import ChangeInputError, Changes


def _post(sandbox: Any, path: str, body: dict[str, Any], token: str) -> dict[str, Any]:
    answer = requests.post(
        f"{sandbox.url}{path}", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=60
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture(scope="module")
def series(sandbox: Any) -> list[dict[str, Any]]:
    """Time-series items of two SKUs, as the sandbox serves them."""
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        skus = list(client.public.search(countries=["GBR"]).index[:2])
    doc = _post(sandbox, "/api/v2/companies/time-series", {"skus": skus}, sandbox.public_token)
    assert len(doc["data"]) == 2
    return doc["data"]


@pytest.fixture(scope="module")
def deals(sandbox: Any) -> dict[str, Any]:
    """A page of deals, as the sandbox serves it."""
    return _post(sandbox, "/api/private/v1/transactions", {"limit": 5}, sandbox.private_key)


def test_a_report_group_is_named_group(sandbox: Any, tmp_path: Path) -> None:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        for group in ({"regions": ["Western Europe"]}, {}):
            with pytest.raises(ValidationError) as caught:
                build_report(client, tmp_path / "out", group=group)
            assert caught.value.argument == "group", str(caught.value)
        with pytest.raises(ValidationError) as caught:
            build_report(client, tmp_path / "out", cohort={"regions": ["Western Europe"]})
        assert caught.value.argument == "cohort"
        assert client.stats.snapshot()["network"] == 0  # before any request


@pytest.mark.parametrize("how", ["run", "start"])
def test_a_sandbox_profile_of_none_is_refused(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from dealframe.sandbox.models import SandboxState

    built: list[str] = []
    monkeypatch.setattr(SandboxState, "build", lambda *a, **k: built.append("built"))
    with pytest.raises(SandboxArgumentError) as caught:
        if how == "run":
            with dealframe.sandbox.run(scale=0.02, profile=None):  # type: ignore[arg-type]
                pass
        else:
            dealframe.sandbox.start(scale=0.02, profile=None).stop()  # type: ignore[arg-type]
    assert caught.value.argument == "profile"
    assert built == []  # refused before any data was built


@pytest.mark.parametrize("shape", [frames.time_series_long, frames.time_series_wide])
def test_a_found_that_is_no_findings_is_refused(shape: Any, series: list[Any]) -> None:
    for items in (series, []):
        with pytest.raises(ValidationError) as caught:
            shape(items, found=1 + 2j)
        assert caught.value.argument == "found"
    assert len(shape(series, found=None)) > 0


def test_the_shaping_functions_name_their_parameter(
    deals: dict[str, Any], series: list[Any]
) -> None:
    rows = [*deals["data"], 5]
    for shape in (frames.deals_frame, frames.company_investors_frame, frames.portfolio_frame):
        with pytest.raises(ValidationError) as caught:
            shape(rows)
        assert caught.value.argument == f"items[{len(rows) - 1}]", str(caught.value)
    for shape in (frames.time_series_long, frames.time_series_wide, frames.search_frame):
        with pytest.raises(ValidationError) as caught:
            shape([*series, "x"])
        assert caught.value.argument == "items[2]", str(caught.value)
    with pytest.raises(ValidationError) as caught:
        frames.aggregate_frame(5)
    assert caught.value.argument == "data"
    with pytest.raises(ValidationError) as caught:
        frames.top_countries_frame([{"id": "i"}, 5])
    assert caught.value.argument == "profile_items[1]"
    assert len(frames.deals_frame(deals["data"])) == len(deals["data"]) > 0


def test_a_changes_entity_says_the_closest(sandbox: Any, deals: dict[str, Any]) -> None:
    total = deals["meta"]["total"]
    with pytest.raises(ChangeInputError) as caught:
        Changes(sandbox.state, seed=1).insert("deal", 1)
    assert caught.value.argument == "entity"
    assert str(caught.value).endswith("(did you mean 'deals'?)")
    with pytest.raises(ChangeInputError) as caught:
        Changes(sandbox.state, seed=1).insert(5, 1)  # type: ignore[arg-type]
    assert "did you mean" not in str(caught.value)
    after = _post(sandbox, "/api/private/v1/transactions", {"limit": 1}, sandbox.private_key)
    assert after["meta"]["total"] == total  # nothing was added


def test_contains_any_matches_a_blank_value_exactly(sandbox: Any) -> None:
    """A blank value is an element like any other (the exact match the property tests
    check): it finds the cells holding it, and no other."""
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        column = client.private.companies(limit=20)["verticals"]
    held = column.copy()
    held.iloc[0] = '["", "Fintech"]'
    assert not contains_any(column, "").any()
    assert contains_any(held, "").tolist() == [True] + [False] * (len(held) - 1)
    assert contains_any(column, "Fintech").dtype == bool
