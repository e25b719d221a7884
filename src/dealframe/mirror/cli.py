"""``dealframe mirror sync|status|history|compact|snapshot-public PATH``.

Every option is checked when the command line is parsed (:mod:`dealframe.cli_options`), and
PATH (a mirror, or a folder that can become one) before the sandbox of ``--sandbox`` starts:
a typo costs nothing. Exit status as for every sub-command (docs/errors.md): 0 done, 1 the
run failed, 2 bad usage (an option, a PATH that is no mirror or cannot become one, a mirror of
a schema version the command does not read: ``mirror sync`` migrates version 2) or
configuration.

Examples
--------
::

    dealframe mirror sync ./mirror                      # DEALFRAME_BASE_URL / DEALFRAME_PRIVATE_KEY
    dealframe mirror sync ./mirror --sandbox --scale 0.1
    dealframe mirror status ./mirror
    dealframe mirror history ./mirror --entity deals    # versions to give load(..., as_of=)
    dealframe mirror compact ./mirror --keep-versions 30
    dealframe mirror snapshot-public ./mirror --region "Western Europe" --sandbox
"""

from __future__ import annotations

import argparse
import contextlib
import warnings
from pathlib import Path
from typing import Any

from dealframe._wording import counted
from dealframe.arguments import expanded_path

from .._vocab import REGIONS
from ..cli_options import (
    Several,
    choice,
    countries,
    day,
    looks_like_codes,
    looks_like_skus,
    non_negative,
    positive_int,
    skus,
)
from ..clitools import UsageError, add_sandbox_options, check_folder, service_client
from .errors import MirrorDivergenceWarning, MirrorPathError, MirrorVersionError
from .schema import ENTITIES

#: Tables of a mirror (``history --entity``, ``compact --entities``).
TABLES = (*ENTITIES, "public/current", "public/time_series")

__all__ = ["register"]


def _path_ready(
    path: str, *, new: bool = False, migrates: bool = False, writes: bool | str = False
) -> None:
    """Refuse a PATH that holds no mirror (``new``: that cannot become one), or a mirror of a
    schema version this command does not read, now, before a sandbox starts or a request is
    sent; leaves nothing behind.

    A version mismatch is the user's to fix (``mirror sync`` migrates a version-2 mirror; a
    mirror of another version needs a new folder or the dealframe that wrote it): exit
    status 2, as for any PATH the command cannot work with (docs/errors.md). With
    ``migrates`` (``mirror sync``), a version-2 mirror is accepted: the sync migrates it.
    With ``writes`` (every command that takes the mirror's lock), a folder, marker or lock
    file flagged ``chattr +i``/``+a`` is refused too (root is not stopped by permissions);
    ``writes="lock"`` (``compact``): the folder and lock file only, the marker is kept.

    Raises
    ------
    UsageError
        PATH is a file, holds no mirror (or, ``new``, cannot hold one), its mirror's
        schema version is not one this command reads, or (``writes``) a file it rewrites in
        place is flagged to be kept (the message says how to fix it).
    dealframe.errors.ValidationError
        PATH's absolute form holds a percent escape such as ``%20`` or a character deltalake
        cannot keep in a path (``#``, ``?``, ``[`` ..., see ``folder_path``), new or not.
    """
    from .state import check_writable, read_state
    from .sync import _usable_marker, folder_path, open_folder

    folder_path(path)  # a percent escape, '#' ... (ValidationError, exit status 2), even new
    try:
        if new and not expanded_path(path, "PATH").exists():
            _can_create(check_folder(path, "PATH"))
            return
        # a corrupt marker stays a MirrorStateError (exit 1); a version-2 one passes only
        # for the sync, which migrates it
        root = open_folder(path, create=new)
        (_usable_marker if migrates else read_state)(root)
        if new:  # written in: its state file is replaced by a rename, as the probe is
            check_folder(path, "PATH")
        if writes:  # its marker and lock file are written in place: flags refused now
            check_writable(root, marker=writes != "lock")
    except (MirrorPathError, MirrorVersionError) as exc:
        raise UsageError(exc) from None


