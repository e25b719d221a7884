"""An in-process sandbox and a client leave the user's process as they found it: logging,
warning filters, the garbage collector, the switch interval and numpy's error state."""

from __future__ import annotations

import gc
import logging
import sys
import threading
import warnings
from typing import Any

import numpy as np

import dealframe.sandbox
from dealframe.client import Client


def _process_state() -> dict[str, Any]:
    loggers = {
        name: (logger.level, logger.propagate, tuple(map(id, logger.handlers)), logger.disabled)
        for name, logger in logging.root.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    root = logging.getLogger()
    return {
        "loggers": loggers,
        "root": (root.level, tuple(map(id, root.handlers))),
        "warnings": list(warnings.filters),
        "gc": (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()),
        "switch": sys.getswitchinterval(),
        "numpy": np.geterr(),
    }


def test_a_sandbox_run_and_a_pull_leave_the_process_as_they_found_it():
    before = _process_state()
    with (
        dealframe.sandbox.run(scale=0.05, seed=3) as sb,
        Client.for_sandbox(sb, progress=False, cache_enabled=False) as client,
    ):
        assert len(client.private.deals()) > 0
        assert len(client.public.search()) > 0
    after = _process_state()
    # loggers first used during the run may be new (created at their default state)
    for name, state in after["loggers"].items():
        if name in before["loggers"]:
            assert state == before["loggers"][name], name
        else:
            assert state == (logging.NOTSET, True, (), False), f"{name} was configured: {state}"
    assert {k: v for k, v in after.items() if k != "loggers"} == {
        k: v for k, v in before.items() if k != "loggers"
    }


def test_progress_bars_leave_no_thread_behind(sandbox, capsys):
    """tqdm starts a monitor thread once per process and never stops it; the client's bars
    (sub-collections of several ids, a paged list) are drawn without it."""
    before = set(threading.enumerate())
    with Client.for_sandbox(sandbox, progress=True, cache_enabled=False, max_workers=2) as client:
        ids = client.private.deals(limit=1500, progress=True)["target_id"].head(3).tolist()
        assert len(client.private.fundings(ids, progress=True)) > 0
    assert "req" in capsys.readouterr().err  # the bars were drawn
    left = {t.name for t in set(threading.enumerate()) - before if t.is_alive()}
    # the in-process sandbox's own server threads (AnyIO's workers, which run its handlers
    # and idle a while before they end) are the service's, not the client's
    left = {name for name in left if not name.startswith("AnyIO worker thread")}
    assert not left, f"threads left behind: {left}"
