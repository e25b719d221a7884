"""Deal list pages read into typed rows (frames/deal_rows.py) against the same pages read as
JSON into dicts (the fallback): the reader takes only pages of documented rows (members of the
items beyond the documented ones included), and what it takes gives the same frame, findings
and participant text, byte for byte; every page it refuses is read as before."""

from __future__ import annotations

import copy
import importlib.util
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from _client_pages import list_from_pages

import dealframe.frames.deal_rows as deal_rows
from dealframe.contract import DOCUMENTED_FIELDS, Findings, identities, keys_present, read_page
from dealframe.errors import ValidationError
from dealframe.frames import list_frame, list_page_columns
from dealframe.frames.deal_rows import MAX_EXTRA, read_deal_page
from dealframe.frames.private import LIST_READERS

PAYLOADS = Path(__file__).parent / "payloads"
INTEGRATION = Path(__file__).parents[1] / "integration"
PARTICIPANTS = ("buyers", "lead_investors")


def _module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _synth() -> Any:
    return _module("dealframe_test_synth", PAYLOADS / "synth.py")


#: The spies on the reader the tests over HTTP use too (tests/integration/_decoder_reads.py)
SPIES = _module("dealframe_test_decoder_reads", INTEGRATION / "_decoder_reads.py")


@pytest.fixture(scope="module")
def pages() -> list[bytes]:
    return _synth().deal_pages(2_500, page_size=1_000, seed=3)


def as_dicts(pages: list[bytes]) -> pd.DataFrame:
    """The fallback engine: orjson dicts through the same column builder."""
    parts = [list_page_columns("transactions", orjson.loads(p)["data"]) for p in pages]
    return list_frame("transactions", parts)


def as_rows(pages: list[bytes]) -> pd.DataFrame:
    """The typed engine, refusing to fall back (every page must be taken)."""
    parts = []
    for page in pages:
        read = read_deal_page(page)
        assert read is not None, "the reader refused a page of documented rows"
        parts.append(list_page_columns("transactions", read["data"]))
    return list_frame("transactions", parts)


def assert_identical(got: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, want)
    for name in PARTICIPANTS:  # the text explode_participants cuts, byte for byte
        assert got[name].tolist() == want[name].tolist()


def page_of(items: list[Any], meta: Any = None, **doc: Any) -> bytes:
    return orjson.dumps({"data": items, **({} if meta is None else {"meta": meta}), **doc})


def test_documented_pages_are_read_typed_and_give_the_dict_frame(pages):
    assert_identical(as_rows(pages), as_dicts(pages))
    assert_identical(list_from_pages(pages), as_dicts(pages))


def test_participant_text_is_the_canonical_text_whatever_the_key_order():
    item = orjson.loads(_synth().deal_pages(1)[0])["data"][0]
    item["buyers"] = [
        {"website": None, "name": 'Qu"o\\te \u2028 \x01 é 😀', "id": "b", "country": "USA"},
        {"id": "c"},  # fields absent: null, as the fallback writes them
    ]
    page = page_of([item])
    assert_identical(as_rows([page]), as_dicts([page]))
    assert as_rows([page]).loc[0, "buyers"] == (
        '[{"country":"USA","id":"b","name":"Qu\\"o\\\\te \u2028 \\u0001 é 😀","short_name":null,'
        '"website":null},{"country":null,"id":"c","name":null,"short_name":null,"website":null}]'
    )


def test_meta_is_read_as_the_json_meta(pages):
    typed = read_deal_page(pages[0])
    assert typed is not None
    want, got = Findings("POST /x"), Findings("POST /x")
    a = read_page(orjson.loads(pages[0]), want, number=1)
    b = read_page(typed, got, number=1)
    assert (a.total, a.returned, a.has_more, a.limit, a.page) == (
        b.total,
        b.returned,
        b.has_more,
        b.limit,
        b.page,
    )
    assert len(b.items) == len(a.items) and got.records() == want.records() == []


