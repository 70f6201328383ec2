"""How the history keeps a statement's text: the hash of the whole text, a truncated copy with its marker, and the
redaction of every literal as the notices redact (pure functions, no server)."""

from __future__ import annotations

import hashlib

import pytest

from sparkwire.introspection.history.sqltext import MAX_SQL_BYTES, keep, redact


@pytest.mark.parametrize(
    ("sql", "redacted"),
    [
        ("SELECT 'secret', 42 AS m123", "SELECT █, █ AS m123"),
        ("SELECT 'a''b', 12.5, .5, 1e5, -3 FROM t1", "SELECT █, █, █, █, -█ FROM t1"),
        ("SELECT E'x\\'y', $$dollar$$, $q$it's$q$ FROM t", "SELECT █, █, █ FROM t"),
        ("SELECT B'101', X'1F', U&'d\\0061', N'x', e FROM t", "SELECT █, █, █, █, e FROM t"),
        ('SELECT "col 1", x2 FROM t WHERE a = $1', 'SELECT "col 1", x2 FROM t WHERE a = $1'),
        ("SELECT 1 -- it's 2\n/* 'c' 3 */ FROM t", "SELECT █ -- it's 2\n/* 'c' 3 */ FROM t"),
        ("SELECT NULL, true, 'unterminated 123", "SELECT NULL, true, █"),
        ("SELECT 'ünïcode', ünï2 FROM t", "SELECT █, ünï2 FROM t"),
    ],
)
def test_redact(sql: str, redacted: str) -> None:
    assert redact(sql) == redacted


def test_passwords_are_never_kept() -> None:
    for sql in ("CREATE ROLE r LOGIN PASSWORD 'hunter2'", "alter user r with password 'hunter2'"):
        _, kept, redacted = keep(sql)
        assert "hunter2" not in kept and kept == redacted and kept.endswith("█")
    assert keep("SELECT 'password'")[1] == "SELECT 'password'"


def test_keep_truncates_with_a_marker_and_hashes_the_whole() -> None:
    sql = "SELECT '" + "é" * MAX_SQL_BYTES + "'"
    digest, kept, redacted = keep(sql)
    assert digest == hashlib.sha256(sql.encode()).digest()
    assert kept.endswith(f"… [truncated: {len(sql.encode())} bytes]")
    assert len(kept.encode()) < MAX_SQL_BYTES + 64
    assert redacted == "SELECT █"  # the cut string runs to the end of the kept text
    assert keep("SELECT 1") == (hashlib.sha256(b"SELECT 1").digest(), "SELECT 1", "SELECT █")
