"""Shared builders for the notice tests (a real on-disk `Catalog` with real ops) and the tests of `Names` and
the detection inputs' name resolution, which every notice relies on."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import Column, ItemSpec
from sparkwire.catalog.ops import CreateItem, CreateSchema
from sparkwire.notices import (
    IndexInput,
    Names,
    OptimizerNotice,
    QueryInput,
    RawNotice,
    detect_index,
    detect_query,
    render_all,
)
from sparkwire.pgtypes.registry import parse_type_name, type_by_oid

ROLE = "u1"
DATABASE = "u1"
PUBLIC = "u3"
CLUSTER = "u1"
INT4, TEXT = 23, 25


@contextmanager
def opened(path: Path) -> Iterator[Catalog]:
    catalog = Catalog.open(path)
    try:
        yield catalog
    finally:
        catalog.close()


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    with opened(tmp_path) as catalog:
        yield catalog


def _create(catalog: Catalog, spec: ItemSpec) -> str:
    return catalog.transact([CreateItem(spec)]).created[0].id


def table(catalog: Catalog, name: str, columns: str, *, schema: str = PUBLIC, types: int = INT4) -> str:
    """`columns` is a comma-separated list of `name [type]`; a column without a type is of type `types`."""
    cols = []
    for written in columns.split(","):
        column, _, type_name = written.strip().partition(" ")
        cols.append(Column(column, parse_type_name(type_name)[0].oid if type_name else types))
    sql = f"CREATE TABLE {name} ({', '.join(f'{c.name} {type_by_oid(c.type_oid).display}' for c in cols)})"
    spec = ItemSpec(kind="table", schema_id=schema, name=name, owner_id=ROLE, create_sql=sql, columns=tuple(cols))
    return _create(catalog, spec)


def index(
    catalog: Catalog, name: str, on: str, keys: Sequence[str], *, default: bool = False, schema: str = PUBLIC
) -> str:
    on_name = catalog.state.items[on].name
    if default:
        sql = f"CREATE DEFAULT INDEX {name} IN CLUSTER quickstart ON {on_name}"
    else:
        sql = f"CREATE INDEX {name} IN CLUSTER quickstart ON {on_name} ({', '.join(keys)})"
    spec = ItemSpec(
        kind="index",
        schema_id=schema,
        name=name,
        owner_id=ROLE,
        create_sql=sql,
        on_id=on,
        keys=tuple(keys),
        is_default_index=default,
        cluster_id=CLUSTER,
    )
    return _create(catalog, spec)


def view(catalog: Catalog, create_sql: str, *, materialized: bool = False) -> tuple[str, exp.Expr]:
    """Create the view `create_sql` defines (its dependencies are the catalog items its query reads); return
    its id and its query tree."""
    tree = sqlglot.parse_one(create_sql, read="postgres")
    query = tree.expression
    state = catalog.state
    deps = tuple(
        dict.fromkeys(
            item.id
            for t in query.find_all(exp.Table)
            if (item := state.lookup_item(t.name, current_database="materialize", search_path=("public",)))
        )
    )
    spec = ItemSpec(
        kind="materialized-view" if materialized else "view",
        schema_id=PUBLIC,
        name=tree.this.name,
        owner_id=ROLE,
        create_sql=create_sql,
        dependencies=deps,
        cluster_id=CLUSTER if materialized else None,
    )
    return _create(catalog, spec), query


def schema(catalog: Catalog, name: str) -> str:
    return catalog.transact([CreateSchema(DATABASE, name, ROLE)]).created[0].id


def query_input(catalog: Catalog, sql: str | exp.Expr, *, definition: bool = False) -> QueryInput:
    tree = sqlglot.parse_one(sql, read="postgres") if isinstance(sql, str) else sql
    return QueryInput(tree, catalog.state, "materialize", ("public",), is_definition=definition)


def select_notices(catalog: Catalog, sql: str, kind: str | None = None) -> list[OptimizerNotice]:
    """Detect and render the notices of a SELECT (optionally only those of one kind)."""
    raws = detect_query(query_input(catalog, sql))
    rendered = render_all(raws, catalog.state, object_id=None, object_sql=sql, now=1)
    return [n for n in rendered if kind is None or n.kind == kind]


def view_notices(catalog: Catalog, create_sql: str, kind: str | None = None) -> list[OptimizerNotice]:
    """Create a materialized view; detect and render its notices (optionally only those of one kind)."""
    view_id, query = view(catalog, create_sql, materialized=True)
    raws = detect_query(query_input(catalog, query, definition=True))
    rendered = render_all(raws, catalog.state, object_id=view_id, object_sql=create_sql, now=1)
    return [n for n in rendered if kind is None or n.kind == kind]


def index_notices(catalog: Catalog, index_id: str, kind: str | None = None) -> list[OptimizerNotice]:
    raws: list[RawNotice] = detect_index(IndexInput(catalog.state, index_id))
    sql = catalog.state.items[index_id].create_sql
    rendered = render_all(raws, catalog.state, object_id=index_id, object_sql=sql, now=1)
    return [n for n in rendered if kind is None or n.kind == kind]


def texts(notice: OptimizerNotice) -> tuple[str, str, str | None]:
    return notice.message, notice.hint, notice.action


def redacted(notice: OptimizerNotice) -> tuple[str | None, str | None, str | None]:
    return notice.redacted_message, notice.redacted_hint, notice.redacted_action


# ---- tests --------------------------------------------------------------------------------------------------


def test_names_are_qualified_with_database_and_schema(catalog: Catalog) -> None:
    other = schema(catalog, "analytics")
    t = table(catalog, "t", "a", schema=other)
    i = index(catalog, "t_a", t, ["a"], schema=other)
    names = Names(catalog.state)
    assert names.qualified(i) == "materialize.analytics.t_a"
    assert names.unqualified(t) == "t"


def test_query_input_resolves_tables_like_the_planner(catalog: Catalog) -> None:
    other = schema(catalog, "analytics")
    public_t = table(catalog, "t", "a")
    other_t = table(catalog, "t", "b", schema=other)
    scopes = query_input(
        catalog, "WITH c AS (SELECT 1 AS k) SELECT * FROM T, analytics.t AS x, materialize.analytics.t, c, nowhere"
    ).scopes
    outer = next(s for s in scopes if len(s.relations) == 5)
    resolved = [(r.alias, None if r.item is None else r.item.id) for r in outer.relations]
    assert resolved == [("t", public_t), ("x", other_t), ("t", other_t), ("c", None), ("nowhere", None)]


def test_query_input_does_not_modify_the_callers_tree(catalog: Catalog) -> None:
    table(catalog, "t", "a")
    tree = sqlglot.parse_one("SELECT A FROM T WHERE A = 1", read="postgres")
    before = tree.sql()
    assert query_input(catalog, tree).scopes[0].relations[0].item is not None
    assert tree.sql() == before
