"""The one execution interface the planner drives: an engine connection per session.

Contract: the planner hands an `EngineConnection` engine-dialect SQL text plus bound parameter values (never
spliced into the text). `describe` returns the result columns of a row-returning statement WITHOUT executing
it; `query` starts a row-returning statement (SELECT, or DML with RETURNING, which runs to completion first)
and returns its rows as an iterator of Arrow record batches; `command` runs anything else and returns the
affected-row count (0 when the statement reports none); `insert_arrow` appends Arrow data to a table (COPY
FROM), given the table and column names already quoted in the engine's dialect. Engine errors are raised as
`sparkwire.errors.PgError` with PostgreSQL SQLSTATEs. `interrupt` may be called from any thread and makes the
running call fail with the engine's interrupt error (mapped to 57014 by the caller, who knows why it
interrupted). Transactions: `begin`/`commit`/`rollback` on the connection; `set_time_zone` (an IANA name) sets
the zone timestamptz values are shown and read in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class Column:
    """A result column: its name and the engine's spelling of its type (e.g. DuckDB's "DECIMAL(10,2)")."""

    name: str
    engine_type: str


class EngineConnection(Protocol):
    def describe(self, sql: str, params: Sequence[object] = ()) -> list[Column]: ...

    def query(self, sql: str, params: Sequence[object] = ()) -> tuple[list[Column], Iterator[pa.RecordBatch]]: ...

    def command(self, sql: str, params: Sequence[object] = ()) -> int: ...

    def insert_arrow(self, table_sql: str, column_sqls: Sequence[str], data: pa.Table) -> int: ...

    def set_time_zone(self, zone: str) -> None: ...

    def begin(self) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...
