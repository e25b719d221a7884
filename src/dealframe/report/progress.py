"""Stage lines for a long-running report: ``[2/7] public comps ... 123 companies (0.2 s)``."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

__all__ = ["Progress", "Stage", "stderr_sink"]


def stderr_sink(line: str) -> None:
    """Print one progress line to standard error, flushed at once."""
    print(line, file=sys.stderr, flush=True)


class Stage:
    """One running stage; :meth:`done` sets the detail shown when it ends."""

    def __init__(self) -> None:
        self.detail = ""

    def done(self, detail: str) -> None:
        """Record what the stage produced (e.g. ``"4,445 deals"``)."""
        self.detail = detail


class Progress:
    """Numbered stage lines sent to a sink (nothing when the sink is None).

    Parameters
    ----------
    sink : callable or None
        Receives each line (``stderr_sink`` prints to standard error).
    total : int
        Number of stages, for the ``[i/total]`` prefix.

    Examples
    --------
    >>> lines = []
    >>> p = Progress(lines.append, total=1)
    >>> with p.stage("counting") as st:
    ...     st.done("3 things")
    >>> lines[0], lines[1].startswith("      counting: 3 things (")
    ('[1/1] counting ...', True)
    """

    def __init__(self, sink: Callable[[str], None] | None, total: int) -> None:
        self._sink = sink
        self._total = total
        self._index = 0
        self._started = time.perf_counter()

    def say(self, line: str) -> None:
        """Send one free-form line."""
        if self._sink is not None:
            self._sink(line)

    @property
    def elapsed(self) -> float:
        """Seconds since this object was created."""
        return time.perf_counter() - self._started

    @contextlib.contextmanager
    def stage(self, title: str) -> Iterator[Stage]:
        """Announce a stage, run the block, then report its detail and duration."""
        self._index += 1
        self.say(f"[{self._index}/{self._total}] {title} ...")
        stage = Stage()
        start = time.perf_counter()
        yield stage
        seconds = time.perf_counter() - start
        detail = f": {stage.detail}" if stage.detail else ""
        self.say(f"      {title}{detail} ({seconds:.1f} s)")
