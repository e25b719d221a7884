"""Time-series fields served under another spelling of the name asked, over the drift proxy.

``current()`` reads a member written in another case or with separators as the documented
field (``respelled_field``). A time series asked for ``fields=["evRevenueNtm"]`` whose
answer keys its data ``EVREVENUENTM`` was read as no value at all: a frame of no row and a
``missing_field`` naming the field asked, not the member its values came under. Both time
series now read such a member as the field asked, and say so once.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    assert_same,
    direct,
    edit,
    fresh_rules,
    outcome,
    proxy,
    via,
)

from dealframe.notices import ServiceContractWarning

SERIES = "^/api/v2/companies/time-series$"
GROUP_SERIES = "^/api/v1/groups/time-series$"
WINDOW = {"fields": ["evRevenueNtm"], "date_from": "2023-01", "date_to": "2023-12"}


def _upper(member: str) -> Any:
    """Every answer with the keys of each item's ``member`` written in capitals."""

    def apply(doc: Any) -> Any:
        for item in doc["data"]:
            if isinstance(item.get(member), dict):
                item[member] = {key.upper(): value for key, value in item[member].items()}
        return doc

    return edit(apply, f"upper({member})")


def _skus(client: Any) -> list[str]:
    return list(client.public.search(countries=["GBR"]).index[:5])


def test_time_series_reads_a_respelled_field_as_the_field_asked(direct, via, proxy):
    skus = _skus(direct)
    ref = direct.public.time_series(skus, **WINDOW)
    assert len(ref) and ref["evRevenueNtm"].notna().any().any()
    proxy.add(SERIES, _upper("data"))
    o = outcome(lambda: via.public.time_series(skus, **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    assert o.value.attrs["fields_not_held"] == []
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "EVREVENUENTM as evRevenueNtm" in said[0] and "read as the field asked" in said[0]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["respelled_field"]


def test_group_time_series_reads_a_respelled_field_as_the_field_asked(direct, via, proxy):
    ref = direct.public.group_time_series(countries=["GBR"], **WINDOW)
    assert len(ref) and ref["evRevenueNtm"].notna().any()
    proxy.add(GROUP_SERIES, _upper("median"))
    o = outcome(lambda: via.public.group_time_series(countries=["GBR"], **WINDOW))
    assert o.error is None, repr(o.error)
    assert_same(o.value, ref)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "EVREVENUENTM as evRevenueNtm" in said[0], said


def test_without_fields_the_service_names_are_kept_as_served(direct, via, proxy):
    skus = _skus(direct)
    proxy.add(SERIES, _upper("data"))
    o = outcome(lambda: via.public.time_series(skus, date_from="2023-01", date_to="2023-12"))
    assert o.error is None, repr(o.error)
    assert "EVREVENUENTM" in o.value.columns.get_level_values(0)
    assert not [m for m in o.warned(ServiceContractWarning) if "another case" in m]
