"""The sandbox's data: determinism, snapshots (and their bound), large scales, few objects."""

import gc
import os

import numpy as np
import orjson
import pytest

from dealframe.sandbox.models import SandboxConfig, SandboxState, names, snapshot
from dealframe.sandbox.models.corpus import Corpus
from dealframe.sandbox.models.data import generate


def _bytes(ds):
    orgs = [{k: v for k, v in o.items() if k not in ("_country", "_fin")} for o in ds.orgs]
    return orjson.dumps([orgs, ds.deals, ds.listed, ds.months]) + ds.series.tobytes()


def _corpus_bytes(corpus: Corpus) -> bytes:
    arrays = corpus.to_arrays()
    return b"".join(k.encode() + v.tobytes() for k, v in sorted(arrays.items()))


def test_same_seed_same_bytes_and_other_seed_differs():
    assert _bytes(generate(seed=5, scale=0.02)) == _bytes(generate(seed=5, scale=0.02))
    assert _bytes(generate(seed=6, scale=0.02)) != _bytes(generate(seed=5, scale=0.02))


def test_snapshot_load_equals_fresh_generation(tmp_path, monkeypatch):
    monkeypatch.delenv("DEALFRAME_SANDBOX_CACHE", raising=False)  # the suite sets a folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(snapshot, "MIN_DEALS", 0)  # small data is normally not worth a file
    first, writer = snapshot.load_or_generate(seed=9, scale=0.02, wait_for_write=True)
    assert writer is None
    written = list((tmp_path / "dealframe" / "sandbox").glob("dataset-*.npz"))
    assert len(written) == 1
    again, _ = snapshot.load_or_generate(seed=9, scale=0.02)
    fresh = Corpus.from_dataset(generate(seed=9, scale=0.02))
    assert _corpus_bytes(again) == _corpus_bytes(first) == _corpus_bytes(fresh)
    assert again.deals.rows == fresh.deals.rows and again.orgs.record(3) == fresh.orgs.record(3)


def test_small_data_writes_no_snapshot(tmp_path, monkeypatch):
    monkeypatch.delenv("DEALFRAME_SANDBOX_CACHE", raising=False)  # the suite sets a folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    _, writer = snapshot.load_or_generate(seed=9, scale=0.02, wait_for_write=True)
    assert writer is None and not (tmp_path / "dealframe" / "sandbox").exists()


def test_snapshots_are_bounded_to_the_most_recently_used(tmp_path, monkeypatch):
    monkeypatch.delenv("DEALFRAME_SANDBOX_CACHE", raising=False)  # the suite sets a folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(snapshot, "MIN_DEALS", 0)
    folder = tmp_path / "dealframe" / "sandbox"
    folder.mkdir(parents=True)
    (folder / "dataset-old.json").write_bytes(b"{}")  # an earlier version's snapshot pair
    (folder / "dataset-old.npy").write_bytes(b"")
    abandoned = folder / "dataset-x.npz.123.456.tmp"  # a write its process never finished
    abandoned.write_bytes(b"")
    os.utime(abandoned, (1_000, 1_000))
    recent = folder / "dataset-y.npz.123.789.tmp"  # a write still going on
    recent.write_bytes(b"")
    for seed in range(snapshot.KEEP):
        snapshot.load_or_generate(seed=seed, scale=0.02, wait_for_write=True)
    files = sorted(folder.glob("dataset-*.npz"), key=lambda p: p.stat().st_mtime)
    assert len(files) == snapshot.KEEP and not list(folder.glob("dataset-old.*"))
    assert not abandoned.exists() and recent.exists()
    for i, path in enumerate(files):  # seed 0 oldest ... then loading seed 0 makes it the newest
        os.utime(path, (1_000 + i, 1_000 + i))
    snapshot.load_or_generate(seed=0, scale=0.02)
    snapshot.load_or_generate(seed=99, scale=0.02, wait_for_write=True)  # one more: the LRU goes
    kept = set(folder.glob("dataset-*.npz"))
    assert len(kept) == snapshot.KEEP
    assert files[0] in kept and files[1] not in kept  # seed 0 was used again; seed 1 was not


def test_large_scales_widen_names_instead_of_looping():
    # Names and tickers have finite spaces; the generator must widen them, not loop forever.
    roots = names._roots(np.random.default_rng(3), 70_000)
    assert len(set(roots)) == 70_000


