"""build_report refuses a cohort or group that is not a mapping with a ValidationError naming
it, before any request and before the output folder is made (``dict()`` of a string used to
raise Python's bare ValueError)."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

import dealframe
from dealframe.errors import ValidationError
from dealframe.report import build_report


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        ({"cohort": "Western Europe"}, "cohort"),
        ({"cohort": "x"}, "cohort"),
        ({"cohort": ["region", "Western Europe"]}, "cohort"),
        ({"cohort": 5}, "cohort"),
        ({"group": "x"}, "group"),
        ({"group": [("region", "Western Europe", "extra")]}, "group"),
        ({"group": 5}, "group"),
    ],
)
def test_a_cohort_that_is_no_mapping_is_refused_before_any_request(
    client, tmp_path, options, argument
):
    before = client.stats.calls
    out = tmp_path / "report"
    with pytest.raises(ValidationError) as caught:
        build_report(client, out, **options)
    assert caught.value.argument == argument
    assert "a mapping such as {'region': 'Western Europe'}" in str(caught.value)
    assert client.stats.calls == before
    assert not out.exists()
