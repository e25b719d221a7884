"""Resolve answers that hold results for the first names sent only, over the drift proxy.

A service may answer a resolve request of 300 names with 100 results and no error: a bound on
the names per request it keeps silent about. When the results pair (by their echoed ``query``)
with the first names sent, the client takes that count as the service's bound: it keeps those
results, sends the names left in batches of that size, says so in
``attrs["batch_size_cut"]``, and keeps the size for its later calls once a batch sent again
came back whole. An answer that cannot be paired so (results for other names than the first)
is warned of as before (``count_mismatch``), with nothing sent again.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    Action,
    Exchange,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)

from dealframe.notices import MissingDataWarning

RESOLVE = "^/api/private/v1/companies/resolve$"


def sizes_sent(sizes: list[int]) -> Action:
    """Record the number of names of every resolve request in ``sizes``."""

    def apply(ex: Exchange) -> None:
        if isinstance(ex.body, dict) and isinstance(ex.body.get("names"), list):
            sizes.append(len(ex.body["names"]))

    return Action("sizes_sent", on_request=apply)


def first_results(n: int, *, reverse: bool = False) -> Action:
    """Keep the first ``n`` results of a resolve answer (in reverse order with ``reverse``)."""

    def apply(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            kept = doc["data"][:n]
            doc["data"] = kept[::-1] if reverse else kept
        return doc

    return edit(apply, f"first_results({n})")


@pytest.fixture(scope="module")
def names(direct: Any) -> list[str]:
    names = direct.private.companies(limit=300)["name"].tolist()
    assert len(names) == 300 and len(set(names)) > 200
    return names


@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "reversed"])
def test_an_answer_for_the_first_names_only_is_a_bound(reverse, names, direct, fresh, proxy):
    """300 names answered 100 at a time (the first 100 of each request, in order or not): the
    200 left are sent again in batches of 100, every name is resolved as the sandbox itself
    resolves it, without a warning, the size is said and kept for the next call (it used to
    be a ``count_mismatch`` warning with 200 names unresolved)."""
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes), first_results(100, reverse=reverse))
    got = outcome(lambda: fresh.private.resolve_companies(names, strict=True))
    assert got.error is None, repr(got.error)
    assert not got.warned(MissingDataWarning), got.warned(MissingDataWarning)
    matches = got.value.matches
    assert_same(matches, direct.private.resolve_companies(names).matches)
    assert sizes == [300, 100, 100], sizes
    assert matches.attrs["requests"] == 3
    assert matches.attrs["batch_size"] == 100
    said = matches.attrs["batch_size_cut"]
    assert "100 results for 300 names sent" in said and "batches of 100 kept" in said, said
    sizes.clear()
    again = fresh.private.resolve_companies(names).matches
    assert sizes == [100, 100, 100], sizes  # the bound is kept
    assert "batch_size_cut" not in again.attrs
    assert again["match_type"].notna().all()


def test_answers_cut_again_lower_the_bound(names, direct, fresh, proxy):
    """A service answering 100 names of the first request and 60 of each later one: the
    names left after 100 are sent in 100s, those come back with 60, the rest is sent in 60s;
    every name is resolved and 60 is kept."""
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes))
    proxy.add(RESOLVE, first_results(100), times=1)
    proxy.add(RESOLVE, first_results(60), when=lambda ex: len(sizes) >= 1)
    matches = fresh.private.resolve_companies(names).matches
    assert_same(matches, direct.private.resolve_companies(names).matches)
    assert sizes[0] == 300 and sorted(sizes[1:3]) == [100, 100], sizes
    assert all(s <= 60 for s in sizes[3:]) and sum(sizes[3:]) == 80, sizes
    assert matches.attrs["batch_size"] == 60


def test_results_for_other_names_than_the_first_are_warned(names, fresh, proxy):
    """An answer holding the last 100 results of 300: not the first names, so no bound is
    read from it: a ``count_mismatch`` warning, 200 names unresolved, nothing sent again."""
    sizes: list[int] = []
    last = edit(lambda doc: {**doc, "data": doc["data"][200:]}, "last 100")
    proxy.add(RESOLVE, sizes_sent(sizes), last)
    got = outcome(lambda: fresh.private.resolve_companies(names))
    assert got.error is None, repr(got.error)
    assert any("/companies/resolve" in m for m in got.warned(MissingDataWarning))
    matches = got.value.matches
    assert sizes == [300]
    assert matches["match_type"].isna().sum() == 200
    assert matches.attrs["batch_size"] == 1000 and "batch_size_cut" not in matches.attrs


def test_a_result_lost_at_the_end_is_not_kept_as_a_bound(names, fresh, proxy):
    """Every answer loses its last result: 299 of 300 look like a bound of 299, so the last
    name is sent again; its answer is empty too, so it is warned of as before and no bound
    is kept (the next call sends 300 again)."""
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes), edit(lambda doc: {**doc, "data": doc["data"][:-1]}))
    got = outcome(lambda: fresh.private.resolve_companies(names))
    assert got.error is None, repr(got.error)
    assert any("/companies/resolve" in m for m in got.warned(MissingDataWarning))
    matches = got.value.matches
    assert sizes == [300, 1], sizes
    assert matches["match_type"].isna().sum() == 1
    assert "not kept" in matches.attrs["batch_size_cut"]
    sizes.clear()
    outcome(lambda: fresh.private.resolve_companies(names))
    assert sizes[0] == 300, sizes


def test_whole_answers_send_as_many_requests_as_before(names, fresh, proxy):
    """Undisturbed: 2,500 names are 3 requests (1,000, 1,000, 500), and 300 one."""
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes))
    many = [*names, *(f"no such company {i}" for i in range(2200))]
    matches = fresh.private.resolve_companies(many).matches
    assert sorted(sizes) == [500, 1000, 1000], sizes
    assert matches.attrs["requests"] == 3 and "batch_size_cut" not in matches.attrs
    assert matches["match_type"].notna().all()
    sizes.clear()
    fresh.private.resolve_companies(names)
    assert sizes == [300]