@pytest.mark.parametrize("meta", [None, {}, {"total": None}, {"total": -1, "returned": 5}])
def test_meta_findings_are_the_same_on_both_rows(meta):
    item = orjson.loads(_synth().deal_pages(1)[0])["data"][0]
    page = page_of([item, {**item, "id": ""}, {**item, "id": None}], meta)
    typed = read_deal_page(page)
    assert typed is not None
    found = {kind: Findings("POST /x") for kind in ("dicts", "rows")}
    for kind, doc in (("dicts", orjson.loads(page)), ("rows", typed)):
        read = read_page(doc, found[kind], number=2)
        identities(read.items, "id", found[kind])
        assert keys_present(read.items) == set(DOCUMENTED_FIELDS["transactions"])
    assert found["rows"].records() == found["dicts"].records()
    assert [f.message for f in found["rows"] if f.kind == "missing_identity"] == [
        "2 of 3 items have no 'id': kept as rows of their own"
    ]


def _one(mutate: Any) -> bytes:
    doc = orjson.loads(_synth().deal_pages(3)[0])
    mutate(doc)
    return orjson.dumps(doc)


def _item(name: str, value: Any) -> Any:
    return lambda doc: doc["data"][1].__setitem__(name, value)


def _nested(head: str, name: str, value: Any) -> Any:
    return lambda doc: doc["data"][0].__setitem__(
        head, {**(doc["data"][0][head] or {}), name: value}
    )


def _participant(name: str, value: Any) -> Any:
    def apply(doc: Any) -> None:
        item = next(d for d in doc["data"] if d["lead_investors"])
        item["lead_investors"][0][name] = value

    return apply


#: Pages the typed reader refuses, read as JSON as before: the frame is the fallback's.
REFUSED = {
    "unknown member not an attribute name": _item("extra field", 1),
    "unknown member a dunder name": _item("__extra__", 1),
    f"more than {MAX_EXTRA} unknown members": lambda doc: doc["data"][1].update(
        {f"extra_{k}": k for k in range(MAX_EXTRA + 1)}
    ),
    "unknown target key": _nested("target", "region", "Oceania"),
    "unknown multiples key": _nested("deal_multiples", "ev_sales", 2.0),
    "unknown participant key": _participant("role", "lead"),
    "participant id a number": _participant("id", 12),
    "documented field absent": lambda doc: doc["data"][2].pop("deal_synopsis"),
    "number as text": _item("deal_valuation", "5.5"),
    "deleted as 0/1": _item("deleted", 1),  # read as the boolean it says
    "text as a number": _item("deal_synopsis", 42),
    "unknown meta member": lambda doc: doc["meta"].__setitem__("cursor", "x"),
    "meta count as text": lambda doc: doc["meta"].__setitem__("total", "3"),
    "meta count beyond 63 bits": lambda doc: doc["meta"].__setitem__("total", 2**63),
    "unknown document member": lambda doc: doc.__setitem__("links", {"next": None}),
}


@pytest.mark.parametrize("mutate", REFUSED.values(), ids=list(REFUSED))
def test_other_pages_are_refused_and_read_as_before(mutate):
    page = _one(mutate)
    assert read_deal_page(page) is None
    assert_identical(list_from_pages([page]), as_dicts([page]))


def _each(fn: Any) -> Any:
    return lambda doc: [fn(i, item) for i, item in enumerate(doc["data"])]


#: Pages whose items hold members beyond the documented ones (the document allows them): read
#: typed, the members as fields, and the frame is the fallback's (the same extra columns, a
#: member an item lacks read as null, as a dict's ``get`` reads it).
TAKEN = {
    "unknown member in one item": _item("extra_field", {"a": [1]}),
    "unknown member in every item": _each(lambda i, item: item.__setitem__("extra_field", "x")),
    "unknown members in some items each": _each(
        lambda i, item: item.__setitem__(f"extra_{i % 3}", [i, None, True, "t", [i]][i % 5])
    ),
    "unknown member only in the last item": lambda doc: doc["data"][-1].update(late=1.5),
    "unknown member always null": _each(lambda i, item: item.__setitem__("nothing", None)),
    f"{MAX_EXTRA} unknown members": lambda doc: doc["data"][1].update(
        {f"extra_{k}": k for k in range(MAX_EXTRA)}
    ),
    "unknown member a Python keyword": _item("class", "c"),
    "unknown member with a leading underscore": _item("_links", {"self": "/x"}),
    "unknown member named as a flattened column": _item("target_region", "Oceania"),
    "unknown member named role": _item("role", "Lead-Investor"),
}


