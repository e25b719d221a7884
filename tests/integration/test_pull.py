"""``dealframe pull`` writes .parquet, .csv and .xlsx files equal to what the client returns,
validates like the Python API (with did-you-mean) before anything starts, and fails in one
line with a status a scheduler can act on."""

from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

import dealframe
from dealframe.cli import main
from dealframe.notices import MissingDataWarning
from dealframe.pull.output import portable_frame

REGION = "Western Europe"


@pytest.fixture
def service(sandbox, monkeypatch):
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    return sandbox


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def _read(path) -> pd.DataFrame:
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    if path.suffix == ".csv":
        return pd.read_csv(path)
    return pd.read_excel(path, engine="openpyxl")


def _pull(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(["pull", *args])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("suffix", ["parquet", "csv", "xlsx"])
def test_deals_in_every_format_equal_the_python_api(service, client, tmp_path, capsys, suffix):
    path = tmp_path / f"deals.{suffix}"
    code, out, err = _pull(
        [
            "deals",
            "--deal-type",
            "Venture,Growth",
            "--target-region",
            REGION,
            "--date-from",
            "2025-01-01",
            "-o",
            str(path),
        ],
        capsys,
    )
    assert code == 0, err
    assert out.strip() == str(path)
    assert "pulling deals" in err and "rows" in err
    expected = client.private.deals(
        deal_type=["Venture", "Growth"], target_region=[REGION], date_from="2025-01-01"
    )
    got = _read(path)
    assert len(got) == len(expected) > 0
    assert got["id"].tolist() == expected["id"].tolist()
    assert got["deal_raised"].tolist() == pytest.approx(
        expected["deal_raised"].tolist(), nan_ok=True
    )
    assert set(got["deal_type"]) <= {"Venture", "Growth"}
    leads = [json.loads(v) if isinstance(v, str) else [] for v in got["lead_investors"]]
    wanted = [[p["id"] for p in v or []] for v in dealframe.to_lists(expected["lead_investors"])]
    assert [[p["id"] for p in v] for v in leads] == wanted
    assert (
        pd.to_datetime(got["deal_date"]).dt.date.tolist() == expected["deal_date"].dt.date.tolist()
    )


@pytest.mark.parametrize(("limit", "rows"), [(1, "1 row"), (2, "2 rows")])
def test_progress_counts_rows_and_requests_in_words(service, tmp_path, capsys, limit, rows):
    """One row is "1 row", one request "1 request" (it said "1 rows in 1 requests")."""
    path = tmp_path / "d.csv"
    code, _, err = _pull(["deals", "--limit", str(limit), "-o", str(path)], capsys)
    assert code == 0, err
    assert f"      deals: {rows} in 1 request (" in err, err
    assert f"dealframe pull: wrote {rows} to {path} in " in err, err
    assert len(pd.read_csv(path)) == limit


@pytest.mark.parametrize("suffix", ["parquet", "csv", "xlsx"])
def test_a_sub_collection_in_every_format(service, client, tmp_path, capsys, suffix):
    deals = client.private.deals(target_region=[REGION], deal_type=["Venture"], limit=200)
    ids = (
        dealframe.explode_participants(deals, roles=("lead_investor", "buyer"))["participant_id"]
        .dropna()
        .value_counts()
        .index[:2]
        .tolist()
    )
    path = tmp_path / f"co.{suffix}"
    args = ["co-investors", "-o", str(path)]
    for i in ids:
        args += ["--id", i]
    code, out, err = _pull(args, capsys)
    assert code == 0, err
    expected = client.private.co_investors(ids)
    got = _read(path)
    assert (
        got[["investor_id", "id"]].values.tolist()
        == expected[["investor_id", "id"]].values.tolist()
    )
    assert got["shared_deals"].tolist() == expected["shared_deals"].astype(int).tolist()


def test_public_current_data_to_excel_keeps_the_sku(service, client, tmp_path, capsys):
    path = tmp_path / "comps.xlsx"
    code, _, err = _pull(["current", "--regions", REGION, "-o", str(path)], capsys)
    assert code == 0, err
    expected = client.public.current(client.public.search(regions=[REGION]).index)
    got = pd.read_excel(path, engine="openpyxl")
    assert got["sku"].tolist() == expected.index.tolist()
    assert got["evRevenueNtm"].tolist() == pytest.approx(
        expected["evRevenueNtm"].tolist(), nan_ok=True
    )
    assert json.loads(got["tags"].dropna().iloc[0]) == next(
        t for t in dealframe.to_lists(expected["tags"]) if t
    )


def test_sku_splits_on_commas_like_the_other_list_flags(service, client, tmp_path, capsys):
    """``--sku A,B --sku C`` asks for three companies (``A,B`` used to be one malformed SKU)."""
    skus = client.public.search(regions=[REGION]).index[:3].tolist()
    path = tmp_path / "three.csv"
    args = ["current", "--sku", ",".join(skus[:2]), "--sku", skus[2], "-o", str(path)]
    code, _, err = _pull(args, capsys)
    assert code == 0, err
    assert pd.read_csv(path)["sku"].tolist() == client.public.current(skus).index.tolist()


def test_public_current_of_a_search_matching_nothing_writes_the_header(
    service, client, tmp_path, capsys
):
    """Like ``--sku`` of an unknown company: exit 0, a header-only file, "0 rows"."""
    path = tmp_path / "none.csv"
    code, out, err = _pull(["current", "--countries", "ATA", "-o", str(path)], capsys)
    assert code == 0, err
    assert out.strip() == str(path) and "wrote 0 rows" in err and "skus" not in err
    header = path.read_text().splitlines()
    with warnings.catch_warnings():  # an unknown SKU: no row, the columns of an answer
        warnings.simplefilter("ignore", MissingDataWarning)
        expected = client.public.current(["QQQQ-ZZZ"])
    assert header == [",".join(["sku", *expected.columns])]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["deal", "-o", "x.csv"], "did you mean 'deals'"),
        (["deals", "--deal-typ", "Venture", "-o", "x.csv"], "did you mean '--deal-type'"),
        (["deals", "--deal-type", "Ventrue", "-o", "x.csv"], "did you mean 'Venture'"),
        (["deals", "--valuation-min", "lots", "-o", "x.csv"], "--valuation-min: expected a number"),
        (["deals", "--date-from", "2024-02-30", "-o", "x.csv"], "invalid --date-from: "),
        (
            ["deals", "--date-from", "2025-01-01", "--date-to", "2024-01-01", "-o", "x.csv"],
            "invalid --date-from: ",
        ),
        (
            ["deals", "--valuation-min", "10", "--valuation-max", "5", "-o", "x.csv"],
            "invalid --valuation-min: ",
        ),
        (["deals", "--updated-at", "yesterday", "-o", "x.csv"], "invalid --updated-at: "),
        (["deals", "--id", "nope", "-o", "x.csv"], "invalid --id: "),
        # a comma-separated value refused by the client's check at one position (was IndexError)
        (["deals", "--target-country", "GBR,usa", "-o", "x.csv"], "--target-country: "),
        (["deals", "--target-country", "GBR,usa", "-o", "x.csv"], "got 'usa'"),
        (["companies", "--country", "GBR,usa", "-o", "x.csv"], "invalid --country: "),
        (["deals", "--sort", "deal_dat:desc", "-o", "x.csv"], "invalid --sort: "),
        (["deals", "--sort", "deal_dat:desc", "-o", "x.csv"], "did you mean 'deal_date'"),
        (["deals", "-o", "x.cvs"], "did you mean '.csv'"),
        (["fundings", "-o", "x.csv"], "--id"),
        (["fundings", "--id", "not-a-uuid", "-o", "x.csv"], "a UUID"),
        (
            [
                "fundings",
                "--id",
                "0b6f5a1e-0000-4000-8000-000000000000",
                "--deal-type",
                "M&A",
                "-o",
                "x.csv",
            ],
            "takes --id and --limit only",
        ),
        (
            ["co-investors", "--id", "0b6f5a1e-0000-4000-8000-000000000000", "--limit", "1001"]
            + ["-o", "x.csv"],
            "argument --limit: '1001' is not a whole number from 1 to 1000",
        ),
        (["search", "--region", REGION, "-o", "x.csv"], "did you mean '--regions'"),
        # Family A values, checked as the client checks them, naming the flag
        (["search", "--countries", "GBR,gbr", "-o", "x.csv"], "invalid --countries: "),
        (["search", "--regions", "Westen Europe", "-o", "x.csv"], "did you mean 'Western Europe'"),
        (["current", "--regions", "Westen Europe", "-o", "x.csv"], "invalid --regions: "),
        (["search", "--industries", ",", "-o", "x.csv"], "invalid --industries: "),
        (["search", "--industries", ",", "-o", "x.csv"], "leave the flag out"),
        (["current", "--sku", ",", "-o", "x.csv"], "invalid --sku: expected at least one SKU"),
        (["search", "--enterprise-value-above", "nan", "-o", "x.csv"], "--enterprise-value-above"),
        (["current", "--sku", "AER-USA", "--sku", "NYSE_AER", "-o", "x.csv"], "invalid --sku: "),
        (["current", "--sku", "aer usa", "-o", "x.csv"], "got 'aer usa'"),
        (
            ["current", "--sku", "ACME-USA", "--regions", REGION, "-o", "x.csv"],
            "--sku cannot be used with --regions",
        ),
        (["deals", "--deal-typ", "Venture", "-o", "new/folder/x.csv"], "--deal-type"),
        (["deals"], "-o/--output"),
    ],
)
def test_bad_pulls_fail_in_one_line_before_the_sandbox_starts(
    tmp_path, capsys, monkeypatch, args, expected, sandbox_starts
):
    monkeypatch.chdir(tmp_path)
    code, out, err = _pull([*args, "--sandbox"], capsys)
    assert code == 2
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1 and expected in errors[0], err
    assert "[" not in errors[0].split(":")[1]  # a flag, not a Python argument (countries[0])
    assert "None" not in errors[0]  # a Python word
    assert "starting the embedded sandbox" not in err and not out
    assert sandbox_starts == []  # neither the serving layer loaded nor any data built
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize(
    ("kind", "expected"), [("string", "one of"), ("array_string", "values from")]
)
def test_a_refused_enum_value_names_the_flag_and_stays_an_enum_value_error(kind, expected):
    """The client's check refuses a value outside an enum list: the error names the flag and
    is still an EnumValueError (what the Python API refreshes its discovery document on)."""
    from dealframe.private.filters import EnumValueError, FilterSchema
    from dealframe.pull.flags import schema_filters

    field = {"field": "stage", "type": kind, "operators": ["in"], "values": ["Seed", "Late"]}
    schema = FilterSchema("transactions", {"filters": [field]})
    with pytest.raises(EnumValueError) as raised:
        schema_filters({"stage": ["Sead"]}, schema)
    assert raised.value.argument == "--stage"
    assert str(raised.value) == (
        f"invalid --stage: expected {expected} Seed, Late (did you mean 'Seed'?), got 'Sead'"
    )


