"""Family A in the research store: ``snapshot_public`` appends dated partitions of current data
for a universe (search filters or SKUs) and refreshes its monthly series; ``load_public`` answers
"what did the comps look like on date D" with the values the service gave that day; the tables
are plain Delta tables (partitioned by snapshot_date) that polars reads as they are; the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dealframe
import dealframe.mirror as mirror
import dealframe.sandbox
from dealframe.cli import main
from dealframe.client import Client
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def sb():
    with dealframe.sandbox.run(scale=0.02, seed=5) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def client(sb):
    with Client.for_sandbox(sb, progress=False, cache_enabled=False) as c:
        yield c


def same_values(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Column for column, as the service gave them (categories come back as strings)."""
    assert list(got.index) == list(expected.index) and set(got.columns) == set(expected.columns)
    for col in expected.columns:
        left, right = got[col], expected[col]
        if right.dtype == object:  # lists of strings
            assert [list(v) if v is not None else None for v in left] == [
                list(v) if v is not None else None for v in right
            ], col
        elif pd.api.types.is_float_dtype(right):
            np.testing.assert_array_equal(left.to_numpy(float), right.to_numpy(float), err_msg=col)
        else:
            assert (
                left.astype(object).where(left.notna(), None).tolist()
                == right.astype(object).where(right.notna(), None).tolist()
            ), col


def test_dated_snapshots_answer_what_the_comps_looked_like(client, tmp_path):
    path = tmp_path / "store"
    europe = client.public.current(list(client.public.search(regions=["Western Europe"]).index))
    first = mirror.snapshot_public(client, path, regions=["Western Europe"], date="2026-01-05")
    assert first["companies"] == len(europe) > 0 and first["current_version"] == 0
    skus = list(europe.index[:3])
    mirror.snapshot_public(client, path, skus=skus, date="2026-02-05")
    mirror.snapshot_public(client, path, skus=skus, date="2026-02-05")  # same day: replaced
    on_jan = mirror.load_public(path, "current", on="2026-01-31")
    assert on_jan.attrs["snapshot_date"] == "2026-01-05"
    same_values(on_jan, europe.sort_index())
    on_feb = mirror.load_public(path, "current", on=pd.Timestamp("2026-03-01"))
    assert list(on_feb.index) == sorted(skus)  # the later, smaller universe; one row per SKU
    every = mirror.load_public(path, "current")
    assert every.groupby("snapshot_date").size().tolist() == [len(europe), len(skus)]
    with pytest.raises(ValidationError, match="on"):
        mirror.load_public(path, "current", on="2025-12-31")  # before the first snapshot

    series = mirror.load_public(path, "time_series")
    expected = client.public.time_series(list(europe.index), shape="long")
    assert len(series) == len(expected) and set(series["sku"]) == set(europe.index)
    key = ["sku", "field", "month"]
    merged = series.merge(expected, on=key, suffixes=("", "_service"))
    assert len(merged) == len(expected)
    np.testing.assert_array_equal(merged["value"].to_numpy(), merged["value_service"].to_numpy())
    fetched = series.groupby("sku")["fetched_on"].max()
    assert (fetched[skus] == pd.Timestamp("2026-02-05")).all()  # refreshed for the later universe
    assert (fetched.drop(skus) == pd.Timestamp("2026-01-05")).all()  # kept for the others
    history = mirror.history(path)
    assert set(history["entity"]) == set(mirror.PUBLIC_TABLES)
    assert (history["operation"] == "snapshot").all()
    first_series = mirror.load_public(path, "time_series", as_of=0)
    assert (first_series["fetched_on"] == pd.Timestamp("2026-01-05")).all()


def test_engines_read_the_snapshot_tables(client, tmp_path):
    pl = pytest.importorskip("polars")
    path = tmp_path / "store"
    mirror.snapshot_public(client, path, countries=["GBR", "FRA"], date="2026-03-01")
    ours = mirror.load_public(path, "current")
    theirs = pl.read_delta(str(path / "public" / "current")).sort(["snapshot_date", "sku"])
    assert theirs.height == len(ours) and theirs["sku"].to_list() == ours["sku"].tolist()
    assert theirs["snapshot_date"].cast(pl.Utf8).unique().to_list() == ["2026-03-01"]
    np.testing.assert_array_equal(
        theirs["enterpriseValue"].to_numpy(), ours["enterpriseValue"].to_numpy()
    )


