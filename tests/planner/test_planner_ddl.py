"""DDL planning against a real durable catalog: statements are parsed (ddl_grammar), planned (ddl.plan_ddl) and the
ops applied with `catalog.transact`; the resulting catalog state, tags, NOTICEs and errors are checked, errors and
NOTICEs of statements PostgreSQL shares against the PostgreSQL 15 oracle. Query columns come from a real DuckDB
describing the query over empty Arrow tables shaped like the catalog's relations."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import psycopg
import pyarrow as pa
import pytest
from sqlglot import exp

from sparkwire.api import Notice
from sparkwire.catalog import Catalog
from sparkwire.catalog.catalog import TransactResult
from sparkwire.catalog.objects import Column, Item
from sparkwire.errors import PgError
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow
from sparkwire.planner.bind.resolve import Names, user_relations
from sparkwire.planner.execute.user_data import CLUSTER_STATEMENTS
from sparkwire.planner.grammar import ddl as g
from sparkwire.planner.grammar.show import ShowColumns, ShowCreate, ShowObjects
from sparkwire.planner.statements.clusters import plan_cluster
from sparkwire.planner.statements.ddl import DdlContext, DdlPlan, plan_ddl
from tests.support.postgres import PostgresOracle

Outcome = tuple[object, ...]


def duckdb_describe(catalog: Catalog, names: Names) -> DdlContext:
    """A DdlContext whose describe_query runs the query on DuckDB over empty tables of the catalog's columns."""
    state = catalog.state

    def describe(tree: exp.Expression) -> tuple[Column, ...]:
        con = duckdb.connect()
        tree = tree.copy()
        for node, item in user_relations(tree, state, names):
            schema = pa.schema([(c.name, arrow_type_for_pg(c.type_oid, c.typmod)) for c in item.columns])
            con.register(item.id, schema.empty_table())
            alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(item.name))
            node.replace(exp.Table(this=exp.to_identifier(item.id), alias=alias))
        result = con.sql(tree.sql(dialect="duckdb")).limit(0).to_arrow_table()
        return tuple(Column(f.name, *pg_type_for_arrow(f.type)) for f in result.schema)

    return DdlContext(state, names, describe)


def plan(catalog: Catalog, sql: str, names: Names | None = None) -> DdlPlan:
    names = names or Names()
    stmt = g.parse_materialize_ddl(sql)
    assert stmt is not None and not isinstance(stmt, ShowObjects | ShowColumns | ShowCreate), sql
    return plan_ddl(stmt, duckdb_describe(catalog, names))


def run(catalog: Catalog, sql: str, names: Names | None = None) -> tuple[DdlPlan, TransactResult | None]:
    planned = plan(catalog, sql, names)
    return planned, catalog.transact(list(planned.ops)) if planned.ops else None


def created(catalog: Catalog, sql: str, names: Names | None = None) -> Item:
    _, result = run(catalog, sql, names)
    assert result is not None and len(result.created) == 1
    return catalog.state.items[result.created[0].id]


def fails(catalog: Catalog, sql: str) -> tuple[str, str, str | None, str | None]:
    with pytest.raises(PgError) as info:
        run(catalog, sql)
    err = info.value
    return err.code, err.message, err.detail, err.hint


def ours(catalog: Catalog, sql: str) -> Outcome:
    try:
        planned, result = run(catalog, sql)
    except PgError as err:
        return ("ERROR", err.code, err.message, err.detail, err.hint)
    skipped = tuple(("42P07", s.notice_message, None) for s in (result.skipped if result else ()))
    return ("OK", *((n.sqlstate, n.message, n.detail) for n in planned.notices), *skipped)


