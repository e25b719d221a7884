"""Public functions take explicit keyword parameters and check them when called (issue 13):
a typo is an error at once, never a silently ignored keyword."""

from __future__ import annotations

import importlib
import inspect

import pytest

import dealframe
from dealframe.analytics import Conventions
from dealframe.analytics.conventions import QUANTILE_METHODS
from dealframe.errors import UnknownArgumentError, ValidationError


def test_conventions_are_keyword_only_and_checked():
    assert Conventions(quantile_method="hazen").quantile_method == "hazen"
    with pytest.raises(TypeError):
        Conventions("hazen")  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Conventions.quantile_method"):
        Conventions(quantile_method="median")  # type: ignore[arg-type]
    assert QUANTILE_METHODS[0] == "linear" and "hazen" in QUANTILE_METHODS


def test_variants_are_checked_when_asked_for_not_when_first_iterated():
    with pytest.raises(ValidationError, match="quantile_methods"):
        Conventions.variants(quantile_methods=5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="max_changes"):
        Conventions.variants(max_changes=-1)
    assert next(iter(Conventions.variants())) == Conventions()


#: Keyword collectors that check every name they get (Settings fields, with did-you-mean).
_CHECKED_COLLECTORS = {"dealframe.Settings.from_env", "dealframe.Settings.replace"}


def _public_callables():
    from dealframe.client import Client

    for module_name in (
        "dealframe",
        "dealframe.mirror",
        "dealframe.analytics",
        "dealframe.sandbox",
        "dealframe.link",
        "dealframe.comparison",
        "dealframe.pull",
    ):
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                yield f"{module_name}.{name}", obj
                for member, value in inspect.getmembers(obj):
                    if not member.startswith("_") and callable(value):
                        yield f"{module_name}.{name}.{member}", value
            elif callable(obj):
                yield f"{module_name}.{name}", obj
    client = Client(base_url="http://127.0.0.1:9", public_token="t", private_key="k")
    for family in ("public", "public_v1", "private"):
        for member, value in inspect.getmembers(getattr(client, family)):
            if not member.startswith("_") and callable(value):
                yield f"client.{family}.{member}", value


def test_no_public_function_swallows_unknown_keywords():
    seen, collectors = 0, set()
    for name, function in _public_callables():
        try:
            parameters = inspect.signature(function).parameters.values()
        except (TypeError, ValueError):
            continue
        seen += 1
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            collectors.add(name)
    assert seen > 100
    assert collectors <= _CHECKED_COLLECTORS, sorted(collectors - _CHECKED_COLLECTORS)
    with pytest.raises(dealframe.ConfigurationError, match="did you mean 'max_workers'"):
        dealframe.Settings().replace(max_worker=2)


def test_a_misspelt_keyword_is_a_dealframe_error_naming_the_closest_one():
    """Python's own ``TypeError`` for an unknown keyword names no alternative and escapes
    ``except DealframeError``: every public function of the client raises
    ``UnknownArgumentError`` (a ``ValidationError`` and a ``TypeError``) instead."""
    checked = 0
    owners = ("dealframe.Client", "dealframe.analytics.Conventions", "client.")
    for name, function in _public_callables():
        module_function = not inspect.isclass(function) and name.count(".") == 1 + (
            name.startswith(
                ("dealframe.mirror.", "dealframe.analytics.", "dealframe.link.")
                + ("dealframe.comparison.", "dealframe.pull.")
            )
        )
        if name.startswith("dealframe.sandbox") or not (module_function or name.startswith(owners)):
            continue  # the sandbox has its own errors; exception and record classes
        with pytest.raises(UnknownArgumentError) as info:
            function(no_such_keyword=1)
        assert info.value.argument == "no_such_keyword" and isinstance(info.value, TypeError)
        checked += 1
    assert checked >= 60
    with pytest.raises(UnknownArgumentError, match="did you mean 'country'"):
        dealframe.Client(
            base_url="http://127.0.0.1:9", public_token="t", private_key="k"
        ).private.companies(contry=["GBR"])


def test_flags_arguments_and_clients_are_checked_before_any_request():
    """A string for a flag would be true (``strict="false"``), positional mistakes and a
    missing argument are Python's bare ``TypeError``, and None for a client fails deep inside:
    each is a dealframe error naming what is wrong, raised before anything is sent."""
    from dealframe.errors import CallError

    client = dealframe.Client(base_url="http://127.0.0.1:9", public_token="t", private_key="k")
    flags = {"strict": "false", "cache": None, "refresh": "yes", "progress": "x"}
    checked = 0
    for name, function in _public_callables():
        if name.startswith("dealframe.sandbox") or inspect.isclass(function):
            continue
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            continue
        for flag, bad in flags.items():
            if flag in parameters and parameters[flag].annotation in ("bool", "bool | None"):
                with pytest.raises(ValidationError, match=f"invalid {flag}: expected True"):
                    function(**{flag: bad})
                checked += 1
    assert checked >= 60
    with pytest.raises(CallError, match="keyword arguments only") as info:
        client.public.search("Western Europe")
    assert isinstance(info.value, TypeError) and info.value.function == "client.public.search"
    with pytest.raises(CallError, match="missing a required argument: 'metric'"):
        client.private.aggregate()
    with pytest.raises(ValidationError, match="invalid client: expected a dealframe.Client"):
        dealframe.skus_for_companies(None, ["00000000-0000-4000-8000-000000000000"])
    assert client.stats.snapshot()["calls"] == 0
    client.close()
