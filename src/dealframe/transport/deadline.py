"""Reading a response body under the call's deadline (``call_budget``).

``requests`` reads a body with one socket timeout per read: a server that trickles bytes
never trips it, so a slow body could outlast any budget. :func:`read_body` gives a
``response`` hook (hooks run before ``requests`` reads the body itself) that reads the body
in pieces as they arrive and stops once the deadline has passed. The overshoot is at most
the wait for one piece, itself bounded by the read timeout the transport derives from the
deadline when it sends the request.

Without a deadline the hook reads the body in one call (urllib3 reads it to its end, each
wait bounded by the read timeout): ``requests`` itself reads in pieces of 10 kB, about 80
trips through urllib3 for a page of 1,000 deals, and pieces of whatever has arrived cost
about twice the CPU of one read (each piece goes through urllib3's buffer and is joined).

Examples
--------
>>> hook = read_body(None)
>>> callable(hook)
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests
import urllib3.exceptions as u3

__all__ = ["BodyDeadlineExceeded", "read_body"]

#: Largest piece asked for at once (a piece is whatever has arrived, up to this).
_PIECE = 1 << 20


class BodyDeadlineExceeded(requests.exceptions.ReadTimeout):
    """The call's deadline passed while the body was still arriving."""


def _read(raw: Any, deadline: float | None) -> bytes:
    if deadline is None:
        return raw.read(decode_content=True)
    pieces: list[bytes] = []
    while True:
        if time.monotonic() > deadline:
            got = sum(len(piece) for piece in pieces)
            raise BodyDeadlineExceeded(
                f"call budget exhausted while the body was arriving ({got} bytes read)"
            )
        piece = raw.read1(_PIECE, decode_content=True)
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)


def _abandon(raw: Any) -> None:
    """Close the connection of a body left part-read and hand it back to its pool.

    A connection left checked out is lost to the pool for good: with a blocking pool, once
    every connection is lost every later request waits for one.
    """
    try:
        raw.close()
    except OSError:
        pass  # the connection is being dropped anyway: the reading error is the one to raise
    finally:
        release = getattr(raw, "release_conn", None)
        if release is not None:
            release()


def read_body(deadline: float | None) -> Callable[..., Any]:
    """A ``requests`` response hook that reads the body, before ``deadline`` (monotonic)
    when there is one.

    Responses whose body is already read (answers from the cache) are left alone. A body
    abandoned for any reason (deadline, read error, interrupt) closes its connection and
    returns it to the pool.
    """

    def hook(response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        raw = getattr(response, "raw", None)
        if getattr(response, "_content", False) is not False or not hasattr(raw, "read1"):
            return response
        done = False
        try:
            response._content = _read(raw, deadline)
            done = True
        except u3.ReadTimeoutError as exc:
            raise requests.exceptions.ReadTimeout(str(exc)) from None
        except u3.SSLError as exc:
            raise requests.exceptions.SSLError(str(exc)) from None
        except u3.HTTPError as exc:  # ProtocolError, IncompleteRead, DecodeError ...
            raise requests.exceptions.ChunkedEncodingError(str(exc)) from None
        finally:
            response._content_consumed = True  # type: ignore[attr-defined]
            if not done:
                _abandon(raw)
        return response

    return hook
