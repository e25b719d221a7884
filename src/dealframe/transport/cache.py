"""The on-disk HTTP cache (requests-cache, SQLite with WAL) and its per-token namespaces.

Facts this module relies on (requests-cache 1.3):

- POST is cached only when listed in ``allowable_methods``.
- The cache key sorts only the top-level keys of a JSON body, so callers send bodies already
  serialised canonically (:func:`canonical_json`: keys sorted at every level).
- ``Authorization`` is left out of the key and redacted from stored requests because it is in
  the ``ignored_parameters`` we pass (:data:`IGNORED_PARAMS`: the credentials requests-cache
  ignores by default, spelled out here, and cookies).
- Since the token is left out of the key, two tokens would share entries: :func:`namespaced_key`
  mixes the SHA-256 fingerprint of the ``Authorization`` header into every key.
- ``filter_fn`` runs before a response is written and after a stored one is read; a stored
  response it refuses is deleted. :func:`dealframe.transport.body.storable` is ours: only
  well-formed success bodies that are not plainly wrong, and that hold no token (a service
  echoing it back: requests-cache would write it to the file), are kept or answered.

A body can pass that filter and still fail the checks of the call that reads it
(:mod:`dealframe.contract`: a row without its id, rows repeated, a field missing...). Every
entry a request reads or writes is noted (:meth:`CacheControl._seen`); when a call's checks
find anything wrong (:func:`checked`), the entries noted on its thread and on dealframe's
worker threads since it began (since the previous call on that thread was checked, or the
thread's first request) are dropped (:func:`forget_since`), so those answers are asked for
again next time, not answered from the cache. (An entry of an earlier call left unchecked, or
of another thread's call that ran on the worker threads at the same moment, may go too: it is
fetched again.)

Everything goes through requests-cache's public API: a request names its expiry
(``expire_after``) and may force a refresh. requests-cache fixes an entry's expiry when it is
written; the asking client's expiry is applied when it is read too: a stored answer older than
the request's ``expire_after`` (``CachedResponse.is_older_than``) is a miss, fetched anew and
overwritten (:class:`ReaderExpirySession`), so ``cache_expiry={"current": 60}`` means no answer
older than a minute whoever wrote it.

Expired entries are removed (``BaseCache.delete(expired=True)``) when a process opens a cache
file, at most once an hour per file and process (:func:`build_cached_session`; a busy file is
left for the next opening), so the file stops growing: SQLite reuses the freed pages.
``client.cache.clear(expired=True)`` does the same at any time and also gives the space back
to the file system (``VACUUM``, then the write-ahead log emptied, as ``clear()`` does).

requests-cache waits for a file's write lock without end (it retries ``BEGIN IMMEDIATE`` in a
loop, whatever SQLite ``timeout`` or ``busy_timeout`` it is given: its public API cannot bound
the wait), so a file another process keeps locked (a long transaction, a ``VACUUM``, a
``sqlite3`` shell left in ``BEGIN EXCLUSIVE``) would hang the caller. Before every write,
dealframe waits for the lock on a connection of its own, at most :data:`LOCK_WAIT` seconds:
opening then fails (:class:`~dealframe.errors.ConfigurationError` from the client, naming the
file), the removal of expired entries at opening is skipped (logged on ``dealframe.transport``;
the next opening tries again), ``clear`` raises the same ``ConfigurationError``, and an answer
to store (or a bad entry to drop) is returned without it (:class:`BoundedSQLiteCache`, through
requests-cache's public ``save_response`` and ``delete``), with one warning. (A lock taken
between that check and the write is not covered.)

requests-cache shares each table's SQLite connection between threads but locks it for writes
only; a read beside a write then made the write fail (``another row available``), so every use
of the connection holds the table's lock (:class:`_SerialSQLiteDict`).

A multi-request call first looks its hits up on its own thread (:meth:`CacheControl._stored`:
the session's key function, ``BaseCache.get_response`` and the entry's ``is_expired``), so
only misses travel through worker threads.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import os
import sqlite3
import stat
import threading
import time
import warnings
import weakref
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import orjson
import requests
from requests_cache import (
    DO_NOT_CACHE,
    CacheDirectives,
    CachedResponse,
    CachedSession,
    SQLiteCache,
)
from requests_cache.backends.sqlite import SQLiteDict

from dealframe.arguments import checked_methods, flag, unencodable
from dealframe.errors import ConfigurationError, ValidationError
from dealframe.notices import DealframeWarning, user_stacklevel
from dealframe.transport.body import storable
from dealframe.transport.paging import on_worker

__all__ = [
    "BoundedSQLiteCache",
    "CacheControl",
    "DO_NOT_CACHE",
    "IGNORED_PARAMS",
    "LOCK_WAIT",
    "PRUNE_EVERY",
    "ReaderExpirySession",
    "STORE_BY",
    "build_cached_session",
    "cache_key",
    "forget_call",
    "cache_file",
    "canonical_json",
    "earlier_cache_file",
    "checked",
    "expiry_for",
    "forget_since",
    "namespaced_key",
    "requesting",
    "seen_mark",
    "secure_cache_file",
    "token_namespace",
]

#: Parameters never part of a cache key and redacted from stored requests.
IGNORED_PARAMS: tuple[str, ...] = (
    "Authorization",
    "Proxy-Authorization",
    "X-API-Key",
    "X-Auth-Token",
    "X-API-Token",
    "X-Access-Token",
    "access_token",
    "api_key",
    "apikey",
    "Cookie",
    "Set-Cookie",
)

_SIDE_FILES = ("-wal", "-shm", "-journal")

#: Seconds between two removals of a file's expired entries by one process.
PRUNE_EVERY = 3600.0
#: When (``time.monotonic()``) this process last removed each file's expired entries.
_PRUNED: dict[str, float] = {}
_PRUNED_LOCK = threading.Lock()
#: Seconds to wait for another process's write lock on the file (opening, removing expired
#: entries, storing an answer) before giving up; requests-cache itself would wait without end.
LOCK_WAIT = 5.0
#: At opening, the removal of expired entries waits this long at most (it can wait for the
#: next opening).
PRUNE_WAIT = 0.5

#: When (``time.monotonic()``) the current call must end, or None: a store or drop made for
#: it waits for the lock a quarter of the time left at most (the transport sets it around
#: each request).
STORE_BY: ContextVar[float | None] = ContextVar("dealframe_store_by", default=None)

logger = logging.getLogger("dealframe.transport")

#: Cache entries read or written lately, oldest first: (number, thread or None for a worker
#: thread, the cache, the key); see :func:`forget_since`.
_SEEN: deque[tuple[int, int | None, weakref.ref[CacheControl], str]] = deque(maxlen=10_000)
_SEEN_LOCK = threading.Lock()
_SEEN_NUMBERS = itertools.count()


def seen_mark() -> int:
    """The number the next entry noted by :meth:`CacheControl._seen` gets (where a call's
    entries begin, for :func:`forget_since`).

    Examples
    --------
    >>> seen_mark() <= seen_mark()
    True
    """
    with _SEEN_LOCK:
        return _SEEN[-1][0] + 1 if _SEEN else 0


def forget_since(mark: int) -> int:
    """Drop the cache entries noted since ``mark`` (:func:`seen_mark`) on this thread or on
    dealframe's worker threads, from whichever cache noted them; how many were dropped.

    The entries of an answer its call's checks found wrong: it is asked for again next time.
    A file another process keeps locked leaves them (see :class:`BoundedSQLiteCache`).

    Examples
    --------
    >>> forget_since(seen_mark())
    0
    """
    me = threading.get_ident()
    keys: dict[int, tuple[CacheControl, dict[str, None]]] = {}
    with _SEEN_LOCK:
        for number, thread, control, key in reversed(_SEEN):
            if number < mark:
                break
            owner = control()
            if owner is not None and thread in (None, me):
                keys.setdefault(id(owner), (owner, {}))[1][key] = None
    for owner, found in keys.values():
        owner._delete(*found)
    return sum(len(found) for _, found in keys.values())


#: Where (:func:`seen_mark`) the entries of this thread's current call begin: at the end of
#: the previous call's checks, or at this thread's first request.
_CALL_FROM: ContextVar[int | None] = ContextVar("dealframe_call_from", default=None)


def requesting() -> None:
    """Called by the transport before a request on the caller's thread: the thread's first
    call's entries begin here (later calls' where the previous call was :func:`checked`)."""
    if _CALL_FROM.get() is None:
        _CALL_FROM.set(seen_mark())


def forget_call() -> None:
    """Drop the cache entries of this thread's call so far: its checks found an answer
    wrong (:meth:`dealframe.contract.Findings.add`), and the call may yet raise before it
    reports (:func:`checked`); a later call on the thread still begins where it began.

    Examples
    --------
    >>> forget_call()
    """
    since = _CALL_FROM.get()
    if since is not None:
        forget_since(since)


def checked(*, wrong: bool) -> None:
    """At the end of a call's checks (:meth:`dealframe.contract.Findings.report`): when they
    found its answers ``wrong``, drop the cache entries noted since the call began on this
    thread (:func:`forget_since`); the next call's entries begin here.

    Examples
    --------
    >>> checked(wrong=False)
    """
    since = _CALL_FROM.get()
    _CALL_FROM.set(seen_mark())
    if wrong and since is not None:
        forget_since(since)


def cache_file(path: str | os.PathLike[str]) -> Path:
    """The SQLite file of a ``cache_path``: that path itself, made absolute (``~`` expanded).

    No suffix is added: ``cache_path="/data/http_cache"`` is the file ``/data/http_cache``
    (requests-cache would add ``.sqlite`` to a name without one; :class:`BoundedSQLiteCache`
    opens the path as given). A folder is left as it is: opening it fails
    (``ConfigurationError``), no file is made beside it.

    Every use of the file (the lock checks, file modes, ``client.cache.info()``) goes through
    this one path. The ``.sqlite`` file earlier releases made of a name without a suffix is
    not read: the first opening warns of it (:func:`earlier_cache_file`).

    Examples
    --------
    >>> cache_file("/data/http").name, cache_file("/data/http.db").name
    ('http', 'http.db')
    >>> cache_file("rel.sqlite").is_absolute()
    True
    """
    return Path(path).expanduser().absolute()


def _writable(path: Path, wait: float) -> None:
    """Return once a write transaction on ``path`` could start, waiting at most ``wait``
    seconds for another connection's lock; else raise ``sqlite3.OperationalError`` saying so.

    Examples
    --------
    >>> import tempfile
    >>> _writable(Path(tempfile.mkdtemp()) / "cache.sqlite", 0.1)  # no file yet: nothing to wait for
    """
    if not path.exists():
        return
    con = sqlite3.connect(path, timeout=wait, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        if not _locked(exc):
            raise  # not a lock: what it is (a file it cannot open, a damaged one)
        raise sqlite3.OperationalError(
            f"{exc}: another process has held its write lock for more than {wait:g} s"
        ) from None
    finally:
        con.close()


def _locked(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is SQLite's busy or locked error (another connection's lock)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def canonical_json(body: Any) -> bytes:
    """Serialise ``body`` with keys sorted at every level (stable bytes for the cache key).

    Raises
    ------
    ValidationError
        A body JSON cannot hold (a text with a lone surrogate that an argument check let
        through, a value of another type), naming the request body, never orjson's
        ``TypeError``; the argument checks (:func:`dealframe.arguments.unencodable`) name the
        argument first.

    Examples
    --------
    >>> canonical_json({"b": {"y": 1, "x": 2}, "a": [3, 1]})
    b'{"a":[3,1],"b":{"x":2,"y":1}}'
    >>> canonical_json({"name": "Acme\\udcff"})
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid request body.name: expected values JSON can hold (str is not valid UTF-8: surrogates not allowed), got 'Acme\\udcff'
    """
    try:
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError as exc:  # orjson.JSONEncodeError is a TypeError
        found = unencodable(body, "request body")
        raise ValidationError(
            found[0] if found else "request body",
            f"values JSON can hold ({exc})",
            **({"got": found[1]} if found else {}),
        ) from None


def token_namespace(authorization: str | None) -> str:
    """The cache namespace of an ``Authorization`` header: a SHA-256 fingerprint, never the token.

    Examples
    --------
    >>> token_namespace("Bearer abc") == token_namespace("Bearer abc") != token_namespace("Bearer x")
    True
    >>> token_namespace(None)
    'anonymous'
    """
    if not authorization:
        return "anonymous"
    return hashlib.sha256(authorization.encode("utf-8")).hexdigest()[:16]


def cache_key(namespace: str, method: str, url: str, body: bytes | str | None) -> str:
    """The cache key of a canonical request in a token's namespace.

    Parameters
    ----------
    namespace : str
        :func:`token_namespace` of the request's ``Authorization`` header.
    method, url : str
        As sent (``url`` as ``requests`` prepares it, query included).
    body : bytes, str or None
        The body as sent (the transport's bodies are :func:`canonical_json`).

    Examples
    --------
    >>> a = cache_key("n1", "POST", "http://h/api/v2/companies", b'{"a":1}')
    >>> a == cache_key("n1", "post", "http://h/api/v2/companies", b'{"a":1}'), len(a)
    (True, 32)
    >>> a == cache_key("n2", "POST", "http://h/api/v2/companies", b'{"a":1}')
    False
    """
    digest = hashlib.blake2b(digest_size=16)
    if isinstance(body, str):
        body = body.encode("utf-8")
    for part in (namespace.encode(), method.upper().encode(), url.encode("utf-8"), body or b""):
        digest.update(len(part).to_bytes(8, "little"))  # length-prefixed: no ambiguous joins
        digest.update(part)
    return digest.hexdigest()


def namespaced_key(request: requests.PreparedRequest, **kwargs: Any) -> str:
    """requests-cache ``key_fn``: :func:`cache_key` of the prepared request.

    The token itself is excluded from the key and from the stored request; only a SHA-256
    digest of the ``Authorization`` header enters the key, so two tokens never share an entry.
    """
    auth = request.headers.get("Authorization") if request.headers else None
    return cache_key(token_namespace(auth), request.method or "", request.url or "", request.body)


def expiry_for(kind: str, expiry: Mapping[str, float]) -> float | int | None:
    """The ``expire_after`` to pass for an endpoint ``kind``; None means "do not cache".

    Examples
    --------
    >>> expiry_for("changefeed", {"changefeed": 0}) is None
    True
    >>> expiry_for("list", {"list": 3600})
    3600
    """
    seconds = expiry.get(kind)
    if not seconds:
        return None
    return int(seconds) if float(seconds).is_integer() else seconds


def secure_cache_file(path: Path) -> None:
    """Create the cache file (0o600) and its missing folders (0o700) before SQLite opens them.

    A folder that already exists keeps its mode: the user's project folder, ``$HOME`` or a
    shared sticky folder such as ``/tmp`` is theirs, and the file's own 0o600 mode (kept on
    its WAL/SHM side files by :func:`_tighten`) is what keeps the cached answers private.
    """
    _private_dirs(path.parent)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    _tighten(path)


def _private_dirs(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each 0o700; existing folders are left alone.

    ``Path.mkdir(parents=True, mode=...)`` gives the mode to the last folder only, and the
    umask may tighten it further, so each folder made here is set to 0o700 explicitly.

    Examples
    --------
    >>> import stat, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     os.chmod(tmp, 0o755)
    ...     _private_dirs(Path(tmp, "a", "b"))
    ...     [oct(stat.S_IMODE(Path(tmp, p).stat().st_mode)) for p in ("", "a", "a/b")]
    ['0o755', '0o700', '0o700']
    """
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by another process: not ours to change
            continue
        os.chmod(made, 0o700)


