"""Start-up snapshots: the stored form of generated data, so a sandbox starts in a second.

Generating the default scale and serialising its records takes a few seconds of
Python; loading the same :class:`~.corpus.Corpus` from a snapshot is reading a few
numpy arrays. A snapshot is one uncompressed ``.npz`` file (plain arrays, loaded
with ``allow_pickle=False``: nothing executable), keyed by seed, scale, clock and a
hash of the source of every module that shapes the data, so a changed generator
never serves stale data. It is written to a temporary name and renamed into place,
by a :class:`SnapshotWriter`: from a background thread, which a served sandbox starts
only once its server answers (so writing never delays the first answer).

The folder holds at most :data:`KEEP` snapshots and :data:`MAX_BYTES` bytes of them (the most
recently used one whatever its size): loading one marks it used, and writing one deletes the
least recently used beyond those bounds. Data small enough
to generate in a fraction of a second (:data:`MIN_DEALS` deals or fewer) is never
written. ``DEALFRAME_SANDBOX_CACHE=0`` turns snapshots off.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import threading
import time
import zipfile
from pathlib import Path

import numpy as np

from .corpus import Corpus
from .data import AS_OF, generate

__all__ = [
    "KEEP",
    "MAX_BYTES",
    "MIN_DEALS",
    "STALE_TMP_S",
    "SnapshotWriter",
    "load_or_generate",
    "prune",
    "snapshot_dir",
]

#: Most snapshots kept in the folder (the most recently used ones).
KEEP = 4
#: Most bytes of snapshots kept in the folder (a scale-1 snapshot is about 140 MB).
MAX_BYTES = 1 << 30
#: Data with this many deals or fewer (scale 0.08 and below) generates in well under a
#: second: not worth a place among the :data:`KEEP` snapshots.
MIN_DEALS = 4_000
#: Seconds after which a temporary file is a write that will never finish.
STALE_TMP_S = 600
_SOURCES = (
    "data.py",
    "deals.py",
    "draws.py",
    "names.py",
    "geography.py",
    "records.py",
    "corpus.py",
    "snapshot.py",
)
_PREFIX = "dataset-"


def snapshot_dir() -> Path | None:
    """Where snapshots live: ``DEALFRAME_SANDBOX_CACHE`` when it names a folder, None when it
    is ``0`` (or off, false, no), else ``$XDG_CACHE_HOME/dealframe/sandbox`` (``~/.cache``).

    Examples
    --------
    >>> import os
    >>> saved = dict(os.environ)
    >>> os.environ["DEALFRAME_SANDBOX_CACHE"] = "off"; snapshot_dir() is None
    True
    >>> os.environ["DEALFRAME_SANDBOX_CACHE"] = "/tmp/snaps"; str(snapshot_dir())
    '/tmp/snaps'
    >>> os.environ.clear(); os.environ.update(saved)
    """
    setting = os.environ.get("DEALFRAME_SANDBOX_CACHE", "").strip()
    if setting.lower() in ("0", "off", "false", "no"):
        return None
    if setting and setting.lower() not in ("1", "on", "true", "yes"):
        return Path(setting).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dealframe" / "sandbox"


def _key(seed: int, scale: float, as_of: dt.datetime) -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in _SOURCES:
        h.update((here / name).read_bytes())
    h.update(f"{seed}|{scale!r}|{as_of.isoformat()}".encode())
    return h.hexdigest()[:24]


def _write(arrays: dict[str, np.ndarray], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as bool
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _load(path: Path) -> Corpus:
    with np.load(path, allow_pickle=False) as npz:
        corpus = Corpus.from_arrays({name: npz[name] for name in npz.files})
    os.utime(path)  # most recently used: the last one pruning removes
    return corpus


def prune(folder: Path, keep: int = KEEP, max_bytes: int = MAX_BYTES) -> list[Path]:
    """Keep the most recently used snapshots in ``folder``, at most ``keep`` of them and at most
    ``max_bytes`` in all (the most recent one whatever its size); delete the others and return
    them.

    Snapshots of earlier sandbox versions (``dataset-*.json`` and ``.npy`` pairs) count as
    unused and go first, and so do temporary files that a process exiting mid-write left
    behind (any older than :data:`STALE_TMP_S`).

    Examples
    --------
    >>> import tempfile, pathlib, os
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for i in range(6):
    ...     path = folder / f"dataset-{i}.npz"
    ...     _ = path.write_bytes(b"")
    ...     os.utime(path, (i, i))
    >>> sorted(p.name for p in prune(folder, keep=4))
    ['dataset-0.npz', 'dataset-1.npz']
    >>> _ = (folder / "dataset-5.npz").write_bytes(b"x" * 60)
    >>> sorted(p.name for p in prune(folder, keep=4, max_bytes=100))  # 5 is the newest
    []
    >>> _ = (folder / "dataset-4.npz").write_bytes(b"x" * 60)  # now the newest
    >>> sorted(p.name for p in prune(folder, keep=4, max_bytes=100))  # 4 and 5 exceed 100
    ['dataset-2.npz', 'dataset-3.npz', 'dataset-5.npz']
    """
    current = sorted(folder.glob(f"{_PREFIX}*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    kept, total = 0, 0
    for path in current[:keep]:
        total += path.stat().st_size
        if kept and total > max_bytes:
            break
        kept += 1
    stale = current[kept:] + [
        p for p in folder.glob(f"{_PREFIX}*") if p.suffix in (".json", ".npy")
    ]
    now = time.time()
    stale += [p for p in folder.glob(f"{_PREFIX}*.tmp") if now - p.stat().st_mtime > STALE_TMP_S]
    removed = []
    for path in stale:
        try:
            path.unlink()
            removed.append(path)
        except OSError:
            pass  # another process removed it first, or the folder is read-only
    return removed


class SnapshotWriter:
    """A start-up snapshot to write from a background thread: begun by :meth:`start`.

    The arrays are taken from ``corpus`` in the thread (the corpus a sandbox keeps for
    ``reset()``, which nothing changes), so building the writer costs nothing.

    Parameters
    ----------
    corpus : Corpus
        The freshly generated data.
    path : Path
        Where the snapshot goes.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from dealframe.sandbox.models.data import generate
    >>> corpus = Corpus.from_dataset(generate(seed=3, scale=0.02))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "dataset-doc.npz"
    >>> writer = SnapshotWriter(corpus, path)
    >>> writer.started, path.exists()  # nothing happens before start()
    (False, False)
    >>> writer.start(); writer.join()
    >>> writer.started, path.exists()
    (True, True)
    """

    def __init__(self, corpus: Corpus, path: Path) -> None:
        self.corpus = corpus
        self.path = path
        self._thread: threading.Thread | None = None
        self._closed = False
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        """Whether :meth:`start` was called."""
        return self._thread is not None

    @property
    def writing(self) -> bool:
        """Whether a write begun by :meth:`start` is still going."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def write(self) -> None:
        """Write the snapshot now, in the calling thread, and prune the folder."""
        try:
            _write(self.corpus.to_arrays(), self.path)
            prune(self.path.parent)
        except OSError:
            pass  # a read-only cache directory only costs speed

    def start(self) -> None:
        """Begin writing from a daemon thread (once: a second call, or one after :meth:`join`,
        does nothing)."""
        with self._lock:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(
                    target=self.write, name="dealframe-sandbox-snapshot", daemon=True
                )
                self._thread.start()

    def join(self) -> None:
        """Wait for a write begun by :meth:`start`; one not begun never will be."""
        with self._lock:
            thread, self._closed = self._thread, True
        if thread is not None:
            thread.join()


