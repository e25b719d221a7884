"""The n of the report's public median (the companies with a value that month) comes from pulls
that give nothing else (the group's v1 search and their series): when they fail or cannot
stand behind the group's median, the page is still written, with that n unknown (n/a) and said,
never the whole report failed. Over HTTP, through the drift proxy in front of a sandbox.

The report used to exit 2 (``invalid skus: expected at least one SKU ..., got []``: a bad
command, though the user passed no SKU) when the v1 search answered no company, and 1 when the
series could not be read; those pulls were recorded nowhere in the provenance either, nor were
the cohort's search, the window's probe, the headline aggregates and every pull of
``compare_multiples`` (its deals, the comps' search and series, the link's company profiles):
``manifest.json`` and Appendix C now list every request but the discovery documents'.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import Proxy, api_error, drop_connection, edit, html, recount
from _report_builds import undrawn

import dealframe.report.pages as pages
import dealframe.sandbox
from dealframe.cli import main
from dealframe.transport import retry

V1_SEARCH = "^/api/v1/companies$"
V1_SERIES = "^/api/v1/companies/time-series$"
FIGURE = "public median EV/Revenue NTM"


def _every_second_company(doc: Any) -> Any:
    doc["data"] = doc["data"][::2]
    return doc


def _no_company(doc: Any) -> Any:
    doc["data"] = []
    for key in ("total", "count"):
        if isinstance(doc.get("meta"), dict) and key in doc["meta"]:
            doc["meta"][key] = 0
    return doc


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The backoffs between attempts are noted, not waited: a failed pull is retried with the
    default settings (the CLI's), and these tests are about what the report says once it
    gives up, not how long it waited (four of them waited about 15 s each)."""
    slept: list[float] = []
    monkeypatch.setattr(retry, "sleep", slept.append)
    return slept


@pytest.fixture(autouse=True)
def _charts_left_undrawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The charts are drawn from the frames already pulled (the group's monthly series, not
    the v1 pulls behind the n), with no request of their own, and are most of a report's
    time: these reports leave them undrawn (the headline, the page's text and its appendix,
    the manifest are written as ever). test_report.py draws a whole report's."""
    monkeypatch.setattr(pages, "_chart", undrawn)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Proxy]]:
    with dealframe.sandbox.run(scale=0.02, seed=7) as sb, Proxy(sb.url) as proxy:
        yield sb, proxy


def _report(served: Any, out: Path, monkeypatch: Any, capsys: Any, *args: str) -> dict[str, Any]:
    sb, proxy = served
    for name, value in {
        "DEALFRAME_BASE_URL": proxy.url,
        "DEALFRAME_PUBLIC_TOKEN": sb.public_token,
        "DEALFRAME_PRIVATE_KEY": sb.private_key,
        "DEALFRAME_CACHE": "0",
        "DEALFRAME_CACHE_PATH": str(out.parent / "cache"),
    }.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    try:
        status = main(["report", "--out", str(out), "--quiet", *args])
    except SystemExit as exc:
        status = exc.code
    said = capsys.readouterr()
    headline = (
        pd.read_parquet(out / "headline.parquet") if (out / "headline.parquet").exists() else None
    )
    return {
        "status": status,
        "stdout": said.out,
        "stderr": said.err,
        "headline": headline,
        "page": (out / "report.html").read_text(encoding="utf-8") if headline is not None else "",
        "manifest": json.loads((out / "manifest.json").read_text()) if headline is not None else {},
    }


@pytest.mark.parametrize(
    ("path", "actions", "why"),
    [
        (V1_SEARCH, [edit(_no_company, "no company")], "search (v1) found no company"),
        (V1_SERIES, [html(200)], "its pulls failed"),
        (V1_SERIES, [drop_connection()], "its pulls failed"),
        # the old code counted the companies returned (5 of 10: n=5) and said nothing
        (
            V1_SERIES,
            [edit(_every_second_company, "every second company"), recount()],
            "the series (v1) returned 5 of 10 companies",
        ),
    ],
    ids=["v1-search-empty", "series-unreadable", "series-connection-dropped", "series-half"],
)
def test_a_public_n_that_cannot_be_read_is_null_and_said(
    served, tmp_path, monkeypatch, capsys, path, actions, why
):
    _, proxy = served
    proxy.reset()
    proxy.add(path, *actions)
    got = _report(served, tmp_path / "r", monkeypatch, capsys)
    assert got["status"] == 0, got["stderr"]
    assert got["stdout"].strip().endswith("report.html")
    said = [line for line in got["stderr"].splitlines() if "public median's n" in line]
    assert len(said) == 1 and why in said[0], got["stderr"]
    assert "that month) of Western Europe is not known: " in said[0]  # a cohort without name
    assert "headline.csv leaves it empty (null)" in said[0]
    public = got["headline"].set_index("figure").loc[FIGURE]
    assert len(public) == 2
    assert str(public["n"].dtype) == "Int64"
    assert public["n"].isna().all()  # not known: null, never 0, a smaller count, the group's size
    assert public["value"].notna().all()  # the medians themselves are the group's answer
    csv = pd.read_csv(tmp_path / "r" / "headline.csv", dtype=str, keep_default_na=False)
    assert (csv.loc[csv["figure"] == FIGURE, "n"] == "").all()  # an empty cell, not "n/a"
    page = got["page"].replace("&#x27;", "'")
    assert "Public median n (" in page and "not known, so left empty (null)" in page
    assert why in page
    pulls = got["manifest"]["provenance"]
    assert pulls["members"]["endpoint"] == "POST /api/v2/companies"
    if path == V1_SEARCH:  # its answer is recorded: it is why the n is not known
        assert pulls["public_counts_search"]["endpoint"] == "POST /api/v1/companies"
        assert pulls["public_counts_search"]["rows_received"] == 0
        assert proxy.count(V1_SERIES) == 0  # no company: no series asked for


