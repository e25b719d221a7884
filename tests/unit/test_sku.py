"""SKU helpers: both versions, round trips and clear errors."""

import pytest

from dealframe.errors import ValidationError
from dealframe.public.sku import Sku, format_v1, format_v2, parse_sku, sku_version, validate_skus


@pytest.mark.parametrize(
    "sku,version",
    [
        ("NASDAQ_ACME", "v1"),
        ("NSE-KE_SAF", "v1"),
        ("LSE_BT.A", "v1"),
        ("NYSE_BRK.B", "v1"),
        ("NYSE_BF-B", "v1"),
        ("ACME-USA", "v2"),
        ("ACME-USA.1", "v2"),
        ("BT.A-GBR", "v2"),
        ("7203-JPN", "v2"),
        ("BRK.B-USA", "v2"),
        ("BRK.B-USA.1", "v2"),
        ("BF-B-USA", "v2"),
    ],
)
def test_versions_detected_and_round_trip(sku, version):
    assert sku_version(sku) == version
    assert str(parse_sku(sku)) == sku
    assert parse_sku(sku, version).version == version


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "acme-usa",
        "ACME",
        "ACME-US",
        "ACME-USA.0",
        "ACME_",
        "_ACME",
        "ACME-USA.x",
        "A B-USA",
        None,
        12,
        "ACME-USA\n",
        "NYSE_ACME\n",
        "BRK.B-USA.",
        "ACME-USA.01",
        "ACME-ＵSA",
        "NYSE_A\x00B",
        "-USA",
        "NYSE_ ACME",
        "ＡCME-USA",  # clearly typos: a full-width letter, another script's digit, invisibles
        "A١-USA",
        "ＮＹＳＥ_ACME",
        "NYSE_A١",
        "A\u200bB-USA",
        "NYSE_A\xa0B",
        "ﬁ-USA",
    ],
)
def test_malformed_skus_rejected_with_argument(bad):
    assert sku_version(bad) is None
    with pytest.raises(ValidationError) as err:
        parse_sku(bad)
    assert err.value.argument == "sku"


def test_parse_v2_suffix_and_wrong_version():
    s = parse_sku("ACME-USA.12")
    assert (s.ticker, s.country, s.n) == ("ACME", "USA", 12)
    with pytest.raises(ValidationError, match="v1 SKU"):
        parse_sku("ACME-USA", "v1")


def test_format_helpers():
    assert format_v1("NYSE", "IBM") == "NYSE_IBM"
    assert format_v2("IBM", "USA", 2) == "IBM-USA.2"
    with pytest.raises(ValidationError):
        format_v2("IBM", "US")


def test_validate_skus_dedupes_in_order_and_names_position():
    assert validate_skus(["B-USA", "A-USA", "B-USA"], "v2") == ["B-USA", "A-USA"]
    with pytest.raises(ValidationError, match=r"pass a list: \['A-USA'\]"):
        validate_skus("A-USA", "v2")  # issue 3: a non-list skus is refused
    with pytest.raises(ValidationError) as err:
        validate_skus(["A-USA", "NYSE_IBM"], "v2")
    assert err.value.argument == "skus[1]" and "v1 SKU" in str(err.value)
    assert validate_skus([], "v1") == []  # a search that matched nothing
    with pytest.raises(ValidationError, match="a list of SKU strings"):
        validate_skus(None, "v2")
    with pytest.raises(ValidationError):
        validate_skus({"a": 1}, "v1")
    with pytest.raises(ValidationError) as err:
        validate_skus(["NYSE_IBM", 3], "v1")
    assert err.value.argument == "skus[1]"


def test_dotted_ticker_with_collision_suffix():
    s = parse_sku("BRK.B-USA.1")
    assert (s.version, s.ticker, s.country, s.n) == ("v2", "BRK.B", "USA", 1)
    s = parse_sku("BRK.B-USA")
    assert (s.ticker, s.country, s.n) == ("BRK.B", "USA", None)
    s = parse_sku("NYSE_BRK.B")
    assert (s.exchange, s.ticker) == ("NYSE", "BRK.B")
    assert format_v2("BRK.B", "USA", 1) == "BRK.B-USA.1"
    assert parse_sku("BF-B-USA.2").ticker == "BF-B"


