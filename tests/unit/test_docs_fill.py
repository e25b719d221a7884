"""Shared parameter descriptions are filled into docstrings whole, and only where asked."""

from __future__ import annotations

import inspect

import pytest

from dealframe._docs import fill_docs
from dealframe.private.api import PrivateApi

TABLE = {"cache": "cache : bool, default True\n    Use the HTTP cache.\n\n    Really."}


def test_a_placeholder_line_becomes_the_entry_indented_as_it_was() -> None:
    @fill_docs(TABLE)
    def pull(cache: bool = True) -> None:
        """Pull ``/items/{id}``.

        Parameters
        ----------
        {cache}
        """

    lines = (pull.__doc__ or "").splitlines()
    assert lines[0] == "Pull ``/items/{id}``."  # a brace inside text is left alone
    assert lines[4:8] == [
        "        cache : bool, default True",
        "            Use the HTTP cache.",
        "",
        "            Really.",
    ]


def test_a_class_gets_the_docstrings_of_its_methods_and_static_ones_filled() -> None:
    @fill_docs(TABLE)
    class Api:
        def one(self) -> None:
            """{cache}"""

        @staticmethod
        def two() -> None:
            """{cache}"""

    for member in (Api.one, Api.two):
        assert inspect.getdoc(member).startswith("cache : bool, default True")  # type: ignore[union-attr]


def test_a_placeholder_the_table_lacks_fails_at_once() -> None:
    with pytest.raises(ValueError, match=r"names \{cahce\}"):

        @fill_docs(TABLE)
        def pull() -> None:
            """{cahce}"""


def test_the_private_api_help_shows_no_placeholder() -> None:
    for name, member in vars(PrivateApi).items():
        doc = getattr(member, "__doc__", None) or ""
        assert "{refresh}" not in doc and "{cache}" not in doc and "{strict}" not in doc, name
    assert "Use the HTTP cache (False: neither read nor write it)." in (
        PrivateApi.fundings.__doc__ or ""
    )
