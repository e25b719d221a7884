"""Bulk name resolution of the sandbox: normalisation, match types, ordering, odd queries."""

from __future__ import annotations

import difflib

import numpy as np
import pytest

from dealframe.sandbox.models.resolve import NameIndex, ResolveInputError, normalize_name


def ratio(name_norm: str, query_norm: str) -> float:
    return round(difflib.SequenceMatcher(None, name_norm, query_norm).ratio(), 4)


def make_index(rows: list[tuple[str, str, str | None, bool]]) -> NameIndex:
    ids, names, countries, live = (list(col) for col in zip(*rows))
    return NameIndex(ids, names, countries, live)


ROWS = [
    ("id-acme-labs", "Acme Labs, Inc.", "USA", True),
    ("id-acme-robo", "Acme Robotics GmbH", "DEU", True),
    ("id-acme-cloud", "Acme Cloud", "GBR", True),
    ("id-zen-1", "Zenori Capital", "USA", True),
    ("id-zen-2", "ZENORI CAPITAL LLC", None, True),
    ("id-gone", "Vanished Foods Ltd", "FRA", False),
    ("id-gone-dup", "Acme Cloud", "FRA", False),
    ("id-obrien", "O\u2019Brien's Caf\u00e9 S.A.", "IRL", True),
    ("id-pct", "100% Data Group", "USA", True),
    ("id-jp", "\u65e5\u672c\u30c7\u30fc\u30bf\u682a\u5f0f\u4f1a\u793e", "JPN", True),
    ("id-punct", "!!!", "USA", True),
]


@pytest.fixture(scope="module")
def index() -> NameIndex:
    return make_index(ROWS)


# --- normalisation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Acme   Labs, Inc. ", "acme labs"),
        ("Acme Labs Incorporated", "acme labs"),
        ("ACME Co., Ltd.", "acme"),
        ("Zenori Capital Pte. Ltd.", "zenori capital"),
        ("Acme S.A.", "acme"),
        ("Acme B.V.", "acme"),
        ("Acme Holdings", "acme holdings"),  # not a legal suffix
        ("Acme Group plc", "acme group"),
        ("Inc", "inc"),  # never drop the only word
        ("Ltd Co", "ltd"),
        ("Incubator Labs", "incubator labs"),  # only whole trailing words
        ("Acme-Labs", "acme labs"),
        ("Acme_Labs/AI", "acme labs ai"),
        ("O\u2019Brien's", "obriens"),
        ("Stra\u00dfe AG", "strasse"),
        ("\uff21\uff23\uff2d\uff25 Labs", "acme labs"),  # full-width letters
        ("M\u00fcller & S\u00f6hne GmbH", "m\u00fcller s\u00f6hne"),
        ("Cafe\u0301 Bio", "caf\u00e9 bio"),  # combining accent composed by NFKC
        ("\t\nAcme\u00a0Labs\n", "acme labs"),
        ("%_'\"", ""),
    ],
)
def test_normalize_name(raw, expected):
    assert normalize_name(raw) == expected


# --- match types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["Acme Labs", "acme labs inc", "ACME LABS, INC.", " acme  labs ", "Acme-Labs Ltd"]
)
def test_exact_match_ignores_case_punctuation_and_suffix(index, query):
    assert index.resolve([query]) == [{"query": query, "id": "id-acme-labs", "match_type": "exact"}]


def test_exact_match_ignores_deleted_namesake(index):
    # A deleted "Acme Cloud" exists too; only the live one counts.
    assert index.resolve(["Acme Cloud"])[0]["id"] == "id-acme-cloud"


def test_unicode_and_quotes_exact(index):
    result = index.resolve(
        ["o'brien\u2019s caf\u00e9", "\u65e5\u672c\u30c7\u30fc\u30bf\u682a\u5f0f\u4f1a\u793e"]
    )
    assert [r["id"] for r in result] == ["id-obrien", "id-jp"]
    assert all(r["match_type"] == "exact" for r in result)


