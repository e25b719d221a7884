"""Pure shaping: parsed service responses → typed DataFrames.

No I/O happens here. Family A functions keep the service's camelCase names;
Family B functions its snake_case names. Every function returns the same
columns and dtypes whether 0, 1 or N items come back (see
:mod:`dealframe.frames.schemas`), and keeps unknown fields as extra columns.

Examples
--------
>>> from dealframe.frames import deals_frame, explode_participants
>>> deals = deals_frame([])
>>> list(explode_participants(deals).columns)[:3]
['deal_id', 'role', 'participant_id']
"""

from __future__ import annotations

from dealframe.frames.participants import co_investment_edges, explode_participants
from dealframe.frames.private import (
    aggregate_frame,
    co_investors_frame,
    company_investors_frame,
    company_profiles_frame,
    complete_deals,
    deals_frame,
    investor_profiles_frame,
    list_frame,
    list_page_columns,
    lookup_frame,
    portfolio_frame,
    resolve_frames,
    top_countries_frame,
    top_verticals_frame,
)
from dealframe.frames.public import (
    current_frame,
    group_current_frame,
    group_time_series_frame,
    search_frame,
    time_series_long,
    time_series_wide,
)

__all__ = [
    "aggregate_frame",
    "co_investment_edges",
    "co_investors_frame",
    "company_investors_frame",
    "company_profiles_frame",
    "complete_deals",
    "current_frame",
    "deals_frame",
    "explode_participants",
    "group_current_frame",
    "group_time_series_frame",
    "investor_profiles_frame",
    "list_frame",
    "list_page_columns",
    "lookup_frame",
    "portfolio_frame",
    "resolve_frames",
    "search_frame",
    "time_series_long",
    "time_series_wide",
    "top_countries_frame",
    "top_verticals_frame",
]
