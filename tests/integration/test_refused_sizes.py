"""A request refused as too large whose body states no bound: the client halves, the doctor
follows it to the size that is taken.

A short plain-text refusal (``limit too large``, 15 bytes) used to be read through
dealframe's own summary of the body (``not a JSON error body (15 bytes of text/plain, ...)``):
its byte count was taken for the bound the service stated, and lists were walked in pages of
15, Family A current data asked 13 SKUs at a time, names resolved 32 at a time, and the
doctor said "the bound stated". A bound is now read from the service's words alone, so these
are halved. The doctor used to give up after one smaller ``limit`` (or four smaller resolve
batches) and said ``breaks`` where the client, halving on, copes: it now asks as the client
does until a size is taken.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Exchange,
    Proxy,
    assert_same,
    direct,
    fresh_rules,
    outcome,
    proxy,
    refuse,
)

import dealframe.mirror as mirror
from dealframe import Client
from dealframe.doctor.checks import ADAPTED, HOLDS, MAX_REQUESTS, Check, diagnose

P = "/api/private/v1"
INVESTORS = f"^{P}/investors$"
RESOLVE = f"^{P}/companies/resolve$"
CURRENT = "^/api/v[12]/companies/current$"


@pytest.fixture
def client(sandbox: Any, proxy: Proxy) -> Iterator[Client]:
    """A client through the proxy, of its own (what it learns of the service stays with it)."""
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


def text_refusal(status: int, text: str, over: int, member: str) -> Action:
    """Refuse, with ``status`` and the plain-text body ``text`` (no number in it), a POST
    whose ``member`` (``limit``, or the number of ``names`` or ``skus``) is above ``over``."""

    def apply(ex: Exchange) -> None:
        value = ex.body.get(member) if isinstance(ex.body, dict) else None
        sent = len(value) if isinstance(value, list) else value
        if isinstance(sent, int) and sent > over:
            ex.forward, ex.status, ex._doc = False, status, None
            ex.headers = {"Content-Type": "text/plain; charset=utf-8"}
            ex.content = text.encode()

    return Action(f"text_refusal({member} > {over})", on_request=apply)


def sizes(proxy: Proxy, path: str, member: str) -> list[int]:
    """Record, from now on, the size of ``member`` of each POST to ``path`` (a regex)."""
    seen: list[int] = []

    def apply(ex: Exchange) -> None:
        value = ex.body.get(member) if isinstance(ex.body, dict) else None
        seen.append(len(value) if isinstance(value, list) else value)

    proxy.add(path, Action("record", on_request=apply), method="POST")
    return seen


def _checks(client: Client, family: str) -> dict[str, Check]:
    return {c.name: c for c in diagnose(client, family=family).checks}


def _halved(start: int, over: int) -> list[int]:
    """The sizes the client sends, halving from ``start`` until one is at most ``over``."""
    found = [start]
    while found[-1] > over:
        found.append(found[-1] // 2)
    return found


# ------------------------------------------------------------------- no bound stated: halves


def test_list_limit_refused_in_plain_text_is_halved_not_read_from_the_summary(
    client: Client, direct: Any, proxy: Proxy
) -> None:
    """``limit too large`` (15 bytes of text/plain) states no bound: 1000, 500, 250 (the
    pages used to be of 15, the summary's byte count), every row once."""
    limits = sizes(proxy, INVESTORS, "limit")
    proxy.add(INVESTORS, text_refusal(400, "limit too large", 300, "limit"), method="POST")
    got = outcome(lambda: client.private.investors())
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.investors())
    assert limits[:3] == [1000, 500, 250], limits
    assert set(limits[3:]) <= {250}, limits
    said = got.value.attrs["page_size_refused"]
    assert said.endswith("pages of 250") and "pages of 15" not in said, said


def test_mirror_sync_halves_a_plain_text_limit_refusal(
    client: Client, proxy: Proxy, tmp_path: Path
) -> None:
    """The mirror's feed adapts by the same rule, and its report says pages of 250."""
    limits = sizes(proxy, INVESTORS, "limit")
    proxy.add(INVESTORS, text_refusal(400, "limit too large", 300, "limit"), method="POST")
    report = mirror.sync(client, tmp_path / "m", ["investors"])
    said = report["investors"].page_size_refused or ""
    assert said.endswith("pages of 250") and "pages of 15" not in said, said
    assert limits[:3] == [1000, 500, 250] and 15 not in limits, limits
    assert report["investors"].table_rows == report["investors"].service_rows