def test_several_equal_names_are_ambiguous_with_score_one(index):
    (item,) = index.resolve(["zenori capital"])
    assert item["match_type"] == "ambiguous" and item["id"] is None
    assert item["candidates"] == [
        {"id": "id-zen-2", "name": "ZENORI CAPITAL LLC", "country": None, "score": 1.0},
        {"id": "id-zen-1", "name": "Zenori Capital", "country": "USA", "score": 1.0},
    ]  # equal scores: ordered by name ("Z" + upper < "Z" + lower)


def test_equal_names_are_capped_at_five_ordered_by_name():
    rows = [
        (f"id{i}", f"Same Name {s}", "USA", True)
        for i, s in enumerate(["Ltd", "Inc", "GmbH", "AG", "SA", "plc", "LLC"])
    ]
    (item,) = make_index(rows).resolve(["same name"])
    names = [c["name"] for c in item["candidates"]]
    assert names == sorted(r[1] for r in rows)[:5]
    assert all(c["score"] == 1.0 for c in item["candidates"])


def test_fuzzy_candidates_by_substring_and_first_word(index):
    (item,) = index.resolve(["Acme"])
    assert item["match_type"] == "ambiguous" and item["id"] is None
    expected = sorted(
        [
            ("id-acme-cloud", "Acme Cloud", "GBR", ratio("acme cloud", "acme")),
            ("id-acme-labs", "Acme Labs, Inc.", "USA", ratio("acme labs", "acme")),
            ("id-acme-robo", "Acme Robotics GmbH", "DEU", ratio("acme robotics", "acme")),
        ],
        key=lambda c: (-c[3], c[1]),
    )
    assert item["candidates"] == [
        {"id": i, "name": n, "country": c, "score": s} for i, n, c, s in expected
    ]
    assert [c["score"] for c in item["candidates"]] == sorted(
        (c["score"] for c in item["candidates"]), reverse=True
    )


def test_first_word_alone_makes_a_candidate(index):
    (item,) = index.resolve(["Acme Bogus Widgets"])  # not a substring of any name
    assert item["match_type"] == "ambiguous"
    assert {c["id"] for c in item["candidates"]} == {
        "id-acme-labs",
        "id-acme-robo",
        "id-acme-cloud",
    }
    by_id = {c["id"]: c["score"] for c in item["candidates"]}
    assert by_id["id-acme-labs"] == ratio("acme labs", "acme bogus widgets")


def test_substring_inside_a_word_makes_a_candidate(index):
    (item,) = index.resolve(["botics"])
    assert [c["id"] for c in item["candidates"]] == ["id-acme-robo"]
    assert item["candidates"][0]["score"] == ratio("acme robotics", "botics")


@pytest.mark.parametrize(
    "query", ["Nothing Like It", "", "   ", "\t", "!!!", "%", "(", "[", "\\", "*", "'"]
)
def test_no_match(index, query):
    assert index.resolve([query]) == [{"query": query, "id": None, "match_type": "no_match"}]


def test_deleted_entities_are_never_matched_or_candidates(index):
    assert index.resolve(["Vanished Foods"])[0]["match_type"] == "no_match"
    assert index.resolve(["Vanished"])[0]["match_type"] == "no_match"
    (cloud,) = index.resolve(["Acme Clo"])
    assert "id-gone-dup" not in {c["id"] for c in cloud["candidates"]}


@pytest.mark.parametrize(
    "query",
    [
        "'; DROP TABLE companies; --",
        '" OR 1=1 --',
        "name LIKE '%acme%'",
        "100%",
        "a.*b",
        "(?i)acme",
        "[a-z]+",
        "\u00e9\u00e8\u00ea \u4e2d\u6587 \U0001f680",
        "x" * 5000,
    ],
)
def test_odd_queries_do_not_break(index, query):
    (item,) = index.resolve([query])
    assert item["query"] == query
    assert item["match_type"] in {"exact", "ambiguous", "no_match"}
    assert (item["id"] is None) == (item["match_type"] != "exact")


def test_percent_is_punctuation_not_a_wildcard(index):
    assert index.resolve(["100% Data Group"])[0]["id"] == "id-pct"
    (item,) = index.resolve(["%data%"])  # -> "data": a substring of "100 data group" only
    assert [c["id"] for c in item["candidates"]] == ["id-pct"]


