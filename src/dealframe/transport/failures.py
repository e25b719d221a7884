"""What a :class:`~dealframe.errors.TransportError` says: one plain sentence per kind of failure.

A network failure reaches the client as a chain of ``requests``, ``urllib3``, ``http.client``
and ``OSError`` exceptions. Their class names and ``[Errno 111]`` prefixes mean nothing to a
notebook user, so the message is a sentence chosen by the failure's kind (``connection``,
``dns``, ``timeout``, ``truncated``, ``budget`` ...), naming the base URL or setting to check;
what the deepest exception said is kept only where it tells more (``connection reset``), with
its class name left out. The kind stays on the error's ``.kind``.
"""

from __future__ import annotations

import http.client
import re
import socket
from typing import Any
from urllib.parse import urlsplit

import urllib3

__all__ = ["budget_text", "failure_text", "reason", "refused", "resolver_busy", "unresolved"]

_QUERY = re.compile(r"\?[^\s'\")]*")
_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")
#: What an object's default repr pastes into a urllib3 message (``<...Connection object at 0x..>: ``).
_OBJECT = re.compile(r"<[^<>]* object at 0x[0-9a-fA-F]+>:?\s*")


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions under it (cause, context, a wrapped first argument, a
    urllib3 ``reason``), outermost first."""
    found: list[BaseException] = []
    seen: set[int] = set()
    stack: list[Any] = [exc]
    while stack:
        err = stack.pop(0)
        if not isinstance(err, BaseException) or id(err) in seen:
            continue
        seen.add(id(err))
        found.append(err)
        stack += [err.__cause__, err.__context__, getattr(err, "reason", None), *err.args]
    return found


def reason(exc: BaseException) -> str:
    """What the deepest exception under ``exc`` said, without its class name, errno or object
    reprs (``connection refused``), or an empty string.

    Examples
    --------
    >>> reason(ConnectionRefusedError(111, "Connection refused"))
    'connection refused'
    >>> reason(OSError("[Errno 101] Network is unreachable"))
    'network is unreachable'
    """
    root = _chain(exc)[-1]
    if isinstance(root, OSError) and root.strerror:
        text = root.strerror
    else:
        text = str(root)
    name = type(root).__name__
    if text.startswith(name):  # http.client's IncompleteRead: its str is its repr
        text = text[len(name) :].lstrip(":( ").rstrip(")")
    text = _OBJECT.sub("", _ERRNO.sub("", _QUERY.sub("?…", text))).strip()
    return text[:1].lower() + text[1:]


def _cut_short(exc: BaseException) -> str:
    """``after 810 of 1,620 bytes`` when the chain says how much arrived, else ``""``."""
    got: Any
    more: Any
    for err in _chain(exc):
        if isinstance(err, urllib3.exceptions.IncompleteRead):
            got, more = err.partial, err.expected  # urllib3: counts of bytes
        elif isinstance(err, http.client.IncompleteRead):
            got, more = len(err.partial), err.expected  # http.client: the bytes themselves
        else:
            continue
        if isinstance(got, int) and isinstance(more, int):
            return f" after {got:,} of {got + more:,} bytes"
        if isinstance(got, int):
            return f" after {got:,} bytes"
    return ""


def refused(exc: BaseException) -> bool:
    """Whether a connection was refused (nothing listens at the base URL's host and port).

    Examples
    --------
    >>> refused(OSError(ConnectionRefusedError(111, "Connection refused")))
    True
    >>> refused(TimeoutError("timed out"))
    False
    """
    return any(isinstance(err, ConnectionRefusedError) for err in _chain(exc))


def _no_answer(exc: BaseException) -> bool:
    return any(isinstance(err, http.client.RemoteDisconnected) for err in _chain(exc))


def _unconnected(exc: BaseException) -> bool:
    """Whether no connection was ever made (a new connection failed)."""
    return any(isinstance(err, urllib3.exceptions.NewConnectionError) for err in _chain(exc))


def unresolved(exc: BaseException) -> bool:
    """Whether a connection failed because the host name does not resolve (DNS).

    A resolver's temporary failure (``EAI_AGAIN``: "Temporary failure in name resolution",
    a resolver that did not answer in time) is not: the name may well resolve on a retry.

    Examples
    --------
    >>> import socket
    >>> unresolved(OSError(socket.gaierror(socket.EAI_NONAME, "Name or service not known")))
    True
    >>> unresolved(OSError(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")))
    False
    >>> unresolved(ConnectionRefusedError(111, "Connection refused"))
    False
    """
    chain = _chain(exc)
    lookups = [err for err in chain if isinstance(err, socket.gaierror)]
    if lookups:
        return all(err.errno != _EAI_AGAIN for err in lookups)
    return any(isinstance(err, urllib3.exceptions.NameResolutionError) for err in chain)


#: The resolver's "try again" (temporary) failure code, where the platform has one.
_EAI_AGAIN = getattr(socket, "EAI_AGAIN", None)


def resolver_busy(exc: BaseException) -> bool:
    """Whether a connection failed because the resolver failed for the time being
    (``EAI_AGAIN``: "Temporary failure in name resolution", a resolver that did not answer
    in time): worth one more try, not many (each try costs the resolver's own time-out).

    Examples
    --------
    >>> import socket
    >>> resolver_busy(OSError(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")))
    True
    >>> resolver_busy(OSError(socket.gaierror(socket.EAI_NONAME, "Name or service not known")))
    False
    """
    return _EAI_AGAIN is not None and any(
        isinstance(err, socket.gaierror) and err.errno == _EAI_AGAIN for err in _chain(exc)
    )


def _seconds(value: float) -> str:
    return f"{value:g} s"


def budget_text(budget: float | None, when: str) -> str:
    """The sentence of a call stopped by its time budget; ``when`` says at which step.

    Examples
    --------
    >>> budget_text(0.5, "while the answer was arriving")
    'call_budget (0.5 s) exhausted while the answer was arriving'
    >>> budget_text(None, "before the request could be sent")
    "the call's time budget ran out before the request could be sent"
    """
    if budget is None:  # a deadline given to the transport directly
        return f"the call's time budget ran out {when}"
    return f"call_budget ({_seconds(budget)}) exhausted {when}"


def failure_text(
    kind: str,
    exc: BaseException,
    *,
    base_url: str,
    connect_timeout: float,
    read_timeout: float,
    base_url_from: str | None = None,
) -> str:
    """One plain sentence for a request that got no HTTP answer, by its ``kind``.

    Parameters
    ----------
    kind : str
        The failure's kind (``connection``, ``dns``, ``connect_timeout``, ``timeout``,
        ``truncated``, ``ssl``, ``request``).
    exc : BaseException
        The foreign exception: only what it says is read, never kept.
    base_url : str
        The client's base URL (the user's own: no credentials, no query string).
    connect_timeout, read_timeout : float
        The limits in force for this attempt, in seconds.
    base_url_from : str, optional
        Where the base URL was set, as the sentence tells to check it (a command's
        ``--base-url`` or ``DEALFRAME_BASE_URL``); default the Python API's words, the
        variable (and the ``Client`` argument).

    Returns
    -------
    str
        The sentence, with what to check where the failure suggests it; the request and the
        attempts follow it in the error's message.

    Examples
    --------
    >>> failure_text("timeout", TimeoutError("timed out"), base_url="http://127.0.0.1:8000",
    ...              connect_timeout=5, read_timeout=30)
    'no answer within read_timeout (30 s)'
    >>> failure_text("dns", OSError("Name or service not known"), base_url="https://x.invalid",
    ...              connect_timeout=5, read_timeout=30, base_url_from="--base-url")
    'cannot connect to https://x.invalid (its host name x.invalid does not resolve): check --base-url and your network'
    """
    said = reason(exc)
    check = base_url_from or "DEALFRAME_BASE_URL"
    if kind == "dns":
        host = urlsplit(base_url).hostname or base_url
        return (
            f"cannot connect to {base_url} (its host name {host} does not resolve): check "
            f"{base_url_from or 'DEALFRAME_BASE_URL (or Client(base_url=...))'} and your network"
        )
    if kind == "connect_timeout":
        return (
            f"cannot connect to {base_url} within connect_timeout "
            f"({_seconds(connect_timeout)}): check {check} and your network"
        )
    if kind == "timeout":
        return f"no answer within read_timeout ({_seconds(read_timeout)})"
    if kind == "truncated":
        cut = _cut_short(exc)
        if cut or not said:
            return f"the answer was cut short{cut}"
        return f"the answer was cut short ({said})"
    if kind == "ssl":
        return (
            f"the TLS connection to {base_url} failed ({said or 'handshake refused'}): check "
            "the base URL's scheme and host, and the service's certificate"
        )
    if kind == "connection":
        if resolver_busy(exc):
            host = urlsplit(base_url).hostname or base_url
            return (
                f"cannot connect to {base_url}: the resolver could not look up its host name "
                f"{host} for the time being ({said or 'temporary failure in name resolution'})"
                f": check {check} and your network"
            )
        if refused(exc):
            return (
                f"cannot connect to {base_url} (connection refused): check {check} and that "
                "the service is running"
            )
        if _no_answer(exc):
            return "the service closed the connection without answering"
        if _unconnected(exc):
            return (
                f"cannot connect to {base_url} ({said or 'no connection'}): check {check} and "
                "your network"
            )
        return f"the connection to {base_url} failed ({said or 'dropped'}) before the answer was in"
    return f"the request failed ({said})" if said else "the request failed"
