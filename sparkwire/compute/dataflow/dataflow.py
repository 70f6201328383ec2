"""One maintained view's dataflow: its contents brought from one storage snapshot to the next by its changes.

Contract: `Dataflow(plan, schema)`; `hydrate(snapshot)` computes the contents from the inputs' rows at the
snapshot (the same operators as a change, over whole inputs); `step(snapshot)` brings them to a later snapshot
from the inputs' changes only (storage/deltas.py): per branch, the delta terms of its join (linear.py), then the
Reduce (reduce.py) or the keyed rows (collection.py). Only a retracted min / max re-reads its inputs (the groups
that lost their extreme). `table()` is the contents, in the view's column order and Arrow types (`schema`).
Not thread-safe: one maintainer thread drives it (maintainer.py). Whole-input reads of unchanged inputs (the other
side of a join) are kept in a process-wide LRU keyed by the storage, the table and its version (`INPUT_CACHE_BYTES`).
"""

from __future__ import annotations

import threading

import pyarrow as pa
from cachetools import LRUCache

from sparkwire.compute.dataflow.collection import KeyedRows
from sparkwire.compute.dataflow.linear import DIFF, delta_terms, evaluate_branch, rid_column
from sparkwire.compute.dataflow.plan import Branch, DataflowPlan, Input
from sparkwire.compute.dataflow.reduce import Reduction
from sparkwire.storage import ROW_ID_COLUMN, Snapshot
from sparkwire.storage.deltas import DIFF_COLUMN, changes

INPUT_CACHE_BYTES = 512 << 20
_inputs: LRUCache[tuple[str, str, tuple[tuple[int, int], ...], tuple[str, ...]], pa.Table] = LRUCache(
    INPUT_CACHE_BYTES, getsizeof=lambda t: max(t.nbytes, 1)
)
_inputs_lock = threading.Lock()


def _named(source: Input, table: pa.Table) -> pa.Table:
    names = [source.internal(c) for c in source.columns] + [rid_column(source.position)]
    if DIFF_COLUMN in table.column_names:
        return table.rename_columns([*names, DIFF])
    table = table.rename_columns(names)
    return table.append_column(DIFF, pa.array([1] * table.num_rows, pa.int64()))


def whole_input(snapshot: Snapshot, source: Input) -> pa.Table:
    key = (str(snapshot.root), source.table_id, snapshot.version(source.table_id), source.columns)
    with _inputs_lock:
        found = _inputs.get(key)
    if found is None:
        raw = snapshot.read_arrow(source.table_id, columns=list(source.columns), row_ids=True)
        found = raw.rename_columns([*source.columns, ROW_ID_COLUMN])
        with _inputs_lock:
            _inputs[key] = found
    return _named(source, found)


def input_changes(before: Snapshot, after: Snapshot, source: Input) -> pa.Table:
    return _named(source, changes(before, after, source.table_id, columns=list(source.columns), row_ids=True))


class Dataflow:
    def __init__(self, plan: DataflowPlan, schema: pa.Schema) -> None:
        self.plan = plan
        self.schema = schema
        plain = len(plan.branches) == 1 and len(plan.branches[0].inputs) == 1
        self._keyed = KeyedRows(schema, plain) if plan.reduce is None else None
        self._reduction = Reduction(plan.reduce, schema) if plan.reduce is not None else None
        self.snapshot: Snapshot | None = None
        self.rows_in = 0  # input changes read, for introspection

    def _apply(self, branch_no: int, branch: Branch, batch: pa.Table) -> None:
        if self._keyed is not None:
            self._keyed.apply(batch, [rid_column(s.position) for s in branch.inputs], branch_no)

    def _reduce_batch(self, batches: list[pa.Table]) -> pa.Table:
        outputs = [c for c in batches[0].column_names if c.startswith("o")] + [DIFF]
        return pa.concat_tables([b.select(outputs) for b in batches])

    def _whole(self, snapshot: Snapshot) -> list[pa.Table]:
        return [evaluate_branch(b, [whole_input(snapshot, s) for s in b.inputs]) for b in self.plan.branches]

    def hydrate(self, snapshot: Snapshot) -> None:
        batches = self._whole(snapshot)
        self.rows_in = sum(b.num_rows for b in batches)
        if self._reduction is not None:
            self._reduction.apply(self._reduce_batch(batches))
        else:
            for n, (branch, batch) in enumerate(zip(self.plan.branches, batches, strict=True)):
                self._apply(n, branch, batch)
        self.snapshot = snapshot

    def step(self, snapshot: Snapshot) -> None:
        before = self.snapshot
        if before is None:
            self.hydrate(snapshot)
            return
        per_branch: list[pa.Table | None] = []
        for branch in self.plan.branches:
            changed = [before.version(s.table_id) != snapshot.version(s.table_id) for s in branch.inputs]
            deltas = {
                s.position: input_changes(before, snapshot, s) for s, c in zip(branch.inputs, changed, strict=True) if c
            }
            self.rows_in += sum(d.num_rows for d in deltas.values())
            parts = []
            for term in delta_terms(len(branch.inputs), changed):
                tables = [
                    deltas[s.position] if role == "delta" else whole_input(snapshot if role == "new" else before, s)
                    for s, role in zip(branch.inputs, term, strict=True)
                ]
                if any(not t.num_rows for t in tables):
                    continue
                parts.append(evaluate_branch(branch, tables))
            per_branch.append(pa.concat_tables(parts) if parts else None)
        if self._reduction is not None:
            batches = [b for b in per_branch if b is not None]
            if batches:
                lost = self._reduction.apply(self._reduce_batch(batches))
                if lost:
                    self._reduction.set_extremes(self._reduce_batch(self._whole(snapshot)), lost)
        else:
            for n, (branch, batch) in enumerate(zip(self.plan.branches, per_branch, strict=True)):
                if batch is not None:
                    self._apply(n, branch, batch)
        self.snapshot = snapshot

    def table(self) -> pa.Table:
        if self._reduction is not None:
            return self._reduction.table()
        assert self._keyed is not None
        return self._keyed.table()
