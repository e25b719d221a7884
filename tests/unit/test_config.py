"""Settings: validation, environment, defaults and secrecy of tokens."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import dealframe
from dealframe.config import DEFAULT_CACHE_EXPIRY, Settings, default_cache_path, fingerprint
from dealframe.errors import ConfigurationError, DealframeError

TOKEN = "tok-5e3b1f0c9a7d4e2b8c6a1f3e5d7b9c0a"
KEY = "key-0a9c7b5d3e1f2a4c6e8b0d2f4a6c8e0b"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8765",
        "http://127.5.6.7",
        "http://localhost:9000/base/",
        "http://[::1]:8000",
        "https://data.example.com",
    ],
)
def test_secure_or_loopback_urls_are_accepted(url):
    assert Settings(base_url=url).base_url == url.rstrip("/")


@pytest.mark.parametrize(
    "url", ["http://data.example.com", "http://10.0.0.5:80", "http://128.0.0.1", "http://[::2]"]
)
def test_plain_http_to_other_hosts_is_refused(url):
    with pytest.raises(ConfigurationError, match="allow_insecure_http") as info:
        Settings(base_url=url)
    assert info.value.field == "base_url"
    assert Settings(base_url=url, allow_insecure_http=True).base_url == url


@pytest.mark.parametrize(
    "url",
    [
        "ftp://x.example",
        "data.example.com",
        "https://",
        "https://u:p@x.example",
        "https://x.example/?a=1",
        42,
        "https://api.exa\nmple.com",  # urlsplit would drop the newline: another host
        "https://api.exa\tmple.com",
        "https://exa mple.com",
        "https://exa<mple.com",
        "https://api.example.com/v\x00",
    ],
)
def test_malformed_base_urls_are_refused(url):
    with pytest.raises(ConfigurationError) as info:
        Settings(base_url=url)
    assert info.value.field == "base_url"


@pytest.mark.parametrize("url", ["https://bücher.example", "http://[::1]:8080", "https://a_b.x.io"])
def test_unusual_but_valid_hosts_are_kept(url):
    assert Settings(base_url=url).base_url == url


def test_from_env_refuses_what_is_not_an_environment_naming_the_field():
    with pytest.raises(ConfigurationError, match="mapping") as info:
        Settings.from_env("DEALFRAME_BASE_URL=https://x.example")  # type: ignore[arg-type]
    assert info.value.field == "env"
    with pytest.raises(ConfigurationError, match="DEALFRAME_MAX_WORKERS") as info:
        Settings.from_env({"DEALFRAME_MAX_WORKERS": 3})  # type: ignore[dict-item]
    assert info.value.field == "max_workers"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("max_workers", 0),
        ("max_workers", 2.5),
        ("max_workers", True),
        ("retries", -1),
        ("read_timeout", 0),
        ("connect_timeout", "5"),
        ("backoff_cap", float("nan")),
        ("retry_after_max", -1),
        ("call_budget", 0),
        ("cache_enabled", "yes"),
        ("allow_insecure_http", 1),
        ("progress", "auto"),
        ("public_token", ""),
        ("public_token", "has space"),
        ("private_key", 123),
        ("cache_path", 5),
    ],
)
def test_bad_values_raise_an_error_naming_the_field(name, value):
    with pytest.raises(ConfigurationError) as info:
        Settings(**{name: value})
    assert info.value.field == name
    assert name in str(info.value)


def test_defaults():
    s = Settings()
    assert (s.max_workers, s.retries, s.retry_after_max) == (8, 5, 60.0)
    assert s.allow_insecure_http is False and s.progress is None and s.cache_enabled
    assert s.cache_expiry["changefeed"] == 0
    assert s.cache_expiry["current"] < s.cache_expiry["time_series"] < s.cache_expiry["discovery"]


def test_cache_expiry_overrides_merge_and_changefeed_stays_uncached():
    s = Settings(cache_expiry={"current": 60, "changefeed": 0, "profile": 10})
    assert s.cache_expiry["current"] == 60
    assert s.cache_expiry["profile"] == 10
    assert s.cache_expiry["list"] == DEFAULT_CACHE_EXPIRY["list"]
    assert s.cache_expiry["changefeed"] == 0
    assert Settings(cache_expiry=s.cache_expiry).cache_expiry == s.cache_expiry  # round trip
    with pytest.raises(ConfigurationError):
        Settings(cache_expiry={"list": -5})
    with pytest.raises(ConfigurationError, match="did you mean 'current'"):
        Settings(cache_expiry={"curent": 60})  # a misspelt kind would never apply
    with pytest.raises(TypeError):
        s.cache_expiry["list"] = 1  # read-only


def test_default_cache_path_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / "dealframe" / "http_cache.sqlite"
    assert Settings().cache_path == tmp_path / "dealframe" / "http_cache.sqlite"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_path() == tmp_path / "home" / ".cache" / "dealframe" / "http_cache.sqlite"


def test_tokens_are_hidden_from_repr_and_str():
    s = Settings(base_url="https://x.example", public_token=TOKEN, private_key=KEY)
    for text in (repr(s), str(s), f"{s}", repr([s])):
        assert TOKEN not in text and KEY not in text
    assert hashlib.sha256(TOKEN.encode()).hexdigest()[:8] in repr(s)
    assert s.public_token_fingerprint == fingerprint(TOKEN) != s.private_key_fingerprint
    assert s.public_token == TOKEN  # still usable


def test_bad_token_error_does_not_echo_the_token():
    with pytest.raises(ConfigurationError) as info:
        Settings(public_token=TOKEN + "\n")
    assert TOKEN not in str(info.value)


def test_frozen_and_replace_revalidates():
    s = Settings(max_workers=4)
    with pytest.raises(AttributeError):
        s.max_workers = 5  # type: ignore[misc]
    assert s.replace(max_workers=2).max_workers == 2
    with pytest.raises(ConfigurationError):
        s.replace(max_workers=0)
    assert hash(s) == hash(Settings(max_workers=4))


def test_from_env_reads_every_variable(tmp_path):
    env = {
        "DEALFRAME_BASE_URL": "https://data.example.com/",
        "DEALFRAME_PUBLIC_TOKEN": TOKEN,
        "DEALFRAME_PRIVATE_KEY": KEY,
        "DEALFRAME_CACHE": "off",
        "DEALFRAME_CACHE_PATH": str(tmp_path / "c.sqlite"),
        "DEALFRAME_MAX_WORKERS": "3",
    }
    s = Settings.from_env(env)
    assert s.base_url == "https://data.example.com"
    assert (s.public_token, s.private_key) == (TOKEN, KEY)
    assert s.cache_enabled is False and s.cache_path == Path(tmp_path / "c.sqlite")
    assert s.max_workers == 3


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0", False), ("1", True), ("OFF", False), ("on", True), ("false", False), ("true", True)],
)
def test_from_env_cache_switch(raw, expected):
    assert Settings.from_env({"DEALFRAME_CACHE": raw}).cache_enabled is expected


def test_from_env_overrides_win_and_errors_name_the_variable(monkeypatch):
    monkeypatch.setenv("DEALFRAME_MAX_WORKERS", "3")
    monkeypatch.setenv("DEALFRAME_PUBLIC_TOKEN", TOKEN)
    assert Settings.from_env(max_workers=5).max_workers == 5
    assert Settings.from_env().public_token == TOKEN
    for odd in ("many", "1_0", "\u0663", "0x10", "4.0"):  # int() took the second and third
        with pytest.raises(ConfigurationError, match="DEALFRAME_MAX_WORKERS"):
            Settings.from_env({"DEALFRAME_MAX_WORKERS": odd})
    with pytest.raises(ConfigurationError, match="DEALFRAME_CACHE"):
        Settings.from_env({"DEALFRAME_CACHE": "maybe"})
    with pytest.raises(ConfigurationError, match="no_such_setting"):
        Settings.from_env({}, no_such_setting=1)


def test_from_env_applies_the_http_rule():
    with pytest.raises(ConfigurationError):
        Settings.from_env({"DEALFRAME_BASE_URL": "http://data.example.com"})
    s = Settings.from_env(
        {"DEALFRAME_BASE_URL": "http://data.example.com"}, allow_insecure_http=True
    )
    assert s.base_url == "http://data.example.com"


def test_configuration_error_is_a_dealframe_error():
    assert issubclass(ConfigurationError, DealframeError)


def test_an_unknown_setting_is_refused_with_the_closest_name():
    with pytest.raises(ConfigurationError, match="max_wrokers.*did you mean 'max_workers'"):
        Settings().replace(max_wrokers=2)
    with pytest.raises(ConfigurationError, match="did you mean 'read_timeout'"):
        Settings.from_env({}, read_timeuot=3.0)
    assert Settings().replace(max_workers=2).max_workers == 2


def test_for_sandbox_refuses_what_is_not_a_sandbox():
    from dealframe.client import Client
    from dealframe.errors import ValidationError

    with pytest.raises(ValidationError, match="sandbox"):
        Client.for_sandbox(5)
    with pytest.raises(TypeError, match="private_key"):  # it comes from the sandbox
        Client.for_sandbox(object(), private_key="k")  # type: ignore[call-arg]


def test_for_sandbox_takes_every_setting_of_the_client():
    import inspect

    from dealframe.client import Client

    settings = set(inspect.signature(Client).parameters) - {
        "base_url",
        "public_token",
        "private_key",
    }
    assert settings <= set(inspect.signature(Client.for_sandbox).parameters)

    class Remote:  # a sandbox served on another interface, over plain HTTP
        url, public_token, private_key = "http://10.1.2.3:8765", "t", "k"

    with pytest.raises(ConfigurationError, match="allow_insecure_http"):
        Client.for_sandbox(Remote())
    with Client.for_sandbox(Remote(), allow_insecure_http=True) as client:
        assert client.settings.base_url == Remote.url


def test_doctor_refuses_what_is_not_a_client():
    import dealframe
    from dealframe.errors import ValidationError

    with pytest.raises(ValidationError, match="client"):
        dealframe.doctor(5)


@pytest.mark.parametrize(("raw", "workers"), [("0" * 150 + "64", 64), ("+" + "0" * 120 + "7", 7)])
def test_max_workers_from_the_environment_reads_past_leading_zeros(raw, workers):
    # the digits are cut to 101 (int() refuses very long text); the cut came before the
    # leading zeros were dropped, so a value written with 150 zeros before it read as 0
    assert Settings.from_env({"DEALFRAME_MAX_WORKERS": raw}).max_workers == workers


def test_max_workers_from_the_environment_far_past_the_maximum_is_refused():
    with pytest.raises(ConfigurationError, match="DEALFRAME_MAX_WORKERS") as info:
        Settings.from_env({"DEALFRAME_MAX_WORKERS": "9" * 5000})
    assert "must be from 1 to 64" in str(info.value)


@pytest.mark.parametrize("seconds", [60, 0.5, 999])
def test_a_changefeed_expiry_is_refused_not_ignored(seconds):
    """``cache_expiry={"changefeed": 60}`` was accepted and silently set to 0: a change feed
    is never cached, so the setting could never apply."""
    with pytest.raises(ConfigurationError, match="change-feed pulls are never cached") as info:
        Settings(cache_expiry={"changefeed": seconds})
    assert info.value.field == "cache_expiry" and "cache_expiry['changefeed']" in str(info.value)
    with pytest.raises(ConfigurationError, match="never cached"):
        dealframe.Client(cache_expiry={"changefeed": seconds}, cache_enabled=False)