def _can_create(missing: list[Path]) -> None:
    """Make the ``missing`` folders (deepest last) and remove them again: write permission
    does not tell, on a file system such as ``/proc`` or a read-only mount.

    Raises
    ------
    MirrorPathError
        The operating system refused one, with its reason.
    """
    made: list[Path] = []
    try:
        for folder in reversed(missing):
            folder.mkdir(mode=0o700)
            made.append(folder)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise MirrorPathError(f"{missing[0]} cannot hold a mirror: {reason}") from None
    finally:
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()


def _sync(args: argparse.Namespace) -> int:
    from .sync import sync

    progress = False if args.no_progress else None
    _path_ready(args.path, new=True, migrates=True, writes=True)
    report = None
    held: list[warnings.WarningMessage] = []
    try:
        with service_client(args, progress=None) as client:
            with warnings.catch_warnings(record=True) as caught:
                # the report's lines below say each divergence (stamped ahead, counts): once
                warnings.simplefilter("ignore", MirrorDivergenceWarning)
                try:
                    report = sync(
                        client,
                        args.path,
                        args.entities or ENTITIES,
                        overlap=args.overlap,
                        progress=progress,
                        lock_timeout=args.lock_timeout,
                        repair=args.repair,
                        allow_other_source=args.allow_other_source,
                    )
                finally:
                    held = list(caught)
    finally:  # said as they came, but those the report's lines below say: once, there
        for w in held:
            if report is None or not _in_report(str(w.message), report):
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    assert report is not None
    for r in report.entities.values():
        kind = "full" if r.full else f"since {r.since}"
        print(
            f"{r.entity:<10} {kind}: {counted(r.rows_received, 'row')} read in "
            f"{counted(r.requests, 'request')}, {counted(r.rows_written, 'row')} written, "
            f"version {r.version}, checkpoint {_shown(r.checkpoint)} "
            f"({r.seconds:.1f} s)"
        )
        if r.repaired:
            print(f"{'':<10} rebuilt: {r.repaired}")
        notes = (r.page_size_refused, r.page_from_0, r.page_asked_again, r.filter_strict)
        said = (r.fields_absent, r.fields_null, r.fields_not_mirrored)
        for note in (*notes, r.stamped_ahead, r.rows_differ, *said):
            if note:
                print(f"{'':<10} {note}")
    return 0


def _in_report(message: str, report: Any) -> bool:
    """Whether ``message``, a warning of the sync, is a finding the report's lines print under
    its entity (``fields_absent``, ``fields_null``, ``fields_not_mirrored``: warned as ``the
    change feed of ENTITY: ...``), so that it is printed once."""
    for r in report.entities.values():
        head = f"the change feed of {r.entity}: "
        if not message.startswith(head):
            continue
        text = message.removeprefix(head)
        if text in (r.fields_null, r.fields_not_mirrored) or text in (r.fields_absent or ""):
            return True
    return False


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def _status(args: argparse.Namespace) -> int:
    from .read import status

    _path_ready(args.path)
    frame = status(args.path)
    print(
        f"{frame.attrs['path']}: schema version {frame.attrs['schema_version']}, "
        f"{frame.attrs['syncs']} syncs, source {frame.attrs['source'] or 'not recorded'}"
    )
    print(
        f"{'entity':<10} {'rows':>10} {'live':>10} {'deleted':>8} {'version':>7} {'files':>5} "
        f"{'size':>9}  {'checkpoint':<26} last sync"
    )
    for row in frame.itertuples():
        if _missing(row.version):  # no table yet: its row, a dash in every column
            rows, live, deleted, version, files, size = ("-",) * 6
        else:
            rows, live, deleted = f"{row.rows:,}", f"{row.live:,}", f"{row.deleted:,}"
            version, files, size = str(row.version), str(row.files), _size(row.bytes)
        print(
            f"{row.entity:<10} {rows:>10} {live:>10} {deleted:>8} {version:>7} {files:>5} "
            f"{size:>9}  {_shown(row.checkpoint):<26} {_shown(row.last_sync)}"
        )
    return 0


