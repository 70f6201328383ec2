"""The embedded DuckDB engine: one database (a file, or in memory) per process, one DuckDB connection (cursor)
per session.

Contract: `DuckDBEngine(path)` opens the database with PostgreSQL-leaning settings (integer `/` on integers, NULLS
LAST for ascending and FIRST for descending order, division by zero an error) and with external access disabled,
so that no SQL can read or write server files (DuckDB refuses to re-enable it while the database runs); it creates
schema `public` and every connection resolves unqualified names there. The configuration is deliberately not
locked: each session sets its own DuckDB TimeZone (`set_time_zone`) so that timestamptz text follows the session's
TimeZone; no user SQL can change engine settings because every SET/RESET is parsed and handled by the planner and
never reaches DuckDB (see planner/security/guard.py). `register_function` adds a Python scalar function for all
connections (the functions sessions need: current_setting, pg_sleep, …). `connect()` returns a `DuckDBConnection`,
which implements `sparkwire.engine.base.EngineConnection`. DuckDB exceptions leave as `PgError` (see
duckdb_errors). `write_generation` grows after every statement run with `command` / `insert_arrow` on any
connection (every write to the database goes through them; reads go through `query`), so an answer computed at
one generation is still the answer while the generation stays (planner/execute/result_cache.py); `volatile_functions`
names DuckDB's own functions whose results are not a function of their arguments (random, now, nextval, …).
`set_catch_up(marker, fn)`: every connection (but those made with `catches_up=False`) calls `fn` before a statement
whose text names `marker`: the introspection store applies catalog changes when they are first read.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa

from sparkwire.engine import pg_functions
from sparkwire.engine.base import Column
from sparkwire.engine.duckdb_errors import map_duckdb_error

BATCH_ROWS = 4096

_CONFIG: dict[str, str | int | float | list[str]] = {
    "integer_division": "true",
    "default_null_order": "nulls_last_on_asc_first_on_desc",
    "autoinstall_known_extensions": "false",
    "autoload_known_extensions": "false",
    # DuckDB's default is 80% of the machine, in the server's own process: a query without user relations
    # (generate_series, catalog joins) could take the machine. A quarter of it, like Spark's heap (issue 21).
    "memory_limit": f"{max(1, (os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')) // 4 // 2**20)}MiB",
}


def _no_write() -> None:
    pass


class _CatchUp:
    """Brings a lazily kept part of the database up to date before a statement that names it (`set_catch_up`)."""

    def __init__(self) -> None:
        self.marker = ""
        self.fn: Callable[[], None] | None = None

    def before(self, sql: str) -> None:
        fn = self.fn
        if fn is not None and self.marker in sql:
            fn()


class DuckDBEngine:
    def __init__(self, path: Path | None, own_files: Path | None = None) -> None:
        """A database in the file at `path`, or in memory when `path` is None. File access is off, except for
        the directory `own_files` (the server's own databases there, such as the statement history, which it
        ATTACHes); SQL from clients never names files (the planner's allowlist)."""
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = duckdb.connect(":memory:" if path is None else str(path), config=_CONFIG)
            if own_files is not None:
                own_files.mkdir(parents=True, exist_ok=True)
                self._db.execute("SET allowed_directories = ?", [[str(own_files.resolve()) + "/"]])
            self._db.execute("SET enable_external_access = false")  # after allowed_directories: then it is fixed
            self._db.execute("CREATE SCHEMA IF NOT EXISTS public")
            pg_functions.install_duckdb(self._db)
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None
        self._lock = threading.Lock()
        self._writes = 0
        self._catch_up = _CatchUp()
        self.volatile_functions = frozenset(
            str(name)
            for (name,) in self._db.execute(
                "SELECT DISTINCT function_name FROM duckdb_functions() WHERE stability IN "
                "('VOLATILE', 'CONSISTENT_WITHIN_QUERY')"
            ).fetchall()
        )

    @property
    def write_generation(self) -> int:
        return self._writes

    def wrote(self) -> None:
        with self._lock:
            self._writes += 1

    def register_function(
        self,
        name: str,
        fn: Callable[..., object],
        params: list[str],
        returns: str,
        *,
        null_handling: bool = False,
        vectorized: bool = False,
    ) -> None:
        """A Python scalar function for every connection; `null_handling`: also called with NULL arguments;
        `vectorized`: called once per chunk with Arrow arrays, returning one (`returns` may be a STRUCT(...))."""
        return_type = duckdb.sqltype(returns) if returns.upper().startswith("STRUCT") else returns
        self._db.create_function(  # type: ignore[call-overload]
            name,
            fn,
            params,
            return_type,
            type="arrow" if vectorized else "native",
            side_effects=True,
            null_handling="special" if null_handling else "default",
        )

    def set_catch_up(self, marker: str, fn: Callable[[], None]) -> None:
        """Before a connection runs a statement whose text contains `marker`, call `fn` (on that thread): a part of
        the database kept up to date lazily (the introspection store, named by its catalog) is brought up to date
        before anyone reads it. `fn` must be cheap when there is nothing to do."""
        self._catch_up.marker, self._catch_up.fn = marker, fn

    def connect(self, *, counts_writes: bool = True, catches_up: bool = True) -> DuckDBConnection:
        """A connection of its own. `counts_writes=False`: its writes do not move `write_generation` (the workload
        relations' writers: their relations are never cached, so their writes need not invalidate anything).
        `catches_up=False`: its statements never call the catch-up (the connection that does the catching up)."""
        with self._lock:
            cursor = self._db.cursor()
        cursor.execute("SET schema = 'public'")
        return DuckDBConnection(
            cursor, self.wrote if counts_writes else _no_write, self._catch_up.before if catches_up else None
        )

    def close(self) -> None:
        self._db.close()


def _batches(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """The reader's batches; errors DuckDB raises mid-stream (they surface as OSError) become PgError."""
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except (duckdb.Error, OSError, pa.ArrowException) as exc:
            raise map_duckdb_error(exc) from None
        yield batch


class DuckDBConnection:
    def __init__(
        self,
        cursor: duckdb.DuckDBPyConnection,
        wrote: Callable[[], None],
        catch_up: Callable[[str], None] | None = None,
    ) -> None:
        self._con = cursor
        self._wrote = wrote
        self._catch_up = catch_up

    def catch_up(self, sql: str) -> None:
        """Bring what `sql` reads up to date now, as running it would first (`set_catch_up`): a caller that keys its
        answer by `write_generation` reads the generation after the catching up."""
        if self._catch_up is not None:
            self._catch_up(sql)

    def note_write(self) -> None:
        """Count a change of what reads through this engine answer, made elsewhere (`write_generation`)."""
        self._wrote()

    def _relation(self, sql: str, params: Sequence[object]) -> duckdb.DuckDBPyRelation | None:
        if self._catch_up is not None:
            self._catch_up(sql)
        try:
            return self._con.sql(sql, params=list(params) if params else None)
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None

    def describe(self, sql: str, params: Sequence[object] = ()) -> list[Column]:
        rel = self._relation(sql, params)
        if rel is None:
            return []
        return [Column(name, str(t)) for name, t in zip(rel.columns, rel.types, strict=True)]

    def arrow_schema(self, sql: str) -> pa.Schema:
        """The Arrow schema of a query's result (runs it with LIMIT 0)."""
        return self.describe_arrow(sql)[1]

    def describe_arrow(self, sql: str) -> tuple[list[Column], pa.Schema]:
        """`describe` and `arrow_schema` of a query from one preparation."""
        rel = self._relation(sql, ())
        if rel is None:
            return [], pa.schema([])
        try:
            schema = rel.limit(0).to_arrow_table().schema
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None
        return [Column(name, str(t)) for name, t in zip(rel.columns, rel.types, strict=True)], schema

    def query(self, sql: str, params: Sequence[object] = ()) -> tuple[list[Column], Iterator[pa.RecordBatch]]:
        rel = self._relation(sql, params)
        if rel is None:
            return [], iter(())
        columns = [Column(name, str(t)) for name, t in zip(rel.columns, rel.types, strict=True)]
        try:
            reader = rel.to_arrow_reader(BATCH_ROWS)
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None
        return columns, _batches(reader)

    def command(self, sql: str, params: Sequence[object] = ()) -> int:
        try:
            return self._command(sql, params)
        finally:
            self._wrote()

    def _command(self, sql: str, params: Sequence[object]) -> int:
        rel = self._relation(sql, params)
        if rel is None:
            return 0
        try:
            rows = rel.fetchall()
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None
        return int(rows[0][0]) if rows and rows[0] and isinstance(rows[0][0], int) else 0

    def insert_arrow(self, table_sql: str, column_sqls: Sequence[str], data: pa.Table) -> int:
        view = f"sw_copy_{id(data):x}"
        columns = f" ({', '.join(column_sqls)})" if column_sqls else ""
        try:
            self._con.register(view, data)
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None
        try:
            return self.command(f"INSERT INTO {table_sql}{columns} SELECT * FROM {view}")
        finally:
            self._con.unregister(view)

    def register_arrow(self, name: str, data: pa.Table) -> None:
        """Make `data` readable as the relation `name` on this connection (until `unregister`)."""
        try:
            self._con.register(name, data)
        except duckdb.Error as exc:
            raise map_duckdb_error(exc) from None

    def unregister(self, name: str) -> None:
        with contextlib.suppress(duckdb.Error):
            self._con.unregister(name)

    def set_time_zone(self, zone: str) -> None:
        quoted = zone.replace("'", "''")
        self._command(f"SET SESSION TimeZone = '{quoted}'", ())  # a connection setting, not a write

    def set_search_path(self, schemas: Sequence[str]) -> None:
        """Where unqualified names resolve on this connection (schemas that exist here; none: its default)."""
        listed = ",".join('"' + s.replace('"', '""') + '"' for s in schemas).replace("'", "''")
        self._command(f"SET SESSION search_path = '{listed}'", ())  # a connection setting, not a write

    def begin(self) -> None:
        self._command("BEGIN TRANSACTION", ())

    def commit(self) -> None:
        self.command("COMMIT")

    def rollback(self) -> None:
        self._command("ROLLBACK", ())

    def interrupt(self) -> None:
        self._con.interrupt()

    def close(self) -> None:
        with contextlib.suppress(duckdb.Error):  # its database may already be closed
            self._con.close()
