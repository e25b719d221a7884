"""A mirror sync that fails on a page of the change feed says where, and what it kept.

It used to raise the request's error alone (``ServerError: 503 ... (POST
/api/private/v1/transactions); gave up after 2 attempts``): no entity, no feed page, no
cursor, nothing of the tables this sync had already committed (issue 8's audit). The error
now names the entity, the feed's page and cursor, the rows read before it, the tables this
sync committed, and that a re-run resumes. Faults are the sandbox's own (its fault plan).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealframe.sandbox
from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServerError
from dealframe.sandbox.faults import FaultPlan

DEALS = r"^/api/private/v1/transactions$"
INVESTORS = r"^/api/private/v1/investors$"
FAST: dict[str, Any] = {
    "retries": 1,
    "backoff_base": 0.01,
    "backoff_cap": 0.02,
    "progress": False,
    "cache_enabled": False,
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, FaultPlan]]:
    plan = FaultPlan()
    with dealframe.sandbox.run(scale=0.1, seed=7, faults=plan) as sb:
        yield sb, plan


def test_a_failed_feed_page_names_the_entity_page_cursor_and_committed_tables(
    served: tuple[Any, FaultPlan], tmp_path: Path
) -> None:
    sb, plan = served
    plan.reset()
    plan.script(DEALS, [None, None, "503", "503"])  # the feed's third request, both attempts
    root = tmp_path / "mirror"
    with Client.for_sandbox(sb, **FAST) as c, pytest.raises(ServerError) as info:
        mirror.sync(c, root, progress=False)
    text = str(info.value)
    assert text.startswith("503 SERVICE_UNAVAILABLE"), text
    assert "mirror sync of deals" in text, text
    cursor = re.search(
        r"page 1 of updated_at >= (\S+) \(request 3 of pass 1, after ([\d,]+) rows", text
    )
    assert cursor is not None, text
    assert int(cursor.group(2).replace(",", "")) > 0
    assert "the deals table is not written" in text
    assert "this sync committed companies, investors before it stopped at deals" in text
    assert "run the sync again" in text
    assert plan.pending() == 0
    # the re-run resumes: the committed tables from their checkpoints, deals from the start
    plan.reset()
    with Client.for_sandbox(sb, **FAST) as c:
        report = mirror.sync(c, root, progress=False)
    assert (report["companies"].full, report["investors"].full, report["deals"].full) == (
        False,
        False,
        True,
    )


def test_a_first_feed_page_that_fails_says_so_and_that_nothing_was_committed(
    served: tuple[Any, FaultPlan], tmp_path: Path
) -> None:
    sb, plan = served
    plan.reset()
    plan.script(INVESTORS, ["503", "503"])
    with Client.for_sandbox(sb, **FAST) as c, pytest.raises(ServerError) as info:
        mirror.sync(c, tmp_path / "mirror", entities=["investors", "deals"], progress=False)
    text = str(info.value)
    assert "mirror sync of investors: stopped at the change feed's page 1 of every record" in text
    assert "(request 1 of pass 1, after 0 rows read)" in text, text
    assert "this sync committed no table before it stopped at investors" in text
    assert "(not synced: investors, deals)" in text
    plan.reset()
