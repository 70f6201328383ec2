"""`StoreListener`: keeps the store's catalog-defined relations equal to their rows for the catalog's state.

Contract: `StoreListener(con, state)` takes a connection of its own to the engine's database (the store must exist,
see `store.install`; made with `catches_up=False`) and fills every relation of `relations.STATE_RELATIONS` from
`state` (the full rebuild; it replaces whatever the tables held). Registered with `Catalog.add_listener`, it follows
the catalog's two phases: `prepare` renders the new state's rows (cheap: the relations memoize rows per item; a state
it cannot render fails the transaction), `commit` adopts them and the state as `state` (the catalog functions read
it) and counts a write (cached answers of catalog queries are not served again), `abort` forgets them. The tables
are brought to the committed state lazily: `catch_up()` (which `store.install` makes the engine call before any
statement that names the store, `DuckDBEngine.set_catch_up`) diffs the committed rows against the rows the tables
hold and applies the differences in one DuckDB transaction (one
DELETE of the removed rows, one INSERT of the added ones per changed relation, sent as one script). So a run of DDL
that nobody reads in between (a migration, a test file's CREATE TABLE / CREATE INDEX / DROP) pays for the store once,
at the next catalog query, not once per statement: the store's share of a DDL statement was ~80% of it. A reader
never sees a state the catalog did not commit; a reader that starts after a commit sees it (it catches up first).
A catch-up that fails is rolled back and raised to the reader (the next one tries again). Thread-safe: catch-ups
are serialized by a lock; `prepare`/`commit`/`abort` come from the catalog's writer, under the catalog lock.
"""

from __future__ import annotations

import threading

from sparkwire.catalog import CatalogChange, CatalogState
from sparkwire.catalog.relations.relation import BuiltinRelation, Row
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.introspection.relations import STATE_RELATIONS
from sparkwire.introspection.tables import arrow_rows, column_sqls, quoted, table_sql

RelationRows = dict[str, frozenset[Row]]  # table_sql → rows


def _first_column(row: Row) -> tuple[int, int | float, str]:
    first = row[0] if row else None
    if isinstance(first, int | float):
        return 0, first, ""
    return 1, 0, str(first)


def _ordered(rows: frozenset[Row]) -> list[Row]:
    """Rows in a stable order (by their first column: an OID, an id): a set's order changes with the process's
    string hashing, and clients that read a relation without ORDER BY see insertion order, as in PostgreSQL, where
    that is the order objects were created in."""
    return sorted(rows, key=_first_column)


def _render(state: CatalogState) -> RelationRows:
    return {table_sql(rel): frozenset(rel.rows(state)) for rel in STATE_RELATIONS}


def _insert_sql(rel: BuiltinRelation, table: str, view: str) -> str:
    return f"INSERT INTO {table} ({', '.join(column_sqls(rel))}) SELECT * FROM {view}"


def _delete_sql(rel: BuiltinRelation, table: str, view: str) -> str:
    """Delete the rows of `table` equal (NULLs too) to a row of `view`."""
    alias = quoted(rel.name)
    match = " AND ".join(f"{alias}.{c} IS NOT DISTINCT FROM {view}.{c}" for c in column_sqls(rel))
    return f"DELETE FROM {table} AS {alias} USING {view} WHERE {match}"


class StoreListener:
    def __init__(self, con: DuckDBConnection, state: CatalogState) -> None:
        self._con = con
        self._state = state  # committed
        self._held = state  # what the tables hold
        self._rows = _render(state)  # the rows they hold
        self._target = self._rows  # the committed state's rows
        self._pending: tuple[CatalogState, RelationRows] | None = None
        self._lock = threading.Lock()
        self._rebuild()

    @property
    def state(self) -> CatalogState:
        return self._state

    def _rebuild(self) -> None:
        self._con.begin()
        try:
            for rel in STATE_RELATIONS:
                table = table_sql(rel)
                self._con.command(f"DELETE FROM {table}")
                self._insert(rel, table, self._rows[table])
            self._con.commit()
        except BaseException:
            self._con.rollback()
            raise

    def _insert(self, rel: BuiltinRelation, table: str, rows: frozenset[Row]) -> None:
        if rows:
            self._con.insert_arrow(table, column_sqls(rel), arrow_rows(rel, _ordered(rows)))

    def prepare(self, change: CatalogChange) -> None:
        """Render the new state's rows now: a state the store cannot show fails the transaction (here, where the
        catalog can still abort it), never a later reader."""
        rows = _render(change.new)
        for rel in STATE_RELATIONS:
            table = table_sql(rel)
            added = rows[table] - self._target[table]
            if added:
                arrow_rows(rel, _ordered(added))
        self._pending = (change.new, rows)

    def commit(self, change: CatalogChange) -> None:
        if self._pending is None:  # registered between this transaction's prepare and commit phases
            return
        (self._state, self._target), self._pending = self._pending, None
        self._con.note_write()

    def abort(self, change: CatalogChange) -> None:
        self._pending = None

    def catch_up(self) -> None:
        """Bring the tables to the committed state (nothing to do: returns at once, without the lock)."""
        if self._held is self._state:
            return
        with self._lock:
            state, rows = self._state, self._target
            if self._held is state:
                return
            self._apply(rows)
            self._held, self._rows = state, rows

    def _apply(self, rows: RelationRows) -> None:
        statements: list[str] = []
        views: list[str] = []
        self._con.begin()
        try:
            for rel in STATE_RELATIONS:
                table = table_sql(rel)
                old, new = self._rows[table], rows[table]
                if old == new:
                    continue
                for removed, changed in ((True, old - new), (False, new - old)):
                    if not changed:
                        continue
                    view = f"sw_listener_{len(views)}"
                    self._con.register_arrow(view, arrow_rows(rel, _ordered(changed)))
                    views.append(view)
                    statements.append(_delete_sql(rel, table, view) if removed else _insert_sql(rel, table, view))
            if statements:  # one engine call for the whole change: catching up stays fast with many objects
                self._con.command(";\n".join(statements))
            self._con.commit()
        except BaseException:
            self._con.rollback()
            raise
        finally:
            for view in views:
                self._con.unregister(view)

    def close(self) -> None:
        self._con.close()