@pytest.mark.parametrize("mutate", TAKEN.values(), ids=list(TAKEN))
def test_pages_with_unknown_members_are_read_typed_with_their_columns(mutate, monkeypatch):
    page = _one(mutate)
    typed = read_deal_page(page)
    assert typed is not None
    assert_identical(as_rows([page]), as_dicts([page]))
    got = list_from_pages([page])
    monkeypatch.setitem(LIST_READERS, "transactions", lambda content: None)  # JSON
    assert_identical(got, list_from_pages([page]))
    found = {kind: Findings("POST /x") for kind in ("dicts", "rows")}
    for kind, doc in (("dicts", orjson.loads(page)), ("rows", typed)):
        read = read_page(doc, found[kind], number=1)
        identities(read.items, "id", found[kind])
        found[kind].add("keys", ",".join(sorted(keys_present(read.items))))
    assert found["rows"].records() == found["dicts"].records()


def test_pages_with_other_unknown_members_from_threads_give_the_json_frames(pages):
    """Pages with other members each, read at once from threads (one cache of decoders): each
    is read typed, and each gives the frame the JSON reading gives."""
    odd = [
        _one(_each(lambda i, item, k=k: item.__setitem__(f"extra_{(i + k) % 5}", k)))
        for k in range(12)
    ]
    with ThreadPoolExecutor(4) as pool:
        read = list(pool.map(read_deal_page, odd * 4))
    assert all(r is not None for r in read)
    for page, rows in zip(odd * 4, read, strict=True):
        got = list_frame("transactions", [list_page_columns("transactions", rows["data"])])
        assert_identical(got, as_dicts([page]))
    mixed = [pages[0], *odd, pages[1]]
    assert_identical(as_rows(mixed), as_dicts(mixed))


_BIG = 10**20  # orjson reads it as the float 1e+20; msgspec (any value) as a Python int

#: Members holding integers beyond 64 bits, in each shape a column takes: the typed rows
#: read them as orjson does (the column builder refused a Python int beyond 64 bits).
BIG = {
    "alone in a number column": (_BIG, 1),
    "alone with null": (_BIG, None),
    "negative": (-_BIG, 1.5),
    "inside an object": ({"n": _BIG, "k": 2**63 - 1}, None),
    "inside a list": ([_BIG, [-(2**64)], 2**64 - 1], None),
    "deep inside": ({"a": [{"b": [_BIG]}]}, {"a": []}),
    "in a mixed column with text": (_BIG, "s"),
    "in a mixed column with a boolean": (_BIG, True),
    "in a mixed column with an object": (_BIG, {"a": 1}),
    "uint64 and int64 bounds kept": (2**64 - 1, -(2**63)),
}


def _big_page(first: Any, second: Any) -> bytes:
    """A page of two items holding ``first`` and ``second`` as ``extra`` (Python's json
    writes integers of any size; orjson would refuse)."""
    doc = orjson.loads(_synth().deal_pages(2)[0])
    doc["data"] = doc["data"][:2]
    doc["data"][0]["extra"], doc["data"][1]["extra"] = first, second
    return json.dumps(doc).encode()


@pytest.mark.parametrize("values", BIG.values(), ids=list(BIG))
def test_integers_beyond_64_bits_in_extra_members_read_as_orjson_reads_them(values, monkeypatch):
    page = _big_page(*values)
    assert read_deal_page(page) is not None
    assert_identical(as_rows([page]), as_dicts([page]))
    got = list_from_pages([page])
    monkeypatch.setitem(LIST_READERS, "transactions", lambda content: None)
    assert_identical(got, list_from_pages([page]))


