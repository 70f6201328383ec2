"""The contents of a maintained view without a Reduce: rows keyed by the row ids they were made from.

Contract: `KeyedRows(schema, plain_keys)` holds the view's rows (`schema`: the view's columns) and, per row, a key
naming the input rows it came from (its branch and the row id of each input row joined into it: unique, since a
row id names one row of one immutable file, storage/deltas.py; `plain_keys`: one branch of one input, keyed by
the row id itself). `apply(batch)` takes a branch batch (linear.py: `o0…`, row-id
columns, DIFF) tagged with its branch: a +1 row is added, a −1 row removes the row with its key (a +1 and a −1 of
one key in one batch cancel). `table()` is the contents (cheap: chunks are appended, a removal filters); chunks are
merged when many pile up.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.compute.dataflow.linear import DIFF

KEY = "__key"
_MAX_CHUNKS = 32


def row_keys(batch: pa.Table, rid_columns: Sequence[str], branch: int, plain: bool) -> pa.Array:
    """One key per row: the row id itself for a view of one input (`plain`), else text naming the branch and every
    row id."""
    if plain:
        return batch.column(rid_columns[0]).combine_chunks()
    parts = [pc.cast(batch.column(name), pa.string()) for name in rid_columns]
    prefix = pa.array([str(branch)] * batch.num_rows, pa.string())
    return pc.binary_join_element_wise(prefix, *parts, ":")


class KeyedRows:
    def __init__(self, schema: pa.Schema, plain_keys: bool) -> None:
        self._schema = schema
        self._plain = plain_keys
        self._chunks: list[pa.Table] = []  # the view's columns plus KEY
        self._table: pa.Table | None = None

    def _rows(self, batch: pa.Table, keys: pa.Array) -> pa.Table:
        columns = [batch.column(f"o{n}").cast(field.type) for n, field in enumerate(self._schema)]
        return pa.Table.from_arrays([*columns, keys], schema=self._schema.append(pa.field(KEY, keys.type)))

    def apply(self, batch: pa.Table, rid_columns: Sequence[str], branch: int) -> None:
        if not batch.num_rows:
            return
        keys = row_keys(batch, rid_columns, branch, self._plain)
        diff = batch.column(DIFF)
        plus, minus = pc.greater(diff, 0), pc.less(diff, 0)
        added_keys, removed_keys = keys.filter(plus), keys.filter(minus)
        if len(removed_keys) and len(added_keys):  # a row made and unmade in one batch
            both = pc.is_in(added_keys, value_set=removed_keys)
            if pc.any(both).as_py():
                keep_plus = pc.and_(
                    plus, pc.invert(pc.fill_null(pc.is_in(keys, value_set=added_keys.filter(both)), False))
                )
                keep_minus = pc.and_(minus, pc.invert(pc.is_in(keys, value_set=added_keys.filter(both))))
                plus, minus = keep_plus, keep_minus
                added_keys, removed_keys = keys.filter(plus), keys.filter(minus)
        if len(removed_keys):
            self._chunks = [c.filter(pc.invert(pc.is_in(c.column(KEY), value_set=removed_keys))) for c in self._chunks]
            self._chunks = [c for c in self._chunks if c.num_rows]
        if len(added_keys):
            self._chunks.append(self._rows(batch.filter(plus), added_keys))
        if len(self._chunks) > _MAX_CHUNKS:
            self._chunks = [pa.concat_tables(self._chunks).combine_chunks()]
        self._table = None

    def table(self) -> pa.Table:
        if self._table is None:
            if not self._chunks:
                self._table = self._schema.empty_table()
            else:
                whole = pa.concat_tables(self._chunks) if len(self._chunks) > 1 else self._chunks[0]
                self._table = whole.drop_columns([KEY])
        return self._table
