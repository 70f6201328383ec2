"""The client side of `bench.pgwire`: one function per measurement, the same code for both servers.

Each takes a DSN (or a connection) and returns a rate or a time; none knows which server it talks to. The loops
are the fastest idiomatic psycopg 3 ones (issue 19): `execute` in a loop for extended-protocol round trips
(psycopg prepares the statement after its fifth execution, so the loop measures Bind/Execute/Sync of a named
statement, as a driver does), `pgconn.exec_` for the simple protocol (no psycopg cursor in the way), a server-side
`fetchmany(10_000)` loop over a client cursor for streaming, `copy.write` with 1 MiB blocks for COPY FROM STDIN
and `copy.read` of whole chunks for COPY TO STDOUT.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg

Conn = psycopg.Connection[Any]
COPY_BLOCK = 1 << 20
STREAM_FETCH = 10_000


def stream_query(rows: int) -> str:
    return f"SELECT i, 'row ' || i, (i * 1.5)::numeric(12,2) FROM generate_series(1, {rows}) i"


def copy_rows(rows: int) -> list[bytes]:
    """COPY text data of `rows` (int, text, numeric) rows in blocks of about COPY_BLOCK bytes."""
    blocks: list[bytes] = []
    lines: list[str] = []
    size = 0
    for i in range(1, rows + 1):
        line = f"{i}\trow {i}\t{i * 1.5:.2f}\n"
        lines.append(line)
        size += len(line)
        if size >= COPY_BLOCK:
            blocks.append("".join(lines).encode())
            lines, size = [], 0
    if lines:
        blocks.append("".join(lines).encode())
    return blocks


def timed_loop(step: Callable[[], None], seconds: float, batch: int = 100, limit: int = 500_000) -> float:
    """Calls per second of `step`, over about `seconds` (at most `limit` calls)."""
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while count < limit:
        for _ in range(batch):
            step()
        count += batch
        if time.perf_counter() >= deadline:
            break
    return count / (time.perf_counter() - start)


def extended_round_trips(conn: Conn, seconds: float) -> float:
    """`SELECT 1` round trips/s through psycopg's extended protocol (`conn.execute` in a loop)."""
    for _ in range(50):
        conn.execute("SELECT 1").fetchone()

    def step() -> None:
        conn.execute("SELECT 1").fetchone()

    return timed_loop(step, seconds)


def simple_round_trips(conn: Conn, seconds: float) -> float:
    """`SELECT 1` round trips/s over the simple protocol (`pgconn.exec_`: one Query message, no cursor)."""
    pgconn = conn.pgconn
    ok = psycopg.pq.ExecStatus.TUPLES_OK

    def step() -> None:
        if pgconn.exec_(b"SELECT 1").status != ok:
            raise RuntimeError(pgconn.get_error_message())

    for _ in range(50):
        step()
    return timed_loop(step, seconds)


def stream(conn: Conn, rows: int) -> tuple[float, int]:
    """(rows/s, checksum) streaming `stream_query(rows)` with fetchmany(10_000) into Python rows."""
    start = time.perf_counter()
    got = checksum = 0
    with conn.cursor() as cur:
        cur.execute(stream_query(rows))
        while batch := cur.fetchmany(STREAM_FETCH):
            got += len(batch)
            checksum += batch[-1][0]
    elapsed = time.perf_counter() - start
    if got != rows:
        raise RuntimeError(f"streamed {got} rows, wanted {rows}")
    return rows / elapsed, checksum


def create_copy_table(conn: Conn, name: str) -> None:
    conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(f"CREATE TABLE {name} (i int8, t text, n numeric(12,2))")


def copy_in(conn: Conn, name: str, blocks: list[bytes]) -> float:
    """Seconds to COPY `blocks` into the empty table `name` FROM STDIN (text format), committed."""
    start = time.perf_counter()
    with conn.cursor() as cur, cur.copy(f"COPY {name} FROM STDIN") as copy:
        for block in blocks:
            copy.write(block)
    return time.perf_counter() - start


def copy_out(conn: Conn, name: str, rows: int) -> float:
    """Rows/s of `COPY name TO STDOUT` (text format) of a table of `rows` rows, reading whole chunks."""
    start = time.perf_counter()
    lines = 0
    with conn.cursor() as cur, cur.copy(f"COPY {name} TO STDOUT") as copy:
        while data := copy.read():
            lines += bytes(data).count(b"\n")
    elapsed = time.perf_counter() - start
    if lines != rows:
        raise RuntimeError(f"COPY TO gave {lines} rows, wanted {rows}")
    return rows / elapsed


def create_lookup_table(conn: Conn, rows: int) -> None:
    """`kv` with `rows` rows and an index on its key (PostgreSQL's primary key; sparkwire's index makes the fast
    path). Created through COPY so both servers load the same way."""
    conn.execute("DROP TABLE IF EXISTS kv")
    conn.execute("CREATE TABLE kv (id int8 NOT NULL, v text, PRIMARY KEY (id))")
    with conn.cursor() as cur, cur.copy("COPY kv FROM STDIN") as copy:
        copy.write("".join(f"{i}\tvalue {i}\n" for i in range(rows)).encode())
    conn.execute("CREATE INDEX kv_id ON kv (id)")


def pk_lookups(conn: Conn, rows: int, seconds: float) -> float:
    """Parameterised primary-key lookups/s (`SELECT v FROM kv WHERE id = %s`, a new key each time)."""
    keys = iter(range(10**9))

    def step() -> None:
        key = next(keys) % rows
        row = conn.execute("SELECT v FROM kv WHERE id = %s", (key,)).fetchone()
        if row is None or row[0] != f"value {key}":
            raise RuntimeError(f"lookup of {key} gave {row}")

    for _ in range(50):
        step()
    return timed_loop(step, seconds)


def connect_seconds(dsn: str, count: int) -> float:
    """Median seconds to open (and close) a connection, over `count` connections."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        conn = psycopg.connect(dsn)
        times.append(time.perf_counter() - start)
        conn.close()
    times.sort()
    return times[len(times) // 2]
