"""The catalog-defined pg_catalog and information_schema relations compared with PostgreSQL 15.

Shapes: every pg_catalog / information_schema relation the store hosts declares exactly PostgreSQL's columns and
types (read from the oracle's own pg_attribute), and a real sparkwire server answers `SELECT *` with PostgreSQL's
column names. Content: the same schema — a table with columns of many types, an index, a view and a materialized
view — is created in the oracle with SQL and in a real catalog with ops (column types parsed from the same SQL
spellings), and the store's rows for it must equal PostgreSQL's, leaving out what legitimately differs: OIDs,
owners and database names. Default expressions are compared as pg_get_expr prints them (casts added, a DEFAULT NULL
stored as no default).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import Column, ItemSpec
from sparkwire.catalog.ops import CreateItem, CreateSchema
from sparkwire.catalog.relations.relation import BuiltinRelation
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection import store
from sparkwire.introspection.relations import RELATIONS
from sparkwire.introspection.tables import table_sql
from sparkwire.pgtypes.registry import parse_type_name
from tests.support.postgres import PostgresOracle

Conn = psycopg.Connection[tuple[Any, ...]]

PG_RELATIONS = [rel for rel in RELATIONS if rel.schema in ("pg_catalog", "information_schema")]
SCHEMA = "catalog_fixture"
# (name, SQL type, NOT NULL, DEFAULT)
COLUMNS: tuple[tuple[str, str, bool, str | None], ...] = (
    ("id", "integer", True, None),
    ("small", "smallint", False, "3"),
    ("big", "bigint", False, "-1"),
    ("price", "numeric(10,2)", False, "1.5"),
    ("amount", "numeric", False, None),
    ("ratio", "real", False, None),
    ("score", "double precision", False, None),
    ("name", "character varying(40)", True, "'x'"),
    ("note", "varchar", False, "NULL"),
    ("code", "character(3)", False, None),
    ("body", "text", False, "'it''s'"),
    ("flag", "boolean", False, "true"),
    ("born", "date", False, "'2020-01-01'"),
    ("at", "timestamp", False, None),
    ("at_tz", "timestamp(3) with time zone", False, "now()"),
    ("during", "interval", False, None),
    ("clock", "time(2)", False, None),
    ("doc", "jsonb", False, None),
    ("raw", "bytea", False, None),
    ("uid", "uuid", False, None),
    ("tags", "text[]", False, None),
    ("counts", "integer[]", False, None),
)
VIEW_SQL = "SELECT id, count(*) AS n FROM t GROUP BY id"


def _create_table_sql() -> str:
    columns = ", ".join(
        f"{name} {sql_type}{' NOT NULL' if not_null else ''}{f' DEFAULT {default}' if default else ''}"
        for name, sql_type, not_null, default in COLUMNS
    )
    return f"CREATE TABLE t ({columns})"


@pytest.fixture(scope="module")
def oracle_fixture(oracle: PostgresOracle) -> Iterator[Conn]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"SET search_path = {SCHEMA}")
        conn.execute(_create_table_sql())
        conn.execute("CREATE INDEX t_name_id ON t (name, id)")
        conn.execute(f"CREATE VIEW v AS {VIEW_SQL}")
        conn.execute(f"CREATE MATERIALIZED VIEW m AS {VIEW_SQL}")
        try:
            yield conn
        finally:
            conn.execute(f"DROP SCHEMA {SCHEMA} CASCADE")


class Store:
    def __init__(self, engine: DuckDBEngine) -> None:
        self.engine = engine

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        con = self.engine.connect()
        try:
            _, batches = con.query(sql)
            return [tuple(row.values()) for batch in batches for row in batch.to_pylist()]
        finally:
            con.close()


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    data_dir = tmp_path_factory.mktemp("catalog_oracle")
    catalog = Catalog.open(data_dir / "catalog")
    engine = DuckDBEngine(data_dir / "duckdb" / "x.duckdb")
    listener = store.install(engine, [], catalog.state)
    catalog.add_listener(listener)
    try:
        owner = "u1"
        schema = catalog.transact([CreateSchema("u1", SCHEMA, owner)]).created[0].id
        columns = []
        for name, sql_type, not_null, default in COLUMNS:
            pg_type, typmod = parse_type_name(sql_type)
            columns.append(Column(name, pg_type.oid, typmod, nullable=not not_null, default=default))
        (t,) = [
            ref.id
            for ref in catalog.transact(
                [
                    CreateItem(
                        ItemSpec(
                            kind="table",
                            schema_id=schema,
                            name="t",
                            owner_id=owner,
                            create_sql=_create_table_sql(),
                            columns=tuple(columns),
                        )
                    )
                ]
            ).created
        ]
        view_columns = (Column("id", 23, nullable=False), Column("n", 20, nullable=True))
        catalog.transact(
            [
                CreateItem(
                    ItemSpec(
                        kind="index",
                        schema_id=schema,
                        name="t_name_id",
                        owner_id=owner,
                        create_sql="CREATE INDEX t_name_id ON t (name, id)",
                        on_id=t,
                        keys=("name", "id"),
                        cluster_id="u1",
                    )
                ),
                CreateItem(
                    ItemSpec(
                        kind="view",
                        schema_id=schema,
                        name="v",
                        owner_id=owner,
                        create_sql=f"CREATE VIEW v AS {VIEW_SQL}",
                        columns=view_columns,
                        dependencies=(t,),
                    )
                ),
                CreateItem(
                    ItemSpec(
                        kind="materialized-view",
                        schema_id=schema,
                        name="m",
                        owner_id=owner,
                        create_sql=f"CREATE MATERIALIZED VIEW m AS {VIEW_SQL}",
                        columns=view_columns,
                        dependencies=(t,),
                        cluster_id="u1",
                    )
                ),
            ]
        )
        yield Store(engine)
    finally:
        listener.close()
        engine.close()
        catalog.close()


def _names(schema: str) -> dict[str, str]:
    """Placeholders for the relations of `schema` (pg_catalog or information_schema) in the store."""
    return {rel.name: table_sql(rel) for rel in RELATIONS if rel.schema == schema}


def both(pg: Conn, ours: Store, sql: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """`sql` with {pg_x} / {columns} placeholders, run on the oracle and on the store, rows sorted."""
    pg_names = {rel.name: f"{rel.schema}.{rel.name}" for rel in PG_RELATIONS}
    store_names = _names("pg_catalog") | _names("information_schema")
    theirs = pg.execute(sql.format(**pg_names)).fetchall()
    mine = ours.query(sql.format(**store_names))
    return sorted(mine, key=repr), sorted(theirs, key=repr)


# ---- shapes -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("relation", PG_RELATIONS, ids=lambda r: f"{r.schema}.{r.name}")
def test_declared_columns_are_postgres_columns(pg: Conn, relation: BuiltinRelation) -> None:
    theirs = pg.execute(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
        "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
        (relation.schema, relation.name),
    ).fetchall()
    assert list(relation.columns) == theirs


@pytest.mark.parametrize("relation", PG_RELATIONS, ids=lambda r: f"{r.schema}.{r.name}")
def test_server_answers_with_postgres_column_names(sw: Conn, pg: Conn, relation: BuiltinRelation) -> None:
    sql = f"SELECT * FROM {relation.schema}.{relation.name} LIMIT 0"
    ours = [d.name for d in sw.execute(sql).description or ()]
    theirs = [d.name for d in pg.execute(sql).description or ()]
    assert ours == theirs


# ---- content ------------------------------------------------------------------------------------------------

_IN_FIXTURE = (
    "JOIN {pg_class} c ON c.oid = a.attrelid JOIN {pg_namespace} n ON n.oid = c.relnamespace "
    f"WHERE n.nspname = '{SCHEMA}'"
)


def test_pg_attribute_matches(oracle_fixture: Conn, ours: Store) -> None:
    sql = (
        "SELECT c.relname, a.attname, a.atttypid, a.attstattarget, a.attlen, a.attnum, a.attndims, a.attcacheoff, "
        "a.atttypmod, a.attbyval, a.attalign, a.attstorage, a.attnotnull, a.atthasdef, a.atthasmissing, "
        "a.attidentity, a.attgenerated, a.attisdropped, a.attislocal, a.attinhcount, a.attcollation, a.attacl, "
        f"a.attoptions, a.attfdwoptions FROM {{pg_attribute}} a {_IN_FIXTURE} AND a.attnum > 0"
    )
    mine, theirs = both(oracle_fixture, ours, sql)
    assert len(mine) == len(COLUMNS) + 2 + 2 + 2
    assert mine == theirs


def test_information_schema_columns_match(oracle_fixture: Conn, ours: Store) -> None:
    rel = next(r for r in PG_RELATIONS if r.name == "columns")
    compared = [n for n, _ in rel.columns if n not in ("table_catalog", "udt_catalog")]
    sql = f"SELECT {', '.join(compared)} FROM {{columns}} WHERE table_schema = '{SCHEMA}'"
    mine, theirs = both(oracle_fixture, ours, sql)
    assert len(mine) == len(COLUMNS) + 2
    assert mine == theirs


def test_information_schema_tables_and_views_match(oracle_fixture: Conn, ours: Store) -> None:
    sql = (
        f"SELECT table_schema, table_name, table_type, is_insertable_into, is_typed FROM {{tables}} "
        f"WHERE table_schema = '{SCHEMA}'"
    )
    mine, theirs = both(oracle_fixture, ours, sql)
    assert mine == theirs == [(SCHEMA, "t", "BASE TABLE", "YES", "NO"), (SCHEMA, "v", "VIEW", "NO", "NO")]
    sql = (
        "SELECT table_schema, table_name, check_option, is_updatable, is_insertable_into, is_trigger_updatable, "
        f"is_trigger_deletable, is_trigger_insertable_into FROM {{views}} WHERE table_schema = '{SCHEMA}'"
    )
    mine, theirs = both(oracle_fixture, ours, sql)
    assert mine == theirs and len(mine) == 1
    sql = f"SELECT schema_name, default_character_set_name, sql_path FROM {{schemata}} WHERE schema_name = '{SCHEMA}'"
    assert both(oracle_fixture, ours, sql)[0] == both(oracle_fixture, ours, sql)[1]


def test_pg_class_matches(oracle_fixture: Conn, ours: Store) -> None:
    sql = (
        "SELECT c.relname, c.reloftype, c.relam <> 0, c.reltablespace, c.relpages, c.reltuples, c.relallvisible, "
        "c.relhasindex, c.relisshared, c.relpersistence, c.relkind, c.relnatts, c.relchecks, c.relhasrules, "
        "c.relhastriggers, c.relhassubclass, c.relrowsecurity, c.relforcerowsecurity, c.relispopulated, "
        "c.relreplident, c.relispartition, c.relrewrite, c.relacl, c.reloptions, c.relpartbound "
        f"FROM {{pg_class}} c JOIN {{pg_namespace}} n ON n.oid = c.relnamespace WHERE n.nspname = '{SCHEMA}' "
        "AND c.relkind IN ('r', 'v', 'm', 'i')"
    )
    mine, theirs = both(oracle_fixture, ours, sql)
    assert len(mine) == 4
    assert mine == theirs


def test_pg_index_and_pg_indexes_match(oracle_fixture: Conn, ours: Store) -> None:
    sql = (
        "SELECT c.relname, i.indnatts, i.indnkeyatts, i.indisunique, i.indnullsnotdistinct, i.indisprimary, "
        "i.indisexclusion, i.indimmediate, i.indisclustered, i.indisvalid, i.indcheckxmin, i.indisready, "
        "i.indislive, i.indisreplident, i.indkey, i.indcollation, i.indoption, i.indexprs, "
        "i.indpred FROM {pg_index} i JOIN {pg_class} c ON c.oid = i.indexrelid "
        f"JOIN {{pg_namespace}} n ON n.oid = c.relnamespace WHERE n.nspname = '{SCHEMA}'"
    )
    # PostgreSQL's int2vector / oidvector arrive as text; the store holds them as arrays.
    pg_sql = sql.replace("i.indkey", "string_to_array(i.indkey::text, ' ')::int2[]")
    pg_sql = pg_sql.replace("i.indcollation", "string_to_array(i.indcollation::text, ' ')::oid[]")
    pg_sql = pg_sql.replace("i.indoption", "string_to_array(i.indoption::text, ' ')::int2[]")
    pg_index = oracle_fixture.execute(pg_sql.format(**{r.name: f"pg_catalog.{r.name}" for r in PG_RELATIONS}))
    assert ours.query(sql.format(**_names("pg_catalog"))) == pg_index.fetchall()
    sql = (
        f"SELECT schemaname, tablename, indexname, tablespace, indexdef FROM {{pg_indexes}} "
        f"WHERE schemaname = '{SCHEMA}'"
    )
    mine, theirs = both(oracle_fixture, ours, sql)
    assert (
        mine
        == theirs
        == [(SCHEMA, "t", "t_name_id", None, f"CREATE INDEX t_name_id ON {SCHEMA}.t USING btree (name, id)")]
    )


def test_pg_tables_matviews_views_attrdef_match(oracle_fixture: Conn, ours: Store) -> None:
    for sql in (
        "SELECT schemaname, tablename, tablespace, hasindexes, hasrules, hastriggers, rowsecurity FROM {pg_tables}",
        "SELECT schemaname, matviewname, tablespace, hasindexes, ispopulated FROM {pg_matviews}",
        "SELECT schemaname, viewname FROM {pg_views}",
    ):
        mine, theirs = both(oracle_fixture, ours, sql + f" WHERE schemaname = '{SCHEMA}'")
        assert mine == theirs and len(mine) == 1
    sql = (
        "SELECT c.relname, d.adnum, {expr} FROM {pg_attrdef} d JOIN {pg_class} c ON c.oid = d.adrelid "
        f"JOIN {{pg_namespace}} n ON n.oid = c.relnamespace WHERE n.nspname = '{SCHEMA}' ORDER BY d.adnum"
    )
    pg_names = {rel.name: f"{rel.schema}.{rel.name}" for rel in PG_RELATIONS}
    theirs = oracle_fixture.execute(sql.format(expr="pg_get_expr(d.adbin, d.adrelid)", **pg_names)).fetchall()
    mine = ours.query(sql.format(expr="d.adbin", **_names("pg_catalog")))
    assert mine == theirs
    assert [row[2] for row in theirs] == [
        "3",
        "'-1'::integer",
        "1.5",
        "'x'::character varying",
        "'it''s'::text",
        "true",
        "'2020-01-01'::date",
        "now()",
    ]


def test_stat_user_tables_counts_are_zero(oracle_fixture: Conn, ours: Store) -> None:
    sql = (
        "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_live_tup, n_dead_tup, vacuum_count, analyze_count, "
        f"last_vacuum, last_analyze FROM {{pg_stat_user_tables}} WHERE schemaname = '{SCHEMA}'"
    )
    mine, theirs = both(oracle_fixture, ours, sql)
    assert mine == theirs and len(mine) == 2


def test_empty_constraint_relations(ours: Store) -> None:
    """The fixture has no primary key (test_introspection_result_types.py covers keys): its only constraints are
    PostgreSQL 15's NOT NULL checks in information_schema.table_constraints."""
    for name in ("pg_constraint", "pg_description", "pg_inherits"):
        assert ours.query(f"SELECT count(*) FROM {_names('pg_catalog')[name]}") == [(0,)]
    for name in ("key_column_usage", "referential_constraints"):
        assert ours.query(f"SELECT count(*) FROM {_names('information_schema')[name]}") == [(0,)]
    checks = f"SELECT DISTINCT constraint_type FROM {_names('information_schema')['table_constraints']}"
    assert ours.query(checks) == [("CHECK",)]
