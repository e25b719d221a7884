"""The public <-> private link's own work over HTTP against the sandbox: its matching reads the
fetched frames once and calls its unchecked helpers, so it costs in proportion to its data.

A nightly job linking 20,000 SKUs both ways spent minutes of pure Python in the matching,
every answer cached: a pandas row read per company (each copying the frame's ``attrs``) and
the public, argument-checked ``name_score`` / ``listing_key`` called per candidate. These
tests count that work instead of timing it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from pandas.core.generic import NDFrame

import dealframe
import dealframe.link
from dealframe import Client


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[Client]:
    with Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def skus(client: Client) -> list[str]:
    found = list(client.public.search().index)
    assert len(found) >= 40
    return found


def _both_ways(client: Client, skus: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    links = dealframe.companies_for_skus(client, skus)
    back = dealframe.skus_for_companies(client, links["company_id"].dropna())
    assert (links["match"] == "matched").all() and (back["match"] == "matched").all()
    return links, back


def test_matching_does_not_go_through_the_checked_helpers(client, skus, monkeypatch):
    """The public ``name_score`` and ``listing_key`` (argument-checked, for users) are not
    what the link calls for each row and candidate: it calls their unchecked insides."""
    calls: Counter[str] = Counter()
    for name in ("name_score", "listing_key"):
        public = getattr(dealframe.link, name)

        def counted(*args: Any, _public: Any = public, _name: str = name, **kwargs: Any) -> Any:
            calls[_name] += 1
            return _public(*args, **kwargs)

        monkeypatch.setattr(dealframe.link, name, counted)
    links, back = _both_ways(client, skus[:40])
    assert len(links) == 40 and len(back) == 40
    assert calls == Counter(), calls
    # the public names still answer, and still check their arguments
    assert dealframe.link.name_score("Acme Robotics Inc", "ACME ROBOTICS") == 1.0
    assert dealframe.link.listing_key("brk-b ", "XNYS") == ("BRK.B", "NYSE")
    with pytest.raises(dealframe.errors.UnknownArgumentError):
        dealframe.link.listing_key("ACME", exchang="NYSE")


def test_matching_makes_no_pandas_object_per_row(client, skus, monkeypatch):
    """Linking 40 SKUs makes as many pandas objects as linking 5: the frames are read once,
    column by column, not a row (a Series with a deep copy of the frame's ``attrs``) per SKU,
    profile or candidate."""
    made: Counter[str] = Counter()
    finalize = NDFrame.__finalize__

    def counted(self: NDFrame, *args: Any, **kwargs: Any) -> Any:
        made[type(self).__name__] += 1
        return finalize(self, *args, **kwargs)

    monkeypatch.setattr(NDFrame, "__finalize__", counted)
    counts = []
    for n in (5, 40):
        made.clear()
        _both_ways(client, skus[:n])
        counts.append(dict(made))
    assert counts[0] == counts[1], counts


def test_a_column_with_nulls_is_refused_naming_the_null_and_the_way_out(client, skus):
    """A deals frame's ``target_id`` may hold nulls (a deal whose target is lost): the
    refusal names the position and says to drop them, not "got nan"."""
    ids = dealframe.companies_for_skus(client, skus[:2])["company_id"].dropna().tolist()
    column = pd.Series([ids[0], None, ids[1]], dtype="str")
    with pytest.raises(dealframe.errors.ValidationError) as info:
        dealframe.skus_for_companies(client, column)
    assert info.value.argument == "company_ids[1]"
    assert "not a null" in str(info.value) and ".dropna()" in str(info.value)
    assert len(dealframe.skus_for_companies(client, column.dropna())) == 2
