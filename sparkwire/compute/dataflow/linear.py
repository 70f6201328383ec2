"""The linear part of a dataflow on Arrow: a branch's join, filter and projection over input batches with diffs.

Contract: inputs are `pa.Table`s with a branch input's internal columns, its row-id column (`rid_column(n)`) and
`DIFF` (int64). `evaluate_branch(branch, tables)` joins them on the branch's equalities (inner, NULL never
matches), multiplies the diffs, keeps the rows the predicate holds for, and returns the outputs `o0, o1, …`, the
row-id columns and `DIFF`. `delta_terms(n, old, new, delta)` lists the input combinations whose union is the change
of an n-way join between two versions (ΔR⋈S = ΔR⋈S_old + R_new⋈ΔS, generalised): each changed input in turn as its
delta, the inputs before it new and those after it old.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.compute.dataflow.expressions import evaluate, predicate_mask
from sparkwire.compute.dataflow.plan import Branch
from sparkwire.errors import InternalError

DIFF = "__diff"


def rid_column(position: int) -> str:
    return f"__rid{position}"


def _common(left: pa.DataType, right: pa.DataType) -> pa.DataType:
    if left == right:
        return left
    if pa.types.is_integer(left) and pa.types.is_integer(right):
        return pa.int64()
    if pa.types.is_string(left) or pa.types.is_large_string(left):
        return pa.string()
    return left


def _join(left: pa.Table, right: pa.Table, keys: list[tuple[str, str]]) -> pa.Table:
    right = right.rename_columns([f"{DIFF}_r" if name == DIFF else name for name in right.column_names])
    if not keys:
        raise InternalError("a dataflow join without an equality (the planner refuses cross joins)")
    for lk, rk in keys:
        common = _common(left.schema.field(lk).type, right.schema.field(rk).type)
        if left.schema.field(lk).type != common:
            left = left.set_column(left.schema.get_field_index(lk), lk, left.column(lk).cast(common))
        if right.schema.field(rk).type != common:
            right = right.set_column(right.schema.get_field_index(rk), rk, right.column(rk).cast(common))
    joined = left.join(
        right,
        keys=[lk for lk, _ in keys],
        right_keys=[rk for _, rk in keys],
        join_type="inner",
        coalesce_keys=False,
        use_threads=left.num_rows + right.num_rows > 100_000,
    )
    diff = pc.multiply(joined.column(DIFF), joined.column(f"{DIFF}_r"))
    joined = joined.drop_columns([f"{DIFF}_r"])
    return joined.set_column(joined.schema.get_field_index(DIFF), DIFF, diff)


def evaluate_branch(branch: Branch, tables: Sequence[pa.Table]) -> pa.Table:
    current = tables[0]
    joined = {branch.inputs[0].position}
    pending = list(branch.join_keys)
    for source, table in zip(branch.inputs[1:], tables[1:], strict=True):
        prefix = f"i{source.position}_"
        keys: list[tuple[str, str]] = []
        for a, b in list(pending):
            if b.startswith(prefix) and any(a.startswith(f"i{p}_") for p in joined):
                keys.append((a, b))
                pending.remove((a, b))
            elif a.startswith(prefix) and any(b.startswith(f"i{p}_") for p in joined):
                keys.append((b, a))
                pending.remove((a, b))
        current = _join(current, table, keys)  # joined even when empty: the outputs need every input's columns
        joined.add(source.position)
    if branch.predicate is not None and current.num_rows:
        current = current.filter(predicate_mask(branch.predicate, current))
    columns = {f"o{n}": evaluate(node, current) for n, node in enumerate(branch.outputs)}
    for source in branch.inputs:
        columns[rid_column(source.position)] = current.column(rid_column(source.position))
    columns[DIFF] = current.column(DIFF)
    return pa.table(columns)


def delta_terms(count: int, changed: Sequence[bool]) -> list[tuple[str, ...]]:
    """For each changed input i: ('new',)*i + ('delta',) + ('old',)*(count-i-1)."""
    return [
        tuple("new" if j < i else "delta" if j == i else "old" for j in range(count))
        for i in range(count)
        if changed[i]
    ]
