"""A mirror sync that fails on a page of the change feed says where, and what it kept.

It used to raise the request's error alone (``ServerError: 503 ... (POST
/api/private/v1/transactions); gave up after 2 attempts``): no entity, no feed page, no
cursor, nothing of the tables this sync had already committed (issue 8's audit). The error
now names the entity, the feed's page and cursor, the rows read before it, the tables this
sync committed, and that a re-run resumes. Faults are the sandbox's own (its fault plan).
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import Action, Proxy, edit

import dealframe.sandbox
from dealframe import mirror
from dealframe.cli import main
from dealframe.client import Client
from dealframe.errors import ServerError
from dealframe.notices import ServiceContractWarning
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


def _unavailable(ex: Any) -> None:
    """A 503 asking a day: given up at once (more than any ``retry_after_max``), no hold."""
    ex.forward, ex.status, ex._doc = False, 503, None
    ex.headers = {"Content-Type": "application/json", "Retry-After": "86400"}
    ex.content = orjson.dumps({"error": {"code": "SERVICE_UNAVAILABLE", "message": "Down"}})


def _created_without_offset(doc: Any) -> Any:
    """Each row's ``created_at`` without its offset (``+00:00``): said by the sync."""
    for row in doc.get("data") or []:
        if isinstance(row, dict) and isinstance(row.get("created_at"), str):
            row["created_at"] = row["created_at"][:19]
    return doc


def test_the_command_prints_the_notes_of_a_failed_sync(
    served: tuple[Any, FaultPlan],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``dealframe mirror sync`` says what the sync added to its error as PEP 678 notes: here
    the companies feed wrote ``created_at`` without an offset (a ``ServiceContractWarning``,
    turned into an error by the filters: a note on the sync's own error), then the deals feed
    failed. The command printed ``str(exc)`` alone, the note lost."""
    sb, plan = served
    plan.reset()
    with Proxy(sb.url) as proxy:
        proxy.add(r"^/api/private/v1/companies$", edit(_created_without_offset))
        proxy.add(DEALS, Action("503", on_request=_unavailable))
        for name, value in {
            "DEALFRAME_BASE_URL": proxy.url,
            "DEALFRAME_PUBLIC_TOKEN": sb.public_token,
            "DEALFRAME_PRIVATE_KEY": sb.private_key,
            "DEALFRAME_CACHE": "off",
        }.items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        with warnings.catch_warnings():
            warnings.simplefilter("error", ServiceContractWarning)
            status = main(["mirror", "sync", str(tmp_path / "mirror"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 1, err
    line = next(line for line in err.splitlines() if ": error: " in line)
    assert line.startswith("dealframe mirror sync: error: 503 SERVICE_UNAVAILABLE"), err
    assert "mirror sync of deals" in line
    assert "; ServiceContractWarning: the change feed of companies: created_at" in line, line
    assert sb.private_key not in err and sb.public_token not in err
