"""The progress bar of a concurrent map moves as each answer arrives, not at the end."""

from __future__ import annotations

import io
import sys
import threading
import types
import warnings

import dealframe.transport.paging as paging


def test_the_bar_moves_while_requests_are_still_running(monkeypatch):
    moved = threading.Event()

    class Bar:  # the bar's factory is replaced: what is tested is when the map updates it
        def update(self, n: int = 1) -> None:
            moved.set()

        def close(self) -> None:
            pass

    monkeypatch.setattr(paging, "_bar", lambda enabled, total, desc: Bar() if enabled else None)

    def fetch(item: int) -> bool:
        if item == 3:  # the last answer waits until the bar has shown an earlier one
            return moved.wait(timeout=20)
        return True

    result = paging.map_concurrent(fetch, range(4), 2, progress=True)
    assert result.results == [True, True, True, True]  # False: the bar sat still meanwhile


def test_jupyter_without_ipywidgets_gets_the_text_bar(monkeypatch):
    """tqdm's widget bar without ipywidgets warns 'IProgress not found' and prints text."""
    shell = types.SimpleNamespace(kernel=object())  # what a Jupyter kernel's shell carries
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert paging.in_kernel()
    monkeypatch.setattr(paging, "_has_ipywidgets", lambda: False)
    assert paging._widgets() is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bar = paging.progress_bar(3, "pages", unit="page")
        bar.update(3)
        bar.close()
    monkeypatch.setattr(paging, "_has_ipywidgets", lambda: True)
    assert paging._widgets() is True


def test_a_process_that_imported_ipykernel_is_no_kernel(monkeypatch):
    """Auto progress (``None``) drew bars into a captured stderr once any test of the process
    had imported ``ipykernel``: only a running kernel's shell counts, or a terminal."""
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not paging.in_kernel()
    assert paging.show_progress(None, 10) is False
    assert paging.show_progress(True, 10) is True
