"""A sqllogictest runner (engine `postgresql`) that drives any server through psycopg (issue 13).

The format is SQLite's (https://www.sqlite.org/sqllogictest/doc/trunk/about.wiki): records `statement ok|error`,
`query <types> <nosort|rowsort|valuesort> [label]` with `----` and the expected values (one a line) or
`N values hashing to <md5>`, `skipif`/`onlyif <engine>`, `halt`, `hash-threshold N`. The API:

- `parse(path)` → the file's records for the engine `postgresql` (skipif/onlyif and `halt` applied);
- `sample(records, queries, later_statements)` → a deterministic sample: about `queries` queries spread over
  the file (or a prefix of it) and every statement in it (statements carry the state the queries read);
- `run(records, conn)` → a `FileResult` (passed, failed records with what went wrong, seconds); queries that
  share a label must also give the same values as the label's first query;
- `reset(conn, records)` drops what the file's records create (views first), so files that reuse table names
  can share one database.

The very same client code runs against sparkwire and against PostgreSQL 15. `python -m bench.sqllogictest` runs
the chosen files against both, side by side (bench/sqllogictest_cli.py); tests/sqllogictest/ runs a sample in CI.

Values print as SQLite's runner prints them: integers as integers, reals with three decimals, NULL as `NULL`,
the empty string as `(empty)`, characters outside printable ASCII as `@`; `rowsort` sorts the rows (as lists of
printed values), `valuesort` all values; an md5 hash covers each printed value followed by "\\n".
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import psycopg

ENGINE = "postgresql"
# the corpus: ../shared/sqllogictest beside the repository (where CI lays shared/), or $SPARKWIRE_SQLLOGICTEST
CORPUS = Path(
    os.environ.get("SPARKWIRE_SQLLOGICTEST") or Path(__file__).resolve().parents[2] / "shared" / "sqllogictest"
)
_HASHED = re.compile(r"^(\d+) values hashing to ([0-9a-f]{32})$")
_CREATED = re.compile(r"^\s*CREATE\s+(?:UNIQUE\s+)?(TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.I)

Conn = psycopg.Connection[tuple[object, ...]]


@dataclass(frozen=True)
class Statement:
    sql: str
    ok: bool
    line: int


@dataclass(frozen=True)
class Query:
    sql: str
    types: str
    sort: str
    label: str | None
    expected: tuple[str, ...]
    line: int

    @property
    def hashed(self) -> tuple[int, str] | None:
        if len(self.expected) == 1:
            m = _HASHED.match(self.expected[0])
            if m:
                return int(m.group(1)), m.group(2)
        return None


Record = Statement | Query


@dataclass(frozen=True)
class Failure:
    record: Record
    reason: str

    def __str__(self) -> str:
        sql = " ".join(self.record.sql.split())
        return f"line {self.record.line}: {self.reason} :: {sql[:300]}"


@dataclass
class FileResult:
    name: str
    passed: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return self.passed + len(self.failures)

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 1.0

    @property
    def per_second(self) -> float:
        return self.total / self.seconds if self.seconds else 0.0


def _blocks(text: str) -> Iterable[tuple[int, list[str]]]:
    block: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            if block:
                yield start, block
                block = []
            continue
        if line.startswith("#") and not block:
            continue
        if not block:
            start = number
        block.append(line)
    if block:
        yield start, block


def parse(path: Path, engine: str = ENGINE) -> list[Record]:
    """The records of one test file that the engine runs, in order; stops at `halt`."""
    records: list[Record] = []
    for line, block in _blocks(path.read_text()):
        skip = False
        while block and block[0].split()[0] in ("skipif", "onlyif"):
            kind, name = block[0].split()[:2]
            skip = skip or (kind == "skipif") == (name == engine)
            block = block[1:]
            line += 1
        if not block:
            continue
        head = block[0].split()
        if head[0] == "halt":
            if skip:
                continue
            break
        if skip or head[0] == "hash-threshold":
            continue
        if head[0] == "statement":
            records.append(Statement("\n".join(block[1:]), head[1] == "ok", line))
        elif head[0] == "query":
            body = block[1:]
            sep = body.index("----") if "----" in body else len(body)
            sort = head[2] if len(head) > 2 else "nosort"
            label = head[3] if len(head) > 3 else None
            records.append(Query("\n".join(body[:sep]), head[1], sort, label,
                                 tuple(v.strip() for v in body[sep + 1:]), line))
        else:
            raise ValueError(f"{path.name}:{line}: unknown record {block[0]!r}")
    return records


def sample(records: Sequence[Record], queries: int, later_statements: int | None = None) -> list[Record]:
    """A deterministic sample: about `queries` query records spread evenly over the window, and every statement
    in it. The window is the whole file, or with `later_statements` the records before the statement that many
    statements after the first query (files like index_delete interleave thousands of statements)."""
    window = list(records)
    if later_statements is not None:
        first = next((i for i, r in enumerate(window) if isinstance(r, Query)), len(window))
        later = [i for i, r in enumerate(window) if isinstance(r, Statement) and i > first]
        if len(later) > later_statements:
            window = window[:later[later_statements]]
    k = max(1, sum(isinstance(r, Query) for r in window) // max(1, queries))
    chosen: list[Record] = []
    seen = 0
    for record in window:
        if isinstance(record, Query):
            seen += 1
            if (seen - 1) % k:
                continue
        chosen.append(record)
    return chosen


def _printable(text: str) -> str:
    if text == "":
        return "(empty)"
    return "".join(c if " " <= c <= "~" else "@" for c in text)


def render(value: object, kind: str) -> str:
    """One value as SQLite's runner prints it for a column of type `kind` (I, R or T)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        value = int(value)
    if kind == "I":
        if isinstance(value, int):
            return str(value)
        if isinstance(value, (float, Decimal)):
            return str(int(value))
        try:
            return str(int(float(str(value))))
        except ValueError:
            return "0"
    if kind == "R":
        if isinstance(value, (int, float, Decimal)):
            return f"{float(value):.3f}"
        try:
            return f"{float(str(value)):.3f}"
        except ValueError:
            return "0.000"
    if isinstance(value, float):
        return _printable(f"{value:.3f}")
    return _printable(str(value))


