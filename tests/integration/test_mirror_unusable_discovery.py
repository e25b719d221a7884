"""A discovery document that arrives but cannot be used is not called a feed page.

A sync whose ``GET /lookup/investors`` answered without ``data.filters`` said it "stopped at
the change feed's page 1 of every record (request 1 of pass 1 ...)": the error raised from the
answer carried no request, so the note took it for a page's rows. It now carries the discovery
request, and the note names the document. A document that does not list ``updated_at`` makes
an incremental sync's query refused before any feed request is sent: the note says so, not
that page 1 of the feed stopped.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from _drift_proxy import FAST, Proxy, edit, fresh_rules, no_hang, proxy  # noqa: F401 - fixtures

from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServiceContractError, ValidationError

LOOKUP = r"/api/private/v1/lookup/investors$"
FEED = r"/api/private/v1/investors$"


def _client(sandbox: Any, proxy: Proxy) -> Client:
    return Client(proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST)


def _without_filters(doc: Any) -> Any:
    if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
        doc["data"].pop("filters", None)
    return doc


def _without_updated_at(doc: Any) -> Any:
    if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
        kept = [f for f in doc["data"]["filters"] if f.get("field") != "updated_at"]
        doc["data"]["filters"] = kept
    return doc


def test_a_discovery_document_without_filters_is_named_not_a_feed_page(
    sandbox: Any, proxy: Proxy, tmp_path: Path
) -> None:
    proxy.add(LOOKUP, edit(_without_filters, "no filters"))
    with (
        _client(sandbox, proxy) as client,
        pytest.raises(ServiceContractError) as info,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        mirror.sync(client, tmp_path / "m", entities=["investors"])
    error = info.value
    assert error.request is not None
    assert (error.request.method, error.request.path) == ("GET", "/api/private/v1/lookup/investors")
    text = str(error)
    assert "the discovery document has no list of filters" in text, text
    assert "mirror sync of investors: stopped while reading the discovery document of " in text
    assert "change feed's page" not in text, text
    assert proxy.count(FEED) == 0  # no feed request was sent


def test_a_feed_query_the_discovery_document_refuses_is_said_before_any_feed_request(
    sandbox: Any, proxy: Proxy, tmp_path: Path
) -> None:
    path = tmp_path / "m"
    with _client(sandbox, proxy) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mirror.sync(client, path, entities=["investors"])  # a checkpoint: the next is incremental
    proxy.reset()
    proxy.add(LOOKUP, edit(_without_updated_at, "no updated_at"))
    with (
        _client(sandbox, proxy) as client,
        pytest.raises(ValidationError) as info,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        mirror.sync(client, path, entities=["investors"])
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert proxy.count(FEED) == 0  # refused before it was sent
    assert "mirror sync of investors: the change feed's query" in notes, notes
    assert "was refused before any feed request was sent" in notes, notes
    assert "stopped at the change feed's page" not in notes, notes
    assert "after 0 rows read" in notes, notes
