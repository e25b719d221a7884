"""A misspelt vertical given to ``compare_multiples`` gives one message, naming ``vertical``.

``compare_multiples(client, vertical="Fintek")`` raised the right ``ValidationError`` (did you
mean 'Fintech'?), but first its probe request (is any deal of 'Fintek'?) let out the empty
answer's own hint: a ``MissingDataWarning`` naming ``filters.target_verticals[0]``, an
argument the caller never passed. The probe is the client's own question: its empty answer
is not hinted at.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import dealframe
from dealframe.errors import ValidationError


@pytest.fixture(scope="module")
def client(sandbox: Any) -> Any:
    with dealframe.Client.for_sandbox(sandbox, progress=False) as c:
        yield c


def test_a_typo_gives_one_error_and_no_warning(client):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with pytest.raises(ValidationError, match=r"invalid vertical\[0\]: .*'Fintech'\?"):
            dealframe.compare_multiples(client, vertical="Fintek")
    assert [str(w.message) for w in said] == []


def test_the_list_call_itself_still_hints(client):
    """The hint is kept where the user asked: ``deals(target_verticals=["Fintek"])``."""
    with pytest.warns(dealframe.MissingDataWarning, match=r"target_verticals.*'Fintech'"):
        got = client.private.deals(target_verticals=["Fintek"], limit=1)
    assert got.empty


def test_a_vertical_no_company_carries_is_said_once_naming_vertical(client):
    """No close value: the vertical is sent (it may be a private-only one), and the public
    search's hint that no company carries it names ``vertical``, the argument the caller
    passed, not the search's ``industries``."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        cmp = dealframe.compare_multiples(client, vertical="Zzzqqqx")
    messages = [str(w.message) for w in said]
    assert len(messages) == 1, messages
    assert issubclass(said[0].category, dealframe.MissingDataWarning)
    assert messages[0].startswith("vertical[0]: no company carries 'Zzzqqqx'"), messages
    assert "industries" not in messages[0]
    assert said[0].filename == __file__  # at the caller's line
    assert cmp.summary.attrs["comps"] == 0


def test_the_search_itself_still_names_industries(client):
    with pytest.warns(dealframe.MissingDataWarning, match=r"^industries\[0\]: .*'Zzzqqqx'"):
        got = client.public.search(industries=["Zzzqqqx"])
    assert got.empty
