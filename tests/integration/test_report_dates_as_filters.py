"""The report's start date is read by the client's own date reading (one function, two callers).

``report.cohort.parse_date`` repeated the strict day check of
``private.filters.to_date_string`` with other words (``a date YYYY-MM-DD``) and other types
(a ``numpy.datetime64`` refused, read by the filters). Now it is that function: a cohort's
``since`` (and ``build_report``'s ``window[0]``) is refused in the words the deal filters
use, naming its own argument, and a command still names its option (``--since``) in a
shell's words, with no Python type. The client's filter runs against the session sandbox,
before any request of deals.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest

import dealframe
from dealframe.cli import main
from dealframe.errors import ValidationError
from dealframe.report import build_report
from dealframe.report.cohort import parse_cohort

REGION = "Western Europe"
EXPECTED = "a date YYYY-MM-DD, datetime.date or pandas.Timestamp"


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False, cache_enabled=False) as c:
        yield c


@pytest.mark.parametrize("day", ["2024-02-30", "20240105", "2024-1-5", "05/01/2024"])
def test_the_report_and_the_deal_filters_refuse_a_day_in_the_same_words(client, tmp_path, day):
    with pytest.raises(ValidationError) as by_filter:
        client.private.deals(date_from=day)
    with pytest.raises(ValidationError) as by_cohort:
        build_report(client, tmp_path / "o", cohort={"region": REGION, "since": day})
    with pytest.raises(ValidationError) as by_window:
        build_report(client, tmp_path / "o", cohort={"region": REGION}, window=(day, None))
    assert by_filter.value.expected == by_cohort.value.expected == by_window.value.expected
    assert by_cohort.value.expected == EXPECTED
    assert (by_filter.value.argument, by_cohort.value.argument) == ("date_from", "since")
    assert by_window.value.argument == "window[0]"
    assert str(by_cohort.value) == f"invalid since: expected {EXPECTED}, got {day!r}"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "day", [np.datetime64("2024-01-05"), pd.Timestamp("2024-01-05 10:30"), " 2024-01-05 "]
)
def test_the_report_reads_a_day_as_the_deal_filters_do(client, day):
    assert parse_cohort({"region": REGION, "since": day}).since == "2024-01-05"
    sent = client.private.deals(date_from=day, date_to=day).attrs["filters"]
    assert sent == {"date_from": "2024-01-05", "date_to": "2024-01-05"}


def test_a_date_that_is_not_a_day_is_refused_by_both_alike(client):
    with pytest.raises(ValidationError) as by_filter:
        client.private.deals(date_from=pd.NaT)
    with pytest.raises(ValidationError) as by_cohort:
        parse_cohort({"region": REGION, "since": pd.NaT})
    assert by_filter.value.expected == by_cohort.value.expected


@pytest.mark.parametrize("option", ["--since", "--date-from"])
def test_the_command_names_its_option_in_a_shells_words(option, sandbox, monkeypatch, tmp_path):
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(["report", "--out", str(tmp_path / "r"), option, "2024-02-30"])
    assert status == 2
    said = "dealframe report: error: invalid --since: expected a date YYYY-MM-DD, got '2024-02-30'"
    assert err.getvalue().strip() == said
    assert not (tmp_path / "r").exists()
