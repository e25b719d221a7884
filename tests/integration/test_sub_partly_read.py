"""A sub-collection over many ids whose later page fails: the id read in part is a failed id.

``co_investors(ids)`` with page 2 of one investor failing used to put ``'<id> page 2'`` in
``.failed``: the documented recipe ``partial[~partial.investor_id.isin(e.failed)]`` then kept
that investor's first page as if it were whole (issue 8's audit). ``.failed`` now holds the
id itself, its label names the pages (``<id> page 2``), and ``.partial`` keeps the rows that
did arrive. ``.expected`` and ``.received`` count ids, as docs/errors.md says for this kind of
call. The proxy serves small pages (a clamped ``limit``) and fails one page.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    clamp_limit,
    direct,
    fresh,
    fresh_rules,
    html,
    outcome,
    proxy,
)

from dealframe.errors import IncompleteResultError

P = "/api/private/v1"


def test_an_id_whose_page_2_failed_is_in_failed_and_its_other_pages_in_partial(
    direct, fresh, proxy
):
    investors = direct.private.investors(limit=30)["id"].tolist()
    counts = direct.private.co_investors(investors).groupby("investor_id").size()
    big = counts.idxmax()
    assert counts[big] > 3
    others = [i for i in investors if i != big and i in counts.index][:2]
    ids = [others[0], big, others[1]]
    ref = direct.private.co_investors(ids)
    path = f"^{P}/investors/{big}/co_investors$"
    proxy.add(path, clamp_limit(3))  # pages of 3 rows for this investor
    proxy.add(path, html(502), page=2)  # and its page 2 fails, every attempt
    o = outcome(lambda: fresh.private.co_investors(ids))
    error = o.error
    assert isinstance(error, IncompleteResultError), repr(error)
    assert error.failed == [big]
    assert error.labels == [f"{big} page 2"] and f"{big} page 2" in str(error)
    assert (error.expected, error.received) == (3, 2)  # ids, not rows
    partial = error.partial
    # its pages other than page 2: what arrived is kept
    assert (partial["investor_id"] == big).sum() == counts[big] - 3
    whole = partial[~partial["investor_id"].isin(error.failed)]
    assert_same(whole, ref[ref["investor_id"] != big], ignore_index=True)
    assert isinstance(whole, pd.DataFrame) and set(whole["investor_id"]) == set(others)
