"""A service that echoes the caller's token as a data VALUE, over HTTP.

The client blanked a token echoed as a member NAME (no column is named by it) and in
``meta`` (``attrs``), but a token the service wrote as a value, an item's ``name`` equal to
the token or a text holding it, was kept: in the frame, and so in ``dealframe pull -o
out.csv`` and in the mirror's tables. Such a text is now blanked as the answer arrives (the
token written ``***``) with an ``echoed_token`` finding, so no frame, output file or mirror
holds it. The drift proxy sits between a client holding a secret of its own (mapped to the
sandbox's key) and the sandbox, and writes that secret into the answers.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from _cli import pull
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Action,
    edit,
    fresh_rules,
    items_edit,
    no_hang,
    outcome,
    proxy,
)

from dealframe import mirror
from dealframe.client import Client

#: The client's own private key and public token: the proxy forwards the sandbox's instead.
SECRET = "sk_value_" + secrets.token_hex(16)
PUBLIC = "pk_value_" + secrets.token_hex(16)
P = "/api/private/v1"


@pytest.fixture()
def client(sandbox: Any, proxy: Any) -> Iterator[Client]:
    proxy.auth_map.update({SECRET: sandbox.private_key, PUBLIC: sandbox.public_token})
    with Client(proxy.url, PUBLIC, SECRET, cache_enabled=False, **FAST) as c:
        yield c


def _as_name(item: dict[str, Any]) -> None:
    item["name"] = SECRET


def _in_a_note(item: dict[str, Any]) -> None:
    item["name"] = f"Acme ({SECRET})"


@pytest.mark.parametrize(
    ("path", "change", "call", "column", "shown"),
    [
        (f"^{P}/companies$", _as_name, lambda c: c.private.companies(limit=5), "name", "***"),
        (
            f"^{P}/companies$",
            _in_a_note,
            lambda c: c.private.page("companies", limit=5),
            "name",
            "Acme (***)",
        ),
        (
            f"^{P}/transactions$",
            lambda it: it.update(deal_subtype="x" + SECRET),
            lambda c: c.private.deals(limit=5),
            "deal_subtype",
            "x***",
        ),
        (
            "^/api/v2/companies$",
            lambda it: it.update(name=PUBLIC),
            lambda c: c.public.search(countries=["GBR"]),
            "name",
            "***",
        ),
    ],
    ids=["companies-name", "page-name-holding-it", "deals-text", "search-name"],
)
def test_a_token_echoed_as_a_value_is_blanked_and_said(
    client, proxy, path, change, call, column, shown
):
    proxy.add(path, items_edit(change))
    got = outcome(lambda: call(client))
    assert got.error is None, repr(got.error)
    frame = got.value
    assert len(frame) > 0 and (frame[column].astype(str) == shown).all(), frame[column]
    text = frame.to_csv() + repr(frame.attrs)
    assert SECRET not in text and PUBLIC not in text
    kinds = [f["kind"] for f in frame.attrs["findings"]]
    assert "echoed_token" in kinds, frame.attrs["findings"]
    assert any("hold the client's token (***): blanked" in m for m in got.warned(Warning))


def test_a_token_echoed_as_a_value_fails_a_strict_call(client, proxy):
    """``strict=True``: an answer that echoed the token is a ``ServiceContractError`` (as
    one that echoed it as a member name is), the token blanked in it."""
    proxy.add(f"^{P}/companies$", items_edit(_as_name))
    got = outcome(lambda: client.private.companies(limit=5, strict=True))
    assert type(got.error).__name__ == "ServiceContractError", repr(got.error)
    assert got.error.finding == "echoed_token" and SECRET not in repr(got.error.args)


def test_pull_writes_no_echoed_token_to_its_file(sandbox, proxy, tmp_path, capsys, monkeypatch):
    """``dealframe pull companies -o out.csv``: the file held the token as a company name."""
    proxy.auth_map[SECRET] = sandbox.private_key
    proxy.add(f"^{P}/companies$", items_edit(_as_name))
    out = tmp_path / "out.csv"
    code, err = pull(
        ["companies", "--limit", "5", "-o", str(out)], proxy.url, SECRET, capsys, monkeypatch
    )
    assert code == 0, err
    written = out.read_text()
    assert "***" in written and SECRET not in written and SECRET not in err


def test_a_mirror_holds_no_echoed_token(client, proxy, tmp_path):
    """A mirror sync of companies whose names the service wrote as the token: no file of the
    mirror holds it (the Delta tables are compressed: read back as a frame too)."""
    proxy.add(f"^{P}/companies$", items_edit(_in_a_note))
    got = outcome(lambda: mirror.sync(client, tmp_path / "m", ["companies"]))
    assert got.error is None, repr(got.error)
    files = [p for p in (tmp_path / "m").rglob("*") if p.is_file()]
    assert files and not [p for p in files if SECRET.encode() in p.read_bytes()]
    table = mirror.load(tmp_path / "m", "companies")
    assert len(table) > 0 and set(table["name"].astype(str)) == {"Acme (***)"}


#: A private key with a quote and a backslash (Settings takes printable ASCII): JSON writes
#: them escaped (``\"``, ``\\``), so a search for the token as it is never found it.
ODD = 'sk_odd"key\\' + secrets.token_hex(8)


def _nan_and_name(ex: Any) -> None:
    """Companies named by the token, in a body with a ``NaN`` number token (read leniently)."""
    doc = ex.doc()
    for item in doc["data"]:
        item["name"], item["score"] = SECRET, "@NAN@"
    ex.set_doc(doc)
    ex.content = ex.content.replace(b'"@NAN@"', b"NaN")


def _profile_named(doc: dict[str, Any]) -> dict[str, Any]:
    doc["data"]["name"] = SECRET
    return doc


def _meta_note(doc: dict[str, Any]) -> dict[str, Any]:
    doc.setdefault("meta", {})["note"] = f"for {SECRET}"
    return doc


def _public_note(doc: dict[str, Any]) -> dict[str, Any]:
    doc.setdefault("meta", {})["note"] = f"for {PUBLIC}"
    return doc


def test_a_token_holding_a_quote_or_backslash_is_blanked(sandbox, proxy):
    proxy.auth_map.update({ODD: sandbox.private_key, PUBLIC: sandbox.public_token})
    proxy.add(f"^{P}/companies$", items_edit(lambda item: item.update(name=ODD)))
    with Client(proxy.url, PUBLIC, ODD, cache_enabled=False, **FAST) as c:
        got = outcome(lambda: c.private.companies(limit=5))
    assert got.error is None, repr(got.error)
    assert len(got.value) > 0 and set(got.value["name"]) == {"***"}
    assert any("hold the client's token (***)" in m for m in got.warned(Warning))


def test_a_body_with_nan_tokens_is_blanked_too(client, proxy):
    proxy.add(f"^{P}/companies$", Action("nan", on_response=_nan_and_name))
    got = outcome(lambda: client.private.companies(limit=5))
    assert got.error is None, repr(got.error)
    assert len(got.value) > 0 and set(got.value["name"]) == {"***"}
    said = got.warned(Warning)
    assert any("NaN" in m for m in said) and any("(***): blanked" in m for m in said), said


@pytest.mark.parametrize("what", ["profile", "aggregate", "group-current"])
def test_a_profile_or_an_aggregate_blanked_is_said(client, proxy, sandbox, what):
    """A company profile named by the token, an aggregate whose ``meta`` holds it: blanked,
    and now said by an ``echoed_token`` finding as a list's is (it was silent)."""
    if what == "profile":
        with Client(sandbox.url, sandbox.public_token, sandbox.private_key, **FAST) as direct:
            ident = direct.private.companies(limit=1)["id"].iloc[0]
        proxy.add(f"^{P}/companies/[^/]+$", edit(_profile_named))
        got = outcome(lambda: client.private.company(ident))
    elif what == "aggregate":
        proxy.add(f"^{P}/transactions/aggregate$", edit(_meta_note))
        got = outcome(lambda: client.private.aggregate("ebitda", "year"))
    else:  # Family A's group answer, read without read_items: said all the same
        proxy.add("^/api/v2/groups/current$", edit(_public_note))
        got = outcome(lambda: client.public.group_current(countries=["USA"]))
    assert got.error is None, repr(got.error)
    frame = got.value
    text = frame.to_csv() + repr(frame.attrs)
    assert SECRET not in text and PUBLIC not in text
    assert "echoed_token" in [f["kind"] for f in frame.attrs["findings"]], frame.attrs
    assert any("(***): blanked" in m for m in got.warned(Warning))
