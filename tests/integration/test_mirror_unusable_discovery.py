"""A discovery document that arrives but cannot be used is not called a feed page.

A sync whose ``GET /lookup/investors`` answered without ``data.filters`` said it "stopped at
the change feed's page 1 of every record (request 1 of pass 1 ...)": the error raised from the
answer carried no request, so the note took it for a page's rows. It now carries the discovery
request, and the note names the document.

A document that lists no ``updated_at`` filter (or none taking ``gte``) made an incremental
sync raise a ``ValidationError`` of ``updated_at``, an argument the user never gave, and
``dealframe mirror sync`` exit 2 ("bad usage, nothing started") though the tables before it
were committed. A document that lists no ``updated_at`` sort key was called page 1 of the
feed (its error carried no request), and "this entity's table is not written" was said twice.
Both are now a ``ServiceContractError`` carrying the discovery request, whose note says the
query was refused before any feed request was sent, and that the table is not written once.

The ``updated_at >=`` filter is sent past the walk's first page too (it reads by cursor), so a
first sync larger than a page needs it; ``include_deleted`` is sent by every walk, and a
document that does not list it is the service's fault as well (exit 1, not 2). A page refused
(no id, no deleted flag) says once, in the note, that the table is not written.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from _cli import at_service, run
from _drift_proxy import (  # noqa: F401 - fixtures
    FAST,
    Action,
    Proxy,
    drop_field,
    drop_rows,
    edit,
    fresh_rules,
    no_hang,
    proxy,
)

from dealframe import mirror
from dealframe.client import Client
from dealframe.errors import ServiceContractError

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


def _updated_at_eq_only(doc: Any) -> Any:
    if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
        for entry in doc["data"]["filters"]:
            if entry.get("field") == "updated_at":
                entry["operators"] = ["eq"]
    return doc


def _without_updated_at_sort(doc: Any) -> Any:
    if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
        keys = doc["data"].get("sort_fields", [])
        doc["data"]["sort_fields"] = [k for k in keys if "updated_at" not in str(k)]
    return doc


def _synced_once(sandbox: Any, proxy: Proxy, path: Path) -> None:
    """A first sync of investors: the next one is incremental (it sends ``updated_at``)."""
    with _client(sandbox, proxy) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mirror.sync(client, path, entities=["investors"])
    proxy.reset()


def _refused(sandbox: Any, proxy: Proxy, path: Path) -> ServiceContractError:
    with (
        _client(sandbox, proxy) as client,
        pytest.raises(ServiceContractError) as info,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        mirror.sync(client, path, entities=["investors"])
    return info.value


def _assert_refused_before_the_feed(error: ServiceContractError, proxy: Proxy) -> str:
    assert error.request is not None
    assert (error.request.method, error.request.path) == ("GET", "/api/private/v1/lookup/investors")
    text = str(error)
    assert proxy.count(FEED) == 0, text  # refused before it was sent
    assert "mirror sync of investors: the change feed's query (page 1 of " in text, text
    assert "was refused before any feed request was sent" in text, text
    assert "the discovery document of investors (GET /api/private/v1/lookup/investors)" in text
    assert "change feed's page" not in text, text
    assert "after 0 rows read" in text, text
    assert text.count("not written") == 1, text  # the note says it, once
    return text


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_without_updated_at, "lists no updated_at filter"),
        (_updated_at_eq_only, "lists no gte operator for its updated_at filter (eq)"),
    ],
    ids=["no-filter", "no-gte"],
)
def test_a_document_without_the_updated_at_filter_is_the_services_fault(
    sandbox: Any, proxy: Proxy, tmp_path: Path, change: Any, said: str
) -> None:
    path = tmp_path / "m"
    _synced_once(sandbox, proxy, path)
    proxy.add(LOOKUP, edit(change, "updated_at filter"))
    error = _refused(sandbox, proxy, path)
    assert error.finding == "filter_unlisted"
    text = _assert_refused_before_the_feed(error, proxy)
    assert said in text, text
    assert "invalid updated_at" not in text, text  # no argument of the user's is blamed


@pytest.mark.parametrize("first", [True, False], ids=["full", "incremental"])
def test_a_document_without_the_updated_at_sort_key_is_not_a_feed_page(
    sandbox: Any, proxy: Proxy, tmp_path: Path, first: bool
) -> None:
    path = tmp_path / "m"
    if not first:
        _synced_once(sandbox, proxy, path)
    proxy.add(LOOKUP, edit(_without_updated_at_sort, "no updated_at sort"))
    error = _refused(sandbox, proxy, path)
    assert error.finding == "sort_unlisted"
    text = _assert_refused_before_the_feed(error, proxy)
    assert "lists no updated_at among the sort keys (a sort key among name" in text, text


def test_the_cli_exits_1_when_the_document_lists_no_updated_at_filter(
    sandbox: Any, proxy: Proxy, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    """Exit 2 says bad usage and nothing started: neither is so (companies was committed)."""
    path = tmp_path / "m"
    at_service(monkeypatch, proxy.url, sandbox.public_token, sandbox.private_key)
    argv = ["mirror", "sync", str(path), "--entities", "companies,investors", "--no-progress"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(argv, capsys)[0] == 0
        proxy.reset()
        proxy.add(LOOKUP, edit(_without_updated_at, "no updated_at"))
        code, err = run(argv, capsys)
    assert code == 1, err
    assert "SERVICE_CONTRACT" in err and "lists no updated_at filter" in err, err
    assert "this sync committed companies before it stopped at investors" in err, err


def _without_filter(name: str) -> Any:
    def change(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
            doc["data"]["filters"] = [f for f in doc["data"]["filters"] if f.get("field") != name]
        return doc

    return change


def test_a_first_sync_needs_the_updated_at_filter_past_its_first_page(
    sandbox: Any, proxy: Proxy, tmp_path: Path
) -> None:
    """The walk reads by cursor: its second request sends ``updated_at >=`` the last stamp of
    the first page, so a first sync larger than a page needs the filter too; the message
    says so, and names no checkpoint (a first sync has none)."""
    proxy.add(LOOKUP, edit(_without_filter("updated_at"), "no updated_at"))
    with (
        _client(sandbox, proxy) as client,
        pytest.raises(ServiceContractError) as info,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        mirror.sync(client, tmp_path / "m", entities=["investors"], page_size=100)
    error = info.value
    assert error.finding == "filter_unlisted"
    assert error.request is not None
    assert (error.request.method, error.request.path) == ("GET", "/api/private/v1/lookup/investors")
    assert proxy.count(FEED) == 1  # the first page was read; the cursor's query was not sent
    text = str(error)
    assert "lists no updated_at filter" in text, text
    assert "which the walk needs past its first page" in text, text
    assert "an incremental sync from its first request" in text, text
    assert "which an incremental sync needs" not in text, text
    assert "from a checkpoint" not in text, text  # a first sync has none
    assert "was refused before its request (2 of the pass) was sent" in text, text
    assert text.count("not written") == 1, text


def test_a_document_without_the_include_deleted_filter_is_the_services_fault(
    sandbox: Any, proxy: Proxy, tmp_path: Path
) -> None:
    """The walk sends ``include_deleted: true`` itself: a document that does not list it is
    the service's fault, not an argument of the user's."""
    proxy.add(LOOKUP, edit(_without_filter("include_deleted"), "no include_deleted"))
    error = _refused(sandbox, proxy, tmp_path / "m")
    assert error.finding == "filter_unlisted"
    text = _assert_refused_before_the_feed(error, proxy)
    assert "lists no include_deleted filter (its filters: id, name" in text, text
    assert "invalid include_deleted" not in text, text


def test_the_cli_exits_1_when_the_document_lists_no_include_deleted_filter(
    sandbox: Any, proxy: Proxy, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    at_service(monkeypatch, proxy.url, sandbox.public_token, sandbox.private_key)
    proxy.add(LOOKUP, edit(_without_filter("include_deleted"), "no include_deleted"))
    argv = ["mirror", "sync", str(tmp_path / "m"), "--entities", "companies,investors"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, err = run([*argv, "--no-progress"], capsys)
    assert code == 1, err
    assert "SERVICE_CONTRACT" in err and "lists no include_deleted filter" in err, err
    assert "this sync committed companies before it stopped at investors" in err, err


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (drop_field("id", first=1), "have no id"),
        (drop_field("deleted", first=1), "have no deleted flag"),
        (drop_rows(3), "is missing rows"),
    ],
    ids=["no-id", "no-deleted", "missing-rows"],
)
def test_a_page_refused_says_once_that_the_table_is_not_written(
    sandbox: Any, proxy: Proxy, tmp_path: Path, fault: Action, said: str
) -> None:
    """The error says what the page lacks; the note says, once, what became of the table."""
    proxy.add(FEED, fault)
    error = _refused(sandbox, proxy, tmp_path / "m")
    text = str(error)
    assert said in text, text
    assert "the investors table is not written (it stays as it was)" in text, text
    assert text.count("not written") == 1, text
