"""Text with a lone surrogate (what a byte that is not UTF-8 decodes to) is a dealframe error.

A token with one (a Latin-1 paste in ``DEALFRAME_PRIVATE_KEY``) raised a bare
``UnicodeEncodeError`` quoting the token, from the fingerprint of the very check meant to
refuse it. A name, a field or a filter value with one reached orjson, whose ``TypeError``
escaped the call; a mirror path with one failed in pyarrow after the sync had made its
``_staging`` folder. Each is now refused before anything is sent or written: a
``ConfigurationError`` giving the character's position and code point and the token's
fingerprint, or a ``ValidationError`` naming the argument. The calls go through the drift
proxy, which counts what reaches the service.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dealframe import mirror
from dealframe.client import Client
from dealframe.config import Settings, fingerprint
from dealframe.errors import ConfigurationError, ValidationError

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, fresh_rules, no_hang, proxy  # noqa: F401 - fixtures

HANG_LIMIT = 60
S = "Acme\udcff"  # os.fsdecode / surrogateescape of b"Acme\xff"
TOKEN = "privSECRETkey4Z2\udcff"


def _texts(exc: BaseException) -> list[str]:
    out: list[str] = []
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo:
        e = todo.pop()
        if any(e is s for s in seen):
            continue
        seen.append(e)
        out += [str(e), repr(e), repr(e.args), repr(getattr(e, "__dict__", {}))]
        todo += [x for x in (e.__cause__, e.__context__) if x is not None]
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda url: Client(url, "pub", TOKEN),
        lambda url: Settings.from_env(
            env={"DEALFRAME_BASE_URL": url, "DEALFRAME_PRIVATE_KEY": TOKEN}
        ),
    ],
    ids=["argument", "environment"],
)
def test_a_token_with_a_lone_surrogate_is_a_configuration_error(
    proxy: Any, make: Callable[[str], Any]
) -> None:
    with pytest.raises(ConfigurationError) as info:
        make(proxy.url)
    message = str(info.value)
    assert "character 17 of 17 is U+DCFF" in message
    assert f"fingerprint {fingerprint(TOKEN)}" in message
    assert info.value.field == "private_key"
    for text in _texts(info.value):
        assert "privSECRETkey4Z2" not in text and "SECRETkey" not in text
    assert proxy.count() == 0


@pytest.fixture()
def client(sandbox: Any, proxy: Any) -> Iterator[Client]:
    with Client(
        proxy.url, sandbox.public_token, sandbox.private_key, cache_enabled=False, **FAST
    ) as c:
        yield c


CALLS: dict[str, tuple[Callable[[Client], Any], str]] = {
    "resolve_companies": (lambda c: c.private.resolve_companies(["Acme", S]), "names[1]"),
    "resolve_investors": (lambda c: c.private.resolve_investors([S]), "names[0]"),
    "companies": (lambda c: c.private.companies(name=S), "name"),
    "investors": (lambda c: c.private.investors(name=S), "name"),
    "time_series": (
        lambda c: c.public.time_series(["AER-ARE"], fields=[S]),
        "fields[0]",
    ),
    "page": (lambda c: c.private.page("companies", filters={"name": S}), "filters.name"),
}


@pytest.mark.parametrize("call", list(CALLS), ids=list(CALLS))
def test_a_lone_surrogate_in_an_argument_is_a_validation_error_before_any_request(
    client: Client, proxy: Any, call: str
) -> None:
    make, argument = CALLS[call]
    with pytest.raises(ValidationError) as info:
        make(client)
    assert info.value.argument == argument
    assert "UTF-8" in str(info.value)
    assert proxy.count() == 0


def test_a_mirror_path_with_a_lone_surrogate_is_refused_before_anything_is_written(
    client: Client, proxy: Any, tmp_path: Path
) -> None:
    target = tmp_path / "m\udcff"
    with pytest.raises(ValidationError) as info:
        mirror.sync(client, str(target))
    assert info.value.argument == "path"
    assert list(tmp_path.iterdir()) == []
    assert proxy.count() == 0