def values(rows: Sequence[Sequence[object]], types: str, sort: str) -> list[str]:
    printed = [[render(v, types[i] if i < len(types) else "T") for i, v in enumerate(row)] for row in rows]
    if sort == "rowsort":
        printed.sort()
    flat = [v for row in printed for v in row]
    if sort == "valuesort":
        flat.sort()
    return flat


def digest(flat: Sequence[str]) -> str:
    return hashlib.md5("".join(v + "\n" for v in flat).encode()).hexdigest()


def check(query: Query, rows: Sequence[Sequence[object]], width: int) -> str | None:
    """None when the rows are what the record expects, else what differs."""
    if width != len(query.types):
        return f"{width} columns, expected {len(query.types)}"
    flat = values(rows, query.types, query.sort)
    hashed = query.hashed
    if hashed is not None:
        n, md5 = hashed
        if len(flat) != n or digest(flat) != md5:
            return f"{len(flat)} values hashing to {digest(flat)}, expected {n} hashing to {md5}"
        return None
    expected = list(query.expected)
    if flat != expected and [t for v in expected for t in v.split()] != [t for v in flat for t in v.split()]:
        return f"got {flat[:12]}, expected {expected[:12]}"
    return None


def _sqlstate(exc: psycopg.Error) -> str:
    return f"{exc.sqlstate or '?'} {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def _reusable(conn: Conn) -> bool:
    return not conn.closed and not conn.broken


def run(
    records: Sequence[Record], conn: Conn, name: str = "", reconnect: str | None = None, seconds: float | None = None
) -> FileResult:
    """Run the records in order on an autocommit connection; a failure is recorded and the run goes on. With
    `reconnect` (a DSN), a connection the server dropped is replaced; with `seconds`, the run stops after that long
    (a time-bounded prefix: the records not run are not counted)."""
    result = FileResult(name)
    labels: dict[str, str] = {}
    start = time.perf_counter()
    for record in records:
        if seconds is not None and time.perf_counter() - start > seconds:
            break
        if not _reusable(conn):
            if reconnect is None:
                result.failures.append(Failure(record, "connection lost"))
                continue
            conn = psycopg.connect(reconnect, autocommit=True)
        reason = _one(record, conn, labels)
        if reason is None:
            result.passed += 1
        else:
            result.failures.append(Failure(record, reason))
    result.seconds = time.perf_counter() - start
    return result


def _one(record: Record, conn: Conn, labels: dict[str, str]) -> str | None:
    try:
        cur = conn.execute(record.sql)
        rows = cur.fetchall() if isinstance(record, Query) and cur.description else []
        width = len(cur.description or ())
    except psycopg.Error as exc:
        if isinstance(record, Statement) and not record.ok:
            return None
        return f"error {_sqlstate(exc)}"
    if isinstance(record, Statement):
        return None if record.ok else "succeeded, expected an error"
    reason = check(record, rows, width)
    if reason is None and record.label is not None:
        got = digest(values(rows, record.types, record.sort))
        if labels.setdefault(record.label, got) != got:
            return f"label {record.label} differs from its first query"
    return reason


def created(records: Iterable[Record]) -> list[tuple[str, str]]:
    """(kind, name) of every table and view the records create, views first, each once."""
    found: dict[tuple[str, str], None] = {}
    for record in records:
        if isinstance(record, Statement):
            m = _CREATED.match(record.sql)
            if m:
                found[(m.group(1).upper(), m.group(2).lower())] = None
    return sorted(found, key=lambda kn: (kn[0] != "VIEW", kn[1]))


def reset(conn: Conn, records: Iterable[Record]) -> None:
    """Drop every view and table the records create, if it exists (CASCADE: a view may read another)."""
    for kind, name in created(records):
        conn.execute(f"DROP {kind} IF EXISTS {name} CASCADE")


if __name__ == "__main__":
    from bench.sqllogictest_cli import main

    main()
