"""Family B values written another way than the sandbox writes them, over the drift proxy:
UUIDs in upper case or in braces, integer ids and year buckets.

The interface document gives the types (uuid, string, number ...) but not their spelling. Each
test rewrites the sandbox's answers into such a service and asserts that the client reads the
same frame as one talking to the sandbox directly, or says exactly what it saw (the field and
the value): never rows dropped or warned missing for a spelling, never a misleading message.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    Proxy,
    assert_same,
    direct,
    edit,
    fresh,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
    via,
)

import dealframe.sandbox
from dealframe import co_investment_edges, explode_participants, mirror
from dealframe.client import Client
from dealframe.errors import AmbiguousNameError, ServiceContractError
from dealframe.notices import ServiceContractWarning
from dealframe.sandbox.changes import Changes

P = "/api/private/v1"
DEALS = f"^{P}/transactions$"
PROFILE = f"^{P}/companies/[^/]+$"
AGGREGATE = f"^{P}/transactions/aggregate$"
COMPANIES = f"^{P}/companies$"

#: Spellings of the same UUID another service may write.
SPELLINGS: dict[str, Callable[[str], str]] = {
    "upper": str.upper,
    "braces": lambda s: "{" + s + "}",
    "upper in braces": lambda s: "{" + s.upper() + "}",
}


def spelt(spell: Callable[[str], str]) -> Callable[[dict[str, Any]], None]:
    """Every UUID of a deal or company item (its id, its target's) in another spelling."""

    def change(item: dict[str, Any]) -> None:
        item["id"] = spell(item["id"])
        if isinstance(item.get("target"), dict) and item["target"].get("id"):
            item["target"]["id"] = spell(item["target"]["id"])

    return change


# ---------------------------------------------------------------------------------- UUIDs


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_deal_ids_in_another_spelling_are_the_ids_asked_for(direct, via, proxy, spelling):
    """``deals(id=ids)`` gets its rows back, ids as the arguments spell them: they were warned
    all missing (strict: raised), and braces dropped every row as outside the filters."""
    ids = direct.private.deals(limit=5)["id"].tolist()
    want = direct.private.deals(id=ids, strict=True)
    proxy.add(DEALS, items_edit(spelt(SPELLINGS[spelling])))
    o = outcome(lambda: via.private.deals(id=ids, strict=True))
    assert o.error is None, repr(o.error)
    assert o.caught == [], [str(w.message) for w in o.caught]
    assert_same(o.value, want)
    assert o.value.attrs["missing_ids"] == []


def test_a_profile_whose_id_is_upper_case_is_the_one_asked_for(direct, via, proxy):
    """``company(id)`` answered with the id in upper case: no ``wrong_entity`` warning, and the
    frame's id is the one asked for (spelt as the argument is)."""
    cid = direct.private.companies(limit=1)["id"].iloc[0]
    proxy.add(PROFILE, items_edit(spelt(str.upper)))
    o = outcome(lambda: via.private.company(cid))
    assert o.error is None, repr(o.error)
    assert o.caught == [], [str(w.message) for w in o.caught]
    assert_same(o.value, direct.private.company(cid))
    assert o.value["id"].tolist() == [cid]


@pytest.fixture(scope="module")
def small() -> Iterator[Any]:
    """A sandbox of this module's own: the mirror test changes its data."""
    with dealframe.sandbox.run(scale=0.02, seed=41) as sandbox:
        yield sandbox


def test_mirror_keys_do_not_depend_on_the_spelling_of_ids(small, tmp_path):
    """A service that writes the ids of changed deals in upper case from the second sync on:
    the mirror holds each deal once (it held them twice, one row per spelling)."""
    target = tmp_path / "mirror"
    with (
        Proxy(small.url) as served,
        Client(served.url, small.public_token, small.private_key, cache_enabled=False, **FAST) as c,
    ):
        mirror.sync(c, target)
        changes = Changes(small.state, seed=0)
        changes.advance(3600)
        changed = changes.update("deals", 20)
        served.add(DEALS, items_edit(spelt(str.upper)))
        o = outcome(lambda: mirror.sync(c, target))
    try:
        assert o.error is None, repr(o.error)
        assert o.caught == [], [str(w.message) for w in o.caught]
        held = mirror.load(target, "deals", include_deleted=True)
        assert held["id"].is_unique
        assert set(map(str.lower, changed)) <= set(held["id"])
        assert len(held) == len(Client.for_sandbox(small).private.deals(include_deleted=True))
    finally:
        small.reset()
        shutil.rmtree(target, ignore_errors=True)


# ------------------------------------------------------------------------- integer values


def test_integer_ids_are_said_to_be_not_text(via, proxy):
    """Ids written as numbers: said as ids that are not text (naming them), not as absent."""
    numbers = iter(range(1000, 10_000))
    proxy.add(COMPANIES, items_edit(lambda item: item.update(id=next(numbers))))
    o = outcome(lambda: via.private.companies(limit=5))
    assert o.error is None, repr(o.error)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "the 'id' of 5 of 5 items is not text (1000, 1001, 1002, ...)" in said[0]
    assert "no 'id'" not in said[0]
    assert o.value["id"].tolist() == ["1000", "1001", "1002", "1003", "1004"]


def test_year_buckets_written_as_numbers_are_read_as_years(direct, via, proxy):
    """``bucket: 2021`` for ``time_bucket`` year is the bucket ``"2021"`` with its bounds."""
    want = direct.private.aggregate("ev_revenue", "year")
    proxy.add(AGGREGATE, items_edit(lambda item: item.update(bucket=int(item["bucket"]))))
    o = outcome(lambda: via.private.aggregate("ev_revenue", "year"))
    assert o.error is None, repr(o.error)
    columns = ["bucket", "period_start", "period_end", "n", "median"]
    assert_same(o.value[columns], want[columns])
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "the 'bucket' of" in said[0] and "not text" in said[0], said


# ------------------------------------------------------------------------------ match_type

RESOLVE = f"^{P}/companies/resolve$"
#: ``match_type`` written another way (case, spaces, ``-``), by the document's value.
WRITTEN = {"exact": "EXACT", "ambiguous": "Ambiguous", "no_match": "no-match "}


@pytest.fixture(scope="module")
def names(direct: Any) -> list[str]:
    """Names resolved exact, ambiguous (shared by several companies) and not at all."""
    companies = direct.private.companies()["name"]
    counts = companies.value_counts()
    shared = counts[counts > 1].index.tolist()[:2]
    assert shared, "the test needs names shared by several companies"
    return [*companies.drop_duplicates(keep=False).head(5), *shared, "Nonexistent Zzz Co"]


def match_types_as(written: dict[str, str]) -> Any:
    def change(item: dict[str, Any]) -> None:
        item["match_type"] = written.get(item["match_type"], item["match_type"])

    return items_edit(change, "match_type")


@pytest.mark.parametrize("on_ambiguous", ["none", "best"])
def test_match_types_in_another_case_are_read_as_the_vocabulary(
    direct, via, proxy, names, on_ambiguous
):
    """``EXACT``, ``Ambiguous``, ``no-match `` are the document's values: the same frames as
    the sandbox's (they were extra categories: ``"best"`` chose nothing, ``"raise"`` never
    raised)."""
    ref = outcome(lambda: direct.private.resolve_companies(names, on_ambiguous=on_ambiguous))
    want = ref.value
    assert set(want.matches["match_type"]) == {"exact", "ambiguous", "no_match"}
    proxy.add(RESOLVE, match_types_as(WRITTEN))
    o = outcome(lambda: via.private.resolve_companies(names, on_ambiguous=on_ambiguous))
    assert o.error is None, repr(o.error)
    assert [str(w.message) for w in o.caught] == [str(w.message) for w in ref.caught]
    assert_same(o.value.matches, want.matches)
    assert_same(o.value.candidates, want.candidates)
    with pytest.raises(AmbiguousNameError):
        via.private.resolve_companies(names, on_ambiguous="raise")


def test_match_types_outside_the_vocabulary_are_kept_and_said(via, proxy, names):
    proxy.add(RESOLVE, match_types_as({"no_match": "none"}))
    o = outcome(lambda: via.private.resolve_companies(names))
    assert o.error is None, repr(o.error)
    assert o.value.matches["match_type"].tolist()[-1] == "none"
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1 and "match_type outside exact, ambiguous, no_match" in said[0], said
    assert "'none' (1)" in said[0]
    with pytest.raises(ServiceContractError, match="'none'"):
        via.private.resolve_companies(names, strict=True)


# ---------------------------------------------------------------------- NaN and Infinity


def tokens_for_nulls(field: str, token: bytes = b"NaN") -> Action:
    """Python's ``json.dumps`` output: ``"field": NaN`` where the sandbox writes null."""

    def apply(ex: Any) -> None:
        ex.content = re.sub(rb'("%s"):\s*null' % field.encode(), rb"\1:" + token, ex.content)
        ex._doc = None

    return Action(f"{token.decode()} for null {field}", on_response=apply)


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity", b"1e999999"])
def test_nan_and_infinity_tokens_are_read_as_null_and_said(direct, via, proxy, token):
    """A complete body with these tokens is not a truncated one: it was asked again, then
    refused as cut short. It is read once, the tokens as null, and one warning names them."""
    want = direct.private.deals(limit=300)
    assert want["deal_valuation"].isna().any(), "the test needs null valuations"
    proxy.add(DEALS, tokens_for_nulls("deal_valuation", token))
    o = outcome(lambda: via.private.deals(limit=300))
    assert o.error is None, repr(o.error)
    assert proxy.count(DEALS) == 1
    assert_same(o.value, want)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert f"POST {P}/transactions: the body holds" in said[0]
    assert f"({token.decode()}): read as null" in said[0]


# -------------------------------------------------------------------------------- booleans


def every_other(change: Callable[[dict[str, Any]], None]) -> Any:
    """``change`` applied to every second item of ``data``."""

    def apply(doc: Any) -> Any:
        for i, item in enumerate(doc["data"]):
            if i % 2:
                change(item)
        return doc

    return edit(apply, "every other item")


@pytest.mark.parametrize(
    ("path", "call", "action"),
    [
        (
            DEALS,
            lambda c: c.private.deals(limit=50),
            items_edit(lambda item: item.update(deleted=str(item["deleted"]).lower())),
        ),
        (
            DEALS,
            lambda c: c.private.deals(limit=50),
            every_other(lambda item: item.update(deleted=int(item["deleted"]))),
        ),
        (
            COMPANIES,
            lambda c: c.private.companies(limit=50),
            items_edit(lambda item: item.update(active=str(item["active"]).upper())),
        ),
    ],
    ids=["text", "0 and 1 among booleans", "upper-case text"],
)
def test_booleans_written_as_text_or_numbers_are_read_as_booleans_and_said(
    direct, via, proxy, path, call, action
):
    """``"false"``, ``"TRUE"``, and 0/1 on some rows, are the booleans they say (as ``meta``'s
    are): the call aborted with an error that named no value. They are said once, naming
    the field and how many, as numbers written as text are: read silently, nothing told a
    user the service wrote its booleans another way."""
    proxy.add(path, action)
    o = outcome(lambda: call(via))
    assert o.error is None, repr(o.error)
    assert_same(o.value, call(direct))
    field = "active" if path == COMPANIES else "deleted"
    said = [m for m in o.warned(ServiceContractWarning) if "booleans written as text" in m]
    assert len(said) == 1, o.warned(ServiceContractWarning)
    rows = len(o.value)
    count = rows // 2 if action.name == "every other item" else rows
    endpoint = f"POST {P}/{'companies' if path == COMPANIES else 'transactions'}"
    assert said[0].startswith(
        f"{endpoint}: {field}: booleans written as text or as 0/1 in {count} of {rows} "
    )


def test_booleans_written_as_text_over_several_pages_are_said_once_with_the_calls_count(
    direct, via, proxy
):
    """Every company's ``active`` written as text, over a list of more than one page: one
    warning with the call's count, not one per page with each page's."""
    proxy.add(COMPANIES, items_edit(lambda item: item.update(active=str(item["active"]))))
    o = outcome(lambda: via.private.companies())
    assert o.error is None, repr(o.error)
    want = direct.private.companies()
    assert len(want) > 1000, "the test needs several pages"
    assert_same(o.value, want)
    said = [m for m in o.warned(ServiceContractWarning) if "booleans written as text" in m]
    assert said == [
        f"POST {P}/companies: "
        f"active: booleans written as text or as 0/1 in {len(want):,} of {len(want):,} values "
        f"(such as {str(want['active'].iloc[0])!r}; id {', '.join(want['id'].iloc[:5])} and "
        f"{len(want) - 5:,} more): read as the booleans they say"
    ], said


def test_a_boolean_field_holding_other_text_is_refused_naming_it(via, proxy):
    proxy.add(DEALS, items_edit(lambda item: item.update(deleted="no")))
    with pytest.raises(ServiceContractError, match=r"shape: deleted: .* got \"no\" \("):
        via.private.deals(limit=50)


# ------------------------------------------------------------------- dates, empty numbers


@pytest.mark.parametrize("suffix", ["T00:00:00Z", "T00:00:00.000+00:00", "T00:00:00"])
@pytest.mark.parametrize(
    ("path", "field", "call"),
    [
        (DEALS, "deal_date", lambda c: c.private.deals(limit=50)),
        (COMPANIES, "ipoed", lambda c: c.private.companies(limit=50)),
    ],
    ids=["deal_date", "ipoed"],
)
def test_dates_written_as_timestamps_at_midnight_are_their_dates(
    direct, via, proxy, suffix, path, field, call
):
    """A date field as ``2024-05-01T00:00:00Z`` (a common serializer default) is that date:
    the pull aborted."""

    def stamp(item: dict[str, Any]) -> None:
        if item.get(field):
            item[field] += suffix

    proxy.add(path, items_edit(stamp))
    o = outcome(lambda: call(via))
    assert o.error is None, repr(o.error)
    assert o.caught == [], [str(w.message) for w in o.caught]
    assert_same(o.value, call(direct))


def test_a_date_written_as_a_timestamp_at_another_time_is_refused_naming_it(via, proxy):
    proxy.add(DEALS, items_edit(lambda item: item.update(deal_date="2024-05-01T13:30:00Z")))
    with pytest.raises(
        ServiceContractError, match=r"shape: deal_date: .* \"2024-05-01T13:30:00Z\""
    ):
        via.private.deals(limit=50)


def test_an_empty_string_for_a_number_is_null_and_said(direct, via, proxy):
    """``"deal_ebitda": ""`` where the sandbox writes null: read as null, with a warning that
    names the field (the call aborted)."""
    want = direct.private.deals(limit=50)
    assert want["deal_ebitda"].isna().any(), "the test needs null deal_ebitda"
    proxy.add(
        DEALS, items_edit(lambda item: item["deal_ebitda"] is None and item.update(deal_ebitda=""))
    )
    o = outcome(lambda: via.private.deals(limit=50))
    assert o.error is None, repr(o.error)
    assert_same(o.value, want)
    said = o.warned(ServiceContractWarning)
    assert said == [  # a finding of the call, naming its endpoint
        f'POST {P}/transactions: deal_ebitda: empty strings "" where a number or null is '
        "documented: read as null"
    ]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["empty_numbers"]


# ------------------------------------------------------------ infinities, booleans as numbers


def valuations(*values: Any) -> Any:
    """The first items' ``deal_valuation`` set to ``values``."""

    def apply(doc: Any) -> Any:
        for item, value in zip(doc["data"], values):
            item["deal_valuation"] = value
        return doc

    return edit(apply, "deal_valuation")


def test_infinities_written_as_text_in_a_number_field_are_said(via, proxy):
    proxy.add(DEALS, valuations("Infinity", "-inf", 12.5))
    o = outcome(lambda: via.private.deals(limit=10))
    assert o.error is None, repr(o.error)
    assert o.value["deal_valuation"].head(3).tolist() == [float("inf"), float("-inf"), 12.5]
    said = o.warned(ServiceContractWarning)
    assert said == [  # a finding of the call, naming its endpoint
        f"POST {P}/transactions: deal_valuation: text that is not a finite number "
        "('-inf', 'Infinity'): read as written"
    ]
    assert [f["kind"] for f in o.value.attrs["findings"]] == ["not_finite"]


def test_a_boolean_in_a_number_field_is_refused_naming_it(via, proxy):
    """``true`` in ``deal_valuation`` was read as 1.0, silently."""
    proxy.add(DEALS, valuations(True))
    with pytest.raises(ServiceContractError, match=r"shape: deal_valuation: .* got true \("):
        via.private.deals(limit=10)


def test_a_boolean_in_a_whole_number_field_is_refused_naming_it(via, proxy):
    """``true`` in ``founded`` (an integer) was read as 1, silently."""
    proxy.add(COMPANIES, items_edit(lambda item: item.update(founded=True)))
    with pytest.raises(ServiceContractError, match=r"shape: founded: .* got true \("):
        via.private.companies(limit=5)


@pytest.mark.parametrize("text", ["99999999999999999999", "-99999999999999999999"])
def test_a_whole_number_beyond_64_bits_written_as_text_is_refused_naming_it(via, proxy, text):
    """It escaped as a bare OverflowError ("Python int too large to convert to C long")."""
    proxy.add(COMPANIES, items_edit(lambda item: item.update(founded=text)))
    with pytest.raises(ServiceContractError, match="founded") as info:
        via.private.companies(limit=5)
    assert "64 bits" in str(info.value) and text in str(info.value)


def test_an_empty_string_for_a_whole_number_is_null_and_said(direct, via, proxy):
    """``"founded": ""`` aborted the call ("invalid literal for int()")."""
    want = direct.private.companies(limit=5)
    proxy.add(COMPANIES, items_edit(lambda item: item.update(founded="")))
    o = outcome(lambda: via.private.companies(limit=5))
    assert o.error is None, repr(o.error)
    assert o.value["founded"].isna().all() and str(o.value["founded"].dtype) == "Int64"
    assert_same(o.value.drop(columns="founded"), want.drop(columns="founded"))
    said = o.warned(ServiceContractWarning)
    # The empty strings are said as such; the nulls they read as are then said as any null
    # the document gives no null (``founded`` is an integer there), once each.
    assert said[0] == (
        f'POST {P}/companies: founded: empty strings "" where a number or null is documented: '
        "read as null"
    )
    assert len(said) == 2 and said[1].startswith(
        f"POST {P}/companies: null where the document gives no null: founded in 5 of 5 rows"
    ), said


def test_pages_whose_ids_are_all_empty_are_not_repeats(direct, via, proxy):
    """Deals whose every ``id`` is ``""`` have no identity, as null ids: every page is read
    (the walk stopped at page 2 as a repeat of page 1, 1,000 rows of 2,484 kept)."""
    want = direct.private.deals()
    assert len(want) > 2 * 1000, "the test needs three pages"
    proxy.add(DEALS, items_edit(lambda item: item.update(id="")))
    o = outcome(lambda: via.private.deals())
    assert o.error is None, repr(o.error)
    assert len(o.value) == len(want)
    assert not any("repeats rows" in w for w in o.warned(ServiceContractWarning))
    assert len(proxy.pages(DEALS)) == -(-len(want) // 1000)


# ------------------------------------------------------------------------ discovery document

LOOKUP = f"^{P}/lookup/transactions$"


def joined_values() -> Any:
    """Enum ``values`` written as one comma-joined string instead of an array."""

    def apply(doc: Any) -> Any:
        for entry in doc["data"]["filters"]:
            if entry.get("values"):
                entry["values"] = ",".join(entry["values"])
        return doc

    return edit(apply, "joined values")


def test_an_unreadable_discovery_document_is_the_services_fault_not_the_arguments(fresh, proxy):
    """``lookup()`` raised ValidationError (the "your argument" error) for the service's
    document; the enum check it feeds then went silently (a typo reached the service)."""
    proxy.add(LOOKUP, joined_values())
    o = outcome(lambda: fresh.private.lookup("transactions"))
    assert type(o.error) is ServiceContractError, repr(o.error)
    assert f"GET {P}/lookup/transactions" in str(o.error) and '"Early,Growth,' in str(o.error)
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    assert "the values of deal_type, deal_subtype, target_region are not arrays" in said[0]
    assert "the client cannot check these filters' values" in said[0]


def test_participant_ids_in_another_spelling_explode_to_the_same_rows(direct, via, proxy):
    """Buyers' and lead investors' ids in upper case: the exploded participants (and so the
    co-investment edges) have the ids the other frames and the arguments have."""

    def upper(item: dict[str, Any]) -> None:
        for column in ("buyers", "lead_investors"):
            for participant in item.get(column) or []:
                participant["id"] = participant["id"].upper()

    roles = ("lead_investor", "buyer")  # list rows carry no full investor list
    want = explode_participants(direct.private.deals(limit=300), roles=roles)
    assert len(want) > 50
    proxy.add(DEALS, items_edit(upper))
    got = explode_participants(via.private.deals(limit=300), roles=roles)
    assert_same(got, want)
    assert_same(co_investment_edges(got), co_investment_edges(want))


# ----------------------------------------------------------------- numbers written as text


def test_numbers_written_as_text_are_read_and_said_once_naming_the_rows(direct, via, proxy):
    """``"deal_valuation": "123.5"`` on the first deal of every page was read as 123.5 without
    a word (while ``"12x"`` raised): now it is read, and said once for the call (not once per
    page), naming the field, how many and the first deals' ids."""
    want = direct.private.deals()
    pages = -(-len(want) // 1000)
    assert pages > 1, "the test needs several pages"
    proxy.add(DEALS, valuations("123.5"))
    o = outcome(lambda: via.private.deals())
    assert o.error is None, repr(o.error)
    assert o.value["deal_valuation"].dtype == "float64"
    said = o.warned(ServiceContractWarning)
    assert len(said) == 1, said
    firsts = o.value.iloc[[i * 1000 for i in range(pages)]]
    assert (firsts["deal_valuation"] == 123.5).all()
    assert said[0].startswith(
        f"POST {P}/transactions: "
        f"deal_valuation: numbers written as text in {pages} of {len(want):,} values "
        "(such as '123.5'; id "
    ), said
    assert all(i in said[0] for i in firsts["id"].head(5)), said
    assert_same(o.value.drop(columns="deal_valuation"), want.drop(columns="deal_valuation"))


def test_whole_numbers_written_as_text_are_read_and_said(direct, via, proxy):
    """``"founded": "1999"`` was read silently (and text beside numbers on one page aborted)."""
    want = direct.private.companies(limit=5)
    assert want["founded"].notna().all(), "the test needs founding years"
    proxy.add(COMPANIES, every_other(lambda item: item.update(founded=str(item["founded"]))))
    o = outcome(lambda: via.private.companies(limit=5))
    assert o.error is None, repr(o.error)
    assert_same(o.value, want)
    said = o.warned(ServiceContractWarning)
    spelt = want["id"].iloc[1::2].tolist()
    assert said == [
        f"POST {P}/companies: founded: numbers written as text in 2 of 5 values (such as "
        f"'{want['founded'].iloc[1]}'; id {', '.join(spelt)}): read as numbers"
    ]
