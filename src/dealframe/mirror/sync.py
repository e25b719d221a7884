"""``sync``: bring the mirror's Delta tables up to date from the change feed."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import numbers
import os
import re
import shutil
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable
from deltalake.exceptions import CommitFailedError, DeltaError

from dealframe.arguments import checked_keywords, choice, expanded_path, finite_number, integer_in

from ..errors import ConfigurationError, DealframeError, ValidationError
from ..frames.normalize import no_offset_text, numbers_noted, offsets_noted, warnings_noted
from ..notices import ServiceContractWarning, findings_held, user_stacklevel
from ..transport.paging import interactive, progress_bar
from .ahead import read_ahead
from .arrived import Arrived
from .commit import commit_entity
from .durable import LOCK_NAME, mirror_lock
from .errors import (
    MirrorDamagedError,
    MirrorDivergenceWarning,
    MirrorLockedError,
    MirrorPathError,
    MirrorRepairWarning,
    Said,
)
from .feed import (
    PAGE_SIZE,
    QUERY_REFUSED,
    ClientFetch,
    FeedWalk,
    Fetch,
    client_fetch,
    said_values,
    values_noted,
    warn_held,
)
from .migrate import migrate
from .schema import ENTITIES, api_entity
from .state import (
    LEGACY_VERSION,
    STATE_NAME,
    MirrorState,
    check_source,
    check_writable,
    client_source,
    legacy_source,
    orjson_bytes,
    parse_state,
    read_doc,
    write_state,
)
from .store import ROWS_PER_FILE, STAGING, StagedRows, cleared_on_failure, recover, step
from .table import (
    SYNC_OPERATIONS,
    check,
    dataset,
    foreign_change,
    foreign_properties,
    foreign_rows,
    full_disk,
    guard_write,
    is_table,
    last_info,
    log_lost,
    open_table,
)

if TYPE_CHECKING:
    from ..client import Client

__all__ = [
    "DEFAULT_OVERLAP",
    "DAMAGED",
    "EntityReport",
    "MirrorRepairWarning",
    "SyncReport",
    "inspect_table",
    "open_folder",
    "sync",
]

#: How far before the checkpoint an incremental sync starts reading again: covers a
#: service whose timestamps are assigned a little before the rows become visible.
DEFAULT_OVERLAP = dt.timedelta(minutes=5)
#: Walks from the point where a tie moved while it was read, before giving up for this sync.
_MAX_PASSES = 3
_ALIASES = {"transactions": "deals"}
#: Where a table whose Delta log cannot be read is moved before it is rebuilt.
DAMAGED = "_damaged"


@dataclass
class EntityReport:
    """What one entity's sync did (``page_size_refused``: the service refused the page size
    asked for, and the smaller one used; ``page_from_0``: the service was seen counting
    ``page`` from 0, and the feed read again; as in the list calls' ``attrs``;
    ``page_asked_again``: a feed page came short of rows, was asked once more and came whole,
    so nothing is missing, said once with a :class:`~dealframe.ServiceContractWarning`).
    ``filter_strict`` says page 1 of a cursor's time left out the rows just served at that
    time: a service reading ``updated_at`` as strictly after the time sent, or those rows
    changed again meanwhile (the walk then asked from 1 µs before each cursor, and lost
    nothing either way).

    ``checkpoint`` is the one the table holds after the sync (``status`` and ``history`` show
    it): an incremental sync that writes nothing makes no commit and reports its table's; a
    full sync (the first, or a rebuild) always commits, and one whose feed returned no row
    commits the empty table with no checkpoint (None: the next sync is full again). ``rows_received``
    counts each record once, as last read (a row read twice, a whole walk read again included);
    ``requests`` counts every request.

    ``stamped_ahead`` says which rows were stamped after the sync's start (this machine's
    clock, plus the overlap), which then did not move the checkpoint. ``service_rows`` is the
    service's count of the entity's records, deleted ones included (``meta.total``; None when
    it gives none) and ``table_rows`` the table's; ``rows_differ`` says why they may differ
    (both with a :class:`~dealframe.mirror.errors.MirrorDivergenceWarning`, unless records
    changed after the sync's last page, not yet in the table, explain the difference).
    ``fields_absent`` says how many rows came without which documented fields (absent from
    their items, not null), one sentence per case: rows marked deleted (tombstones) keep the
    values last read of those fields (this sync's earlier read, else the table's), or have
    them null when there is none; live rows have them null (a service that leaves nulls out);
    each also said with a :class:`~dealframe.ServiceContractWarning`. ``fields_null`` says
    the nulls the feed sent where the interface document gives none (a company's ``name``),
    as the client's list calls say them (``null_field``): the rows are written with them.
    ``fields_not_mirrored`` names the fields the feed sent that the table does not store
    (beyond the document's fields of a list item: its columns are fixed). Both once per sync,
    each also said with a :class:`~dealframe.ServiceContractWarning`; like ``fields_absent``,
    they count each record once, as last read (:mod:`~dealframe.mirror.arrived`). A sync that
    writes nothing says neither ``fields_absent`` nor ``fields_null``: every row it read was
    one the overlap read again, which the table holds as it is (the sync that wrote it said
    it); ``fields_not_mirrored`` is said by every sync whose rows carry such a field (the
    table, not storing it, cannot show that the rows already carried it).

    Examples
    --------
    ``report["deals"]`` of a :class:`SyncReport`: a second sync after an hour's changes to a
    sandbox reads only what changed since the checkpoint (less the overlap):

    >>> import tempfile, pathlib
    >>> import dealframe, dealframe.sandbox
    >>> from dealframe.sandbox import Changes
    >>> with tempfile.TemporaryDirectory() as tmp, dealframe.sandbox.run(scale=0.02) as sb:
    ...     with dealframe.Client.for_sandbox(sb) as client:
    ...         _ = sync(client, pathlib.Path(tmp) / "mirror", entities=["deals"])
    ...         changes = Changes(sb.state, seed=1)
    ...         _ = changes.advance(3600)
    ...         _ = changes.update("deals", 3)
    ...         deals = sync(client, pathlib.Path(tmp) / "mirror", entities=["deals"])["deals"]
    >>> deals.full, deals.since, deals.checkpoint
    (False, '2026-06-29T23:54:59+00:00', '2026-06-30T01:00:00+00:00')
    >>> deals.rows_received, deals.version, deals.table_rows == deals.service_rows
    (11, 1, True)
    """

    entity: str
    full: bool
    since: str | None
    checkpoint: str | None
    rows_received: int
    rows_written: int
    requests: int
    passes: int
    seconds: float
    version: int
    repaired: str | None = None
    page_size_refused: str | None = None
    page_from_0: str | None = None
    page_asked_again: str | None = None
    stamped_ahead: str | None = None
    filter_strict: str | None = None
    service_rows: int | None = None
    table_rows: int | None = None
    rows_differ: str | None = None
    fields_absent: str | None = None
    fields_null: str | None = None
    fields_not_mirrored: str | None = None


@dataclass
class SyncReport:
    """What :func:`sync` did, per entity (``report["deals"]``).

    Attributes
    ----------
    path : Path
        The mirror folder.
    entities : dict
        :class:`EntityReport` by entity name, in the order synced.
    recovered_files : int
        Files an interrupted sync left outside the tables (staged rows, temporary markers),
        deleted before this one started.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import dealframe, dealframe.sandbox
    >>> with tempfile.TemporaryDirectory() as tmp, dealframe.sandbox.run(scale=0.02) as sb:
    ...     with dealframe.Client.for_sandbox(sb) as client:
    ...         report = sync(client, pathlib.Path(tmp) / "mirror")
    >>> list(report.entities), report.path.name
    (['companies', 'investors', 'deals'], 'mirror')
    >>> report["deals"].full, report["deals"].rows_written, report["deals"].checkpoint
    (True, 1000, '2026-06-29T23:59:59+00:00')
    """

    path: Path
    entities: dict[str, EntityReport] = field(default_factory=dict)
    recovered_files: int = 0

    def __getitem__(self, entity: str) -> EntityReport:
        return self.entities[entity]

    def frame(self) -> pd.DataFrame:
        """One row per entity: the fields of its :class:`EntityReport` as columns.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import dealframe, dealframe.sandbox
        >>> with tempfile.TemporaryDirectory() as tmp, dealframe.sandbox.run(scale=0.02) as sb:
        ...     with dealframe.Client.for_sandbox(sb) as client:
        ...         report = sync(client, pathlib.Path(tmp) / "mirror")
        >>> report.frame()[["entity", "full", "rows_written", "version"]]
              entity  full  rows_written  version
        0  companies  True           400        0
        1  investors  True           120        0
        2      deals  True          1000        0
        """
        rows = [vars(r) for r in self.entities.values()]
        return pd.DataFrame(
            {
                f.name: pd.Series([r[f.name] for r in rows], dtype=_REPORT_DTYPES[str(f.type)])
                for f in fields(EntityReport)
            }
        )


#: The dtype of each kind of :class:`EntityReport` field in :meth:`SyncReport.frame` (no
#: object columns: text that may be missing is ``str`` with NA, counts that may be missing
#: ``Int64``).
_REPORT_DTYPES: dict[str, Any] = {
    "str": "str",
    "str | None": "str",
    "bool": "bool",
    "int": "int64",
    "int | None": "Int64",
    "float": "float64",
}


def _entities(entities: Any, allowed: tuple[str, ...] = ENTITIES) -> list[str]:
    """The entity (or table) names asked for, checked; ``transactions`` is ``deals``."""
    if isinstance(entities, str):
        entities = [entities]
    if isinstance(entities, (Mapping, bytes)) or not isinstance(entities, Iterable):
        raise ValidationError(
            "entities", f"a list of names among {', '.join(allowed)}", got=entities
        )
    out: list[str] = []
    given = list(entities)
    for e in given:
        name = choice(
            _ALIASES.get(e, e) if isinstance(e, str) else e,
            "entities",
            allowed,
            f"names among {', '.join(allowed)}",
        )
        if name not in out:
            out.append(name)
    if not out:
        raise ValidationError("entities", "at least one entity", got=given)
    return out


#: A percent escape (``%20``): deltalake reads local paths as URLs and decodes them.
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")

#: Characters deltalake cannot keep in a local path it reads as a URL: ``#`` and ``?`` start
#: a fragment or a query (its history is then empty), ``[ ] | ^`` make it panic, control
#: characters (and a backslash, on POSIX) fail its path parser.
_URL_UNSAFE = re.compile(r"[#?\[\]|^\x00-\x1f\x7f" + ("\\\\" if os.sep == "/" else "") + "]")


def lock_timeout_seconds(value: Any) -> float:
    """``lock_timeout`` checked: a finite number of seconds >= 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)  # numpy's numbers too
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValidationError("lock_timeout", "a number of seconds >= 0", got=value)
    return float(value)


def folder_path(path: Any) -> Path:
    """``path`` as a folder path, ``~`` expanded.

    Raises
    ------
    dealframe.errors.ValidationError
        ``path`` is not a path, names the home of a user this system does not know, or
        holds a percent escape such as ``%20`` or one of ``# ? [ ] | ^``, a control
        character or (on POSIX) a backslash in its absolute form, or in the form it has
        with symbolic links followed: deltalake reads a local
        path as a URL, so it decodes the escape again, cuts the path at ``#`` or ``?``
        (the table's history is then empty) and panics or fails on the others.

    Examples
    --------
    >>> folder_path("mirror/").name
    'mirror'
    >>> folder_path("/data/q3%20deals")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid path: expected a folder path without a percent escape such as '%20' (deltalake decodes it as part of a URL, so the tables could not be opened; '/data/q3%20deals' holds '%20'), got '/data/q3%20deals'
    >>> folder_path("/data/q3#deals")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid path: expected a folder path without '#' (deltalake reads the path as a URL, where '#' cannot stand; '/data/q3#deals' holds it), got '/data/q3#deals'
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip() or "\0" in str(path):
        raise ValidationError("path", "a folder path (str or pathlib.Path)", got=path)
    folder = expanded_path(path, "path")
    # as written, and as deltalake opens it: with symbolic links followed (a link's target
    # may hold what the link's name does not)
    for form in dict.fromkeys((str(folder.absolute()), str(folder.resolve()))):
        unsafe = _URL_UNSAFE.search(form)
        if unsafe:
            raise ValidationError(
                "path",
                f"a folder path without {unsafe.group()!r} (deltalake reads the path as a URL, "
                f"where {unsafe.group()!r} cannot stand; {form!r} holds it)",
                got=str(path),
            )
        escape = _PERCENT_ESCAPE.search(form)
        if escape:
            raise ValidationError(
                "path",
                "a folder path without a percent escape such as '%20' (deltalake decodes it "
                f"as part of a URL, so the tables could not be opened; '{form}' holds "
                f"'{escape.group()}')",
                got=str(path),
            )
    return folder


def open_folder(path: str | Path, *, create: bool) -> Path:
    """Check that ``path`` can hold a mirror (creating it when asked); return it.

    Raises
    ------
    MirrorPathError
        ``path`` is a file, or a non-empty directory that holds no mirror.
    dealframe.errors.ValidationError
        ``path`` is not a path.
    """
    folder = folder_path(path)
    try:
        return _checked_folder(folder, create)
    except OSError as exc:  # the operating system's refusal, said as the mirror's
        reason = exc.strerror or type(exc).__name__
        raise MirrorPathError(f"{folder} cannot hold a mirror: {reason}") from None


def _checked_folder(folder: Path, create: bool) -> Path:
    if folder.exists() and not folder.is_dir():
        raise MirrorPathError(
            f"{folder} is a file, not a mirror folder; give the path of a "
            "directory (new or empty for a first sync)"
        )
    if not folder.exists():
        if not create:
            raise MirrorPathError(
                f"there is no mirror at {folder}; run dealframe.mirror.sync "
                "(or `dealframe mirror sync PATH`) first"
            )
        folder.mkdir(parents=True, mode=0o700)
        return folder
    if not (folder / STATE_NAME).exists():
        extra = [
            p.name
            for p in folder.iterdir()
            if p.name != LOCK_NAME and not p.name.startswith(f".{STATE_NAME}.tmp")
        ]
        tables = _mirror_tables(folder)
        if tables:
            raise MirrorPathError(
                f"{folder} holds the mirror's tables ({', '.join(tables)}) but its marker "
                f"{STATE_NAME} is missing (deleted or not copied along): restore {STATE_NAME} "
                "from a backup or from the folder it was copied from (it records the mirror's "
                "source and schema version, which the tables alone do not tell, so it is not "
                "made again), or move the tables aside and sync into a new or empty folder"
            )
        if extra:
            raise MirrorPathError(
                f"{folder} is not empty and holds no dealframe mirror ({STATE_NAME} is missing; "
                f"found {', '.join(sorted(extra)[:3])}...); choose a new or empty folder"
            )
        if not create:
            raise MirrorPathError(f"there is no mirror at {folder} yet; run a sync first")
    return folder


def _mirror_tables(folder: Path) -> list[str]:
    """The entities whose folder in ``folder`` holds a Delta log with the mirror's commit
    metadata (``dealframe.*``), from the newest commit files' text alone."""
    found = []
    for entity in ENTITIES:
        log = folder / entity / "_delta_log"
        try:
            commits = sorted(log.glob("*.json"))[-3:]
            if any(b'"dealframe.operation"' in c.read_bytes() for c in commits):
                found.append(entity)
        except OSError:
            continue  # unreadable: not told
    return found


def _check_client(client: Any) -> None:
    settings = getattr(client, "settings", None)
    if settings is None or not hasattr(client, "private"):
        raise ValidationError("client", "a dealframe.Client", got=client)
    if not getattr(settings, "private_key", None):
        raise ConfigurationError(
            "the mirror reads the private interface, which needs a Family B key: pass "
            "private_key=... to dealframe.Client or set DEALFRAME_PRIVATE_KEY",
            field="private_key",
        )


def _overlap(overlap: dt.timedelta | float | int) -> dt.timedelta:
    if isinstance(overlap, dt.timedelta):
        value = overlap
    else:  # seconds: any real number (numpy's too), never a boolean
        value = dt.timedelta(
            seconds=finite_number(overlap, "overlap", "a datetime.timedelta or seconds")
        )
    if value < dt.timedelta(0):
        raise ValidationError("overlap", "a duration >= 0", got=overlap)
    return value


class _Progress:
    """A tqdm bar (when asked, or when interactive) or a callback, per entity."""

    def __init__(self, progress: bool | Callable[[dict], None] | None) -> None:
        if not (progress is None or isinstance(progress, bool) or callable(progress)):
            raise ValidationError(
                "progress", "True, False, None or a function taking a dict", got=progress
            )
        self.callback = progress if callable(progress) else None
        self.bars = progress is True or (progress is None and interactive())
        self._bar: Any = None
        self._walk: FeedWalk | None = None  # the walk (one pass) the bar shows

    def start(self, entity: str) -> None:
        self.entity = entity

    def update(self, walk: FeedWalk) -> None:
        if self.callback is not None:
            self.callback(
                {
                    "entity": self.entity,
                    "rows": walk.rows,
                    "requests": walk.requests,
                    "total": walk.total,
                }
            )
        if self.bars:
            self._draw(walk)

    def _draw(self, walk: FeedWalk) -> None:
        """Move the bar to ``walk``'s rows, one bar per walk (a pass starts from 0 again).

        The bar is made once page 1 is here (``meta.total`` is its length), its rows being
        tqdm's ``initial`` count, and moved by ``update`` since: tqdm's rate is then measured
        over the pages that followed. (Its first figure read 97 million rows a second: page 1's
        rows over the microseconds since the bar was made, from a bar moved by setting ``n``,
        whose rate tqdm never measured.)
        """
        rows = min(walk.rows, walk.total or walk.rows)
        if walk is not self._walk:
            self.done()
            self._walk = walk
            self._bar = progress_bar(walk.total, f"mirror {self.entity}", unit="row", initial=rows)
        elif rows > self._bar.n:
            self._bar.update(rows - self._bar.n)

    def done(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self._walk = None


def _iso(stamp: pd.Timestamp | None) -> str | None:
    return None if stamp is None else stamp.isoformat()


def _set_aside(root: Path, folder: Path) -> Path:
    """Move a table whose log cannot be read, or is gone, or one another writer gave
    properties the mirror does not write, out of the way (kept for inspection)."""
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    target = root / DAMAGED / f"{folder.name}-{stamp}-{uuid.uuid4().hex[:6]}"
    target.parent.mkdir(exist_ok=True, mode=0o700)
    os.replace(folder, target)
    return target


def inspect_table(root: Path, entity: str, *, deep: bool) -> tuple[DeltaTable | None, str | None]:
    """The entity's table (None: none, or set aside) and what is wrong with it (None: nothing)."""
    folder = root / entity
    if (lost := log_lost(folder)) is not None:  # data files without a log: damaged too
        aside = _set_aside(root, folder)
        return None, f"{lost}; the old files were moved to {aside}{_ANEW}"
    if not is_table(folder):
        return None, None
    try:
        table = open_table(folder)
    except MirrorDamagedError:
        aside = _set_aside(root, folder)
        return None, f"its Delta log could not be read (the old table was moved to {aside}{_ANEW})"
    if (foreign := foreign_properties(table)) is not None:
        # an overwrite in place would keep them (a reader feature cannot be dropped): set
        # aside, with what that writer set, and a new table made
        aside = _set_aside(root, folder)
        return None, f"{foreign}; the old table was moved to {aside}{_ANEW}"
    return table, check(folder, table, entity, deep=deep)


#: What a table set aside means for versions pinned with ``as_of``: the new table's start at 0.
_ANEW = (
    ", where its versions stay readable; the new table's versions start again at 0, so a "
    "version number pinned with as_of now names the new table's"
)


def _noted(error: BaseException, note: str) -> None:
    """Add ``note`` to ``error``: to its message (a dealframe error of a request:
    ``with_note``), else as a PEP 678 note printed under the traceback."""
    with_note = getattr(error, "with_note", None)
    if callable(with_note):
        with_note(note)
    else:
        error.add_note(note)


def _walk(
    fetch: Fetch,
    since: pd.Timestamp | None,
    staged: StagedRows,
    page_size: int,
    progress: _Progress,
    until: pd.Timestamp | None = None,
    entity: str = "",
    arrived: Arrived | None = None,
) -> tuple[FeedWalk, int, int]:
    """Walk the feed from ``since`` into ``staged`` (again from where a tie moved, up to
    ``_MAX_PASSES`` times), and into ``arrived`` in the same order; the last walk, requests
    and passes (the rows received are ``staged``'s, each record once: ``staged.distinct``).

    The bar is closed however the walk ends: a walk that raised (the service down part-way)
    left it open, the error printed on its line and tqdm holding it for as long as the
    exception was kept (a notebook's last error). A dealframe error that stops it says
    where: the ``entity``, the feed's page and cursor (or the request that failed, or that
    the query was refused before it was sent), and the rows read before it, each record
    once (as ``rows_received`` counts them).
    """
    requests = passes = 0
    walk = None
    start = since
    strict: str | None = None  # a service reading updated_at as `gt`: every pass asks so
    try:
        for passes in range(1, _MAX_PASSES + 1):  # noqa: B007 (returned after the loop)
            learnt = fetch.from_0 if isinstance(fetch, ClientFetch) else None
            walk = FeedWalk(fetch, since, page_size, until, strict=strict)
            for frame in walk:
                staged.add(frame)
                if arrived is not None:  # the same rows in the same order: staged.keep_mask
                    arrived.add(frame)
                progress.update(walk)
            requests += walk.requests
            strict = walk.strict
            if isinstance(fetch, ClientFetch) and fetch.from_0 != learnt:
                since = start  # every page 1 so far was the second page: read it all again
                continue
            if walk.unstable_from is None:
                break
            since = walk.unstable_from  # a tie changed while it was read: read again from there
    except DealframeError as exc:
        if walk is not None:
            _noted(
                exc,
                f"mirror sync of {entity}: {_stopped(exc, walk, passes)}, after "
                f"{staged.records():,} rows read); the {entity} table is not written "
                "(it stays as it was)",
            )
        raise
    finally:
        progress.done()
    assert walk is not None
    return walk, requests, passes


def _stopped(error: DealframeError, walk: FeedWalk, passes: int) -> str:
    """Where a walk stopped, as the error's note says it: at the change feed's page only when
    the request that failed was one (or the error names none: a page's rows refused); else the
    request it was, such as the discovery document the feed's query is checked against; or,
    for a :class:`~dealframe.errors.ValidationError` (the query refused by the client, as
    that document reads it, before it was sent), the query that was refused; and so for a
    query that document cannot take (no ``updated_at`` sort key or filter listed:
    :data:`~dealframe.mirror.feed.QUERY_REFUSED`), naming the document.

    Examples
    --------
    >>> from dealframe.errors import RequestInfo, ServerError, ServiceContractError
    >>> walk = FeedWalk(lambda since, page: (None, None))
    >>> walk.at_page = 1
    >>> lookup = RequestInfo("GET", "/api/private/v1/lookup/transactions", "private")
    >>> print(_stopped(ServerError(503, "SERVICE_UNAVAILABLE", "Down", request=lookup), walk, 1))
    stopped while reading the discovery document of transactions (GET /api/private/v1/lookup/transactions), which the change feed's query is checked against (pass 1
    >>> print(_stopped(ServerError(503, "SERVICE_UNAVAILABLE", "Down"), walk, 1))
    stopped at the change feed's page 1 of every record (request 1 of pass 1
    >>> print(_stopped(ValidationError("updated_at", "an investors filter"), walk, 1))
    the change feed's query (page 1 of every record) was refused before any feed request was sent (pass 1
    >>> print(_stopped(ServiceContractError(200, "no updated_at filter", finding="filter_unlisted",
    ...                                     request=lookup), walk, 1))
    the change feed's query (page 1 of every record) was refused before any feed request was sent: the discovery document of transactions (GET /api/private/v1/lookup/transactions) does not take it (pass 1
    """
    request = getattr(error, "request", None)
    method, path = getattr(request, "method", None), str(getattr(request, "path", ""))
    refused = getattr(error, "finding", None) in QUERY_REFUSED and method == "GET"
    if isinstance(error, ValidationError) or refused:  # before the request: none was sent
        sent = (
            "any feed request was sent"
            if passes <= 1 and not walk.requests
            else f"its request ({walk.requests + 1} of the pass) was sent"
        )
        if refused:
            name = path.rstrip("/").rsplit("/", 1)[-1]
            sent += f": the discovery document of {name} ({request}) does not take it"
        return f"the change feed's query ({walk.where()}) was refused before {sent} (pass {passes}"
    if request is None or (method == "POST" and "/lookup/" not in path):
        where = f"at the change feed's {walk.where()} (request {walk.requests + 1}"
        return f"stopped {where} of pass {passes}"
    if method == "GET" and "/lookup/" in path:
        name = path.rstrip("/").rsplit("/", 1)[-1]
        return (
            f"stopped while reading the discovery document of {name} ({request}), which the "
            f"change feed's query is checked against (pass {passes}"
        )
    return f"stopped at {request}, no page of the change feed (pass {passes}"


def _sync_entity(
    root: Path,
    entity: str,
    fetch: Fetch,
    *,
    overlap: dt.timedelta,
    page_size: int,
    rows_per_file: int,
    sync_no: int,
    progress: _Progress,
    repair: bool,
    said: Said,
    force_full: str | None = None,
    conflicted: bool = False,
) -> EntityReport:
    started = time.perf_counter()
    until = pd.Timestamp.now(tz="UTC") + overlap  # no checkpoint past the sync's start
    table, problem = inspect_table(root, entity, deep=repair)
    problem = problem or force_full
    # the last commit that wrote rows (not a compaction's, which copies its checkpoint)
    info = last_info(table, SYNC_OPERATIONS) if table is not None and problem is None else None
    if table is not None and info is not None:  # rows another writer changed: rebuilt
        # from the version that sync read: an append committed while it wrote is under its commit
        problem = foreign_rows(table)
        info = None if problem is not None else info
    old = info.checkpoint if info is not None else None
    if old is not None and pd.Timestamp(old) > until:  # a row stamped ahead moved it there
        problem = (
            f"its checkpoint {old} is after this machine's clock ({_iso(until)}, overlap "
            "included): records changed before that time may never have been read"
        )
        old = None
    full = old is None
    since = None if full else pd.Timestamp(old) - overlap
    staged = StagedRows(
        root / STAGING / f"{sync_no:06d}" / entity,
        entity,
        "part",
        rows_per_file=rows_per_file,
        reread_until=None if full else pd.Timestamp(old),
    )
    arrived = Arrived(entity)  # what the rows hold that the table does not keep as documented
    progress.start(entity)
    rebuild: str | None = None  # what a closer look found wrong, when the upsert failed
    again = False  # another writer committed to the table while this sync wrote it
    # an upsert in memory reads every row of the table: read them while the feed is walked
    with read_ahead(root / entity, None if full else table, entity) as ahead:
        walk, requests, passes = _walk(
            fetch, since, staged, page_size, progress, until, entity, arrived
        )
        checkpoint = walk.checkpoint
        if walk.unstable_from is not None and checkpoint is not None:
            checkpoint = min(checkpoint, walk.unstable_from)  # the next sync reads it again
        parts = staged.close()
        # each record once, as last read: not every read of it (a page boundary's rows, a
        # tie or a whole walk read again, a record changed while the walk read it)
        received = staged.distinct
        step("walked")
        try:
            written = commit_entity(
                root,
                entity,
                staged,
                parts,
                table=table,
                full=full,
                checkpoint=_iso(checkpoint),
                sync=sync_no,
                received=received,
                reason=problem,
                ahead=ahead,
            )
        except CommitFailedError as exc:
            # not a concurrent commit: a table another writer made append-only meanwhile
            # refuses the upsert; the next try sets it aside (see inspect_table)
            rebuild = foreign_properties(open_table(root / entity))
            if conflicted and rebuild is None:
                raise MirrorLockedError(
                    f"another writer committed to the mirror's {entity} table at "
                    f"{root / entity} while this sync wrote it, twice (deltalake: {str(exc).splitlines()[0]}); "
                    "the table holds what that writer left: sync again when it is done"
                ) from None
            again = rebuild is None
        except (DeltaError, OSError, pa.ArrowException) as exc:
            if full or full_disk(exc):
                raise
            # the upsert read a data file the cheap checks passed: look closer, rebuild if damaged
            rebuild = check(root / entity, table, entity, deep=True) if table is not None else None
            if rebuild is None:
                raise
        else:  # another writer's append passes Delta's conflict check: look under the commit
            if table is not None:
                rebuild = foreign_change(open_table(root / entity), table.version())
            if rebuild is not None and conflicted:
                raise MirrorLockedError(
                    f"another writer committed to the mirror's {entity} table at "
                    f"{root / entity} while this sync wrote it, twice ({rebuild}); the next "
                    "sync rebuilds the table: sync again when that writer is done"
                )
            again = rebuild is not None
            if old is not None and not written:  # no commit: the table keeps its checkpoint
                checkpoint = pd.Timestamp(old)
    if rebuild is not None or again:  # (the read ahead has ended)
        # a damaged table is rebuilt from a full pull; one another writer committed to
        # meanwhile is synced again from what it holds now (rebuilt if its rows changed)
        shutil.rmtree(staged.folder, ignore_errors=True)
        return _sync_entity(
            root,
            entity,
            fetch,
            overlap=overlap,
            page_size=page_size,
            rows_per_file=rows_per_file,
            sync_no=sync_no,
            progress=progress,
            repair=repair,
            said=said,
            force_full=rebuild or force_full,
            conflicted=conflicted or again,
        )
    if problem is not None:
        said.append(
            (
                MirrorRepairWarning,
                f"the mirror's {entity} table at {root / entity} was damaged ({problem}); "
                "it was rebuilt from a full pull",
            )
        )
    version = open_table(root / entity).version()
    report = EntityReport(
        entity,
        full,
        _iso(since),
        _iso(checkpoint),
        received,
        written,
        requests,
        passes,
        time.perf_counter() - started,
        version,
        problem,
    )
    report.filter_strict = walk.strict
    # a sync that writes nothing read only rows the table holds as they are: what they held
    # of the table's columns was said by the sync that wrote them; a field the table does not
    # store cannot be compared, and is said whatever was written
    _rows_said(report, staged, arrived, said, written=bool(written or full))
    if walk.ahead:
        report.stamped_ahead = (
            f"{walk.ahead} row(s) stamped after {_iso(until)} (this machine's clock at the "
            f"sync's start, plus the overlap), the newest {_iso(walk.newest)}: a clock ahead "
            f"of the others (the service's, or this machine's behind). The checkpoint stays at "
            f"{_iso(checkpoint)}, before them, so they are read again by the next sync"
        )
        _diverge(said, f"the mirror's {entity} feed: {report.stamped_ahead}")
    return report


def _rows_said(
    report: EntityReport, staged: StagedRows, arrived: Arrived, said: Said, *, written: bool
) -> None:
    """Say, in ``report`` and once each among the sync's warnings, what the rows read held
    that the table does not keep as documented: fields absent from their items
    (``fields_absent``), nulls where the document gives none (``fields_null``), each record
    counted once, as last read, when rows were ``written``; and fields the table does not
    store (``fields_not_mirrored``) always (no comparison with the table can show them)."""
    latest = staged.keep_mask(0, staged.position)  # each id's latest read, as written
    if written:
        report.fields_absent = "; ".join(staged.said) or None  # the table's values kept
        report.fields_null = arrived.nulls(latest)
    report.fields_not_mirrored = arrived.not_mirrored(latest)
    absent = staged.said if written else ()
    for found in (*absent, report.fields_null, report.fields_not_mirrored):
        if found:
            said.append((ServiceContractWarning, f"the change feed of {report.entity}: {found}"))


def _asked_again(fetch: ClientFetch, done: EntityReport, said: Said) -> None:
    """Say the feed pages that came short of rows and whole when asked once more, in
    ``done`` and once among the sync's warnings: no rows are missing, the service answered
    one request otherwise than its ``meta`` says."""
    if not fetch.whole_again:
        return
    more = len(fetch.whole_again) - 1
    done.page_asked_again = fetch.whole_again[0] + (
        f" (and {more} more page(s) so)" if more else ""
    )
    said.append(
        (
            ServiceContractWarning,
            f"the change feed of {done.entity}: {done.page_asked_again}; no rows are missing",
        )
    )


def _diverge(said: Said, message: str) -> None:
    said.append((MirrorDivergenceWarning, message))


@contextlib.contextmanager
def _offsets_said(entity: str, said: Said) -> Iterator[None]:
    """Timestamps without an offset, numbers written as text, values outside a vocabulary
    (``VENTURE``: their rows summed, :func:`~dealframe.mirror.feed.said_values`), and the
    other values read otherwise than written (empty strings where a number is documented,
    text that is no finite number; extra fields given free names) the block reads (the change feed types
    them page by page) said once per field of ``entity``, among the sync's warnings: not one
    warning per page, each naming its page."""
    with (
        offsets_noted() as noted,
        numbers_noted() as spelt,
        warnings_noted() as other,
        values_noted() as valued,
    ):
        try:
            yield
        finally:
            for text in said_values(valued):
                said.append((ServiceContractWarning, f"the change feed of {entity}: {text}"))
            for name, (count, sample) in noted.items():
                text = no_offset_text(name, count, sample)
                said.append((ServiceContractWarning, f"the change feed of {entity}: {text}"))
            for name, numbers in spelt.items():
                text = numbers.text(name)
                said.append((ServiceContractWarning, f"the change feed of {entity}: {text}"))
            for text in other:
                said.append((ServiceContractWarning, f"the change feed of {entity}: {text}"))


def _warn(said: Said, failed: BaseException | None = None) -> None:
    """Emit the sync's warnings once its loop is over: a warning filtered into an error
    (``-W error``) raised inside it stopped the sync after one entity, staging left behind.

    A sync that ``failed`` still says them (a migration's, for one, is not said again: its old
    files are gone), but a warning filtered into an error becomes a note on ``failed``
    (``__notes__``, shown with its traceback) instead of replacing it.
    """
    for category, message in said:
        try:
            warnings.warn(message, category, stacklevel=user_stacklevel())
        except Warning:
            if failed is None:
                raise
            failed.add_note(f"{category.__name__}: {message}")


def _table_rows(folder: Path, table: DeltaTable) -> int:
    """The table's rows, from its log's statistics (the data files when they give none)."""
    records = pa.table(table.get_add_actions(flatten=True)).column("num_records")
    if records.null_count:
        return dataset(folder, table).count_rows()
    return int(pc.sum(records).as_py() or 0)


def _count_page(client: Any, entity: str, filters: dict[str, Any]) -> pd.DataFrame:
    """The first page of one item of ``entity`` under ``filters``, for its ``total``: its
    findings are warned, but for those of fields absent from its one item (no row of the
    table: the change feed's pages say them of the table's rows) and of its item dropped
    outside the filters (``unrequested``: a deleted row served without ``include_deleted``;
    a request the sync makes, not the user, and the counts compared say what differs); an
    error drops them (the caller says it)."""
    with findings_held() as held:
        first = client.private.page(
            api_entity(entity), filters, page=client.private._first_page, limit=1, cache=False
        )
    warn_held(held, first, absent=False)
    return first


def _compare_counts(client: Any, root: Path, done: EntityReport, said: Said) -> None:
    """One request: the service's count of the entity's records (deleted ones included)
    against the table's rows; a difference is said in ``done`` and warned of. The change
    feed cannot show a record deleted outright, nor one a service leaves out of it."""
    done.requests += 1
    folder = root / done.entity
    done.table_rows = table = _table_rows(folder, open_table(folder))
    try:
        first = _count_page(client, done.entity, {"include_deleted": True})
    except DealframeError as exc:
        done.rows_differ = f"the service's count could not be read: {exc}"
        _diverge(said, f"the mirror's {done.entity} table: {done.rows_differ}")
        return
    total = first.attrs.get("total")
    if not isinstance(total, int) or isinstance(total, bool):
        return  # the service gives no count: nothing to compare
    done.service_rows = total
    _compare_live(client, root, done, said)
    if total == table:
        return
    late = _late(client, root, done) if table < total else None
    if late is not None and late == total - table:
        # not a divergence: the service's count as of the sync's last page is the table's
        said_late = (
            f"the service counts {total} records, {late} more than the table's {table}: "
            f"records changed after the sync's last page (updated_at >= {done.checkpoint}) and "
            "not in the table yet (the next sync reads them)"
        )
        done.rows_differ = (
            said_late if done.rows_differ is None else f"{done.rows_differ}; {said_late}"
        )
        return
    if table > total:
        causes = (
            "records deleted outright on the service (a change feed never shows them; they "
            "stay in the table), or a service that counts without the deleted records "
            "(include_deleted ignored)"
        )
    else:
        causes = (
            "records the change feed left out (a service that ignores include_deleted in it: "
            "deleted records never arrive), or records created while the sync ran (the next "
            "sync reads them)"
        )
    _differ(
        said,
        done,
        f"the table holds {table} rows and the service counts {total} (include_deleted=true, "
        f"meta.total): likely {causes}; a full pull into a new folder matches the service again",
    )


def _differ(said: Said, done: EntityReport, found: str) -> None:
    """Say ``found`` in ``done.rows_differ`` (after what it says already) and warn of it."""
    done.rows_differ = found if done.rows_differ is None else f"{done.rows_differ}; {found}"
    _diverge(said, f"the mirror's {done.entity} table: {found}")


def _compare_live(client: Any, root: Path, done: EntityReport, said: Said) -> None:
    """One request: the service's count of its records not deleted against the table's rows
    not deleted. The counts with deleted records do not move when a record is soft-deleted, so
    a change feed that leaves deleted records out (``include_deleted`` ignored in it) keeps
    them live in the table unseen by that comparison; this one sees it. Records deleted after
    the sync's last page (the next sync reads them) are looked up first, as :func:`_late`
    does for created ones, and are not warned of."""
    done.requests += 1
    try:
        first = _count_page(client, done.entity, {})
    except DealframeError:
        return  # the count with deleted records is compared; this one adds to it only
    live = first.attrs.get("total")
    if not isinstance(live, int) or isinstance(live, bool) or done.table_rows is None:
        return
    folder = root / done.entity
    gone = dataset(folder, open_table(folder)).count_rows(filter=pc.field("deleted"))
    held = done.table_rows - gone
    if held <= live:
        return
    since = _since_checkpoint(client, done)
    if since is not None and "deleted" in since:
        ids = since.loc[since["deleted"].fillna(False).astype(bool), "id"].astype(str).unique()
        still = dataset(folder, open_table(folder)).count_rows(
            filter=pc.field("id").isin(pa.array(ids.tolist(), pa.string())) & ~pc.field("deleted")
        )
        if still == held - live:
            return  # deleted after the sync's last page: the next sync reads them
    _differ(
        said,
        done,
        f"the table holds {held} rows not deleted and the service counts {live} (meta.total "
        "without include_deleted): records deleted on the service are live in the table; "
        "likely records deleted while the sync ran (the next sync reads them), a change feed "
        "that leaves deleted records out (include_deleted ignored in it: a soft delete never "
        "arrives; it stays after the next sync), or records deleted outright; a full pull into "
        "a new folder matches the service again",
    )


def _since_checkpoint(client: Any, done: EntityReport) -> pd.DataFrame | None:
    """One request: the records changed at or after the checkpoint (after the sync's last
    page), deleted ones included; None when there is no checkpoint, the request fails, or they
    are more than one page (a count that says so)."""
    if done.checkpoint is None:
        return None
    done.requests += 1
    size = min(PAGE_SIZE, client.private._list_page_size)
    try:
        since = client.private.page(
            api_entity(done.entity),
            {"include_deleted": True, "updated_at": {"gte": done.checkpoint}},
            page=client.private._first_page,
            limit=size,
            cache=False,
        )
    except DealframeError:
        return None
    total = since.attrs.get("total")
    if len(since) >= size or (isinstance(total, int) and total != len(since)):
        return None  # more than one page (or a count that says so): not told in one request
    return since


def _late(client: Any, root: Path, done: EntityReport) -> int | None:
    """One request: how many records changed at or after the checkpoint (after the sync's
    last page: created or changed while it ran) the table does not hold; None when that
    cannot be told in one page.

    The interface document gives no count as of a moment (``created_at`` is no filter, and
    ``updated_at`` takes ``gte`` only), so the records since the checkpoint are read and their
    ids looked up in the table."""
    since = _since_checkpoint(client, done)
    if since is None:
        return None
    ids = pa.array(since["id"].astype(str).unique().tolist(), pa.string())
    folder = root / done.entity
    held = dataset(folder, open_table(folder)).count_rows(filter=pc.field("id").isin(ids))
    return len(ids) - held


@checked_keywords
def sync(
    client: Client,
    path: str | Path,
    entities: Iterable[str] = ENTITIES,
    *,
    overlap: dt.timedelta | float = DEFAULT_OVERLAP,
    progress: bool | Callable[[dict], None] | None = None,
    lock_timeout: float = 60.0,
    page_size: int = PAGE_SIZE,
    rows_per_file: int = ROWS_PER_FILE,
    repair: bool = False,
    allow_other_source: bool = False,
) -> SyncReport:
    """Bring the mirror's Delta tables at ``path`` up to date with the service's private data.

    The first sync of an entity pulls every record, soft-deleted ones included,
    into a new Delta table; later syncs pull only records with
    ``updated_at >= checkpoint - overlap`` (``include_deleted=true``) and upsert
    them by id. Soft deletes stay in the table with ``deleted=True``.
    Each entity's sync is one atomic Delta commit carrying its checkpoint, so a
    crash leaves each table at its previous version or at the new one.

    A version-2 mirror (Parquet base and delta files) is migrated by the first
    sync, in place, keeping its checkpoints. A table found damaged (files missing
    or unreadable, another table's schema), or changed by another writer (rows changed, or
    properties the mirror does not write: ``delta.appendOnly``, a change data feed, a
    ``CHECK`` constraint, deletion vectors; such a table is moved to ``PATH/_damaged/``
    first), is rebuilt from a full pull, with a :class:`MirrorRepairWarning`.

    Parameters
    ----------
    client : dealframe.Client
        With a Family B key.
    path : str or Path
        The mirror folder (created on the first sync; must be new or empty then).
    entities : iterable of str, default ("companies", "investors", "deals")
        What to sync (``"transactions"`` is accepted for ``"deals"``).
    overlap : timedelta or seconds, default 5 minutes
        How far before the checkpoint an incremental sync starts.
    progress : bool or callable, optional
        A progress bar per entity (None: only when interactive), or a callback
        receiving ``{"entity", "rows", "requests", "total"}`` after every page.
    lock_timeout : float, default 60
        Seconds to wait for another sync of the same folder before
        :class:`~dealframe.mirror.errors.MirrorLockedError` (0: refuse at once).
    page_size : int, default 1000
        Rows per request asked for. A service that refuses it (an error naming ``limit``)
        is asked again with the bound it states (else half), as the list calls do; the
        report's ``page_size_refused`` says so, and the client keeps that size.
    rows_per_file : int, default 250,000
        Rows per staged file while the pull runs.
    repair : bool, default False
        Also read every row of every table before syncing (the usual checks read
        only file footers), and rebuild a table that fails.
    allow_other_source : bool, default False
        Sync from another service than the mirror's recorded source
        (:attr:`dealframe.Client.source`), which then becomes its source. Without it, that is
        a :class:`MirrorStateError`: the two services' records would be merged silently.

    Returns
    -------
    SyncReport
        Per entity: rows received and written, requests, checkpoint, the table's
        new version, seconds, and what was repaired.

    Raises
    ------
    dealframe.errors.ConfigurationError
        The client has no Family B key.
    MirrorPathError, MirrorVersionError, MirrorStateError, MirrorLockedError
        The folder cannot be used as it is (for MirrorStateError: also a mirror of another
        source; for MirrorPathError: also a folder, marker ``_mirror.json`` or lock file
        that a ``chattr +i``/``+a`` flag or a permission keeps as it is, before any
        request); nothing in it is changed.
    MirrorWriteError
        The disk refused a write (full, read-only); every table stays at its
        previous version.

    Examples
    --------
    >>> import dealframe.mirror
    >>> report = dealframe.mirror.sync(client, "mirror/")  # doctest: +SKIP
    >>> report["deals"].rows_written  # doctest: +SKIP
    50000
    """
    names = _entities(entities)
    _check_client(client)
    gap = _overlap(overlap)
    page_size = integer_in(
        page_size, "page_size", 1, PAGE_SIZE, f"an integer between 1 and {PAGE_SIZE}"
    )
    rows_per_file = integer_in(rows_per_file, "rows_per_file", 1, None, "a positive integer")
    if not isinstance(repair, bool):
        raise ValidationError("repair", "True or False", got=repair)
    if not isinstance(allow_other_source, bool):
        raise ValidationError("allow_other_source", "True or False", got=allow_other_source)
    lock_timeout = lock_timeout_seconds(lock_timeout)
    bar = _Progress(progress)  # checks it, before the folder is touched
    said: Said = []
    current: str | None = None  # the entity being synced
    try:
        with guard_write(path):
            root = open_folder(path, create=True)
            _usable_marker(root)  # a corrupt or foreign marker is reported before the lock is taken
            check_writable(root)  # a marker that cannot be replaced: before any request
            with mirror_lock(root, lock_timeout):
                state = _marker(root, client, allow_other_source, said)
                # a sync that fails deletes what it staged (the lock's file stays: see
                # durable); one refused by the marker (another source) changes nothing
                with cleared_on_failure(root):
                    report = SyncReport(root, recovered_files=len(recover(root)))
                    sync_no = (
                        state.syncs
                    )  # this sync's own number, taken before any table is written
                    for entity in names:
                        current = entity
                        fetch = client_fetch(client, entity, page_size)
                        with _offsets_said(entity, said):
                            done = report.entities[entity] = _sync_entity(
                                root,
                                entity,
                                fetch,
                                overlap=gap,
                                page_size=page_size,
                                rows_per_file=rows_per_file,
                                sync_no=sync_no,
                                progress=bar,
                                repair=repair,
                                said=said,
                            )
                            # the refused pages were sent too, page 0 when it was looked for,
                            # and the pages asked again (short of rows)
                            done.requests += (
                                len(fetch.refused) + (fetch.from_0 is not None) + fetch.again
                            )
                            done.page_size_refused = "; ".join(fetch.refused) or None
                            done.page_from_0 = fetch.from_0
                            _asked_again(fetch, done, said)
                            _compare_counts(client, root, done, said)
                    current = None
                    recover(root)  # the staging folder of this sync
    except BaseException as exc:
        if current is not None and isinstance(exc, DealframeError):
            _noted(exc, _resume_note(names, list(report.entities), current))
        _warn(said, exc)  # what it said before it failed is still true
        raise
    _warn(said)
    return report


def _resume_note(names: list[str], committed: list[str], failed: str) -> str:
    """What a sync that stopped at ``failed`` did, and what a re-run does.

    Examples
    --------
    >>> print(_resume_note(["companies", "investors", "deals"], ["companies"], "investors"))
    this sync committed companies before it stopped at investors (not synced: investors, deals); run the sync again: it resumes from each table's checkpoint, committed tables included
    """
    done = ", ".join(committed) if committed else "no table"
    left = ", ".join(n for n in names if n not in committed)
    return (
        f"this sync committed {done} before it stopped at {failed} (not synced: {left}); "
        "run the sync again: it resumes from each table's checkpoint, committed tables included"
    )


def _usable_marker(root: Path) -> None:
    """Raise the marker's error now unless it is readable, or a version-2 marker (migrated)."""
    doc = read_doc(root)
    if doc is not None and doc.get("schema_version") != LEGACY_VERSION:
        parse_state(orjson_bytes(doc), root / STATE_NAME)


def _marker(root: Path, client: Any, allow_other_source: bool, said: Said) -> MirrorState:
    """The marker under the lock, written with this sync's source and number (``syncs``, one
    more than the last sync started) before any table is written: made on a first sync,
    migrated from version 2, refused for another source unless allowed (a mirror that holds no
    table yet takes this source: its first sync failed). A sync that fails after committing
    some tables keeps its number: the next one never shares it (history's ``sync``)."""
    here = client_source(client)
    doc = read_doc(root)
    if doc is None:
        state = MirrorState(source=here)
    elif doc.get("schema_version") == LEGACY_VERSION:
        # checked before the migration, which records this sync's source: its records are
        # in the old files, and it recorded the base URL (a sandbox's with a port of the day)
        entries = doc.get("entities")
        held = isinstance(entries, dict) and any(
            isinstance(e, dict) and e.get("files") for e in entries.values()
        )
        legacy = legacy_source(doc.get("source"))
        source = check_source(root, legacy, here, allow_other_source, holds=held)
        state = migrate(root, doc, said, source)
    else:
        state = parse_state(orjson_bytes(doc), root / STATE_NAME)
        state.source = check_source(root, state.source, here, allow_other_source)
    state.syncs += 1
    write_state(root, state)
    return state