@pytest.mark.parametrize(
    "sku,version",
    [
        ("brk.b-USA", "v2"),
        ("BRK..B-USA", "v2"),
        ("A_B-USA", "v2"),
        ("7203.T-JPN.3", "v2"),
        ("A_B_C", "v1"),
        ("NYSE__BRK", "v1"),
        ("xetra_sap", "v1"),
        ("NYSE_BRK.", "v1"),
        (".BRK-USA", "v2"),
    ],
)
def test_skus_outside_any_one_alphabet_are_accepted(sku, version):
    # the interface document fixes the layout only; the service decides what exists
    assert sku_version(sku) == version
    assert validate_skus([sku], version) == [sku]
    assert str(parse_sku(sku, version)) == sku


def test_a_sku_of_both_layouts_is_accepted_for_either_version():
    assert validate_skus(["A_B-USA"], "v1") == ["A_B-USA"]
    assert validate_skus(["A_B-USA"], "v2") == ["A_B-USA"]
    assert parse_sku("A_B-USA", "v1").exchange == "A"


@pytest.mark.parametrize("char", [chr(c) for c in range(0x21, 0x7F)])
def test_every_visible_ascii_character_is_accepted_in_a_ticker(char):
    """The document shows no ticker alphabet: every visible ASCII character (dots, dashes,
    ``&``, ``/``) is accepted."""
    assert validate_skus([f"A{char}B-USA", f"A{char}B-USA.2"], "v2") == [
        f"A{char}B-USA",
        f"A{char}B-USA.2",
    ]
    assert validate_skus([f"NYSE_A{char}B"], "v1") == [f"NYSE_A{char}B"]


@pytest.mark.parametrize(
    "sku,version",
    [
        ("CAFÉ-FRA", "v2"),
        ("NESTLÉ-CHE.1", "v2"),
        ("SÃO_VALE", "v1"),
        ("XETRA_MÜNCH", "v1"),
        ("ΑΛΦΑ-GRC", "v2"),
        ("CAFE\u0301-FRA", "v2"),  # a decomposed accent: NFKC of each character is itself
    ],
)
def test_a_visible_letter_beyond_ascii_is_accepted_the_service_decides(sku, version):
    """A service may list ``CAFÉ-FRA`` in its own search: such a SKU can be asked for."""
    assert sku_version(sku) == version
    assert validate_skus(["ACME-USA" if version == "v2" else "NYSE_ACME", sku], version)[1] == sku
    assert str(parse_sku(sku, version)) == sku


@pytest.mark.parametrize(
    "sku,version,at",
    [
        ("ＡＣＭＥ-USA", "v2", "'Ａ' at position 0 is a full-width or compatibility form of 'A'"),
        ("A１-USA", "v2", "'１' at position 1 is a digit of another script"),
        ("A١-USA", "v2", "'١' at position 1 is a digit of another script (ARABIC-INDIC"),
        ("NYSE_BRKｅ", "v1", "'ｅ' at position 8 is a full-width or compatibility form of 'e'"),
        ("NYSE_A²", "v1", "'²' at position 6 is a full-width or compatibility form of '2'"),
        ("A\u200bB-USA", "v2", "'\\u200b' at position 1 is a space, a control or another"),
        ("A B-USA", "v2", "' ' at position 1 is a space or a control character"),
        ("ACME\u2013USA", "v2", "'–' at position 4 is a dash other than '-' (EN DASH)"),
        ("ACME\u2013X-USA", "v2", "'–' at position 4 is a dash other than '-' (EN DASH)"),
        ("ACME\u2212X-USA", "v2", "'−' at position 4 is a dash other than '-' (MINUS SIGN)"),
        ("BRK\u2011B-USA", "v2", "'\u2011' at position 3 is a dash other than '-' (NON-BREAKING"),
    ],
)
def test_a_sku_with_a_typo_is_refused_naming_its_position_and_character(sku, version, at):
    with pytest.raises(ValidationError) as err:
        validate_skus(["ACME-USA" if version == "v2" else "NYSE_ACME", sku], version)
    assert err.value.argument == "skus[1]"
    assert f"({at}" in str(err.value), str(err.value)
    assert sku_version(sku) is None


