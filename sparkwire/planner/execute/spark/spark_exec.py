"""User queries on Spark at one consistent read: catalog names bound to versioned Spark relations, then translated.

Contract:
- `ReadContext(snapshot, txn=None)`: what a statement reads. Tables the open transaction `txn` has written are
  read through it (its own uncommitted writes visible); every other table at `snapshot`.
- `SparkExecutor(engine, builtin=None, resident=None)`:
  - `prepare(tree, state, names, read, param_types) -> SparkQuery` binds every relation reference (no Spark job):
    - a table becomes a temporary view of its data files at the read (spark_relations.py). The file list is fixed
      here, so a commit after `prepare` is not visible to the query; a table the snapshot does not know yet
      (created after it) is empty;
    - a view is inlined, recursively, as a subquery of its definition (`shadow.definition_query`), aliased by the
      reference's alias or the view's name, its columns named as the catalog says. Names inside a definition
      resolve in the view's database with the search path (the view's schema, `public`); ddl.py stores them
      qualified anyway;
    - a materialized view is read through `resident(item, read)` (its current contents as Arrow); without
      `resident` it is inlined like a view (recomputed);
    - a builtin relation (pg_catalog, …) is read through `builtin(SELECT * FROM <it>)` (DuckDB) and registered
      as Arrow. CTE names and table functions are left alone.
    Each `$n` whose type in `param_types` (DuckDB type names, `$1` first) is known is cast to it, so the
    translator and Spark type it as the planner did (in LIMIT / OFFSET: to INT, which Spark requires there). The
    bound tree goes through the Spark guard (42501) and `translate.spark.to_spark_sql` with the catalog's column
    types, memoized by bound text and sources (repeated queries over unchanged data skip the translation, the
    bulk of `prepare`).
  - `schema(query, params)`: the result's Arrow schema (analysis only); `run(query, params, job_tag, timeout,
    pool, engine)`: a `SparkArrowStream`, its jobs in the FAIR pool `pool` (a cluster replica's, compute/), on
    `engine` when the replica is an application of its own (its temporary views: `relations_of(engine)`), else on
    the main engine (cancel with `engine.cancel(job_tag)` on the engine it runs on: 57014); `explain(query,
    params)`: Spark's formatted physical plan; `run_arrow(tree, state, names, read, params, param_types, pool,
    engine)`: prepare + run, as one Arrow table, under the tag
    `sparkwire-internal-<n>` (materialized view and index computations), or `sparkwire-internal-<n>.<execution_id>`
    inside `on_behalf_of(execution_id)` (the statement that needed it: mz_spark_jobs shows it as that statement's
    work).
  - A `SparkQuery` can be run any number of times; each run reads the same data files. `small`: every source is
    rows in memory (`Source.small`) and the product of the rows of every reference is at most `SMALL_INPUT_WORK`
    (one interpreted task must not face a large cross product), so it is analysed and run in the engine's
    small-input session; a small one that only scans (a filter / projection / LIMIT of one relation) reads its
    source's rows view, which Spark's optimizer answers without a job (row_scans.py).
- Every failure is a PgError: 42P01/3F000 from name resolution, 0A000 for what is not supported (saying what),
  Spark's errors through engine/spark_errors.py.
- Thread-safe: sessions share one executor; registration is serialized (spark_relations.py), queries run in
  parallel.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa
import sqlglot
from cachetools import LRUCache
from sqlglot import exp

from sparkwire import errors
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_errors import to_pg_error
from sparkwire.engine.spark_results import SparkArrowStream
from sparkwire.planner.bind.resolve import Names, is_table_function, resolve_table, user_relations
from sparkwire.planner.execute.shadow import definition_query
from sparkwire.planner.execute.spark.row_scans import over_row_views, rows_view, scans_only
from sparkwire.planner.execute.spark.spark_relations import (
    DEFAULT_CAPACITY,
    Source,
    SparkRelations,
    catalog_arrow_schema,
    content_source,
    item_columns,
    table_source,
)
from sparkwire.planner.translate.mz_now import mentions_mz_time, with_mz_timestamp_casts, with_read_ts
from sparkwire.planner.translate.spark import forbidden_in_spark, to_spark_sql
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.txn import WriteTxn

BuiltinReader = Callable[[exp.Expression], pa.Table]
_TranslationKey = tuple[
    str, tuple[tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, int], ...]], ...], bool, str
]  # bound text, sources (name, column types, text-held numeric scales), results as text, the session's zone
_UNTYPED_PARAMETERS = frozenset({"", "UNKNOWN", "NULL", '"NULL"'})
_internal_tags = itertools.count(1)
_statement = threading.local()  # the execution id internal computations on this thread are done for
_TRANSLATIONS = 1024  # memoized translations kept (most recently used)
SMALL_INPUT_WORK = 1_000_000  # the largest cross product of a small-input query's references (SparkQuery.small)


@dataclass(frozen=True)
class ReadContext:
    snapshot: Snapshot
    txn: WriteTxn | None = None


ResidentReader = Callable[[Item, ReadContext], pa.Table]


@dataclass(frozen=True)
class SparkQuery:
    """A bound, translated query: Spark SQL over the temporary views of `sources`."""

    sql: str
    sources: tuple[Source, ...]
    reference_rows: tuple[int, ...] = ()  # the rows of each reference to a source, in the order bound

    @property
    def small(self) -> bool:
        """Every input is a few thousand rows in memory, and their cross product (every reference, a bound on what
        a join of them can make) at most SMALL_INPUT_WORK: it runs in the engine's small-input session, where one
        interpreted task would be slow for a 3-way join of 1,500-row tables."""
        if not self.sources or not all(source.small for source in self.sources):
            return False
        return math.prod(max(rows, 1) for rows in self.reference_rows) <= SMALL_INPUT_WORK


def _keep_joins(node: exp.Table, replacement: exp.Expression) -> exp.Expression:
    """sqlglot hangs a parenthesized join's joins (`FROM (a CROSS JOIN b)`) on its first table: the relation that
    replaces that table takes them over (the joined tables are bound after it, in their new place)."""
    joins = node.args.get("joins")
    if joins:
        replacement.set("joins", joins)
    return replacement


def _alias(node: exp.Table, columns: Sequence[str], rename: bool) -> exp.TableAlias:
    """The reference's alias (or its table name); with `rename`, the column list `columns` overridden positionally
    by the reference's own column aliases (without it, only a reference that has column aliases gets a list)."""
    given = node.args.get("alias")
    name = given.name if isinstance(given, exp.TableAlias) and given.name else node.name
    own = [c.name for c in given.columns] if isinstance(given, exp.TableAlias) else []
    if own and len(own) > len(columns):
        raise errors.PgError(
            f'table "{name}" has {len(columns)} columns available but {len(own)} columns specified',
            sqlstate="42P10",  # invalid_column_reference
        )
    names = [*own, *columns[len(own) :]] if rename or own else []
    return exp.TableAlias(this=exp.to_identifier(name), columns=[exp.to_identifier(c) for c in names])


