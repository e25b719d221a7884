"""What ``dealframe pull`` can pull: every list and sub-collection, by one name each.

Each entity says which family it belongs to, how it is called on a client, and which
flags it takes: Family B lists take the filters of their discovery document; sub-collections
take ``--id``; Family A takes its search filters (and ``current`` also ``--sku``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dealframe.arguments import checked_keywords
from dealframe.errors import ValidationError, did_you_mean
from dealframe.frames.public import current_frame

__all__ = ["ENTITIES", "PUBLIC_FILTERS", "Entity", "entity"]


@dataclass(frozen=True)
class Entity:
    """One pullable thing.

    Attributes
    ----------
    name : str
        The command-line name (``deals``, ``co-investors`` ...).
    kind : {"list", "sub", "public"}
        A Family B list (discovery filters), a Family B sub-collection (``--id``), or
        Family A (search filters).
    resource : str
        The discovery document of a list (``transactions`` ...) or the parent of a
        sub-collection (``companies``/``investors``).
    call : callable
        ``call(client, **arguments) -> DataFrame``.
    help : str
        One line for ``--help``.

    Examples
    --------
    >>> e = entity("co_investors")  # by name or alias
    >>> e.name, e.kind, e.resource
    ('co-investors', 'sub', 'investors')
    >>> e.help
    'investors sharing deals with the investors given by --id'

    What ``dealframe pull deals --deal-type Venture --limit 5`` calls:

    >>> import dealframe, dealframe.sandbox
    >>> deals = entity("deals")
    >>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as client:
    ...     frame = deals.call(client, filters={"deal_type": ["Venture"]}, sort=None, limit=5,
    ...                        progress=False)
    >>> len(frame), frame["deal_type"].unique().tolist()
    (5, ['Venture'])
    """

    name: str
    kind: str
    resource: str
    call: Callable[..., pd.DataFrame]
    help: str


def _list(method: str) -> Callable[..., pd.DataFrame]:
    def call(
        client: Any,
        *,
        filters: dict[str, Any],
        sort: str | None,
        limit: int | None,
        progress: bool | None,
    ) -> pd.DataFrame:
        return getattr(client.private, method)(filters, sort=sort, limit=limit, progress=progress)

    return call


def _sub(method: str) -> Callable[..., pd.DataFrame]:
    def call(
        client: Any, *, ids: list[str], limit: int | None, progress: bool | None
    ) -> pd.DataFrame:
        return getattr(client.private, method)(ids, limit=limit, progress=progress)

    return call


def _search(
    client: Any, *, filters: dict[str, Any], skus: list[str], progress: bool | None
) -> pd.DataFrame:
    return client.public.search(**filters)


def _current(
    client: Any, *, filters: dict[str, Any], skus: list[str], progress: bool | None
) -> pd.DataFrame:
    wanted = skus or list(client.public.search(**filters).index)
    if not wanted:  # filters that select no company: the header only, as an unknown --sku
        return current_frame([])
    return client.public.current(wanted, progress=progress)


#: Every entity, by command-line name.
ENTITIES: dict[str, Entity] = {
    e.name: e
    for e in (
        Entity(
            "companies",
            "list",
            "companies",
            _list("companies"),
            "companies (Family B list; discovery filters)",
        ),
        Entity(
            "investors",
            "list",
            "investors",
            _list("investors"),
            "investors (Family B list; discovery filters)",
        ),
        Entity(
            "deals",
            "list",
            "transactions",
            _list("deals"),
            "deals: funding rounds and M&A (Family B list; discovery filters)",
        ),
        Entity(
            "fundings",
            "sub",
            "companies",
            _sub("fundings"),
            "funding rounds of the companies given by --id",
        ),
        Entity(
            "sellside",
            "sub",
            "companies",
            _sub("sellside"),
            "M&A deals where the companies given by --id are the target",
        ),
        Entity(
            "buyside",
            "sub",
            "companies",
            _sub("buyside"),
            "deals the companies given by --id bought or led",
        ),
        Entity(
            "company-investors",
            "sub",
            "companies",
            _sub("company_investors"),
            "investors in the funding rounds of the companies given by --id",
        ),
        Entity(
            "investments",
            "sub",
            "investors",
            _sub("investments"),
            "deals the investors given by --id led or bought",
        ),
        Entity(
            "co-investors",
            "sub",
            "investors",
            _sub("co_investors"),
            "investors sharing deals with the investors given by --id",
        ),
        Entity(
            "portfolio",
            "sub",
            "investors",
            _sub("portfolio"),
            "companies the investors given by --id backed",
        ),
        Entity(
            "search",
            "public",
            "companies",
            _search,
            "listed companies (Family A search; --regions, --industries ...)",
        ),
        Entity(
            "current",
            "public",
            "companies",
            _current,
            "current data of listed companies (--sku, or the search filters)",
        ),
    )
}
_ALIASES = {
    "transactions": "deals",
    "co_investors": "co-investors",
    "company_investors": "company-investors",
    "public-current": "current",
    "comps": "current",
}

#: Family A search filters as flags: flag name -> (keyword of ``client.public.search``, kind).
PUBLIC_FILTERS: dict[str, tuple[str, str]] = {
    "industries": ("industries", "list"),
    "themes": ("themes", "list"),
    "regions": ("regions", "list"),
    "countries": ("countries", "list"),
    "enterprise-value-above": ("enterprise_value_above", "number"),
}


@checked_keywords
def entity(name: str) -> Entity:
    """The entity called ``name`` (or one of its aliases).

    Parameters
    ----------
    name : str
        A name of :data:`ENTITIES` (``"deals"``, ``"co-investors"`` ...) or an alias
        (``"transactions"``, ``"co_investors"`` ...).

    Raises
    ------
    dealframe.errors.ValidationError
        Naming ``name`` (``ENTITY`` in ``dealframe pull``), with the closest name and the
        list.

    Examples
    --------
    >>> entity("transactions").name
    'deals'
    >>> entity("deal")
    Traceback (most recent call last):
    ...
    dealframe.errors.ValidationError: invalid name: expected one of companies, investors, deals, fundings, sellside, buyside, company-investors, investments, co-investors, portfolio, search, current (did you mean 'deals'?), got 'deal'
    """
    key = _ALIASES.get(name, name) if isinstance(name, str) else name
    if isinstance(key, str) and key in ENTITIES:
        return ENTITIES[key]
    names = list(ENTITIES)
    hint = did_you_mean(name, names + list(_ALIASES)) if isinstance(name, str) else ""
    raise ValidationError("name", f"one of {', '.join(names)}{hint}", got=name)
