"""The sqlglot pass that points PostgreSQL catalog SQL at the introspection store.

Contract: every function here is a pure node transform `(node, ctx) → node` for `translate.duckdb.TRANSFORMS` (`ctx`
needs only `database` and `schema`, the session's current database and schema):
- `reg_outputs`: the statement's own result columns of type regclass / regtype / regnamespace / regrole (casts,
  to_regclass, to_regtype) print names, as PostgreSQL prints them; ORDER BY such a column orders by OID. Arrays of
  them print names too, reported as text[].
- `fold_identifiers`: unquoted identifiers fold to lower case, as PostgreSQL folds them (DuckDB keeps their case,
  which shows in result column names: `SELECT 1 AS TABLE_SCHEM` is column `table_schem`).
- `builtin_tables`: a table named `pg_catalog.X`, or an unqualified `X` that is not a CTE in scope, where X is a
  builtin relation → the store's table (see tables.py for the naming), aliased X when it was qualified, so that
  columns written `pg_catalog.X.col` (SQLAlchemy does) become `X.col`; pg_settings becomes a subquery whose
  `setting` is `current_setting(name, true)` (so this pass runs before the session-function pass); a builtin
  relation, a builtin schema or the store itself as the target of INSERT/UPDATE/DELETE/CREATE/DROP/ALTER/TRUNCATE →
  42501, as in Materialize; a table function written `pg_catalog.f(…)` (psql's `pg_catalog.unnest`) → `f(…)`.
- `catalog_functions`: to_regtype, to_regclass, format_type, pg_get_userbyid, pg_encoding_to_char,
  pg_type_is_visible, pg_get_function_result, … → the store's UDFs (functions.py), also when written
  `pg_catalog.f(…)`; pg_get_expr(expr, rel) → expr; information_schema._pg_expandarray(a) → zipped UNNESTs;
  pg_table_is_visible(oid) → the UDF with the session's database and search path; array_lower / array_upper → the
  bound of dimension 1; json_build_object → DuckDB's json_object;
  current_schemas(bool) → the schema list; pg_get_indexdef / pg_get_constraintdef / pg_get_viewdef with their
  optional arguments (the session's schema decides what pretty mode leaves unqualified).
- `qualified_types`: a cast to a schema-qualified builtin type (`x::pg_catalog.regtype`, `::pg_catalog.text`, as
  psql writes them) → the same cast to the unqualified type.
- `object_casts`: `'name'::regtype` and `'name'::regclass` of a builtin relation resolve while planning (42704 for
  unknown types, as PostgreSQL); `'name'::regclass` of another name resolves in the catalog when it runs (42P01
  when unknown), as does `$n::regclass` (`$n::regtype`: NULL when unknown); `x::regtype::text` /
  `x::regclass::text` print names; `'name'::regnamespace` / `'name'::regrole` resolve in the catalog when they run
  (3F000 / 42704 when unknown) and print back with `::text`; any other cast to an OID alias type is a cast to the
  OID's value, except regproc, whose value is the function's name (`'pg_catalog.array_in'::regproc` →
  `'array_in'`). Arrays of them (`proargtypes::regtype[]`, `'{int4,text}'::regtype[]`) are lists of OIDs, and
  such an array (also through COALESCE) cast to text[] prints each element's name, as pgcli reads argument types.
- `vectors` (vectors.py): int2vector / oidvector columns subscripted from 0, their bounds, text and elements.
- `regproc_oids` (regprocs.py): regproc columns compared with / cast to OIDs use the function's OID.
- `operators`: `OPERATOR(pg_catalog.op)` → the plain operator; `collations`: `COLLATE pg_catalog.default` (and
  default, "C", "POSIX") are dropped: DuckDB compares binary, which is what those collations mean here.
- `table_functions` (table_functions.py): `pg_get_keywords()` in FROM reads the store's table of its rows;
  `array_literals` (array_literals.py): `'{a,b}'::text[]` is a list DuckDB reads, and `any_literals` the untyped
  `x = ANY('{a,b}')`; `identifier_formats`
  (identifier_formats.py): format()'s `%I` quotes as quote_ident.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import sqlglot
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.relations.pg import PG_SETTINGS
from sparkwire.introspection import functions as f
from sparkwire.introspection.array_literals import any_literals, array_literals
from sparkwire.introspection.identifier_formats import identifier_formats
from sparkwire.introspection.regprocs import regproc_oids
from sparkwire.introspection.relations import RELATIONS
from sparkwire.introspection.table_functions import table_functions
from sparkwire.introspection.tables import STORE_CATALOG, engine_name
from sparkwire.introspection.vectors import vectors
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_text


class Context(Protocol):
    @property
    def database(self) -> str: ...

    @property
    def schema(self) -> str: ...

    @property
    def search_path(self) -> tuple[str, ...]: ...


_BUILTIN_SCHEMAS = frozenset({"pg_catalog", "information_schema", "mz_catalog", "mz_internal"})
_IMPLICIT = {rel.name: rel for rel in RELATIONS if rel.schema in IMPLICIT_SEARCH_SCHEMAS}
_QUALIFIED = {(rel.schema, rel.name): rel for rel in RELATIONS}
_PG_SETTINGS_COLUMNS = _QUALIFIED["pg_catalog", PG_SETTINGS].columns
_TEXT_ARRAY = 1009
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Create, exp.Drop, exp.Alter, exp.TruncateTable)


def _cte_names(node: exp.Expression) -> set[str]:
    names: set[str] = set()
    for ancestor in _ancestors(node):
        with_ = ancestor.args.get("with_") or ancestor.args.get("with")
        if isinstance(with_, exp.With):
            names.update(cte.alias_or_name for cte in with_.expressions)
    return names


def _ancestors(node: exp.Expression) -> list[exp.Expr]:
    out: list[exp.Expr] = []
    parent = node.parent
    while parent is not None:
        out.append(parent)
        parent = parent.parent
    return out


def _write_statement(table: exp.Table) -> exp.Expression | None:
    """The statement that writes `table` (it is its target), else None."""
    node: exp.Expression = table
    parent = table.parent
    if isinstance(parent, exp.Schema) and table.arg_key == "this":
        node, parent = parent, parent.parent
    if isinstance(parent, _WRITES) and node.arg_key in ("this", "tables", "expressions"):
        return parent
    return None


def _check_writable(table: exp.Table, builtin: bool) -> None:
    statement = _write_statement(table)
    if statement is None:
        return
    schema = table.db.lower()
    protected = builtin or schema in _BUILTIN_SCHEMAS or table.catalog.lower() == STORE_CATALOG
    if not protected:
        return
    if isinstance(statement, exp.Create) and not builtin:
        raise e.InsufficientPrivilege(f'permission denied to create "{schema}.{table.name}"')
    raise e.InsufficientPrivilege(f"permission denied for table {table.name}")


def _qualified_column(node: exp.Column) -> exp.Expression:
    """`pg_catalog.pg_type.oid` → `pg_type.oid`: the routed table keeps its name as its alias."""
    if node.db and node.catalog == "" and (node.db, node.table) in _QUALIFIED:
        return exp.Column(this=node.this, table=exp.to_identifier(node.table))
    return node


def fold_identifiers(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.Identifier) and not node.quoted and node.this != node.this.lower():
        return exp.Identifier(this=node.this.lower(), quoted=False)
    return node


def builtin_tables(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.Column):
        return _qualified_column(node)
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Func) and node.db.lower() == "pg_catalog":
        unqualified = node.copy()
        unqualified.set("db", None)
        return unqualified
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier) or node.catalog:
        _check_catalog_write(node)
        return node
    name, schema = node.name, node.db
    in_cte = not schema and name in _cte_names(node)
    rel = None if in_cte else _QUALIFIED.get((schema, name)) if schema else _IMPLICIT.get(name)
    _check_writable(node, rel is not None)
    if rel is None:
        return node
    routed = node.copy()
    # `(a JOIN b ON …)` hangs the joins on table a: the pass does not revisit what a replaced node holds
    routed.set("joins", [join.transform(builtin_tables, ctx) for join in routed.args.get("joins") or []] or None)
    routed.set("catalog", exp.to_identifier(STORE_CATALOG))
    routed.set("db", exp.to_identifier(engine_name(rel.schema)))
    if rel.name == PG_SETTINGS:
        return _settings(routed)
    if not routed.alias and schema:
        routed.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
    return routed


def _settings(table: exp.Table) -> exp.Expression:
    """pg_settings with this session's values: its stored `setting` is NULL, current_setting() fills it in."""
    alias = table.alias or PG_SETTINGS
    table.set("alias", None)
    columns: list[exp.Expr] = [
        exp.alias_(exp.Anonymous(this="current_setting", expressions=[exp.column("name"), exp.true()]), "setting")
        if name == "setting"
        else exp.column(name)
        for name, _ in _PG_SETTINGS_COLUMNS
    ]
    return exp.Subquery(this=exp.select(*columns).from_(table), alias=exp.TableAlias(this=exp.to_identifier(alias)))


