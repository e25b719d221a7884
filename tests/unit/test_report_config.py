"""Report cohorts and the TOML file of cohorts are checked without a service, with the
closest valid value on a typo and the place of the error in the file."""

from __future__ import annotations

import pytest

from dealframe.errors import ValidationError
from dealframe.report.cohort import Cohort, parse_cohort
from dealframe.report.config import load_config, parse_config
from dealframe.report.gather import report_window


def test_cohort_labels_filters_and_folder():
    cohort = parse_cohort(
        {
            "region": "western europe",
            "vertical": "Fintech",
            "deal_type": "Venture, Growth",
            "since": "2023-01-01",
        }
    )
    assert cohort == Cohort("Western Europe", "Fintech", ("Venture", "Growth"), "2023-01-01")
    assert cohort.public_filters() == {"regions": ["Western Europe"], "industries": ["Fintech"]}
    assert cohort.deal_filters() == {
        "target_region": ["Western Europe"],
        "target_verticals": ["Fintech"],
        "deal_type": ["Venture", "Growth"],
    }
    assert cohort.slug == "western-europe-fintech-venture-growth"
    assert cohort.companies_label == "Western Europe · Fintech"


def test_a_deal_type_far_from_every_known_one_is_left_to_the_service():
    assert parse_cohort({"region": "Oceania", "deal_type": ["Debt"]}).deal_types == ("Debt",)


@pytest.mark.parametrize(
    ("cohort", "message"),
    [
        ({"region": "Oceanai"}, "did you mean 'Oceania'"),
        ({"region": "Oceania", "deal_type": ["growht"]}, "did you mean 'Growth'"),
        ({"region": "Oceania", "since": "yesterday"}, "since"),
        ({"vertical": "  "}, "vertical"),
        ({}, r"a region or a vertical \(or both\), got neither \(no keys\)$"),
        ({"name": "a", "since": 2020}, r"got neither \(name, since\)$"),  # not a Python dict
        ({"region": "Oceania", "sinse": "2024-01-01"}, "did you mean 'since'"),
        ("Oceania", "a mapping"),
    ],
)
def test_bad_cohorts(cohort, message):
    with pytest.raises(ValidationError, match=message):
        parse_cohort(cohort)


def test_report_window_drops_a_leading_part_quarter_unless_asked():
    default = report_window("2021-06-30", "2026-06-30", None)
    assert (default.start, default.end) == ("2021-07-01", "2026-06-30")
    assert report_window("2021-07-01", "2026-06-30", None).start == "2021-07-01"
    since = report_window("2021-06-30", "2026-08-15", "2024-02-15")
    assert since.start == "2024-02-15"
    assert since.ltm == ("2025-08-16", "2026-08-15")
    assert since.prior == ("2024-08-16", "2025-08-15")
    assert since.pull_start == "2024-02-15"
    assert report_window("2021-06-30", "2026-06-30", "2026-01-01").pull_start == "2024-07-01"


def test_config_file(tmp_path):
    path = tmp_path / "nightly.toml"
    path.write_text(
        'out = "reports"\nmetric = "ev_ebitda"\n'
        '[[cohort]]\nname = "A b"\nregion = "Oceania"\ntop = 3\n'
        '[[cohort]]\nvertical = "Fintech"\nmetric = "raised"\n'
    )
    jobs = load_config(path)
    assert [(j.out.as_posix(), j.metric, j.top) for j in jobs] == [
        ("reports/a-b", "ev_ebitda", 3),
        ("reports/fintech", "raised", 15),
    ]
    assert load_config(path, out=tmp_path / "o")[0].out == tmp_path / "o" / "a-b"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"out": "r"}, "no cohort"),
        ({"cohort": [{"region": "Oceania"}]}, "no output folder"),
        ({"out": "   ", "cohort": [{"region": "Oceania"}]}, "no output folder"),
        ({"out": "r", "metrc": "x", "cohort": []}, "did you mean 'metric'"),
        ({"out": "r", "top": 0, "cohort": [{"region": "Oceania"}]}, "top"),
        (
            {"out": "r", "cohort": [{"region": "Oceania"}, {"region": "Oceania"}]},
            "cohort 2: its folder",
        ),
        (
            {"out": "r", "cohort": [{"name": "x", "region": "Oceania", "metric": "ev"}]},
            'cohort 1 ("x"): invalid metric',
        ),
        ({"out": "r", "cohort": ["Oceania"]}, "cohort 1: not a table"),
    ],
)
def test_bad_config_documents(document, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_config(document, "n.toml")


def test_unreadable_config_files(tmp_path):
    with pytest.raises(ValidationError, match="no such file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("out = [")
    with pytest.raises(ValidationError, match="not valid TOML"):
        load_config(bad)


def test_a_region_typo_is_worded_and_typed_as_the_clients_region_errors():
    """``except EnumValueError`` catches a region typo whichever entry point made it, and the
    report words it as both families do (one of ..., did you mean ...)."""
    from dealframe.errors import EnumValueError

    with pytest.raises(
        EnumValueError, match=r"expected one of Africa, .* \(did you mean 'Oceania'"
    ):
        parse_cohort({"region": "Oceanai"})
    assert parse_cohort({"region": "oceania"}).region == "Oceania"


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_output_folder_is_refused_not_made(blank, tmp_path, monkeypatch):
    """A folder named with spaces is no output folder (a blank ``$OUTDIR``): refused, and
    nothing is made in the current folder."""
    from dealframe.report.files import prepare_out_dir

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError, match="invalid out_dir: expected a folder path"):
        prepare_out_dir(blank)
    assert list(tmp_path.iterdir()) == []
