"""The transport's body check with a caller's reader (transport/body.py, ``expecting``): a body
the reader takes is the answer as read; every other body is checked as before."""

from __future__ import annotations

import threading

import pytest

from dealframe.transport import body
from dealframe.transport.body import LATER, TRUNCATED, Read, expecting, later, parse, storable

TAKEN = (b'{"data": []}', b'{"data": [], "meta": {}}')


def reader(content: bytes) -> dict | None:
    return {"took": len(content)} if content in TAKEN else None


def test_a_body_the_reader_takes_is_the_answer_as_read():
    with expecting(reader):
        assert parse(b'{"data": []}') == (Read({"took": 12}), None)
    assert parse(b'{"data": []}') == ({"data": []}, None)  # the block is over


@pytest.mark.parametrize(
    "content,problem",
    [
        (b"", "an empty body"),
        (b"<html>502</html>", "not JSON"),
        (b'{"data": [1,', TRUNCATED),
        (b'{"items": []}', "a JSON object without 'data'"),
        (b"[1]", "JSON list, not an object"),
    ],
)
def test_a_body_the_reader_refuses_is_checked_as_before(content, problem):
    with expecting(reader):
        assert parse(content) == (None, problem)
    assert parse(content) == (None, problem)


def test_other_threads_keep_their_own_check():
    seen: list[object] = []
    with expecting(reader):
        worker = threading.Thread(target=lambda: seen.append(parse(b'{"data": []}')[0]))
        worker.start()
        worker.join()
    assert seen == [{"data": []}]


class _Stored:
    status_code = 200

    def __init__(self, content: bytes) -> None:
        self.content = content


def test_the_cache_filter_reads_once_and_hands_the_result_on():
    content = b'{"data": [], "meta": {}}'
    with expecting(reader):
        assert storable(_Stored(content)) is True
        assert parse(content) == (Read({"took": len(content)}), None)
    assert getattr(body._last, "held", None) is None


def test_a_body_left_for_later_is_unread_unless_the_cache_read_it_to_store_it():
    # a page walk's worker: the body is read on the caller's thread (no GIL held here)
    content = b'{"data": [], "meta": {}}'
    with expecting(reader), later():
        assert parse(content) == (Read(LATER), None)
        assert parse(b"<html>502</html>") == (Read(LATER), None)  # checked by the caller
        # the HTTP cache checks what it stores: that read is the answer, as without later()
        assert storable(_Stored(content)) is True
        assert parse(content) == (Read({"took": len(content)}), None)
    with expecting(reader):  # the caller's own check, on its thread
        assert parse(content) == (Read({"took": len(content)}), None)