def _check_catalog_write(node: exp.Expression) -> None:
    if isinstance(node, exp.Table) and node.catalog:
        _check_writable(node, node.catalog.lower() == STORE_CATALOG)


_UDF_FUNCTIONS = (frozenset(f.UDFS) | frozenset(f.STATE_UDFS)) - {
    "regtype_out",
    "regclass_out",
    "regclass_in",
    "to_regclass",
    "pg_get_viewdef",
    "regproc_oid",
    "regnamespace_in",
    "regnamespace_out",
    "regrole_in",
    "regrole_out",
    "pg_table_is_visible",
}


# Functions of one argument that also need the session's database and schema (where unqualified names resolve).
_SESSION_SEARCH = frozenset({"to_regclass", "pg_table_is_visible"})


def _current_schemas_flag(node: exp.Expression) -> exp.Expression | None:
    """The argument of current_schemas(bool) (sqlglot parses `pg_catalog.current_schemas(…)` as Anonymous)."""
    if isinstance(node, exp.CurrentSchemas) and isinstance(node.this, exp.Expression):
        return node.this
    if isinstance(node, exp.Anonymous) and node.name.lower() == "current_schemas" and len(node.expressions) == 1:
        flag = node.expressions[0]
        return flag if isinstance(flag, exp.Expression) else None
    return None


