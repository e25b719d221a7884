"""Odd settings values are refused as ConfigurationError naming the setting, when the client
is made (never an error of the standard library or of SQLite at the first request)."""

from __future__ import annotations

import os

import pytest

import dealframe
from dealframe.errors import ConfigurationError


@pytest.mark.parametrize("url", ["http://[::1", "https://[fe80::1/api"])
def test_malformed_ipv6_base_url_is_a_configuration_error(url):
    with pytest.raises(ConfigurationError) as info:
        dealframe.Client(url, "tok-a", "tok-b")
    assert info.value.field == "base_url"
    assert "not a valid URL" in str(info.value)


def test_a_port_that_is_no_number_keeps_its_own_message():
    with pytest.raises(ConfigurationError, match="invalid port"):
        dealframe.Client("http://127.0.0.1:abc", "tok-a", "tok-b")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_as_cache_path_is_refused_before_any_request():
    with pytest.raises(ConfigurationError) as info:
        dealframe.Client("http://127.0.0.1:9", "tok-a", "tok-b", cache_path="/dev/null")
    assert info.value.field == "cache_path"
    assert "cache_enabled=False" in str(info.value)


def test_a_device_as_cache_path_is_not_read_when_the_cache_is_off():
    client = dealframe.Client(
        "http://127.0.0.1:9", "tok-a", "tok-b", cache_path="/dev/null", cache_enabled=False
    )
    try:
        assert not client.settings.cache_enabled
    finally:
        client.close()


def test_a_device_in_the_environment_names_the_setting(monkeypatch):
    monkeypatch.setenv("DEALFRAME_CACHE_PATH", "/dev/zero")
    with pytest.raises(ConfigurationError) as info:
        dealframe.Client("http://127.0.0.1:9", "tok-a", "tok-b")
    assert info.value.field == "cache_path"


@pytest.mark.parametrize("url", ["http://[::1]x", "http://[::1]]", "http://[[::1]"])
def test_text_after_a_bracketed_host_is_refused(url):
    with pytest.raises(ConfigurationError) as info:
        dealframe.Client(url, "tok-a", "tok-b")
    assert info.value.field == "base_url"


@pytest.mark.parametrize("url", ["http://[::1]", "http://[::1]:8080"])
def test_a_bracketed_host_and_port_are_taken(url):
    client = dealframe.Client(url, "tok-a", "tok-b")
    try:
        assert client.settings.base_url == url
    finally:
        client.close()
