"""pytest fixtures for testing code against the sandbox.

Installed as a pytest plugin (entry point ``dealframe_sandbox``), so any
project with dealframe installed can use them:

.. code-block:: python

    def test_my_research(dealframe_sandbox):
        client = dealframe.Client(**dealframe_sandbox.client_kwargs())
        ...

Options: ``--dealframe-sandbox-scale`` (default 0.1) and
``--dealframe-sandbox-seed`` (default 7), or the ini keys of the same names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

__all__ = ["dealframe_sandbox", "dealframe_sandbox_factory", "pytest_addoption"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dealframe")
    group.addoption("--dealframe-sandbox-scale", type=float, default=None,
                    help="scale of the session sandbox (default 0.1)")
    group.addoption("--dealframe-sandbox-seed", type=int, default=None,
                    help="seed of the session sandbox (default 7)")
    parser.addini("dealframe_sandbox_scale", "scale of the session sandbox", default="0.1")
    parser.addini("dealframe_sandbox_seed", "seed of the session sandbox", default="7")


def _option(config: pytest.Config, name: str, cast: type) -> float | int:
    value = config.getoption(f"--dealframe-sandbox-{name}")
    if value is None:
        value = config.getini(f"dealframe_sandbox_{name}")
    return cast(value)


@pytest.fixture(scope="session")
def dealframe_sandbox(pytestconfig: pytest.Config) -> Iterator["object"]:
    """A sandbox served on 127.0.0.1 for the whole test session.

    Yields a :class:`dealframe.sandbox.Sandbox` (``url``, ``public_token``,
    ``private_key``, ``state``).
    """
    from dealframe.sandbox import run

    scale = _option(pytestconfig, "scale", float)
    seed = _option(pytestconfig, "seed", int)
    with run(scale=scale, seed=seed) as sb:
        yield sb


@pytest.fixture
def dealframe_sandbox_factory() -> Iterator["object"]:
    """A function that starts extra sandboxes (e.g. with faults); all stopped after the test."""
    from dealframe.sandbox import start

    started = []

    def factory(**kwargs):
        sb = start(**kwargs)
        started.append(sb)
        return sb

    yield factory
    for sb in started:
        sb.stop()
