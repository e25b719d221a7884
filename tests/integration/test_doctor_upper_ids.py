"""``dealframe doctor`` compares ids as the client does, over the drift proxy.

The client holds and compares ids in one spelling, the canonical UUID text
(docs/real-service.md, "Spelling of UUIDs in answers"), so a service writing them in upper
case is one it reads. The doctor compared the raw strings: ``B.profile`` broke ("data is not
the company asked for") on a profile whose id is the one asked, in upper case, and the paging
checks compared pages by their ids as written.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _doctor import by_name, run_doctor
from _drift_proxy import (  # noqa: F401 - fixtures are used by name
    edit,
    fresh_rules,
    ignore_page,
    outcome,
    proxy,
)
from test_drift_upper_ids import _upper, upper_case_ids  # the edits writing UUIDs upper case

from dealframe.doctor import BREAKS, HOLDS


def test_a_profile_whose_id_is_written_in_upper_case_is_the_company_asked(sandbox, proxy):
    """Only the profile's answer in upper case: the id the doctor asked for (from the list,
    in lower case) is the one served."""
    proxy.add(r"^/api/private/v1/companies/[^/]+$", upper_case_ids())
    found = outcome(lambda: run_doctor(sandbox, proxy, family="B"))
    assert found.error is None, repr(found.error)
    check = by_name(found.value)["B.profile"]
    assert check.verdict == HOLDS, check
    assert "not the company asked for" not in check.observed


def test_every_id_in_upper_case_gives_the_verdicts_of_the_lower_case_service(sandbox, proxy):
    """Every answer's ids in upper case: each Family B check says what it says of the
    service writing them in lower case (the client reads both alike). A guard: it passes on
    the code before the doctor compared ids in one spelling too (no check it runs on the
    sandbox told them apart then); the two tests around it are the ones that failed."""
    plain = outcome(lambda: run_doctor(sandbox, proxy, family="B"))
    assert plain.error is None, repr(plain.error)
    proxy.add(r"^/api/private/v1/", upper_case_ids())
    upper = outcome(lambda: run_doctor(sandbox, proxy, family="B"))
    assert upper.error is None, repr(upper.error)
    assert proxy.count(r"^/api/private/v1/companies/[^/]+$") > 0  # the profile was asked
    want = {c.name: c.verdict for c in plain.value.checks}
    got = {c.name: c.verdict for c in upper.value.checks}
    assert got == want
    assert by_name(upper.value)["B.profile"].verdict != BREAKS


def test_page_two_repeating_page_one_in_upper_case_is_a_page_ignored(sandbox, proxy):
    """Page 2 of ``/companies`` answered with page 1's rows, their ids in upper case: the
    same rows (the client's walk reads them as a repeated page), so the body member ``page``
    is ignored: ``B.paging.page`` breaks (it held, comparing the ids as written)."""
    proxy.add(r"^/api/private/v1/companies$", ignore_page(), edit(_upper, "upper"), page=2)
    found = outcome(lambda: run_doctor(sandbox, proxy, family="B"))
    assert found.error is None, repr(found.error)
    check = by_name(found.value)["B.paging.page"]
    assert check.verdict == BREAKS, check
    assert "page 2 repeats page 1 on /companies" in check.observed, check
