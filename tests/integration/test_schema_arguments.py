"""``client.private.schema``'s arguments are checked on every call, over HTTP against the
sandbox: once the client held the schema, a bad ``retries`` (``True``, NaN, -1, an object) was
taken without a word, where a fresh client refused it."""

from __future__ import annotations

import math

import pytest

from dealframe import Client, ValidationError


@pytest.mark.parametrize("retries", [True, math.nan, -1, object(), 1.5, "2"])
def test_bad_retries_refused_whether_or_not_the_schema_is_held(sandbox, retries):
    with Client.for_sandbox(sandbox, progress=False) as client:
        with pytest.raises(ValidationError, match="invalid retries") as fresh:
            client.private.schema("companies", retries=retries)
        assert fresh.value.argument == "retries"
        assert client.stats.snapshot()["attempts"] == 0  # refused before any request
        assert client.private.schema("companies").sub_resource("sellside")  # now held
        with pytest.raises(ValidationError, match="invalid retries") as held:
            client.private.schema("companies", retries=retries)
        assert held.value.argument == "retries"


def test_good_retries_taken(sandbox):
    with Client.for_sandbox(sandbox, progress=False) as client:
        for retries in (0, 3, None):
            assert client.private.schema("companies", retries=retries).sub_resource("sellside")
