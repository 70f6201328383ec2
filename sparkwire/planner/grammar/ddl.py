"""Our own grammar for the DDL and SHOW statements sparkwire plans against the durable catalog.

Contract: `parse_materialize_ddl(sql)` returns one frozen statement dataclass for CREATE TABLE [AS], CREATE [OR
REPLACE] [MATERIALIZED] VIEW, CREATE [DEFAULT] INDEX, CREATE SCHEMA, the cluster statements (grammar/cluster.py),
DROP TABLE / VIEW / MATERIALIZED VIEW / INDEX / SCHEMA, ALTER … RENAME TO, Materialize's SHOW TABLES / VIEWS /
MATERIALIZED VIEWS / INDEXES / SCHEMAS / DATABASES / COLUMNS / CLUSTERS / OBJECTS and SHOW CREATE …, or None when the
statement is none of those (roles, databases, grants, SHOW <variable>, queries: someone else's). Call it before
`utility.parse_utility`, which reads any `SHOW x` as a variable. A statement that starts like one of ours but
breaks its grammar raises 42601 with PostgreSQL's wording and position; DDL sparkwire does not support (CREATE
SEQUENCE, ALTER TABLE … ADD COLUMN, UNIQUE constraints, …) raises 0A000 naming it.

Names are kept as written (unquoted words folded to lower case); embedded queries, column types, DEFAULT and
index key expressions are kept as source text, with the offset of a query in the statement so that the planner
can report positions in the whole statement. `render(stmt)` prints a CREATE statement back as SQL, so that
`parse_materialize_ddl(render(s)) == s` for the normalized statements the planner stores as `create_sql`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Literal

from sparkwire import errors as e
from sparkwire.planner.grammar import cluster as c
from sparkwire.planner.grammar.cluster import ClusterStatement
from sparkwire.planner.grammar.ddl_parser import DdlParser, Name, RelationKind, quote, relation_kind
from sparkwire.planner.grammar.show import ShowStatement, parse_show
from sparkwire.planner.grammar.sources import CreateSource, parse_create_source

DropKind = Literal["table", "view", "materialized-view", "index", "schema", "source"]



@dataclass(frozen=True, slots=True)
class ColumnDef:
    name: str
    type_name: str  # as written: "character varying(10)", "int[]"
    type_position: int  # 1-based, for errors about the type
    not_null: bool = False
    default: str | None = None  # SQL text
    primary_key: bool = False


@dataclass(frozen=True, slots=True)
class CreateTable:
    """CREATE TABLE name (columns…) or, with `query`, CREATE TABLE name [(column names)] AS query."""

    name: Name
    columns: tuple[ColumnDef, ...] = ()
    primary_key: tuple[str, ...] = ()  # from a table constraint
    if_not_exists: bool = False
    query: str | None = None
    query_offset: int = 0
    column_names: tuple[str, ...] = ()  # CREATE TABLE t (a, b) AS …


@dataclass(frozen=True, slots=True)
class CreateView:
    name: Name
    query: str
    query_offset: int = 0
    columns: tuple[str, ...] = ()
    materialized: bool = False
    replace: bool = False
    if_not_exists: bool = False
    cluster: str | None = None


@dataclass(frozen=True, slots=True)
class CreateIndex:
    """`keys` None is CREATE DEFAULT INDEX; () is the empty key `ON t ()`. `unique`: CREATE UNIQUE INDEX."""

    on: Name
    keys: tuple[str, ...] | None
    name: str | None = None
    if_not_exists: bool = False
    cluster: str | None = None
    unique: bool = False


@dataclass(frozen=True, slots=True)
class CreateSchema:
    name: Name  # (schema,) or (database, schema)
    if_not_exists: bool = False


@dataclass(frozen=True, slots=True)
class DropObjects:
    kind: DropKind
    names: tuple[Name, ...]
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True, slots=True)
class AlterRename:
    kind: RelationKind
    name: Name
    new_name: str
    if_exists: bool = False


DdlStatement = (
    CreateTable | CreateView | CreateIndex | CreateSchema | DropObjects | AlterRename | ClusterStatement | CreateSource
)
Statement = DdlStatement | ShowStatement

# Words that end a column type or a DEFAULT expression inside a column definition.
_CONSTRAINT_WORDS = frozenset(
    {"constraint", "not", "null", "default", "primary", "unique", "check", "references", "generated", "collate"}
)
_SERIAL_TYPES = frozenset({"serial", "serial2", "serial4", "serial8", "smallserial", "bigserial"})
# CREATE <word> statements that are other modules' business.
_NOT_OURS_CREATE = frozenset({"role", "user", "group", "database"})
_NOT_OURS_DROP = frozenset({"role", "user", "group", "database", "owned"})
_NOT_OURS_ALTER = frozenset({"role", "user", "group", "database", "system", "default"})
# Other objects PostgreSQL or Materialize create: 0A000 rather than a syntax error.
_OTHER_OBJECT_WORDS = """sequence type function procedure trigger extension domain aggregate operator cast
    collation conversion
    policy rule publication subscription server tablespace language statistics foreign event unlogged unique
    source sink connection secret continual network access transform"""
_OTHER_OBJECTS = frozenset(_OTHER_OBJECT_WORDS.split())


def _unsupported(what: str) -> e.PgError:
    return e.FeatureNotSupported(f"{what} is not supported")


# ---- CREATE -----------------------------------------------------------------------------------------------


def _column_constraints(p: DdlParser, column: ColumnDef) -> ColumnDef:
    while (w := p.word()) is not None and w in _CONSTRAINT_WORDS:
        if p.accept("constraint"):
            p.name()
            continue
        if p.accept("not", "null"):
            column = dataclasses.replace(column, not_null=True)
        elif p.accept("null"):
            pass
        elif p.accept("default"):
            default, _ = p.source_until(_CONSTRAINT_WORDS, first_free=True)
            column = dataclasses.replace(column, default=default)
        elif p.accept("primary", "key"):
            column = dataclasses.replace(column, primary_key=True, not_null=True)
        elif w in ("unique", "check", "references"):
            raise e.FeatureNotSupported(f"{w.upper()} constraints are not supported")
        elif w == "generated":
            raise e.FeatureNotSupported("generated columns are not supported")
        elif w == "collate":
            raise _unsupported("COLLATE")
        else:
            raise p.error()
    return column


def _table_constraint(p: DdlParser) -> tuple[str, ...]:
    if p.accept("constraint"):
        p.name()
    if p.accept("primary", "key"):
        return p.name_list()
    w = p.word()
    if w in ("unique", "check", "exclude"):
        raise e.FeatureNotSupported(f"{w.upper()} constraints are not supported")
    if p.at("foreign", "key"):
        raise e.FeatureNotSupported("FOREIGN KEY constraints are not supported")
    raise p.error()


def _table_elements(p: DdlParser) -> tuple[list[ColumnDef], list[tuple[str, ...]]]:
    """The column definitions and the PRIMARY KEY table constraints of `( … )`."""
    columns: list[ColumnDef] = []
    keys: list[tuple[str, ...]] = []
    p.expect_op("(")
    if p.accept_op(")"):
        return columns, keys
    while True:
        w = p.word()
        if w in ("constraint", "primary", "unique", "check", "exclude") or p.at("foreign", "key"):
            keys.append(_table_constraint(p))
        else:
            name = p.name()
            t = p.peek()
            if t is not None and t.kind == "word" and t.text in _SERIAL_TYPES:
                raise e.FeatureNotSupported(
                    f'type "{t.text}" is not supported',
                    hint="Declare the column as integer or bigint and insert its values explicitly.",
                    position=t.start + 1,
                )
            if t is not None and t.kind == "word" and t.text == "like":
                raise _unsupported("CREATE TABLE … (LIKE …)")
            type_name, position = p.source_until(_CONSTRAINT_WORDS)
            columns.append(_column_constraints(p, ColumnDef(name, type_name, position)))
        if p.accept_op(")"):
            return columns, keys
        p.expect_op(",")


def _create_table(p: DdlParser) -> CreateTable:
    if_not_exists = p.accept("if", "not", "exists")
    name = p.object_name()
    if p.at("as") or (p.at_op("(") and _is_name_list(p)):
        column_names = p.name_list() if p.at_op("(") else ()
        p.expect("as")
        query, offset = p.query_rest()
        return CreateTable(
            name, if_not_exists=if_not_exists, query=query, query_offset=offset, column_names=column_names
        )
    columns, keys = _table_elements(p)
    for word in ("with", "partition", "inherits", "tablespace", "using", "on"):
        if p.at(word):
            raise _unsupported(f"CREATE TABLE … {word.upper()}")
    p.end()
    if len(keys) + sum(c.primary_key for c in columns) > 1:
        raise e.InvalidTableDefinition(f'multiple primary keys for table "{name.name}" are not allowed')
    return CreateTable(name, tuple(columns), keys[0] if keys else (), if_not_exists)


def _is_name_list(p: DdlParser) -> bool:
    """`(a, b) AS` (CTAS column names) rather than `(a int, …)` (column definitions)."""
    j = p.i + 1
    while j + 1 < len(p.tokens):
        t, n = p.tokens[j], p.tokens[j + 1]
        if t.kind not in ("word", "ident") or n.kind != "op" or n.text not in ",)":
            return False
        if n.text == ")":
            after = p.tokens[j + 2] if j + 2 < len(p.tokens) else None
            return after is not None and after.kind == "word" and after.text == "as"
        j += 2
    return False


def _in_cluster(p: DdlParser) -> str | None:
    return p.name() if p.accept("in", "cluster") else None


def _create_view(p: DdlParser, *, materialized: bool, replace: bool) -> CreateView:
    if_not_exists = p.accept("if", "not", "exists")
    if if_not_exists and replace:
        raise e.SyntaxError("cannot specify both OR REPLACE and IF NOT EXISTS")
    name = p.object_name()
    columns = p.name_list() if p.at_op("(") else ()
    cluster = _in_cluster(p) if materialized else None
    if materialized and p.at("with"):
        raise _unsupported("CREATE MATERIALIZED VIEW … WITH")
    p.expect("as")
    query, offset = p.query_rest()
    return CreateView(name, query, offset, columns, materialized, replace, if_not_exists, cluster)


_KEY_ORDER = re.compile(r"\s+(?:(?:asc|desc)(?:\s+nulls\s+(?:first|last))?|nulls\s+(?:first|last))\s*$", re.I)


def _create_index(p: DdlParser, *, default: bool, unique: bool = False) -> CreateIndex:
    if_not_exists = p.accept("if", "not", "exists")
    name = None if default or p.at("in") or p.at("on") else p.name()
    cluster = _in_cluster(p)
    p.expect("on")
    on = p.object_name()
    if p.accept("using"):
        method = p.name()
        if method != "arrangement":
            raise e.UndefinedObject(f'access method "{method}" does not exist')
    keys: tuple[str, ...] | None = None
    if not default:
        p.expect_op("(")
        found: list[str] = []
        if not p.accept_op(")"):
            while True:
                key, _ = p.source_until(frozenset())
                found.append(_KEY_ORDER.sub("", key))  # an arrangement's key has no order
                if p.accept_op(")"):
                    break
                p.expect_op(",")
        keys = tuple(found)
    if p.at("with"):
        raise _unsupported("CREATE INDEX … WITH")
    p.end()
    return CreateIndex(on, keys, name, if_not_exists, cluster, unique)


def _create(p: DdlParser) -> Statement | None:
    replace = p.accept("or", "replace")
    w = p.word()
    if w in ("temp", "temporary"):
        raise _unsupported("CREATE TEMPORARY objects")
    if not replace and w in _NOT_OURS_CREATE:
        return None
    if p.accept("table"):
        return _create_table(p)
    if p.accept("view"):
        return _create_view(p, materialized=False, replace=replace)
    if p.accept("materialized", "view"):
        return _create_view(p, materialized=True, replace=replace)
    if replace:
        raise _unsupported(f"CREATE OR REPLACE {(w or '').upper()}".strip())
    if p.accept("index"):
        return _create_index(p, default=False)
    if p.accept("unique", "index"):
        return _create_index(p, default=False, unique=True)
    if p.accept("default", "index"):
        return _create_index(p, default=True)
    if p.accept("schema"):
        if_not_exists = p.accept("if", "not", "exists")
        name = p.object_name()
        if len(name.parts) > 2:
            raise e.SyntaxError(f"improper qualified name (too many dotted names): {name.written}")
        if p.at("authorization"):
            raise _unsupported("CREATE SCHEMA … AUTHORIZATION")
        p.end()
        return CreateSchema(name, if_not_exists)
    if p.accept("cluster"):
        return c.parse_create(p)
    if p.accept("source"):
        return parse_create_source(p)
    if w not in _OTHER_OBJECTS:
        raise p.error()
    words = [w]
    if w in ("unique", "unlogged", "foreign", "event", "continual", "network"):
        nxt = p.peek(1)
        words.append(nxt.text if nxt is not None and nxt.kind == "word" else "")
    raise _unsupported(" ".join(["CREATE", *(x.upper() for x in words if x)]))


# ---- DROP, ALTER --------------------------------------------------------------------------------------------


def _cascade(p: DdlParser) -> bool:
    cascade = p.accept("cascade")
    if not cascade:
        p.accept("restrict")
    p.end()
    return cascade


def _drop(p: DdlParser) -> Statement | None:
    w = p.word()
    if w in _NOT_OURS_DROP:
        return None
    if p.accept("cluster"):
        return c.parse_drop(p)
    kind: DropKind | None = "schema" if p.accept("schema") else "source" if p.accept("source") else relation_kind(p)
    if kind is None:
        if w is None:
            raise p.error()
        if w not in _OTHER_OBJECTS:
            raise p.error()
        raise _unsupported(f"DROP {w.upper()}")
    if kind == "index" and p.at("concurrently"):
        raise _unsupported("DROP INDEX CONCURRENTLY")
    if_exists = p.accept("if", "exists")
    names = [p.object_name()]
    while p.accept_op(","):
        names.append(p.object_name())
    return DropObjects(kind, tuple(names), if_exists, _cascade(p))


def _alter(p: DdlParser) -> Statement | None:
    w = p.word()
    if w in _NOT_OURS_ALTER:
        return None
    if p.accept("cluster"):
        return c.parse_alter(p)
    kind = relation_kind(p)
    if kind is None:
        if w not in _OTHER_OBJECTS and w != "schema":
            raise p.error()
        raise _unsupported(f"ALTER {w.upper()}")
    if_exists = p.accept("if", "exists")
    name = p.object_name()
    if p.at("owner", "to"):
        return None
    if p.accept("rename", "to"):
        new_name = p.name()
        p.end()
        return AlterRename(kind, name, new_name, if_exists)
    action = " ".join(t.text.upper() for t in p.tokens[p.i : p.i + 2] if t.kind == "word")
    if not action:
        raise p.error()
    written = "MATERIALIZED VIEW" if kind == "materialized-view" else kind.upper()
    raise _unsupported(f"ALTER {written} … {action}")


# ---- entry points --------------------------------------------------------------------------------------------


_HEAD = re.compile(r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*([A-Za-z]+)", re.S)


def parse_materialize_ddl(sql: str) -> Statement | None:
    head = _HEAD.match(sql)
    if head is None:
        return None
    first = head.group(1).lower()
    if first not in ("create", "drop", "alter", "show"):
        return None
    p = DdlParser(sql)
    p.i = 1
    if first == "create":
        return _create(p)
    if first == "drop":
        return _drop(p)
    if first == "alter":
        return _alter(p)
    return parse_show(p)


def render(stmt: CreateTable | CreateView | CreateIndex) -> str:
    """A CREATE statement as SQL (the planner's normalized `create_sql`)."""
    match stmt:
        case CreateTable(query=None):
            elements = [_render_column(c) for c in stmt.columns]
            if stmt.primary_key:
                elements.append(f"PRIMARY KEY ({', '.join(quote(c) for c in stmt.primary_key)})")
            return f"CREATE TABLE {stmt.name.sql()} ({', '.join(elements)})"
        case CreateTable():
            names = f" ({', '.join(quote(c) for c in stmt.column_names)})" if stmt.column_names else ""
            return f"CREATE TABLE {stmt.name.sql()}{names} AS {stmt.query}"
        case CreateView():
            kind = "MATERIALIZED VIEW" if stmt.materialized else "VIEW"
            columns = f" ({', '.join(quote(c) for c in stmt.columns)})" if stmt.columns else ""
            cluster = f" IN CLUSTER {quote(stmt.cluster)}" if stmt.cluster else ""
            return f"CREATE {kind} {stmt.name.sql()}{columns}{cluster} AS {stmt.query}"
        case CreateIndex():
            cluster = f" IN CLUSTER {quote(stmt.cluster)}" if stmt.cluster else ""
            if stmt.keys is None:
                return f"CREATE DEFAULT INDEX{cluster} ON {stmt.on.sql()}"
            name = f" {quote(stmt.name)}" if stmt.name else ""
            unique = " UNIQUE" if stmt.unique else ""
            return f"CREATE{unique} INDEX{name}{cluster} ON {stmt.on.sql()} ({', '.join(stmt.keys)})"


def _render_column(column: ColumnDef) -> str:
    parts = [quote(column.name), column.type_name]
    if column.not_null:
        parts.append("NOT NULL")
    if column.default is not None:
        parts.append(f"DEFAULT {column.default}")
    if column.primary_key:
        parts.append("PRIMARY KEY")
    return " ".join(parts)