@pytest.mark.parametrize("status", [413, 422])
def test_a_list_limit_refused_with_413_or_422_is_halved_too(
    client: Client, direct: Any, proxy: Proxy, status: int
) -> None:
    """The documented statuses of a refused size are 400, 413 and 422: a list call and the
    mirror's feed raised a 413 (only a 400/422 ``BadRequestError`` was read as one), while
    the doctor said ``adapted``."""
    limits = sizes(proxy, INVESTORS, "limit")
    proxy.add(INVESTORS, text_refusal(status, "limit too large", 300, "limit"), method="POST")
    got = outcome(lambda: client.private.investors())
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.private.investors())
    assert limits[:3] == [1000, 500, 250], limits


@pytest.mark.parametrize("status", [413, 422])
def test_the_mirror_feed_halves_a_limit_refused_with_413_or_422(
    client: Client, proxy: Proxy, tmp_path: Path, status: int
) -> None:
    """The mirror's feed reads the same statuses as a refused size (it raised a 413)."""
    limits = sizes(proxy, INVESTORS, "limit")
    proxy.add(INVESTORS, text_refusal(status, "limit too large", 300, "limit"), method="POST")
    report = mirror.sync(client, tmp_path / "m", ["investors"])
    assert (report["investors"].page_size_refused or "").endswith("pages of 250")
    assert limits[:3] == [1000, 500, 250], limits
    assert report["investors"].table_rows == report["investors"].service_rows


def test_current_skus_refused_in_plain_text_are_halved(
    client: Client, direct: Any, proxy: Proxy
) -> None:
    """``too many skus`` (13 bytes of text/plain) over 30 SKUs: requests of 50, then 25 (they
    used to be of 13)."""
    skus = direct.public.search().index.tolist()[:100]
    assert len(skus) == 100
    sent = sizes(proxy, CURRENT, "skus")
    proxy.add(CURRENT, text_refusal(400, "too many skus", 30, "skus"), method="POST")
    got = outcome(lambda: client.public.current(skus))
    assert got.error is None, repr(got.error)
    assert_same(got.value, direct.public.current(skus))
    said = got.value.attrs["skus_per_request_refused"]
    assert said.endswith("requests of 25 SKUs"), said
    assert max(sent[-4:]) == 25 and 13 not in sent, sent


def test_resolve_names_refused_in_plain_text_are_halved(
    client: Client, direct: Any, proxy: Proxy
) -> None:
    """The documentation's own example, ``Error: too many items in request`` (a 413 of
    text/plain, 32 bytes) over 100 names: batches of 150, then 75 (they used to be of 32)."""
    names = list(dict.fromkeys(direct.private.companies()["name"]))[:300]  # each sent once
    assert len(names) == 300
    sent = sizes(proxy, RESOLVE, "names")
    proxy.add(
        RESOLVE, text_refusal(413, "Error: too many items in request", 100, "names"), method="POST"
    )
    got = outcome(lambda: client.private.resolve_companies(names))
    assert got.error is None, repr(got.error)
    assert_same(got.value.matches, direct.private.resolve_companies(names).matches)
    assert got.value.matches.attrs["batch_size"] == 75
    assert sent[0] == 300 and 32 not in sent and max(sent[-4:]) == 75, sent


@pytest.mark.parametrize(
    ("family", "name", "path", "status", "text", "over", "member"),
    [
        ("B", "B.paging.limit", f"^{P}/companies$", 400, "limit too large", 300, "limit"),
        ("A", "A.skus_per_request", CURRENT, 400, "too many skus", 30, "skus"),
        ("B", "B.resolve.batch", RESOLVE, 413, "Error: too many items in request", 100, "names"),
    ],
    ids=["list-limit", "current-skus", "resolve-names"],
)
def test_the_doctor_says_half_when_a_plain_text_refusal_states_no_bound(
    client: Client,
    proxy: Proxy,
    family: str,
    name: str,
    path: str,
    status: int,
    text: str,
    over: int,
    member: str,
) -> None:
    """The doctor reads the refusal by the client's rule: halved, no bound stated (it used
    to say "the bound stated", the bound being the summary's byte count)."""
    proxy.add(path, text_refusal(status, text, over, member), method="POST")
    check = _checks(client, family)[name]
    assert check.verdict == ADAPTED, check
    assert "half: no bound stated" in check.observed, check.observed
    assert "the bound stated" not in check.observed, check.observed
    assert text in check.observed  # the service's words are quoted