def test_bad_universes_are_refused_before_any_request(client, tmp_path):
    path = tmp_path / "store"
    with pytest.raises(ValidationError, match="skus"):
        mirror.snapshot_public(client, path)
    with pytest.raises(ValidationError, match="not both"):
        mirror.snapshot_public(client, path, skus=["ACME-USA"], regions=["Western Europe"])
    with pytest.raises(ValidationError):
        mirror.snapshot_public(client, path, regions=["Atlantis"])
    with pytest.raises(ValidationError, match="date"):
        mirror.snapshot_public(client, path, skus=["ACME-USA"], date="yesterday-ish")
    assert not path.exists()


def test_cli_snapshot_public(tmp_path, capsys):
    path = tmp_path / "store"
    argv = [
        "mirror",
        "snapshot-public",
        str(path),
        "--sandbox",
        "--scale",
        "0.02",
        "--region",
        "Western Europe",
        "--date",
        "2026-04-01",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "2026-04-01" in out and "public/time_series" in out
    assert len(mirror.load_public(path, "current", on="2026-04-01")) > 0
    assert main(["mirror", "snapshot-public", str(path), "--sandbox", "--scale", "0.02"]) == 2
    assert "--sku" in capsys.readouterr().err  # told before a sandbox starts


def test_an_empty_universe_never_replaces_a_stored_snapshot(client, sb, tmp_path):
    path = tmp_path / "store"
    mirror.snapshot_public(client, path, regions=["Western Europe"], date="2026-05-01")
    stored = mirror.load_public(path, "current", on="2026-05-01")
    assert len(stored) > 0
    with pytest.raises(ValidationError, match="enterprise_value_above.*nothing was written"):
        mirror.snapshot_public(client, path, enterprise_value_above=1e12, date="2026-05-01")
    with pytest.warns(dealframe.MissingDataWarning), pytest.raises(ValidationError, match="skus"):
        mirror.snapshot_public(client, path, skus=["NOPE-USA"], date="2026-05-01")
    same_values(mirror.load_public(path, "current", on="2026-05-01"), stored)


def test_a_snapshot_into_another_services_mirror_is_refused_first(client, sb, tmp_path):
    path = tmp_path / "store"
    mirror.snapshot_public(client, path, regions=["Oceania"], date="2026-05-01")
    port = sb.url.rsplit(":", 1)[1]
    with Client(
        f"http://localhost:{port}", sb.public_token, sb.private_key, cache_enabled=False
    ) as other:
        with pytest.raises(mirror.MirrorStateError, match=f"not from http://localhost:{port}"):
            mirror.snapshot_public(other, path, regions=["Oceania"], date="2026-05-02")
        assert other.stats.calls == 0  # refused before the search
        done = mirror.snapshot_public(
            other, path, regions=["Oceania"], date="2026-05-02", allow_other_source=True
        )
    assert done["companies"] > 0
    assert mirror.status(path).attrs["source"] == f"http://localhost:{port}"


def test_stored_comps_have_the_dtypes_of_the_clients_frame(client, tmp_path):
    """``load_public("current", on=D)`` is ``client.public.current`` as it was on D, dtypes
    included: ``region`` came back as text instead of the client's categorical."""
    path = tmp_path / "store"
    live = client.public.current(list(client.public.search(regions=["Western Europe"]).index))
    mirror.snapshot_public(client, path, skus=list(live.index), date="2026-06-30")
    stored = mirror.load_public(path, "current", on="2026-06-30")
    assert isinstance(live["region"].dtype, pd.CategoricalDtype)
    pd.testing.assert_series_equal(stored.dtypes[live.columns], live.dtypes)
    same_values(stored[live.columns], live.sort_index())
    every = mirror.load_public(path, "current")
    assert every["region"].dtype == live["region"].dtype
