"""Countries the sandbox draws from: region, currency, exchanges and cities.

Every region of the interface document's vocabulary is covered. Rates are
USD per one unit of the local currency (``rateToUsd``). :data:`LEGAL_FORMS` gives the
legal suffixes a company name of each country may carry (a listed company's are its
country's public-company forms).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COUNTRIES", "LEGAL_FORMS", "Country", "LegalForms"]


@dataclass(frozen=True)
class Country:
    iso3: str
    name: str
    region: str
    currency: str
    rate_to_usd: float
    exchanges: tuple[str, ...]
    cities: tuple[str, ...]
    weight: float


COUNTRIES: tuple[Country, ...] = (
    Country(
        "USA",
        "United States",
        "North America",
        "USD",
        1.0,
        ("NASDAQ", "NYSE"),
        ("New York", "San Francisco", "Austin", "Boston", "Seattle"),
        30.0,
    ),
    Country("CAN", "Canada", "North America", "CAD", 0.73, ("TSX",), ("Toronto", "Vancouver"), 3.0),
    Country(
        "GBR",
        "United Kingdom",
        "Northern Europe",
        "GBP",
        1.27,
        ("LSE",),
        ("London", "Manchester", "Cambridge"),
        7.0,
    ),
    Country(
        "SWE", "Sweden", "Northern Europe", "SEK", 0.095, ("OMX",), ("Stockholm", "Gothenburg"), 1.5
    ),
    Country("NOR", "Norway", "Northern Europe", "NOK", 0.094, ("OSE",), ("Oslo",), 0.8),
    Country(
        "DNK", "Denmark", "Northern Europe", "DKK", 0.145, ("CSE",), ("Copenhagen", "Aarhus"), 0.8
    ),
    Country("FIN", "Finland", "Northern Europe", "EUR", 1.08, ("HEX",), ("Helsinki",), 0.7),
    Country("IRL", "Ireland", "Northern Europe", "EUR", 1.08, ("ISE",), ("Dublin", "Cork"), 0.8),
    Country(
        "DEU",
        "Germany",
        "Western Europe",
        "EUR",
        1.08,
        ("XETRA",),
        ("Berlin", "Munich", "Hamburg"),
        4.5,
    ),
    Country("FRA", "France", "Western Europe", "EUR", 1.08, ("EPA",), ("Paris", "Lyon"), 4.0),
    Country(
        "NLD",
        "Netherlands",
        "Western Europe",
        "EUR",
        1.08,
        ("AMS",),
        ("Amsterdam", "Rotterdam"),
        1.5,
    ),
    Country(
        "CHE", "Switzerland", "Western Europe", "CHF", 1.12, ("SIX",), ("Zurich", "Geneva"), 1.5
    ),
    Country("BEL", "Belgium", "Western Europe", "EUR", 1.08, ("EBR",), ("Brussels", "Ghent"), 0.7),
    Country("AUT", "Austria", "Western Europe", "EUR", 1.08, ("WBAG",), ("Vienna",), 0.5),
    Country("ESP", "Spain", "Southern Europe", "EUR", 1.08, ("BME",), ("Madrid", "Barcelona"), 2.0),
    Country("ITA", "Italy", "Southern Europe", "EUR", 1.08, ("MIL",), ("Milan", "Rome"), 1.5),
    Country("PRT", "Portugal", "Southern Europe", "EUR", 1.08, ("ELI",), ("Lisbon", "Porto"), 0.6),
    Country("GRC", "Greece", "Southern Europe", "EUR", 1.08, ("ATHEX",), ("Athens",), 0.4),
    Country("POL", "Poland", "Eastern Europe", "PLN", 0.25, ("WSE",), ("Warsaw", "Krakow"), 1.0),
    Country("CZE", "Czechia", "Eastern Europe", "CZK", 0.043, ("PSE",), ("Prague", "Brno"), 0.5),
    Country(
        "ROU", "Romania", "Eastern Europe", "RON", 0.22, ("BVB",), ("Bucharest", "Cluj-Napoca"), 0.4
    ),
    Country("UKR", "Ukraine", "Eastern Europe", "UAH", 0.024, ("PFTS",), ("Kyiv", "Lviv"), 0.4),
    Country("JPN", "Japan", "East Asia", "JPY", 0.0067, ("TSE",), ("Tokyo", "Osaka"), 3.0),
    Country(
        "CHN",
        "China",
        "East Asia",
        "CNY",
        0.138,
        ("SSE", "SZSE"),
        ("Shanghai", "Beijing", "Shenzhen"),
        5.0,
    ),
    Country("KOR", "South Korea", "East Asia", "KRW", 0.00073, ("KRX",), ("Seoul", "Busan"), 1.5),
    Country("TWN", "Taiwan", "East Asia", "TWD", 0.031, ("TWSE",), ("Taipei", "Hsinchu"), 0.8),
    Country("HKG", "Hong Kong", "East Asia", "HKD", 0.128, ("HKEX",), ("Hong Kong",), 1.0),
    Country(
        "IND",
        "India",
        "South Asia",
        "INR",
        0.012,
        ("NSE", "BSE"),
        ("Bengaluru", "Mumbai", "Delhi"),
        4.0,
    ),
    Country("PAK", "Pakistan", "South Asia", "PKR", 0.0036, ("PSX",), ("Karachi", "Lahore"), 0.4),
    Country("BGD", "Bangladesh", "South Asia", "BDT", 0.0091, ("DSE",), ("Dhaka",), 0.3),
    Country("SGP", "Singapore", "South-East Asia", "SGD", 0.74, ("SGX",), ("Singapore",), 1.5),
    Country(
        "IDN",
        "Indonesia",
        "South-East Asia",
        "IDR",
        0.000063,
        ("IDX",),
        ("Jakarta", "Surabaya"),
        1.0,
    ),
    Country(
        "VNM",
        "Vietnam",
        "South-East Asia",
        "VND",
        0.00004,
        ("HOSE",),
        ("Ho Chi Minh City", "Hanoi"),
        0.5,
    ),
    Country("MYS", "Malaysia", "South-East Asia", "MYR", 0.21, ("MYX",), ("Kuala Lumpur",), 0.5),
    Country("THA", "Thailand", "South-East Asia", "THB", 0.028, ("SET",), ("Bangkok",), 0.5),
    Country("PHL", "Philippines", "South-East Asia", "PHP", 0.018, ("PSE",), ("Manila",), 0.4),
    Country(
        "BRA", "Brazil", "Latin America", "BRL", 0.19, ("B3",), ("Sao Paulo", "Rio de Janeiro"), 1.5
    ),
    Country(
        "MEX", "Mexico", "Latin America", "MXN", 0.058, ("BMV",), ("Mexico City", "Monterrey"), 0.8
    ),
    Country("ARG", "Argentina", "Latin America", "ARS", 0.0011, ("BCBA",), ("Buenos Aires",), 0.5),
    Country("CHL", "Chile", "Latin America", "CLP", 0.0011, ("BCS",), ("Santiago",), 0.4),
    Country(
        "COL", "Colombia", "Latin America", "COP", 0.00025, ("BVC",), ("Bogota", "Medellin"), 0.4
    ),
    Country("ISR", "Israel", "Middle East", "ILS", 0.27, ("TASE",), ("Tel Aviv", "Haifa"), 1.5),
    Country(
        "ARE",
        "United Arab Emirates",
        "Middle East",
        "AED",
        0.27,
        ("DFM",),
        ("Dubai", "Abu Dhabi"),
        0.8,
    ),
    Country("SAU", "Saudi Arabia", "Middle East", "SAR", 0.27, ("TADAWUL",), ("Riyadh",), 0.5),
    Country("TUR", "Turkey", "Middle East", "TRY", 0.03, ("BIST",), ("Istanbul", "Ankara"), 0.5),
    Country(
        "ZAF", "South Africa", "Africa", "ZAR", 0.055, ("JSE",), ("Johannesburg", "Cape Town"), 0.7
    ),
    Country("NGA", "Nigeria", "Africa", "NGN", 0.00065, ("NGX",), ("Lagos", "Abuja"), 0.5),
    Country("KEN", "Kenya", "Africa", "KES", 0.0078, ("NSE-KE",), ("Nairobi",), 0.4),
    Country("EGY", "Egypt", "Africa", "EGP", 0.02, ("EGX",), ("Cairo",), 0.3),
    Country(
        "KAZ", "Kazakhstan", "Central Asia", "KZT", 0.0021, ("KASE",), ("Almaty", "Astana"), 0.3
    ),
    Country("UZB", "Uzbekistan", "Central Asia", "UZS", 0.00008, ("UZSE",), ("Tashkent",), 0.2),
    Country("AUS", "Australia", "Oceania", "AUD", 0.66, ("ASX",), ("Sydney", "Melbourne"), 2.0),
    Country(
        "NZL", "New Zealand", "Oceania", "NZD", 0.61, ("NZX",), ("Auckland", "Wellington"), 0.5
    ),
)


@dataclass(frozen=True)
class LegalForms:
    """Legal suffixes of one country's company names: ``private`` ones for private companies,
    ``public`` ones for listed companies (a German start-up is a GmbH, a listed one an AG)."""

    private: tuple[str, ...]
    public: tuple[str, ...]


_LTD_PLC = LegalForms(("Ltd",), ("plc",))
_CO_LTD = LegalForms(("Co., Ltd.",), ("Co., Ltd.",))

#: Legal forms by ISO3 country code (every country of :data:`COUNTRIES`).
LEGAL_FORMS: dict[str, LegalForms] = {
    "USA": LegalForms(("Inc", "LLC"), ("Inc", "Corp")),
    "CAN": LegalForms(("Inc", "Ltd"), ("Inc", "Corp")),
    "GBR": _LTD_PLC,
    "SWE": LegalForms(("AB",), ("AB",)),
    "NOR": LegalForms(("AS",), ("ASA",)),
    "DNK": LegalForms(("ApS", "A/S"), ("A/S",)),
    "FIN": LegalForms(("Oy",), ("Oyj",)),
    "IRL": LegalForms(("Ltd", "DAC"), ("plc",)),
    "DEU": LegalForms(("GmbH",), ("AG", "SE")),
    "FRA": LegalForms(("SAS",), ("SA",)),
    "NLD": LegalForms(("BV",), ("NV",)),
    "CHE": LegalForms(("GmbH", "AG"), ("AG", "SA")),
    "BEL": LegalForms(("BV", "SRL"), ("NV", "SA")),
    "AUT": LegalForms(("GmbH",), ("AG",)),
    "ESP": LegalForms(("SL",), ("SA",)),
    "ITA": LegalForms(("Srl",), ("SpA",)),
    "PRT": LegalForms(("Lda",), ("SA",)),
    "GRC": LegalForms(("IKE",), ("SA",)),
    "POL": LegalForms(("sp. z o.o.",), ("SA",)),
    "CZE": LegalForms(("s.r.o.",), ("a.s.",)),
    "ROU": LegalForms(("SRL",), ("SA",)),
    "UKR": LegalForms(("LLC",), ("PJSC",)),
    "JPN": LegalForms(("KK", "GK"), ("KK",)),
    "CHN": _CO_LTD,
    "KOR": _CO_LTD,
    "TWN": _CO_LTD,
    "HKG": LegalForms(("Ltd",), ("Ltd",)),
    "IND": LegalForms(("Pvt Ltd",), ("Ltd",)),
    "PAK": LegalForms(("Pvt Ltd",), ("Ltd",)),
    "BGD": LegalForms(("Ltd",), ("PLC",)),
    "SGP": LegalForms(("Pte Ltd",), ("Ltd",)),
    "IDN": LegalForms(("PT",), ("Tbk",)),
    "VNM": LegalForms(("LLC",), ("JSC",)),
    "MYS": LegalForms(("Sdn Bhd",), ("Bhd",)),
    "THA": LegalForms(("Co., Ltd.",), ("PCL",)),
    "PHL": LegalForms(("Inc",), ("Inc", "Corp")),
    "BRA": LegalForms(("Ltda",), ("SA",)),
    "MEX": LegalForms(("S. de R.L.",), ("SAB de CV",)),
    "ARG": LegalForms(("SRL",), ("SA",)),
    "CHL": LegalForms(("SpA",), ("SA",)),
    "COL": LegalForms(("SAS",), ("SA",)),
    "ISR": LegalForms(("Ltd",), ("Ltd",)),
    "ARE": LegalForms(("LLC", "FZ-LLC"), ("PJSC",)),
    "SAU": LegalForms(("LLC",), ("JSC",)),
    "TUR": LegalForms(("Ltd. Şti.",), ("AŞ",)),
    "ZAF": LegalForms(("(Pty) Ltd",), ("Ltd",)),
    "NGA": LegalForms(("Ltd",), ("Plc",)),
    "KEN": LegalForms(("Ltd",), ("Plc",)),
    "EGY": LegalForms(("LLC",), ("SAE",)),
    "KAZ": LegalForms(("LLP",), ("JSC",)),
    "UZB": LegalForms(("LLC",), ("JSC",)),
    "AUS": LegalForms(("Pty Ltd",), ("Ltd",)),
    "NZL": LegalForms(("Ltd",), ("Ltd",)),
}
