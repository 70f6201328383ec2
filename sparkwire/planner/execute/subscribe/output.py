"""SUBSCRIBE's output rows, as Materialize documents them (docs/subscribe.md#output).

Contract: `Shape(fields, schema, progress, envelope, keys)` — `fields` / `schema` describe the relation's columns
(the RowDescription fields and the Arrow schema its rows are conformed to). `shape.fields` is the statement's
RowDescription:
- no envelope: `mz_timestamp` numeric, [`mz_progressed` boolean], `mz_diff` int8, then the relation's columns;
- ENVELOPE UPSERT (KEY (k…)): `mz_timestamp`, [`mz_progressed`], `mz_state` text, the key columns, then the other
  columns: per key and timestamp one row — 'upsert' with the key's new values, 'delete' (values NULL) when the key
  only lost rows, 'key_violation' (values NULL) when it has more than one live value;
- ENVELOPE DEBEZIUM (KEY (k…)): `mz_timestamp`, [`mz_progressed`], `mz_state`, the key columns, `before_<c>` for
  every other column, then `after_<c>`: 'insert' (no before), 'upsert' (before and after), 'delete' (no after),
  'key_violation'.
`changes(ts, rows)` turns consolidated changes (the relation's columns + `DIFF_COLUMN`) at one timestamp into output
rows; `progress(ts)` is the progress row (mz_progressed true, everything but mz_timestamp NULL). Unknown key columns
are 42703.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.planner.execute.spark.conform import conform
from sparkwire.planner.execute.subscribe.stream import frozen
from sparkwire.storage.deltas import DIFF_COLUMN

NUMERIC, BOOL, INT8, TEXT = 1700, 16, 20, 25


class Shape:
    def __init__(
        self,
        fields: Sequence[Field],
        schema: pa.Schema,
        progress: bool,
        envelope: str | None = None,
        keys: Sequence[str] = (),
    ) -> None:
        self._schema = schema
        self._progress = progress
        self._envelope = envelope
        names = [f.name for f in fields]
        for key in keys:
            if key not in names:
                raise e.UndefinedColumn(f'column "{key}" does not exist')
        self._keys = [names.index(k) for k in keys]
        self._values = [i for i in range(len(fields)) if i not in self._keys]
        head = [Field("mz_timestamp", NUMERIC)] + ([Field("mz_progressed", BOOL)] if progress else [])
        if envelope is None:
            columns = [*head, Field("mz_diff", INT8), *fields]
        else:
            head.append(Field("mz_state", TEXT))
            values = [fields[i] for i in self._values]
            columns = [*head, *(fields[i] for i in self._keys)]
            if envelope == "debezium":
                columns += [_renamed(f, "before_") for f in values] + [_renamed(f, "after_") for f in values]
            else:
                columns += values
        self.fields = tuple(columns)
        self._out_schema = pa.schema([pa.field(f.name, t) for f, t in zip(self.fields, self._types(), strict=True)])

    def _types(self) -> list[pa.DataType]:
        types: list[pa.DataType] = [pa.int64()] + ([pa.bool_()] if self._progress else [])
        rel = [field.type for field in self._schema]
        if self._envelope is None:
            return [*types, pa.int64(), *rel]
        types.append(pa.string())
        types += [rel[i] for i in self._keys]
        values = [rel[i] for i in self._values]
        return types + (values * 2 if self._envelope == "debezium" else values)

    def _head(self, ts: int, n: int) -> list[pa.Array]:
        head = [pa.array([ts] * n, pa.int64())]
        if self._progress:
            head.append(pa.array([False] * n, pa.bool_()))
        return head

    def progress(self, ts: int) -> pa.RecordBatch:
        assert self._progress
        columns = [pa.array([ts], pa.int64()), pa.array([True], pa.bool_())]
        columns += [pa.nulls(1, field.type) for field in list(self._out_schema)[2:]]
        return pa.RecordBatch.from_arrays(columns, schema=self._out_schema)

    def _rows(self, rows: pa.Table) -> pa.RecordBatch:
        """The relation's columns of `rows`, conformed to the described schema."""
        table = rows.drop_columns([DIFF_COLUMN]) if DIFF_COLUMN in rows.column_names else rows
        table = table.rename_columns(self._schema.names)
        batch = table.combine_chunks().to_batches()
        relation = batch[0] if batch else pa.RecordBatch.from_pylist([], schema=table.schema)
        return conform(relation, self._schema)

    def changes(self, ts: int, rows: pa.Table) -> pa.RecordBatch:
        if not rows.num_rows:
            return _empty(self._out_schema)
        relation = self._rows(rows)
        diffs = rows.column(DIFF_COLUMN).combine_chunks() if DIFF_COLUMN in rows.column_names else None
        if self._envelope is None:
            n = relation.num_rows
            diff = diffs if diffs is not None else pa.array([1] * n, pa.int64())
            columns = [*self._head(ts, n), diff, *relation.columns]
            return pa.RecordBatch.from_arrays(columns, schema=self._out_schema)
        return self._keyed(ts, relation, diffs)

    def _keyed(self, ts: int, relation: pa.RecordBatch, diffs: pa.Array | None) -> pa.RecordBatch:
        """Upsert / Debezium rows: one per key at this timestamp, in first-seen key order."""
        key_values = ([frozen(v) for v in relation.column(i).to_pylist()] for i in self._keys)
        keys = list(zip(*key_values, strict=True)) if self._keys else []
        if not self._keys:
            keys = [()] * relation.num_rows
        diff = diffs.to_pylist() if diffs is not None else [1] * relation.num_rows
        added: dict[tuple[object, ...], list[int]] = {}
        removed: dict[tuple[object, ...], list[int]] = {}
        order: dict[tuple[object, ...], int] = {}
        for row, (key, d) in enumerate(zip(keys, diff, strict=True)):
            order.setdefault(key, row)
            (added if d > 0 else removed).setdefault(key, []).extend([row] * abs(d))
        states: list[str] = []
        key_rows: list[int] = []
        before: list[int | None] = []
        after: list[int | None] = []
        for key, first in order.items():
            plus, minus = added.get(key, []), removed.get(key, [])
            key_rows.append(first)
            if len(plus) > 1 or len(minus) > 1:
                states.append("key_violation")
                before.append(None)
                after.append(None)
            elif plus:
                states.append("upsert" if minus or self._envelope == "upsert" else "insert")
                before.append(minus[0] if minus else None)
                after.append(plus[0])
            else:
                states.append("delete")
                before.append(minus[0])
                after.append(None)
        n = len(states)
        columns = [*self._head(ts, n), pa.array(states, pa.string())]
        columns += [relation.column(i).take(pa.array(key_rows, pa.int64())) for i in self._keys]
        picks = [before, after] if self._envelope == "debezium" else [after]
        for pick in picks:
            index = pa.array(pick, pa.int64())
            columns += [relation.column(i).take(index) for i in self._values]
        return pa.RecordBatch.from_arrays(columns, schema=self._out_schema)


def _renamed(field: Field, prefix: str) -> Field:
    return Field(prefix + field.name, field.type_oid, field.type_size, field.type_modifier)


def _empty(schema: pa.Schema) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([], schema=schema)
