"""A Family A field keeps its kind in the research store, through a drift proxy that changes what
the sandbox sends.

* A field that changes kind between snapshots (``esgRating`` 7.5, then ``"A+"``): the cast to the
  stored column raised a raw pyarrow ``ArrowInvalid``. Now a ``ServiceContractError`` names the
  field and both kinds, and nothing is written (both tables stay at their versions).
* A field first seen all-null is stored as text (the kind the client's frame gives it); when
  numbers arrive later they were cast to that text (``'7.5'``) while ``client.public.current``
  gave float64. Now the column, which holds no value, is widened to numbers by the snapshot that
  brings them (one commit), and ``load_public`` has the client's dtypes again; a column that
  holds text is never widened (its field changing kind is refused as above).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.client import Client
from dealframe.errors import ServiceContractError

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import Proxy, set_field

REGION = ["Western Europe"]


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=43) as sandbox:
        yield sandbox


@pytest.fixture()
def via(sb):
    with (
        Proxy(sb.url) as proxy,
        Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False) as client,
    ):
        yield proxy, client


def versions(path: Path) -> dict[str, int]:
    history = mirror.history(path)
    return history.groupby("entity")["version"].max().to_dict()


@pytest.mark.parametrize(
    ("first", "then", "kinds"),
    [(7.5, "A+", ("number", "text")), ("A+", 7.5, ("text", "number"))],
)
def test_a_field_that_changes_kind_is_refused_and_nothing_is_written(
    via, tmp_path, first, then, kinds
):
    proxy, client = via
    path = tmp_path / "store"
    proxy.add(r"/current", set_field("esgRating", first))
    mirror.snapshot_public(client, path, regions=REGION, date="2026-01-05")
    before, kept = versions(path), mirror.load_public(path, "current")
    proxy.reset()
    proxy.add(r"/current", set_field("esgRating", then))
    with pytest.raises(ServiceContractError) as caught:
        mirror.snapshot_public(client, path, regions=REGION, date="2026-02-05")
    message = str(caught.value)
    assert "'esgRating' changed kind" in message, message
    assert f"holds it as {kinds[0]}" in message and f"now sends {kinds[1]} ({then!r})" in message
    assert "nothing was written for the snapshot of 2026-02-05" in message
    assert caught.value.finding == "wrong_shape"
    assert versions(path) == before
    pd.testing.assert_frame_equal(mirror.load_public(path, "current"), kept)


def test_a_field_first_seen_all_null_takes_the_kind_of_its_first_values(via, tmp_path):
    proxy, client = via
    path = tmp_path / "store"
    proxy.add(r"/current", set_field("esgRating", None))
    mirror.snapshot_public(client, path, regions=REGION, date="2026-01-05")
    first = mirror.load_public(path, "current", on="2026-01-05")
    assert first["esgRating"].isna().all()
    proxy.reset()
    proxy.add(r"/current", set_field("esgRating", 7.5))
    live = client.public.current(list(first.index))
    assert live["esgRating"].dtype == np.float64
    mirror.snapshot_public(client, path, regions=REGION, date="2026-02-05")
    stored = mirror.load_public(path, "current", on="2026-02-05")
    assert stored["esgRating"].dtype == live["esgRating"].dtype  # was str, '7.5'
    assert (stored["esgRating"] == 7.5).all()
    pd.testing.assert_series_equal(stored.dtypes[live.columns], live.dtypes)
    every = mirror.load_public(path, "current")
    by_day = every.groupby("snapshot_date")["esgRating"].count().tolist()
    assert by_day == [0, len(stored)] and len(every) == 2 * len(stored)
    # the earlier snapshot is as it was, and its version still reads
    earlier = mirror.load_public(path, "current", on="2026-01-05")
    pd.testing.assert_frame_equal(
        earlier.drop(columns="esgRating"), first.drop(columns="esgRating"), check_dtype=False
    )
    history = mirror.history(path, "public/current")
    assert list(history["operation"]) == ["snapshot", "snapshot"]
    assert len(mirror.load_public(path, "current", as_of=0)) == len(first)
    # text now: the column holds numbers, so the change of kind is refused
    proxy.reset()
    proxy.add(r"/current", set_field("esgRating", "A+"))
    with pytest.raises(ServiceContractError, match="holds it as number"):
        mirror.snapshot_public(client, path, regions=REGION, date="2026-03-05")


def test_a_boolean_field_loads_as_the_clients_boolean(via, tmp_path):
    """A Family A field the service writes as true/false: ``client.public.current`` gives it
    pandas ``boolean``; ``load_public`` gave numpy ``bool`` (``object`` across days with nulls),
    where the docs promise the client's dtypes."""
    proxy, client = via
    path = tmp_path / "m"
    proxy.add(r"/current", set_field("isProfitable", True))
    live = client.public.current(list(client.public.search(regions=REGION).index))
    assert live["isProfitable"].dtype == "boolean"
    mirror.snapshot_public(client, path, regions=REGION, date="2026-01-05")
    stored = mirror.load_public(path, "current", on="2026-01-05")
    assert stored["isProfitable"].dtype == live["isProfitable"].dtype
    assert stored["isProfitable"].all()
