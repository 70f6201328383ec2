"""The storage scan path: `SELECT <columns> FROM <table> [LIMIT n]` read from storage's files, without a Spark job.

Such a query (what `COPY t TO STDOUT` runs, what a BI tool's data preview sends) asks for nothing Spark would add:
every row of one table, some columns. Reading the snapshot's Parquet files with pyarrow, one file at a time,
streams the same rows without the JVM's scan, the Arrow transfer from the JVM and the result held whole in memory —
Materialize's "persist fast path" (its `execution_strategy` name is used for these statements).

Contract:
- `scan_path(tree, state, names)` returns a `ScanPlan` when `tree` is exactly `SELECT <plain columns, aliased
  columns or *> FROM <table> [alias] [LIMIT <n>]` over a table or a source's collection (their contents are all
  in storage), or over a materialized view (`maintained`: its contents are in memory, kept current by its
  maintainer, compute/dataflow/), and None otherwise (a view is computed). `tree` is the query as the role may
  run it: a row filter the privileges added makes it a WHERE, which takes it off this path.
- `run_scan(plan, snapshot, contents)` yields the rows at the snapshot, file by file (deleted rows removed), or
  from `contents()` for a materialized view, projected and named as `plan.output` says, at most `plan.limit` of
  them. `held(batches, max_bytes)` reads them whole, or
  returns None once they hold more than `max_bytes` (max_query_result_size bounds a result before any row of it
  is sent, on every path).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pyarrow as pa
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.execute.fast_path import single_table
from sparkwire.planner.execute.resident import BASE_KINDS
from sparkwire.storage import Snapshot
from sparkwire.storage.files import read_data_file

_CLAUSES = frozenset({"expressions", "from_", "limit"})
BATCH_ROWS = 65_536  # rows encoded at a time: the client reads one batch while the next is encoded


@dataclass(frozen=True, slots=True)
class ScanPlan:
    relation_id: str
    output: tuple[tuple[str, str], ...]  # (storage column, output name)
    limit: int | None
    maintained: bool = False  # a materialized view: its maintained contents, not storage


def scan_path(tree: exp.Expr, state: CatalogState, names: Names) -> ScanPlan | None:
    found = single_table(tree, state, names, _CLAUSES)
    if found is None:
        return None
    relation, output, limit = found
    if relation.kind not in (*BASE_KINDS, "materialized-view") or not relation.columns:
        return None
    return ScanPlan(relation.id, output, limit, relation.kind == "materialized-view")


def held(batches: Iterator[pa.RecordBatch], max_bytes: int) -> list[pa.RecordBatch] | None:
    kept, size = [], 0
    for batch in batches:
        size += batch.get_total_buffer_size()
        if size > max_bytes:
            return None
        kept.append(batch)
    return kept


def _limited(batches: Iterator[pa.RecordBatch], limit: int | None) -> Iterator[pa.RecordBatch]:
    left = limit
    if left is not None and left <= 0:
        return
    for batch in batches:
        if left is not None:
            batch = batch.slice(0, left)
            left -= batch.num_rows
        yield batch
        if left is not None and left <= 0:
            return  # before asking for the next batch: no file is read past the limit


def run_scan(
    plan: ScanPlan, snapshot: Snapshot, contents: Callable[[], pa.Table] | None = None
) -> Iterator[pa.RecordBatch]:
    if plan.maintained:
        if contents is None:
            raise e.InternalError("a materialized view's scan needs its contents")
        table = contents()
        arrays = [table.column(column) for column, _ in plan.output]
        named = pa.Table.from_arrays(arrays, names=[name for _, name in plan.output])
        yield from _limited(iter(named.to_batches(max_chunksize=BATCH_ROWS)), plan.limit)
        return
    yield from _limited(_file_batches(plan, snapshot), plan.limit)


def _file_batches(plan: ScanPlan, snapshot: Snapshot) -> Iterator[pa.RecordBatch]:
    """The table's rows file by file (a file is read only when the rows before it did not reach the limit)."""
    columns = list(dict.fromkeys(column for column, _ in plan.output))
    schema = snapshot.schema(plan.relation_id)
    names = [name for _, name in plan.output]
    for data_file in snapshot.files(plan.relation_id):
        try:
            table = read_data_file(data_file, columns, with_row_ids=False)
        except FileNotFoundError:
            raise e.ObjectNotInPrerequisiteState(
                f"the data of storage table {plan.relation_id!r} at timestamp {snapshot.ts} is no longer available"
            ) from None
        arrays = [table.column(column).cast(schema.field(column).type) for column, _ in plan.output]
        yield from pa.Table.from_arrays(arrays, names=names).to_batches(max_chunksize=BATCH_ROWS)
