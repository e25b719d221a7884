"""``missing_expected`` quiets the missing-ids warning of the current thread only: unlike
``warnings.catch_warnings``, it changes no process-wide warning filter."""

from __future__ import annotations

import threading
import warnings

import pytest

from dealframe.notices import MissingDataWarning, missing_expected, warn_missing


def test_quiet_inside_and_loud_after():
    with missing_expected():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn_missing("2 of 3 SKUs were not returned")
        assert caught == []
        filters = list(warnings.filters)
    assert filters == list(warnings.filters)  # no filter was added or removed
    with pytest.warns(MissingDataWarning, match="2 of 3"):
        warn_missing("2 of 3 SKUs were not returned")


def test_another_thread_still_warns_meanwhile():
    seen: list[str] = []
    inside, done = threading.Event(), threading.Event()

    def other() -> None:
        inside.wait(5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn_missing("from the other thread")
        seen.extend(str(w.message) for w in caught)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with missing_expected():
        inside.set()
        done.wait(5)
    thread.join(5)
    assert seen == ["from the other thread"]
