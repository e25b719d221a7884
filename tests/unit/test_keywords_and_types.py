"""The charts, the report, the frame builders and ``Settings`` refuse a misspelt keyword as
the client does (``UnknownArgumentError`` naming the closest keyword), and the public
parameters carry types a user's type checker can hold calls to (issue 13)."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dealframe
import dealframe.frames
import dealframe.plot
from dealframe.errors import UnknownArgumentError
from dealframe.report import build_report

ROOT = Path(__file__).resolve().parents[2]


#: Primitives of the frame builders, called per column or per value (a check per call would
#: cost more than the work); they take no keyword a user would give.
_PRIMITIVES = {"dumps", "encode", "as_records", "assemble", "build_columns", "cast"}
_PRIMITIVES |= {"infer_kind", "to_date", "to_utc", "why", "dtype_of", "top_level_fields"}
_PRIMITIVES |= {
    "without_offset",
    "no_offset_text",
    "offsets_noted",
    "warnings_noted",
    "warn_or_note",
}
_PRIMITIVES |= {"numbers_noted", "warn_numbers_as_text", "to_booleans"}
_PRIMITIVES |= {"arrow_type", "is_arrow_number"}
_PRIMITIVES |= {"rows_kept", "rows_said_later", "say_kept", "say_values"}


def _functions():
    frames = [m.name for m in pkgutil.iter_modules(dealframe.frames.__path__, "dealframe.frames.")]
    for module in map(importlib.import_module, ["dealframe.plot", "dealframe.frames", *frames]):
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value) and name not in _PRIMITIVES:
                yield f"{value.__module__}.{name}", value
    yield "dealframe.report.build_report", build_report
    yield "dealframe.Settings", dealframe.Settings


_FUNCTIONS = dict(_functions())


@pytest.mark.parametrize("name", sorted(_FUNCTIONS))
def test_a_misspelt_keyword_names_the_closest_one(name):
    function = _FUNCTIONS[name]
    keywords = [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    keyword = keywords[-1]
    typo = keyword + keyword[-1]  # "window" -> "windoww"
    with pytest.raises(UnknownArgumentError, match=f"did you mean '{keyword}'") as info:
        function(**{typo: None})
    assert info.value.argument == typo and isinstance(info.value, TypeError)


def test_the_audited_typos_are_dealframe_errors_before_any_request():
    client = dealframe.Client(base_url="http://127.0.0.1:9", public_token="t", private_key="k")
    with pytest.raises(UnknownArgumentError, match="did you mean 'cohort'"):
        build_report(client, "never-written", cohrt={"region": "Oceania"})
    with pytest.raises(UnknownArgumentError, match="did you mean 'window'"):
        dealframe.plot.deals_per_quarter(dealframe.frames.deals_frame([]), windw=None)
    with pytest.raises(UnknownArgumentError, match="did you mean 'with_role'"):
        dealframe.frames.deals_frame([], with_rol=True)
    with pytest.raises(UnknownArgumentError, match="did you mean 'read_timeout'"):
        dealframe.Settings(timout=3)  # type: ignore[call-arg]
    assert client.stats.snapshot()["calls"] == 0
    assert not Path("never-written").exists()
    assert len(_FUNCTIONS) > 40
    client.close()


#: Calls a type checker must refuse (``# wrong``) beside calls it must accept: the parameters
#: once typed ``Any`` accepted every one of them.
_SNIPPET = """\
import datetime as dt

import pandas as pd

import dealframe
from dealframe import analytics, frames, mirror
from dealframe.plot import capital_raised, deals_per_quarter, private_vs_public
from dealframe.report import build_report
from dealframe.sandbox import Sandbox


def calls(client: dealframe.Client, deals: pd.DataFrame, sb: Sandbox) -> None:
    analytics.reconcile_groups(client, industries=5)  # wrong
    analytics.reconcile_groups(client, regions="Oceania", fields=["marketCap"])
    analytics.reconcile_groups(client, fields=3)  # wrong
    analytics.bucket_medians(deals, "ev_revenue", date_from=3.5)  # wrong
    analytics.bucket_medians(deals, "ev_revenue", as_of={})  # wrong
    analytics.bucket_medians(deals, "ev_revenue", "year", "2024-01-01", dt.date(2024, 6, 30))
    analytics.resolve_window(as_of=[1])  # wrong
    analytics.resolve_window(as_of=dt.datetime(2024, 2, 29))
    mirror.load_public("m", on=1.5)  # wrong
    mirror.load_public("m", as_of=[1])  # wrong
    mirror.load_public("m", on="2024-01-01", as_of=3)
    mirror.snapshot_public(client, "m", date=20240101)  # wrong
    deals_per_quarter(deals, window="2024")  # wrong
    deals_per_quarter(deals, window=("2024-01-01", None))
    capital_raised(deals, window=(1, 2))  # wrong
    private_vs_public(deals, deals, window=(None, dt.date(2024, 12, 31)))
    build_report(client, "out", window=("2024-01-01", "2024-12-31"))  # wrong
    build_report(client, "out", window=("2024-01-01", None))
    dealframe.Client.for_sandbox(object())  # wrong
    dealframe.Client.for_sandbox(sb)
    dealframe.compare_multiples(client, date_from=object())  # wrong
    dealframe.compare_multiples(client, date_from="2023-01-01")
    client.private.schema("companies", deadline="soon")  # wrong
    frames.group_current_frame(5)  # wrong
    frames.group_current_frame({"median": {"marketCap": 1.0}})
    frames.aggregate_frame(5)  # wrong
    dealframe.Settings.from_env(retires=3)  # wrong
    dealframe.Settings.from_env({}, retries=3)
    dealframe.Settings().replace(max_wrokers=8)  # wrong
    dealframe.Settings().replace(max_workers="8")  # wrong
    dealframe.Settings().replace(max_workers=8, cache_path="c.sqlite")
"""


def test_a_type_checker_refuses_wrong_argument_types(tmp_path):
    """mypy reads and writes the project's own cache, the one ``mypy`` in the project folder
    (tests/unit/test_tooling.py, a maintainer's run) keeps: with dealframe's modules and the
    stubs already analysed there, only the snippet is checked (under a second, against 13 s
    from an empty cache). mypy checks every cached module's source and options before it uses
    the cache, so what is refused is the same either way."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(_SNIPPET)
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
        + ["--cache-dir", str(ROOT / ".mypy_cache"), "--no-error-summary", str(snippet)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = _SNIPPET.splitlines()
    wrong = {n for n, line in enumerate(lines, start=1) if line.endswith("# wrong")}
    refused = {int(m.group(1)) for m in re.finditer(r"snippet\.py:(\d+): error:", done.stdout)}
    report = done.stdout + done.stderr
    assert len(wrong) == 19
    assert refused == wrong, textwrap.indent(report, "  ")
