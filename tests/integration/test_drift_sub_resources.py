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

import inspect
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    api_error,
    assert_same,
    direct,
    drop_connection,
    edit,
    fresh,
    fresh_rules,
    no_route,
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


def server_error() -> Action:
    """A 500 in the service's JSON error shape (nothing forwarded)."""
    return api_error(500, "INTERNAL", "boom")


@pytest.mark.parametrize("trouble", [server_error, drop_connection], ids=["500", "dropped"])
def test_a_probe_without_an_answer_decides_nothing(trouble, fresh, proxy, reference):
    """Review 3, D3: the route question meets a 500 (or a dropped connection) past the
    retries. That is no answer about the route: the call says what it met (never that
    sellside "answers"), its pull says its own error, and once the service recovers the next
    call asks again and finds the earlier name, not 404 "no route" on every id for the
    client's life."""
    sold = reference["company_id"].unique().tolist()[:5]
    broken = {"on": True}
    proxy.add(LOOKUP, sub_resources(absent))
    proxy.add(f"^{P}/companies/[^/]+/sellside$", trouble(), when=lambda ex: broken["on"])
    first = outcome(lambda: fresh.private.sellside(sold))
    assert first.error is not None  # the pull's own error: the service failed
    said = first.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "sellside answers" not in said[0] and "could not be asked" in said[0], said
    assert "asked again on the next call" in said[0], said
    assert proxy.count("/acquisitions$") == 0
    broken["on"] = False  # the service recovers
    second = outcome(lambda: fresh.private.sellside(sold))
    assert second.error is None, repr(second.error)
    assert_same(second.value, reference[reference["company_id"].isin(sold)], ignore_index=True)
    told = second.warned(ServiceContractWarning)
    assert len(told) == 1 and "the earlier name acquisitions" in told[0], told
    assert second.warned(MissingDataWarning) == told  # no id blamed for a missing route
    assert "is used" in told[0], told
    # decided now: a third call neither asks nor says it again
    asked = proxy.count("/sellside$")
    third = outcome(lambda: fresh.private.sellside(sold[:2]))
    assert third.error is None and not third.warned(ServiceContractWarning)
    assert proxy.count("/sellside$") == asked


def test_an_unanswered_earlier_name_is_not_said_to_answer(fresh, proxy, reference):
    """Review 3, D3: sellside has no route and the question about acquisitions meets a 500:
    the warning says so (not that acquisitions "answers"), and the next call asks again."""
    sold = reference["company_id"].unique().tolist()[:3]
    broken = {"on": True}
    proxy.add(LOOKUP, sub_resources(absent))
    proxy.add(f"^{P}/companies/[^/]+/acquisitions$", server_error(), when=lambda ex: broken["on"])
    first = outcome(lambda: fresh.private.sellside(sold))
    said = first.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "acquisitions (interface document section 4.4) answers" not in said[0], said
    assert "acquisitions (interface document section 4.4) could not be asked" in said[0], said
    assert "500" in said[0], said
    broken["on"] = False
    asked = proxy.count("/sellside$")
    second = outcome(lambda: fresh.private.sellside(sold))
    assert second.error is None, repr(second.error)
    assert_same(second.value, reference[reference["company_id"].isin(sold)], ignore_index=True)
    assert proxy.count("/sellside$") == asked + 1  # the question was still open: asked again


def _waiting_at_gate(thread: threading.Thread) -> bool:
    """Whether ``thread`` waits to enter the route question another thread is asking (its
    innermost Python frame is ``SubRoutes.name_for`` on its ``with gate:`` line)."""
    from dealframe.private.subroutes import SubRoutes

    code = SubRoutes.name_for.__code__
    lines, first = inspect.getsourcelines(SubRoutes.name_for)
    gate = [first + i for i, line in enumerate(lines) if line.strip().startswith("with gate")]
    frame = sys._current_frames().get(thread.ident or -1)
    return frame is not None and frame.f_code is code and frame.f_lineno in gate


def _holding() -> tuple[threading.Event, threading.Event, Action]:
    """(arrived, release, an action holding a request until ``release``: ``arrived`` set)."""
    arrived, release = threading.Event(), threading.Event()

    def hold(ex: Any) -> None:
        arrived.set()
        release.wait(30)

    return arrived, release, Action("hold", on_request=hold)


def _four_first_calls(
    fresh: Any, proxy: Any, sold: list[str], arrived: threading.Event, release: threading.Event
) -> tuple[dict[int, Any], list[str]]:
    """Four threads' first ``sellside`` calls on ``fresh`` (three companies each): the first
    thread's route question is held at the proxy (``arrived``) until the other three wait for
    it at the route's gate (or have asked their own), then released. Returns each call's
    frame or exception, and the ``ServiceContractWarning`` messages of all four."""
    fresh.private.schema("companies")  # read first: the threads meet only at the route
    out: dict[int, Any] = {}

    def call(k: int) -> None:
        try:
            out[k] = fresh.private.sellside(sold[3 * k : 3 * k + 3])
        except Exception as exc:  # said by the caller's assertions
            out[k] = exc

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads[0].start()
        assert arrived.wait(30)
        for t in threads[1:]:
            t.start()
        for _ in range(6000):  # until the others wait for the first, or have asked themselves
            if proxy.count("/sellside$") == 4 or all(_waiting_at_gate(t) for t in threads[1:]):
                break
            threading.Event().wait(0.005)
        release.set()
        for t in threads:
            t.join(60)
    assert len(out) == 4
    return out, [str(w.message) for w in caught if issubclass(w.category, ServiceContractWarning)]


def test_concurrent_first_calls_ask_once_and_say_it_once(fresh, proxy, reference):
    """Review 3: four threads' first sellside calls on one client: one route question (the
    first thread's, held at the proxy until the other three wait for it or have asked their
    own), one warning, every frame right."""
    sold = reference["company_id"].unique().tolist()[:12]
    arrived, release, hold = _holding()
    proxy.add(LOOKUP, sub_resources(absent))
    proxy.add(f"^{P}/companies/[^/]+/sellside$", hold)
    out, said = _four_first_calls(fresh, proxy, sold, arrived, release)
    for k in range(4):
        assert not isinstance(out[k], Exception), repr(out[k])
        want = reference[reference["company_id"].isin(sold[3 * k : 3 * k + 3])]
        assert_same(out[k], want, ignore_index=True)
    assert proxy.count("/sellside$") == 1, proxy.count("/sellside$")
    assert len(said) == 1, said


def test_concurrent_first_calls_share_a_question_that_met_an_outage(fresh, proxy, reference):
    """Review 6: the route question meets a 500 past its retries while three more first
    calls wait for it: they use its outcome (one question, one warning), not ask again one
    after another, each with its retries (the fourth caller waited four questions)."""
    sold = reference["company_id"].unique().tolist()[:12]
    arrived, release, hold = _holding()

    def asking(ex: Any) -> bool:  # the route question (one row), not the pulls
        return ex.query.get("limit") == "1"

    questions: list[str] = []
    proxy.add(LOOKUP, sub_resources(absent))
    proxy.add(f"^{P}/companies/[^/]+/sellside$", hold, times=1)
    count = Action("count", on_request=lambda ex: questions.append(ex.path))
    proxy.add(f"^{P}/companies/[^/]+/sellside$", count, server_error(), when=asking)
    out, said = _four_first_calls(fresh, proxy, sold, arrived, release)
    assert len(said) == 1, said
    assert len(questions) == 1 + FAST["retries"], questions  # one question and its retries
