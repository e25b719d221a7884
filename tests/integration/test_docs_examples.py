"""The Python examples of docs/*.md run as written, against the session sandbox, and print what
the page shows after them (and mirror.md's snapshot the count its comment shows).

The blocks of one page run in order in one namespace, as a reader pastes them into one notebook:
``client`` is an open client of the session sandbox (a block that opens its own keeps it for
itself), and ``dealframe.Client()`` finds the sandbox in the environment. A block followed at
once by a ``text`` block must print exactly that text (whitespace aside), the value of a last
bare expression included, as a notebook shows it. Transcripts (``>>>``) and Spark, which the
suite does not have, are illustrative and left out.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pandas as pd
import pytest

import dealframe

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*```text\n(.*?)```)?", flags=re.S)


def _examples(page: Path) -> list[tuple[str, str | None]]:
    found = BLOCK.findall(page.read_text())
    return [(code, shown or None) for code, shown in found if ">>>" not in code]


PAGES = sorted(p.name for p in DOCS.glob("*.md") if _examples(p))


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.strip().splitlines()]


def _run(code: str, namespace: dict, name: str) -> None:
    """exec ``code``, printing the value of a last bare expression as a notebook would."""
    tree = ast.parse(code)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    exec(compile(tree, name, "exec"), namespace)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)
        if value is not None:
            print(repr(value))


@pytest.mark.filterwarnings("error::dealframe.MissingDataWarning")
@pytest.mark.parametrize("page", PAGES)
def test_examples_run_and_print_what_the_page_shows(page, sandbox, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)  # the mirror and the report write here
    monkeypatch.setenv("DEALFRAME_BASE_URL", sandbox.url)
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", sandbox.public_token)
    monkeypatch.setenv("DEALFRAME_PRIVATE_KEY", sandbox.private_key)
    monkeypatch.setenv("DEALFRAME_CACHE", "off")
    namespace: dict = {}
    ran = 0
    with dealframe.Client.for_sandbox(sandbox, progress=False) as client:
        for index, (code, shown) in enumerate(_examples(DOCS / page)):
            if "spark." in code:
                continue
            if page != "mirror.md" or "client" not in namespace:
                # mirror.md's first block makes the client of the page (Client() from the
                # environment): a mirror refuses a second service, the sandbox named otherwise
                namespace["client"] = client
            out = io.StringIO()
            with (
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(io.StringIO()),
                pd.option_context("display.width", 200, "display.max_columns", None),
            ):
                _run(code, namespace, f"{page} block {index}")  # frames whole, as in a notebook
            if shown is not None:
                assert _lines(out.getvalue()) == _lines(shown), f"{page} block {index}"
            ran += 1
    assert ran > 0
    if page == "mirror.md":  # a fresh mirror: one version, and a snapshot that holds companies
        assert namespace["pinned"].equals(namespace["then"])
        assert namespace["snap"]["companies"] == len(namespace["comps"]) > 0
        # the count its comment shows (the date is today's: no text block can show it)
        said = re.search(r"# \((\d+), today\) against the sandbox", (DOCS / page).read_text())
        assert said and namespace["snap"]["companies"] == int(said.group(1))


def test_every_page_with_examples_is_run():
    assert {"aggregates.md", "mirror.md", "report.md", "sandbox.md"} <= set(PAGES)
