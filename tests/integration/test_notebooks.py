"""Every notebook in notebooks/ executes headlessly, shows at least one chart, stops its sandbox,
and is stored without outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

#: Runs every notebook from an empty kernel.
pytestmark = pytest.mark.slow

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT_S = 60


def test_the_four_notebooks_are_there():
    names = [p.name for p in NOTEBOOKS]
    for prefix in ("01_", "02_", "03_", "04_"):
        assert any(n.startswith(prefix) for n in names), names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)
    assert nb.cells[0].cell_type == "markdown"
    source = "\n".join(c.source for c in code)
    assert "dealframe.sandbox" in source and "sb.stop()" in code[-1].source


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """One kernel for the notebooks of this module, running this interpreter.

    Each notebook starts from an empty namespace in its own working folder (see
    :data:`FRESH_START`); what the kernel keeps between notebooks is only what any kernel
    keeps between two runs: imported modules. A notebook that forgot an import still fails.
    The "python3" kernel spec is written to a folder of its own, found before any installed
    one (an installed spec may say just ``python``, which on PATH can be another
    interpreter without dealframe).
    """
    jupyter_client = pytest.importorskip("jupyter_client")
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (tests)",
                "language": "python",
            }
        )
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUPYTER_PATH", str(root))
        km = jupyter_client.KernelManager(kernel_name="python3")
        km.start_kernel(cwd=str(root))
        try:
            yield km
        finally:
            km.shutdown_kernel(now=True)


#: Run before each notebook: no variables of the one before, no figures left open, and the
#: notebook's own folder as the working directory (as a new kernel started there would have).
FRESH_START = """\
get_ipython().run_line_magic("reset", "-f")
import os as _os
_os.chdir({folder!r})
del _os
import matplotlib.pyplot as _plt
_plt.close("all")
del _plt
"""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path, tmp_path, kernel):
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(FRESH_START.format(folder=str(tmp_path))))
    client = nbclient.NotebookClient(
        nb,
        km=kernel,
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    try:
        client.execute()  # raises CellExecutionError naming the failing cell
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    assert nb.cells[0].outputs == []  # the fresh start itself printed nothing
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    pngs = [o for o in outputs if "image/png" in o.get("data", {})]
    assert pngs, f"{path.name} drew no chart"
