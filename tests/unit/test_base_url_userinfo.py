"""An invalid base_url is named in its error without the user and password it carries."""

from __future__ import annotations

import pytest

import dealframe
from dealframe.errors import ConfigurationError


@pytest.mark.parametrize(
    "url",
    [
        "http://user:s3cret@[::1]x",
        "https://user:s3cret]w@example.com",
        "ftp://user:s3cret@host",
        "http://user:s3cret@exa mple.com",
    ],
)
def test_the_password_of_an_invalid_base_url_is_not_shown(url):
    with pytest.raises(ConfigurationError) as info:
        dealframe.Client(url, "tok-public-x", "tok-private-x")
    assert info.value.field == "base_url"
    assert "s3cret" not in str(info.value) and "user" not in str(info.value)
    assert "***@" in str(info.value)
