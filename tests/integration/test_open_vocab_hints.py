"""Family B's open vocabularies (verticals, themes, ...) are matched exactly by the service:
a value spelt otherwise matches nothing, and the empty answer says which value and the close
spelling the companies carry (as Family A's search does), never silently."""

from __future__ import annotations

import warnings

import pytest

import dealframe
from dealframe.notices import MissingDataWarning


@pytest.fixture(scope="module")
def client(sandbox):
    with dealframe.Client.for_sandbox(sandbox, cache_enabled=False, progress=False) as c:
        yield c


@pytest.fixture(scope="module")
def carried(client):
    """A vertical and a theme the companies carry."""
    rows = client.private.companies(limit=200)
    vertical = next(v for cell in dealframe.to_lists(rows["verticals"]).dropna() for v in cell)
    theme = next(v for cell in dealframe.to_lists(rows["themes"]).dropna() for v in cell)
    return vertical, theme


def calls(client):
    return client.stats.snapshot()["calls"]


def test_a_value_in_another_case_is_named_with_the_carried_spelling(client, carried):
    vertical, theme = carried
    with pytest.warns(MissingDataWarning) as seen:
        frame = client.private.companies(verticals=[vertical.lower()])
    assert len(frame) == 0
    (message,) = [str(w.message) for w in seen if "filters.verticals[0]" in str(w.message)]
    assert repr(vertical.lower()) in message and f"did you mean {vertical!r}" in message
    with pytest.warns(MissingDataWarning, match=rf"filters\.themes\[1\].*{theme!r}"):
        frame = client.private.companies(themes=["Qqqqzzzz", theme.swapcase()])
    assert len(frame) == 0


def test_deals_filtered_on_a_misspelt_target_vertical_say_so(client, carried):
    vertical, _ = carried
    before = calls(client)
    with pytest.warns(MissingDataWarning, match=rf"filters\.target_verticals\[0\].*{vertical!r}"):
        deals = client.private.deals(target_verticals=[vertical.swapcase()])
    assert len(deals) == 0 and calls(client) > before


def test_nothing_is_said_or_asked_when_rows_arrive_or_nothing_is_close(client, carried):
    vertical, _ = carried
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingDataWarning)
        before = calls(client)
        assert len(client.private.companies(verticals=[vertical], limit=5)) == 5
        after_rows = calls(client)
        assert len(client.private.companies(verticals=["Qqqqzzzz Wwww"])) == 0
    assert after_rows - before >= 1
    assert calls(client) - after_rows == 2  # the empty list, then one page read for the hint
