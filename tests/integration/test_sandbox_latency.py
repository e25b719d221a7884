"""The sandbox's simulated latency: off by default, applied to API requests only when asked."""

import requests

import dealframe.sandbox


def test_latency_applies_to_api_requests_only():
    with dealframe.sandbox.run(scale=0.02, latency=0.25) as sb:
        headers = {"Authorization": f"Bearer {sb.private_key}"}
        slow = requests.get(
            f"{sb.url}/api/private/v1/lookup/investors", headers=headers, timeout=10
        )
        fast = requests.get(f"{sb.url}/health", timeout=10)
        assert slow.status_code == 200 and fast.status_code == 200
        assert slow.elapsed.total_seconds() >= 0.25
        assert sb.state.config.latency == 0.25
        # Rejected requests (no token) are answered at once by the gate, as a real edge would.
        assert (
            requests.get(f"{sb.url}/api/private/v1/lookup/investors", timeout=10).status_code == 401
        )


def test_no_latency_by_default(sandbox):
    assert sandbox.state.config.latency == 0.0