def _tighten(path: Path) -> None:
    for candidate in (path, *(Path(f"{path}{suffix}") for suffix in _SIDE_FILES)):
        try:
            if stat.S_IMODE(os.stat(candidate).st_mode) != 0o600:
                os.chmod(candidate, 0o600)
        except FileNotFoundError:
            continue


class ReaderExpirySession(CachedSession):
    """A ``CachedSession`` that also judges a stored answer by the expiry of the request that
    reads it: one older than the request's ``expire_after`` is fetched anew and overwritten.

    requests-cache fixes ``expires`` when it writes an entry, so without this a client set to
    ``cache_expiry={"current": 1}`` would be served an entry written under the default 900 s.
    """

    def send(  # type: ignore[override]
        self, request: requests.PreparedRequest, **kwargs: Any
    ) -> Any:
        response = super().send(request, **kwargs)
        if not isinstance(response, CachedResponse):
            return response
        # CachedSession.request carries the per-request expire_after as max-age
        max_age = CacheDirectives.from_headers(request.headers).max_age
        if max_age is None or max_age <= 0 or not response.is_older_than(max_age):
            return response
        return super().send(request, **{**kwargs, "force_refresh": True})


class _SerialSQLiteDict(SQLiteDict):
    """requests-cache's SQLite table whose one connection is used by one thread at a time.

    requests-cache shares a table's connection between threads and takes its lock for writes
    only, so a read could run on the connection while another thread's ``BEGIN IMMEDIATE``
    waited on it: SQLite then reported the read's state for the write
    (``sqlite3.DatabaseError: another row available``) and the call failed. Every use of the
    connection (read or write) holds the table's lock here; reads are one short ``SELECT``.
    """

    def __init__(self, path: Path, *, table_name: str, lock: threading.RLock, **kwargs: Any):
        self._serial = lock  # our own handle: requests-cache's private ``_lock`` may change
        self._exact = path
        super().__init__(path, table_name=table_name, wal=True, lock=lock, **kwargs)

    def init_db(self) -> None:
        """Open the table in the file ``path`` names, exactly: requests-cache adds
        ``.sqlite`` to a name without a suffix (the user's ``cache_path`` would not be the
        file written)."""
        self.db_path = self._exact
        super().init_db()

    @contextmanager
    def connection(self, commit: bool = False) -> Iterator[sqlite3.Connection]:
        with self._serial, super().connection(commit) as con:
            yield con

    def clear(self) -> None:
        """Delete every row, keeping the table (see :meth:`BoundedSQLiteCache.clear`)."""
        with self.connection(commit=True) as con:
            con.execute(f"DELETE FROM {self.table_name}")