def test_the_public_n_pulls_are_in_the_provenance(served, tmp_path, monkeypatch, capsys):
    _, proxy = served
    proxy.reset()
    got = _report(served, tmp_path / "r", monkeypatch, capsys)
    assert got["status"] == 0, got["stderr"]
    public = got["headline"].set_index("figure").loc[FIGURE]
    assert (public["n"] > 0).all()
    assert "Public median n (" not in got["page"]
    pulls = got["manifest"]["provenance"]
    assert pulls["public_counts_series"]["endpoint"] == "POST /api/v1/companies/time-series"
    assert pulls["public_counts_series"]["requests"] == proxy.count(V1_SERIES) >= 1
    assert pulls["public_counts_search"]["requests"] >= 1
    assert pulls["members"]["requests"] >= 1
    assert pulls["service_window"]["endpoint"].endswith("/transactions/aggregate")
    # the quarterly aggregate, the window's probe and the four headline periods
    aggregates = sum(
        v["requests"] for v in pulls.values() if str(v.get("endpoint", "")).endswith("/aggregate")
    )
    assert aggregates == proxy.count("/transactions/aggregate$") == 6
    # every request is a pull recorded: those of compare_multiples and its link too (their
    # frames stay inside it), and the discovery documents the filters are checked against
    recorded = sum(int(v.get("requests") or 0) for v in pulls.values())
    assert recorded == proxy.count("")
    assert pulls["discovery_transactions"]["requests"] == proxy.count("/lookup/transactions$")
    assert pulls["comparison (last 12 months): GET /api/private/v1/companies/{id}"]["requests"]
    table = got["page"].split("Pulls behind the page", 1)[1]
    for name in ("members", "public_counts_search", "public_counts_series", "headline_aggregates"):
        assert name in table


def test_the_warning_names_each_cohort_of_a_config_file(served, tmp_path, monkeypatch, capsys):
    # two cohorts of the same companies: the old warning named them alike, twice
    _, proxy = served
    proxy.reset()
    proxy.add(V1_SERIES, html(200))
    config = tmp_path / "two.toml"
    config.write_text(
        f'out = "{(tmp_path / "r").as_posix()}"\n'
        '[[cohort]]\nname = "we-vc"\nregion = "Western Europe"\ndeal_type = ["Venture"]\n'
        '[[cohort]]\nname = "we-ma"\nregion = "Western Europe"\ndeal_type = ["M&A"]\n',
        encoding="utf-8",
    )
    sb, _ = served
    for name, value in {
        "DEALFRAME_BASE_URL": proxy.url,
        "DEALFRAME_PUBLIC_TOKEN": sb.public_token,
        "DEALFRAME_PRIVATE_KEY": sb.private_key,
        "DEALFRAME_CACHE": "0",
        "DEALFRAME_CACHE_PATH": str(tmp_path / "cache"),
    }.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    try:
        status = main(["report", "--config", str(config), "--quiet"])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 0, err
    said = [line for line in err.splitlines() if "public median's n" in line]
    assert len(said) == 2, err
    assert "of cohort we-vc (Western Europe) is not known" in said[0]
    assert "of cohort we-ma (Western Europe) is not known" in said[1]


def test_no_n_warning_when_a_later_stage_fails_the_report(served, tmp_path, monkeypatch, capsys):
    # every v1 search fails: the n's first, then compare_multiples', which fails the report
    _, proxy = served
    proxy.reset()
    proxy.add(V1_SEARCH, api_error(500, "internal", "down"))
    got = _report(served, tmp_path / "r", monkeypatch, capsys)
    assert got["status"] == 1, got["stderr"]
    assert got["headline"] is None  # no page written
    assert proxy.count(V1_SEARCH) >= 2  # the n's search was asked, and failed, first
    assert "public median's n" not in got["stderr"], got["stderr"]  # said of no page
