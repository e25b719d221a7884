"""compare_multiples names its own arguments when a filter it forwards is refused (issue 15)."""

from __future__ import annotations

import pytest

from dealframe.comparison import _named_as_ours
from dealframe.errors import ValidationError
from dealframe.private.filters import EnumValueError, FilterSchema

_DOC = {
    "filters": [
        {"field": f, "type": "array_string", "operators": ["in"], "values": ["Fintech", "Africa"]}
        for f in ("target_verticals", "target_region", "deal_type")
    ]
}


@pytest.mark.parametrize(
    ("forwarded", "ours"),
    [("target_verticals", "vertical"), ("target_region", "region"), ("deal_type", "deal_type")],
)
def test_refused_filters_name_the_argument_given(forwarded, ours):
    """A discovery document whose enum lists refuse the value: the error names the argument
    of compare_multiples, keeps its class, the close match and the value."""
    with pytest.raises(EnumValueError) as raised, _named_as_ours():
        FilterSchema("transactions", _DOC).build({forwarded: ["Fintek"]})
    assert raised.value.argument == ours
    assert str(raised.value).startswith(f"invalid {ours}: expected values from Fintech, Africa")
    assert "did you mean 'Fintech'?" in str(raised.value) and "got 'Fintek'" in str(raised.value)


def test_positions_are_kept_and_other_errors_pass():
    with pytest.raises(ValidationError, match=r"^invalid vertical\[1\]: expected a string"):
        with _named_as_ours():
            FilterSchema("transactions", _DOC).build({"target_verticals": ["Fintech", 3]})
    with pytest.raises(ValidationError, match=r"^invalid date_from: "):
        with _named_as_ours():
            FilterSchema("transactions", _DOC).build({"date_from": "x"})
