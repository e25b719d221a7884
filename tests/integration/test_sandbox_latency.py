"""The sandbox's simulated latency: off by default, applied to API requests only when asked."""

import pytest
import requests

import dealframe.sandbox
from dealframe.sandbox.stopping import Stopping


def test_latency_applies_to_api_requests_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # The waits the gate asks of its event loop, by path: what it chose to wait, not how long
    # a request took (a loaded machine makes every request slow).
    waits: list[tuple[str, float]] = []
    current: list[str] = []
    pause = Stopping.pause

    async def recorded(self: Stopping, seconds: float) -> None:
        waits.append((current[-1], seconds))
        await pause(self, seconds)

    monkeypatch.setattr(Stopping, "pause", recorded)
    with dealframe.sandbox.run(scale=0.02, latency=0.25) as sb:
        headers = {"Authorization": f"Bearer {sb.private_key}"}

        def get(path: str, headers: dict[str, str] | None = None) -> requests.Response:
            current.append(path)
            return requests.get(f"{sb.url}{path}", headers=headers, timeout=10)

        slow = get("/api/private/v1/lookup/investors", headers=headers)
        fast = get("/health")
        assert slow.status_code == 200 and fast.status_code == 200
        assert sb.state.config.latency == 0.25
        # Rejected requests (no token) are answered at once by the gate, as a real edge would.
        assert get("/api/private/v1/lookup/investors").status_code == 401
    assert waits == [("/api/private/v1/lookup/investors", 0.25)]  # the API request alone


def test_no_latency_by_default(sandbox):
    assert sandbox.state.config.latency == 0.0