def catalog_functions(node: exp.Expression, ctx: Context) -> exp.Expression:
    expanded = _expandarray(node)
    if expanded is not None:
        return expanded
    if isinstance(node, exp.Anonymous) and node.name.lower() == "pg_get_constraintdef" and node.expressions:
        return _udf("pg_get_constraintdef", *[*node.expressions, exp.false()][:2])
    if isinstance(node, exp.Anonymous) and node.name.lower() == "obj_description" and len(node.expressions) == 1:
        return _udf("obj_description", node.expressions[0].transform(catalog_functions, ctx), exp.null())
    if isinstance(node, exp.Anonymous) and node.name.lower() == "pg_get_indexdef":
        oid, column, pretty = [*node.expressions, exp.Literal.number(0), exp.false()][:3]
        return _udf("pg_get_indexdef", oid, column, pretty, exp.Literal.string(ctx.schema))
    if isinstance(node, exp.Dot) and isinstance(node.this, exp.Identifier) and node.this.name.lower() == "pg_catalog":
        called = node.expression
        return catalog_functions(called, ctx) if isinstance(called, exp.Anonymous) else node
    if isinstance(node, exp.Anonymous) and node.name.lower() in _UDF_FUNCTIONS:
        name = node.name.lower()
        arity = len((f.UDFS.get(name) or f.STATE_UDFS[name]).params)
        # trailing optional flags (`pretty`) change nothing here; the arguments are not revisited by the pass
        return _udf(name, *(arg.transform(catalog_functions, ctx) for arg in node.expressions[:arity]))
    if isinstance(node, exp.Anonymous) and node.name.lower() in ("array_lower", "array_upper"):
        return _array_bound(node)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "json_build_object":
        return exp.Anonymous(this="json_object", expressions=list(node.expressions))
    if isinstance(node, exp.Anonymous) and node.name.lower() in _SESSION_SEARCH and len(node.expressions) == 1:
        return _udf(node.name.lower(), node.expressions[0].transform(catalog_functions, ctx), *_session_args(ctx))
    if isinstance(node, exp.Anonymous) and node.name.lower() == "pg_get_expr" and len(node.expressions) >= 2:
        return exp.Cast(this=node.expressions[0], to=exp.DataType.build("VARCHAR", dialect="duckdb"))
    if isinstance(node, exp.Anonymous) and node.name.lower() == "pg_get_viewdef" and node.expressions:
        second = node.expressions[1] if len(node.expressions) > 1 else exp.false()
        wrap = second if isinstance(second, exp.Literal) and not second.is_string else exp.Literal.number(0)
        pretty = exp.true() if wrap is second else second  # pg_get_viewdef(oid, wrap_column) is pretty
        return _udf("pg_get_viewdef", _relation_oid(node.expressions[0], ctx), pretty, wrap)
    flag = _current_schemas_flag(node)
    if flag is not None:
        searched = list(ctx.search_path)
        implicit = [*(s for s in IMPLICIT_SEARCH_SCHEMAS if s not in searched), *searched]
        with_implicit = exp.Array(expressions=[exp.Literal.string(s) for s in implicit])
        plain = exp.Array(expressions=[exp.Literal.string(s) for s in searched])
        if isinstance(flag, exp.Boolean):
            return with_implicit if flag.this else plain
        return exp.If(this=flag, true=with_implicit, false=plain)
    return node


