"""The batch report against a small sandbox: every section with its charts, the Parquet tables
equal to what the client returns for the same calls, and clean failures from the CLI."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import dealframe
from dealframe.analytics import reconcile
from dealframe.cli import main
from dealframe.errors import ValidationError
from dealframe.report import REPORT_SECTIONS, REPORT_TABLES, build_report

REGION = "North America"  # the largest region: every section has data even at small scale
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def report(client, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    lines: list[str] = []
    paths = build_report(client, out, group={"region": REGION}, progress=lines.append)
    return paths, lines


@pytest.fixture(scope="module")
def html(report) -> str:
    return report[0].html.read_text(encoding="utf-8")


def _parquet(report, name: str) -> pd.DataFrame:
    return pd.read_parquet(report[0].parquet[name])


def _sections(page: str) -> dict[str, str]:
    found = re.findall(r'<section id="([^"]+)">(.*?)</section>', page, flags=re.DOTALL)
    return dict(found)


# ------------------------------------------------------------------ the page


def test_every_section_has_its_charts_as_decodable_pngs(html):
    from PIL import Image

    sections = _sections(html)
    assert list(sections) == list(REPORT_SECTIONS)
    minimum = {"comps": 1, "valuation": 2, "deals": 2, "investors": 2}
    for name, body in sections.items():
        images = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', body)
        assert len(images) >= minimum[name], name
        for encoded in images:
            raw = base64.b64decode(encoded, validate=True)
            assert raw.startswith(PNG_MAGIC)
            with Image.open(io.BytesIO(raw)) as img:
                img.verify()
                assert img.size[0] >= 300 and img.size[1] >= 150


def test_page_is_self_contained(html):
    assert "<script" not in html and "<link" not in html
    for attr in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert attr.startswith(("data:image/png;base64,", "#")), attr[:60]
    assert "@import" not in html and "url(" not in html


def test_page_shows_the_reconciliation_line_and_tables(html, report):
    deals = _sections(html)["deals"]
    rec = _parquet(report, "reconciliation")
    assert f"{int(rec['match'].sum())} of {len(rec)} buckets match" in deals
    assert deals.count("<table") >= 1
    assert _sections(html)["comps"].count("<table") == 2  # rollup and comps
    comps = _parquet(report, "comps")
    assert all(name.replace("&", "&amp;") in html for name in comps["name"].head(5))


def test_progress_lines_name_each_stage(report):
    _, lines = report
    starts = [line for line in lines if re.match(r"\[\d/7\]", line)]
    assert len(starts) == 7
    assert any("buckets match" in line for line in lines)


def test_manifest_lists_every_table_and_file(report):
    paths, _ = report
    manifest = json.loads(paths.manifest.read_text())
    assert set(manifest["tables"]) == set(REPORT_TABLES)
    for name in REPORT_TABLES:
        for suffix in ("parquet", "csv"):
            assert (paths.html.parent / f"{name}.{suffix}").is_file()
    assert manifest["group"] == {"region": REGION}
    assert manifest["provenance"]["deals"]["endpoint"].endswith("/transactions")


# ------------------------------------------------------------------ the tables equal the client


def test_comps_equal_current_data_of_the_group(report, client):
    comps = _parquet(report, "comps")
    skus = client.public.search(regions=[REGION]).index
    current = client.public.current(skus)
    assert sorted(comps.index) == sorted(skus)
    expected = current.loc[comps.index, comps.columns]
    expected.attrs = {}
    pd.testing.assert_frame_equal(comps, expected)
    for column in ("evRevenueNtm", "evEbitdaLtm", "revenueGrowthNtmLtm", "ruleOf40"):
        assert column in comps
    ev = comps["enterpriseValue"].dropna().to_numpy()
    assert (ev[:-1] >= ev[1:]).all()
    csv = pd.read_csv(report[0].csv["comps"], index_col="sku")
    pd.testing.assert_series_equal(csv["evRevenueNtm"], comps["evRevenueNtm"].astype(float),
                                   check_names=False, check_index_type=False)


def test_rollup_equals_group_current(report, client):
    rollup = _parquet(report, "comps_rollup")
    service = client.public.group_current(regions=[REGION])
    expected = service.loc[rollup.index, ["sum", "median"]]
    expected.attrs = {}
    pd.testing.assert_frame_equal(rollup, expected)
    assert {"marketCap", "evRevenueNtm", "ruleOf40"} <= set(rollup.index)


def test_history_equals_group_time_series(report, client):
    history = _parquet(report, "valuation_history")
    manifest = json.loads(report[0].manifest.read_text())
    window = manifest["window"]
    service = client.public_v1.group_time_series(regions=[REGION], fields=["evRevenueNtm"],
                                              date_from=window["from"][:7],
                                              date_to=window["to"][:7])
    assert history.index.to_period("M").equals(service.index)
    assert history["evRevenueNtm"].tolist() == service["evRevenueNtm"].tolist()


def test_aggregate_equals_the_service_and_reconciliation_equals_reconcile(report, client):
    aggregate = _parquet(report, "deal_aggregate")
    service = client.private.aggregate("ev_revenue", "quarter", target_region=[REGION])
    service.attrs = {}
    pd.testing.assert_frame_equal(aggregate, service, check_dtype=False)
    assert aggregate["period_start"].dtype.kind == "M"
    rec = _parquet(report, "reconciliation")
    expected = reconcile(client, "ev_revenue", "quarter", {"target_region": [REGION]}).frame
    expected.attrs = {}
    pd.testing.assert_frame_equal(rec, expected, check_dtype=False)
    assert rec["match"].all()


def test_activity_and_investors_equal_counts_from_the_deals(report, client):
    window = json.loads(report[0].manifest.read_text())["window"]
    deals = client.private.deals(target_region=[REGION], date_from=window["from"],
                                 date_to=window["to"])
    activity = _parquet(report, "deal_activity")
    assert int(activity["total"].sum()) == len(deals)
    quarter = deals["deal_date"].dt.year.astype(str) + "-Q" + deals["deal_date"].dt.quarter.astype(str)
    by_hand = deals.assign(q=quarter.to_numpy()).groupby(["q", "deal_type"], observed=True).size()
    for (q, kind), n in by_hand.items():
        assert activity.loc[q, str(kind)] == n

    exploded = dealframe.explode_participants(deals, roles=("lead_investor", "buyer"))
    edges = dealframe.co_investment_edges(exploded).head(15).reset_index(drop=True)
    edges.attrs = {}
    pairs = _parquet(report, "co_investment_pairs")
    pd.testing.assert_frame_equal(pairs, edges, check_dtype=False)

    top = _parquet(report, "top_investors")
    acting = exploded[exploded["role"].isin(["lead_investor", "buyer"])]
    per_investor = acting.groupby("participant_id")["deal_id"].nunique()
    assert top["deals"].tolist() == [per_investor[i] for i in top["participant_id"]]
    assert top["deals"].iloc[0] == per_investor.max()
    assert (top["led"] + top["bought"] >= top["deals"]).all()


# ------------------------------------------------------------------ bad input and the CLI


def test_bad_options_raise_typed_errors(client, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(ValidationError, match="out_dir"):
        build_report(client, blocker)
    with pytest.raises(ValidationError, match="group.region"):
        build_report(client, tmp_path / "o", group={"region": "Atlantis"})
    with pytest.raises(ValidationError, match="metric"):
        build_report(client, tmp_path / "o", metric="ebitda_margin")
    with pytest.raises(ValidationError, match="group"):
        build_report(client, tmp_path / "o", group={"vertical": "Nothing Such"})


def test_cli_builds_the_report_against_an_embedded_sandbox(tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(["report", "--sandbox", "--scale", "0.05", "--out", str(out), "--region", REGION,
                 "--metric", "valuation"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.strip() == str(out / "report.html")
    assert "starting the embedded sandbox" in captured.err and "[7/7]" in captured.err
    assert json.loads((out / "manifest.json").read_text())["metric"] == "valuation"


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dealframe", "report", *args], env=env, check=False,
                          capture_output=True, text=True, timeout=60)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALFRAME_")}
    return {**env, "DEALFRAME_CACHE": "off", **extra}


def test_cli_fails_with_one_line_on_an_unwritable_out(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = main(["report", "--sandbox", "--out", str(blocker / "sub")])
    captured = capsys.readouterr()
    assert code == 1
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dealframe report: error: invalid out_dir")
    assert not captured.out


def test_cli_fails_with_one_line_on_a_service_error(sandbox, tmp_path):
    done = _cli(["--out", str(tmp_path / "o")],
                _env(DEALFRAME_BASE_URL=sandbox.url, DEALFRAME_PUBLIC_TOKEN="wrong",
                     DEALFRAME_PRIVATE_KEY="wrong"))
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "401 INVALID_TOKEN" in errors[0]
    assert "wrong" not in done.stderr
    assert not (tmp_path / "o" / "report.html").exists()


def test_cli_without_configuration_says_what_to_set(tmp_path, capsys, monkeypatch):
    for name in ("DEALFRAME_BASE_URL", "DEALFRAME_PUBLIC_TOKEN", "DEALFRAME_PRIVATE_KEY"):
        monkeypatch.delenv(name, raising=False)
    code = main(["report", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 1
    assert "DEALFRAME_BASE_URL" in err and "--sandbox" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("blocked", "extra"), [("matplotlib", "dealframe[report]"),
                                                ("uvicorn", "dealframe[sandbox]")])
def test_cli_names_a_missing_extra(blocked, extra, tmp_path):
    script = (f"import sys; sys.modules[{blocked!r}] = None\n"
              "from dealframe.cli import main\n"
              f"sys.exit(main(['report', '--sandbox', '--scale', '0.02', '--out', {str(tmp_path)!r}]))")
    done = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and extra in errors[0] and "Traceback" not in done.stderr
