"""asyncpg against sparkwire. asyncpg uses only the extended protocol, encodes parameters in binary from the
types the server announces in ParameterDescription, and decodes binary results — so it checks type inference
and binary encoding end to end. Each test runs its own event loop (asyncio.run)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

import asyncpg
import pytest

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

T = TypeVar("T")


def run(server: SparkwireServer, body: Callable[[Any], Awaitable[T]]) -> T:
    async def main() -> T:
        conn = await asyncpg.connect(
            host="127.0.0.1", port=server.port, user="materialize", database="materialize"
        )
        try:
            return await body(conn)
        finally:
            await conn.close()

    return asyncio.run(main())


def test_connect_and_fetch(server: SparkwireServer) -> None:
    async def body(conn: Any) -> None:
        assert await conn.fetchval("SELECT 1") == 1
        version = conn.get_server_version()
        assert version.major == 15
        rows = await conn.fetch("SELECT i, 'n' || i AS name FROM generate_series(1, 3) i ORDER BY i")
        assert [tuple(r) for r in rows] == [(1, "n1"), (2, "n2"), (3, "n3")]
        assert list(rows[0].keys()) == ["i", "name"]

    run(server, body)


def test_params_of_many_types(server: SparkwireServer) -> None:
    values = (
        41, 9_000_000_000, 2.5, Decimal("12.34"), "text ✓", True, date(2024, 2, 29),
        datetime(2024, 1, 2, 3, 4, 5, 678901), datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
        timedelta(days=1, seconds=5), uuid.UUID(int=7), b"\x00\xff", [1, None, 3], ["a", None],
    )

    async def body(conn: Any) -> Any:
        return await conn.fetchrow(
            "SELECT $1::int4 + 1, $2::int8, $3::float8, $4::numeric, $5::text, NOT $6::bool, $7::date, "
            "$8::timestamp, $9::timestamptz, $10::interval, $11::uuid, $12::bytea, $13::int4[], $14::text[]",
            *values,
        )

    row = run(server, body)
    assert tuple(row) == (42, *values[1:5], False, *values[6:])


def test_parameter_types_are_inferred(server: SparkwireServer) -> None:
    """No casts: the server must infer int8/text/numeric from the columns (asyncpg refuses a str for an
    int8)."""
    table = unique("apg_infer")

    async def body(conn: Any) -> Any:
        await conn.execute(f"CREATE TABLE {table} (a int8, b text, c numeric(10,2))")
        try:
            await conn.execute(f"INSERT INTO {table} VALUES ($1, $2, $3)", 5, "five", Decimal("5.50"))
            stmt = await conn.prepare(f"SELECT b, c FROM {table} WHERE a = $1 AND b <> $2")
            param_types = [t.name for t in stmt.get_parameters()]
            return param_types, [tuple(r) for r in await stmt.fetch(5, "x")]
        finally:
            await conn.execute(f"DROP TABLE {table}")

    param_types, rows = run(server, body)
    assert param_types == ["int8", "text"]
    assert rows == [("five", Decimal("5.50"))]


def test_prepared_statement(server: SparkwireServer) -> None:
    async def body(conn: Any) -> Any:
        stmt = await conn.prepare("SELECT $1::int4 * 2 AS doubled, $2::text AS label")
        attrs = [(a.name, a.type.name) for a in stmt.get_attributes()]
        results = [tuple(await stmt.fetchrow(i, f"l{i}")) for i in range(3)]
        return attrs, results

    attrs, results = run(server, body)
    assert attrs == [("doubled", "int4"), ("label", "text")]
    assert results == [(0, "l0"), (2, "l1"), (4, "l2")]


def test_cursor_iteration_in_transaction(server: SparkwireServer) -> None:
    async def body(conn: Any) -> Any:
        async with conn.transaction():
            query = "SELECT i FROM generate_series(1, 95) i ORDER BY i"
            seen = [r[0] async for r in conn.cursor(query, prefetch=10)]
            cur = await conn.cursor("SELECT i FROM generate_series(1, 20) i ORDER BY i")
            first = [r[0] for r in await cur.fetch(5)]
            nxt = (await cur.fetchrow())[0]
        return seen, first, nxt

    seen, first, nxt = run(server, body)
    assert seen == list(range(1, 96))
    assert first == [1, 2, 3, 4, 5]
    assert nxt == 6


def test_copy_records_to_table_and_copy_from_query(server: SparkwireServer, oracle: PostgresOracle) -> None:
    table = unique("apg_copy")
    records = [(1, "one", Decimal("1.10")), (2, None, None), (3, "tab\tand, comma", Decimal("-3.00"))]
    query = f"SELECT * FROM {table} ORDER BY a"

    async def body(conn: Any) -> Any:
        await conn.execute(f"CREATE TABLE {table} (a int8, b text, c numeric(10,2))")
        try:
            status = await conn.copy_records_to_table(table, records=records)
            rows = [tuple(r) for r in await conn.fetch(query)]
            chunks: list[bytes] = []

            async def sink(chunk: bytes) -> None:
                chunks.append(chunk)

            out_status = await conn.copy_from_query(query, output=sink, format="csv")
            return status, rows, out_status, b"".join(chunks)
        finally:
            await conn.execute(f"DROP TABLE {table}")

    status, rows, out_status, csv_out = run(server, body)
    assert status == "COPY 3"
    assert rows == records
    assert out_status == "COPY 3"

    async def on_oracle() -> bytes:
        conn = await asyncpg.connect(host="127.0.0.1", port=oracle.port, user="postgres", database="postgres")
        chunks: list[bytes] = []

        async def sink(chunk: bytes) -> None:
            chunks.append(chunk)

        try:
            await conn.execute(f"CREATE TABLE {table} (a int8, b text, c numeric(10,2))")
            await conn.copy_records_to_table(table, records=records)
            await conn.copy_from_query(query, output=sink, format="csv")
            await conn.execute(f"DROP TABLE {table}")
        finally:
            await conn.close()
        return b"".join(chunks)

    assert csv_out == asyncio.run(on_oracle())


def test_executemany(server: SparkwireServer) -> None:
    table = unique("apg_many")

    async def body(conn: Any) -> Any:
        await conn.execute(f"CREATE TABLE {table} (a int8, b text)")
        try:
            await conn.executemany(f"INSERT INTO {table} VALUES ($1, $2)", [(i, f"v{i}") for i in range(50)])
            return await conn.fetchval(f"SELECT count(*) FROM {table}"), await conn.fetchval(
                f"SELECT b FROM {table} WHERE a = $1", 49
            )
        finally:
            await conn.execute(f"DROP TABLE {table}")

    assert run(server, body) == (50, "v49")


def test_errors(server: SparkwireServer) -> None:
    async def body(conn: Any) -> Any:
        with pytest.raises(asyncpg.UndefinedTableError):
            await conn.fetch("SELECT * FROM no_such_table_apg")
        with pytest.raises(asyncpg.DivisionByZeroError):
            await conn.fetchval("SELECT $1::int4 / 0", 1)
        with pytest.raises(asyncpg.PostgresSyntaxError):
            await conn.execute("SELEC 1")
        return await conn.fetchval("SELECT 7")

    assert run(server, body) == 7