_EXPANDED = sqlglot.parse_one(
    "{'x': UNNEST(sw_array), 'n': CAST(UNNEST(GENERATE_SERIES(1, LEN(sw_array))) AS INTEGER)}", read="duckdb"
)


def _expandarray(node: exp.Expression) -> exp.Expression | None:
    """information_schema._pg_expandarray(a): one (x, n) row per element, as a struct of two zipped UNNESTs
    (DuckDB runs the set-returning calls of one select list in lockstep, as PostgreSQL does)."""
    if isinstance(node, exp.Dot) and isinstance(node.this, exp.Identifier):
        if node.this.name.lower() != "information_schema":
            return None
        node = node.expression
    if not (isinstance(node, exp.Anonymous) and node.name.lower() == "_pg_expandarray" and len(node.expressions) == 1):
        return None
    array = node.expressions[0]
    expanded: exp.Expression = _EXPANDED.transform(
        lambda n: array.copy() if isinstance(n, exp.Column) and n.name == "sw_array" else n
    )
    return expanded


def _array_bound(node: exp.Anonymous) -> exp.Expression:
    """array_lower / array_upper of dimension 1: 1 / the length, NULL for an empty array, int4 (as PostgreSQL)."""
    array, dimension = [*node.expressions, exp.Literal.number(1)][:2]
    length = exp.Anonymous(this="len", expressions=[array])
    bound = exp.Literal.number(1) if node.name.lower() == "array_lower" else length
    first = exp.and_(
        exp.EQ(this=dimension, expression=exp.Literal.number(1)),
        exp.GT(this=length.copy(), expression=exp.Literal.number(0)),
    )
    return exp.Cast(this=exp.Case(ifs=[exp.If(this=first, true=bound)]), to=exp.DataType.build("INTEGER"))


def _relation_oid(arg: exp.Expression, ctx: Context) -> exp.Expression:
    """pg_get_viewdef's argument: an OID, or (its text variant) a relation name."""
    if isinstance(arg, exp.Literal) and arg.is_string:
        return _udf("regclass_in", arg, *_session_args(ctx))
    return arg