def _typed_parameters(tree: exp.Expression, param_types: Sequence[str]) -> exp.Expression:
    types: dict[str, exp.DataType] = {}
    for number, name in enumerate(param_types, start=1):
        if name.strip().upper() in _UNTYPED_PARAMETERS:
            continue
        try:
            types[str(number)] = exp.DataType.build(name, dialect="duckdb")
        except (sqlglot.errors.SqlglotError, ValueError):
            continue
    if not types:
        return tree

    def cast(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Parameter) and node.name in types and not isinstance(node.parent, exp.Cast):
            counts = isinstance(node.parent, exp.Limit | exp.Offset)  # Spark wants an INT there
            return exp.Cast(this=node, to=exp.DataType.build("INT") if counts else types[node.name].copy())
        return node

    result: exp.Expression = tree.transform(cast, copy=False)
    return result


class _Binder:
    """Binds one statement's relation references to Spark sources (see the module docstring)."""

    def __init__(self, executor: SparkExecutor, state: CatalogState, read: ReadContext) -> None:
        self._executor = executor
        self._state = state
        self._read = read
        self._written = read.txn.written_tables() if read.txn is not None else frozenset()
        self.sources: dict[str, Source] = {}
        self.reference_rows: list[int] = []

    def bind(self, tree: exp.Expression, names: Names) -> exp.Expression:
        users = user_relations(tree, self._state, names)
        bound = {id(node) for node, _ in users}
        ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
        builtins = [
            node
            for node in tree.find_all(exp.Table)
            if id(node) not in bound
            and not is_table_function(node)
            and (node.db or node.name not in ctes)
            and resolve_table(node, self._state, names) is None
        ]
        for node, item in users:
            node.replace(_keep_joins(node, self._relation(node, item)))
        for node in builtins:
            node.replace(_keep_joins(node, self._builtin(node)))
        return tree

    def _register(self, source: Source) -> exp.Identifier:
        self.sources[source.name] = source
        self.reference_rows.append(source.rows if source.rows is not None else SMALL_INPUT_WORK + 1)
        return exp.to_identifier(source.name)

    def _relation(self, node: exp.Table, item: Item) -> exp.Expression:
        columns = [c.name for c in item.columns]
        if item.kind in ("table", "source"):  # a source's collection is stored like a table's
            return exp.Table(this=self._register(self._table(item)), alias=_alias(node, columns, rename=False))
        if item.kind == "materialized-view" and self._executor.resident is not None:
            contents = self._executor.resident(item, self._read)
            source = self._executor.relations.arrow_source(item.id, contents, item_columns(item))
            return exp.Table(this=self._register(source), alias=_alias(node, columns, rename=False))
        if item.kind in ("view", "materialized-view"):
            body = self.bind(definition_query(item), self._names_of(item))
            return exp.Subquery(this=body, alias=_alias(node, columns, rename=bool(columns)))
        raise errors.FeatureNotSupported(f'reading {item.kind} "{item.name}" is not supported')

    def _table(self, item: Item) -> Source:
        snapshot = self._read.snapshot
        try:
            schema = snapshot.schema(item.id)
        except errors.UndefinedTable:  # created after the snapshot: empty at its timestamp
            return table_source(item, catalog_arrow_schema(item), ())
        if self._read.txn is not None and item.id in self._written:
            return table_source(item, schema, self._read.txn.data_files(item.id), exact=True)
        return table_source(item, schema, snapshot.files(item.id))

    def _names_of(self, item: Item) -> Names:
        schema = self._state.schemas[item.schema_id]
        database = self._state.databases[schema.database_id or ""]
        search_path = tuple(dict.fromkeys((schema.name, *Names().search_path)))
        return Names(database=database.name, search_path=search_path)

    def _builtin(self, node: exp.Table) -> exp.Expression:
        reader = self._executor.builtin
        if reader is None:
            raise errors.FeatureNotSupported(
                f'reading builtin relation "{node.name}" together with user relations is not supported'
            )
        parts = {key: node.args[key].copy() for key in ("this", "db", "catalog") if node.args.get(key) is not None}
        rows = reader(exp.select("*").from_(exp.Table(**parts)))
        source = content_source("b", rows)
        return exp.Table(this=self._register(source), alias=_alias(node, rows.column_names, rename=False))


