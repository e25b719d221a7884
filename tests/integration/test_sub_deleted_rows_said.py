"""Sub-collection rows served with ``deleted: true`` are kept and said, over HTTP.

The interface document (section 3) hides a soft-deleted entity from reads that do not ask
for deleted records, and a sub-collection cannot ask (it takes no ``include_deleted``). The
sandbox serves live deals only; the drift proxy marks rows deleted, as a service that does
not hide them would. The client kept them without a word; it now keeps them and says them in
a ``deleted_served`` finding naming their ids (``strict=True`` raises).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    direct,
    edit,
    fresh,
    fresh_rules,
    proxy,
)

from dealframe.errors import ServiceContractError
from dealframe.notices import ServiceContractWarning

P = "/api/private/v1"


def first_row_deleted(doc: Any) -> Any:
    if doc.get("data"):
        doc["data"][0]["deleted"] = True
    return doc


@pytest.fixture(scope="module")
def investors(direct: Any) -> list[str]:
    return direct.private.investors(limit=3)["id"].tolist()


@pytest.fixture(scope="module")
def companies(direct: Any) -> list[str]:
    return direct.private.deals(deal_type=["Venture"], limit=3)["target_id"].tolist()


def test_deleted_investments_are_kept_and_named(fresh: Any, proxy: Any, investors: Any) -> None:
    proxy.add(rf"^{P}/investors/[^/]+/investments$", edit(first_row_deleted))
    with pytest.warns(ServiceContractWarning, match="soft-deleted") as said:
        frame = fresh.private.investments(investors)
    deleted = frame.loc[frame["deleted"].astype(bool), "id"].tolist()
    assert len(deleted) == len(investors)  # each investor's first row: kept
    message = str(said[0].message)
    assert f"{len(deleted)} of {len(frame)} investments rows are soft-deleted" in message
    assert all(ident in message for ident in deleted)
    assert "takes no include_deleted" in message
    (finding,) = [f for f in frame.attrs["findings"] if f["kind"] == "deleted_served"]
    assert deleted[0] in finding["message"]


def test_deleted_fundings_raise_under_strict(fresh: Any, proxy: Any, companies: Any) -> None:
    proxy.add(rf"^{P}/companies/[^/]+/fundings$", edit(first_row_deleted))
    with pytest.raises(ServiceContractError, match="fundings rows are soft-deleted") as caught:
        fresh.private.fundings(companies, strict=True)
    assert caught.value.finding == "deleted_served"


def test_live_rows_say_nothing(fresh: Any, proxy: Any, companies: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ServiceContractWarning)
        frame = fresh.private.fundings(companies)
    assert len(frame) and not frame["deleted"].any()
    assert not [f for f in frame.attrs["findings"] if f["kind"] == "deleted_served"]