def test_an_integer_beyond_floats_in_an_extra_member_is_refused_as_orjson_refuses_it():
    page = _big_page(10**400, None)
    assert read_deal_page(page) is None
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(page)


def _late(count: int, *, at: int = -1, prefix: str = "late") -> bytes:
    """A page of 100 items, ``count`` members the document lacks in its item ``at`` only."""
    doc = orjson.loads(_synth().deal_pages(100, page_size=100)[0])
    assert len(doc["data"]) == 100
    doc["data"][at].update({f"{prefix}_{k:02}": k for k in range(count)})
    return orjson.dumps(doc)


@pytest.fixture
def spied(monkeypatch) -> Any:
    """Spies on the reader's decodes, passes and walks; the reader remembering no page."""
    return SPIES.Spied(monkeypatch)


@pytest.fixture
def reads(spied) -> Any:
    """A spy on the reader's decoders, the reader remembering no page read before."""
    return spied.reads


@pytest.mark.parametrize(
    ("page", "typed"),
    [
        (lambda: _late(MAX_EXTRA), True),
        (lambda: _late(MAX_EXTRA + 1), False),  # more than MAX_EXTRA: read as JSON
        (lambda: _late(1), True),
        (lambda: _late(MAX_EXTRA, at=0), True),
        (lambda: _late(MAX_EXTRA + 1, at=0), False),
    ],
    ids=["16 late", "17 late", "1 late", "16 early", "17 early"],
)
def test_members_found_late_cost_a_bounded_number_of_decodes(page, typed, reads):
    """Each new name found cost another decode of the page (17 for 16 names late): now the
    documented rows refuse it, one pass finds every member, and the page is read with them;
    a later page refused for the same member is read with the members found at once."""
    content = page()
    assert (read_deal_page(content) is not None) is typed
    assert len(reads.sets) == (2 if typed else 1)
    del reads.sets[:]
    assert (read_deal_page(content) is not None) is typed
    assert len(reads.sets) == (2 if typed else 1)
    assert_identical(list_from_pages([content]), as_dicts([content]))


def test_late_members_make_decoders_only_of_the_sets_pages_hold(reads, monkeypatch):
    """Pages of three layouts of 16 late names: one decoder a layout, not one per name found
    (which evicted the cache's entries on every page)."""
    pages = [_late(MAX_EXTRA, prefix=f"layout{k}") for k in range(3)] * 4
    passes: list[Any] = []
    find = deal_rows._all_unknown_members
    monkeypatch.setattr(deal_rows, "_all_unknown_members", lambda c: passes.append(1) or find(c))
    assert all(read_deal_page(page) is not None for page in pages)
    made = set(reads.sets) - {()}
    assert len(made) == 3 and {len(names) for names in made} == {MAX_EXTRA}
    assert len(reads.sets) == 2 * len(pages) and len(passes) == 3  # one pass a layout


#: Pages read after one whose members begin with ``late_00`` (the reader's guess): the
#: guess is checked, and the frame is the JSON reading's (no column of a member not held).
GUESSED = {
    "fewer members": lambda: _late(1),
    "other members": lambda: _one(lambda doc: doc["data"][2].update(late_00=1, late_99=[2])),
    "a member null in every item": lambda: _one(
        _each(lambda i, item: item.update(late_00=i, late_01=None))
    ),
    "more members": lambda: _late(MAX_EXTRA),
}


@pytest.mark.parametrize("page", GUESSED.values(), ids=list(GUESSED))
def test_a_guess_of_the_members_is_checked(page, reads):
    assert read_deal_page(_late(2)) is not None  # late_00 and late_01: the guess
    content = page()
    del reads.sets[:]
    assert read_deal_page(content) is not None
    assert reads.sets[:2] == [(), ("late_00", "late_01")]  # the guess was tried
    assert_identical(as_rows([content]), as_dicts([content]))


