"""Every request the report makes to build its page is in its provenance (``manifest.json``,
Appendix C). The discovery documents the client reads to check filters (``GET
/api/private/v1/lookup/transactions``, ``.../investors``) were made inside the client's calls,
returned no frame, and were in no provenance: the report's requests at the service were two
more than its provenance counted. The report now reads them itself first, recorded with the
fields of every other pull. Counted at a proxy of our own in front of the sandbox."""

from __future__ import annotations

import collections
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, Proxy, edit

import dealframe
import dealframe.report.pages as pages
from dealframe.report import build_report

P = "/api/private/v1"
FIELDS = {"endpoint", "requests", "from_cache", "rows_expected", "rows_received", "fetched_at"}


@pytest.fixture(autouse=True)
def _charts_left_undrawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The charts are drawn from the frames already pulled, with no request of their own, and
    are most of a report's time: these reports leave them undrawn (the page and its Appendix C
    are written as ever)."""
    monkeypatch.setattr(pages, "_chart", lambda draw, *size: pages.Chart(b"", ""))


def _built(sandbox: Any, out: Path, *, warm: bool = False) -> tuple[dict[str, Any], list[str]]:
    """(the manifest's provenance, every request the proxy saw while the report was built)."""
    with (
        Proxy(sandbox.url) as proxy,
        dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        if warm:  # a client that already holds its discovery documents
            client.private.schema("transactions")
            client.private.schema("investors")
            proxy.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            paths = build_report(client, out, cohort={"region": "Western Europe"}, progress=False)
        seen = [f"{method} {path}" for method, path, _ in proxy.seen]
    return json.loads(paths.manifest.read_text())["provenance"], seen


@pytest.mark.parametrize("warm", [False, True])
def test_every_request_of_the_report_is_in_its_provenance(sandbox, tmp_path, warm):
    provenance, seen = _built(sandbox, tmp_path, warm=warm)
    assert sum(int(row.get("requests") or 0) for row in provenance.values()) == len(seen)
    lookups = collections.Counter(s for s in seen if "/lookup/" in s)
    assert lookups == {f"GET {P}/lookup/transactions": 1, f"GET {P}/lookup/investors": 1}
    for entity in ("transactions", "investors"):
        row = provenance[f"discovery_{entity}"]
        assert set(row) == FIELDS, row
        assert row["endpoint"] == f"GET {P}/lookup/{entity}"
        assert row["requests"] == 1 and row["from_cache"] is False
        assert row["rows_received"] == row["rows_expected"] > 0  # its filters
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "discovery_transactions" in page and "discovery_investors" in page  # Appendix C


def test_a_document_lookup_refuses_still_gives_the_report(sandbox, tmp_path):
    """A discovery document whose ``values`` the filter checks read but ``lookup``'s frame
    refuses (an object): the report is built as before the report read it itself, and the
    read is recorded, without rows."""

    def odd(doc: Any) -> Any:
        for entry in doc["data"]["filters"]:
            if entry.get("values") and entry["field"] != "deal_type":
                entry["values"] = {"a": 1}
                break
        return doc

    with (
        Proxy(sandbox.url) as proxy,
        dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        proxy.add(rf"^{P}/lookup/transactions$", edit(odd), method="GET")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            paths = build_report(
                client, tmp_path, cohort={"region": "Western Europe"}, progress=False
            )
        seen = [f"{m} {p}" for m, p, _ in proxy.seen]
    provenance = json.loads(paths.manifest.read_text())["provenance"]
    row = provenance["discovery_transactions"]
    assert set(row) == FIELDS, row
    assert row["endpoint"] == f"GET {P}/lookup/transactions" and row["requests"] == 1
    assert row["from_cache"] is False
    assert seen.count(f"GET {P}/lookup/transactions") == 1
    assert sum(int(r.get("requests") or 0) for r in provenance.values()) == len(seen)


def test_a_discovery_answer_that_is_no_document_is_read_again_and_counted(sandbox, tmp_path):
    """The first answer is no discovery document (``data`` a list): the client keeps no copy,
    the report reads it again, and its provenance counts both reads."""
    with (
        Proxy(sandbox.url) as proxy,
        dealframe.Client(
            proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
        ) as client,
    ):
        proxy.add(
            rf"^{P}/lookup/transactions$",
            edit(lambda doc: {**doc, "data": [1]}),
            method="GET",
            times=1,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            paths = build_report(
                client, tmp_path, cohort={"region": "Western Europe"}, progress=False
            )
        seen = [f"{m} {p}" for m, p, _ in proxy.seen]
    provenance = json.loads(paths.manifest.read_text())["provenance"]
    assert seen.count(f"GET {P}/lookup/transactions") == 2
    assert provenance["discovery_transactions"]["requests"] == 2
    assert sum(int(r.get("requests") or 0) for r in provenance.values()) == len(seen)
