"""Sub-collection names on a service that serves only the earlier ones (``acquisitions``,
``investments``: sandbox profile ``legacy-subresources``, interface document section 4.4),
whose companies discovery document lists ``sub_resources`` in a way the client could not read
(objects ``{name, path}``, the member absent, entries giving no path).

The client used to fall back on ``sellside`` silently, and explained the route's 404 on every
id as "no such id, soft-deleted, or no items". It now reads object entries, says what it saw
when it cannot read the list, asks the service (a 404 saying "no route" tries the earlier
name), and never blames the ids for a route the service does not have.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    outcome,
    proxy,
)

from dealframe.errors import NotFoundError
from dealframe.notices import MissingDataWarning, ServiceContractWarning
from dealframe.sandbox import run

P = "/api/private/v1"
LOOKUP = f"^{P}/lookup/companies$"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Any]:
    """A service serving /companies/{id}/acquisitions and /investments, not sellside/buyside."""
    with run(scale=0.05, profile="legacy-subresources") as served:
        yield served


@pytest.fixture(scope="module")
def ids(direct: Any) -> list[str]:
    return direct.private.companies(limit=120)["id"].tolist()


@pytest.fixture(scope="module")
def reference(direct: Any, ids: list[str]) -> Any:
    frame = direct.private.sellside(ids)
    assert len(frame), "the test needs companies sold"
    return frame


def sub_resources(change: Any) -> Action:
    def apply(doc: Any) -> Any:
        change(doc["data"])
        return doc

    return edit(apply, "sub_resources")


def as_objects(data: dict[str, Any]) -> None:
    data["sub_resources"] = [
        {"name": p.rsplit("/", 1)[-1], "path": p} for p in data["sub_resources"]
    ]


def absent(data: dict[str, Any]) -> None:
    data.pop("sub_resources", None)


def no_paths(data: dict[str, Any]) -> None:
    data["sub_resources"] = [{"rel": p.rsplit("/", 1)[-1]} for p in data["sub_resources"]]


def test_object_entries_are_read(fresh, proxy, ids, reference):
    proxy.add(LOOKUP, sub_resources(as_objects))
    o = outcome(lambda: fresh.private.sellside(ids))
    assert o.error is None, repr(o.error)
    assert_same(o.value, reference)
    assert not o.warned(MissingDataWarning), o.warned(MissingDataWarning)
    assert proxy.count("/sellside$") == 0


@pytest.mark.parametrize(
    ("change", "seen"),
    [(absent, "sub_resources is absent"), (no_paths, "sub_resources has entries that give no")],
)
def test_unreadable_sub_resources_are_said_and_the_earlier_name_tried(
    change, seen, fresh, proxy, ids, reference
):
    proxy.add(LOOKUP, sub_resources(change))
    o = outcome(lambda: fresh.private.sellside(ids))
    assert o.error is None, repr(o.error)
    assert_same(o.value, reference)
    said = o.warned(MissingDataWarning)  # ServiceContractWarning included
    assert len(said) == 1 and not [m for m in said if "companies answered 404" in m], said
    assert o.warned(ServiceContractWarning) == said
    assert seen in said[0] and "No route for" in said[0], said
    assert "the earlier name acquisitions" in said[0] and "is used" in said[0]
    assert proxy.count("/sellside$") == 1  # asked once, with the first id
    # the client keeps what it found: a later call neither asks nor says it again
    again = outcome(lambda: fresh.private.sellside(ids[:5]))
    assert again.error is None and not again.warned(ServiceContractWarning)
    assert proxy.count("/sellside$") == 1


def test_one_id_of_a_service_without_sellside_is_read(direct, fresh, proxy, reference):
    proxy.add(LOOKUP, sub_resources(absent))
    one = reference["company_id"].iloc[0]
    o = outcome(lambda: fresh.private.sellside(one))
    assert o.error is None, repr(o.error)
    assert_same(o.value, direct.private.sellside(one))


def no_route() -> Action:
    """The earlier name has no route either (a service serving neither)."""

    def apply(ex: Any) -> None:
        ex.forward = False
        ex.status = 404
        ex.headers = {"Content-Type": "application/json"}
        ex.content = orjson.dumps(
            {"error": {"code": "NOT_FOUND", "message": f"No route for {ex.path}"}}
        )

    return Action("no route", on_request=apply)


def test_a_missing_route_does_not_blame_the_ids(fresh, proxy, ids, reference):
    proxy.add(LOOKUP, sub_resources(absent))
    proxy.add(f"^{P}/companies/[^/]+/acquisitions$", no_route())
    o = outcome(lambda: fresh.private.sellside(reference["company_id"].iloc[0]))
    assert isinstance(o.error, NotFoundError), repr(o.error)
    assert "has no route for sellside" in str(o.error)
    assert "no such id" not in str(o.error)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "neither sellside nor the earlier acquisitions" in said[0], said
    many = outcome(lambda: fresh.private.sellside(ids[:10]))
    assert many.error is None, repr(many.error)
    missing = many.warned(MissingDataWarning)
    assert len(missing) == 1, missing
    assert "has no route for sellside" in missing[0] and "no such id" not in missing[0]
