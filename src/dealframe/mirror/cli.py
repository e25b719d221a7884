"""``dealframe mirror sync PATH``, ``dealframe mirror status PATH``, ``dealframe mirror compact PATH``.

Examples
--------
::

    dealframe mirror sync ./mirror                      # DEALFRAME_BASE_URL / DEALFRAME_PRIVATE_KEY
    dealframe mirror sync ./mirror --sandbox --scale 0.1
    dealframe mirror status ./mirror
    dealframe mirror compact ./mirror                   # one row per id per folder (plain globs)
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from ..errors import DealframeError
from ..sandbox import SandboxExtraMissing, SandboxStartError, embedded
from .schema import ENTITIES

__all__ = ["register"]


@contextlib.contextmanager
def _client(args: argparse.Namespace) -> Iterator[Any]:
    from ..client import Client

    if not args.sandbox:
        with Client() as client:
            yield client
        return
    try:
        with embedded(args.scale, args.seed) as sb, Client.for_sandbox(sb) as client:
            yield client
    except (SandboxExtraMissing, SandboxStartError) as exc:
        raise DealframeError(f"--sandbox: {exc}") from None


def _sync(args: argparse.Namespace) -> int:
    from .sync import sync

    progress = False if args.no_progress else None
    with _client(args) as client:
        report = sync(client, args.path, args.entities or ENTITIES, overlap=args.overlap,
                      progress=progress, lock_timeout=args.lock_timeout)
    for r in report.entities.values():
        kind = "full" if r.full else f"since {r.since}"
        print(f"{r.entity:<10} {kind}: {r.rows_received:,} rows read in {r.requests} requests, "
              f"{r.rows_written:,} rows written, checkpoint {r.checkpoint} ({r.seconds:.1f} s)")
    return 0


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def _status(args: argparse.Namespace) -> int:
    from .read import status

    frame = status(args.path)
    print(f"mirror {frame.attrs['path']} (schema version {frame.attrs['schema_version']}, "
          f"{frame.attrs['syncs']} syncs)")
    print(f"{'entity':<10} {'rows':>10} {'live':>10} {'deleted':>8} {'files':>5} {'deltas':>6} "
          f"{'size':>9}  {'checkpoint':<26} last sync")
    for row in frame.itertuples():
        print(f"{row.entity:<10} {row.rows:>10,} {row.live:>10,} {row.deleted:>8,} {row.files:>5} "
              f"{row.delta_files:>6} {_size(row.bytes):>9}  {row.checkpoint or '-':<26} "
              f"{row.last_sync or '-'}")
    return 0


def _compact(args: argparse.Namespace) -> int:
    from .compact import compact

    written = compact(args.path, args.entities or ENTITIES, lock_timeout=args.lock_timeout)
    for entity, rows in written.items():
        print(f"{entity:<10} " + (f"{rows:,} rows rewritten as one generation" if rows
                                  else "already one generation"))
    return 0


def _guard(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except DealframeError as exc:
            print(f"dealframe mirror: {exc}", file=sys.stderr)
            return 1
    return run


def register(subparsers: Any) -> None:
    """Add ``mirror sync``, ``status`` and ``compact`` to the ``dealframe`` command's subparsers."""
    mirror = subparsers.add_parser("mirror", help="a local Parquet mirror of the private data")
    sub = mirror.add_subparsers(dest="action", required=True)
    s = sub.add_parser("sync", help="bring the mirror at PATH up to date (first run: everything)")
    s.add_argument("path", metavar="PATH", help="mirror folder (new or empty on the first sync)")
    s.add_argument("--entities", nargs="+", choices=ENTITIES, help="default: all three")
    s.add_argument("--sandbox", action="store_true",
                   help="sync from an embedded sandbox instead of DEALFRAME_BASE_URL")
    s.add_argument("--scale", type=float, default=0.1, help="sandbox data scale (default 0.1)")
    s.add_argument("--seed", type=int, default=7, help="sandbox seed (default 7)")
    s.add_argument("--overlap", type=float, default=300.0,
                   help="seconds re-read before the checkpoint (default 300)")
    s.add_argument("--lock-timeout", type=float, default=60.0,
                   help="seconds to wait for another sync of PATH (default 60)")
    s.add_argument("--no-progress", action="store_true", help="no progress bars")
    s.set_defaults(run=_guard(_sync))
    st = sub.add_parser("status", help="rows, deletes, checkpoint, last sync and size per entity")
    st.add_argument("path", metavar="PATH", help="mirror folder")
    st.set_defaults(run=_guard(_status))
    c = sub.add_parser("compact", help="fold the delta files into the base (one row per id)")
    c.add_argument("path", metavar="PATH", help="mirror folder")
    c.add_argument("--entities", nargs="+", choices=ENTITIES, help="default: all three")
    c.add_argument("--lock-timeout", type=float, default=60.0,
                   help="seconds to wait for a running sync of PATH (default 60)")
    c.set_defaults(run=_guard(_compact))
