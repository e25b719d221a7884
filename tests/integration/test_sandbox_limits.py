"""The request body bound over HTTP: above MAX_BODY_BYTES the answer is 413, and the body is not read.

A declared ``Content-Length`` over the bound is refused before a byte of the body arrives;
a chunked body is counted as it streams and refused once it passes the bound. Raw sockets
are used so that the test, not an HTTP library, decides what is sent and when.
"""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest
import requests

from dealframe.sandbox.vocab import MAX_BODY_BYTES

PATH = "/api/private/v1/companies"


def _connect(sandbox) -> socket.socket:
    url = urlsplit(sandbox.url)
    sock = socket.create_connection((url.hostname, url.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _head(sandbox, extra: str) -> bytes:
    host = urlsplit(sandbox.url).netloc
    return (
        f"POST {PATH} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {sandbox.private_key}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def _read_response(sock: socket.socket) -> tuple[int, dict]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "connection closed before a response"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers["content-length"])
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed mid-body"
        rest += chunk
    return status, json.loads(rest[:length])


def _assert_413(status: int, body: dict) -> None:
    assert status == 413
    assert body == {
        "error": {
            "code": "PAYLOAD_TOO_LARGE",
            "message": "Request body too large",
            "details": {
                "errors": [f"body: at most {MAX_BODY_BYTES} bytes"],
                "limit_bytes": MAX_BODY_BYTES,
            },
        }
    }


def test_a_declared_length_over_the_bound_is_refused_before_the_body_is_read(sandbox):
    # 11 of the 200,000,000 bytes declared are sent, never the rest: any answer at all was
    # given before the body was read. A server that waited for the body would send none (the
    # socket's 10 s timeout is only the guard that ends the wait).
    with _connect(sandbox) as sock:
        sock.sendall(_head(sandbox, "Content-Length: 200000000\r\n") + b'{"limit": 1')
        try:
            status, body = _read_response(sock)
        except TimeoutError:
            pytest.fail("no answer in 10 s: the server waits for the 199,999,989 bytes never sent")
    _assert_413(status, body)


def test_a_chunked_body_is_refused_once_it_passes_the_bound(sandbox):
    # Twice the bound in chunks, and never the final empty chunk: a server that read the whole
    # body would still be waiting for it. The answer comes anyway, so the count stopped it.
    chunk = b" " * 65536
    with _connect(sandbox) as sock:
        sock.sendall(_head(sandbox, "Transfer-Encoding: chunked\r\n") + b"1\r\n{\r\n")
        try:
            for _ in range(2 * MAX_BODY_BYTES // len(chunk)):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed while we were still sending
        status, body = _read_response(sock)
    _assert_413(status, body)


@pytest.mark.parametrize("size", [MAX_BODY_BYTES, MAX_BODY_BYTES - 1])
def test_a_body_up_to_the_bound_is_read(sandbox, size):
    text = '{"limit": 1}'
    raw = text.encode() + b" " * (size - len(text))  # JSON allows trailing whitespace
    resp = requests.post(
        sandbox.url + PATH,
        data=raw,
        timeout=30,
        headers={
            "Authorization": f"Bearer {sandbox.private_key}",
            "Content-Type": "application/json",
        },
    )
    assert resp.status_code == 200, resp.text[:300]
    assert resp.json()["meta"]["returned"] == 1


def test_one_byte_over_the_bound_is_refused(sandbox):
    with _connect(sandbox) as sock:
        sock.sendall(_head(sandbox, f"Content-Length: {MAX_BODY_BYTES + 1}\r\n"))
        status, body = _read_response(sock)
    _assert_413(status, body)


def test_the_bound_fits_the_largest_documented_bodies(sandbox):
    # 1,000 ids in filters.id (the batch limit) and 1,000 names of 200 characters are accepted.
    ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(1000)]
    names = ["Ünïcode Näme & Co., Ltd. " * 8 for _ in range(1000)]
    for path, body in (
        (PATH, {"filters": {"id": ids}}),
        ("/api/private/v1/companies/resolve", {"names": names}),
    ):
        raw = json.dumps(body).encode()  # ASCII-escaped: the largest form of these names
        assert len(raw) <= MAX_BODY_BYTES
        resp = requests.post(
            sandbox.url + path,
            data=raw,
            timeout=60,
            headers={
                "Authorization": f"Bearer {sandbox.private_key}",
                "Content-Type": "application/json",
            },
        )
        assert resp.status_code == 200, (path, resp.text[:300])