# ------------------------------------------------------- the doctor follows the client's halving


def _json_refusal(message: str, status: int = 400) -> Any:
    code = "PAYLOAD_TOO_LARGE" if status == 413 else "BAD_REQUEST"
    return lambda sent: {"error": {"code": code, "message": message}}


def test_the_doctor_follows_a_list_limit_refusal_through_several_halvings(
    client: Client, proxy: Proxy
) -> None:
    """A list refusing ``limit`` above 100 without a bound: the client halves four times
    (1000, 500, 250, 125, 62); the doctor did once, then said ``breaks`` (and its list
    checks saw no items). It now says ``adapted`` at 62, and the list items are checked."""
    proxy.add(
        f"^{P}/(companies|investors|transactions)$",
        refuse(400, _json_refusal("Invalid request: limit too large"), 100, "limit"),
        method="POST",
    )
    got = outcome(lambda: client.private.investors())
    assert got.error is None and got.value.attrs["page_size_refused"].endswith("pages of 62")
    checks = _checks(client, "B")
    check = checks["B.paging.limit"]
    assert check.verdict == ADAPTED, check
    for size in _halved(1000, 100)[:-1]:
        assert f"limit {size} refused" in check.observed, check.observed
    assert "half: no bound stated" in check.observed and "asked again: 62 rows" in check.observed
    assert checks["B.list_items"].verdict in (HOLDS, ADAPTED), checks["B.list_items"]
    assert checks["B.timestamps"].verdict in (HOLDS, ADAPTED), checks["B.timestamps"]


def test_the_doctor_follows_a_resolve_cap_of_50_without_a_bound(
    client: Client, proxy: Proxy
) -> None:
    """Resolve refused above 50 names (413 ``Too many names in request``): the client halves
    (300 names: 150, 75, 37) and resolves every name; the doctor, sending 1,000, stopped
    after four requests and said ``still refused``, ``breaks``. It now follows the same
    halving to 31: ``adapted``."""
    proxy.add(
        RESOLVE,
        refuse(413, _json_refusal("Too many names in request", 413), 50, "names"),
        method="POST",
    )
    names = [f"Name {i}" for i in range(300)]
    got = outcome(lambda: client.private.resolve_companies(names))
    assert got.error is None and len(got.value.matches) == 300
    assert got.value.matches.attrs["batch_size"] == 37
    check = _checks(client, "B")["B.resolve.batch"]
    assert check.verdict == ADAPTED, check
    assert "the client sends 31 (half: no bound stated); 31 accepted" in check.observed


def test_the_doctor_halves_to_one_within_its_request_budget(client: Client, proxy: Proxy) -> None:
    """The longest way: lists and resolve both taken only at 1 (ten sizes each, 1000 .. 1):
    both ``adapted``, the run within its 60 requests, its budget not reached."""
    proxy.add(
        f"^{P}/(companies|investors|transactions)$",
        refuse(400, _json_refusal("limit too large"), 1, "limit"),
        method="POST",
    )
    proxy.add(RESOLVE, refuse(413, _json_refusal("Too many names", 413), 1, "names"))
    diagnosis = diagnose(client)
    checks = {c.name: c for c in diagnosis.checks}
    assert checks["B.paging.limit"].verdict == ADAPTED, checks["B.paging.limit"]
    assert "asked again: 1 rows per page" in checks["B.paging.limit"].observed
    assert checks["B.resolve.batch"].verdict == ADAPTED, checks["B.resolve.batch"]
    assert "1 accepted" in checks["B.resolve.batch"].observed
    assert not diagnosis.budget_reached
    assert diagnosis.requests <= MAX_REQUESTS