def _truncate_wal(con: sqlite3.Connection, path: Path) -> None:
    """Write the write-ahead log back into the file and empty it, if no other connection is
    reading: never waiting for one (a reader in another process would hold ``clear()`` and
    this client's other threads for the busy timeout); the log is then left for SQLite's
    own checkpoints, and that is logged."""
    (wait,) = con.execute("PRAGMA busy_timeout").fetchone()
    con.execute("PRAGMA busy_timeout = 0")
    try:
        busy, _, _ = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        con.execute(f"PRAGMA busy_timeout = {int(wait)}")
    if busy:
        logger.info("cache file %s: its write-ahead log is in use, left to SQLite", path)


class BoundedSQLiteCache(SQLiteCache):
    """requests-cache's SQLite backend (WAL) whose one-entry writes (storing an answer,
    dropping an entry) wait at most :data:`LOCK_WAIT` seconds for another process's write lock,
    then are skipped: the answer is returned uncached, never lost.

    The first skipped write of a spell waits (no longer than a quarter of the call's time
    left, :data:`STORE_BY`, so the call still has the rest for its own requests); the next
    ones do not wait while the lock is still held. What was skipped is kept for
    :meth:`take_unsaved` (one message a spell), which the transport warns of on the caller's
    thread: after a request made there, or once a multi-request call whose requests ran on
    worker threads returns (:meth:`CacheControl._after_request`).

    Parameters
    ----------
    path : Path
        The SQLite file (:func:`cache_file`).

    Examples
    --------
    >>> import tempfile
    >>> cache = BoundedSQLiteCache(Path(tempfile.mkdtemp()) / "cache.sqlite")
    >>> cache.take_unsaved() is None
    True
    >>> cache.close()
    """

    def __init__(self, path: Path) -> None:
        # its tables are replaced by ones that share their connection safely and open
        # ``path`` as given. The ones made here are in a private in-memory database (plain
        # ":memory:": no file beside ``path``); never ``use_memory=True``, which is
        # requests-cache's one shared in-memory database of the process: the user's own
        # in-memory cache, whose write lock we would wait for without end.
        super().__init__(":memory:")
        super().close()
        self.cache_name = str(path)
        lock = threading.RLock()
        self.responses = _SerialSQLiteDict(path, table_name="responses", lock=lock)
        self.redirects = _SerialSQLiteDict(path, table_name="redirects", lock=lock, serializer=None)
        self._path = Path(self.db_path)  # the file opened: path, exactly
        self._guard = threading.Lock()
        self._check: sqlite3.Connection | None = None
        self._timeout: int | None = None  # the busy timeout (ms) set on ``_check``
        self._busy = False  # the last check found the lock held: the next ones do not wait
        self._unsaved: str | None = None

    def _free(self) -> bool:
        """Whether a write can start now (see the class); on a connection kept for the checks
        (opening one per write would cost several times more)."""
        by = STORE_BY.get()
        with self._guard:
            # a quarter of the call's time left at most: the call itself still has the rest
            share = math.inf if by is None else max(0.0, by - time.monotonic()) / 4
            wait = 0.0 if self._busy else LOCK_WAIT
            capped, wait = share < wait, min(wait, share)
            try:
                if self._check is None:
                    self._check = sqlite3.connect(
                        self._path, isolation_level=None, check_same_thread=False
                    )
                    self._timeout = None
                timeout = int(wait * 1000)
                if timeout != self._timeout:  # set again only when it changes: one statement
                    self._check.execute(f"PRAGMA busy_timeout={timeout}")  # less per store
                    self._timeout = timeout
                self._check.execute("BEGIN IMMEDIATE")
                self._check.execute("ROLLBACK")
            except sqlite3.Error as exc:
                if not _locked(exc):
                    # not a lock (a file it cannot open, a damaged one): the write goes ahead
                    # and says what it is, as requests-cache's own write did before this check
                    logger.debug("cache lock check of %s failed: %s", self._path, exc)
                    if self._check is not None:
                        self._check.close()
                        self._check = None
                    return True
                if not self._busy:
                    self._busy = True
                    self._unsaved = (
                        f"the HTTP cache at {self._path} could not be written ({exc}; another "
                        f"process has held its write lock for more than {wait:g} s"
                        f"{', a quarter of the time the call had left' if capped else ''}): answers "
                        "are returned without being stored until it is free"
                    )
                return False
            self._busy = False
            return True

    def take_unsaved(self) -> str | None:
        """What to warn of since the last call: a spell of skipped writes began (else None)."""
        if self._unsaved is None:  # the usual case, without taking the lock
            return None
        with self._guard:
            said, self._unsaved = self._unsaved, None
        return said

    def save_response(
        self, response: requests.Response, cache_key: str | None = None, expires: Any = None
    ) -> None:
        """Store ``response`` unless the file stays locked (see the class)."""
        if self._free():
            super().save_response(response, cache_key, expires)

    def delete(self, *keys: str, expired: bool = False, vacuum: bool = True, **kwargs: Any) -> None:
        """Drop entries; dropping keys only (a refused answer's) is skipped while the file
        stays locked: the entry, if any, is refused again when it is read."""
        if keys and not expired and not kwargs and not self._free():
            return
        super().delete(*keys, expired=expired, vacuum=vacuum, **kwargs)

    def clear(self) -> None:
        """Delete every entry: both tables emptied in one transaction, then the space given
        back to the file system (``VACUUM``, then a checkpoint that empties the write-ahead
        log, where the vacuumed pages first land; a failure of either is logged, the entries
        are gone).

        requests-cache drops the tables and creates them again in a second transaction: a
        read by another client or process on the same file in between failed with
        ``sqlite3.OperationalError: no such table``. Emptied tables are never missing: a
        concurrent read finds the entries or a miss, and fetches again. (Nor is the file
        deleted when clearing fails, as requests-cache's ``clear`` would.)
        """
        with self.responses.connection(commit=True) as con:
            for table in (self.responses.table_name, self.redirects.table_name):
                con.execute(f"DELETE FROM {table}")
        self._give_back("emptied")

    def clear_expired(self) -> None:
        """Delete the entries past the expiry they were written with, then give the space
        back to the file system as :meth:`clear` does (``VACUUM``, then the write-ahead log
        emptied: without that the vacuumed pages stayed in the ``-wal`` file, as large as
        the entries removed, until the client closed)."""
        super().delete(expired=True, vacuum=False)
        self._give_back("pruned of its expired entries")

    def _give_back(self, done: str) -> None:
        """``VACUUM``, then a checkpoint that empties the write-ahead log, where the
        vacuumed pages first land; a failure of either is logged (what was deleted stays
        deleted: ``done`` says what)."""
        try:
            self.responses.vacuum()
            with self.responses.connection() as con:  # the WAL holds the vacuumed pages
                _truncate_wal(con, self._path)
        except sqlite3.OperationalError as exc:
            logger.info("cache file %s %s but not vacuumed: %s", self._path, done, exc)

    def close(self) -> None:
        """Close requests-cache's connections and the one kept for the checks."""
        with self._guard:
            if self._check is not None:
                self._check.close()
                self._check = None
        super().close()


