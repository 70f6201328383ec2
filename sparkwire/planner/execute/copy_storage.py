"""COPY … FROM STDIN into a storage table: parsed rows appended to a `WriteTxn`, with the table's constraints.

Contract: `copy_columns(item, names)` is the catalog columns COPY fills, in data order (every column when `names` is
empty; 42703 `column "x" of relation "t" does not exist`). `StorageCopyInSink(parser, item, columns, txn, duck,
ctx)` implements api.CopyInSink (`txn` returns the write transaction to use). CopyData payloads go to `parser`
(planner/execute/copy.py `copy_parser`: pgtypes' CopyInParser or BinaryCopyInParser for `columns`' oids, names and
typmods), which applies each type's input function. `finish()` applies varchar(n)/char(n) lengths (22001), fills the
columns COPY does not list with their DEFAULT (evaluated once on DuckDB), checks NOT NULL (23502), PRIMARY KEY and
the `unique` indexes given (23505, against the rows the transaction sees and within the data), appends every
row — all or nothing — returns the count and hands `record` a replay of the append (for ROLLBACK TO SAVEPOINT);
committing is the caller's, or `CommittingSink`'s outside a transaction block. `abort()` drops what was parsed.
Both run their work inside `guard` (the session's cancel and error mapping) and call `on_done` at the end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Protocol

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.catalog.objects import Column, Item
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.execute.streams import Guard
from sparkwire.planner.execute.unique_keys import check_unique
from sparkwire.planner.execute.write_values import check_not_null, check_primary_key, fit_typmod
from sparkwire.planner.execute.writes import column_default, storage_schema
from sparkwire.planner.translate.duckdb import SessionContext
from sparkwire.planner.translate.functions.transaction_time import StatementTimes
from sparkwire.storage.txn import WriteTxn


class CopyParser(Protocol):
    def feed(self, data: bytes) -> None: ...

    def finish(self) -> pa.RecordBatch: ...


def copy_columns(item: Item, names: Sequence[str]) -> list[Column]:
    by_name = {c.name: c for c in item.columns}
    for name in names:
        if name not in by_name:
            raise e.UndefinedColumn(f'column "{name}" of relation "{item.name}" does not exist')
    return [by_name[n] for n in names] if names else list(item.columns)


def _no_op() -> None:
    return None


class StorageCopyInSink:
    def __init__(
        self,
        parser: CopyParser,
        item: Item,
        columns: Sequence[Column],
        txn: Callable[[], WriteTxn],
        duck: DuckDBConnection,
        ctx: SessionContext,
        *,
        options: EncodeOptions | None = None,
        guard: Guard = contextlib.nullcontext,
        on_done: Callable[[], None] = _no_op,
        record: Callable[[Callable[[], object]], None] = lambda _replay: None,
        unique: Sequence[tuple[str, list[str]]] = (),
        times: StatementTimes | None = None,
    ) -> None:
        self._parser: CopyParser | None = parser
        self._times = times  # now() in a DEFAULT: the transaction's start
        self._item = item
        self._columns = list(columns)
        self._txn = txn
        self._duck = duck
        self._ctx = ctx
        self._options = options or EncodeOptions()
        self._guard = guard
        self._on_done = on_done
        self._record = record
        self._unique = list(unique)

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
                given = {c.name: fit_typmod(batch.column(i), c) for i, c in enumerate(self._columns)}
                rows = batch.num_rows
                arrays = [
                    given[c.name] if c.name in given else column_default(
                        c, rows, self._duck, self._ctx, self._options, self._times
                    )
                    for c in self._item.columns
                ]
                table = pa.Table.from_arrays(arrays, schema=storage_schema(self._item))
                check_not_null(table, self._item)
                txn = self._txn()
                if self._item.primary_key:
                    existing = txn.read_arrow(self._item.id, columns=list(self._item.primary_key))
                    check_primary_key(table, existing, self._item)
                for name, key in self._unique:
                    check_unique(table, txn.read_arrow(self._item.id, columns=key), name, key)
                count = txn.append(self._item.id, table)
                self._record(lambda: self._txn().append(self._item.id, table))
                return count
        finally:
            self._on_done()

    def abort(self, reason: str) -> None:
        self._parser = None
        self._on_done()


class CommittingSink:
    """A COPY FROM outside a transaction block: the sink's own write transaction, committed by `finish`."""

    def __init__(self, sink: StorageCopyInSink, txn: WriteTxn, commit: Callable[[WriteTxn], object]) -> None:
        self._sink = sink
        self._txn = txn
        self._commit = commit

    def write(self, data: bytes) -> None:
        self._sink.write(data)

    def finish(self) -> int:
        try:
            count = self._sink.finish()
            self._commit(self._txn)
        except BaseException:
            with contextlib.suppress(e.PgError):
                self._txn.abort()
            raise
        return count

    def abort(self, reason: str) -> None:
        self._sink.abort(reason)
        with contextlib.suppress(e.PgError):
            self._txn.abort()
