"""Ids given as ``uuid.UUID`` objects, and ids with spaces around them (audit of the private
interface).

``company(uuid.UUID(x))``, ``company([uuid.UUID(x)])``, ``fundings(uuid.UUID(x))`` and
``deals(target_id=[uuid.UUID(x)])`` were refused ("expected a UUID string, got UUID(...)")
though every text form ``uuid.UUID`` reads was taken: now a UUID object is its text, one of
them one id (a ``NotFoundError`` when missing, as one string). An id with spaces or a line
break around it is still refused, not stripped silently (as SKUs and country codes), and the
error now says why: ``(strip the spaces?)``.
"""

from __future__ import annotations

import uuid
from typing import Any

import pandas as pd
import pytest

import dealframe
from dealframe.errors import NotFoundError, ValidationError

NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def ids(client: Any) -> dict[str, str]:
    deals = client.private.deals(deal_type=["Venture"], limit=5)
    return {
        "deal": deals["id"][0],
        "company": deals["target_id"][0],
        "investor": client.private.investors(limit=1)["id"][0],
    }


@pytest.mark.parametrize(
    ("call", "kind"),
    [
        (lambda p, i: p.company(i), "company"),
        (lambda p, i: p.company([i]), "company"),
        (lambda p, i: p.investor(i), "investor"),
        (lambda p, i: p.deal(i), "deal"),
        (lambda p, i: p.investor_top(i, "countries"), "investor"),
        (lambda p, i: p.fundings(i), "company"),
        (lambda p, i: p.investments([i]), "investor"),
        (lambda p, i: p.deals(target_id=[i]), "company"),
        (lambda p, i: p.deals(target_id=i), "company"),
        (lambda p, i: p.deals(id=[i]), "deal"),
        (lambda p, i: p.companies(id=[i]), "company"),
    ],
    ids=[
        "company",
        "company-list",
        "investor",
        "deal",
        "investor_top",
        "fundings",
        "investments-list",
        "deals-target_id",
        "deals-target_id-one",
        "deals-id",
        "companies-id",
    ],
)
def test_a_uuid_object_is_its_text(client, ids, call, kind):
    text = ids[kind]
    as_text = call(client.private, text)
    as_object = call(client.private, uuid.UUID(text))
    assert len(as_object) > 0
    pd.testing.assert_frame_equal(as_object, as_text)


def test_one_uuid_object_is_one_id(client):
    with pytest.raises(NotFoundError):  # as one string: a list of one would warn instead
        client.private.company(uuid.UUID(NO_SUCH_ID))


@pytest.mark.parametrize(
    "call",
    [
        lambda p, i: p.company(i),
        lambda p, i: p.company([i]),
        lambda p, i: p.fundings(i),
        lambda p, i: p.deals(target_id=[i]),
    ],
    ids=["company", "company-list", "fundings", "deals-target_id"],
)
def test_an_id_with_spaces_around_it_is_refused_saying_so(client, ids, call):
    padded = f" {ids['company']}\n"
    with pytest.raises(ValidationError) as caught:
        call(client.private, padded)
    assert "(strip the spaces?)" in str(caught.value)
    with pytest.raises(ValidationError) as other:
        call(client.private, "not-a-uuid ")  # no UUID even stripped: no such hint
    assert "strip" not in str(other.value)


@pytest.mark.parametrize(
    ("call", "argument", "got"),
    [
        (lambda p: p.company(12345), "ids", "12345"),
        (lambda p: p.company([b"5f38873f-6e1c-4d6f-ad87-e6977cda30ba"]), "ids[0]", "b'5f38"),
        (lambda p: p.fundings([None]), "ids[0]", None),
        (lambda p: p.deals(target_id=[7]), "target_id[0]", "7"),
        (lambda p: p.deals(id=[uuid.uuid4(), None]), "id[1]", None),
    ],
    ids=["company-int", "company-bytes", "fundings-null", "deals-target_id-int", "deals-id-null"],
)
def test_an_id_of_another_kind_names_both_kinds_taken(client, call, argument, got):
    """A value that is neither text nor ``uuid.UUID``: the error names both kinds (it said
    "expected a UUID string", though a ``uuid.UUID`` is taken too)."""
    with pytest.raises(ValidationError) as caught:
        call(client.private)
    said = str(caught.value)
    assert "expected a UUID (text or uuid.UUID)" in said and "UUID string" not in said, said
    assert caught.value.argument == argument, said
    if got is not None:
        assert f"got {got}" in said, said


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
@pytest.mark.parametrize("call", ["company", "fundings", "investments"])
def test_an_id_as_bytes_is_refused_whole(client, ids, call, kind):
    """An id given as bytes used to be read as a list of numbers: ``company(b"5f38...")``
    said ``invalid ids[0]: ... got 53`` (the code of its first character). Bytes are one
    value: refused as such, with the words to decode them."""
    owner = ids["investor"] if call == "investments" else ids["company"]
    given = kind(owner.encode())
    with pytest.raises(ValidationError) as caught:
        getattr(client.private, call)(given)
    said = str(caught.value)
    assert "[0]" not in said and said.endswith(f"got {given!r}"), said  # not "got 53"
    assert "not bytes (decode them first: .decode())" in said, said
    with pytest.raises(ValidationError, match=r"ids\[1\]: .*not bytes"):
        getattr(client.private, call)([owner, kind(owner.encode())])


def test_the_link_refuses_bytes_whole(client, ids):
    """``skus_for_companies(client, b"...")`` read the bytes as a list of numbers before the
    id check saw them (``invalid company_ids[0]: ... got 52``)."""
    import dealframe

    given = ids["company"].encode()
    with pytest.raises(ValidationError) as caught:
        dealframe.skus_for_companies(client, given)
    said = str(caught.value)
    assert "[0]" not in said and "not bytes" in said, said
