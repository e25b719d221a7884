"""Without an extra, the Python API says what to install, as the commands do: importing
``dealframe.plot``, using ``dealframe.report.build_report`` (matplotlib, ``dealframe[report]``)
and asking for ``.xlsx`` output (openpyxl, ``dealframe[excel]``) raise
:class:`dealframe.errors.ExtraMissing`, an ``ImportError`` and a ``DealframeError``.

The missing module is simulated in a fresh start (``sys.modules[name] = None``): one interpreter
for every case, each case in a child process forked from it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import dealframe
from dealframe.errors import ExtraMissing, needs_extra

#: (module made unimportable, call, what the message names, extra).
CASES = [
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
]

#: One interpreter imports dealframe (which imports none of the extras), then each case runs
#: in a child forked from it: the state a fresh ``import sys; sys.modules[m] = None; import
#: dealframe`` gives, without importing dealframe once per case. Each case prints its lines
#: and its child's exit status, prefixed with the case's number.
_SCRIPT = """
import json, os, sys, traceback
cases = json.loads(sys.argv[1])
import dealframe
imported = sorted({module for module, _ in cases} & set(sys.modules))
print("imported by dealframe:", imported)
for i, (module, call) in enumerate(cases):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            sys.modules[module] = None
            try:
                exec(call, {})
            except ImportError as exc:
                print(i, type(exc).__name__, isinstance(exc, dealframe.DealframeError), exc.extra)
                print(i, exc)
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    print(i, "exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


@pytest.fixture(scope="module")
def outcomes() -> dict[int, list[str]]:
    """Each case's call run with its module unimportable: its lines (the error's class, kind,
    extra, then its text) and, last, the exit status of the process it ran in."""
    cases = json.dumps([[module, call] for module, call, _, _ in CASES])
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, cases], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "imported by dealframe: []", lines[0]  # so each child is a fresh start
    found: dict[int, list[str]] = {i: [] for i in range(len(CASES))}
    for line in lines[1:]:
        number, _, rest = line.partition(" ")
        found[int(number)].append(rest)
    return found


@pytest.mark.parametrize(("module", "call", "what", "extra"), CASES)
def test_a_missing_extra_is_named_by_the_python_api(outcomes, module, call, what, extra, request):
    *said, status = outcomes[CASES.index((module, call, what, extra))]
    assert status == "exit 0", request.node.name
    kind, message = said
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