class SparkExecutor:
    """Runs user queries on Spark (see the module docstring)."""

    def __init__(
        self,
        engine: SparkEngine,
        builtin: BuiltinReader | None = None,
        resident: ResidentReader | None = None,
        *,
        capacity: int = DEFAULT_CAPACITY,
    ) -> None:
        self.engine = engine
        self.builtin = builtin
        self.resident = resident
        self.relations = SparkRelations(engine, capacity)
        self._capacity = capacity
        self._elsewhere: dict[SparkEngine, SparkRelations] = {}  # replicas' own applications' relations
        self._elsewhere_lock = threading.Lock()
        self._translations: LRUCache[_TranslationKey, str] = LRUCache(_TRANSLATIONS)
        self._translations_lock = threading.Lock()

    def prepare(
        self,
        tree: exp.Expression,
        state: CatalogState,
        names: Names,
        read: ReadContext,
        param_types: Sequence[str] = (),
        results_as_text: bool = False,
        zone: str = "UTC",
    ) -> SparkQuery:
        """`results_as_text`: the rows go to a client (numeric quotients as text, translate/spark_numeric.py);
        `zone`: the session's TimeZone (translate/functions/spark_time_zone.py)."""
        binder = _Binder(self, state, read)
        bound = _typed_parameters(binder.bind(tree.copy(), names), param_types)
        if mentions_mz_time(bound):  # mz_now() (in a view's definition too): the snapshot's timestamp (mz_now.py)
            sources = binder.sources
            known = {t.alias_or_name: sources[t.name].columns for t in bound.find_all(exp.Table) if t.name in sources}
            bound = with_mz_timestamp_casts(with_read_ts(bound, read.snapshot.ts, "spark", known), "spark", known)
        reason = forbidden_in_spark(bound)
        if reason is not None:
            raise errors.InsufficientPrivilege(reason)
        sources = binder.sources
        query = SparkQuery("", tuple(sources.values()), tuple(binder.reference_rows))
        if query.small and scans_only(bound):  # rows Spark's optimizer computes, no job (row_scans.py)
            bound = over_row_views(bound, set(sources))
            sources = {rows_view(name): source for name, source in sources.items()}
        return replace(query, sql=self._translate(bound, sources, results_as_text, zone))

    def _translate(self, bound: exp.Expression, sources: dict[str, Source], results_as_text: bool, zone: str) -> str:
        """`to_spark_sql`, memoized: the same bound text over the same sources translates the same way."""
        key = (
            bound.sql(dialect="postgres"),
            tuple((n, tuple(s.columns.items()), tuple(s.numeric_scales.items())) for n, s in sources.items()),
            results_as_text,
            zone,
        )
        with self._translations_lock:
            known = self._translations.get(key)
            if known is not None:
                return known
        sql = to_spark_sql(
            bound,
            {name: dict(source.columns) for name, source in sources.items()},
            {name: source.numeric_scales for name, source in sources.items() if source.numeric_scales},
            results_as_text,
            zone,
        )
        with self._translations_lock:
            self._translations[key] = sql
        return sql

    def schema(self, query: SparkQuery, params: Sequence[object] = ()) -> pa.Schema:
        with self.relations.pinned(query.sources, query.small):
            return self.engine.schema(query.sql, params, query.small)

    def relations_of(self, engine: SparkEngine | None) -> SparkRelations:
        """The temporary views of `engine` (None: the main one); a cluster replica's own application has its own,
        registered at first use and again after it restarted."""
        if engine is None or engine is self.engine:
            return self.relations
        with self._elsewhere_lock:
            relations = self._elsewhere.get(engine)
            if relations is None:
                for stopped in [e for e in self._elsewhere if e.closed]:  # dropped replicas' (their views died)
                    del self._elsewhere[stopped]
                relations = self._elsewhere[engine] = SparkRelations(engine, self._capacity)
                engine.add_restart_listener(relations.forget_registrations)
            return relations

    def run(
        self,
        query: SparkQuery,
        params: Sequence[object],
        job_tag: str,
        timeout: float | None = None,
        pool: str | None = None,
        engine: SparkEngine | None = None,
    ) -> SparkArrowStream:
        """`engine`: where it runs (a cluster replica's own application), the main engine when None."""
        with self.relations_of(engine).pinned(query.sources, query.small):
            return (engine or self.engine).execute_arrow(
                query.sql, params, job_tag=job_tag, timeout=timeout, pool=pool, small=query.small
            )

    def explain(self, query: SparkQuery, params: Sequence[object] = (), mode: str = "formatted") -> str:
        """Spark's plan of `query`: `mode` "formatted" (the physical plan), or "extended" (every plan) for VERBOSE."""
        with self.relations.pinned(query.sources, query.small):
            frame: Any = self.engine.prepare(query.sql, params, query.small).dataframe
            try:
                if hasattr(frame, "_explain_string"):  # Spark Connect
                    return str(frame._explain_string(mode=mode))
                jvm = frame.sparkSession._jvm
                return str(jvm.PythonSQLUtils.explainString(frame._jdf.queryExecution(), mode))
            except Exception as exc:
                raise to_pg_error(exc) from None

    def run_arrow(
        self,
        tree: exp.Expression,
        state: CatalogState,
        names: Names,
        read: ReadContext,
        params: Sequence[object] = (),
        param_types: Sequence[str] = (),
        pool: str | None = None,
        engine: SparkEngine | None = None,
    ) -> pa.Table:
        query = self.prepare(tree, state, names, read, param_types)
        tag = f"sparkwire-internal-{next(_internal_tags)}"
        execution_id: str = getattr(_statement, "execution_id", "")
        if execution_id:
            tag += "." + execution_id.replace(",", "_")  # Spark job tags may not contain commas
        stream = self.run(query, params, tag, pool=pool, engine=engine)
        return pa.Table.from_batches(list(stream), schema=stream.schema)


@contextmanager
def on_behalf_of(execution_id: str) -> Iterator[None]:
    """Internal computations this thread runs meanwhile are tagged with `execution_id` (see `run_arrow`)."""
    previous: str = getattr(_statement, "execution_id", "")
    _statement.execution_id = execution_id
    try:
        yield
    finally:
        _statement.execution_id = previous