def qualified_types(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.USERDEFINED:
        kind = node.args.get("kind")
        if (
            isinstance(kind, exp.Dot)
            and isinstance(kind.this, exp.Identifier)
            and kind.this.name.lower() == "pg_catalog"
        ):
            built: exp.Expression = exp.DataType.build(kind.expression.name, dialect="postgres")
            return built
    return node


def _object_type(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Cast) and isinstance(node.to, exp.ObjectIdentifier):
        return node.to.name.upper()
    return None


def _session_args(ctx: Context) -> list[exp.Expression]:
    """The session's database and search path, where unqualified relation names resolve."""
    return [exp.Literal.string(ctx.database), exp.Literal.string(f.SEARCH_SEPARATOR.join(ctx.search_path))]


def _udf(function: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=f.udf_name(function), expressions=list(args))


def _oid_of(cast: exp.Cast, kind: str, ctx: Context) -> exp.Expression:
    """The OID a cast to an OID alias type denotes: a number for names resolved while planning."""
    value = cast.this
    if isinstance(value, exp.Literal) and value.is_string and kind == "REGTYPE":
        return exp.Literal.number(f.lookup_type(value.this))
    if isinstance(value, exp.Literal) and value.is_string and kind == "REGCLASS":
        builtin = f.lookup_relation(value.this)
        if builtin is not None:
            return exp.Literal.number(builtin)
        return _udf("regclass_in", value, *_session_args(ctx))
    if isinstance(value, exp.Literal | exp.Parameter | exp.Placeholder) and kind in _NAMED_IN:
        if isinstance(value, exp.Literal) and not value.is_string:
            return exp.Cast(this=value, to=exp.DataType.build("UINTEGER", dialect="duckdb"))
        args = [value] + ([exp.Literal.string(ctx.database)] if kind == "REGNAMESPACE" else [])
        return _udf(_NAMED_IN[kind], *args)
    inner_kind = _object_type(value)
    if isinstance(value, exp.Cast) and inner_kind is not None:
        return _oid_of(value, inner_kind, ctx)
    value = value.transform(object_casts, ctx)  # the pass does not revisit what a replaced node holds
    if isinstance(value, exp.Parameter | exp.Placeholder) and kind in ("REGCLASS", "REGTYPE"):
        # a parameter is an object's name (the planner types it text)
        if kind == "REGCLASS":
            return _udf("regclass_in", value, *_session_args(ctx))
        return _udf("to_regtype", value)
    if kind == "REGPROC":  # the store holds regproc columns as the function's name (see tables.py)
        return _unqualified_function(value)
    return exp.Cast(this=value, to=exp.DataType.build("UINTEGER", dialect="duckdb"))


def _unqualified_function(value: exp.Expression) -> exp.Expression:
    if isinstance(value, exp.Literal) and value.is_string and value.this.lower().startswith("pg_catalog."):
        return exp.Literal.string(value.this[len("pg_catalog.") :])
    return value


_NAMED_IN = {"REGNAMESPACE": "regnamespace_in", "REGROLE": "regrole_in"}
_NAMED_OUT = {"REGNAMESPACE": "regnamespace_out", "REGROLE": "regrole_out"}


def _printed(oid: exp.Expression, kind: str, ctx: Context) -> exp.Expression:
    """`::regtype::text` / `::regclass::text` / `::regnamespace::text` / `::regrole::text` of an OID expression."""
    if kind in _NAMED_OUT:
        return _udf(_NAMED_OUT[kind], oid)
    if kind == "REGTYPE":
        if isinstance(oid, exp.Literal):
            return exp.Literal.string(str(f.regtype_out(int(oid.this))))
        return _udf("regtype_out", oid)
    return _udf("regclass_out", oid, *_session_args(ctx))


def _object_array_type(node: exp.Expression) -> str | None:
    """The OID alias type of the elements of `x::regtype[]`, `COALESCE(a::regtype[], b::regtype[])`, else None."""
    if isinstance(node, exp.Paren):
        return _object_array_type(node.this)
    if isinstance(node, exp.Coalesce):
        kinds = {_object_array_type(arg) for arg in [node.this, *node.expressions]}
        return kinds.pop() if len(kinds) == 1 else None
    to = node.to if isinstance(node, exp.Cast) else None
    if isinstance(to, exp.DataType) and to.is_type(exp.DataType.Type.ARRAY) and len(to.expressions) == 1:
        element = to.expressions[0]
        return element.name.upper() if isinstance(element, exp.ObjectIdentifier) else None
    return None


def _oid_array(node: exp.Cast, kind: str, ctx: Context) -> exp.Expression:
    """`x::regtype[]`: the list of OIDs (a text literal's elements are names, resolved as `'name'::regtype` is)."""
    value = node.this
    if isinstance(value, exp.Literal) and value.is_string:
        elements = decode_text(value.this, _TEXT_ARRAY, EncodeOptions())
        if isinstance(elements, list) and not any(isinstance(element, list) for element in elements):
            oids = [
                exp.null() if element is None else
                _oid_of(exp.Cast(this=exp.Literal.string(str(element)), to=exp.ObjectIdentifier(this=kind)), kind, ctx)
                for element in elements
            ]
            return exp.Cast(this=exp.Array(expressions=oids), to=exp.DataType.build("UINTEGER[]", dialect="duckdb"))
    value = value.transform(object_casts, ctx)
    return exp.Cast(this=value, to=exp.DataType.build("UINTEGER[]", dialect="duckdb"))


def _printed_array(node: exp.Expression, kind: str, ctx: Context) -> exp.Expression:
    """`(…regtype[])::text[]`: each element's name (`-` for 0), as PostgreSQL's array output of regtype prints."""
    oids = node.transform(object_casts, ctx)
    element = exp.column("sw_oid")
    printed = _printed(element, kind, ctx)
    return exp.Anonymous(
        this="list_transform", expressions=[oids, exp.Lambda(this=printed, expressions=[exp.to_identifier("sw_oid")])]
    )


def object_casts(node: exp.Expression, ctx: Context) -> exp.Expression:
    if not isinstance(node, exp.Cast):
        return node
    kind = _object_type(node)
    if kind is not None:
        return _oid_of(node, kind, ctx)
    array_kind = _object_array_type(node)
    if array_kind is not None:
        return _oid_array(node, array_kind, ctx)
    inner_array_kind = _object_array_type(node.this)
    if (
        inner_array_kind in ("REGTYPE", "REGCLASS", *_NAMED_OUT)
        and node.to.is_type(exp.DataType.Type.ARRAY)
        and len(node.to.expressions) == 1
        and node.to.expressions[0].is_type(exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR)
    ):
        return _printed_array(node.this, str(inner_array_kind), ctx)
    inner = node.this
    inner_kind = _object_type(inner)
    if (
        isinstance(inner, exp.Cast)
        and inner_kind in ("REGTYPE", "REGCLASS", *_NAMED_OUT)
        and isinstance(node.to, exp.DataType)
        and node.to.is_type(exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR)
    ):
        return _printed(_oid_of(inner, inner_kind, ctx), inner_kind, ctx)
    return node


_PRINTED_KINDS = frozenset({"REGCLASS", "REGTYPE", "REGNAMESPACE", "REGROLE"})
_PRINTED_FUNCTIONS = {"to_regclass": "REGCLASS", "to_regtype": "REGTYPE"}


def _printed_kind(node: exp.Expression) -> str | None:
    """The OID alias type a result column of this expression has, when PostgreSQL prints it as a name."""
    kind = _object_type(node)
    if kind in _PRINTED_KINDS:
        return kind
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):
        node = node.expression
    if isinstance(node, exp.Anonymous):
        return _PRINTED_FUNCTIONS.get(node.name.lower())
    return None


