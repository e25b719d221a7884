"""``dealframe pull ENTITY [filters as flags] -o FILE``.

Examples
--------
::

    dealframe pull deals --deal-type Venture,Growth --target-region "Western Europe" -o d.parquet
    dealframe pull companies --country GBR --verticals Fintech -o uk-fintech.xlsx
    dealframe pull investments --id 0b6f5a1e-... -o investments.csv
    dealframe pull current --regions "North America" -o comps.xlsx --sandbox --scale 0.1

Everything is checked before the pull starts (the entity, every filter and its values,
the file's extension and folder), with the closest valid name on a typo; with ``--sandbox``
even before the sandbox starts. Against a service, a value the interface document's types
refuse (a date, number, UUID, ISO-3 code ...) is refused before any request, the flag named;
then the service's discovery document decides what only it knows (filter names beyond the
interface document's, operators, enum values), before any data is requested, as the Python
API checks them. Progress goes to standard error, the path written to
standard output; page bars are drawn only when standard error is a terminal. Exit status
as for every sub-command (docs/errors.md): 0 written, 1 the pull failed (the service, the
network, the disk), 2 the command cannot work as given (a bad entity, filter, value or file,
no or an insecure service configuration, a missing extra).
"""

from __future__ import annotations

import argparse
import contextlib
import textwrap
import time
from typing import Any

from dealframe._vocab import SUBCOLLECTION_LIMIT_MAX
from dealframe._wording import counted
from dealframe.cli_options import Parser, positive_int, whole_from
from dealframe.clitools import (
    EXIT_OK,
    UsageError,
    add_sandbox_options,
    say,
    service_client,
)
from dealframe.errors import DealframeError, ExtraMissing, ValidationError, renamed
from dealframe.private.filters import documented_schema, service_decides
from dealframe.private.ids import check_ids

from .entities import ENTITIES, PUBLIC_FILTERS, Entity, entity
from .flags import (
    checked_sort,
    flag_name,
    public_filters,
    public_skus,
    schema_filters,
    tokens_to_values,
    unknown_flag,
)
from .output import Output, check_output, write_frame

__all__ = ["register"]

_PREFIX = "dealframe pull"


#: One example command line per entity, for its ``--help``.
_EXAMPLES = {
    "companies": "--country GBR --verticals Fintech --sort founded:desc -o uk.parquet",
    "investors": "--country USA --sort name:asc -o investors.csv",
    "deals": '--deal-type Venture,Growth --target-region "Western Europe" '
    "--date-from 2024-01-01 -o rounds.xlsx",
    "search": '--regions "North America" --industries Fintech -o listed.csv',
    "current": '--regions "North America" -o comps.xlsx',
}

#: A sort of each list, for its ``--help``.
_SORTS = {"companies": "founded:desc", "investors": "name:asc", "deals": "deal_date:desc"}


def _takes(thing: Entity) -> str:
    """What ``thing`` takes besides the common options, for its ``--help`` (docs/pull.md,
    "Entities")."""
    many = "a list filter takes several values, repeated or comma-separated"
    if thing.kind == "sub":
        return (
            f"Takes --id (one or more {thing.resource}) and --limit (rows per id); no "
            "filters and no --sort."
        )
    search = ", ".join(flag_name(f) for f in PUBLIC_FILTERS)
    if thing.kind == "public":
        if thing.name == "current":
            return (
                "The companies: --sku (repeated or comma-separated), or the search filters "
                f"{search} (the companies they select); not both."
            )
        return f"Filters: {search}; {many}."
    schema = documented_schema(thing.resource)
    return (
        f"Filters: those of the service's discovery document for {thing.resource}, as flags "
        f"(filter_name: --filter-name); {many}; a flag alone means true. The interface "
        f"document lists {', '.join(map(flag_name, schema.fields))}; sort keys "
        f"{', '.join(schema.sort_fields)}."
    )


