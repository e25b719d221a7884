"""The wheel: ``python -m build`` makes one that carries the typing marker and the license, and
whose package runs the main job (``dealframe report --sandbox``) on its own (issue 13): the default
report against the embedded sandbox, with what that command promises."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

#: Builds the wheel and installs it in a fresh virtual environment.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    leftover = ROOT / "build"  # setuptools' working folder, made in the source tree
    existed = leftover.exists()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        if not existed:
            shutil.rmtree(leftover, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("dealframe-*.whl")
    return built


def test_the_wheel_carries_py_typed_the_license_and_the_metadata(wheel: Path):
    import dealframe

    names = zipfile.ZipFile(wheel).namelist()
    assert "dealframe/py.typed" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    metadata = (
        zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    )
    assert f"Version: {dealframe.__version__}" in metadata
    assert "License-Expression: MIT" in metadata
    assert "Project-URL:" in metadata and "Classifier: Typing :: Typed" in metadata
    assert any(n.endswith("entry_points.txt") for n in names)


def test_the_wheel_runs_the_report_against_the_embedded_sandbox(wheel: Path, tmp_path: Path):
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    env = {**os.environ, "PYTHONPATH": str(unpacked), "DEALFRAME_SANDBOX_CACHE": "0"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import dealframe, sys; assert dealframe.__file__.startswith(sys.argv[1]);"
            "from dealframe.cli import main; sys.exit(main(sys.argv[2:]))",
            str(unpacked),
            "report",
            "--sandbox",
            "--scale",
            "0.05",  # what runs is the claim, not how much data: small data, no snapshot
            "--out",
            str(tmp_path / "r"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "r"
    assert (out / "report.html").stat().st_size > 10_000
    # what ``dealframe report --sandbox`` promises (this is also that command's run in the suite)
    assert done.stdout.strip() == str(out / "report.html")
    assert "starting the embedded sandbox" in done.stderr
    assert json.loads((out / "manifest.json").read_text())["cohort"] == {"region": "Western Europe"}
