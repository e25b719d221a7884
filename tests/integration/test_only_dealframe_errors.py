"""Only dealframe errors leave public functions (issue 12, case 9): numbers past 64 bits,
unusable cache paths and wrong types each get a typed error naming the argument."""

from __future__ import annotations

from pathlib import Path

import pytest

import dealframe
from dealframe.errors import ConfigurationError, DealframeError, ValidationError

HUGE = [2**64, -(2**64), 10**30, 2**1000]


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


@pytest.mark.parametrize("number", HUGE)
@pytest.mark.parametrize(
    "call",
    [
        lambda c, n: c.private.deals(valuation_min=n),
        lambda c, n: c.private.companies(founded_min=n),
        lambda c, n: c.private.aggregate("ev_revenue", "year", raised_max=n),
        lambda c, n: c.public.search(enterprise_value_above=n),
        lambda c, n: c.private.page("transactions", page=n),
        lambda c, n: c.private.deals(limit=n) if n < 0 else c.private.page("companies", limit=n),
    ],
    ids=["deal filter", "company filter", "aggregate filter", "search", "page", "limit"],
)
def test_numbers_past_64_bits_are_validation_errors(client, call, number):
    with pytest.raises(ValidationError) as info:
        call(client, number)
    assert info.value.argument in (
        "valuation_min",
        "founded_min",
        "raised_max",
        "enterprise_value_above",
        "page",
        "limit",
    )


@pytest.mark.parametrize("path", ["bad\x00name.sqlite", 123, b"bytes.sqlite", ""])
def test_unusable_cache_paths_are_configuration_errors(path):
    with pytest.raises(ConfigurationError) as info:
        dealframe.Client("http://127.0.0.1:9", "a", "b", cache_path=path)
    assert info.value.field == "cache_path"


def test_a_cache_path_that_cannot_be_created_is_a_configuration_error(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for path in (blocker / "cache.sqlite", Path("/proc/no-such-dir/cache.sqlite")):
        with pytest.raises(ConfigurationError, match="cannot open the HTTP cache") as info:
            dealframe.Client("http://127.0.0.1:9", "a", "b", cache_path=path)
        assert info.value.field == "cache_path"


@pytest.mark.parametrize("bad", [None, 3, "deals", [1, 2]])
def test_participant_helpers_refuse_what_is_not_a_frame(bad):
    with pytest.raises(DealframeError):
        dealframe.co_investment_edges(bad)
    if bad is None:
        with pytest.raises(ValidationError, match="deals"):
            dealframe.explode_participants(bad)
