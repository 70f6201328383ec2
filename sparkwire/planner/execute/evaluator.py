"""PostgreSQL-dialect SELECTs of a write statement on the session's DuckDB connection (writes.py's engine).

Contract: `Evaluator(duck, ctx, params, param_types, times)` is a context manager; within it
- `select(tree)` runs a SELECT tree (VALUES cells, SET lists, RETURNING, the rows UPDATE / DELETE match) with the
  statement's parameters — only those the tree uses are bound, renumbered — and returns its rows as Arrow;
- `cells(nodes)` is `SELECT nodes[0] AS c0, nodes[1] AS c1, …` without FROM (values_cells.py's `Evaluate`): a
  prepared statement's cells are the same nodes at every execution, so their DuckDB text and how to bind it are
  remembered by the nodes' identity (the memo holds the nodes, so an identity cannot be reused while it is kept;
  a text over `_KEPT_TEXT`, a many-row VALUES, is not kept);
  an execution binds the parameters and now()'s values (`parameter_value`) and runs the text. Plan trees are never
  changed in place after planning (a write that rewrites one, such as binding relations, works on a copy);
- `source(table, columns, alias)` registers an Arrow table for the evaluator's lifetime and returns the subquery
  that reads it.
now() and its kin are the transaction's start (`times`), bound as parameters after the statement's, so one
statement keeps one DuckDB text: `translated(tree, ctx, types)` remembers translations by PostgreSQL text.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass

import pyarrow as pa
from cachetools import LRUCache
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog.objects import Column
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_duckdb
from sparkwire.planner.execute.write_values import NUMERIC
from sparkwire.planner.grammar.dialect import PG
from sparkwire.planner.translate.duckdb import SessionContext, parameter_index, to_duckdb
from sparkwire.planner.translate.functions.transaction_time import StatementTimes, parameter_value

_names = itertools.count()
_TRANSLATIONS: LRUCache[tuple[str, tuple[tuple[int, str], ...], tuple[str, ...], SessionContext], str] = LRUCache(512)
_TRANSLATIONS_LOCK = threading.Lock()
_KEPT_TEXT = 2048  # longer statements (a many-row VALUES) are translated each time rather than kept


def translated(tree: exp.Expression, ctx: SessionContext, duck_types: list[str]) -> str:
    """`to_duckdb` of a SELECT without relations (VALUES cells, SET values, defaults), remembered by its
    PostgreSQL text and its nodes' meta (`date_part` and `EXTRACT` print alike, translate apart): a prepared
    INSERT's cells are the same each time, and printing them costs a tenth of translating them again. Trees that
    read relations (registered under names of their own) are not kept."""
    if tree.find(exp.Table) is not None:
        return to_duckdb(tree, ctx, duck_types)
    text = tree.sql(dialect=PG)
    if len(text) > _KEPT_TEXT:
        return to_duckdb(tree, ctx, duck_types)
    marks = tuple((i, repr(node.meta)) for i, node in enumerate(tree.walk()) if node._meta)
    key = (text, marks, tuple(duck_types), ctx)
    with _TRANSLATIONS_LOCK:
        known = _TRANSLATIONS.get(key)
    if known is None:
        known = to_duckdb(tree, ctx, duck_types)
        with _TRANSLATIONS_LOCK:
            _TRANSLATIONS[key] = known
    return known


Binding = int | exp.Expr
"""Where one DuckDB parameter's value comes from: the statement's parameter of that number, or a now()-kind call."""


@dataclass(frozen=True, slots=True)
class _Bound:
    """A tree renumbered for DuckDB: its text and, per DuckDB parameter in order, where the value comes from."""

    sql: str
    bindings: tuple[Binding, ...]
    used: tuple[int, ...]  # the statement's parameters it reads, ascending


@dataclass(frozen=True, slots=True)
class _Cells:
    nodes: tuple[exp.Expr, ...]  # held: the memo's key is their identity
    bound: _Bound


_CELLS: LRUCache[tuple[tuple[int, ...], tuple[str, ...], str | None, SessionContext], _Cells] = LRUCache(512)
_CELLS_LOCK = threading.Lock()


def _empty(columns: Sequence[tuple[str, str]]) -> pa.Table:
    return pa.table({name: pa.array([], arrow_type_for_pg(*pg_type_for_duckdb(t))) for name, t in columns})


class Evaluator:
    def __init__(
        self,
        duck: DuckDBConnection,
        ctx: SessionContext,
        params: Sequence[object],
        param_types: Sequence[str],
        times: StatementTimes | None = None,
    ) -> None:
        self._duck = duck
        self._ctx = ctx
        self._params = params
        self._types = param_types
        self._times = times
        self._stack = ExitStack()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def select(self, tree: exp.Expr) -> pa.Table:
        return self._run(self._bind(tree))

    def cells(self, nodes: Sequence[exp.Expr]) -> pa.Table:
        times = self._times
        key = (tuple(map(id, nodes)), tuple(self._types), None if times is None else times.zone, self._ctx)
        with _CELLS_LOCK:
            known = _CELLS.get(key)
        if known is None:  # a kept entry holds its nodes, so equal ids are the same nodes
            select = exp.select(*(exp.alias_(node, f"c{k}") for k, node in enumerate(nodes)))
            known = _Cells(tuple(nodes), self._bind(select))
            if len(known.bound.sql) <= _KEPT_TEXT:  # a many-row VALUES is not kept (nor the tree its nodes hold)
                with _CELLS_LOCK:
                    _CELLS[key] = known
        return self._run(known.bound)

    def _bind(self, tree: exp.Expr) -> _Bound:
        """`tree` with the parameters it uses numbered from 1, then now()'s kin as parameters after them."""
        used = tuple(sorted({i for n in tree.find_all(exp.Parameter, exp.Placeholder) if (i := parameter_index(n))}))
        self._check(used)
        numbers = {old: new for new, old in enumerate(used, 1)}
        bindings: list[Binding] = list(used)
        types = [self._types[i - 1] for i in used]
        times = self._times

        def renumber(node: exp.Expr) -> exp.Expr:
            index = parameter_index(node) if isinstance(node, exp.Expression) else None
            if index is not None:
                return exp.Parameter(this=exp.Literal.number(numbers[index]))
            known = parameter_value(node, times) if times is not None else None
            if known is None:
                return node
            bindings.append(node)  # now() and its kin: parameters after the statement's, so the text repeats
            types.append(known[1])
            return exp.Parameter(this=exp.Literal.number(len(bindings)))

        renumbered = tree.transform(renumber)
        assert isinstance(renumbered, exp.Expression)
        return _Bound(translated(renumbered, self._ctx, types), tuple(bindings), used)

    def _check(self, used: tuple[int, ...]) -> None:
        given = min(len(self._params), len(self._types))
        if used and used[-1] > given:
            raise e.UndefinedParameter(f"there is no parameter ${next(i for i in used if i > given)}")

    def _run(self, bound: _Bound) -> pa.Table:
        self._check(bound.used)
        times = self._times
        values: list[object] = []
        for binding in bound.bindings:
            if isinstance(binding, int):
                values.append(self._params[binding - 1])
            else:
                assert times is not None
                known = parameter_value(binding, times)
                assert known is not None  # the same zone as when it was bound (part of the memo's key)
                values.append(known[0])
        columns, batches = self._duck.query(bound.sql, values)
        collected = list(batches)
        if not collected:
            return _empty([(c.name, c.engine_type) for c in columns])
        return pa.Table.from_batches(collected)

    def source(self, table: pa.Table, columns: Sequence[Column], alias: str, extra: Sequence[str] = ()) -> exp.Expr:
        """`(SELECT extra…, columns… FROM <registered table>) AS alias`."""
        name = f"sw_write_{next(_names)}"
        self._duck.register_arrow(name, table)
        self._stack.callback(self._duck.unregister, name)
        projections = [exp.column(x, quoted=True) for x in extra] + [_read_column(table, c) for c in columns]
        select = exp.select(*projections).from_(exp.to_table(name))
        return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))


def _read_column(table: pa.Table, column: Column) -> exp.Expr:
    ref = exp.column(column.name, quoted=True)
    if column.type_oid != NUMERIC or not pa.types.is_string(table.schema.field(column.name).type):
        return ref
    texts = [t for t in table.column(column.name).to_pylist() if t is not None]
    if any(not t[-1:].isdigit() for t in texts):  # NaN, Infinity: keep the text
        return ref
    scale = min(max((len(t.partition(".")[2]) for t in texts), default=0), 38)
    return exp.alias_(exp.cast(ref, exp.DataType.build(f"DECIMAL(38, {scale})")), column.name, quoted=True)