def _tracked_after_build(scale: float) -> int:
    gc.collect()
    before = len(gc.get_objects())
    state = SandboxState.build(SandboxConfig(scale=scale, seed=5))
    gc.collect()
    count = len(gc.get_objects()) - before
    del state
    return count


def test_stores_hold_few_python_objects_whatever_the_scale(monkeypatch):
    # Records are bytes and numpy columns: a sandbox five times larger (5,000 deals instead of
    # 1,000) holds barely more objects for the collector to walk. Records kept as dicts would
    # add about eight containers per deal and per organisation: tens of thousands here.
    monkeypatch.setenv("DEALFRAME_SANDBOX_CACHE", "0")
    small, large = _tracked_after_build(0.02), _tracked_after_build(0.1)
    assert large - small < 3_000, (small, large)


def test_snapshots_are_bounded_in_bytes_too(tmp_path):
    # the most recently used first, while they fit; the newest stays whatever its size
    sizes = {"a": 40, "b": 50, "c": 30, "d": 10}  # a newest ... d oldest
    for age, (name, size) in enumerate(sizes.items()):
        path = tmp_path / f"dataset-{name}.npz"
        path.write_bytes(b"x" * size)
        os.utime(path, (10_000 - age, 10_000 - age))
    removed = snapshot.prune(tmp_path, keep=4, max_bytes=100)
    assert sorted(p.name for p in removed) == ["dataset-c.npz", "dataset-d.npz"]  # 40+50+30 > 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset-a.npz", "dataset-b.npz"]
    assert snapshot.prune(tmp_path, keep=4, max_bytes=10) == [tmp_path / "dataset-b.npz"]
    assert [p.name for p in tmp_path.iterdir()] == ["dataset-a.npz"]  # the newest, at 40 > 10


@pytest.mark.parametrize("seed", [3, 7, 11])
def test_participant_counts_are_those_docs_sandbox_md_gives(seed):
    """Funding rounds have 0 to 3 lead investors (1% undisclosed) and M&A deals 0 to 2 buyers,
    after every investor was made a lead somewhere (that step once gave a round a fourth)."""
    ds = generate(seed=seed, scale=0.05)
    leads = [len(d["lead_investors"]) for d in ds.deals if d["deal_type"] != "M&A"]
    buyers = [len(d["buyers"]) for d in ds.deals if d["deal_type"] == "M&A"]
    assert max(leads) == 3 and max(buyers) == 2
    assert all(not d["buyers"] for d in ds.deals if d["deal_type"] != "M&A")


def test_private_companies_without_fundamentals_have_the_same_keys():
    """The keys written for a company without fundamentals (vocab's list) are those
    _fundamentals writes, and so are the OpenAPI document's."""
    import numpy as np

    from dealframe.sandbox.models import data
    from dealframe.sandbox.urls import openapi_document
    from dealframe.sandbox.vocab import FUNDAMENTAL_FIELDS

    written = data._fundamentals(np.random.default_rng(0), 5.0, 2.0, 0.5, 0.1, 0.25)
    assert tuple(written) == FUNDAMENTAL_FIELDS
    schema = openapi_document()["components"]["schemas"]["CompanyProfile"]
    assert tuple(schema["properties"]["fundamentals"]["properties"]) == FUNDAMENTAL_FIELDS


@pytest.mark.parametrize(("seed", "scale"), [(7, 0.02), (3, 0.05)])
def test_deal_columns_drawn_directly_are_those_the_records_give(seed, scale):
    """The generator fills the deal store's columns from its draws (no dict per deal): they are
    what DEAL_SPEC reads from the serialised records, as a change or a snapshot reads them."""
    from dealframe.sandbox.models.records import DEAL_SPEC, RecordStore

    drawn = generate(seed=seed, scale=scale).deal_store
    read = RecordStore.from_records(DEAL_SPEC, [drawn.record(k) for k in range(len(drawn))])
    assert read.rows == drawn.rows
    assert set(drawn.columns) == set(DEAL_SPEC.columns)
    for name, values in read.columns.items():
        got = drawn.columns[name]
        assert got.dtype == values.dtype, name
        if values.dtype.kind == "f":
            assert np.array_equal(got, values, equal_nan=True), name
        else:
            assert (got == values).all(), name
    for name, column in read.lists.items():
        assert all(drawn.lists[name].row(k) == column.row(k) for k in range(len(drawn))), name