def reg_outputs(node: exp.Expression, ctx: Context) -> exp.Expression:
    """The statement's own result columns of type regclass / regtype print names, as PostgreSQL prints them
    (`oid::regclass` → `pg_class`, `to_regtype('int4')` → `integer`): each becomes `(…)::regclass::text`, which
    `object_casts` prints. ORDER BY a position or alias of such a column keeps ordering by the OID."""
    if not (isinstance(node, exp.Select) and node.parent is None):
        return node
    replaced: dict[int, exp.Expression] = {}
    for i, projection in enumerate(node.expressions):
        value = projection.unalias()
        if _object_array_type(value) in _PRINTED_KINDS:  # `x::regtype[]` prints names too (typed text[] here)
            value.replace(exp.Cast(this=value.copy(), to=exp.DataType.build("TEXT[]")))
            continue
        kind = _printed_kind(value)
        if kind is None:
            continue
        replaced[i] = value.copy()
        as_type = (
            value
            if _object_type(value)
            else exp.Cast(this=value.copy(), to=exp.DataType.build(kind, dialect="postgres"))
        )
        printed = exp.Cast(this=as_type.copy(), to=exp.DataType.build("TEXT"))
        value.replace(printed)
    if replaced:
        _order_by_oids(node, replaced)
    return node


