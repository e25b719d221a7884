"""A sub-collection of one id answered 404 raises NotFoundError naming every cause a 404 may
have there (no such id, soft-deleted, or no items), in the words of the warning a call with
many ids gives; it used to give the service's words only ("Company not found"), which claim
more than the client knows when a service answers 404 for an id without items."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import dealframe
from dealframe.errors import NotFoundError
from dealframe.notices import MissingDataWarning

NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
CAUSES = "no such id, soft-deleted, or no items, as some services answer"


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.mark.parametrize(
    "call",
    [
        "fundings",
        "sellside",
        "buyside",
        "company_investors",
        "investments",
        "co_investors",
        "portfolio",
    ],
)
def test_one_id_answered_404_names_the_causes_the_warning_of_many_names(client, call):
    method = getattr(client.private, call)
    with pytest.raises(NotFoundError) as caught:
        method(NO_SUCH_ID)
    assert f"a 404 here means {CAUSES}" in str(caught.value)
    assert CAUSES in caught.value.note
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        method([NO_SUCH_ID, NO_SUCH_ID.replace("0000-4000", "0000-4001")])
    said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
    assert len(said) == 1 and f"answered 404 ({CAUSES})" in said[0], said


def test_a_soft_deleted_id_keeps_the_cause_the_service_said(client):
    """A 404 that says the entity is soft-deleted names that cause alone."""
    frame = client.private.companies(include_deleted=True)
    gone = frame.loc[frame["deleted"], "id"].iloc[0]
    with pytest.raises(NotFoundError) as caught:
        client.private.fundings(gone)
    assert caught.value.deleted and "soft-deleted" in str(caught.value)
    assert CAUSES not in str(caught.value)


@pytest.mark.parametrize("call", ["fundings", "portfolio"])
def test_a_list_of_one_id_answered_404_does_not_raise(client, call):
    """A list of one id raised NotFoundError (the count decided, not the type), while a
    profile call given the same list returns a frame: a call with a list never raises."""
    for ids in ([NO_SUCH_ID], [NO_SUCH_ID, NO_SUCH_ID]):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            frame = getattr(client.private, call)(ids)
        assert frame.empty and frame.attrs["missing_ids"] == [NO_SUCH_ID]
        said = [str(w.message) for w in seen if issubclass(w.category, MissingDataWarning)]
        assert len(said) == 1 and f"answered 404 ({CAUSES})" in said[0], said