def build_cached_session(path: Path) -> CachedSession:
    """A ``CachedSession`` on SQLite (WAL) that caches GET and POST 200 responses.

    Expiry is chosen per request (see :func:`expiry_for`); the default is "do not cache", so a
    request that names no kind is never stored. A stored answer older than the reading
    request's expiry is a miss (:class:`ReaderExpirySession`). Storing waits for another
    process's lock at most :data:`LOCK_WAIT` seconds (:class:`BoundedSQLiteCache`). ``path``
    is the ``cache_path`` setting; the file is :func:`cache_file` of it. Opening a file that
    does not exist yet beside the ``.sqlite`` file earlier releases made of the same setting
    warns once (:func:`earlier_cache_file`).
    """
    path = cache_file(path)
    _warn_earlier_file(path)  # before the file is made: only a first opening warns
    secure_cache_file(path)
    _writable(path, LOCK_WAIT)  # requests-cache would wait for the lock without end
    backend = BoundedSQLiteCache(path)
    session = ReaderExpirySession(
        backend=backend,
        allowable_methods=("GET", "POST"),
        allowable_codes=(200,),
        expire_after=DO_NOT_CACHE,
        ignored_parameters=IGNORED_PARAMS,
        key_fn=namespaced_key,
        filter_fn=storable,
        stale_if_error=False,
        cache_control=False,
    )
    _tighten(path)
    _prune_once(backend, path)  # once an hour per process, not on every Client
    return session


