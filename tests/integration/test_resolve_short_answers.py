"""Resolve answers that hold results for the first names sent only, over the drift proxy.

A service may answer a resolve request of 300 names with 100 results and no error: a bound on
the names per request it keeps silent about. When the results pair (by their echoed ``query``)
with the first names sent, the client takes that count as the service's bound: it keeps those
results, sends the names left in batches of that size, says so in
``attrs["batch_size_cut"]``, and keeps the size for its later calls once a batch sent again
came back whole (a batch of that many names, not fewer: a service losing the last result of
every answer of two or more drove the size kept down to 1). An answer that cannot be paired so
(results for other names than the first) is warned of as before (``count_mismatch``), with
nothing sent again. A name the caller's list repeats is sent once (a list of 50 names repeated
to 1,000 lost 900 results under a bound of 100).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
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
    """300 company names, each once (a repeated name is sent once)."""
    names = list(dict.fromkeys(direct.private.companies(limit=1000)["name"]))[:300]
    assert len(names) == 300
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
    """A service answering 100 names of the first request and 40 of each later one: the
    names left after 100 are sent in 100s, those come back with 40, the rest is sent in 40s
    (a batch of 40 and one of 20 for each); every name is resolved and 40 is kept, the
    bound a batch of 40 sent again came back whole at (100 never did)."""
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes))
    proxy.add(RESOLVE, first_results(100), times=1)
    proxy.add(RESOLVE, first_results(40), when=lambda ex: len(sizes) >= 1)
    matches = fresh.private.resolve_companies(names).matches
    assert_same(matches, direct.private.resolve_companies(names).matches)
    assert sizes[0] == 300 and sorted(sizes[1:3]) == [100, 100], sizes
    assert sorted(sizes[3:]) == [20, 20, 40, 40], sizes
    assert matches.attrs["batch_size"] == 40
    assert "batches of 40 kept" in matches.attrs["batch_size_cut"]


def test_a_bound_cut_again_below_the_names_left_is_not_kept(names, direct, fresh, proxy):
    """100 names of the first request answered, 60 of each later one: the 40 names left of
    each batch of 100 come back whole, but no batch of 60 names was sent again, so 60 is not
    told from a service losing results: every name is resolved, nothing is kept."""
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes))
    proxy.add(RESOLVE, first_results(100), times=1)
    proxy.add(RESOLVE, first_results(60), when=lambda ex: len(sizes) >= 1)
    matches = fresh.private.resolve_companies(names).matches
    assert_same(matches, direct.private.resolve_companies(names).matches)
    assert sizes == [300, 100, 100, 40, 40], sizes
    assert matches.attrs["batch_size"] == 1000
    assert "not kept" in matches.attrs["batch_size_cut"]


def test_a_service_losing_the_last_result_keeps_no_size(names, direct, fresh, proxy):
    """Every answer of two or more results loses its last one (one of one comes back whole):
    299 of 300 look like a bound of 299 and the last name, sent again alone, comes back whole,
    but one name tells no bound. Each of four calls sends 300 names and the one left, every
    name is resolved, and no size is kept. The lone answer used to keep 299, then 298, then
    1: the fourth call sent 300 requests of one name."""
    sizes: list[int] = []

    def lose_last(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list) and len(doc["data"]) > 1:
            doc["data"] = doc["data"][:-1]
        return doc

    proxy.add(RESOLVE, sizes_sent(sizes), edit(lose_last, "lose_last"))
    want = direct.private.resolve_companies(names).matches
    for call in range(4):
        sizes.clear()
        got = outcome(lambda: fresh.private.resolve_companies(names))
        assert got.error is None, repr(got.error)
        assert sizes == [300, 1], (call, sizes)
        matches = got.value.matches
        assert_same(matches, want)
        assert matches.attrs["batch_size"] == 1000, (call, matches.attrs["batch_size"])
        assert "not kept" in matches.attrs["batch_size_cut"]


def test_repeated_names_are_sent_once_under_a_bound(names, direct, fresh, proxy):
    """1,000 names, 50 distinct ones repeated 20 times (round-robin), at most 100 answered a
    request: the 50 are sent once, in one request, and every position has its name's result,
    as the sandbox resolves the 50 (one row per position; candidates once per name). It used to send
    the 1,000 and warn of 900 names without a result (``count_mismatch``)."""
    distinct = [*names[:45], *(f"no such company {i}" for i in range(5))]
    repeated = [distinct[i % 50] for i in range(1000)]
    sizes: list[int] = []
    proxy.add(RESOLVE, sizes_sent(sizes), first_results(100))
    got = outcome(lambda: fresh.private.resolve_companies(repeated, strict=True))
    assert got.error is None, repr(got.error)
    assert not got.warned(MissingDataWarning), got.warned(MissingDataWarning)
    assert sizes == [50], sizes
    once = direct.private.resolve_companies(distinct)
    matches, candidates = got.value
    assert matches["query"].tolist() == repeated
    assert_same(matches, once.matches.iloc[[i % 50 for i in range(1000)]], ignore_index=True)
    assert_same(candidates, once.candidates, ignore_index=True)
    assert matches.attrs["requests"] == 1 and "batch_size_cut" not in matches.attrs


def test_a_list_with_repeats_gives_the_frames_it_gave(direct):
    """Undisturbed, a list with repeats (of exact and ambiguous names, and names alike but
    for case) gives one row per position in ``matches``, as each name sent alone gives them
    (what sending every copy gave), and the candidates of each distinct name once (names
    alike but for case are distinct): a repeat's block again would double the rows of
    ``matches.merge(candidates, on="query")``."""
    listing = direct.private.companies(limit=1000)["name"]
    shared = listing[listing.duplicated()].unique().tolist()[:5]  # several companies each
    some = [*listing.iloc[:10], *shared, shared[0], shared[0].upper(), "no such company"]
    listed = [*some, *some[::-1], listing.iloc[3], shared[1]]
    got = direct.private.resolve_companies(listed)
    assert (got.matches["match_type"] == "ambiguous").sum() >= 2 * len(shared)
    each = {name: direct.private.resolve_companies([name]) for name in dict.fromkeys(listed)}
    assert_same(got.matches, pd.concat([each[n].matches for n in listed]), ignore_index=True)
    assert_same(got.candidates, pd.concat([e.candidates for e in each.values()]), ignore_index=True)


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