def theirs(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> Outcome:
    notices: list[tuple[str | None, str | None, str | None]] = []

    def collect(d: psycopg.errors.Diagnostic) -> None:
        notices.append((d.sqlstate, d.message_primary, d.message_detail))

    conn.add_notice_handler(collect)
    try:
        conn.execute(sql)
    except psycopg.Error as exc:
        d = exc.diag
        return ("ERROR", d.sqlstate, d.message_primary, d.message_detail, d.message_hint)
    finally:
        conn.remove_notice_handler(collect)
    return ("OK", *notices)


@pytest.fixture
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")
        conn.execute("DROP SCHEMA IF EXISTS s CASCADE")
        conn.execute("SET search_path = public")
        yield conn


def same_as_postgres(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog, script: str) -> None:
    for sql in (s.strip() for s in script.split(";\n") if s.strip()):
        assert ours(catalog, sql) == theirs(pg, sql), sql


# ---- CREATE TABLE ---------------------------------------------------------------------------------------------


def test_create_table_columns_and_primary_key(catalog: Catalog) -> None:
    item = created(
        catalog,
        "CREATE TABLE t (id int PRIMARY KEY, name varchar(10) NOT NULL DEFAULT 'x', amount numeric(10,2), "
        'tags text[], at timestamptz, "Mixed" "char", d double precision DEFAULT 1.5)',
    )
    assert (item.id, item.kind, item.schema_id, item.owner_id) == ("u1", "table", "u3", "u1")
    assert item.columns == (
        Column("id", 23, -1, False),
        Column("name", 1043, 14, False, "'x'"),
        Column("amount", 1700, (10 << 16 | 2) + 4, True),
        Column("tags", 1009, -1, True),
        Column("at", 1184, -1, True),
        Column("Mixed", 18, -1, True),
        Column("d", 701, -1, True, "1.5"),
    )
    assert item.primary_key == ("id",)
    assert item.create_sql == (
        "CREATE TABLE materialize.public.t (id integer NOT NULL, name character varying(10) NOT NULL DEFAULT 'x', "
        'amount numeric(10,2), tags text[], at timestamp with time zone, "Mixed" "char", '
        "d double precision DEFAULT 1.5, PRIMARY KEY (id))"
    )
    assert g.render(g.parse_materialize_ddl(item.create_sql)) == item.create_sql  # type: ignore[arg-type]


def test_create_table_primary_key_constraint_makes_columns_not_null(catalog: Catalog) -> None:
    item = created(catalog, "CREATE TABLE s_t (a int, b text, c int, CONSTRAINT pk PRIMARY KEY (b, a))")
    assert item.primary_key == ("b", "a")
    assert [c.nullable for c in item.columns] == [False, False, True]


def test_create_table_in_a_schema_and_on_the_search_path(catalog: Catalog) -> None:
    run(catalog, "CREATE SCHEMA s")
    item = created(catalog, "CREATE TABLE s.t (a int)")
    assert catalog.state.schemas[item.schema_id].name == "s"
    other = created(catalog, "CREATE TABLE u (a int)", Names(search_path=("nosuch", "s")))
    assert other.schema_id == item.schema_id


def test_create_table_errors(catalog: Catalog) -> None:
    assert fails(catalog, "CREATE TABLE t (a serial)")[:2] == ("0A000", 'type "serial" is not supported')
    assert fails(catalog, "CREATE TABLE t (a bigserial PRIMARY KEY)")[:2] == (
        "0A000",
        'type "bigserial" is not supported',
    )
    assert fails(catalog, "CREATE TABLE t (a int UNIQUE)")[:2] == ("0A000", "UNIQUE constraints are not supported")
    assert fails(catalog, "CREATE TABLE t (a int REFERENCES u (a))")[:1] == ("0A000",)
    assert fails(catalog, "CREATE TABLE t (a int, FOREIGN KEY (a) REFERENCES u (a))")[:1] == ("0A000",)
    assert fails(catalog, "CREATE TABLE t (a int) WITH (fillfactor = 10)")[:1] == ("0A000",)
    assert fails(catalog, "CREATE TABLE t (a int")[:2] == ("42601", "syntax error at end of input")
    assert fails(catalog, "CREATE TABLE t (a int) x")[:2] == ("42601", 'syntax error at or near "x"')
    assert fails(catalog, "CREATE TABLE mz_catalog.t (a int)")[:2] == (
        "42501",
        'permission denied to create "mz_catalog.t"',
    )


def test_syntax_error_positions(catalog: Catalog) -> None:
    for sql, position in (
        ("CREATE TABLE t (a int", 22),
        ("CREATE TABLE t (a int) x", 24),
        ("CREATE VIEW v AS SELEC 1", 18),
        ("CREATE INDEX ON t (a", 21),
        ("DROP TABLE t,", 14),
        ("CREATE FOO", 8),
    ):
        with pytest.raises(PgError) as info:
            run(catalog, sql)
        assert (info.value.code, info.value.position) == ("42601", position), sql


def test_create_table_errors_match_postgres(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    same_as_postgres(
        pg,
        catalog,
        """CREATE TABLE t (a int, b text);
        CREATE TABLE IF NOT EXISTS t (a int);
        CREATE TABLE t (a int);
        CREATE VIEW t AS SELECT 1;
        CREATE TABLE t2 (a int, a int);
        CREATE TABLE t2 (a int, primary key (z));
        CREATE TABLE t2 (a int, primary key (a, a));
        CREATE TABLE t2 (a int primary key, b int, primary key (b));
        CREATE TABLE t2 (a int default b);
        CREATE TABLE nosuch.t2 (a int);
        CREATE SCHEMA s;
        CREATE SCHEMA s;
        CREATE SCHEMA IF NOT EXISTS s;
        CREATE TABLE s.t (a int);
        CREATE TABLE IF NOT EXISTS s.t (b int)""",
    )


def test_unknown_type_is_42704_at_its_position(catalog: Catalog) -> None:
    with pytest.raises(PgError) as info:
        run(catalog, "CREATE TABLE t2 (a foo)")
    assert (info.value.code, info.value.message, info.value.position) == ("42704", 'type "foo" does not exist', 20)


def test_if_not_exists_plans_nothing_but_the_notice(catalog: Catalog) -> None:
    run(catalog, "CREATE TABLE t (a int)")
    planned = plan(catalog, "CREATE TABLE IF NOT EXISTS t (b int)")
    assert planned.ops == ()
    assert planned.notices == (Notice('relation "t" already exists, skipping', sqlstate="42P07"),)
    racing = plan(catalog, "CREATE TABLE IF NOT EXISTS u (a int)")
    run(catalog, "CREATE VIEW u AS SELECT 1")
    result = catalog.transact(list(racing.ops))
    assert [s.notice_message for s in result.skipped] == ['relation "u" already exists, skipping']
    skipped = plan(catalog, "CREATE TABLE IF NOT EXISTS t AS SELECT 1")
    assert (skipped.ops, skipped.tag, skipped.query) == ((), "CREATE TABLE AS", None)


# ---- CREATE TABLE AS ------------------------------------------------------------------------------------------


def test_create_table_as(catalog: Catalog) -> None:
    run(catalog, "CREATE TABLE t (a int NOT NULL, b text)")
    planned, result = run(catalog, "CREATE TABLE c (x, y) AS SELECT a, b FROM t WHERE a > 1")
    assert planned.tag == "SELECT" and result is not None
    assert planned.query is not None
    assert planned.query.sql(dialect="postgres") == "SELECT a, b FROM materialize.public.t WHERE a > 1"
    item = catalog.state.items[result.created[0].id]
    assert item.columns == (Column("x", 23), Column("y", 25))
    assert item.dependencies == ()
    assert item.create_sql == "CREATE TABLE materialize.public.c (x integer, y text)"
    assert fails(catalog, "CREATE TABLE d (x, y, z) AS SELECT 1, 2")[:2] == (
        "42601",
        "too many column names were specified",
    )
    assert fails(catalog, "CREATE TABLE d AS SELECT * FROM nosuch")[:2] == (
        "42P01",
        'relation "nosuch" does not exist',
    )


# ---- views and materialized views ------------------------------------------------------------------------------


def test_views_record_dependencies_and_qualified_sql(catalog: Catalog) -> None:
    table = created(catalog, "CREATE TABLE t (a int, b text)")
    view = created(catalog, "CREATE VIEW v (x) AS SELECT a, t.b FROM t JOIN t AS u USING (a)")
    assert view.kind == "view" and view.dependencies == (table.id,)
    assert [c.name for c in view.columns] == ["x", "b"]
    assert view.create_sql == (
        "CREATE VIEW materialize.public.v (x) AS "
        "SELECT a, t.b FROM materialize.public.t JOIN materialize.public.t AS u USING (a)"
    )
    on_view = created(catalog, "CREATE VIEW w AS SELECT x FROM v, pg_catalog.pg_class WHERE x = 1")
    assert on_view.dependencies == (view.id,)


def test_materialized_view(catalog: Catalog) -> None:
    table = created(catalog, "CREATE TABLE t (a int)")
    planned, result = run(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t")
    assert planned.tag == "CREATE MATERIALIZED VIEW" and result is not None
    assert planned.query is not None and planned.query.sql(dialect="postgres") == (
        "SELECT COUNT(*) AS n FROM materialize.public.t"
    )
    mv = catalog.state.items[result.created[0].id]
    assert (mv.kind, mv.cluster_id, mv.dependencies) == ("materialized-view", "u1", (table.id,))
    assert mv.columns == (Column("n", 20),)
    assert mv.create_sql == (
        "CREATE MATERIALIZED VIEW materialize.public.mv IN CLUSTER quickstart AS "
        "SELECT COUNT(*) AS n FROM materialize.public.t"
    )
    assert fails(catalog, "CREATE MATERIALIZED VIEW mv2 IN CLUSTER nosuch AS SELECT 1")[:2] == (
        "42704",
        "unknown cluster 'nosuch'",
    )
    assert plan(catalog, "CREATE VIEW v AS SELECT 1").query is None


def test_create_or_replace(catalog: Catalog) -> None:
    created(catalog, "CREATE TABLE t (a int)")
    first = created(catalog, "CREATE VIEW v AS SELECT a FROM t")
    _, result = run(catalog, "CREATE OR REPLACE VIEW v AS SELECT a, a + 1 AS b FROM t")
    assert result is not None and [r.id for r in result.dropped] == [first.id]
    replaced = catalog.state.items[result.created[0].id]
    assert replaced.id != first.id and [c.name for c in replaced.columns] == ["a", "b"]
    assert fails(catalog, "CREATE OR REPLACE VIEW t AS SELECT 1")[:2] == ("42809", '"t" is not a view')
    created(catalog, "CREATE VIEW w AS SELECT * FROM v")
    assert fails(catalog, "CREATE OR REPLACE VIEW v AS SELECT 1 AS a")[0] == "2BP01"
    mv = created(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS one")
    _, result = run(catalog, "CREATE OR REPLACE MATERIALIZED VIEW mv AS SELECT 2 AS two")
    assert result is not None and [r.id for r in result.dropped] == [mv.id]


def test_view_errors_match_postgres(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    same_as_postgres(
        pg,
        catalog,
        """CREATE TABLE t (a int, b text);
        CREATE VIEW v (x, y, z) AS SELECT 1, 2;
        CREATE VIEW v (x, x) AS SELECT 1, 2;
        CREATE TABLE c2 (x, y, z) AS SELECT 1, 2;
        CREATE VIEW v AS SELECT a FROM nosuch;
        CREATE VIEW v AS SELECT a FROM t;
        CREATE VIEW v AS SELECT 1;
        CREATE OR REPLACE VIEW t AS SELECT 1""",
    )


# ---- indexes ---------------------------------------------------------------------------------------------------


def test_index_names_and_keys(catalog: Catalog) -> None:
    table = created(catalog, 'CREATE TABLE t (a int, b text, "C" int)')
    default = created(catalog, "CREATE DEFAULT INDEX ON t")
    assert (default.name, default.keys, default.is_default_index) == ("t_primary_idx", ("a", "b", '"C"'), True)
    assert (default.on_id, default.cluster_id, default.schema_id) == (table.id, "u1", table.schema_id)
    assert default.create_sql == 'CREATE INDEX t_primary_idx IN CLUSTER quickstart ON materialize.public.t (a, b, "C")'
    keyed = created(catalog, "CREATE INDEX ON t (A, upper(B))")
    assert (keyed.name, keyed.keys, keyed.is_default_index) == ("t_a_expr_idx", ("a", "upper(b)"), False)
    assert created(catalog, "CREATE INDEX ON t (a)").name == "t_a_idx"
    assert created(catalog, "CREATE INDEX ON t (a)").name == "t_a_idx1"
    assert created(catalog, "CREATE INDEX ON t (a)").name == "t_a_idx2"
    empty = created(catalog, "CREATE INDEX ON t ()")
    assert (empty.name, empty.keys) == ("t__idx", ())
    named = created(catalog, 'CREATE INDEX i IN CLUSTER quickstart ON t USING arrangement ("C")')
    assert (named.name, named.keys) == ("i", ('"C"',))
    assert g.render(g.parse_materialize_ddl(named.create_sql)) == named.create_sql  # type: ignore[arg-type]


def test_default_index_keys_on_the_primary_key(catalog: Catalog) -> None:
    created(catalog, "CREATE TABLE t (a int, b int PRIMARY KEY)")
    assert created(catalog, "CREATE DEFAULT INDEX ON t").keys == ("b",)
    created(catalog, "CREATE VIEW v AS SELECT b AS k, a FROM t")
    view_index = created(catalog, "CREATE DEFAULT INDEX IN CLUSTER quickstart ON v")
    assert (view_index.name, view_index.keys) == ("v_primary_idx", ("k", "a"))


def test_index_errors_and_if_not_exists(catalog: Catalog) -> None:
    created(catalog, "CREATE TABLE t (a int)")
    assert fails(catalog, "CREATE INDEX ON t (z)")[:2] == ("42703", 'column "z" does not exist')
    assert fails(catalog, "CREATE INDEX ON nosuch (a)")[:2] == ("42P01", 'relation "nosuch" does not exist')
    assert fails(catalog, "CREATE INDEX ON t USING btree (a)")[:2] == (
        "42704",
        'access method "btree" does not exist',
    )
    assert fails(catalog, "CREATE INDEX IN CLUSTER nosuch ON t (a)")[:2] == (
        "42704",
        "unknown cluster 'nosuch'",
    )
    created(catalog, "CREATE INDEX i ON t (a)")
    assert fails(catalog, "CREATE INDEX i ON t (a)")[:2] == ("42P07", 'relation "i" already exists')
    assert fails(catalog, "CREATE INDEX ON i (a)")[:2] == (
        "42809",
        'cannot create index on "i" because it is an index',
    )
    created(catalog, "CREATE DEFAULT INDEX ON t")
    planned = plan(catalog, "CREATE DEFAULT INDEX IF NOT EXISTS ON t")
    assert planned.ops == () and planned.notices[0].message == 'relation "t_primary_idx" already exists, skipping'


# ---- DROP ------------------------------------------------------------------------------------------------------


def test_drop_restrict_and_cascade(catalog: Catalog) -> None:
    table = created(catalog, "CREATE TABLE t (a int)")
    index = created(catalog, "CREATE INDEX ON t (a)")
    view = created(catalog, "CREATE VIEW v AS SELECT a FROM t")
    mv = created(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT a FROM v")
    code, message, detail, _ = fails(catalog, "DROP TABLE t")
    assert (code, message) == ("2BP01", "cannot drop table t because other objects depend on it")
    assert detail == "view v depends on table t\nmaterialized view mv depends on view v"
    planned, result = run(catalog, "DROP TABLE t CASCADE")
    assert planned.tag == "DROP TABLE"
    assert planned.notices == (
        Notice(
            "drop cascades to 2 other objects",
            detail="drop cascades to view v\ndrop cascades to materialized view mv",
        ),
    )
    assert result is not None and {r.id for r in result.dropped} == {table.id, index.id, view.id, mv.id}
    assert catalog.state.items == {}


def test_drop_index_alone_and_if_exists(catalog: Catalog) -> None:
    created(catalog, "CREATE TABLE t (a int)")
    index = created(catalog, "CREATE INDEX i ON t (a)")
    planned, result = run(catalog, "DROP INDEX IF EXISTS nosuch, i")
    assert planned.notices == (Notice('index "nosuch" does not exist, skipping'),)
    assert result is not None and [r.id for r in result.dropped] == [index.id]
    planned = plan(catalog, "DROP VIEW IF EXISTS nosuch.v")
    assert (planned.ops, planned.notices) == ((), (Notice('schema "nosuch" does not exist, skipping'),))


def test_drop_errors_and_notices_match_postgres(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    same_as_postgres(
        pg,
        catalog,
        """CREATE TABLE t (a int, b text);
        CREATE VIEW v AS SELECT a FROM t;
        CREATE VIEW w AS SELECT * FROM v;
        CREATE INDEX ON t (a);
        DROP TABLE t;
        DROP VIEW v;
        DROP TABLE nosuch;
        DROP TABLE IF EXISTS nosuch, nosuch2;
        DROP VIEW nosuch;
        DROP MATERIALIZED VIEW nosuch;
        DROP INDEX nosuch;
        DROP TABLE nosuch.t;
        DROP TABLE IF EXISTS nosuch.t;
        DROP VIEW t;
        DROP INDEX t;
        DROP TABLE v;
        DROP VIEW w;
        DROP VIEW v CASCADE;
        CREATE VIEW v AS SELECT a FROM t;
        CREATE VIEW w AS SELECT * FROM v;
        DROP TABLE t CASCADE;
        DROP SCHEMA nosuch;
        DROP SCHEMA IF EXISTS nosuch;
        CREATE SCHEMA s;
        CREATE TABLE s.x (a int);
        CREATE VIEW s.y AS SELECT * FROM s.x;
        CREATE INDEX ON s.x (a);
        CREATE VIEW public.z AS SELECT * FROM s.y;
        DROP SCHEMA s CASCADE""",
    )


def test_drop_schema(catalog: Catalog) -> None:
    run(catalog, "CREATE SCHEMA s")
    created(catalog, "CREATE TABLE s.t (a int)")
    code, message, detail, _ = fails(catalog, "DROP SCHEMA s")
    assert (code, message, detail) == (
        "2BP01",
        "cannot drop schema s because other objects depend on it",
        "table s.t depends on schema s",
    )
    planned, _ = run(catalog, "DROP SCHEMA s CASCADE")
    assert planned.notices == (Notice("drop cascades to table s.t"),)
    assert catalog.state.find_schema("u1", "s") is None
    assert fails(catalog, "DROP SCHEMA mz_catalog")[:2] == (
        "2BP01",
        "cannot drop schema mz_catalog because it is required by the database system",
    )


# ---- ALTER … RENAME --------------------------------------------------------------------------------------------


def test_rename(catalog: Catalog) -> None:
    table = created(catalog, "CREATE TABLE t (a int)")
    planned, _ = run(catalog, "ALTER TABLE t RENAME TO u")
    assert planned.tag == "ALTER TABLE"
    renamed = catalog.state.items[table.id]
    assert (renamed.name, renamed.create_sql) == ("u", "CREATE TABLE materialize.public.u (a integer)")
    view = created(catalog, "CREATE VIEW v AS SELECT a FROM u")
    run(catalog, "ALTER VIEW v RENAME TO w")
    assert (
        catalog.state.items[view.id].create_sql
        == "CREATE VIEW materialize.public.w AS SELECT a FROM materialize.public.u"
    )
    index = created(catalog, "CREATE INDEX ON w (a)")
    run(catalog, "ALTER INDEX w_a_idx RENAME TO i")
    assert (
        catalog.state.items[index.id].create_sql == "CREATE INDEX i IN CLUSTER quickstart ON materialize.public.w (a)"
    )
    # a relation others depend on: their definitions follow the new name (PostgreSQL's follow the OID)
    run(catalog, "ALTER TABLE u RENAME TO x")
    assert catalog.state.items[view.id].create_sql == (
        "CREATE VIEW materialize.public.w AS SELECT a FROM materialize.public.x"
    )
    run(catalog, "ALTER VIEW w RENAME TO w2")
    assert catalog.state.items[index.id].create_sql == (
        "CREATE INDEX i IN CLUSTER quickstart ON materialize.public.w2 (a)"
    )


def test_rename_errors_match_postgres(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    same_as_postgres(
        pg,
        catalog,
        """CREATE TABLE t (a int);
        CREATE TABLE t2 (a int);
        CREATE VIEW v AS SELECT 1 AS one;
        ALTER VIEW t RENAME TO t9;
        ALTER TABLE v RENAME TO v9;
        ALTER TABLE IF EXISTS nosuch RENAME TO x;
        ALTER TABLE nosuch RENAME TO x;
        ALTER TABLE t RENAME TO t2;
        ALTER INDEX t RENAME TO t8""",
    )


# ---- clusters and unsupported DDL ------------------------------------------------------------------------------


def _cluster_ddl(catalog: Catalog, sql: str) -> DdlPlan:
    stmt = g.parse_materialize_ddl(sql)
    assert isinstance(stmt, CLUSTER_STATEMENTS), sql
    planned = plan_cluster(stmt, catalog.state, "u1", Names().context)
    if planned.ops:
        catalog.transact(list(planned.ops))
    return planned


def test_clusters(catalog: Catalog) -> None:
    def error(sql: str) -> tuple[str, str]:
        with pytest.raises(PgError) as info:
            _cluster_ddl(catalog, sql)
        return info.value.code, info.value.message

    assert error("CREATE CLUSTER quickstart") == ("42710", "cluster 'quickstart' already exists")
    assert error("CREATE CLUSTER c (SIZE = '1')") == ("22023", "unknown cluster replica size '1'")
    assert error("DROP CLUSTER nosuch") == ("42704", "unknown cluster 'nosuch'")
    assert _cluster_ddl(catalog, "DROP CLUSTER IF EXISTS nosuch").notices == (
        Notice('cluster "nosuch" does not exist, skipping'),
    )
    _cluster_ddl(catalog, "CREATE CLUSTER c (SIZE = 'small', REPLICATION FACTOR = 2)")
    c = catalog.state.resolve_cluster("c")
    assert (c.size, c.replication_factor, [r.name for r in c.replicas]) == ("50cc", 2, ["r1", "r2"])
    _cluster_ddl(catalog, "ALTER CLUSTER c SET (SIZE = '200cc')")
    assert {r.size for r in catalog.state.resolve_cluster("c").replicas} == {"200cc"}
    assert error("CREATE CLUSTER REPLICA c.r3 (SIZE = '25cc')") == ("0A000", "cannot modify managed cluster c")
    _cluster_ddl(catalog, "DROP CLUSTER c")
    assert catalog.state.cluster_by_name("c") is None


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("CREATE SEQUENCE s", "CREATE SEQUENCE is not supported"),
        ("CREATE TYPE t AS (a int)", "CREATE TYPE is not supported"),
        (
            "CREATE OR REPLACE FUNCTION f() RETURNS int AS 'select 1' LANGUAGE sql",
            "CREATE OR REPLACE FUNCTION is not supported",
        ),
        ("CREATE TRIGGER x AFTER INSERT ON t EXECUTE FUNCTION f()", "CREATE TRIGGER is not supported"),
        ("CREATE UNLOGGED TABLE t (a int)", "CREATE UNLOGGED TABLE is not supported"),
        ("CREATE TEMP TABLE t (a int)", "CREATE TEMPORARY objects is not supported"),
        ("ALTER TABLE t ADD COLUMN c int", "ALTER TABLE … ADD COLUMN is not supported"),
        ("ALTER MATERIALIZED VIEW mv SET (x = 1)", "ALTER MATERIALIZED VIEW … SET is not supported"),
        ("ALTER SCHEMA s RENAME TO x", "ALTER SCHEMA is not supported"),
        ("DROP SEQUENCE s", "DROP SEQUENCE is not supported"),
    ],
)
def test_unsupported_ddl_is_0a000(sql: str, message: str) -> None:
    with pytest.raises(PgError) as info:
        g.parse_materialize_ddl(sql)
    assert (info.value.code, info.value.message) == ("0A000", message)


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE ROLE r",
        "DROP USER u",
        "ALTER ROLE r LOGIN",
        "ALTER TABLE t OWNER TO r",
        "SHOW search_path",
        "SELECT 1",
        "SHOW cluster",
        "GRANT SELECT ON t TO r",
    ],
)
def test_other_statements_are_not_ours(sql: str) -> None:
    assert g.parse_materialize_ddl(sql) is None
