"""Only dealframe errors leave the mirror's public functions (issue 12): hypothesis throws
huge integers, wrong types, odd strings and paths at every argument of load, history, status,
files, compact, sync, snapshot_public and load_public, against a real (small) mirror."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dealframe.mirror as mirror
from dealframe.errors import DealframeError, ValidationError
from dealframe.mirror import commit, store
from dealframe.mirror.state import MirrorState, write_state
from dealframe.mirror.sync import open_folder

T0 = pd.Timestamp("2026-01-01", tz="UTC")

ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "deals",
            "investors",
            "companies",
            "transactions",
            "public/current",
            "",
            "2026-01-01",
            "1999-01-01T00:00:00Z",
            "\x00",
            "../..",
            "NaT",
        ]
    ),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(object()),
    st.just(pd.Timestamp("2030-01-01")),
    st.just(np.int64(3)),
)


@pytest.fixture(scope="module")
def small_mirror(tmp_path_factory):
    root = open_folder(tmp_path_factory.mktemp("fuzz") / "m", create=True)
    write_state(root, MirrorState())
    n = 20
    frame = pd.DataFrame(
        {
            "id": pd.array([f"{i:08d}-0000-4000-8000-000000000000" for i in range(n)], dtype="str"),
            "name": pd.array([f"Firm {i}" for i in range(n)], dtype="str"),
            "updated_at": pd.array(
                T0 + pd.to_timedelta(np.arange(n), unit="s"), dtype=pd.DatetimeTZDtype("us", "UTC")
            ),
            "deleted": pd.array([i % 3 == 0 for i in range(n)], dtype="boolean"),
        }
    )
    staged = store.StagedRows(root / store.STAGING / "s" / "investors", "investors", "part")
    staged.add(frame)
    commit.commit_entity(
        root,
        "investors",
        staged,
        staged.close(),
        table=None,
        full=True,
        checkpoint=T0.isoformat(),
        sync=1,
        received=n,
    )
    store.recover(root)
    return root


def _only_ours(call) -> None:
    try:
        call()
    except DealframeError:
        pass


FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(entity=ANYTHING, include_deleted=ANYTHING, columns=ANYTHING, as_of=ANYTHING)
def test_load(small_mirror, entity, include_deleted, columns, as_of):
    _only_ours(lambda: mirror.load(small_mirror, entity, include_deleted, columns, as_of=as_of))


@FUZZ
@given(path=ANYTHING, entity=ANYTHING)
def test_readers_with_any_path(small_mirror, path, entity):
    for call in (
        lambda: mirror.load(path, "investors"),
        lambda: mirror.status(path),
        lambda: mirror.history(path),
        lambda: mirror.history(small_mirror, entity),
        lambda: mirror.files(small_mirror, entity),
        lambda: mirror.files(path, "investors"),
        lambda: mirror.load_public(path),
        lambda: mirror.load_public(small_mirror, entity),
        lambda: mirror.load_public(small_mirror, "current", on=entity),
    ):
        _only_ours(call)


@FUZZ
@given(entities=ANYTHING, keep=ANYTHING, hours=ANYTHING, timeout=ANYTHING)
def test_compact(small_mirror, tmp_path_factory, entities, keep, hours, timeout):
    copy = tmp_path_factory.mktemp("c") / "m"
    shutil.copytree(small_mirror, copy)
    _only_ours(
        lambda: mirror.compact(
            copy,
            entities if entities is not None else ["investors"],
            keep_versions=keep,
            retain_hours=hours,
            lock_timeout=timeout
            if isinstance(timeout, (int, float))
            and not isinstance(timeout, bool)
            and 0 <= timeout < 1
            else 0.1,
        )
    )


@FUZZ
@given(
    client=ANYTHING,
    path=ANYTHING,
    entities=ANYTHING,
    overlap=ANYTHING,
    page_size=ANYTHING,
    repair=ANYTHING,
)
def test_sync_and_snapshot_refuse_before_any_request(
    tmp_path_factory, client, path, entities, overlap, page_size, repair
):
    where = tmp_path_factory.mktemp("s") / "m"
    _only_ours(
        lambda: mirror.sync(
            client,
            path if path is not None else where,
            entities or "deals",
            overlap=overlap,
            page_size=page_size,
            repair=repair,
        )
    )
    _only_ours(lambda: mirror.snapshot_public(client, where, skus=entities, date=overlap))


@pytest.mark.parametrize(
    "call",
    [mirror.status, mirror.history, lambda p: mirror.load(p, "investors"), mirror.load_public],
)
def test_a_home_of_an_unknown_user_is_a_validation_error(call):
    """pathlib raises RuntimeError for ``~someone`` this system does not know (the fuzz found
    it): the mirror says which argument instead."""
    with pytest.raises(ValidationError, match="~user exists"):
        call("~no-such-user-here/mirror")