def _options(name: str) -> argparse.ArgumentParser:
    """The options of ``dealframe pull NAME``: the common ones, and only those of the entity
    (the others stay known, hidden from ``--help``, so that giving one says why it is refused)."""
    thing = ENTITIES[name]
    kind = thing.kind
    example = _EXAMPLES.get(name) or f"--id 0b6f5a1e-... --id 9c1e22d0-... -o {name}.csv"
    p = Parser(
        prog=f"{_PREFIX} {name}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill(f"{thing.help}. {_takes(thing)}", 78, break_on_hyphens=False),
        epilog=f"example:\n  {_PREFIX} {name} {example}",
    )

    def shown(takes: bool, text: str) -> str:
        return text if takes else argparse.SUPPRESS

    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="file to write: .parquet, .csv or .xlsx",
    )
    p.add_argument(
        "--id",
        action="append",
        default=[],
        metavar="UUID",
        help=shown(
            kind != "public",
            f"the {thing.resource} whose {name} to pull (repeat for several)"
            if kind == "sub"
            else "the id filter (repeat for several)",
        ),
    )
    p.add_argument(
        "--sku",
        action="append",
        default=[],
        help=shown(name == "current", "v2 SKUs of the companies (repeat, or comma-separate)"),
    )
    p.add_argument(
        "--sort",
        help=shown(kind == "list", f"sort key and direction, e.g. {_SORTS.get(name, 'name:asc')}"),
    )
    p.add_argument(
        "--limit",
        # a sub-collection's: the interface document's 1..1000, refused as any bad number is
        type=whole_from(1, SUBCOLLECTION_LIMIT_MAX) if kind == "sub" else positive_int,
        help=shown(
            kind != "public",
            f"cap on rows per id, 1 to {SUBCOLLECTION_LIMIT_MAX:,} (default: every row)"
            if kind == "sub"
            else "cap on rows",
        ),
    )
    add_sandbox_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress on standard error")
    return p


class _Plan:
    """A checked pull: what to call and with what."""

    def __init__(
        self,
        thing: Entity,
        args: argparse.Namespace,
        values: dict[str, list[str]],
        output: Output,
        known: frozenset[str] = frozenset(),
    ) -> None:
        self.entity, self.args, self.values, self.output = thing, args, values, output
        self.known = known  # the command's own options: did-you-mean for a filter flag
        self.filters: dict[str, Any] = {}
        self.ids: list[str] = []
        self.skus: list[str] = []

    def check_offline(self) -> None:
        """Every check that needs no service (all of them, with --sandbox)."""
        args, kind = self.args, self.entity.kind
        if args.sku and self.entity.name != "current":
            raise ValidationError(
                "--sku", f"nothing for {self.entity.name} (only current takes SKUs)"
            )
        if kind == "sub":
            if not args.id:
                raise ValidationError(
                    "--id",
                    f"one or more ids: {self.entity.name} is a "
                    f"sub-collection of {self.entity.resource}",
                )
            if self.values or args.sort:
                first = next(iter(self.values), None)
                flag = f"--{first}" if first else "--sort"
                said = unknown_flag(flag, (), self.known) if first else flag
                raise ValidationError(
                    flag if said else "filters",  # a word no option is close to: not quoted
                    f"nothing: {self.entity.name} takes --id and --limit only",
                )
            self.ids = check_ids(args.id, "--id")
        elif kind == "public":
            for flag, value in (("--id", args.id), ("--sort", args.sort), ("--limit", args.limit)):
                if value:
                    raise ValidationError(
                        flag,
                        f"nothing: {self.entity.name} takes the search "
                        "filters" + (" and --sku" if self.entity.name == "current" else ""),
                    )
            self.filters = public_filters(self.values, self.known)
            self.skus = public_skus(args.sku)
            if args.sku and self.values:
                given = ", ".join(f"--{name}" for name in self.values)
                raise UsageError(
                    f"--sku cannot be used with {given}: give the companies as SKUs "
                    "or as search filters, not both"
                )
        else:
            if args.id:
                self.values = {**self.values, "id": [*self.values.get("id", []), *args.id]}
            schema = documented_schema(self.entity.resource)
            if args.sandbox:  # the sandbox serves the discovery documents as written
                self.filters = schema_filters(
                    self.values, schema, entity=self.entity.name, options=self.known
                )
                checked_sort(schema, args.sort)
                return
            # against a service, its discovery document decides (check_with); a slip of the
            # command's own option (--limt), or a sort of the wrong form, is said before a
            # service is needed
            checked_sort(None, args.sort)
            documented = {flag_name(field) for field in schema.fields}
            for name in self.values:
                flag = "--" + name
                said = unknown_flag(flag, (), self.known)
                if flag_name(name) not in documented and said and said != flag:
                    raise ValidationError(
                        flag, f"an option of pull {self.entity.name}{said[len(flag) :]}"
                    )

    def check_with(self, client: Any) -> None:
        """The checks of a list's filters, as the Python API makes them
        (:func:`~dealframe.private.filters.service_decides`): what the interface document's
        types refuse first, before any request; then the service's own discovery document for
        what only it knows (filter names beyond the interface document's, enum values)."""
        if self.entity.kind != "list":
            return
        resource, values, name = self.entity.resource, self.values, self.entity.name
        known = self.known
        schema, self.filters = service_decides(
            lambda again, retries: client.private.schema(resource, refresh=again, retries=retries),
            lambda served: schema_filters(values, served, entity=name, options=known),
            lambda: schema_filters(
                values, documented_schema(resource), known_only=True, entity=name
            ),
        )
        checked_sort(schema, self.args.sort)

    def pull(self, client: Any, progress: bool | None) -> Any:
        """Call the client."""
        kind = self.entity.kind
        if kind == "list":
            return self.entity.call(
                client,
                filters=self.filters,
                sort=self.args.sort,
                limit=self.args.limit,
                progress=progress,
            )
        if kind == "sub":
            return self.entity.call(client, ids=self.ids, limit=self.args.limit, progress=progress)
        return self.entity.call(client, filters=self.filters, skus=self.skus, progress=progress)


