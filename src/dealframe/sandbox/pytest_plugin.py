"""pytest fixtures for testing code against the sandbox.

Installed as a pytest plugin (entry point ``dealframe_sandbox``), so any
project with dealframe installed can use them:

.. code-block:: python

    import dealframe

    def test_my_research(dealframe_sandbox):
        with dealframe.Client.for_sandbox(dealframe_sandbox) as client:
            deals = client.private.deals(filters={"deal_type": ["M&A"]})
        ...

    def test_something_that_changes_data(dealframe_sandbox):
        from dealframe.sandbox import Changes
        Changes(dealframe_sandbox.state, seed=1).insert("deals", 10)
        ...
        dealframe_sandbox.reset()  # the next test sees the generated data again

The session sandbox is shared by every test: a test that changes its data (or moves
its clock) calls ``reset()`` when done. Options: ``--dealframe-sandbox-scale``
(default 0.1; above 0 and at most 20, the sandbox's largest data), ``--dealframe-sandbox-seed`` (default 7) and
``--dealframe-sandbox-profile`` (default ``default``; a profile of
:mod:`dealframe.sandbox.profiles`, or several joined by commas, to run the same tests
against another answer to an open point of the interface document), or the ini keys of
the same names. The plugin loads in every pytest session of a project that has dealframe
installed, so the fixtures import the sandbox only when a test asks for one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

__all__ = [
    "dealframe_sandbox",
    "dealframe_sandbox_factory",
    "pytest_addoption",
    "pytest_configure",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dealframe")
    # the words of sandbox.arguments' MAX_SCALE and SCALE_MEMORY, written out: this plugin loads
    # in every pytest session of an environment with dealframe, and imports no sandbox module
    # until a test asks for one (tests/unit/test_sandbox_memory_figure.py holds them alike)
    group.addoption(
        "--dealframe-sandbox-scale",
        type=float,
        default=None,
        help="scale of the session sandbox (default 0.1; above 0, at most 20); memory: about 0.8 GB "
        "per unit of scale, up to 1.4 GB when the start generates the data (docs/sandbox.md)",
    )
    group.addoption(
        "--dealframe-sandbox-seed",
        type=int,
        default=None,
        help="seed of the session sandbox (default 7)",
    )
    group.addoption(
        "--dealframe-sandbox-profile",
        default=None,
        help="profile of the session sandbox, e.g. limit-100 or "
        "limit-100,quarter-words (default: default)",
    )
    parser.addini("dealframe_sandbox_scale", "scale of the session sandbox", default="0.1")
    parser.addini("dealframe_sandbox_seed", "seed of the session sandbox", default="7")
    parser.addini("dealframe_sandbox_profile", "profile of the session sandbox", default="default")


def _option(config: pytest.Config, name: str, cast: type) -> Any:
    value = config.getoption(f"--dealframe-sandbox-{name}")
    where = f"--dealframe-sandbox-{name}"
    if value is None:
        value, where = config.getini(f"dealframe_sandbox_{name}"), f"dealframe_sandbox_{name} (ini)"
    try:
        return cast(value)
    except ValueError:
        raise pytest.UsageError(f"{where}: expected {cast.__name__}, got {value!r}") from None


def pytest_configure(config: pytest.Config) -> None:
    """Check the session sandbox's options once, at start-up (an ini typo or a scale of 0
    would otherwise fail every test that uses the sandbox, one by one). Imports nothing
    unless a profile is named: every pytest run of an environment with dealframe loads this."""
    scale, seed = _option(config, "scale", float), _option(config, "seed", int)
    if not (math.isfinite(scale) and scale > 0):
        raise pytest.UsageError(f"dealframe sandbox scale: expected a number above 0, got {scale}")
    if scale > 1:  # only then is the sandbox's maximum imported (the default scale is 0.1)
        from dealframe.sandbox.arguments import MAX_SCALE, scale_expected

        if scale > MAX_SCALE:
            raise pytest.UsageError(
                f"dealframe sandbox scale: expected {scale_expected()}, got {scale:g}"
            )
    if seed < 0:
        raise pytest.UsageError(f"dealframe sandbox seed: expected 0 or more, got {seed}")
    profile = _option(config, "profile", str)
    if profile != "default":
        from dealframe.sandbox.profiles import UnknownProfileError, select

        try:
            select(profile)
        except UnknownProfileError as exc:
            raise pytest.UsageError(f"dealframe sandbox profile: {exc}") from None


@pytest.fixture(scope="session")
def dealframe_sandbox(pytestconfig: pytest.Config) -> Iterator[object]:
    """A sandbox served on 127.0.0.1 for the whole test session.

    Yields a :class:`dealframe.sandbox.Sandbox` (``url``, ``public_token``,
    ``private_key``, ``state``, ``profile``, ``reset()``); pass it to
    ``dealframe.Client.for_sandbox``.
    """
    from dealframe.sandbox import run

    scale = _option(pytestconfig, "scale", float)
    seed = _option(pytestconfig, "seed", int)
    profile = _option(pytestconfig, "profile", str)
    with run(scale=scale, seed=seed, profile=profile) as sb:
        yield sb


@pytest.fixture
def dealframe_sandbox_factory() -> Iterator[object]:
    """A function that starts extra sandboxes (e.g. with faults, or ``profile="limit-100"``);
    all stopped after the test, each one even when another fails to stop (the first
    failure is raised then, with a note for each other one)."""
    from dealframe.sandbox import start

    started = []

    def factory(**kwargs):
        sb = start(**kwargs)
        started.append(sb)
        return sb

    yield factory
    failed: list[Exception] = []
    for sb in started:
        try:
            sb.stop()
        except Exception as exc:
            failed.append(exc)
    if failed:
        for other in failed[1:]:
            failed[0].add_note(f"and: {other}")
        raise failed[0]
