"""The public <-> private link over the drift proxy, under the spellings a real service may use
where the interface document leaves them open (sections 2.1 and 2.2, issue 15).

The sandbox's two families agree exactly on every listing. Here the answers are rewritten
between client and sandbox: ``stock_listing`` null, empty or half filled, tickers and
exchanges in another case, a share class written ``BRK.B`` on one side and ``BRK-B`` on the
other, an exchange written as its MIC or its long name, a spelling the client cannot know,
a Family A company served twice, a delisted one. Each test asserts the link a client talking
to the sandbox directly gets, or a typed warning naming what was seen: never a silently
wrong or silently lost match.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    direct,
    edit,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
    repeat_rows,
    via,
)

import dealframe
from dealframe.notices import ServiceContractWarning

PROFILE = "^/api/private/v1/companies/[^/]+$"
SEARCH = "^/api/v[12]/companies$"  # POST: the search
CURRENT = "^/api/v[12]/companies/current$"
#: The sandbox's exchanges as a real service may write them instead: MIC, long name.
MIC = {"NYSE": "XNYS", "NASDAQ": "XNAS", "LSE": "XLON", "XETRA": "XETR", "JSE": "XJSE"}
LONG = {
    "NYSE": "New York Stock Exchange",
    "NASDAQ": "Nasdaq Stock Market",
    "LSE": "London Stock Exchange",
}


@pytest.fixture(scope="module")
def listed(sandbox: Any) -> pd.DataFrame:
    """Live listed companies: id, both SKUs, ticker and exchange (the sandbox's record)."""
    ds = sandbox.state.dataset
    rows = []
    for x in ds.listed:
        org = ds.orgs[x["org"]]
        if not org.get("deleted"):
            rows.append(
                {
                    "company_id": org["id"],
                    "sku_v1": x["sku_v1"],
                    "sku_v2": x["sku_v2"],
                    "ticker": org["stock_listing"]["ticker"],
                    "exchange": org["stock_listing"]["exchange"],
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def cohort(listed: pd.DataFrame) -> pd.DataFrame:
    """Companies on exchanges of :data:`MIC`, with a pair sharing a ticker on two exchanges."""
    mine = listed[listed["exchange"].isin(list(MIC))]
    shared = mine[mine.duplicated("ticker", keep=False)]
    assert len(shared) >= 2, "the sandbox forces a few tickers onto two exchanges of a country"
    pair = shared[shared["ticker"] == shared["ticker"].iloc[0]]
    assert pair["exchange"].nunique() == len(pair) >= 2
    return pd.concat([pair, mine.drop(pair.index).head(8)])


def on_items(path_kind: str, change: Callable[[dict[str, Any]], None]) -> Action:
    """Apply ``change`` to every object item of ``data`` (a profile's ``data`` is one)."""

    def apply(doc: Any) -> Any:
        data = doc.get("data") if isinstance(doc, dict) else None
        for item in [data] if isinstance(data, dict) else data if isinstance(data, list) else []:
            if isinstance(item, dict):
                change(item)
        return doc

    return edit(apply, path_kind)


def listing(change: Callable[[dict[str, Any]], None]) -> Action:
    """Apply ``change`` to the profile's ``stock_listing`` (when it is an object)."""
    return on_items(
        "stock_listing",
        lambda item: (
            change(item["stock_listing"]) if isinstance(item.get("stock_listing"), dict) else None
        ),
    )


def matched_as_direct(got: pd.DataFrame, want: pd.DataFrame) -> None:
    cols = ["query", "company_id", "sku_v1", "sku_v2", "match"]
    pd.testing.assert_frame_equal(got[cols], want[cols])
    assert (got["match"] == "matched").all(), got.loc[got["match"] != "matched", "evidence"]


def no_warning(result: Any) -> None:
    assert result.error is None, result.error
    assert not result.warned(ServiceContractWarning), result.warned(ServiceContractWarning)


# -------------------------------------------------------------------- spellings that are one


@pytest.mark.parametrize("spelling", [MIC, LONG], ids=["mic", "long_name"])
def test_exchange_as_mic_or_long_name_in_family_b(via, direct, proxy, cohort, spelling):
    """Family B writes the exchange as its MIC (``XNYS``) or long name, Family A as its
    acronym: the same listing, linked, the shared ticker to the SKU of its own exchange."""
    cohort = cohort[cohort["exchange"].isin(list(spelling))]
    ids = cohort["company_id"].tolist()
    want = dealframe.skus_for_companies(direct, ids)
    proxy.add(
        PROFILE, listing(lambda s: s.update(exchange=spelling.get(s["exchange"], s["exchange"])))
    )
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    no_warning(got)
    matched_as_direct(got.value, want)
    assert got.value["sku_v2"].tolist() == cohort["sku_v2"].tolist()
    assert set(got.value["exchange"]) <= set(spelling.values())  # as the profile says


def test_exchange_as_mic_in_family_a(via, direct, proxy, cohort):
    """Family A's search and current data write the exchange as its MIC: both directions
    still link (v1 SKUs keep the service's spelling)."""
    ids, skus = cohort["company_id"].tolist(), cohort["sku_v2"].tolist()
    want_ids = dealframe.skus_for_companies(direct, ids)
    want_skus = dealframe.companies_for_skus(direct, skus)
    mic = on_items(
        "exchange", lambda i: i.update(exchange=MIC.get(i.get("exchange"), i.get("exchange")))
    )
    proxy.add(SEARCH, mic)
    proxy.add(CURRENT, mic)
    ahead = outcome(lambda: dealframe.skus_for_companies(via, ids))
    back = outcome(lambda: dealframe.companies_for_skus(via, skus))
    for got, want in ((ahead, want_ids), (back, want_skus)):
        no_warning(got)
        matched_as_direct(got.value, want)


def test_case_spaces_and_share_class_separators(via, direct, proxy, cohort):
    """``brk.b `` in Family B and ``BRK-B`` in Family A (and ``BRK/B`` in current data): one
    ticker with its share class, as both families write it on real services."""
    ids, skus = cohort["company_id"].tolist(), cohort["sku_v2"].tolist()
    want_ids = dealframe.skus_for_companies(direct, ids)
    want_skus = dealframe.companies_for_skus(direct, skus)

    def classed(sep: str) -> Callable[[str], str]:
        return lambda t: f"{t[:-1]}{sep}{t[-1]}"

    proxy.add(
        PROFILE,
        listing(
            lambda s: s.update(
                ticker=" " + classed(".")(s["ticker"]).lower() + " ",
                exchange=f"  {s['exchange'].lower()}",
            )
        ),
    )
    proxy.add(SEARCH, on_items("ticker", lambda i: i.update(ticker=classed("-")(i["ticker"]))))
    proxy.add(CURRENT, on_items("ticker", lambda i: i.update(ticker=classed("/")(i["ticker"]))))
    ahead = outcome(lambda: dealframe.skus_for_companies(via, ids))
    back = outcome(lambda: dealframe.companies_for_skus(via, skus))
    for got, want in ((ahead, want_ids), (back, want_skus)):
        no_warning(got)
        matched_as_direct(got.value, want)


def test_tickers_prefixed_with_their_exchange(via, direct, proxy, cohort):
    """``NYSE:ACME`` in Family B (the exchange its MIC) and ``XNYS:ACME`` in Family A's
    search: a ticker written with its own exchange in front is the same listing."""
    ids, skus = cohort["company_id"].tolist(), cohort["sku_v2"].tolist()
    want_ids = dealframe.skus_for_companies(direct, ids)
    want_skus = dealframe.companies_for_skus(direct, skus)
    proxy.add(
        PROFILE,
        listing(
            lambda s: s.update(
                ticker=f"{s['exchange']}:{s['ticker']}", exchange=MIC.get(s["exchange"])
            )
        ),
    )
    proxy.add(
        SEARCH,
        on_items(
            "ticker",
            lambda i: i.update(ticker=f"{MIC.get(i.get('exchange'), 'X')}:{i['ticker']}"),
        ),
    )
    ahead = outcome(lambda: dealframe.skus_for_companies(via, ids))
    back = outcome(lambda: dealframe.companies_for_skus(via, skus))
    for got, want in ((ahead, want_ids), (back, want_skus)):
        no_warning(got)
        matched_as_direct(got.value, want)


def test_a_company_served_twice_is_one_counterpart(via, direct, proxy, cohort):
    """A search answer that repeats its rows does not make every listing ``ambiguous``."""
    ids = cohort["company_id"].tolist()
    want = dealframe.skus_for_companies(direct, ids)
    proxy.add(SEARCH, repeat_rows(10_000))
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    matched_as_direct(got.value, want)
    assert not got.value["evidence"].str.contains("share this listing").any()


def test_a_listing_served_under_two_skus_is_ambiguous(via, proxy, cohort):
    """Family A serving one listing under a second SKU (a company listed twice): the row is
    ``ambiguous``, takes the closest name and says how many share the listing."""
    first = cohort.iloc[0]

    def twice(doc: Any) -> Any:
        items = doc.get("data") if isinstance(doc, dict) else None
        if isinstance(items, list):
            for item in [i for i in items if i.get("sku") == first["sku_v2"]]:
                items.append({**item, "sku": f"{first['ticker']}-ZZZ", "name": "Other Name Ltd"})
        return doc

    proxy.add(SEARCH, edit(twice))
    got = outcome(lambda: dealframe.skus_for_companies(via, [first["company_id"]]))
    assert got.error is None, got.error
    row = got.value.iloc[0]
    assert row["match"] == "ambiguous" and row["sku_v2"] == first["sku_v2"]
    assert "2 Family A companies share this listing: closest name taken" in row["evidence"]


# ------------------------------------------------------------ spellings that cannot be told


def test_unknown_exchange_spelling_is_warned_not_lost(via, proxy, cohort):
    """An exchange spelling the client does not know as the same: not linked (two spellings
    cannot be told from two exchanges), but said, naming both spellings and the SKU."""
    ids = cohort["company_id"].tolist()
    proxy.add(PROFILE, listing(lambda s: s.update(exchange="Bourse " + s["exchange"])))
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    links = got.value
    assert (links["match"] == "not_found").all() and links["sku_v2"].isna().all()
    (message,) = got.warned(ServiceContractWarning)
    assert f"{len(ids)} listing(s) not linked" in message
    assert {Path(w.filename).name for w in got.caught} == {Path(__file__).name}  # the call's line
    first = cohort.iloc[0]
    assert f"'{first['exchange']}' ({first['sku_v2']})" in links.loc[0, "evidence"]
    assert f"{first['ticker']} on BOURSE {first['exchange']}" in links.loc[0, "evidence"]


def test_a_ticker_listed_on_other_known_exchanges_is_not_a_spelling(via, proxy, listed):
    """A company listed on a known exchange where Family A has no such ticker, the ticker
    being other companies' on other known exchanges: two exchanges, not one spelt otherwise.
    It was warned as "exchanges written otherwise", naming unrelated companies."""
    tickers = listed.groupby("ticker")["exchange"].unique()
    ticker = tickers[tickers.map(len) > 1].index[0]
    other = sorted(set(listed["exchange"]) - set(tickers[ticker]))[0]
    company = listed[listed["ticker"] != ticker]["company_id"].iloc[0]
    proxy.add(PROFILE, listing(lambda s: s.update(ticker=ticker, exchange=other)))
    got = outcome(lambda: dealframe.skus_for_companies(via, [company]))
    assert got.error is None, got.error
    assert got.value["match"].tolist() == ["not_found"]
    assert got.warned(ServiceContractWarning) == []
    assert got.value.loc[0, "evidence"] == f"no Family A company lists {ticker} on {other}"


def test_listing_without_exchange_is_warned_not_lost(via, proxy, cohort):
    """A ``stock_listing`` with a ticker and a null (or absent) exchange is a listing, not
    ``not_listed``: not linked, and the Family A companies with that ticker are named."""
    ids = cohort["company_id"].head(3).tolist()
    proxy.add(PROFILE, listing(lambda s: s.update(exchange=None)), times=2)
    proxy.add(PROFILE, listing(lambda s: s.pop("exchange")))
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    assert got.value["match"].tolist() == ["not_found"] * 3
    assert got.value["evidence"].str.contains("no exchange in the profile's stock_listing").all()
    for row, sku in zip(got.value["evidence"], cohort["sku_v2"].head(3)):
        assert f"({sku})" in row
    assert "3 listing(s) not linked" in got.warned(ServiceContractWarning)[0]


@pytest.mark.parametrize(
    "listing_value",
    [None, {}, {"id": None, "ticker": None, "exchange": None, "currency": None}, "absent"],
    ids=["null", "empty", "null_members", "absent"],
)
def test_no_listing_is_not_listed(via, proxy, cohort, listing_value):
    """``stock_listing`` null, ``{}``, all members null or absent: ``not_listed``, no SKU."""
    ids = cohort["company_id"].head(2).tolist()

    def change(item: dict[str, Any]) -> None:
        if listing_value == "absent":
            item.pop("stock_listing", None)
        else:
            item["stock_listing"] = listing_value

    proxy.add(PROFILE, on_items("stock_listing", change))
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    assert got.value["match"].tolist() == ["not_listed"] * 2
    assert got.value[["sku_v1", "sku_v2"]].isna().all().all()


def test_delisted_company_is_not_found_with_its_listing(via, proxy, cohort):
    """A company Family A no longer serves (delisted) keeps its listing and says so."""
    gone = cohort.iloc[-1]
    ids = cohort["company_id"].tolist()

    def drop(doc: Any) -> Any:
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            doc["data"] = [
                i for i in doc["data"] if i.get("sku") not in (gone["sku_v1"], gone["sku_v2"])
            ]
        return doc

    proxy.add(SEARCH, edit(drop))
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    row = got.value.iloc[-1]
    assert row["match"] == "not_found" and pd.isna(row["sku_v2"])
    assert f"no Family A company lists {gone['ticker']} on {gone['exchange']}" in row["evidence"]
    assert (got.value["match"].iloc[:-1] == "matched").all()


def test_family_a_listing_without_exchange(via, proxy, cohort):
    """Current data with a null ``exchange``: no v1 SKU is made up from it (``nan_TOR``),
    the SKU asked is kept, and the candidate listing the ticker is named, not linked."""
    v1, v2 = cohort["sku_v1"].head(2).tolist(), cohort["sku_v2"].head(2).tolist()
    proxy.add(CURRENT, on_items("exchange", lambda i: i.update(exchange=None)))
    got = outcome(lambda: dealframe.companies_for_skus(via, v1 + v2))
    assert got.error is None, got.error
    links = got.value
    assert links["sku_v1"].head(2).tolist() == v1 and links["sku_v1"].tail(2).isna().all()
    assert links["sku_v2"].tail(2).tolist() == v2 and links["sku_v2"].head(2).isna().all()
    assert (links["match"] == "not_found").all() and links["company_id"].isna().all()
    assert links["evidence"].str.contains("(one missing)", regex=False).all()
    for evidence, (_, company) in zip(
        links["evidence"], pd.concat([cohort.head(2)] * 2).iterrows()
    ):
        assert f"'{company['exchange']}' ({company['company_id']})" in evidence
    assert "4 listing(s) not linked" in got.warned(ServiceContractWarning)[0]


# ---------------------------------------------------------------------- compare_multiples


def _profile_of(ids: set[str]) -> Callable[[Any], bool]:
    return lambda ex: ex.path.rsplit("/", 1)[-1] in ids


@pytest.mark.parametrize("linked", ["none", "one", "partial"])
def test_compare_multiples_with_a_partial_link(via, direct, proxy, linked):
    """Comps whose company the link cannot find keep their values (the summary is the one
    without the link) and say so: ``match`` ``not_found``, and for a listing on an exchange
    written otherwise, the other family's spelling in ``link_evidence`` and a warning; the
    others keep their ``company_id``."""
    args = {"region": "North America", "date_from": "2022-01-01"}
    want = dealframe.compare_multiples(direct, **args)
    ids = want.comps["company_id"].tolist()
    assert (want.comps["match"] == "matched").all() and len(ids) > 5
    keep = {"none": 0, "one": 1, "partial": len(ids) // 2}[linked]
    unlisted, respelt = set(ids[keep::2]), set(ids[keep + 1 :: 2])
    proxy.add(
        PROFILE,
        on_items("unlisted", lambda i: i.update(stock_listing=None)),
        when=_profile_of(unlisted),
    )
    proxy.add(
        PROFILE,
        listing(lambda s: s.update(exchange="Bourse " + s["exchange"])),
        when=_profile_of(respelt),
    )
    got = outcome(lambda: dealframe.compare_multiples(via, **args))
    assert got.error is None, got.error
    comps, was = got.value.comps, want.comps
    pd.testing.assert_frame_equal(got.value.summary, want.summary)
    pd.testing.assert_frame_equal(
        comps.drop(columns=["company_id", "match", "link_evidence"]),
        was.drop(columns=["company_id", "match", "link_evidence"]),
    )
    lost = was["company_id"].isin(unlisted | respelt)
    assert (comps.loc[~lost, "company_id"] == was.loc[~lost, "company_id"]).all()
    assert int((~lost).sum()) == keep
    assert comps.loc[lost, "company_id"].isna().all()
    assert (comps.loc[lost, "match"] == "not_found").all()
    respelt_rows = was["company_id"].isin(respelt)
    assert comps.loc[respelt_rows, "link_evidence"].str.contains("the other family lists").all()
    (message,) = got.warned(ServiceContractWarning)
    assert f"{int(respelt_rows.sum())} listing(s) not linked" in message


def test_a_vertical_only_private_companies_carry_is_compared_not_refused(via, proxy):
    """A vertical no listed company carries that merely resembles one (``Insurtech`` beside
    ``Fintech``, 0.75 alike: as alike as a typo such as ``Fintek``, 0.77; ``Agtech`` beside
    ``Adtech``, 0.83) is compared when deals carry it; the typo, which no deal carries, is
    refused naming ``vertical``."""
    gone = ("Insurtech", "Agtech")

    def drop(doc: Any) -> Any:  # a service whose listed companies carry neither
        for item in doc.get("data") or [] if isinstance(doc, dict) else []:
            if isinstance(item, dict) and isinstance(item.get("verticals"), list):
                item["verticals"] = [v for v in item["verticals"] if v not in gone]
        return doc

    proxy.add(SEARCH, edit(drop))
    for vertical in gone:
        assert len(via.private.deals(target_verticals=[vertical], limit=5)) > 0  # deals do
        got = outcome(lambda v=vertical: dealframe.compare_multiples(via, vertical=v, link=False))
        assert got.error is None, (vertical, got.error)
        assert got.value.summary.attrs["deals"] > 0
    typo = outcome(lambda: dealframe.compare_multiples(via, vertical="Fintek", link=False))
    assert isinstance(typo.error, dealframe.errors.ValidationError), typo.error
    assert "invalid vertical[0]" in str(typo.error) and "'Fintech'?" in str(typo.error)


# ------------------------------------------------------ countries the country filters refuse


def searched(proxy: Any) -> list[Any]:
    """The ``countries`` of every Family A search from now on (None: everywhere), as sent."""
    asked: list[Any] = []

    def record(ex: Any) -> None:
        asked.append(ex.body.get("countries") if isinstance(ex.body, dict) else None)

    proxy.add(SEARCH, Action("record", on_request=record), method="POST")
    return asked


@pytest.mark.parametrize("code", ["ANT", "KOS"])
def test_a_profile_country_no_filter_takes_searches_everywhere(via, direct, proxy, cohort, code):
    """Profiles whose ``country`` is ``ANT`` (Netherlands Antilles, withdrawn from ISO 3166;
    the IOC's Antigua) or ``KOS`` (the IOC's Kosovo) on the first company: the link used to
    pass the service's countries to the search as a filter, which refuses them, and failed
    with a ValidationError about ``countries[0]``, an argument the caller never gave. Such a
    country is never sent: everything is searched and the links are the direct client's;
    the profiles' finding names the country."""
    ids = cohort["company_id"].tolist()
    want = dealframe.skus_for_companies(direct, ids)
    proxy.add(PROFILE, on_items("country", lambda i: i.update(country=code)), times=1)
    asked = searched(proxy)
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    matched_as_direct(got.value, want)
    assert got.value["country"].tolist().count(code) == 1
    assert asked == [None, None], asked  # v1 and v2, everywhere; never a country filter
    (message,) = got.warned(ServiceContractWarning)
    assert f"'{code}' (1; " in message and "no country filter takes" in message, message


@pytest.mark.parametrize("code", ["ANT", "KOS"])
def test_a_current_country_no_filter_takes_searches_everywhere(via, direct, proxy, cohort, code):
    """Current data whose ``countryCodeIso3`` is ``ANT`` or ``KOS``: the SKUs link as they
    do directly (both versions' SKUs found, everything searched), no ValidationError."""
    skus = cohort["sku_v2"].tolist()
    want = dealframe.companies_for_skus(direct, skus)
    proxy.add(CURRENT, on_items("countryCodeIso3", lambda i: i.update(countryCodeIso3=code)))
    asked = searched(proxy)
    got = outcome(lambda: dealframe.companies_for_skus(via, skus))
    assert got.error is None, got.error
    matched_as_direct(got.value, want)
    assert (got.value["public_country"] == code).all()
    assert asked == [None, None], asked
    (message,) = got.warned(ServiceContractWarning)
    assert f"'{code}' ({len(skus)}; " in message and "no country filter takes" in message


@pytest.mark.parametrize("value", [None, "", "  "], ids=["null", "blank", "spaces"])
def test_a_current_country_left_null_or_blank_searches_everywhere(
    via, direct, proxy, cohort, value
):
    """Current data whose ``countryCodeIso3`` is null or blank: the sibling SKU of each used
    to be lost (``sku_v1`` NaN, no Family A search sent at all, a country being needed to
    search by), where a code no filter takes searched everywhere. A country the service
    leaves out is no filter either: everything is searched, the links are the direct ones."""
    skus = cohort["sku_v2"].tolist()
    want = dealframe.companies_for_skus(direct, skus)
    assert want["sku_v1"].notna().all(), want
    proxy.add(CURRENT, on_items("countryCodeIso3", lambda i: i.update(countryCodeIso3=value)))
    asked = searched(proxy)
    got = outcome(lambda: dealframe.companies_for_skus(via, skus))
    assert got.error is None, got.error
    matched_as_direct(got.value, want)
    assert asked == [None, None], asked  # v1 and v2, everywhere


def test_a_profile_country_written_as_the_ioc_does_is_the_same_country(via, direct, proxy, cohort):
    """A profile's ``GER`` beside a listing's ``DEU`` is one country written two ways: the
    evidence used to say "other country", where the document's links are those of the codes
    meant. Both directions say ``same country ('GER' taken as 'DEU')``; a code meaning no
    country (``ANT``) is said as such, neither same nor other."""
    german = cohort[cohort["sku_v2"].str.endswith("-DEU")]
    assert len(german) >= 1, cohort
    ids, skus = german["company_id"].tolist(), german["sku_v2"].tolist()
    proxy.add(PROFILE, on_items("country", lambda i: i.update(country="GER")))
    got = outcome(lambda: dealframe.skus_for_companies(via, ids))
    assert got.error is None, got.error
    assert (got.value["match"] == "matched").all(), got.value["evidence"].tolist()
    for text in got.value["evidence"]:
        assert text.endswith("; same country ('GER' taken as 'DEU')"), text
    proxy.reset()
    proxy.add(CURRENT, on_items("countryCodeIso3", lambda i: i.update(countryCodeIso3="ANT")))
    back = outcome(lambda: dealframe.companies_for_skus(via, skus))
    assert back.error is None, back.error
    for text in back.value["evidence"]:
        assert text.endswith("; country 'ANT' (no ISO 3166 code)"), text
