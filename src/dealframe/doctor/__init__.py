"""``dealframe doctor``: check every assumption the client makes about a service.

Examples
--------
>>> import dealframe, dealframe.sandbox
>>> with dealframe.sandbox.run(scale=0.02) as sb, dealframe.Client.for_sandbox(sb) as c:
...     print(dealframe.doctor(c).verdict())  # doctest: +ELLIPSIS
dealframe doctor: ... 0 adapted, 0 break in ... requests: the client works with this service as it is
"""

from __future__ import annotations

from .checks import (
    ADAPTED,
    BREAKS,
    HOLDS,
    MAX_REQUESTS,
    NOT_CHECKED,
    Check,
    Diagnosis,
    diagnose,
    doctor,
)

__all__ = [
    "ADAPTED",
    "BREAKS",
    "HOLDS",
    "MAX_REQUESTS",
    "NOT_CHECKED",
    "Check",
    "Diagnosis",
    "diagnose",
    "doctor",
]
