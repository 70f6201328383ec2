"""INSERT / UPDATE / DELETE against a storage table, computed on DuckDB over Arrow (never Spark) in a `WriteTxn`.

Contract: `execute_write(tree, target, state, names, txn, duck, params, param_types, query, ctx=…)` runs one
statement on `target` (a catalog table whose storage table id is `target.id`) and returns a `WriteResult` (rows
written, and the RETURNING rows with PostgreSQL's output names). It changes the transaction only once everything
was computed and checked, so a failed statement leaves `txn` as it was. Values follow PostgreSQL: untyped literals
through the column type's input function, everything else through the assignment cast (write_values.py), missing
columns get their DEFAULT (evaluated once per statement), NOT NULL (23502), PRIMARY KEY and UNIQUE indexes (23505,
against the rows the transaction sees and within the statement; unique_keys.py) are checked.

Where the rows come from:
- `INSERT … VALUES` / `DEFAULT VALUES`: every non-literal value is one projection of a DuckDB SELECT (no FROM), with
  the statement's parameters (`params`, typed by the DuckDB type names `param_types`).
- `INSERT … SELECT`: if the SELECT reads user relations, `query(select_tree)` computes it (the session runs it on
  Spark) and the result is cast to the table's columns by position; otherwise DuckDB evaluates it.
- UPDATE / DELETE: the target (`txn.read_arrow(…, row_ids=True)`, so the transaction's own writes count) and every
  other user relation the statement mentions (tables from `txn`, views through `query`) are registered in DuckDB
  under private names; `SELECT position, new values FROM target … WHERE …` picks the rows, then UPDATE appends the
  new versions and deletes the old by row id, DELETE deletes them. Unconstrained numeric columns (stored as text)
  are seen by expressions as DECIMAL(38, s), s the largest scale present.
- RETURNING: plain column references come from the written rows themselves; other expressions are evaluated on
  DuckDB over those rows.
`storage_schema(item)` is the Arrow schema a catalog table is stored with. `column_default(column, rows, duck, ctx)`
is a column's DEFAULT repeated `rows` times (NULL without one), also used by COPY FROM. `times` (the statement's
`StatementTimes`) makes now() and its kin the transaction's start wherever DuckDB evaluates them (cells, defaults,
SET, RETURNING; the caller's `query` does the same for Spark); without it they are DuckDB's clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Column, Item
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.mapping import pg_type_for_arrow
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.bind.naming import column_name
from sparkwire.planner.bind.resolve import Names, user_relations
from sparkwire.planner.execute.evaluator import Evaluator
from sparkwire.planner.execute.unique_keys import check_unique, unique_indexes
from sparkwire.planner.execute.values_cells import (
    default_expression,
    is_default,
    is_untyped_literal,
    scalar,
    values_arrays,
)
from sparkwire.planner.execute.write_values import (
    assign_column,
    check_not_null,
    check_primary_key,
    column_type,
    input_column,
)
from sparkwire.planner.translate.duckdb import SessionContext
from sparkwire.planner.translate.functions.transaction_time import StatementTimes
from sparkwire.storage.files import ROW_ID_COLUMN
from sparkwire.storage.txn import WriteTxn

Query = Callable[[exp.Expression], pa.Table]
"""Computes a PostgreSQL-dialect query over user relations (the session's Spark engine)."""

_POSITION = "__sw_position"


@dataclass(frozen=True, slots=True)
class WriteResult:
    count: int
    returning: pa.Table | None


def storage_schema(item: Item) -> pa.Schema:
    return pa.schema([(c.name, column_type(c)) for c in item.columns])


# ---- DuckDB over Arrow ---------------------------------------------------------------------------------------


def _columns_of(item: Item, table: pa.Table) -> tuple[Column, ...]:
    if item.columns:
        return item.columns
    return tuple(Column(f.name, *pg_type_for_arrow(f.type)) for f in table.schema)


def _bind_relations(
    tree: exp.Expression,
    ev: Evaluator,
    state: CatalogState,
    names: Names,
    txn: WriteTxn,
    query: Query,
    skip: exp.Expression | None = None,
) -> None:
    """Replace (in place) every user-relation reference in `tree` but `skip` by its rows registered in DuckDB."""
    for node, item in user_relations(tree, state, names):
        if node is skip:
            continue
        if item.kind == "table":
            rows = txn.read_arrow(item.id)
        else:
            plain = node.copy()
            plain.set("alias", None)
            plain.set("joins", None)
            rows = query(exp.select(exp.Star()).from_(plain))
        source = ev.source(rows, _columns_of(item, rows), node.alias_or_name)
        if node.args.get("joins"):  # `(a CROSS JOIN b)`: sqlglot hangs the joins on the first table
            source.set("joins", node.args["joins"])
        node.replace(source)


# ---- values --------------------------------------------------------------------------------------------------


def column_default(
    column: Column,
    rows: int,
    duck: DuckDBConnection,
    ctx: SessionContext,
    options: EncodeOptions | None = None,
    times: StatementTimes | None = None,
) -> pa.Array:
    if column.default is None:
        return pa.nulls(rows, column_type(column))
    with Evaluator(duck, ctx, (), (), times) as ev:
        value = scalar(default_expression(column), column, ev.cells, options or EncodeOptions())
    return value.take(pa.array(np.zeros(rows, dtype=np.int64)))


def _select_rows(
    select: exp.Expression,
    columns: Sequence[Column],
    explicit: bool,
    ev: Evaluator,
    run_query: Callable[[], pa.Table] | None,
    options: EncodeOptions,
) -> tuple[list[pa.Array], int]:
    """Arrays for the first columns of `columns` from the rows of `INSERT … SELECT` (by position)."""
    result = run_query() if run_query is not None else ev.select(select)
    width = result.num_columns
    if width > len(columns):
        raise e.SyntaxError("INSERT has more expressions than target columns")
    if width < len(columns) and explicit:
        raise e.SyntaxError("INSERT has more target columns than expressions")
    untyped = (
        {i for i, p in enumerate(select.expressions) if is_untyped_literal(p.unalias())}
        if isinstance(select, exp.Select)
        else set()
    )
    arrays = [
        input_column(result.column(j).to_pylist(), column, options)
        if j in untyped
        else assign_column(result.column(j), column)
        for j, column in enumerate(columns[:width])
    ]
    return arrays, result.num_rows


# ---- statements ----------------------------------------------------------------------------------------------


def _column(item: Item, name: str) -> Column:
    for column in item.columns:
        if column.name == name:
            return column
    raise e.UndefinedColumn(f'column "{name}" of relation "{item.name}" does not exist')


@dataclass(frozen=True, slots=True)
class _Written:
    """What a statement computed: rows to append, row ids to delete, the target rows RETURNING sees, the count."""

    append: pa.Table | None
    delete: pa.Array | None
    visible: pa.Table
    count: int
    returning: pa.Table | None = None  # already computed (DELETE … USING)


@dataclass(frozen=True, slots=True)
class _Statement:
    target: Item
    state: CatalogState
    names: Names
    txn: WriteTxn
    query: Query
    ctx: SessionContext
    options: EncodeOptions
    duck: DuckDBConnection
    times: StatementTimes | None


def _full_rows(given: dict[str, pa.Array], rows: int, st: _Statement) -> pa.Table:
    arrays = [
        given[c.name] if c.name in given else column_default(c, rows, st.duck, st.ctx, st.options, st.times)
        for c in st.target.columns
    ]
    return pa.Table.from_arrays(arrays, schema=storage_schema(st.target))


def _insert(tree: exp.Insert, st: _Statement, ev: Evaluator) -> _Written:
    if tree.args.get("conflict") is not None:
        raise e.FeatureNotSupported("INSERT … ON CONFLICT is not supported")
    explicit = isinstance(tree.this, exp.Schema)
    if explicit:
        listed = [ident.name for ident in tree.this.expressions]
        columns = [_column(st.target, name) for name in listed]
        if len(set(listed)) < len(listed):
            raise e.DuplicateColumn(
                f'column "{next(n for n in listed if listed.count(n) > 1)}" specified more than once'
            )
    else:
        columns = list(st.target.columns)
    source = tree.expression
    if tree.args.get("default") or source is None:
        arrays: list[pa.Array] = []
        rows = 1
    elif isinstance(source, exp.Values):
        work = source
        if source.find(exp.Table) is not None:  # a subquery reads relations: bind them in a copy of the tree
            work = source.copy()
            _bind_relations(work, ev, st.state, st.names, st.txn, st.query)
        arrays, rows = values_arrays(work, columns, explicit, ev.cells, st.options)
    else:
        reads_user_data = bool(user_relations(source, st.state, st.names))
        run = (lambda: st.query(source)) if reads_user_data else None
        arrays, rows = _select_rows(source, columns, explicit, ev, run, st.options)
    new = _full_rows({c.name: a for c, a in zip(columns, arrays, strict=False)}, rows, st)
    check_not_null(new, st.target)
    if st.target.primary_key:
        check_primary_key(new, st.txn.read_arrow(st.target.id, columns=list(st.target.primary_key)), st.target)
    for name, key in unique_indexes(st.state, st.target):
        check_unique(new, st.txn.read_arrow(st.target.id, columns=key), name, key)
    return _Written(new, None, new, new.num_rows)


def _matching(
    tree: exp.Update | exp.Delete, projections: Sequence[exp.Expr], st: _Statement, ev: Evaluator
) -> tuple[pa.Table, pa.Table]:
    """(target rows with row ids, the projections per matching target row — first match of a join — plus the
    target row position as column 0) for the statement's FROM/USING and WHERE."""
    work = tree.copy()
    node = work.this
    alias = node.alias_or_name
    original = st.txn.read_arrow(st.target.id, row_ids=True)
    numbered = original.append_column(_POSITION, pa.array(np.arange(original.num_rows, dtype=np.int64)))
    _bind_relations(work, ev, st.state, st.names, st.txn, st.query, skip=node)
    joins: list[exp.Expr] = []
    from_ = work.args.get("from_") or work.args.get("from")
    if isinstance(from_, exp.From):  # UPDATE … FROM a, b: sqlglot hangs b under a as a join
        first = from_.this
        more = first.args.get("joins") or []
        first.set("joins", None)
        joins = [exp.Join(this=first), *more]
    joins.extend(exp.Join(this=u) for u in work.args.get("using") or [])
    source = ev.source(numbered, st.target.columns, alias, extra=[_POSITION])
    select = exp.select(exp.column(_POSITION, table=alias, quoted=True), *projections).from_(source)
    for join in joins:
        select = select.join(join)
    where = work.args.get("where")
    if isinstance(where, exp.Where):
        select.set("where", where)
    result = ev.select(select)
    positions = np.asarray(result.column(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    _, first_match = np.unique(positions, return_index=True)
    return original, result.take(pa.array(np.sort(first_match)))


def _update(tree: exp.Update, st: _Statement, ev: Evaluator) -> _Written:
    assignments: dict[str, exp.Expr] = {}
    for eq in tree.expressions:
        if not isinstance(eq, exp.EQ) or not isinstance(eq.this, exp.Column):
            raise e.FeatureNotSupported("only SET column = expression is supported in UPDATE")
        column = _column(st.target, eq.this.name)
        if column.name in assignments:
            raise e.SyntaxError(f'multiple assignments to same column "{column.name}"')
        assignments[column.name] = default_expression(column) if is_default(eq.expression) else eq.expression
    evaluated = {n: x for n, x in assignments.items() if not is_untyped_literal(x) and not isinstance(x, exp.Null)}
    projections = [exp.alias_(x.copy(), f"s{k}") for k, x in enumerate(evaluated.values())]
    original, matched = _matching(tree, projections, st, ev)
    old = original.take(matched.column(0))
    zeros = pa.array(np.zeros(old.num_rows, dtype=np.int64))
    given: dict[str, pa.Array] = {}
    for column in st.target.columns:
        node = assignments.get(column.name)
        if node is None:
            given[column.name] = old.column(column.name).combine_chunks()
        elif column.name in evaluated:
            given[column.name] = assign_column(matched.column(1 + list(evaluated).index(column.name)), column)
        else:
            given[column.name] = scalar(node, column, ev.cells, st.options).take(zeros)
    new = _full_rows(given, old.num_rows, st)
    check_not_null(new, st.target)
    unique = unique_indexes(st.state, st.target) if old.num_rows else []
    if (st.target.primary_key or unique) and old.num_rows:
        keep = pc.invert(pc.is_in(original.column(ROW_ID_COLUMN), value_set=old.column(ROW_ID_COLUMN)))
        left = original.filter(keep)
        if st.target.primary_key:
            check_primary_key(new, left, st.target)
        for name, key in unique:
            check_unique(new, left, name, key)
    return _Written(new, old.column(ROW_ID_COLUMN).combine_chunks(), new, new.num_rows)


def _delete(tree: exp.Delete, st: _Statement, ev: Evaluator) -> _Written:
    found = tree.args.get("returning")
    returning = found if isinstance(found, exp.Returning) and tree.args.get("using") else None
    projections = _joined_returning(returning) if returning is not None else []
    original, matched = _matching(tree, projections, st, ev)
    old = original.take(matched.column(0))
    visible = old.drop_columns([ROW_ID_COLUMN])
    rows = _named_returning(matched, returning) if returning is not None else None
    return _Written(None, old.column(ROW_ID_COLUMN).combine_chunks(), visible, old.num_rows, rows)


_RETURNED = "__sw_returned_"


def _joined_returning(returning: exp.Returning) -> list[exp.Expr]:
    """DELETE … USING: RETURNING sees the joined rows too, so it is evaluated in the matching SELECT itself."""
    hidden = [exp.column(_POSITION, quoted=True)]
    out: list[exp.Expr] = []
    for i, projection in enumerate(returning.expressions):
        if isinstance(projection, exp.Star):
            out.append(exp.Star(except_=hidden))
        elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
            out.append(exp.Column(this=exp.Star(except_=hidden), table=projection.args.get("table")))
        else:
            out.append(exp.alias_(projection.unalias().copy(), f"{_RETURNED}{i}"))
    return out


def _named_returning(matched: pa.Table, returning: exp.Returning) -> pa.Table:
    names = [
        column_name(returning.expressions[int(n.removeprefix(_RETURNED))]) or "?column?"
        if n.startswith(_RETURNED)
        else n
        for n in matched.column_names[1:]
    ]
    return pa.Table.from_arrays(matched.columns[1:], names=names)


def _is_star(node: exp.Expr) -> bool:
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star))


def _own_column(node: exp.Expr, item: Item, alias: str) -> str | None:
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier) and node.table in ("", alias):
        return next((c.name for c in item.columns if c.name == node.name), None)
    return None