def _missing(value: Any) -> bool:
    """Whether a cell is NA."""
    import pandas as pd  # loaded by the frame's reader already; not at start-up

    return bool(pd.isna(value))


def _shown(text: Any) -> str:
    """A text cell as printed: ``-`` for a missing one."""
    import pandas as pd  # loaded by the frame's reader already; not at start-up

    return "-" if pd.isna(text) else str(text)


def _history(args: argparse.Namespace) -> int:
    from .read import history

    _path_ready(args.path)
    frame = history(args.path, args.entity)
    print(
        f"{'table':<19} {'version':>7}  {'time (UTC)':<23} {'operation':<9} {'sync':>5} "
        f"{'rows read':>10} {'changed':>10}  checkpoint"
    )

    def num(v: Any) -> str:
        return "-" if v is None or v is Any or str(v) == "<NA>" else f"{int(v):,}"

    for row in frame.itertuples():
        print(
            f"{row.entity:<19} {row.version:>7}  {row.time:%Y-%m-%d %H:%M:%S}.{row.time.microsecond // 1000:03d} "
            f"{row.operation:<9} {num(row.sync):>5} {num(row.rows_received):>10} "
            f"{num(row.rows_changed):>10}  {_shown(row.checkpoint)}"
        )
    return 0


def _compact(args: argparse.Namespace) -> int:
    from .compact import compact
    from .schema import PUBLIC_TABLES
    from .sync import _entities

    _path_ready(args.path, writes="lock")
    done = compact(
        args.path,
        args.entities or ENTITIES,
        lock_timeout=args.lock_timeout,
        keep_versions=args.keep_versions,
        retain_hours=args.retain_hours,
    )
    for name, d in done.items():
        kept = d["versions_kept"]
        print(
            f"{name:<19} {counted(d['files_removed'], 'small file')} rewritten as "
            f"{d['files_added']}, {counted(d['files_deleted'], 'unneeded file')} deleted, "
            f"{counted(kept, 'version')} "
            f"kept (oldest {d['oldest_kept']})"
        )
    for name in _entities(args.entities or ENTITIES, (*ENTITIES, *PUBLIC_TABLES)):
        if name not in done:  # said, not silently skipped
            print(f"{name:<19} no table yet: nothing to compact")
    return 0


def _snapshot(args: argparse.Namespace) -> int:
    from .public import snapshot_public

    filters: dict[str, Any] = {
        k: v
        for k, v in (
            ("regions", args.region),
            ("countries", args.country),
            ("industries", args.industry),
            ("themes", args.theme),
            ("enterprise_value_above", args.ev_above),
        )
        if v is not None
    }
    if bool(args.sku) == bool(filters):
        raise UsageError(
            "give the universe as --sku, or as search options (--region, "
            "--country, --industry, --theme, --ev-above), not "
            f"{'both' if args.sku else 'neither'}"
        )
    _path_ready(args.path, new=True, writes=True)
    with service_client(args, progress=None) as client:
        report = snapshot_public(
            client,
            args.path,
            skus=args.sku,
            date=args.date,
            lock_timeout=args.lock_timeout,
            allow_other_source=args.allow_other_source,
            **filters,
        )
    print(
        f"public/current      {counted(report['companies'], 'company')} on "
        f"{report['snapshot_date']} "
        f"(version {report['current_version']})"
    )
    print(
        f"public/time_series  {counted(report['time_series_rows'], 'monthly value')} "
        f"(version {report['time_series_version']})"
    )
    return 0


def _other_source_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-other-source",
        action="store_true",
        help="write into a mirror synced from another service (merges their records)",
    )


