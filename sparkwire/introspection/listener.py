"""`StoreListener`: keeps the store's catalog-defined relations equal to their rows for the catalog's state.

Contract: `StoreListener(con, state)` takes a connection of its own to the engine's database (the store must exist,
see `store.install`) and fills every relation of `relations.STATE_RELATIONS` from `state` (the full rebuild; it
replaces whatever the tables held). Registered with `Catalog.add_listener`, it follows the catalog's two phases:
`prepare` renders the new state's rows (cheap: the relations memoize rows per item), diffs them against the rows it
holds for the committed state, and applies the differences (one DELETE of the removed rows, one INSERT of the added
ones per changed relation, sent to the engine as one script: per-statement overhead, not row counts, dominates DDL
with many objects) inside a DuckDB transaction it leaves open; `commit` commits it and adopts the new state;
`abort` rolls it back (also when its own `prepare` failed half way), so the store never shows a state the catalog
did not commit. Readers on other connections see the old rows until `commit` (DuckDB's snapshot isolation).
`state` is the committed state. Only the catalog's writer calls prepare/commit/abort (under the catalog lock), so
the listener needs no lock of its own.
"""

from __future__ import annotations

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
        self._state = state
        self._rows = _render(state)
        self._pending: tuple[CatalogState, RelationRows] | None = None
        self._open = False
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
        rows = _render(change.new)
        self._con.begin()
        self._open = True
        statements: list[str] = []
        views: list[str] = []
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
            if statements:  # one engine call for the whole change: DDL stays fast with many objects
                self._con.command(";\n".join(statements))
        finally:
            for view in views:
                self._con.unregister(view)
        self._pending = (change.new, rows)

    def commit(self, change: CatalogChange) -> None:
        if self._pending is None:  # registered between this transaction's prepare and commit phases
            return
        self._con.commit()
        self._open = False
        self._state, self._rows = self._pending
        self._pending = None

    def abort(self, change: CatalogChange) -> None:
        if self._open:
            self._con.rollback()
            self._open = False
        self._pending = None

    def close(self) -> None:
        self._con.close()