def _order_by_oids(select: exp.Select, replaced: dict[int, exp.Expression]) -> None:
    aliases = {
        select.expressions[i].alias.lower(): value for i, value in replaced.items() if select.expressions[i].alias
    }
    order = select.args.get("order")
    for ordered in order.expressions if isinstance(order, exp.Order) else ():
        key = ordered.this
        if isinstance(key, exp.Literal) and not key.is_string and int(key.this) - 1 in replaced:
            key.replace(replaced[int(key.this) - 1].copy())
        elif isinstance(key, exp.Column) and not key.table and key.name.lower() in aliases:
            key.replace(aliases[key.name.lower()].copy())


_OPERATORS: dict[str, Callable[[exp.Expression, exp.Expression], exp.Expression]] = {
    "~": lambda a, b: exp.RegexpLike(this=a, expression=b),
    "~*": lambda a, b: exp.RegexpILike(this=a, expression=b),
    "!~": lambda a, b: exp.Not(this=exp.RegexpLike(this=a, expression=b)),
    "!~*": lambda a, b: exp.Not(this=exp.RegexpILike(this=a, expression=b)),
    "=": lambda a, b: exp.EQ(this=a, expression=b),
    "<>": lambda a, b: exp.NEQ(this=a, expression=b),
    "!=": lambda a, b: exp.NEQ(this=a, expression=b),
    "<": lambda a, b: exp.LT(this=a, expression=b),
    "<=": lambda a, b: exp.LTE(this=a, expression=b),
    ">": lambda a, b: exp.GT(this=a, expression=b),
    ">=": lambda a, b: exp.GTE(this=a, expression=b),
    "||": lambda a, b: exp.DPipe(this=a, expression=b),
}
_DROPPED_COLLATIONS = frozenset({"default", "c", "posix"})


def operators(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.Operator):
        operator = str(node.args.get("operator") or "")
        if operator.lower().startswith("pg_catalog."):
            operator = operator[len("pg_catalog.") :]
        build = _OPERATORS.get(operator.strip())
        if build is None:
            raise e.UndefinedFunction(f"operator does not exist: {operator}")
        return build(node.this, node.expression)
    return node


def collations(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.Collate):
        collation = node.expression
        schema = collation.table if isinstance(collation, exp.Column) else ""
        name = collation.name if isinstance(collation, exp.Column | exp.Identifier | exp.Var) else ""
        collated = node.this
        if (
            (schema.lower() == "pg_catalog" or not schema)
            and name.lower() in _DROPPED_COLLATIONS
            and isinstance(collated, exp.Expression)
        ):
            return collated
    return node


# Each runs as its own pass over the tree (a pass does not revisit the children of a node it replaced).
TRANSFORMS = (
    reg_outputs,
    fold_identifiers,
    builtin_tables,
    vectors,
    regproc_oids,
    catalog_functions,
    qualified_types,
    object_casts,
    operators,
    collations,
    table_functions,
    array_literals,
    any_literals,
    identifier_formats,
)