@pytest.mark.parametrize(
    "mutate",
    [
        _item("created_at", 1642190107),  # timestamps as Unix seconds (the broken profile)
        lambda doc: doc["data"].insert(1, "oops"),  # an item that is not an object
        _item("target", "t-1"),
        _item("deal_valuation", True),  # not read as 1.0
    ],
    ids=["timestamp as a number", "item not an object", "target as text", "boolean as a number"],
)
def test_pages_the_fallback_refuses_still_raise_its_error(mutate):
    page = _one(mutate)
    assert read_deal_page(page) is None
    with pytest.raises(ValidationError) as typed:
        list_from_pages([page])
    with pytest.raises(ValidationError) as dicts:
        as_dicts([page])
    assert str(typed.value) == str(dicts.value)


#: Byte-level damage to a documented page: orjson refuses each, so the typed reader must too
#: (the transport then retries, as before).
DAMAGED = {
    "not UTF-8": (b'"deal_synopsis":"', b'"deal_synopsis":"\xff'),
    "UTF-8 surrogate": (b'"deal_synopsis":"', b'"deal_synopsis":"\xed\xa0\x80'),
    "escaped lone surrogate": (b'"deal_synopsis":"', b'"deal_synopsis":"\\udc00'),
    "raw control character": (b'"deal_synopsis":"', b'"deal_synopsis":"\x01'),
    "infinite number": (b'"deal_valuation":', b'"deal_valuation":1e999,"deal_valuation":'),
    "leading zero": (b'"deal_valuation":', b'"deal_valuation":0'),
    "trailing comma": (b"}]", b"},]"),
    "cut short": (b'"meta":', b'"meta":[1,'),
}


@pytest.mark.parametrize("damage", DAMAGED.values(), ids=list(DAMAGED))
def test_bodies_orjson_refuses_are_refused(damage):
    page = _synth().deal_pages(2)[0]
    body = page.replace(*damage, 1)
    assert body != page and read_deal_page(page) is not None
    assert read_deal_page(body) is None
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(body)


def test_a_page_mixing_both_kinds_of_rows_across_pages_is_one_frame(pages):
    odd = _one(_nested("target", "region", "Oceania"))
    extra = _one(_item("extra_field", 7))
    assert read_deal_page(odd) is None and read_deal_page(extra) is not None
    mixed = [pages[0], odd, extra, pages[1]]
    got = list_from_pages(mixed)
    assert_identical(got, as_dicts(mixed))
    assert got["target_region"].notna().sum() == 1 and got["extra_field"].notna().sum() == 1


def test_repeated_keys_keep_the_last_value_as_orjson_does():
    item = orjson.loads(_synth().deal_pages(1)[0])["data"][0]
    text = orjson.dumps(item)
    page = b'{"data":[' + text[:-1] + b',"deal_synopsis":"second"}]}'
    assert read_deal_page(page) is not None
    assert_identical(list_from_pages([page]), as_dicts([page]))
    assert list_from_pages([page]).loc[0, "deal_synopsis"] == "second"


@pytest.mark.parametrize("field", ["deal_valuation", "extra_number"])
def test_numbers_read_as_orjson_reads_them(field):
    item = orjson.loads(_synth().deal_pages(1)[0])["data"][0]
    numbers = [b"0", b"-0", b"-0.0", b"7", b"123456789012345678901234567890", b"4.9e-324"]
    numbers += [b"1.5e308", b"1e-400", b"9007199254740993", b"18446744073709551615", b"1E2"]
    items = []
    for i, number in enumerate(numbers):
        text = orjson.dumps({**copy.deepcopy(item), "id": f"d{i}", field: 0.5})
        items.append(text.replace(f'"{field}":0.5'.encode(), f'"{field}":'.encode() + number))
    page = b'{"data":[' + b",".join(items) + b"]}"
    assert read_deal_page(page) is not None
    assert_identical(list_from_pages([page]), as_dicts([page]))


