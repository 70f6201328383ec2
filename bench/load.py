"""Mixed load: many concurrent clients reading, writing, changing the schema and asking the catalog (issue 12).

Run: `python -m bench.load [--clients 64] [--seconds 300] [--seed 1]`.

Starts its own `sparkwire serve` (temp data dir, loopback port; tests/support/server.py), creates `--tables` shared
tables, then runs `--clients` psycopg connections (one thread each) for `--seconds`. Each client picks, by weight:
  - reads on Spark: an aggregate over a shared table, a filtered scan, a join of two shared tables;
  - point lookups by primary key (the resident-index fast path, after `CREATE INDEX`);
  - writes: a single-row INSERT, an UPDATE and a DELETE of its own rows, a COPY FROM STDIN batch, and a
    BEGIN … several INSERTs … COMMIT block;
  - DDL: CREATE TABLE / CREATE VIEW / CREATE INDEX / DROP of objects of its own;
  - catalog queries: `mz_catalog.mz_objects`, psql's `\\d`-style pg_class/pg_attribute query, SHOW TABLES,
    current_setting;
  - a statement that fails on purpose (a missing relation, a division by zero) — its error is expected.
Every answer is checked (counts are non-negative, a lookup returns the row the client wrote, COPY counts its rows).
An error is "expected" when the statement was meant to fail with exactly that SQLSTATE, or when it is a 40001
serialization failure of a write that raced another client (an answer a client retries); anything else is
unexpected and printed. The server's RSS is sampled every 0.5 s. Prints operations and p50/p99 latency per kind,
errors by SQLSTATE, RSS at start / peak / end; exits 1 when there was an unexpected error or the server died.
`run_load(dsn, pid, ...)` is the same against a running server (tests/server/test_load_sample.py runs it briefly).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from bench.pgwire import rss_bytes
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]


def children(pid: int) -> list[int]:
    """The child processes of `pid` (FileNotFoundError when `pid` itself is gone). A thread of `pid` that ends
    between listing the threads and reading its children is skipped: the server starts and ends threads all along
    (statement timers, cancels), and that race is no sign of a dead server."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        found.extend(int(child) for child in text)
    return found


def tree_rss(pid: int) -> tuple[int, int]:
    """RSS of the server process itself and of its whole process tree (the Spark JVM is a child process)."""
    own = rss_bytes(pid)
    total, pending = own, children(pid)
    while pending:
        child = pending.pop()
        try:
            total += rss_bytes(child)
            pending.extend(children(child))
        except FileNotFoundError:
            continue
    return own, total


@dataclass
class LoadReport:
    clients: int
    seconds: float
    ops: Counter[str] = field(default_factory=Counter)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    expected_errors: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)  # the server process (Python)
    tree: list[int] = field(default_factory=list)  # with its children (the Spark JVM)
    server_alive: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, elapsed: float) -> None:
        with self.lock:
            self.ops[kind] += 1
            self.latencies[kind].append(elapsed)

    def expected(self, sqlstate: str) -> None:
        with self.lock:
            self.expected_errors[sqlstate] += 1

    def fail(self, message: str) -> None:
        with self.lock:
            self.unexpected.append(message)

    @property
    def ok(self) -> bool:
        return not self.unexpected and self.server_alive

    def print(self) -> None:
        total = sum(self.ops.values())
        print(f"{self.clients} clients x {self.seconds:.0f} s: {total} statements ({total / self.seconds:.0f}/s)")
        print(f"{'kind':<14}{'count':>9}{'p50 ms':>10}{'p99 ms':>10}")
        for kind in sorted(self.ops):
            times = sorted(self.latencies[kind])
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(f"{kind:<14}{self.ops[kind]:>9}{statistics.median(times) * 1e3:>10.1f}{p99 * 1e3:>10.1f}")
        print(f"expected errors: {dict(self.expected_errors) or 'none'}")
        print(f"unexpected errors: {len(self.unexpected)}")
        for message in self.unexpected[:20]:
            print(f"  {message}")
        mib = 1 << 20
        for what, values in (("server RSS", self.rss), ("server + Spark JVM RSS", self.tree)):
            if values:
                print(
                    f"{what}: start {values[0] / mib:.0f} MiB, peak {max(values) / mib:.0f} MiB, "
                    f"end {values[-1] / mib:.0f} MiB"
                )
        print(f"server alive at the end: {self.server_alive}")


