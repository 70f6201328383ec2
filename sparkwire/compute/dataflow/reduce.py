"""The Reduce of a dataflow: per-group aggregate state, updated by the changes of its input, rendered as rows.

Contract: `Reduction(reduce, schema)` keeps, per group key (a tuple of Python values; NULL is a group, as in
GROUP BY), the row count and per aggregate: its non-NULL count and, for sum / avg, the exact total (int or
Decimal: never a float, so the total never drifts), for min / max the extreme. `apply(batch)` takes a branch
batch (`o0…` the keys then the aggregate arguments, DIFF) and returns the groups whose min or max was retracted
(its extreme may have left): the caller recomputes those from the full input with `set_extremes(batch, groups)`
— an insertion is O(1) per group, only retracting a group's current extreme costs a pass over the input.
`table()` is the view's contents: one row per group with a positive count (a DISTINCT view is a Reduce without
aggregates), exactly one row for an aggregate without GROUP BY (count 0, sum/avg/min/max NULL when empty). Values
are PostgreSQL's: sum of int2/int4 is int8, of int8 and numeric a numeric; avg is numeric division as PostgreSQL
rounds it (pgtypes/numeric_ops.py); `schema` gives each column's Arrow type (an unconstrained numeric is its text).
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.compute.dataflow.linear import DIFF
from sparkwire.compute.dataflow.plan import Aggregate, Reduce
from sparkwire.pgtypes.numeric_ops import numeric_div, spell

Key = tuple[Any, ...]
_NUMERIC_SUM_TYPES = frozenset({20, 1700})  # sum over these is numeric (int8 totals can pass int8's range)


class _State:
    __slots__ = ("count", "extremes", "nonnull", "totals")

    def __init__(self, aggregates: int) -> None:
        self.count = 0
        self.nonnull = [0] * aggregates
        self.totals: list[Any] = [0] * aggregates
        self.extremes: list[Any] = [None] * aggregates


def _sum_type(arg: pa.DataType) -> pa.DataType:
    if pa.types.is_decimal(arg):
        return pa.decimal128(38, arg.scale)
    if arg == pa.int64():
        return pa.decimal128(38, 0)
    return pa.int64()


def _signed(values: pa.ChunkedArray | pa.Array, diff: pa.ChunkedArray | pa.Array) -> pa.Array:
    """`values` with the sign of their row's diff (diffs are ±1: products of storage's ±1 rows)."""
    values = values.cast(_sum_type(values.type))
    return pc.if_else(pc.greater(diff, 0), values, pc.negate(values))


class Reduction:
    def __init__(self, reduce: Reduce, schema: pa.Schema) -> None:
        self._reduce = reduce
        self._schema = schema
        self._groups: dict[Key, _State] = {}
        self._rows: dict[Key, tuple[Any, ...]] = {}
        self._table: pa.Table | None = None
        self._extreme_aggregates = [j for j, a in enumerate(reduce.aggregates) if a.kind in ("min", "max")]
        if not reduce.grouped:
            self._groups[()] = _State(len(reduce.aggregates))
            self._render(())

    @property
    def groups(self) -> int:
        return len(self._groups)

    def _aggregate_columns(
        self, batch: pa.Table, inserts_only: bool
    ) -> tuple[list[str], list[tuple[str, str]], pa.Table]:
        keys = [f"o{n}" for n in range(self._reduce.keys)]
        diff = batch.column(DIFF)
        extra: dict[str, pa.Array] = {}
        aggs: list[tuple[str, str]] = [(DIFF, "sum")]
        for j, agg in enumerate(self._reduce.aggregates):
            if agg.argument is None:
                continue
            arg = batch.column(f"o{self._reduce.keys + agg.argument}")
            if inserts_only:  # every diff is +1 (hydration): counting and summing need no signs
                extra[f"nn{j}"] = arg
                aggs.append((f"nn{j}", "count"))
                if agg.kind in ("sum", "avg"):
                    extra[f"w{j}"] = arg.cast(_sum_type(arg.type))
                    aggs.append((f"w{j}", "sum"))
                continue
            extra[f"nn{j}"] = pc.if_else(pc.is_valid(arg), diff, pa.scalar(0, pa.int64()))
            aggs.append((f"nn{j}", "sum"))
            if agg.kind in ("sum", "avg"):
                extra[f"w{j}"] = _signed(arg, diff)
                aggs.append((f"w{j}", "sum"))
        table = pa.table({**{k: batch.column(k) for k in keys}, DIFF: diff, **extra})
        return keys, aggs, table

    def apply(self, batch: pa.Table) -> set[Key]:
        if not batch.num_rows:
            return set()
        inserts_only = pc.min(batch.column(DIFF)).as_py() > 0
        keys, aggs, table = self._aggregate_columns(batch, inserts_only)
        grouped = table.group_by(keys, use_threads=False).aggregate(aggs)
        extremes = self._extreme_aggregates
        plus = minus = None
        if extremes:
            plus = self._extremes(batch if inserts_only else batch.filter(pc.greater(batch.column(DIFF), 0)), extremes)
            minus = {} if inserts_only else self._extremes(batch.filter(pc.less(batch.column(DIFF), 0)), extremes)
        lost: set[Key] = set()
        rows = grouped.to_pylist()
        for row in rows:
            key = tuple(row[k] for k in keys)
            state = self._groups.get(key)
            if state is None:
                state = self._groups[key] = _State(len(self._reduce.aggregates))
            state.count += row[f"{DIFF}_sum"]
            for j, agg in enumerate(self._reduce.aggregates):
                if agg.argument is None:
                    continue
                state.nonnull[j] += row[f"nn{j}_count"] if f"nn{j}_count" in row else row[f"nn{j}_sum"]
                if agg.kind in ("sum", "avg"):
                    state.totals[j] += row[f"w{j}_sum"] or 0
            for j in extremes:
                lost |= self._merge_extreme(key, state, j, plus, minus)
        for row in rows:
            self._settle(tuple(row[k] for k in keys))
        self._table = None
        return lost - {k for k in lost if k not in self._groups}

    def _extremes(self, batch: pa.Table, extremes: list[int]) -> dict[Key, list[Any]]:
        if not batch.num_rows:
            return {}
        keys = [f"o{n}" for n in range(self._reduce.keys)]
        specs = []
        for j in extremes:
            agg = self._reduce.aggregates[j]
            assert agg.argument is not None
            specs.append((f"o{self._reduce.keys + agg.argument}", "min" if agg.kind == "min" else "max"))
        table = batch.select([*keys, *dict.fromkeys(column for column, _ in specs)])
        grouped = table.group_by(keys, use_threads=False).aggregate(specs)
        found: dict[Key, list[Any]] = {}
        for row in grouped.to_pylist():
            found[tuple(row[k] for k in keys)] = [row[f"{column}_{fn}"] for column, fn in specs]
        return found

    def _merge_extreme(
        self, key: Key, state: _State, j: int, plus: dict[Key, list[Any]] | None, minus: dict[Key, list[Any]] | None
    ) -> set[Key]:
        agg = self._reduce.aggregates[j]
        slot = self._extreme_aggregates.index(j)
        better = min if agg.kind == "min" else max
        retracted = (minus or {}).get(key, [None] * (slot + 1))[slot]
        inserted = (plus or {}).get(key, [None] * (slot + 1))[slot]
        candidate = state.extremes[j]
        if inserted is not None:
            candidate = inserted if candidate is None else better(candidate, inserted)
        if retracted is not None and candidate is not None and better(retracted, candidate) == retracted:
            # a value retracted may have been the extreme (the old one, or one inserted in this same batch)
            state.extremes[j] = None  # recomputed from the input by the caller
            return {key}
        state.extremes[j] = candidate
        return set()

    def set_extremes(self, batch: pa.Table, groups: Iterable[Key]) -> None:
        """The min / max of `groups` from `batch`, the whole input (every row +1)."""
        wanted = set(groups)
        extremes = self._extreme_aggregates
        found = self._extremes(batch, extremes)
        for key in wanted:
            state = self._groups.get(key)
            if state is None:
                continue
            values = found.get(key, [None] * len(extremes))
            for slot, j in enumerate(extremes):
                state.extremes[j] = values[slot]
            self._render(key)
        self._table = None

    def _settle(self, key: Key) -> None:
        state = self._groups[key]
        if state.count == 0 and self._reduce.grouped:
            del self._groups[key]
            self._rows.pop(key, None)
        else:
            self._render(key)

    def _value(self, agg: Aggregate, j: int, state: _State, target: pa.DataType) -> Any:
        if agg.kind == "count":
            return state.count if agg.argument is None else state.nonnull[j]
        if state.nonnull[j] == 0:
            return None
        if agg.kind in ("min", "max"):
            return state.extremes[j]
        total = state.totals[j]
        if agg.kind == "sum" and agg.type_oid not in _NUMERIC_SUM_TYPES:
            return int(total)
        number = numeric_div(decimal.Decimal(total), decimal.Decimal(state.nonnull[j])) if agg.kind == "avg" else (
            decimal.Decimal(total)
        )  # fmt: skip
        return spell(number) if pa.types.is_string(target) else number

    def _render(self, key: Key) -> None:
        state = self._groups[key]
        row = []
        for (what, n), field in zip(self._reduce.columns, self._schema, strict=True):
            if what == "key":
                row.append(key[n])
            else:
                row.append(self._value(self._reduce.aggregates[n], n, state, field.type))
        self._rows[key] = tuple(row)

    def table(self) -> pa.Table:
        if self._table is None:
            rows = list(self._rows.values())
            arrays = [pa.array([r[n] for r in rows], field.type) for n, field in enumerate(self._schema)]
            self._table = pa.Table.from_arrays(arrays, schema=self._schema)
        return self._table
