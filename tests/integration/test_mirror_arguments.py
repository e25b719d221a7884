"""mirror.sync refuses a progress value it cannot use, as every other progress argument does:
a ValidationError naming it, before any request and before the folder is made (it used to
sync without a bar and without a word)."""

from __future__ import annotations

import pytest

pytest.importorskip("deltalake")

import dealframe
from dealframe import mirror
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.mark.parametrize("progress", ["x", "yes", 1, 0, [], {"entity": None}])
def test_progress_other_than_a_flag_or_a_function_is_refused(client, tmp_path, progress):
    before = client.stats.calls
    path = tmp_path / "m"
    with pytest.raises(ValidationError) as caught:
        mirror.sync(client, path, ["investors"], progress=progress)
    assert caught.value.argument == "progress"
    assert "True, False, None or a function taking a dict" in str(caught.value)
    assert client.stats.calls == before
    assert not path.exists()


def test_a_progress_function_still_receives_every_page(client, tmp_path):
    seen: list[dict] = []
    report = mirror.sync(client, tmp_path / "m", ["investors"], page_size=200, progress=seen.append)
    assert seen and seen[-1]["entity"] == "investors"
    assert seen[-1]["rows"] == report["investors"].rows_received