@pytest.mark.parametrize("n", [0, -1, 1.0, True, "1"])
def test_format_v2_refuses_a_suffix_that_is_not_from_1(n):
    """``n=0`` was taken as no suffix: ``format_v2("ACME", "USA", 0)`` gave ``ACME-USA``,
    another company's SKU. An ``n`` that is no whole number from 1 is refused naming ``n``
    (``-1`` was said as "the country '1' ... is not 3 capital letters"), as
    ``parse_sku("ACME-USA.0")`` refuses its SKU."""
    with pytest.raises(ValidationError) as err:
        format_v2("ACME", "USA", n)
    assert err.value.argument == "n" and "a whole number from 1" in str(err.value)
    assert "country" not in str(err.value)
    with pytest.raises(ValidationError):
        str(Sku("v2", "ACME", country="USA", n=n))
    assert format_v2("ACME", "USA", None) == "ACME-USA"
    assert format_v2("ACME", "USA", 2) == "ACME-USA.2"


@pytest.mark.parametrize("country", ["USA.1", "USA.12"])
def test_format_v2_refuses_a_country_that_reads_back_otherwise(country):
    """``format_v2("ACME", "USA.1")`` gave ``ACME-USA.1``, read back as country ``USA`` and
    n 1: the country is refused, naming it, and the reading."""
    with pytest.raises(ValidationError) as err:
        format_v2("ACME", country)
    assert err.value.argument == "country"
    assert f"would read as ticker 'ACME', country 'USA', n {country[4:]}" in str(err.value)
    for ticker, country, n in [("BRK.B", "USA", 1), ("A-USA", "GBR", None), ("X.1", "FRA", 2)]:
        assert parse_sku(format_v2(ticker, country, n)) == Sku("v2", ticker, country=country, n=n)


@pytest.mark.parametrize(
    ("exchange", "ticker", "argument", "said"),
    [
        ("NAS_DAQ", "ACME", "exchange", "would read as exchange 'NAS'"),
        ("NSE", "ABC-DEF", "sku", "v2 SKU of ticker 'NSE_ABC' and country 'DEF'"),
        (1, "ACME", "exchange", "a string"),
    ],
)
def test_format_v1_refuses_what_does_not_read_back(exchange, ticker, argument, said):
    """``format_v1("NAS_DAQ", "ACME")`` gave ``NAS_DAQ_ACME``, which ``parse_sku`` reads as
    exchange ``NAS``; ``format_v1("NSE", "ABC-DEF")`` gave a SKU read as v2."""
    with pytest.raises(ValidationError) as err:
        format_v1(exchange, ticker)
    assert err.value.argument == argument and said in str(err.value)


def test_format_v1_reads_back_as_its_parts():
    for exchange, ticker in [("NYSE", "BRK.B"), ("NYSE", "BF-B"), ("NSE-KE", "ABC")]:
        sku = format_v1(exchange, ticker)
        assert parse_sku(sku) == Sku("v1", ticker, exchange=exchange)
    # a v1 SKU the version reads as v1 alone keeps its text
    assert str(parse_sku("NSE_ABC-DEF", "v1")) == "NSE_ABC-DEF"


@pytest.mark.parametrize("version", ["v3", "V2", ""])
def test_parse_sku_names_version_when_it_is_no_version(version):
    """``parse_sku("ACME-USA", version="v3")`` said "expected a v3 SKU (this one is v2)"."""
    with pytest.raises(ValidationError) as err:
        parse_sku("ACME-USA", version=version)
    assert err.value.argument == "version"
    assert "'v1', 'v2' or None" in str(err.value) and "this one is" not in str(err.value)
