"""The sqlglot pass that points PostgreSQL catalog SQL at the introspection store.

Contract: every function here is a pure node transform `(node, ctx) → node` for `translate_duckdb.TRANSFORMS` (`ctx`
needs only `schema`, the session's current schema):
- `builtin_tables`: a table named `pg_catalog.X`, or an unqualified `X` that is not a CTE in scope, where X is a
  builtin relation → the store's table (see tables.py for the naming), aliased X when it was qualified, so that
  columns written `pg_catalog.X.col` (SQLAlchemy does) become `X.col`; pg_settings becomes a subquery whose
  `setting` is `current_setting(name, true)` (so this pass runs before the session-function pass); a builtin
  relation, a builtin schema or the store itself as the target of INSERT/UPDATE/DELETE/CREATE/DROP/ALTER/TRUNCATE →
  42501, as in Materialize.
- `catalog_functions`: to_regtype, to_regclass, format_type, pg_get_userbyid, pg_encoding_to_char,
  pg_type_is_visible → the store's UDFs (functions.py); current_schemas(bool) → the schema list.
- `object_casts`: `'name'::regtype` / `'name'::regclass` resolve while planning (42704 / 42P01 for unknown names, as
  PostgreSQL); `x::regtype::text` / `x::regclass::text` print names; any other cast to an OID alias type (regtype,
  regclass, regproc, regnamespace, …) is a cast to the OID's value.
- `operators`: `OPERATOR(pg_catalog.op)` → the plain operator; `collations`: `COLLATE pg_catalog.default` (and
  default, "C", "POSIX") are dropped: DuckDB compares binary, which is what those collations mean here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.builtins_pg import PG_SETTINGS
from sparkwire.engine.introspection import functions as f
from sparkwire.engine.introspection.relations import RELATIONS
from sparkwire.engine.introspection.tables import STORE_CATALOG, engine_name


class Context(Protocol):
    @property
    def schema(self) -> str: ...


_BUILTIN_SCHEMAS = frozenset({"pg_catalog", "information_schema", "mz_catalog", "mz_internal"})
_IMPLICIT = {rel.name: rel for rel in RELATIONS if rel.schema in IMPLICIT_SEARCH_SCHEMAS}
_QUALIFIED = {(rel.schema, rel.name): rel for rel in RELATIONS}
_PG_SETTINGS_COLUMNS = _QUALIFIED["pg_catalog", PG_SETTINGS].columns
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


def builtin_tables(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.Column):
        return _qualified_column(node)
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


_UDF_FUNCTIONS = (frozenset(f.UDFS) | frozenset(f.STATE_UDFS)) - {"regtype_out", "regclass_out"}


def _current_schemas_flag(node: exp.Expression) -> exp.Expression | None:
    """The argument of current_schemas(bool) (sqlglot parses `pg_catalog.current_schemas(…)` as Anonymous)."""
    if isinstance(node, exp.CurrentSchemas) and isinstance(node.this, exp.Expression):
        return node.this
    if isinstance(node, exp.Anonymous) and node.name.lower() == "current_schemas" and len(node.expressions) == 1:
        flag = node.expressions[0]
        return flag if isinstance(flag, exp.Expression) else None
    return None


def catalog_functions(node: exp.Expression, ctx: Context) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() in _UDF_FUNCTIONS:
        return exp.Anonymous(this=f.udf_name(node.name.lower()), expressions=list(node.expressions))
    flag = _current_schemas_flag(node)
    if flag is not None:
        implicit = [*IMPLICIT_SEARCH_SCHEMAS, ctx.schema]
        with_implicit = exp.Array(expressions=[exp.Literal.string(s) for s in implicit])
        plain = exp.Array(expressions=[exp.Literal.string(ctx.schema)])
        if isinstance(flag, exp.Boolean):
            return with_implicit if flag.this else plain
        return exp.If(this=flag, true=with_implicit, false=plain)
    return node


_OBJECT_TYPES: dict[str, tuple[Callable[[str], int], str]] = {
    "REGTYPE": (f.lookup_type, "regtype_out"),
    "REGCLASS": (f.lookup_relation, "regclass_out"),
}


def _object_type(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Cast) and isinstance(node.to, exp.ObjectIdentifier):
        return node.to.name.upper()
    return None


def _oid_of(cast: exp.Cast, kind: str) -> exp.Expression:
    value = cast.this
    if kind in _OBJECT_TYPES and isinstance(value, exp.Literal) and value.is_string:
        return exp.Literal.number(_OBJECT_TYPES[kind][0](value.this))
    return exp.Cast(this=value, to=exp.DataType.build("UINTEGER", dialect="duckdb"))


def object_casts(node: exp.Expression, ctx: Context) -> exp.Expression:
    if not isinstance(node, exp.Cast):
        return node
    kind = _object_type(node)
    if kind is not None:
        return _oid_of(node, kind)
    inner = node.this
    inner_kind = _object_type(inner)
    if (
        isinstance(inner, exp.Cast)
        and inner_kind in _OBJECT_TYPES
        and isinstance(node.to, exp.DataType)
        and node.to.is_type(exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR)
    ):
        out_function = _OBJECT_TYPES[inner_kind][1]
        oid = _oid_of(inner, inner_kind)
        if isinstance(oid, exp.Literal):
            return exp.Literal.string(str(f.UDFS[out_function].fn(int(oid.this))))
        return exp.Anonymous(this=f.udf_name(out_function), expressions=[inner.this])
    return node


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
TRANSFORMS = (builtin_tables, catalog_functions, object_casts, operators, collations)
