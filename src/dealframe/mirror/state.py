"""The mirror's state file ``_mirror.json``: schema version, and per entity its checkpoint,
last sync, row counts (unique ids) and the list of committed Parquet files (the only files
readers use), each with its generation.

Every commit writes its files under a new generation number (the state's ``generation``
counter, also the 10-digit prefix of the file names). An entity's files of its oldest
generation are its base; later generations are deltas, whose rows are newer versions of ids
(docs/mirror.md, "Files").

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
    """One committed Parquet file: name (in the entity folder), rows, deleted rows, bytes, and
    the generation that wrote it (within a generation an id is in at most one file)."""

    name: str
    rows: int
    deleted: int
    bytes: int
    generation: int


@dataclass
class EntityState:
    """Checkpoint (ISO timestamp or None before the first sync), last sync, files (oldest
    generation first), and the entity's records: ``rows`` ids, ``deleted`` of them soft-deleted.
    """

    checkpoint: str | None = None
    last_sync: str | None = None
    files: list[FileEntry] = field(default_factory=list)
    rows: int = 0
    deleted: int = 0

    @property
    def stored_rows(self) -> int:
        """Rows in the files, superseded versions in the deltas included."""
        return sum(f.rows for f in self.files)

    @property
    def base(self) -> list[FileEntry]:
        """The files of the oldest generation."""
        if not self.files:
            return []
        oldest = min(f.generation for f in self.files)
        return [f for f in self.files if f.generation == oldest]

    @property
    def deltas(self) -> list[FileEntry]:
        """The files of later generations (newer versions of some ids)."""
        base = {f.name for f in self.base}
        return [f for f in self.files if f.name not in base]


@dataclass
class MirrorState:
    """The whole state file."""

    schema_version: int = SCHEMA_VERSION
    created_at: str = field(default_factory=lambda: _now())
    source: str | None = None
    syncs: int = 0
    generation: int = 0
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
            entities[name] = _entity_state(e)
        return MirrorState(schema_version=version, created_at=str(doc["created_at"]),
                           source=doc.get("source"), syncs=int(doc.get("syncs", 0)),
                           generation=int(doc["generation"]), entities=entities)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise MirrorStateError(f"the mirror's state file {where} is inconsistent ({exc}); {fix}") from None


def _entity_state(e: dict[str, Any]) -> EntityState:
    files = [FileEntry(str(f["name"]), int(f["rows"]), int(f["deleted"]), int(f["bytes"]),
                       int(f["generation"])) for f in e.get("files") or []]
    files.sort(key=lambda f: f.generation)
    rows, deleted = int(e["rows"]), int(e["deleted"])
    if not 0 <= deleted <= rows or rows > sum(f.rows for f in files):
        raise ValueError(f"counts rows={rows} deleted={deleted} do not fit the files")
    return EntityState(e.get("checkpoint"), e.get("last_sync"), files, rows, deleted)


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
