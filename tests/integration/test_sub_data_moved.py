"""A sub-collection walk over data that changed while it ran says so as a list walk does.

The list pulls (``deals()``, ``companies()`` ...) say when a later page reports another
``meta.total``, or rows repeat over several pages with the count off: rows may be missing,
pull again or keep a mirror. The pulls of the paged lists under an id (``investments``,
``portfolio``, ``buyside`` ...) said nothing of a ``meta.total`` that moved, and counted the
repeated rows as arrived, so repeats that hid as many missing rows added up and were said
only as repeats. They now go through the same count (:func:`dealframe.private.counts.
say_count`): the same wording, the distinct rows counted. The drift proxy serves small pages
(``clamp_limit``) so that one investor's investments span many.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    clamp_limit,
    drop_rows,
    fresh_rules,
    meta_set,
    proxy,
    repeat_rows,
    via,
)

from dealframe import explode_participants
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"
INVESTMENTS = rf"^{P}/investors/[^/]+/investments$"
MIRROR = "pull again, or keep a mirror (dealframe.mirror) for a consistent copy"
SIZE = 10  # rows per page the proxy lets through


@pytest.fixture(scope="module")
def busiest(via: Any) -> tuple[str, int]:
    """The investor leading the most deals of a page of Venture deals, and its investments."""
    deals = via.private.deals(deal_type=["Venture"], limit=1000, cache=False)
    leads = explode_participants(deals, roles=["lead_investor"])
    ident = str(leads["participant_id"].value_counts().index[0])
    rows = len(via.private.investments(ident, cache=False))
    assert rows > 3 * SIZE, rows  # several pages at SIZE rows a page
    return ident, rows


def _said(call: Any) -> tuple[Any, str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = call()
    return frame, " ".join(str(w.message) for w in caught if w.category is ServiceContractWarning)


def test_a_total_that_moves_between_pages_of_a_sub_collection_is_said(
    proxy: Any, via: Any, busiest: tuple[str, int]
) -> None:
    ident, rows = busiest
    proxy.add(INVESTMENTS, clamp_limit(SIZE))
    proxy.add(INVESTMENTS, meta_set(total=rows - 5), page=2)
    frame, said = _said(lambda: via.private.investments(ident, cache=False))
    assert len(frame) == rows
    assert f"{rows} distinct rows arrived: meta.total went from {rows} to {rows - 5}" in said
    assert "the data changed during the pull, so rows may be missing" in said and MIRROR in said


def test_rows_repeated_over_pages_of_a_sub_collection_are_not_counted_as_arrived(
    proxy: Any, via: Any, busiest: tuple[str, int]
) -> None:
    """Page 2 served as if 3 rows had been added before it: 3 rows again, 3 never served."""
    ident, rows = busiest
    proxy.add(INVESTMENTS, clamp_limit(SIZE))
    proxy.add(INVESTMENTS, drop_rows(3), repeat_rows(3), page=2)
    frame, said = _said(lambda: via.private.investments([ident], cache=False))
    assert len(frame) == rows - 3 and frame["id"].is_unique
    assert f"meta.total announced {rows} rows; {rows - 3} distinct rows arrived" in said, said
    assert "rows came more than once (3 extra copies), as when rows move between pages" in said
    assert "rows may be missing" in said and MIRROR in said


def test_a_sub_collection_that_adds_up_over_still_data_says_nothing(
    proxy: Any, via: Any, busiest: tuple[str, int]
) -> None:
    ident, rows = busiest
    proxy.add(INVESTMENTS, clamp_limit(SIZE))
    frame, said = _said(lambda: via.private.investments(ident, cache=False))
    assert len(frame) == rows and not said, said
