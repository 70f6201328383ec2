"""Shared helpers for the planner tests: drive a real PlannerService session the way the server does.

`Client` wraps one `DuckSession` on a real DuckDB database: it runs simple queries and materializes each result
(tag computed as the server computes it), collects notices and ParameterStatus calls, and exposes the session
for extended-protocol calls. `oracle_run` runs the same SQL on the PostgreSQL oracle for comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg

from sparkwire.api import CommandComplete, CopyIn, CopyOut, EmptyQuery, Notice, Result, Rows, StartupInfo
from sparkwire.errors import PgError
from sparkwire.session.service import PlannerService
from sparkwire.session.session import DuckSession
from tests.support.spark import shared_spark

NUMERIC_OID = 1700


@dataclass
class Outcome:
    tag: str
    names: list[str] = field(default_factory=list)
    oids: list[int] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)


def materialize(result: Result, copy_data: bytes = b"") -> Outcome:
    match result:
        case Rows() | CopyOut():
            rows: list[tuple[Any, ...]] = []
            numeric = [f.type_oid == NUMERIC_OID for f in result.fields]
            for batch in result.stream:
                columns = [column.to_pylist() for column in batch.columns]
                # a numeric held as its exact text (PostgreSQL's scale per value) reads as a client reads it
                columns = [
                    [Decimal(v) if is_numeric and isinstance(v, str) else v for v in values]
                    for values, is_numeric in zip(columns, numeric + [False] * len(columns), strict=False)
                ]
                rows.extend(zip(*columns, strict=True))
            default_tag = f"{result.tag_prefix} {len(rows)}" if isinstance(result, Rows) else f"COPY {len(rows)}"
            tag = (result.tag if isinstance(result, Rows) else None) or default_tag
            return Outcome(tag, [f.name for f in result.fields], [f.type_oid for f in result.fields], rows)
        case CommandComplete(tag=tag):
            return Outcome(tag)
        case EmptyQuery():
            return Outcome("")
        case CopyIn(sink=sink):
            sink.write(copy_data)
            return Outcome(f"COPY {sink.finish()}")
    raise AssertionError(result)


class Client:
    def __init__(self, service: PlannerService, **startup: Any) -> None:
        self.notices: list[Notice] = []
        self.statuses: list[tuple[str, str]] = []
        info = StartupInfo(
            user=startup.pop("user", "materialize"), database=startup.pop("database", "materialize"), **startup
        )
        self.session: DuckSession = service.new_session(
            info, self.notices.append, lambda k, v: self.statuses.append((k, v))
        )

    def run(self, sql: str, copy_data: bytes = b"") -> list[Outcome]:
        return [materialize(r, copy_data) for r in self.session.simple_query(sql)]

    def one(self, sql: str) -> Outcome:
        outcomes = self.run(sql)
        assert len(outcomes) == 1, outcomes
        return outcomes[0]

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return self.one(sql).rows

    def error(self, sql: str) -> PgError:
        try:
            self.run(sql)
        except PgError as err:
            return err
        raise AssertionError(f"no error from {sql!r}")

    @property
    def status(self) -> str:
        return self.session.transaction_status

    def close(self) -> None:
        self.session.terminate()


def new_service(path: Path) -> PlannerService:
    return PlannerService(path, shared_spark(wait=False))


@dataclass
class OracleOutcome:
    names: list[str]
    rows: list[tuple[Any, ...]]
    sqlstate: str | None
    notices: list[str]


def oracle_run(dsn: str, sql: str, setup: str = "") -> OracleOutcome:
    """Run `sql` on PostgreSQL (autocommit) and return the last result's names/rows, or the error's SQLSTATE."""
    notices: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
        if setup:
            conn.execute(setup)
        try:
            cur = conn.execute(sql)
        except psycopg.Error as err:
            return OracleOutcome([], [], err.sqlstate, notices)
        names = [d.name for d in cur.description] if cur.description else []
        rows = [tuple(r) for r in cur.fetchall()] if cur.description else []
        return OracleOutcome(names, rows, None, notices)
