"""The parse figures time the client's own path: ``client.private.deals()`` and the
benchmarks' parse (``parse_ours``, and the checked walk of ``contract_checks_overhead``) build
their pages through the same :class:`~dealframe.private.list_pages.ListParse`, so a change to
it is what both run (three copies of the per-page parse drifted apart before)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests

from dealframe import Client
from dealframe.private.list_pages import ListParse

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Calls of ListParse's steps, by name."""
    calls: Counter[str] = Counter()
    for name in ("read", "page", "frame"):
        step = getattr(ListParse, name)

        def wrapped(self: ListParse, *args: Any, _step: Any = step, _name: str = name) -> Any:
            calls[_name] += 1
            return _step(self, *args)

        monkeypatch.setattr(ListParse, name, wrapped)
    yield calls


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """benchmarks/bench_private.py and bench_contract.py, imported as run.py imports them
    (and forgotten after the test)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_contract
    import bench_private

    yield bench_private, bench_contract
    for name in ("bench_private", "bench_contract", "_common"):
        sys.modules.pop(name, None)


def raw_pages(sandbox: Any) -> list[bytes]:
    """Every page of deals as the sandbox writes it."""
    headers = {"Authorization": f"Bearer {sandbox.private_key}"}
    url = f"{sandbox.url}/api/private/v1/transactions"
    pages: list[bytes] = []
    while True:
        body = {"filters": {}, "limit": 1000, "page": len(pages) + 1}
        pages.append(requests.post(url, json=body, headers=headers, timeout=60).content)
        if not orjson.loads(pages[-1])["meta"]["has_more"]:
            return pages


def test_the_client_and_the_benchmarks_build_pages_by_one_path(
    sandbox: Any, counted: Counter[str], bench: tuple[Any, Any]
) -> None:
    bench_private, bench_contract = bench
    with Client.for_sandbox(sandbox, max_workers=1, cache_enabled=False) as client:
        want = client.private.deals()
    pages = raw_pages(sandbox)
    assert len(pages) > 1
    assert counted["page"] == len(pages) and counted["frame"] == 1, counted
    counted.clear()
    ours = bench_private.parse_ours(pages)
    assert counted == Counter(read=len(pages), page=len(pages), frame=1), counted
    assert ours["id"].tolist() == want["id"].tolist()
    assert ours.columns.tolist() == want.columns.tolist()
    counted.clear()
    checked = bench_contract.checked_pull(pages)
    assert counted == Counter(read=len(pages), page=len(pages), frame=1), counted
    assert checked["id"].tolist() == want["id"].tolist()