def register(subparsers: Any) -> None:
    """Add ``mirror sync``, ``status``, ``history``, ``compact`` and ``snapshot-public``."""
    mirror = subparsers.add_parser("mirror", help="local Delta tables of the service's data")
    sub = mirror.add_subparsers(dest="action", required=True)
    s = sub.add_parser("sync", help="bring the mirror at PATH up to date (first run: everything)")
    s.add_argument("path", metavar="PATH", help="mirror folder (new or empty on the first sync)")
    s.add_argument(
        "--entities",
        action=Several,
        as_api=True,
        names=ENTITIES,
        metavar="ENTITY[,ENTITY...]",
        help=f"{', '.join(ENTITIES)}: comma- or space-separated, or repeated (default: all)",
    )
    add_sandbox_options(s, scale=0.1)
    s.add_argument(
        "--overlap",
        type=non_negative,
        default=300.0,
        help="seconds re-read before the checkpoint (default 300)",
    )
    s.add_argument(
        "--lock-timeout",
        type=non_negative,
        default=60.0,
        help="seconds to wait for another sync of PATH (default 60)",
    )
    s.add_argument(
        "--repair",
        action="store_true",
        help="read every row of every table first; rebuild any that fails",
    )
    _other_source_option(s)
    s.add_argument("--no-progress", action="store_true", help="no progress bars")
    s.set_defaults(run=_sync)
    st = sub.add_parser("status", help="rows, deletes, version, checkpoint and size per entity")
    st.add_argument("path", metavar="PATH", help="mirror folder")
    st.set_defaults(run=_status)
    h = sub.add_parser("history", help="the versions of each table (give one to load's as_of)")
    h.add_argument("path", metavar="PATH", help="mirror folder")
    h.add_argument("--entity", type=choice(*TABLES, as_api=True), help="one table (default: all)")
    h.set_defaults(run=_history)
    c = sub.add_parser("compact", help="optimize small files and vacuum what no kept version needs")
    c.add_argument("path", metavar="PATH", help="mirror folder")
    c.add_argument(
        "--entities",
        action=Several,
        as_api=True,
        names=TABLES,
        metavar="TABLE[,TABLE...]",
        help="tables: comma- or space-separated, or repeated (default: the three entities)",
    )
    keep = c.add_mutually_exclusive_group()
    keep.add_argument(
        "--keep-versions",
        type=positive_int,
        default=None,
        help="keep the versions of the last N syncs readable (compactions not counted)",
    )
    keep.add_argument(
        "--retain-hours",
        type=non_negative,
        default=None,
        help="keep every version of the last H hours readable (default 168: 7 days)",
    )
    c.add_argument(
        "--lock-timeout",
        type=non_negative,
        default=60.0,
        help="seconds to wait for a running sync of PATH (default 60)",
    )
    c.set_defaults(run=_compact)
    p = sub.add_parser(
        "snapshot-public",
        help="append today's Family A current data for a universe, refresh its monthly time series",
    )
    p.add_argument("path", metavar="PATH", help="mirror folder (or a new one)")
    # the words after a list option are its values while they look like one, so PATH may
    # come first or last (cli_options.Several); free text (--industry) takes every word
    p.add_argument(
        "--sku",
        action=Several,
        type=skus,
        takes=looks_like_skus,
        metavar="SKU[,SKU...]",
        help="the universe as SKUs (repeatable, or several after one flag)",
    )
    p.add_argument(
        "--region",
        action=Several,
        as_api=True,
        names=REGIONS,
        metavar="REGION[,REGION...]",
        help="the universe as a search: regions (repeatable)",
    )
    p.add_argument(
        "--country",
        action=Several,
        type=countries,
        takes=looks_like_codes,
        metavar="CODE[,CODE...]",
        help="... ISO-3 countries (repeatable, or comma-separated as pull takes them)",
    )
    p.add_argument(
        "--industry",
        action=Several,
        metavar="NAME[,NAME...]",
        help="... industries (verticals; repeatable; free text: give PATH first)",
    )
    p.add_argument(
        "--theme",
        action=Several,
        metavar="NAME[,NAME...]",
        help="... themes (repeatable; free text: give PATH first)",
    )
    p.add_argument(
        "--ev-above", type=non_negative, help="... enterprise value above (millions USD)"
    )
    p.add_argument("--date", type=day, help="the snapshot's date (default: today, UTC)")
    _other_source_option(p)
    p.add_argument(
        "--lock-timeout",
        type=non_negative,
        default=60.0,
        help="seconds to wait for a running sync of PATH (default 60)",
    )
    add_sandbox_options(p, scale=0.1)
    p.set_defaults(run=_snapshot)