def earlier_cache_file(path: Path) -> Path | None:
    """The file earlier dealframe releases wrote for the cache file ``path`` and this one
    does not read, or None.

    Earlier releases added ``.sqlite`` to a ``cache_path`` without a suffix, as requests-cache
    does; the file written is now ``path`` exactly (:func:`cache_file`). So when ``path`` has
    no suffix and does not exist yet while ``path.sqlite`` does, that file is the earlier
    cache of the same setting, left behind. It is only looked at, never opened or renamed.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> earlier_cache_file(folder / "http_cache") is None
    True
    >>> (folder / "http_cache.sqlite").touch()
    >>> earlier_cache_file(folder / "http_cache").name
    'http_cache.sqlite'
    >>> earlier_cache_file(folder / "http_cache.db") is None
    True
    """
    if path.suffix or path.exists():
        return None
    earlier = path.with_name(f"{path.name}.sqlite")
    return earlier if earlier.is_file() else None


def _warn_earlier_file(path: Path) -> None:
    """One :class:`~dealframe.notices.DealframeWarning` at the user's line when
    :func:`earlier_cache_file` finds the earlier cache of this ``cache_path``: it holds cached
    answers that ``client.cache.clear()`` and the pruning of expired entries no longer reach.
    """
    earlier = earlier_cache_file(path)
    if earlier is None:
        return
    warnings.warn(
        f"the HTTP cache is now the file cache_path names, exactly: {path} (new, empty). "
        f"If {earlier} is the cache earlier dealframe releases made of this cache_path (they "
        "added '.sqlite'), it is no longer read, cleared or pruned and still holds their "
        "cached answers: delete it (with its -wal and -shm files, if any), or set cache_path "
        "to it to keep using it. If it is a file of your own, nothing was done to it",
        DealframeWarning,
        stacklevel=user_stacklevel(),
    )