def load_or_generate(
    seed: int = 7,
    scale: float = 1.0,
    as_of: dt.datetime = AS_OF,
    *,
    wait_for_write: bool = False,
    start_write: bool = True,
) -> tuple[Corpus, SnapshotWriter | None]:
    """The data for (seed, scale, as_of): from a snapshot when one exists, else generated.

    Freshly generated data worth a snapshot gets a :class:`SnapshotWriter`: started at
    once from a background thread (the default), left for the caller to start
    (``start_write=False``: a served sandbox starts it once its server answers), or run
    before returning (``wait_for_write``).

    The writer reads ``corpus`` while it writes: change only copies of it
    (``corpus.copy()``, as :class:`~.state.SandboxState` does) until ``writer.join()``.

    Returns
    -------
    corpus : Corpus
    writer : SnapshotWriter or None
        The snapshot's writer, if one is due; join it (``writer.join()``) before exiting.

    Examples
    --------
    >>> corpus, writer = load_or_generate(seed=3, scale=0.02)
    >>> len(corpus.deals) >= 1000, writer
    (True, None)
    """
    folder = snapshot_dir()
    path = None if folder is None else folder / f"{_PREFIX}{_key(seed, scale, as_of)}.npz"
    if path is not None and path.exists():
        try:
            return _load(path), None
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            pass  # damaged snapshot: generate again and overwrite it
    corpus = Corpus.from_dataset(generate(seed=seed, scale=scale, as_of=as_of))
    if path is None or len(corpus.deals) <= MIN_DEALS:
        return corpus, None
    writer = SnapshotWriter(corpus, path)
    if wait_for_write:
        writer.write()
        return corpus, None
    if start_write:
        writer.start()
    return corpus, writer
