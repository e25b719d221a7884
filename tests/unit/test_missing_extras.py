"""Without an extra, the Python API says what to install, as the commands do: importing
``dealframe.plot``, using ``dealframe.report.build_report`` (matplotlib, ``dealframe[report]``)
and asking for ``.xlsx`` output (openpyxl, ``dealframe[excel]``) raise
:class:`dealframe.errors.ExtraMissing`, an ``ImportError`` and a ``DealframeError``.

The missing module is simulated in a fresh interpreter (``sys.modules[name] = None``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dealframe
from dealframe.errors import ExtraMissing, needs_extra


def _without(module: str, call: str) -> list[str]:
    """``call`` run with ``module`` unimportable: the error's class, kind, extra and text."""
    script = (
        f"import sys\nsys.modules[{module!r}] = None\nimport dealframe\ntry:\n    {call}\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, isinstance(exc, dealframe.DealframeError), exc.extra)\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("module", "call", "what", "extra"),
    [
        ("matplotlib", "import dealframe.plot", "dealframe.plot", "report"),
        ("matplotlib", "import dealframe.plot.deals", "dealframe.plot", "report"),
        (
            "matplotlib",
            "import dealframe.report; dealframe.report.build_report",
            "the report",
            "report",
        ),
        (
            "openpyxl",
            "from dealframe.pull.output import check_output; check_output('out.xlsx')  # checks, writes nothing",
            ".xlsx output",
            "excel",
        ),
    ],
)
def test_a_missing_extra_is_named_by_the_python_api(module, call, what, extra):
    kind, message = _without(module, call)
    assert kind == f"ExtraMissing True {extra}"
    assert message.startswith(f'{what} needs {module}: pip install "dealframe[{extra}]" (')


def test_other_import_errors_pass_unchanged():
    with pytest.raises(ImportError) as caught:
        with needs_extra("dealframe.plot", "report", "matplotlib"):
            import dealframe_no_such_module  # noqa: F401
    assert not isinstance(caught.value, ExtraMissing)
    assert caught.value.name == "dealframe_no_such_module"


def test_extra_missing_is_exported_and_catchable_as_an_import_error():
    assert dealframe.ExtraMissing is ExtraMissing
    error = ExtraMissing("dealframe.plot", "report", "matplotlib")
    assert isinstance(error, ImportError) and isinstance(error, dealframe.DealframeError)
    assert (error.extra, error.name) == ("report", "matplotlib")