def test_against_a_service_filters_are_checked_by_its_discovery_document(service, tmp_path, capsys):
    code, _, err = _pull(["companies", "--contry", "GBR", "-o", str(tmp_path / "c.csv")], capsys)
    assert code == 2 and "did you mean '--country'" in err
    assert not (tmp_path / "c.csv").exists()


def test_service_errors_fail_with_status_1(sandbox, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", "wrong")
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", "wrong")
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    code, out, err = _pull(["investors", "-o", str(tmp_path / "new" / "i.csv")], capsys)
    assert code == 1 and "401" in err and "wrong" not in err and not out
    assert not list(tmp_path.iterdir())  # not even the folder -o would have needed


def test_page_bars_only_on_a_terminal(service, tmp_path, capsys):
    path = tmp_path / "new" / "deals.parquet"
    code, out, err = _pull(["deals", "-o", str(path)], capsys)  # stderr is no terminal here
    assert code == 0 and out.strip() == str(path)
    requests = int(err.split(" rows in ")[1].split()[0])
    assert requests > 1  # enough pages for a bar, had one been drawn
    assert "\r" not in err and "req/s" not in err and "it/s" not in err


def test_files_are_readable_by_plain_readers():
    frame = pd.DataFrame(
        {
            "id": ["a"],
            "when": pd.to_datetime(["2024-01-02T03:04:05+00:00"]),
            "buyers": [[{"id": "x"}]],
        },
        index=pd.Index([7], name="row"),
    )
    out = portable_frame(frame, excel=True)
    assert list(out.columns) == ["row", "id", "when", "buyers"]
    assert out["when"].dt.tz is None and out["buyers"].iloc[0] == '[{"id": "x"}]'


@pytest.mark.parametrize(
    "flag", ["-pSECRET4xxxxxxxxxxx", "--sk_live_SECRET7xxxxxxx", "--sk_live_SECRET7xxxxxxx=1"]
)
def test_an_unknown_filter_word_is_not_quoted(service, tmp_path, capsys, flag):
    """A word given where a filter flag goes may be a token (``-p`` glued to it, or given as
    a flag): counted, not quoted, as the command line's own usage errors do. It was printed
    back whole (``got '-pSECRET4...'``, ``invalid --sk_live_SECRET7...``); the service's
    discovery document is read first (the sandbox's, over HTTP)."""
    code, out, err = _pull(["deals", "-o", str(tmp_path / "d.csv"), flag], capsys)
    assert code == 2 and out == ""
    assert "SECRET" not in err, err
    assert "1 argument not quoted" in err, err
    assert not (tmp_path / "d.csv").exists()


def test_a_slip_of_the_commands_own_option_is_said(service, tmp_path, capsys, monkeypatch):
    """``--limt 5``: did-you-mean looks at the command's options too, not only the filters
    (it said ``did you mean '--id'?``); against a service (the sandbox, over HTTP), and
    before one is needed: without a service configured it said ``no service configured``."""
    code, _, err = _pull(["deals", "-o", str(tmp_path / "d.csv"), "--limt", "5"], capsys)
    assert code == 2 and "did you mean '--limit'?" in err, err
    monkeypatch.delenv("DEALFRAME_BASE_URL")
    code, _, err = _pull(["deals", "-o", str(tmp_path / "d.csv"), "--limt", "5"], capsys)
    assert code == 2 and "did you mean '--limit'?" in err, err
    code, _, err = _pull(
        ["deals", "--sandbox", "-o", str(tmp_path / "d.csv"), "--limt", "5"], capsys
    )
    assert code == 2 and "did you mean '--limit'?" in err, err


@pytest.mark.parametrize("sort", ["deal_date:up", ":asc", "deal_date:desc,name"])
def test_a_sort_of_the_wrong_form_is_refused_before_a_service_is_read(
    sort, tmp_path, capsys, monkeypatch
):
    """The form of ``--sort`` needs no discovery document: an unreachable service is not
    tried (it said ``cannot connect``), as the Python API's ``sort`` is checked first."""
    monkeypatch.setenv("DEALFRAME_BASE_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", "k" * 12)
    code, _, err = _pull(["deals", "-o", str(tmp_path / "d.csv"), "--sort", sort], capsys)
    assert code == 2 and "invalid --sort" in err and "connect" not in err, err
