"""Helper of the participant tests: co-investment edges compared with the service's own
``/investors/{id}/co_investors`` answers."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

__all__ = ["assert_edges_are_co_investors", "both_ways"]

_COLUMNS = ["shared_deals", "first_date", "last_date"]


def both_ways(edges: pd.DataFrame) -> pd.DataFrame:
    """Each edge of ``co_investment_edges`` from both ends (``me``, ``other``), as the
    service's ``co_investors`` lists them."""
    a = edges.rename(columns={"investor_a": "me", "investor_b": "other"})
    b = edges.rename(columns={"investor_b": "me", "investor_a": "other"})
    return pd.concat([a, b])[["me", "other", *_COLUMNS]]


def assert_edges_are_co_investors(
    edges: pd.DataFrame, theirs: pd.DataFrame, sample: Iterable[str]
) -> None:
    """Assert that, for each investor of ``sample``, the edges touching it are the rows of
    ``theirs`` (``client.private.co_investors(sample)``) for it: the same partners, shared
    deals and first and last shared dates."""
    ours = both_ways(edges)
    for me in sample:
        mine = ours[ours["me"] == me].drop(columns="me").set_index("other").sort_index()
        service = (
            theirs[theirs["investor_id"] == me]
            .rename(
                columns={
                    "id": "other",
                    "first_shared_date": "first_date",
                    "last_shared_date": "last_date",
                }
            )
            .set_index("other")[_COLUMNS]
            .sort_index()
        )
        pd.testing.assert_frame_equal(mine, service, check_names=False)
