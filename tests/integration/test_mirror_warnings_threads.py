"""Syncs in threads leave the process's warnings machinery alone, over real HTTP.

A feed page's findings are held until the page is known whole (a page short of rows is asked
again, and the first answer's findings dropped). They used to be held with
``warnings.catch_warnings(record=True)``, which swaps process-wide state: with syncs in
threads, the exits restored each other's state, the recorder of one was left installed (every
later warning of the process lost) and other threads' warnings were captured and dropped
meanwhile. They are held per thread now (:func:`dealframe.notices.findings_held`), and warned
at the user's line, under the user's filters (``module=`` included).

The drift proxy, in front of a sandbox of this module's own, writes each feed page's
``meta.total`` as text: a finding on every page, warned once the page is kept.
"""

from __future__ import annotations

import sys
import threading
import warnings
from pathlib import Path
from typing import Any

from dealframe import mirror
from dealframe.client import Client
from dealframe.notices import ServiceContractWarning

sys.path.insert(0, str(Path(__file__).parent))

from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    FAST,
    Exchange,
    edit,
    fresh_rules,
    no_hang,
    proxy,
)
from _own_sandbox import sandbox, sb  # noqa: F401 - fixtures are used by name

HANG_LIMIT = 120
FEED = r"/api/private/v1/(investors|companies)$"
OWN_SANDBOX = {"scale": 0.02, "seed": 5}
TEXT = "meta.total written as text"
#: About 13 feed pages a sync (120 investors, 400 companies), 12 syncs: every run of the
#: test with the process-wide recorder of before (catch_warnings in findings_held) failed.
PAGE_SIZE = 40


def _feed(ex: Exchange) -> bool:
    """A page of the change feed (not the one-row count requests that follow it)."""
    body = ex.body if isinstance(ex.body, dict) else {}
    return body.get("sort") == "updated_at:asc" and body.get("limit") != 1


def _total_as_text(doc: Any) -> Any:
    meta = doc.get("meta") if isinstance(doc, dict) else None
    if isinstance(meta, dict) and isinstance(meta.get("total"), int):
        meta["total"] = str(meta["total"])
    return doc


def _counted(edited: list[int]) -> Any:
    """:func:`_total_as_text` of the pages holding rows, each counted in ``edited``. An
    empty page is left as served: a walk may ask for the page after its last one ahead of
    time and drop it (one page in flight from a fast service), so its finding is never said."""

    def change(doc: Any) -> Any:
        if not (isinstance(doc, dict) and doc.get("data")):
            return doc
        edited.append(1)  # list.append is atomic: the proxy serves on several threads
        return _total_as_text(doc)

    return change


def test_syncs_in_threads_leave_the_warnings_machinery_as_it_was(sb, proxy, tmp_path):
    edited: list[int] = []
    pages = proxy.add(FEED, edit(_counted(edited), "total_as_text"), when=_feed)
    failed: list[BaseException] = []

    def job(i: int) -> None:
        try:
            with Client(
                proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST
            ) as c:
                for k in range(3):
                    mirror.sync(
                        c,
                        tmp_path / f"m{i}-{k}",
                        entities=("investors", "companies"),
                        progress=False,
                        page_size=PAGE_SIZE,
                    )
        except BaseException as exc:  # said by the test's thread
            failed.append(exc)

    with warnings.catch_warnings(record=True) as seen:  # the user's own recorder
        warnings.simplefilter("always")
        impl, filters = warnings._showwarnmsg_impl, list(warnings.filters)  # type: ignore[attr-defined]
        threads = [threading.Thread(target=job, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failed == []
        assert warnings._showwarnmsg_impl == impl  # type: ignore[attr-defined]
        assert list(warnings.filters) == filters
        warnings.warn("the user's own warning, after the syncs", stacklevel=1)
    said = [str(w.message) for w in seen]
    assert "the user's own warning, after the syncs" in said
    # every sync said its entities' finding once (a meta finding is said once per entity and
    # sync, not per page), none captured by another thread and lost
    texts = [w for w in seen if TEXT in str(w.message)]
    assert pages.used > 12 and len(edited) > 12 and len(texts) == 4 * 3 * 2
    assert {w.category for w in texts} == {ServiceContractWarning}
    assert {w.filename for w in texts} == {__file__}  # the user's line (the sync call)


def test_a_page_finding_is_filtered_by_the_users_module(sb, proxy, tmp_path):
    pages = proxy.add(FEED, edit(_total_as_text, "total_as_text"), when=_feed)
    with (
        Client(proxy.url, sb.public_token, sb.private_key, cache_enabled=False, **FAST) as c,
        warnings.catch_warnings(record=True) as seen,
    ):
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=ServiceContractWarning, module=__name__)
        mirror.sync(c, tmp_path / "m", entities=("investors",), progress=False)
    assert pages.used >= 1  # a finding was made, and filtered as the user's own line's
    assert [str(w.message) for w in seen if TEXT in str(w.message)] == []
