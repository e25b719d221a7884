"""A cache of generated datasets on disk, so a sandbox starts in well under 3 seconds.

Generating the default scale takes about two seconds of pure Python; loading
the same records from an orjson snapshot takes a fraction of that. A snapshot
is keyed by seed, scale, clock and a hash of the generator's source files, so
changing the generator can never serve stale data. Snapshots are plain JSON
plus one ``.npy`` array (nothing executable is loaded), written to a temporary
name and renamed into place.

Set ``DEALFRAME_SANDBOX_CACHE=0`` to always generate.
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import os
import threading
from pathlib import Path

import numpy as np
import orjson

from .data import AS_OF, Dataset, generate
from .geography import COUNTRIES

__all__ = ["load_or_generate", "snapshot_dir"]

_SOURCES = ("data.py", "names.py", "geography.py", "snapshot.py")
_BY_ISO = {c.iso3: c for c in COUNTRIES}


def snapshot_dir() -> Path | None:
    """Where snapshots live (None when disabled by ``DEALFRAME_SANDBOX_CACHE=0``)."""
    if os.environ.get("DEALFRAME_SANDBOX_CACHE", "1").strip().lower() in ("0", "off", "false", "no"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dealframe" / "sandbox"


def _key(seed: int, scale: float, as_of: dt.datetime) -> str:
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in _SOURCES:
        h.update((here / name).read_bytes())
    h.update(f"{seed}|{scale!r}|{as_of.isoformat()}".encode())
    return h.hexdigest()[:24]


def _serialise(ds: Dataset) -> tuple[bytes, np.ndarray]:
    """The snapshot's bytes, taken at once so later changes to ``ds`` cannot leak in."""
    orgs = [{k: v for k, v in o.items() if k != "_country"} for o in ds.orgs]
    doc = {"seed": ds.seed, "scale": ds.scale, "as_of": ds.as_of.isoformat(), "orgs": orgs,
           "deals": ds.deals, "listed": ds.listed, "months": ds.months}
    return orjson.dumps(doc), ds.series.copy()


def _write(payload: tuple[bytes, np.ndarray], path: Path) -> None:
    raw, series = payload
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp_json = path.with_suffix(f".json.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp_npy = path.with_suffix(f".npy.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp_json.write_bytes(raw)
    with open(tmp_npy, "wb") as fh:
        np.save(fh, series, allow_pickle=False)
    os.replace(tmp_npy, path.with_suffix(".npy"))
    os.replace(tmp_json, path.with_suffix(".json"))  # last: its presence means complete


def _load(path: Path) -> Dataset:
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a million small objects: the collector would triple the time
    try:
        doc = orjson.loads(path.with_suffix(".json").read_bytes())
    finally:
        if gc_was_enabled:
            gc.enable()
    for org in doc["orgs"]:
        org["_country"] = _BY_ISO[org["country"]]
    series = np.load(path.with_suffix(".npy"), allow_pickle=False)
    return Dataset(seed=doc["seed"], scale=doc["scale"], as_of=dt.datetime.fromisoformat(doc["as_of"]),
                   orgs=doc["orgs"], deals=doc["deals"], listed=doc["listed"], months=doc["months"],
                   series=series)


def load_or_generate(seed: int = 7, scale: float = 1.0, as_of: dt.datetime = AS_OF, *,
                     wait_for_write: bool = False) -> Dataset:
    """The dataset for (seed, scale, as_of): from a snapshot when one exists, else generated.

    A freshly generated dataset is written to a snapshot in a background thread
    (or before returning with ``wait_for_write``), so the first start is not slowed.

    Examples
    --------
    >>> ds = load_or_generate(seed=3, scale=0.02)
    >>> len(ds.deals) >= 1000
    True
    """
    folder = snapshot_dir()
    if folder is None:
        return generate(seed=seed, scale=scale, as_of=as_of)
    path = folder / f"dataset-{_key(seed, scale, as_of)}"
    if path.with_suffix(".json").exists():
        try:
            return _load(path)
        except (OSError, ValueError, KeyError):
            pass  # damaged snapshot: generate again and overwrite it
    ds = generate(seed=seed, scale=scale, as_of=as_of)
    payload = _serialise(ds)

    def write() -> None:
        try:
            _write(payload, path)
        except OSError:
            pass  # a read-only cache directory only costs speed

    if wait_for_write:
        write()
    else:
        threading.Thread(target=write, name="dealframe-sandbox-snapshot", daemon=True).start()
    return ds
