"""``attrs["from_cache"]`` of ``deals(with_investors=True)`` says where the list pages *and* the
deals' single forms came from (docs/frames.md, "Provenance").

The frame kept the list's ``from_cache`` alone: its list page cached and its five profiles sent
said True, its list page sent and five of six profiles cached said False. Both are "partial".
The service's own count, through the drift proxy, is the reference for what was sent.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import FAST, cached, fresh_rules, proxy  # noqa: F401 - fixtures are used by name

P = "/api/private/v1"
LIST = rf"^{P}/transactions$"
PROFILE = rf"^{P}/transactions/[0-9a-f-]{{36}}$"


def _sent(proxy: Any) -> tuple[int, int]:
    """List requests and profile requests the service has received so far."""
    return proxy.count(LIST, "POST"), proxy.count(PROFILE, "GET")


def test_list_cached_and_profiles_sent_is_partial(cached, proxy):
    cached.private.deals(limit=5)  # the list page is in the cache, no profile is
    before = _sent(proxy)
    frame = cached.private.deals(limit=5, with_investors=True)
    after = _sent(proxy)
    assert (after[0] - before[0], after[1] - before[1]) == (0, 5)  # the list from the cache
    assert frame.attrs["requests"] == 6
    assert frame.attrs["from_cache"] == "partial"  # it said True, the list page's alone
    assert frame.attrs["profiles"]["requests"] == 5
    assert frame.attrs["profiles"]["from_cache"] is False


def test_list_sent_and_most_profiles_cached_is_partial(cached, proxy):
    cached.private.deals(limit=5, with_investors=True)  # 5 profiles in the cache
    before = _sent(proxy)
    frame = cached.private.deals(limit=6, with_investors=True)  # another list body: sent
    after = _sent(proxy)
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)  # 5 of 6 profiles cached
    assert frame.attrs["requests"] == 7
    assert frame.attrs["from_cache"] == "partial"  # it said False, the list page's alone
    assert frame.attrs["profiles"]["from_cache"] == "partial"


def test_all_cached_is_true_and_none_cached_is_false(cached, proxy):
    cold = cached.private.deals(limit=4, with_investors=True)
    assert cold.attrs["from_cache"] is False and cold.attrs["profiles"]["from_cache"] is False
    before = _sent(proxy)
    warm = cached.private.deals(limit=4, with_investors=True)
    assert _sent(proxy) == before  # nothing sent
    assert warm.attrs["requests"] == cold.attrs["requests"] == 5  # cache hits are counted
    assert warm.attrs["from_cache"] is True and warm.attrs["profiles"]["from_cache"] is True


def test_an_empty_list_says_its_page_alone(cached, proxy):
    """No deal, no profile request: the list page's own ``from_cache``, not "partial"."""
    cached.private.deals(limit=5, date_from="2999-01-01")
    frame = cached.private.deals(limit=5, date_from="2999-01-01", with_investors=True)
    assert len(frame) == 0 and frame.attrs["profiles"]["requests"] == 0
    assert frame.attrs["from_cache"] is True