def _prune_once(backend: SQLiteCache, path: Path) -> None:
    """Remove the expired entries of ``path`` unless this process did within
    :data:`PRUNE_EVERY` seconds.

    Without a ``VACUUM`` (which would lock the file for long): the freed pages are reused, so
    the file stops growing. A file another process keeps busy (for more than
    :data:`PRUNE_WAIT` seconds) is left for the next opening, and the log says so.
    """
    name, now = str(path.resolve()), time.monotonic()
    with _PRUNED_LOCK:
        if now - _PRUNED.get(name, -math.inf) < PRUNE_EVERY:
            return
        try:
            _writable(path, PRUNE_WAIT)
            backend.delete(expired=True, vacuum=False)
        except sqlite3.Error as exc:
            logger.info(
                "expired cache entries of %s not removed (next opening tries): %s", path, exc
            )
            return
        _PRUNED[name] = now


@checked_methods
class CacheControl:
    """Inspect and clear the HTTP cache of one transport (``client.cache``).

    Its methods take the arguments they document, by keyword, and nothing else: a misspelt
    keyword is an :class:`~dealframe.errors.UnknownArgumentError` naming the closest one,
    a positional argument a :class:`~dealframe.errors.CallError` and ``expired`` other than
    True or False a :class:`~dealframe.errors.ValidationError` (each a
    ``ValidationError``). Its other methods are the transport's (private).

    Parameters
    ----------
    session : requests.Session
        The transport's session (a ``CachedSession`` when caching is on).
    path : Path
        The SQLite file (:func:`cache_file` of the ``cache_path`` setting).
    enabled : bool
        Whether the transport caches.
    """

    def __init__(self, session: requests.Session, path: Path, enabled: bool) -> None:
        self._session = session
        self.path = path
        self.enabled = enabled
        self._tight = False

    def __repr__(self) -> str:
        return f"CacheControl(path={str(self.path)!r}, enabled={self.enabled})"

    def _backend(self) -> Any:
        return getattr(self._session, "cache", None) if self.enabled else None

    def info(self) -> dict[str, Any]:
        """Path, number of entries, bytes on disk and whether the cache is on.

        Examples
        --------
        >>> import requests
        >>> CacheControl(requests.Session(), Path("/nonexistent.sqlite"), False).info()["entries"]
        0
        """
        backend = self._backend()
        entries = len(backend.responses) if backend is not None else 0
        size = 0
        for candidate in (self.path, *(Path(f"{self.path}{s}") for s in _SIDE_FILES)):
            try:
                size += candidate.stat().st_size
            except FileNotFoundError:
                continue
        return {
            "path": str(self.path),
            "entries": entries,
            "size_bytes": size,
            "enabled": self.enabled,
        }

    def clear(self, *, expired: bool = False) -> None:
        """Delete every cached response (all tokens), or only the expired ones.

        Entries are deleted, the tables kept (:meth:`BoundedSQLiteCache.clear`): another
        client or process reading the same file meanwhile finds a miss and asks the service.

        Parameters
        ----------
        expired : bool, default False
            Delete only the entries past the expiry they were written with, and give the
            space back to the file system while the client is open (``VACUUM``, then the
            write-ahead log emptied: :meth:`BoundedSQLiteCache.clear_expired`). Expired entries are also removed,
            without the ``VACUUM``, when a process opens the cache file (at most once an
            hour).

        Raises
        ------
        dealframe.errors.ConfigurationError
            Another process has held the file's write lock for more than :data:`LOCK_WAIT`
            seconds (nothing is deleted; ``field`` is ``cache_path``).
        dealframe.errors.ValidationError
            ``expired`` is not True or False, or given by position; another keyword
            (:class:`~dealframe.errors.UnknownArgumentError`, with the closest). Nothing is
            deleted.

        Examples
        --------
        >>> client.cache.clear(expired=True)  # doctest: +SKIP
        >>> client.cache.info()["entries"]  # doctest: +SKIP
        12
        """
        expired = flag(expired, "expired")
        backend = self._backend()
        if backend is None:
            return
        try:
            _writable(self.path, LOCK_WAIT)  # requests-cache would wait for it without end
        except sqlite3.OperationalError as exc:
            raise ConfigurationError(
                f"cannot clear the HTTP cache at {self.path}: {exc}; try again once it is done",
                field="cache_path",
            ) from None
        if expired:
            backend.clear_expired()
        else:
            backend.clear()
        _tighten(self.path)

    def _stored(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        body: bytes | None,
        auth: Any,
        expire: float | None = None,
    ) -> Any:
        """The fresh stored response to this request (a requests-cache ``CachedResponse``), or
        None; reads the SQLite file only, sends nothing. With ``expire`` (seconds, the
        asking client's expiry for the request's kind) an entry older than that is not fresh,
        whatever expiry it was written with.

        The key is the session's own (:func:`namespaced_key` of the request as it would be
        prepared), so an entry written by a normal request is found here and vice versa.
        Its body is not checked here: the transport judges it as it judges any stored answer
        (one that fails its checks is deleted, said in a warning, and asked of the service).
        """
        backend = self._backend()
        if backend is None:
            return None
        request = requests.PreparedRequest()
        request.prepare_method(method)
        request.prepare_url(url, params)
        request.prepare_headers({})
        request.body = body
        if auth is not None:
            request = auth(request)
        key = namespaced_key(request)
        found = backend.get_response(key)
        if found is None or found.is_expired or found.status_code != 200:
            return None
        if expire is not None and found.is_older_than(expire):
            return None
        found.cache_key = key
        return found

    def _delete(self, *keys: str | None) -> None:
        """Drop entries (stored answers that turned out not to keep the contract)."""
        backend = self._backend()
        keys = tuple(k for k in keys if k)
        if backend is not None and keys:
            backend.delete(*keys, vacuum=False)  # a VACUUM would hold the file for long

    def _seen(self, key: str | None) -> None:
        """Note that a request read or wrote the entry ``key`` (see :func:`forget_since`)."""
        if not key or not self.enabled:
            return
        thread = None if on_worker() else threading.get_ident()
        with _SEEN_LOCK:
            _SEEN.append((next(_SEEN_NUMBERS), thread, weakref.ref(self), key))

    def _after_request(self, *, warn: bool = True) -> None:
        """After a request that used the cache: apply 0o600 to the SQLite file and its WAL/SHM
        side files once they exist, and warn once that answers are not stored while another
        process keeps the file locked (:class:`BoundedSQLiteCache`).

        The warning points at the user's line, so it is given on the caller's thread:
        ``warn=False`` (a request on a worker thread) keeps it for the next call with
        ``warn=True`` (the transport makes one when a multi-request call returns). Turned
        into an error (``-W error``), it is logged on ``dealframe.transport`` instead: raising
        it would lose the answer in hand.
        """
        if not self.enabled:
            return
        if not self._tight:
            _tighten(self.path)
            self._tight = Path(f"{self.path}-wal").exists() and Path(f"{self.path}-shm").exists()
        backend = self._backend()
        if not warn or not isinstance(backend, BoundedSQLiteCache):
            return
        said = backend.take_unsaved()
        if said is not None:
            try:
                warnings.warn(said, DealframeWarning, stacklevel=user_stacklevel())
            except Warning:
                logger.warning("%s", said)
