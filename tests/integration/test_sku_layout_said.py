"""A v2 SKU refused before sending says what is wrong and where, over real HTTP through the
drift proxy (which counts that nothing is sent).

``acme-usa`` and ``ACME-Usa`` (a country code in lower case) are refused before any request,
as they were; the message used to say only ``expected a v2 SKU <TICKER>-<ISO3>[.N]``, while
docs/real-service.md says a refusal names the character and its position. It now names the
first lower-case letter of the country, its position, and the SKU as the layout writes it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    fresh,
    fresh_rules,
    no_hang,
    outcome,
    proxy,
)

from dealframe.errors import ValidationError


@pytest.mark.parametrize(
    ("sku", "said"),
    [
        ("acme-usa", "'u' at position 5 is lower case"),
        ("ACME-Usa", "'s' at position 6 is lower case"),
        ("BRK.B-usa.1", "'u' at position 6 is lower case"),
    ],
)
@pytest.mark.parametrize("call", ["current", "time_series"])
def test_a_country_code_in_lower_case_is_refused_naming_its_letter(sku, said, call, fresh, proxy):
    """Refused before any request, as before; the message names the letter, its position,
    the rule (3 capital letters) and the SKU as the layout writes it."""
    o = outcome(lambda: getattr(fresh.public, call)(["ACME-USA", sku]))
    assert isinstance(o.error, ValidationError), repr(o.error)
    text = str(o.error)
    assert text.startswith("invalid skus[1]: "), text
    assert said in text and "3 capital letters" in text, text
    assert repr(sku[: sku.rfind("-") + 1] + sku[sku.rfind("-") + 1 :].upper()) in text, text
    assert sum(proxy.hits.values()) == 0, proxy.seen  # nothing was sent
