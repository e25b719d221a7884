"""The sandbox's models: the generated data and the stores that serve it.

- :mod:`.data` generates the records (with :mod:`.names` and :mod:`.geography`);
  :mod:`.corpus` keeps them serialised, with numpy columns (:mod:`.records`), and
  :mod:`.snapshot` saves that form so later starts skip generation.
- :mod:`.public` (Family A) and :mod:`.private` (Family B, with :mod:`.tables` and
  :mod:`.relations`) answer queries; :mod:`.filters`, :mod:`.aggregate`,
  :mod:`.groups` and :mod:`.resolve` are the query language and the computations.
- :mod:`.state` ties them together: :class:`SandboxState` with ``reset()``.
"""

from __future__ import annotations

from .state import Clock, DatasetView, SandboxConfig, SandboxState

__all__ = ["Clock", "DatasetView", "SandboxConfig", "SandboxState"]
