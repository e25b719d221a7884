"""The mirror's marker file ``_mirror.json``: what the folder is, and which layout it uses.

It holds the format name, the schema version, when the mirror was made, the
service it mirrors and how many syncs started (``syncs``: the number of the last
one; a sync that failed keeps its number). It is **not** a commit point:
the data, and each table's checkpoint, live in the Delta tables' logs (one
atomic commit per table and sync, :mod:`.table`). The marker is written when
the mirror is made, rewritten atomically at the start of each sync (its
source and number, before any table is written), and when a version-2 mirror is
migrated (:mod:`.migrate`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from .._inode import locked
from ..client import SANDBOX_SOURCE
from ..config import source_of
from .durable import LOCK_NAME, atomic_write
from .errors import MirrorPathError, MirrorStateError, MirrorVersionError
from .schema import ENTITIES, PUBLIC_TABLES, SCHEMA_VERSION

__all__ = [
    "FORMAT",
    "LEGACY_VERSION",
    "STATE_NAME",
    "MirrorState",
    "orjson_bytes",
    "parse_doc",
    "parse_state",
    "read_doc",
    "read_state",
    "source_of",
    "check_source",
    "check_writable",
    "client_source",
    "holds_tables",
    "legacy_source",
    "write_state",
]

FORMAT = "dealframe-mirror"
STATE_NAME = "_mirror.json"
#: The layout before Delta tables (base and delta Parquet files named in the state file):
#: the first sync migrates it (:mod:`.migrate`).
LEGACY_VERSION = 2


#: What this dealframe recorded for a loopback service before the port was kept (a sandbox's
#: port changes from run to run): such a mirror takes the first loopback or sandbox source.
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _legacy_loopback(recorded: str, here: str | None) -> bool:
    """Whether ``recorded`` is a loopback source without a port (written before the port was
    kept) and ``here`` a loopback or sandbox source, which it then becomes."""
    if not here:
        return False
    try:
        before, now = urlsplit(recorded), urlsplit(here)
        portless = before.port is None
    except ValueError:  # not a URL this dealframe wrote
        return False
    loopback_now = here.startswith(SANDBOX_SOURCE) or now.hostname in _LOOPBACK
    return before.hostname in _LOOPBACK and portless and loopback_now


def legacy_source(recorded: Any) -> str | None:
    """The source a version-2 marker recorded (the client's base URL as it was), as
    :func:`check_source` compares it: :func:`source_of` it, without the port for a loopback
    host (a sandbox's port changed from run to run), so that it takes the first loopback or
    sandbox source, as one recorded without a port does.

    Examples
    --------
    >>> legacy_source("http://127.0.0.1:41865/")
    'http://127.0.0.1'
    >>> legacy_source("https://api.example.com:8443/data/")
    'https://api.example.com:8443/data'
    """
    if not isinstance(recorded, str) or not recorded:
        return None
    try:
        url = urlsplit(recorded)
        host = url.hostname or ""
    except ValueError:  # not a URL: compared as it is
        return recorded
    if host not in _LOOPBACK:
        return source_of(recorded)
    return f"{url.scheme}://{f'[{host}]' if ':' in host else host}{url.path.rstrip('/')}"


def client_source(client: Any) -> str | None:
    """The source a mirror records for ``client``: its :attr:`~dealframe.Client.source` (for
    a client-like object without one, :func:`source_of` its base URL).

    Examples
    --------
    >>> from dealframe import Client
    >>> client_source(Client("https://api.example.com/v/", cache_enabled=False))
    'https://api.example.com/v'
    """
    source = getattr(client, "source", None)
    return source if isinstance(source, str) else source_of(client.settings.base_url)


def check_source(
    root: Path, recorded: str | None, here: str | None, allow: bool, holds: bool | None = None
) -> str | None:
    """The source to record for a sync of ``root`` from the service ``here``
    (:attr:`dealframe.Client.source`); ``holds``: whether the mirror holds records (default
    :func:`holds_tables`; a version-2 mirror's are in the files its marker names).

    Raises
    ------
    MirrorStateError
        The mirror was synced from another source (``recorded``), holds a table, and
        ``allow`` is False: the two services' records would be merged. A mirror that holds no
        table yet (its first sync failed) takes the new source, and so does one recorded
        as a loopback host without a port (by an earlier dealframe) for a loopback or
        sandbox source.
    """
    before = recorded
    if (
        before is not None
        and before != here
        and not allow
        and (holds_tables(root) if holds is None else holds)
        and not _legacy_loopback(before, here)
    ):
        raise MirrorStateError(
            f"the mirror at {root} was synced from {before}, not from {here}: its records "
            "would be merged with another service's. Sync from that service, sync into a new "
            "folder, or pass allow_other_source=True (--allow-other-source) to merge them"
            + _named_two_ways(before, here)
        )
    return here


def _named_two_ways(before: str, here: str | None) -> str:
    """A hint when one side names a sandbox by its data and the other a service by its URL:
    a client on a URL cannot tell which service answers there, so the two are not equated.

    Examples
    --------
    >>> _named_two_ways("http://127.0.0.1:9000", "dealframe-sandbox (seed 7)")[:45]
    '. (A client made with Client(url) names its s'
    >>> _named_two_ways("http://127.0.0.1:9000", "http://127.0.0.1:9001")
    ''
    """
    sides = {before.startswith(SANDBOX_SOURCE), (here or "").startswith(SANDBOX_SOURCE)}
    if sides != {True, False}:
        return ""
    return (
        ". (A client made with Client(url) names its source by the URL, one made with "
        "Client.for_sandbox(sb) by the sandbox's data: a client on a URL cannot tell which "
        "service answers there. If this is the same sandbox, make both clients the same way.)"
    )


def holds_tables(root: Path) -> bool:
    """Whether the mirror at ``root`` has committed a table (an entity's or a public one).

    Examples
    --------
    >>> holds_tables(Path("no-such-mirror"))
    False
    """
    return any((root / name / "_delta_log").is_dir() for name in (*ENTITIES, *PUBLIC_TABLES))


@dataclass
class MirrorState:
    """The marker file."""

    schema_version: int = SCHEMA_VERSION
    created_at: str = field(default_factory=lambda: _now())
    source: str | None = None
    syncs: int = 0

    def to_bytes(self) -> bytes:
        doc = {"format": FORMAT, **asdict(self)}
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _fix(where: Path) -> str:
    return (
        f"move {where.parent} aside and sync into a new folder (a fresh full sync), or restore "
        f"{where.name} from a backup"
    )


def parse_doc(raw: bytes, where: Path) -> dict[str, Any]:
    """The marker's JSON document, checked to be a dealframe mirror's (any schema version).

    Raises
    ------
    MirrorStateError
        Not JSON, or not a dealframe mirror's marker.
    """
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MirrorStateError(
            f"the mirror's state file {where} is corrupt ({exc}); {_fix(where)}"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise MirrorStateError(f"{where} is not a dealframe mirror state file; {_fix(where)}")
    return doc


def parse_state(raw: bytes, where: Path) -> MirrorState:
    """Validate the marker's bytes (pure).

    Raises
    ------
    MirrorStateError
        Not JSON, or not the expected shape.
    MirrorVersionError
        Written by another schema version (for version 2 the message says that a sync
        migrates it).

    Examples
    --------
    >>> from pathlib import Path
    >>> parse_state(MirrorState(syncs=3).to_bytes(), Path("m/_mirror.json")).syncs
    3
    """
    return _state_of(parse_doc(raw, where), where)


def _state_of(doc: dict[str, Any], where: Path) -> MirrorState:
    """The state of a marker document that :func:`parse_doc` accepted (see :func:`parse_state`)."""
    version = doc.get("schema_version")
    if version == LEGACY_VERSION:
        raise MirrorVersionError(
            f"the mirror at {where.parent} was written with schema version 2 (Parquet base and "
            f"delta files); this dealframe uses Delta tables (version {SCHEMA_VERSION}). Run "
            f"`dealframe mirror sync {where.parent}` (or dealframe.mirror.sync) once: it migrates "
            "the mirror in place and keeps its checkpoints"
        )
    if version != SCHEMA_VERSION:
        raise MirrorVersionError(
            f"the mirror at {where.parent} was written with schema version {version!r}; this "
            f"dealframe reads and writes version {SCHEMA_VERSION}. Sync into a new folder (a full "
            "sync), or use the dealframe version that wrote it"
        )
    try:
        return MirrorState(
            schema_version=version,
            created_at=str(doc["created_at"]),
            source=doc.get("source"),
            syncs=int(doc.get("syncs", 0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MirrorStateError(
            f"the mirror's state file {where} is inconsistent ({exc}); {_fix(where)}"
        ) from None


def orjson_bytes(doc: dict[str, Any]) -> bytes:
    """A document as bytes again (to check it with :func:`parse_state`)."""
    return orjson.dumps(doc)


def read_doc(folder: Path) -> dict[str, Any] | None:
    """The marker's document (any version), or None when the folder has no marker."""
    path = folder / STATE_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MirrorStateError(f"cannot read {path} ({exc}); check its permissions") from None
    return parse_doc(raw, path)


def read_state(folder: Path) -> MirrorState | None:
    """The marker of the mirror in ``folder``, or None when it has none."""
    doc = read_doc(folder)
    return None if doc is None else _state_of(doc, folder / STATE_NAME)


def write_state(folder: Path, state: MirrorState) -> None:
    """Replace the marker atomically and durably.

    Raises
    ------
    MirrorPathError
        The system refused to replace it (permission; a flag :func:`check_writable` could
        not read), naming the file; the marker is left as it was.
    """
    path = folder / STATE_NAME
    try:
        atomic_write(path, state.to_bytes())
    except PermissionError as exc:
        raise MirrorPathError(
            f"the mirror's marker {path} cannot be replaced ({exc.strerror}); every sync and "
            "snapshot rewrites it before any table: make it and its folder writable (`lsattr "
            f"{path}` shows a chattr flag) and run again; nothing was written"
        ) from None


#: The files a mirror rewrites in place on every write (by a rename, or by writing into it),
#: and why (the tables' own files are only ever added).
_IN_PLACE = {
    STATE_NAME: "the mirror's marker, which every sync and snapshot rewrites first",
    LOCK_NAME: "the mirror's lock, in which every writer writes its pid",
}


def check_writable(folder: Path, *, marker: bool = True) -> None:
    """Refuse, before any request or write, a mirror whose folder or in-place files
    (:data:`_IN_PLACE`) carry a flag that keeps them as they are (``chattr +i``, ``+a``):
    root, whom permission bits do not stop, is stopped by those, and only once the rows are
    pulled. A folder or file that does not exist yet passes, as does a system that has no
    such flags (the write itself is then refused as :func:`write_state` says). Without
    ``marker`` (a compaction, which takes the lock but leaves the marker as it is), the
    marker is not looked at.

    Raises
    ------
    MirrorPathError
        Naming the folder or file, its flag and the command that clears it.

    Examples
    --------
    >>> import tempfile
    >>> check_writable(Path(tempfile.mkdtemp()))
    """
    held = {folder: "the mirror's folder, where the marker is replaced by a rename"}
    if not marker:  # a compaction: the folder matters only where the lock is to be made
        lock = folder / LOCK_NAME
        made = lock.exists() or lock.is_symlink()
        held = {} if made else {folder: "the mirror's folder, where the lock file is made"}
    held.update((folder / n, why) for n, why in _IN_PLACE.items() if marker or n != STATE_NAME)
    for path, what in held.items():
        # the marker is replaced by a rename (a link, not its target); the lock is written in
        flag = locked(path, follow=path.name != STATE_NAME)
        if flag is None or (path == folder and not marker and "+a" in flag):
            continue  # an append-only folder takes a new file: the lock
        clear = flag[flag.index("chattr") : -1].replace("+", "-")
        raise MirrorPathError(
            f"{path} is {flag}, {what}; nothing was written: clear the flag (`{clear} "
            f"{path}`, as root) and run again"
        )