def test_order_and_duplicates_are_preserved(index):
    queries = ["zzz", "Acme Labs", "zzz", "Acme Labs"]
    result = index.resolve(queries)
    assert [r["query"] for r in result] == queries
    assert [r["match_type"] for r in result] == ["no_match", "exact", "no_match", "exact"]
    twice = index.resolve(["acme", "acme"])
    twice[0]["candidates"][0]["score"] = -1  # items are independent objects
    assert twice[1]["candidates"][0]["score"] > 0


def test_input_errors(index):
    with pytest.raises(ResolveInputError, match=r"names\[1\]"):
        index.resolve(["ok", None])
    with pytest.raises(ValueError):
        NameIndex(["a"], ["A", "B"], [None], [True])


# --- top-five pruning vs brute force, and a realistic load ----------------------------------


def synthetic_names(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    syll = ["ka", "lo", "mi", "ne", "va", "zu", "tor", "rex", "lum", "sol", "bri", "dex", "gen"]
    nouns = ["Labs", "Analytics", "Systems", "Health", "Pay", "Robotics", "Capital", "Bio"]
    legal = ["", "", "", " Inc", " Ltd", " GmbH", " SA", " plc"]
    out = []
    for _ in range(n):
        root = "".join(syll[i] for i in rng.integers(0, len(syll), int(rng.integers(2, 4))))
        out.append(
            f"{root.capitalize()} {nouns[rng.integers(len(nouns))]}"
            f"{legal[rng.integers(len(legal))]}"
        )
    return out


def test_candidates_equal_brute_force_top_five():
    names = synthetic_names(2000, seed=4)
    live = [i % 50 != 0 for i in range(len(names))]
    ids = [f"id{i:05d}" for i in range(len(names))]
    index = NameIndex(ids, names, ["USA"] * len(names), live)
    norms = [normalize_name(n) for n in names]
    rng = np.random.default_rng(5)
    queries = ["ka", "lo", "Kalo", "tor Labs", "Zu", "Mine Pay", "gen bio", "vazu"]
    queries += [names[i][: int(rng.integers(3, 9))] for i in rng.integers(0, len(names), 40)]
    for query, item in zip(queries, index.resolve(queries)):
        q = normalize_name(query)
        same = [i for i in range(len(names)) if live[i] and norms[i] == q]
        if len(same) == 1:
            assert item == {"query": query, "id": ids[same[0]], "match_type": "exact"}
            continue
        if same:
            pool = [(1.0, names[i], ids[i]) for i in same]
        else:
            pool = [
                (ratio(norms[i], q), names[i], ids[i])
                for i in range(len(names))
                if live[i] and (q in norms[i] or norms[i].split()[0] == q.split()[0])
            ]
        if not pool:
            assert item["match_type"] == "no_match"
            continue
        best = sorted(pool, key=lambda t: (-t[0], t[1], t[2]))[:5]
        assert item["match_type"] == "ambiguous"
        assert [(c["score"], c["name"], c["id"]) for c in item["candidates"]] == best


def test_thousand_queries_against_22000_names_runs():
    names = synthetic_names(22000, seed=9)
    ids = [f"id{i:05d}" for i in range(len(names))]
    index = NameIndex(ids, names, ["USA"] * len(names), [True] * len(names))
    assert len(index) == len(names)
    rng = np.random.default_rng(10)
    picks = rng.integers(0, len(names), 600)
    queries = [names[i].upper() for i in picks]
    queries += [names[i][:5] for i in rng.integers(0, len(names), 300)]
    queries += ["", "'; DROP TABLE x; --", "100%", "\u00fcber"] * 25
    result = index.resolve(queries)
    assert len(result) == 1000
    norm_count: dict[str, int] = {}
    for n in names:
        norm_count[normalize_name(n)] = norm_count.get(normalize_name(n), 0) + 1
    for i, item in zip(picks, result):
        if norm_count[normalize_name(names[i])] == 1:
            assert item["id"] == ids[i]
        else:
            assert item["match_type"] == "ambiguous"
            assert ids[i] in {c["id"] for c in item["candidates"]} or len(item["candidates"]) == 5