class Client:
    """One connection's share of the load; `step()` runs one randomly chosen operation."""

    def __init__(self, number: int, dsn: str, tables: int, report: LoadReport, seed: int) -> None:
        self.n = number
        self.conn: Conn = psycopg.connect(dsn, autocommit=True)
        self.tables = tables
        self.report = report
        self.rng = random.Random(seed * 1000 + number)
        self.next_id = 0
        self.mine: list[tuple[str, int]] = []  # (table, id) rows this client wrote and has not deleted
        self.objects: list[tuple[str, str]] = []  # (kind, name) objects this client created
        self.serial = 0
        self.ops: list[tuple[str, Callable[[], None], int]] = [
            ("aggregate", self.aggregate, 10),
            ("scan", self.scan, 6),
            ("join", self.join, 3),
            ("lookup", self.lookup, 12),
            ("insert", self.insert, 14),
            ("update", self.update, 5),
            ("delete", self.delete, 3),
            ("copy", self.copy, 4),
            ("transaction", self.transaction, 5),
            ("ddl", self.ddl, 4),
            ("catalog", self.catalog, 12),
            ("bad_input", self.bad_input, 3),
        ]
        self.weights = [w for _, _, w in self.ops]

    def table(self) -> str:
        return f"load_t{self.rng.randrange(self.tables)}"

    def new_id(self) -> int:
        self.next_id += 1
        return (self.n + 1) * 1_000_000_000 + self.next_id

    def one(self, sql: str, params: list[Any] | None = None) -> tuple[Any, ...]:
        row: tuple[Any, ...] | None = self.conn.execute(sql, params).fetchone()
        if row is None:
            raise AssertionError(f"no row from {sql}")
        return row

    # ---- operations -----------------------------------------------------------------------------------

    def aggregate(self) -> None:
        count, _ = self.one(f"SELECT count(*), sum(v) FROM {self.table()}")
        assert count >= 0

    def scan(self) -> None:
        residue = self.rng.randrange(97)
        rows = self.conn.execute(f"SELECT id, v, note FROM {self.table()} WHERE v %% 97 = %s", [residue]).fetchall()
        assert all(row[1] % 97 == residue for row in rows), f"scan for v % 97 = {residue}"

    def join(self) -> None:
        a, b = self.table(), self.table()
        (count,) = self.one(f"SELECT count(*) FROM {a} x JOIN {b} y ON x.v = y.v WHERE x.id % 10 = 1")
        assert count >= 0

    def lookup(self) -> None:
        if not self.mine:
            self.insert()
            return
        table, key = self.rng.choice(self.mine)
        row = self.conn.execute(f"SELECT id FROM {table} WHERE id = %s", [key]).fetchone()
        assert row == (key,), f"lookup of {key} in {table}: {row}"

    def insert(self) -> None:
        table, key = self.table(), self.new_id()
        self.conn.execute(f"INSERT INTO {table} VALUES (%s, %s, %s)", [key, key % 1000, f"client {self.n}"])
        self.mine.append((table, key))

    def update(self) -> None:
        if not self.mine:
            return
        table, key = self.rng.choice(self.mine)
        cur = self.conn.execute(f"UPDATE {table} SET v = v + 1, note = 'updated' WHERE id = %s", [key])
        assert cur.rowcount == 1, f"UPDATE of {key} in {table}: {cur.rowcount} rows"

    def delete(self) -> None:
        if not self.mine:
            return
        table, key = self.mine.pop(self.rng.randrange(len(self.mine)))
        cur = self.conn.execute(f"DELETE FROM {table} WHERE id = %s", [key])
        assert cur.rowcount == 1, f"DELETE of {key} in {table}: {cur.rowcount} rows"

    def copy(self) -> None:
        table = self.table()
        keys = [self.new_id() for _ in range(self.rng.randrange(10, 200))]
        with self.conn.cursor() as cur:
            with cur.copy(f"COPY {table} (id, v, note) FROM STDIN") as copy:
                for key in keys:
                    copy.write_row((key, key % 1000, "copied"))
            assert cur.rowcount == len(keys), f"COPY counted {cur.rowcount} of {len(keys)}"
        self.mine.extend((table, key) for key in keys)

    def transaction(self) -> None:
        table = self.table()
        keys = [self.new_id() for _ in range(self.rng.randrange(2, 6))]
        with self.conn.transaction():
            for key in keys:
                self.conn.execute(f"INSERT INTO {table} VALUES (%s, %s, 'in a block')", [key, key % 1000])
            (count,) = self.one(f"SELECT count(*) FROM {table} WHERE id >= %s", [keys[0]])
            assert count >= len(keys)
        self.mine.extend((table, key) for key in keys)

    def ddl(self) -> None:
        if len(self.objects) > 4 or (self.objects and self.rng.random() < 0.4):
            kind, name = self.objects.pop(0)
            self.conn.execute(f"DROP {kind} {name}")
            return
        self.serial += 1
        name = f"load_c{self.n}_{self.serial}"
        choice = self.rng.randrange(3)
        if choice == 0:
            self.conn.execute(f"CREATE TABLE {name} (a int, b text)")
            self.conn.execute(f"INSERT INTO {name} VALUES (1, 'x')")
            self.objects.append(("TABLE", name))
        elif choice == 1:
            self.conn.execute(f"CREATE VIEW {name} AS SELECT id, v FROM {self.table()} WHERE v < 10")
            self.objects.append(("VIEW", name))
        else:
            self.conn.execute(f"CREATE TABLE {name} (a int, b text)")
            self.conn.execute(f"CREATE INDEX {name}_a ON {name} (a)")
            self.objects.append(("TABLE", name))

    def catalog(self) -> None:
        choice = self.rng.randrange(4)
        if choice == 0:
            (count,) = self.one("SELECT count(*) FROM mz_catalog.mz_objects")
            assert count > 0
        elif choice == 1:
            rows = self.conn.execute(
                "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a "
                "JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE c.relname = %s AND a.attnum > 0 "
                "AND NOT a.attisdropped ORDER BY a.attnum",
                [self.table()],
            ).fetchall()
            assert [r[0] for r in rows] == ["id", "v", "note"], rows
        elif choice == 2:
            assert self.conn.execute("SHOW TABLES").fetchall()
        else:
            assert self.one("SELECT current_setting('application_name') IS NOT NULL")[0] is True

    def bad_input(self) -> None:
        sql, sqlstate = self.rng.choice(
            [("SELECT * FROM load_missing", "42P01"), ("SELECT 1 / 0", "22012"), ("SELEC 1", "42601")]
        )
        try:
            self.conn.execute(sql)
        except psycopg.Error as error:
            if error.sqlstate != sqlstate:
                raise
            self.report.expected(sqlstate)
            return
        raise AssertionError(f"{sql} did not fail")

    # ---- driver -----------------------------------------------------------------------------------------

    def step(self) -> None:
        kind, op, _ = self.rng.choices(self.ops, self.weights)[0]
        started = time.perf_counter()
        try:
            op()
        except psycopg.errors.SerializationFailure:
            self.report.expected("40001")
            return
        except (psycopg.Error, AssertionError) as error:
            code = getattr(error, "sqlstate", None) or "assert"
            self.report.fail(f"client {self.n} {kind}: [{code}] {str(error).splitlines()[0][:200]}")
            if self.conn.closed:
                raise
            return
        self.report.record(kind, time.perf_counter() - started)

    def run(self, until: float) -> None:
        try:
            while time.monotonic() < until:
                self.step()
        except psycopg.Error as error:
            self.report.fail(f"client {self.n} lost its connection: {error}")
        finally:
            self.conn.close()


