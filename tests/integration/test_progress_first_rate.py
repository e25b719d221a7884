"""A progress bar's first figure: work done before the bar was made is tqdm's ``initial``
count, shown and left out of the rate.

A mirror sync's bar was made when page 1 arrived and moved by setting ``n``: its first line read
"999/50000 [00:00<00:00, 97444411.53row/s]" (page 1's rows over the microseconds since the bar
was made; tqdm never measured a rate). A list walk that read page 2 before its bar (to settle a
service's page numbering) counted it the same way, as an update the moment the bar was made.
The bars' rendered text (standard error, as tqdm writes it) is read back here.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    fresh,
    fresh_rules,
    proxy,
    zero_indexed,
)

import dealframe.mirror as mirror
from dealframe.client import Client

#: One rendered state of a bar: "<desc>: 7%|...| 999/15000 [00:00<00:01, 6645.32row/s]"
LINE = re.compile(
    r"(?P<desc>[\w ]+):\s+\d+%\|[^|]*\|\s*(?P<n>\d+)/(?P<total>\d+) \[[^,]*, (?P<rate>\S+)\]"
)


def _states(text: str, desc: str) -> list[dict[str, Any]]:
    """The bar ``desc``'s states, in the order drawn."""
    found = (LINE.search(part) for part in text.split("\r"))
    return [m.groupdict() for m in found if m is not None and m["desc"] == desc]


def test_a_mirror_sync_bar_shows_no_rate_for_the_rows_it_was_made_with(sandbox, tmp_path):
    err = io.StringIO()
    with Client.for_sandbox(sandbox) as client, contextlib.redirect_stderr(err):
        report = mirror.sync(client, tmp_path / "m", entities=["deals"], progress=True)
    states = _states(err.getvalue(), "mirror deals")
    assert report["deals"].requests > 2 and states, err.getvalue()[-500:]
    first = next(state for state in states if int(state["n"]) > 0)
    # page 1's rows, and no rate measured from them (it read 97 million rows a second)
    assert first["rate"] == "?row/s", states[:3]
    assert int(first["total"]) == report["deals"].rows_received
    assert all(int(a["n"]) <= int(b["n"]) for a, b in zip(states, states[1:])), states


def test_a_walk_bar_counts_the_page_read_before_it_as_initial(fresh, proxy, direct):
    """A service counting pages from 0 without saying so: page 2 is read alone to settle it,
    before the bar of pages 2..n is made. The bar starts at that page, with no rate."""
    proxy.add(r"/transactions$", zero_indexed(says=False), method="POST")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        frame = fresh.private.deals(progress=True)
    assert len(frame) == len(direct.private.deals()) and "page_from_0" in frame.attrs
    states = _states(err.getvalue(), "transactions")
    assert states, err.getvalue()[-500:]
    pages = frame.attrs["requests"]
    assert states[0] == {
        "desc": "transactions",
        "n": "1",
        "total": str(pages - 1),
        "rate": "?req/s",
    }
