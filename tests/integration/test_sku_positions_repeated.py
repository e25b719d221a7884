"""Errors place a SKU in the caller's list even when the caller repeated some (issue 3 audit).

A SKU given twice is sent once, so the requests hold positions of the de-duplicated list.
Before, the notes and labels counted that list: with 156 SKUs (5 repeated) and one the service
refuses at index 155, the 400's note said "position 100 + i of yours: the request held SKUs
100..150 of 151" (the SKU is at 155 of the caller's 156), and a failed chunk was labelled
"SKUs 101-150". Now each chunk's SKUs are mapped back to their first index in the caller's
list: a chunk that is a run of it keeps the offset wording, with the caller's positions; one
with repeats inside says so and names the caller's position of each ``skus[i]`` the service's
message names. Over HTTP against the session sandbox, which refuses ``A_B-USA`` as a v2 SKU
(the client sends it: the layout is the service's to judge); a chunk that fails is the drift
proxy's (a 503 to the request holding a given SKU, whichever worker sends it).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import fresh_rules, html, proxy, via  # noqa: F401 - fixtures are used by name

from dealframe.client import Client
from dealframe.errors import BadRequestError, IncompleteResultError

REFUSED = "A_B-USA"  # passed by the client, refused by the sandbox


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as c:
        yield c


def _skus(n: int) -> list[str]:
    """Well-formed SKUs no company has."""
    return [f"ZZ{i:04d}-ZZZ" for i in range(n)]


def _service_position(error: BadRequestError) -> int:
    """The ``skus[i]`` the service's message names."""
    found = re.findall(r"skus\[(\d+)\]", str(error))
    assert len(set(found)) == 1, str(error)
    return int(found[0])


@pytest.mark.parametrize("path", ["current", "time_series"])
def test_a_refused_sku_after_repeats_is_placed_at_its_index_in_the_callers_list(client, path):
    fake = _skus(150)
    skus = [*fake[:100], *fake[:5], *fake[100:], REFUSED]  # 156, five repeated
    assert len(skus) == 156 and skus.index(REFUSED) == 155
    with pytest.raises(BadRequestError) as info:
        getattr(client.public, path)(skus)
    note = " ".join(getattr(info.value, "__notes__", []))
    offset = re.search(r"position (\d+) \+ i of yours", note)
    assert offset is not None, note
    assert int(offset.group(1)) + _service_position(info.value) == 155, note
    assert "the request held SKUs 105..155 of 156" in note, note


def test_a_refused_sku_in_one_request_with_repeats_inside_is_named_at_its_index(client):
    """One request, a SKU repeated before the refused one: the service's ``skus[1]`` is the
    caller's ``skus[2]``; no offset says that, so the note names it (there was no note)."""
    skus = ["ZZ0001-ZZZ", "ZZ0001-ZZZ", REFUSED]
    with pytest.raises(BadRequestError) as info:
        client.public.current(skus)
    assert _service_position(info.value) == 1
    note = " ".join(getattr(info.value, "__notes__", []))
    assert f"its skus[1] is position 2 of yours ({REFUSED})" in note, note
    assert "2 distinct SKUs first given at positions 0..2 of your 3" in note, note


def test_a_refused_sku_with_repeats_inside_its_chunk_is_named_at_its_index(client):
    """The repeats fall inside the second chunk: its SKUs are no run of the caller's list."""
    fake = _skus(150)
    skus = [*fake[:120], *fake[:3], *fake[120:], REFUSED]  # the repeats after fake[119]
    with pytest.raises(BadRequestError) as info:
        client.public.current(skus)
    i = _service_position(info.value)
    note = " ".join(getattr(info.value, "__notes__", []))
    assert f"its skus[{i}] is position {len(skus) - 1} of yours ({REFUSED})" in note, note
    assert f"first given at positions 100..{len(skus) - 1} of your {len(skus)}" in note, note


def test_a_failed_chunk_after_repeats_is_labelled_with_the_callers_positions(via, proxy):
    fake = _skus(250)
    skus = [*fake[:100], *fake[:5], *fake[100:]]  # 255, five repeated
    fail = fake[100]  # the first SKU of the second request: the caller's 106th
    proxy.add(
        r"/companies/time-series$",
        html(503),
        when=lambda ex: isinstance(ex.body, dict) and fail in ex.body.get("skus", []),
    )
    with pytest.raises(IncompleteResultError) as info:
        via.public.time_series(skus, fields=["evRevenueLtm"])
    error = info.value
    assert error.failed == [fake[100:200]]
    assert error.labels == [f"SKUs 106-205 ({fake[100]} ... {fake[199]})"], error.labels
    assert error.labels[0] in str(error) and "of 250 distinct SKUs" in str(error), str(error)
    # the partial says, as a whole frame does, which SKUs of the chunks that arrived did not
    # come back: every one here (none is a company), the failed chunk's being in .failed
    partial = error.partial
    assert partial.attrs["missing_skus"] == [*fake[:100], *fake[200:]]
    assert not set(partial.attrs["missing_skus"]) & set(error.failed[0])


def test_a_failed_chunk_counts_as_received_only_the_skus_that_came_back(via, proxy):
    """The sandbox's 100 listed SKUs and one no company has (in the first request), the
    second request failing: received is the SKUs that came back (99), not every SKU outside
    the failed chunk (100, the one not returned among them); that one is the partial's
    missing SKU."""
    known = list(via.public.search().index)  # before any rule: the sandbox's answer
    assert len(known) == 100, "the test needs two requests of current data"
    skus = [*known[:50], "ZZZZ9999-USA", *known[50:]]
    fail = skus[100]  # the second request's one SKU
    proxy.add(
        r"/companies/current$",
        html(503),
        when=lambda ex: isinstance(ex.body, dict) and fail in ex.body.get("skus", []),
    )
    with pytest.raises(IncompleteResultError) as info:
        via.public.current(skus)
    error = info.value
    assert error.failed == [[fail]]
    assert (error.expected, error.received) == (101, 99), str(error)
    assert error.partial.attrs["missing_skus"] == ["ZZZZ9999-USA"]