def setup(dsn: str, tables: int, rows: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for t in range(tables):
            conn.execute(f"CREATE TABLE IF NOT EXISTS load_t{t} (id bigint PRIMARY KEY, v int, note text)")
            if conn.execute(f"SELECT count(*) FROM load_t{t}").fetchone() == (0,):
                conn.execute(f"INSERT INTO load_t{t} SELECT g, g % 1000, 'seed' FROM generate_series(1, {rows}) g")
            conn.execute(f"CREATE INDEX IF NOT EXISTS load_t{t}_id ON load_t{t} (id)")
        conn.execute("SELECT count(*) FROM load_t0").fetchone()  # Spark is warm before the clock starts


def run_load(
    dsn: str, pid: int, clients: int, seconds: float, tables: int = 8, rows: int = 2000, seed: int = 1
) -> LoadReport:
    setup(dsn, tables, rows)
    report = LoadReport(clients, seconds)
    workers = [Client(n, dsn, tables, report, seed) for n in range(clients)]
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=w.run, args=(until,), daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    while not report.rss or any(t.is_alive() for t in threads):
        try:
            own, total = tree_rss(pid)
        except FileNotFoundError:
            report.server_alive = False
            break
        report.rss.append(own)
        report.tree.append(total)
        time.sleep(0.5)
    for thread in threads:
        thread.join(60)
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            conn.execute("SELECT 1").fetchone()
    except psycopg.Error:
        report.server_alive = False
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sparkwire-load-") as tmp:
        server = SparkwireServer.start(Path(tmp) / "data")
        try:
            pid = server.process.pid
            report = run_load(server.dsn, pid, args.clients, args.seconds, args.tables, args.rows, args.seed)
        finally:
            server.stop()
    report.print()
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
