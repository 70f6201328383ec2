"""What a client sees of one statement, for comparing sparkwire with the PostgreSQL oracle: its rows (or command
status) or, when it fails, its SQLSTATE. The connection stays usable either way (autocommit)."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

Outcome = tuple[str, object]


def outcome(conn: psycopg.Connection[tuple[object, ...]], sql: str, params: Sequence[object] = ()) -> Outcome:
    try:
        cur = conn.execute(sql, params or None)
    except psycopg.Error as err:
        return ("error", err.sqlstate)
    if cur.description is None:
        return ("status", cur.statusmessage)
    return ("rows", cur.fetchall())


def outcomes(conn: psycopg.Connection[tuple[object, ...]], script: Sequence[str]) -> list[tuple[str, Outcome]]:
    return [(sql, outcome(conn, sql)) for sql in script]
