"""Country codes as the country filters take them: the ISO 3166-1 alpha-3 codes assigned, and
what a code that is none of them most likely meant.

The interface document types every country (Family A's ``countryCodeIso3``, Family B's
``country`` and ``target_country``) as ISO 3166 alpha-3. A code of the right shape that is no
such code (``GER``, the IOC's and FIFA's code for Germany; ``UKK``; ``ZZZ``) matches no row:
the call would return an empty frame that says nothing. The assigned codes come from
pycountry (the ISO 3166-1 table of the iso-codes project, updated with each ISO change).

One code outside that table is taken: ``XKX``, Kosovo. ISO 3166-1 has no code for Kosovo and
leaves the ranges ``AAA``-``AAZ``, ``QMA``-``QZZ``, ``XAA``-``XZZ`` and ``ZZA``-``ZZZ`` to its
users; ``XKX`` is the one of them the European Commission, the World Bank, SWIFT and many
data vendors use for Kosovo. The other codes of those ranges name no country and are refused.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pycountry

__all__ = ["NOT_ISO", "USER_ASSIGNED", "WITHDRAWN", "is_country", "meant", "why_not"]

#: Codes of the user-assigned ranges of ISO 3166-1 taken as countries, with their names.
USER_ASSIGNED: dict[str, str] = {"XKX": "Kosovo"}

#: Country codes in common use that are no ISO 3166-1 alpha-3 code, with the code meant: the
#: IOC's (Olympic) and FIFA's codes where they differ from ISO's (``GER``, ``NED``, ``SUI``,
#: ``DEN``, ``POR`` ...; source: the IOC's list of National Olympic Committee codes and
#: FIFA's list of member associations), FIFA's home nations of the United Kingdom, the
#: alpha-2 codes ISO reserves for other uses (``UK``, ``EL``: the European Union's codes
#: for the United Kingdom and Greece), Kosovo's user-assigned alpha-2 code (``XK``), ``UKK``
#: and Romania's code before 2002 (``ROM``). A code that is an assigned ISO code of another
#: country (the IOC's ``BRN`` for Bahrain is ISO's Brunei) cannot be told from it and is not
#: listed; a code ISO withdrew that the IOC uses for another country is in :data:`WITHDRAWN`.
NOT_ISO: dict[str, str] = {
    # the IOC's and FIFA's codes
    "ALG": "DZA", "ANG": "AGO", "ARU": "ABW", "ASA": "ASM", "BAH": "BHS", "BAN": "BGD",
    "BAR": "BRB", "BER": "BMU", "BHU": "BTN", "BIZ": "BLZ", "BOT": "BWA", "BRU": "BRN",
    "BUL": "BGR", "CAM": "KHM", "CAY": "CYM", "CGO": "COG", "CHA": "TCD", "CHI": "CHL",
    "CRC": "CRI", "CRO": "HRV", "DEN": "DNK", "ESA": "SLV", "FIJ": "FJI", "GAM": "GMB",
    "GBS": "GNB", "GEQ": "GNQ", "GER": "DEU", "GRE": "GRC", "GRN": "GRD", "GUA": "GTM",
    "GUI": "GIN", "HAI": "HTI", "HON": "HND", "INA": "IDN", "IRI": "IRN", "ISV": "VIR",
    "IVB": "VGB", "KOS": "XKX", "KSA": "SAU", "KUW": "KWT", "LAT": "LVA", "LBA": "LBY",
    "LES": "LSO", "LIB": "LBN", "MAD": "MDG", "MAS": "MYS", "MAW": "MWI", "MGL": "MNG",
    "MON": "MCO", "MRI": "MUS", "MTN": "MRT", "MYA": "MMR", "NCA": "NIC", "NED": "NLD",
    "NEP": "NPL", "NGR": "NGA", "NIG": "NER", "OMA": "OMN", "PAR": "PRY", "PHI": "PHL",
    "PLE": "PSE", "POR": "PRT", "PUR": "PRI", "RSA": "ZAF", "SAM": "WSM", "SEY": "SYC",
    "SKN": "KNA", "SLO": "SVN", "SOL": "SLB", "SRI": "LKA", "SUD": "SDN", "SUI": "CHE",
    "TAN": "TZA", "TGA": "TON", "TOG": "TGO", "TPE": "TWN", "UAE": "ARE", "URU": "URY",
    "VAN": "VUT", "VIE": "VNM", "VIN": "VCT", "ZAM": "ZMB", "ZIM": "ZWE",
    # FIFA's own codes where they differ from both ISO's and the IOC's; Singapore's IOC
    # code until 2016 (FIFA's still)
    "CTA": "CAF", "EQG": "GNQ", "KVX": "XKX", "NMI": "MNP", "SIN": "SGP", "TAH": "PYF",
    "TRI": "TTO",
    # the United Kingdom: FIFA's home nations and other spellings
    "ENG": "GBR", "SCO": "GBR", "WAL": "GBR", "NIR": "GBR", "UKK": "GBR", "UK": "GBR",
    # Greece as the European Union writes it; Kosovo's user-assigned alpha-2 code (as XKX
    # is its alpha-3 one); Romania's code until 2002
    "EL": "GRC", "XK": "XKX", "ROM": "ROU",
}  # fmt: skip

#: Codes ISO 3166-1 withdrew that the IOC uses for another country, with that country's
#: code and who uses it: ``ANT`` was the Netherlands Antilles until 2010 and is the IOC's
#: Antigua and Barbuda (FIFA's ``ATG``); ``BUR`` was Burma until 1989 (now ``MMR``) and is
#: the IOC's Burkina Faso (FIFA's ``BFA``).
WITHDRAWN: dict[str, tuple[str, str]] = {
    "ANT": ("ATG", "the IOC's code for"),
    "BUR": ("BFA", "the IOC's code for"),
}

#: Three capital letters: the shape of an alpha-3 code.
_CODE = re.compile(r"[A-Z]{3}")
#: Two capital letters: the shape of an alpha-2 code.
_ALPHA_2 = re.compile(r"[A-Z]{2}")
#: The user-assigned ranges of ISO 3166-1 alpha-3.
_USER_RANGES = re.compile(r"AA[A-Z]|Q[M-Z][A-Z]|X[A-Z]{2}|ZZ[A-Z]")


@functools.cache
def _assigned() -> dict[str, str]:
    """The assigned alpha-3 codes with a name each (common name where one is given), and
    :data:`USER_ASSIGNED`."""
    named = {c.alpha_3: getattr(c, "common_name", c.name) for c in pycountry.countries}
    return {**named, **USER_ASSIGNED}


def is_country(code: str) -> bool:
    """Whether ``code`` is an assigned ISO 3166-1 alpha-3 code, or one of :data:`USER_ASSIGNED`.

    Examples
    --------
    >>> is_country("DEU"), is_country("XKX"), is_country("GER"), is_country("deu")
    (True, True, False, False)
    """
    return code in _assigned()


def why_not(value: str) -> str:
    """Why ``value`` is no country code, and the code most likely meant, in the words of a
    :class:`~dealframe.errors.ValidationError` hint (parenthesised, with a leading space).

    The code meant, from the first that tells: ``value`` in upper case when that is a code
    (``gbr``); :data:`NOT_ISO` (``GER``, ``UK``, ``XK``); an alpha-2 code, said as one (``DE``;
    ``NA``, Namibia's, which a reader of "not available" may not expect); a country's name
    or official name (``Germany``, case ignored). Else what the code is: one of a
    user-assigned range, one ISO withdrew (``ANT``, Netherlands Antilles; with the country
    the IOC uses it for, :data:`WITHDRAWN`), or unassigned.

    Examples
    --------
    >>> why_not("gbr")
    " (did you mean 'GBR'?)"
    >>> why_not("GER")
    " (did you mean 'DEU', Germany? 'GER' is no ISO 3166 code)"
    >>> why_not("de")
    " (did you mean 'DEU', Germany? 'DE' is its ISO 3166 alpha-2 code)"
    >>> why_not("NA")
    " (did you mean 'NAM', Namibia? 'NA' is its ISO 3166 alpha-2 code)"
    >>> why_not("Germany")
    " (did you mean 'DEU', Germany?)"
    >>> why_not("ZZZ")
    " ('ZZZ' is user-assigned in ISO 3166, no country: only 'XKX', Kosovo, is taken)"
    >>> why_not("ANT")
    " ('ANT' was withdrawn from ISO 3166: Netherlands Antilles; it is the IOC's code for Antigua and Barbuda, 'ATG')"
    >>> why_not("ABD")
    " ('ABD' is not an assigned ISO 3166 code)"
    """
    text = value.strip()
    code = text.upper() if text.isascii() else text  # "ß".upper() is "SS", South Sudan's
    assigned = _assigned()
    if code in assigned:
        return f" (did you mean {code!r}?)"
    found, note = _meant(text)
    if found is not None:
        return f" (did you mean {found!r}, {assigned[found]}?{note})"
    if not _CODE.fullmatch(code):
        return ""
    if _USER_RANGES.fullmatch(code):
        taken = " and ".join(f"{c!r}, {name}," for c, name in USER_ASSIGNED.items())
        return f" ({code!r} is user-assigned in ISO 3166, no country: only {taken} is taken)"
    former = pycountry.historic_countries.get(alpha_3=code)
    if former is not None:
        also = ""
        if code in WITHDRAWN:
            other, who = WITHDRAWN[code]
            also = f"; it is {who} {assigned[other]}, {other!r}"
        return f" ({code!r} was withdrawn from ISO 3166: {former.name}{also})"
    return f" ({code!r} is not an assigned ISO 3166 code)"


def meant(value: Any) -> str | None:
    """The country code ``value`` most likely means, as :func:`why_not` suggests it: ``value``
    itself when it is a code (:func:`is_country`), else in upper case (``usa``), from
    :data:`NOT_ISO` (``GER``), an alpha-2 code (``DE``) or a country's name; None for what
    tells no country (``ANT``, ``ZZZ``, a blank, a null, a number).

    Two values meaning the same code are the same country written two ways (``GER`` and
    ``DEU``): what the link's evidence compares.

    Examples
    --------
    >>> meant("DEU"), meant("GER"), meant("deu"), meant("DE"), meant("ANT"), meant(None)
    ('DEU', 'DEU', 'DEU', 'DEU', None, None)
    >>> meant("ß"), meant("ss")  # no upper-casing of what is not ASCII ("SS": South Sudan)
    (None, 'SSD')
    """
    if not isinstance(value, str):
        return None
    if is_country(value):
        return value
    text = value.strip()
    if text.isascii() and is_country(text.upper()):
        return text.upper()
    return _meant(text)[0]


def _meant(text: str) -> tuple[str | None, str]:
    """The code ``text`` (stripped, no code as it stands) most likely means, from
    :data:`NOT_ISO`, an alpha-2 code or a name, with the words :func:`why_not` says of it."""
    if not text.isascii():  # no code but by a name ("Österreich" is none of pycountry's)
        return _by_name(text), ""
    code = text.upper()
    found = NOT_ISO.get(code)
    if found is not None:
        return found, f" {code!r} is no ISO 3166 code" if _CODE.fullmatch(code) else ""
    if _ALPHA_2.fullmatch(code) and (country := pycountry.countries.get(alpha_2=code)):
        return str(country.alpha_3), f" {code!r} is its ISO 3166 alpha-2 code"
    return _by_name(text), ""


def _by_name(text: str) -> str | None:
    """The alpha-3 code of the country whose alpha-2 code, name or official name ``text``
    is (case ignored), else None.

    Examples
    --------
    >>> _by_name("germany"), _by_name("DE"), _by_name("Atlantis")
    ('DEU', 'DEU', None)
    """
    if not text:
        return None
    try:
        return str(pycountry.countries.lookup(text).alpha_3)
    except LookupError:
        return None