def test_only_deal_lists_have_a_reader():
    assert LIST_READERS == {"transactions": read_deal_page}


def _members(count: int, values: Any) -> bytes:
    """A page of 100 items, each holding the members ``values(i)``."""
    doc = orjson.loads(_synth().deal_pages(100, page_size=100)[0])
    for i, item in enumerate(doc["data"]):
        item.update(values(i))
    return json.dumps(doc).encode()


def test_a_member_null_in_every_item_is_told_from_an_absent_one(spied):
    """A member null in every item once read as one absent (both None): each page paid a pass
    over its members. The first page is read again telling null from absent (UNSET), and so
    is any later one at once: one pass, then one decode a page."""
    page = _members(100, lambda i: {"deleted_at": None, "aa": i})
    for _ in range(3):
        assert_identical(as_rows([page]), as_dicts([page]))
    assert spied.passes == [1]
    both = ("aa", "deleted_at")
    assert spied.sets == [(), both, both, (), both, (), both]
    assert deal_rows._LAST == {"deleted_at": (both, ("deleted_at",))}  # the first refused
    assert as_rows([page])["deleted_at"].isna().all()


def test_alternating_member_sets_are_read_with_their_union(spied):
    """{aa, bb} and {aa} in turn: the guess is their union, a page lacking bb read again with
    its own members (the frame has no bb column), no pass after the first."""
    both = _members(100, lambda i: {"aa": i, "bb": [i]})
    one = _members(100, lambda i: {"aa": i})
    for page in [both, one] * 3:
        assert_identical(as_rows([page]), as_dicts([page]))
    assert spied.passes == [1]
    assert "bb" not in as_rows([one]).columns
    assert deal_rows._LAST == {"aa": (("aa", "bb"), ("bb",))}  # bb told from null
    del spied.sets[:]
    assert read_deal_page(one) is not None
    assert spied.sets == [(), ("aa", "bb"), ("aa",)]


def test_a_union_beyond_the_most_members_keeps_the_last_set(spied):
    """Two sets of 16 names sharing the first: their union (31) is not remembered, the last
    page's set is; every page is still read typed, as the JSON reading reads it."""
    names = [[f"aa_{k:02}" for k in range(16)], ["aa_00"] + [f"bb_{k:02}" for k in range(15)]]
    pages = [_members(100, lambda i, n=n: dict.fromkeys(n, i)) for n in names]
    for page in pages * 2:
        assert_identical(as_rows([page]), as_dicts([page]))
    assert deal_rows._LAST == {"aa_00": (tuple(sorted(names[1])), ())}


@pytest.mark.parametrize(
    ("value", "walked"),
    [
        ({"tags": [1, 2, {"k": 10**17}]}, False),  # 18 digits: no walk
        ({"tags": [1, 2, {"k": 10**18}]}, True),  # 19 digits: walked, nothing changed
        ({"tags": [1, 2, {"k": 2**64}]}, True),
        ({"tags": [-(2**63) - 1]}, True),
        ({"tags": ["1234567890123456789"]}, True),  # digits in text: walked, nothing changed
    ],
    ids=["18 digits", "19 digits", "beyond uint64", "below int64", "digits in text"],
)
def test_lists_and_objects_are_walked_only_when_the_page_holds_19_digits(value, walked, spied):
    """Lists and objects in members were walked in Python on every page for integers beyond
    64 bits; only a page holding 19 digits in a row can have one."""
    page = _members(100, lambda i: {"links": value})
    assert_identical(as_rows([page]), as_dicts([page]))
    assert bool(spied.walks) is walked


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, lambda b: b.decode()])
def test_the_digit_run_is_found_in_any_form_of_page(kind):
    page = _members(2, lambda i: {"links": [10**25]})
    assert deal_rows._long_integers(kind(page))
    assert not deal_rows._long_integers(kind(_members(2, lambda i: {"links": [10**17]})))
    read = read_deal_page(kind(page))
    assert read is not None and read["data"][0].links == [1e25]
