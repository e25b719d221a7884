"""The mirror's state file ``_mirror.json``: schema version, and per entity its checkpoint,
last sync and the list of committed Parquet files (the only files readers use).

The state file is the commit point of a sync: it is replaced atomically, after
the files it names are durable. Pure validation is kept apart from the I/O.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .durable import atomic_write
from .errors import MirrorStateError, MirrorVersionError
from .schema import ENTITIES, SCHEMA_VERSION

__all__ = ["FORMAT", "STATE_NAME", "EntityState", "FileEntry", "MirrorState", "read_state",
           "write_state"]

FORMAT = "dealframe-mirror"
STATE_NAME = "_mirror.json"


@dataclass
class FileEntry:
    """One committed Parquet file: name (in the entity folder), rows, deleted rows, bytes."""

    name: str
    rows: int
    deleted: int
    bytes: int


@dataclass
class EntityState:
    """Checkpoint (ISO timestamp or None before the first sync), last sync, files."""

    checkpoint: str | None = None
    last_sync: str | None = None
    files: list[FileEntry] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(f.rows for f in self.files)

    @property
    def deleted(self) -> int:
        return sum(f.deleted for f in self.files)


@dataclass
class MirrorState:
    """The whole state file."""

    schema_version: int = SCHEMA_VERSION
    created_at: str = field(default_factory=lambda: _now())
    source: str | None = None
    syncs: int = 0
    entities: dict[str, EntityState] = field(default_factory=dict)

    def entity(self, name: str) -> EntityState:
        return self.entities.setdefault(name, EntityState())

    def to_bytes(self) -> bytes:
        doc = {"format": FORMAT, **asdict(self)}
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def parse_state(raw: bytes, where: Path) -> MirrorState:
    """Validate the state file's bytes (pure).

    Raises
    ------
    MirrorStateError
        Not JSON, or not the expected shape.
    MirrorVersionError
        Written by another schema version.
    """
    fix = (f"move {where.parent} aside and sync into a new folder (a fresh full sync), or restore "
           f"{where.name} from a backup")
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MirrorStateError(f"the mirror's state file {where} is corrupt ({exc}); {fix}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise MirrorStateError(f"{where} is not a dealframe mirror state file; {fix}")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise MirrorVersionError(
            f"the mirror at {where.parent} was written with schema version {version!r}; this "
            f"dealframe reads and writes version {SCHEMA_VERSION}. Sync into a new folder (a full "
            "sync), or use the dealframe version that wrote it")
    try:
        entities = {}
        for name, e in (doc.get("entities") or {}).items():
            if name not in ENTITIES:
                raise ValueError(f"unknown entity {name!r}")
            files = [FileEntry(str(f["name"]), int(f["rows"]), int(f["deleted"]), int(f["bytes"]))
                     for f in e.get("files") or []]
            entities[name] = EntityState(e.get("checkpoint"), e.get("last_sync"), files)
        return MirrorState(schema_version=version, created_at=str(doc["created_at"]),
                           source=doc.get("source"), syncs=int(doc.get("syncs", 0)),
                           entities=entities)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MirrorStateError(f"the mirror's state file {where} is inconsistent ({exc}); {fix}") from None


def read_state(folder: Path) -> MirrorState | None:
    """The state of the mirror in ``folder``, or None when it has no state file."""
    path = folder / STATE_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MirrorStateError(f"cannot read {path} ({exc}); check its permissions") from None
    return parse_state(raw, path)


def write_state(folder: Path, state: MirrorState) -> None:
    """Replace the state file atomically and durably (the commit point of a sync)."""
    atomic_write(folder / STATE_NAME, state.to_bytes())