def _returning(returning: exp.Returning, rows: pa.Table, st: _Statement, alias: str, ev: Evaluator) -> pa.Table:
    names: list[str] = []
    plan: list[str | int] = []  # a column of `rows`, or the index of an evaluated projection
    evaluated: list[exp.Expr] = []
    for projection in returning.expressions:
        if _is_star(projection):
            names.extend(c.name for c in st.target.columns)
            plan.extend(c.name for c in st.target.columns)
            continue
        own = _own_column(projection.unalias(), st.target, alias)
        names.append(column_name(projection) or "?column?")
        if own is not None:
            plan.append(own)
        else:
            plan.append(len(evaluated))
            evaluated.append(exp.alias_(projection.unalias().copy(), f"r{len(evaluated)}"))
    computed = None
    if evaluated:
        source = ev.source(rows, st.target.columns, alias)
        computed = ev.select(exp.select(*evaluated).from_(source))
    arrays = [
        rows.column(p) if isinstance(p, str) else computed.column(p)  # type: ignore[union-attr]
        for p in plan
    ]
    return pa.Table.from_arrays(arrays, names=names)


def execute_write(
    tree: exp.Insert | exp.Update | exp.Delete,
    target: Item,
    state: CatalogState,
    names: Names,
    txn: WriteTxn,
    duck: DuckDBConnection,
    params: Sequence[object],
    param_types: Sequence[str],
    query: Query,
    *,
    ctx: SessionContext,
    options: EncodeOptions | None = None,
    times: StatementTimes | None = None,
) -> WriteResult:
    st = _Statement(target, state, names, txn, query, ctx, options or EncodeOptions(), duck, times)
    node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    alias = node.alias_or_name if isinstance(node, exp.Expression) else target.name
    with Evaluator(duck, ctx, params, param_types, times) as ev:
        if isinstance(tree, exp.Insert):
            written = _insert(tree, st, ev)
        elif isinstance(tree, exp.Update):
            written = _update(tree, st, ev)
        else:
            written = _delete(tree, st, ev)
        returning = tree.args.get("returning")
        rows = written.returning
        if rows is None and isinstance(returning, exp.Returning):
            rows = _returning(returning, written.visible, st, alias, ev)
    if written.append is not None:
        txn.append(target.id, written.append)
    if written.delete is not None and len(written.delete):
        txn.delete_where(target.id, written.delete)
    return WriteResult(written.count, rows)
