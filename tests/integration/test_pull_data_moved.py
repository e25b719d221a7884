"""A list walk over data that changed while it ran: rows shifted between pages.

When rows are added, removed or updated during a pull, offset pages move: some rows come
twice and others are never served. The walk used to say only that ids came more than once
"with the same content" and how many distinct rows arrived (which blames the service and
never says rows may be missing), and a walk exactly one page short after rows were removed
was asked whether the service counts pages from 0. A ``meta.total`` that moves between pages
now says the data changed; repeats over several pages with the count off say rows may have
moved; repeats within one page, or no repeat, say neither.
"""

from __future__ import annotations

import sys
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import drop_rows, fresh_rules, meta_set, proxy, repeat_rows, via  # noqa: F401

from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
DEALS = {"deal_type": ["M&A", "Venture"]}  # several pages at the suite's scale
MIRROR = "pull again, or keep a mirror (dealframe.mirror) for a consistent copy"


def _said(call: Any) -> tuple[Any, str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = call()
    return frame, " ".join(str(w.message) for w in caught if w.category is ServiceContractWarning)


def test_rows_repeated_over_pages_with_the_count_off_may_have_moved(proxy: Any, via: Any) -> None:
    # page 2 served as if 3 rows had been added before it: 3 rows again, 3 pushed past the walk
    proxy.add(f"^{P}/transactions$", drop_rows(3), repeat_rows(3), page=2)
    frame, said = _said(lambda: via.private.deals(**DEALS, cache=False))
    assert frame["id"].is_unique
    assert frame.attrs["rows_expected"] - len(frame) == 3, said
    assert "rows came more than once (3 extra copies), as when rows move between pages" in said
    assert "rows may be missing" in said and MIRROR in said


def test_a_total_that_moves_between_pages_says_the_data_changed(proxy: Any, via: Any) -> None:
    # a page's worth of rows removed before page 2: exactly one page short, which alone reads
    # as a service counting pages from 0; its later pages' meta.total says otherwise
    first = via.private.deals(**DEALS, cache=False).attrs["rows_expected"]
    size = 1000
    proxy.add(f"^{P}/transactions$", meta_set(total=first - size), page=2)
    proxy.add(f"^{P}/transactions$", meta_set(total=first - size), page=3)
    proxy.add(f"^{P}/transactions$", drop_rows(size), page=3)
    _, said = _said(lambda: via.private.deals(**DEALS, cache=False))
    assert f"meta.total went from {first} to {first - size} while the pages were read" in said
    assert "the data changed during the pull" in said and MIRROR in said
    assert "count page from 0" not in said


@pytest.mark.parametrize("where", ["one page", "no repeat"])
def test_no_moving_data_is_blamed_without_its_signs(proxy: Any, via: Any, where: str) -> None:
    if where == "one page":  # a service repeating rows within a one-page answer
        proxy.add(f"^{P}/companies$", drop_rows(2), repeat_rows(2))
        call = lambda: via.private.companies(country=["FRA"], cache=False)  # noqa: E731
    else:
        proxy.add(f"^{P}/transactions$", drop_rows(3), page=2)
        call = lambda: via.private.deals(**DEALS, cache=False)  # noqa: E731
    _, said = _said(call)
    assert "distinct rows arrived" in said, said  # the shortfall is said
    assert "move between pages" not in said and "changed during the pull" not in said


def test_a_total_that_moves_is_said_when_the_rows_asked_add_up(proxy: Any, via: Any) -> None:
    """With ``limit``, the rows asked can all arrive while the data moves under the walk:
    nothing was said, though later pages' ``meta.total`` showed it."""
    first = via.private.deals(**DEALS, cache=False).attrs["rows_expected"]
    for page in (2, 3):
        proxy.add(f"^{P}/transactions$", meta_set(total=first - 40), page=page)
    frame, said = _said(lambda: via.private.deals(**DEALS, limit=2500, cache=False))
    assert len(frame) == 2500
    assert f"meta.total went from {first} to {first - 40} while the pages were read" in said


def test_repeats_within_one_page_batches_of_a_union_blame_no_moving_data(
    proxy: Any, via: Any
) -> None:
    """A filter of more ids than a request takes goes out in batches, each one page here: a
    page repeating its own rows is no sign of rows moving between pages."""
    targets = via.private.deals(**DEALS, cache=False)["target_id"].dropna().unique()[:60]
    fake = [str(uuid.UUID(int=n + 1, version=4)) for n in range(1400)]
    ids = [*targets, *fake]
    proxy.add(f"^{P}/transactions$", drop_rows(3), repeat_rows(3), times=1)
    frame, said = _said(lambda: via.private.deals(target_id=ids, cache=False))
    assert proxy.count(f"^{P}/transactions$") >= 2  # batches, one page each
    assert "came more than once" in said, said  # the repeats are said
    assert "move between pages" not in said and "changed during the pull" not in said
