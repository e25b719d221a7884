"""numpy integers (what ``len``, ``df.shape``, ``Series.max()`` or ``np.arange`` give) are
taken wherever an integer is, as Python's are: ``top`` of the plots and of the report, the
doctor's ``max_requests``, ``mirror.sync``'s ``page_size`` and ``rows_per_file`` (and numpy's
seconds for ``overlap`` and ``lock_timeout``). Each was refused with a ValidationError. A
boolean is still refused, numpy's too. (List ``limit`` and the client's settings:
``test_client_private.py``.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import dealframe
import dealframe.report
from dealframe import mirror
from dealframe.errors import ValidationError

REGION = "North America"


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Iterator[dealframe.Client]:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def test_plot_top_takes_numpy_integers(client):
    dplot = pytest.importorskip("dealframe.plot")
    deals = client.private.deals(target_region=[REGION])
    current = client.public.current(client.public.search(regions=[REGION]).index)
    labels = [t.get_text() for t in dplot.top_investors(deals, top=3).get_yticklabels()]
    ax = dplot.top_investors(deals, top=np.int64(3))
    assert [t.get_text() for t in ax.get_yticklabels()] == labels and len(labels) == 3
    title = dplot.comps_multiples(current, top=np.int32(2)).get_title("left")
    assert title == dplot.comps_multiples(current, top=2).get_title("left")
    assert "2 largest" in title
    with pytest.raises(ValidationError, match="top"):
        dplot.top_investors(deals, top=np.bool_(True))


def test_report_top_takes_a_numpy_integer(client, tmp_path):
    """``top`` is checked before the output folder: a file there is what refuses the call
    (``top=np.int64(5)`` itself was refused)."""
    taken = tmp_path / "a file"
    taken.write_text("")
    with pytest.raises(ValidationError, match="out_dir"):
        dealframe.report.build_report(client, taken, top=np.int64(5))
    for bad in (np.bool_(True), np.int64(101)):
        with pytest.raises(ValidationError, match="top: expected an integer from 1 to 100"):
            dealframe.report.build_report(client, taken, top=bad)


def test_doctor_max_requests_takes_a_numpy_integer(client):
    found = dealframe.doctor(client, max_requests=np.int64(5))
    assert found.requests == 5 and found.budget_reached
    with pytest.raises(ValidationError, match="max_requests"):
        dealframe.doctor(client, max_requests=np.bool_(True))


def test_mirror_sync_takes_numpy_integers_and_seconds(client, tmp_path):
    report = mirror.sync(
        client,
        tmp_path / "m",
        ["investors"],
        page_size=np.int64(500),
        rows_per_file=np.int64(1000),
        overlap=np.int64(0),
        lock_timeout=np.float32(5),
        progress=False,
    )
    want = client.private.investors(include_deleted=True)
    assert len(mirror.load(tmp_path / "m", "investors", include_deleted=True)) == len(want)
    assert report.entities["investors"].rows_received == len(want)
    for bad in ({"page_size": np.bool_(True)}, {"rows_per_file": True}, {"overlap": np.nan}):
        with pytest.raises(ValidationError, match=next(iter(bad))):
            mirror.sync(client, tmp_path / "bad", ["investors"], progress=False, **bad)
