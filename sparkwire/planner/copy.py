"""COPY … TO STDOUT / FROM STDIN: turning the parsed COPY statement into what the server streams.

Contract: `copy_format(stmt)` is the wire format of the COPY ("text", "csv" or "binary"). `copy_out_query(stmt)`
gives the PostgreSQL-dialect SELECT whose rows COPY TO sends (the query itself, or `SELECT cols FROM table`).
`CopyInSink` implements api.CopyInSink: CopyData payloads go to pgtypes' CopyInParser, or BinaryCopyInParser for
FORMAT binary (typed by the target columns); `finish()` inserts every row in one engine statement — all or
nothing — and returns the count; `abort()` drops what was buffered, so nothing reaches the table. The sink
runs its engine work inside the session's guard (cancel, error mapping, failed-transaction state) and hands
the session (`record`) a replay of its insert, for ROLLBACK TO SAVEPOINT.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Literal

import pyarrow as pa
from sqlglot import exp

from sparkwire.engine.base import Column, EngineConnection
from sparkwire.pgtypes.copy_binary import BinaryCopyInParser
from sparkwire.pgtypes.copy_in import CopyInParser
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.fields import pg_type
from sparkwire.planner.streams import Guard
from sparkwire.planner.utility import CopyFrom, CopyTo


def _table(name: str) -> exp.Table:
    return exp.to_table(name, dialect="postgres")


def copy_format(stmt: CopyTo | CopyFrom) -> Literal["text", "csv", "binary"]:
    fmt = stmt.options.format
    return "csv" if fmt == "csv" else "binary" if fmt == "binary" else "text"


def copy_out_query(stmt: CopyTo) -> str:
    if stmt.query is not None:
        return stmt.query
    assert stmt.table is not None
    columns: list[exp.Expression] = [exp.column(c, quoted=True) for c in stmt.columns] or [exp.Star()]
    return exp.select(*columns).from_(_table(stmt.table)).sql(dialect="postgres")


def target_columns(stmt: CopyFrom, describe: Callable[[str], list[Column]]) -> list[Column]:
    """The engine columns COPY FROM fills, in data order (raises 42P01/42703 for bad names)."""
    columns: list[exp.Expression] = [exp.column(c, quoted=True) for c in stmt.columns] or [exp.Star()]
    return describe(exp.select(*columns).from_(_table(stmt.table)).sql(dialect="duckdb"))


class CopyInSink:
    def __init__(
        self,
        stmt: CopyFrom,
        columns: Sequence[Column],
        engine: EngineConnection,
        guard: Guard,
        options: EncodeOptions,
        on_done: Callable[[], None],
        record: Callable[[Callable[[], object]], None],
    ) -> None:
        self._stmt = stmt
        self._columns = list(columns)
        self._engine = engine
        self._guard = guard
        self._on_done = on_done
        self._record = record
        types = [pg_type(c.engine_type) for c in columns]
        opts = stmt.options
        oids, names, typmods = [t[0] for t in types], [c.name for c in columns], [t[1] for t in types]
        self._parser: CopyInParser | BinaryCopyInParser | None
        if opts.format == "binary":
            self._parser = BinaryCopyInParser(oids, table=stmt.table, columns=names, typmods=typmods)
        else:
            self._parser = CopyInParser(
                oids,
                opts.format,
                opts.delimiter,
                opts.null,
                opts.quote,
                opts.escape,
                opts.header,
                table=stmt.table,
                columns=names,
                typmods=typmods,
                options=options,
            )

    def write(self, data: bytes) -> None:
        if self._parser is None:
            return
        with self._guard():
            self._parser.feed(data)

    def finish(self) -> int:
        parser, self._parser = self._parser, None
        if parser is None:
            return 0
        try:
            with self._guard():
                batch = parser.finish()
                if batch.num_rows == 0:
                    return 0
                table_sql = _table(self._stmt.table).sql(dialect="duckdb")
                column_sqls = [exp.column(c.name, quoted=True).sql(dialect="duckdb") for c in self._columns]
                data = pa.Table.from_batches([batch])
                count = self._engine.insert_arrow(table_sql, column_sqls, data)
                self._record(functools.partial(self._engine.insert_arrow, table_sql, column_sqls, data))
                return count
        finally:
            self._on_done()

    def abort(self, reason: str) -> None:
        self._parser = None
        self._on_done()