def _run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:
        thing = entity(args.entity)
    except ValidationError as exc:  # named as the command line names it
        raise renamed(exc, "ENTITY") from None
    parser = _options(thing.name)
    options, rest = parser.parse_known_args(args.rest)
    # the options of every dealframe command, as the command line that runs this one gives them
    every: frozenset[str] = getattr(args, "every_option", frozenset())
    known = every | {s for action in parser._actions for s in action.option_strings}
    try:
        output = check_output(options.output)
    except ExtraMissing as exc:
        raise UsageError(exc) from None
    except ValidationError as exc:
        raise renamed(exc, "-o") from None
    plan = _Plan(thing, options, tokens_to_values(rest, known), output, known)
    plan.check_offline()
    made = output.creates  # checked by check_output; created when the file is written
    log = (lambda line: None) if options.quiet else say
    bars = False if options.quiet else None  # page bars only on a terminal, never with --quiet
    try:
        # the client's own default too, not only the pull's: a call given progress=None
        # takes the client's setting, which service_client makes False unless told
        with service_client(options, log, progress=bars) as client:
            plan.check_with(client)
            log(f"pulling {thing.name} ...")
            frame = plan.pull(client, progress=bars)
            requests = frame.attrs.get("requests")
            log(
                f"      {thing.name}: {counted(len(frame), 'row')} in "
                + (counted(requests, "request") if requests is not None else "? requests")
                + f" ({time.perf_counter() - started:.1f} s)"
            )
            path = write_frame(frame, plan.output)
    except BaseException as exc:  # a failed pull leaves no folder it made behind
        for folder in made:  # deepest first; a folder that is not empty stays
            with contextlib.suppress(OSError):
                folder.rmdir()
        if isinstance(exc, OSError):
            raise DealframeError(f"cannot write {output.path}: {exc.strerror or exc}") from None
        if isinstance(exc, ValidationError) and exc.argument == "output":  # write_frame's
            raise renamed(exc, "-o") from None
        raise
    log(
        f"{_PREFIX}: wrote {counted(len(frame), 'row')} to {path} in "
        f"{time.perf_counter() - started:.1f} s"
    )
    print(path, flush=True)
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add ``pull`` to the ``dealframe`` command's subparsers."""
    names = ", ".join(ENTITIES)
    p = subparsers.add_parser(
        "pull",
        help="any list or sub-collection to .parquet, .csv or .xlsx",
        usage=f"{_PREFIX} ENTITY [--FILTER VALUE ...] [--id UUID ...] -o FILE [--sandbox]",
        description=f"Pull a list or sub-collection into a file. ENTITY: {names}. "
        f"'{_PREFIX} ENTITY --help' lists the options of an entity. Exit status: 0 "
        "written, 1 the pull failed, 2 bad command.",
    )
    p.add_argument("entity", metavar="ENTITY", help=names)
    # named as what the user must give after ENTITY, for argparse's "arguments are
    # required" (``dealframe pull`` alone): "ENTITY, -o/--output", not an internal name
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="-o/--output", help=argparse.SUPPRESS)
    p.set_defaults(run=_run)
