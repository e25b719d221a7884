"""``clear()``'s checkpoint of the write-ahead log never waits for another connection's read."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from dealframe.transport.cache import _truncate_wal


class _Recording(sqlite3.Connection):
    """A connection that keeps the statements it runs."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.statements: list[str] = []

    def execute(self, sql, *args):  # type: ignore[override]
        self.statements.append(sql)
        return super().execute(sql, *args)


def _wal_file(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, factory=_Recording, timeout=5.0)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE t (v)")
    con.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(1000)])
    con.commit()
    return con


def test_a_reader_elsewhere_leaves_the_log_to_sqlite_without_waiting(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    con = _wal_file(path)
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM t").fetchone()  # a read transaction, held
    con.statements.clear()
    with caplog.at_level(logging.INFO, logger="dealframe"):
        _truncate_wal(con, path)
    checkpoint = con.statements.index("PRAGMA wal_checkpoint(TRUNCATE)")
    assert con.statements[checkpoint - 1] == "PRAGMA busy_timeout = 0"  # never waits
    assert con.statements[checkpoint + 1] == "PRAGMA busy_timeout = 5000"  # as it was
    assert con.execute("PRAGMA busy_timeout").fetchone() == (5000,)
    assert "left to SQLite" in caplog.text
    assert Path(f"{path}-wal").stat().st_size > 0
    reader.rollback()
    reader.close()
    con.close()


def test_with_no_reader_the_log_is_emptied(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    con = _wal_file(path)
    assert Path(f"{path}-wal").stat().st_size > 0
    with caplog.at_level(logging.INFO, logger="dealframe"):
        _truncate_wal(con, path)
    assert Path(f"{path}-wal").stat().st_size == 0 and "left to SQLite" not in caplog.text
    con.close()
