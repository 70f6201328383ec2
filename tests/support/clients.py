"""Helpers for the real-client tests (tests/test_client_*.py).

- `unique(prefix)`: a table name no other test uses (every test shares one sparkwire server per session).
- `raw_cursor(conn, binary)`: a psycopg cursor that returns every column of the types in `RAW_TYPES` as the
  exact bytes the server sent (text or binary format), so results can be compared byte for byte with
  PostgreSQL's.
- `all_results(cursor)`: every result set of a multi-statement execute, as (status, column names, rows).
- `url(dsn_host, port, user, db)`: a postgresql:// URL for clients that want one (asyncpg, SQLAlchemy).
- `as_role(dsn, role)`: the DSN for another role; `poll(conn, sql, params, until)`: a query run until its rows
  satisfy `until` (for relations written from the side).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import psycopg
from psycopg.adapt import Loader
from psycopg.postgres import types as pg_types
from psycopg.pq import Format

RAW_TYPES = (
    "bool", "bytea", "int2", "int4", "int8", "float4", "float8", "numeric", "text", "varchar", "date", "time",
    "timestamp", "timestamptz", "interval", "uuid", "json", "jsonb",
)

_counter = itertools.count()


def unique(prefix: str = "t") -> str:
    return f"{prefix}_{os.getpid()}_{next(_counter)}"


def same_schema(dsns: Iterable[str], prefix: str, statements: Iterable[str]) -> str:
    """A fresh schema name; each statement (with `{s}` standing for it) run on every server, in autocommit."""
    name = unique(prefix)
    ddl = [statement.format(s=name) for statement in statements]
    for dsn in dsns:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for statement in ddl:
                conn.execute(statement)
    return name


class _RawTextLoader(Loader):
    format = Format.TEXT

    def load(self, data: Any) -> bytes:
        return bytes(data)


class _RawBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        return bytes(data)


def raw_cursor(conn: psycopg.Connection[Any], *, binary: bool) -> psycopg.Cursor[Any]:
    cur = conn.cursor(binary=binary)
    for name in RAW_TYPES:
        info = pg_types.get(name)
        assert info is not None, name
        oids = [info.oid, info.array_oid] if info.array_oid else [info.oid]
        for oid in oids:
            cur.adapters.register_loader(oid, _RawBinaryLoader if binary else _RawTextLoader)
    return cur


Result = tuple[str | None, list[str] | None, list[Any] | None]


def all_results(cur: psycopg.Cursor[Any]) -> list[Result]:
    results: list[Result] = []
    while True:
        names = [d.name for d in cur.description] if cur.description else None
        rows = cur.fetchall() if cur.description else None
        results.append((cur.statusmessage, names, rows))
        if not cur.nextset():
            return results


def url(host: str, port: int, user: str, dbname: str, driver: str = "postgresql") -> str:
    return f"{driver}://{user}@{host}:{port}/{dbname}"


def as_role(dsn: str, role: str) -> str:
    """`dsn` (a key=value libpq string naming user=materialize) for `role` instead."""
    return dsn.replace("user=materialize", f"user={role}")


def poll(
    conn: psycopg.Connection[tuple[object, ...]],
    sql: str,
    params: Sequence[object] = (),
    until: Callable[[list[tuple[object, ...]]], bool] = bool,
    timeout: float = 30.0,
) -> list[tuple[object, ...]]:
    """Run `sql` until its rows satisfy `until` or `timeout` seconds pass, and return the last rows: the workload
    relations are written from the side (the history every 250 ms, Spark's jobs every 500 ms), so a test waits for
    them instead of sleeping a fixed time."""
    deadline = time.monotonic() + timeout
    while True:
        rows = list(conn.execute(sql, params).fetchall())
        if until(rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)
