"""PostgreSQL's result types where the engine's own type is too coarse: the `declared` types of fields.py.

Contract: `declared_types(tree)` gives one (oid, typmod) or None per result column of a top-level SELECT (None
for anything else, and when a `*` cannot be lined up with columns), and fields.py keeps a declared type when the
engine's values fit it. DuckDB holds PostgreSQL's `name`, `"char"`, `regproc` and `pg_node_tree` as VARCHAR and
`xid` as an OID, which would be sent as text and oid; PostgreSQL sends:
- `expr::T` → T (regclass / regtype / regproc projections print names, see rewrite.reg_outputs);
- a column of a builtin relation declared `name`, `"char"`, `"char"[]`, `regproc`, `xid` or `pg_node_tree` →
  that type (aclitem[] columns stay text[]: the registry has no aclitem), and one declared with an
  information_schema domain → the domain's base type, as PostgreSQL describes domains (sql_identifier → name,
  character_data / yes_or_no → character varying); the column is found through the FROM clause's builtin
  relations by qualifier, or unqualified when every FROM item is a builtin relation;
- `*` and `t.*` over builtin relations and pg_catalog's table functions (pg_get_keywords()) → each column as
  above (a `*` over anything else: no declared types);
- the functions PostgreSQL types `name` (current_user, session_user, user, current_role, current_schema,
  current_database, current_catalog, pg_get_userbyid, pg_encoding_to_char) → name, current_schemas → name[];
  to_regclass → regclass, to_regtype → regtype;
- with `columns` (the user relations' column types, for a query over them): a varchar(n) / char(n) column → its
  type and typmod (the engines hold text); a computed projection whose type
  PostgreSQL's rules give (pg_result_types.py: arithmetic, aggregates, window functions, functions registered
  there) → that type, marked `inferred` (typmod INFERRED): it wins over the engine's, and the rows are conformed
  to it (the Spark translation computes the value in that type, translate/spark_pg_types.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.relations.pg import TABLE_FUNCTIONS
from sparkwire.catalog.relations.relation import BuiltinRelation
from sparkwire.introspection.relations import RELATIONS
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.bind.pg_result_types import Columns, column_type, result_type, with_derived
from sparkwire.planner.grammar.dialect import PG

Declared = tuple[int, int] | None

# Not types of their own: a computed projection is typed as the engine types it, except that a numeric result has
# no typmod (PostgreSQL keeps a numeric's typmod only for a column or a cast); a numeric `/` or avg() whose engine
# value is text (the exact quotient with PostgreSQL's scale, translate/*) is numeric. fields.py reads these.
COMPUTED = (1700, -2)
NUMERIC_QUOTIENT = (1700, -3)
# The typmod of a type PostgreSQL's rules give a computed projection (pg_result_types.py): sent with typmod -1.
INFERRED = -4
_TYPMOD_FREE = frozenset({16, 20, 21, 23, 25, 700, 701, 1082, 1114, 1184})  # no typmod: bool, numbers, text, dates


def inferred(declared: Declared) -> bool:
    return declared is not None and declared[1] == INFERRED


NAME, CHAR, REGPROC, VARCHAR, REGCLASS, REGTYPE, NAME_ARRAY, BPCHAR = 19, 18, 24, 1043, 2205, 2206, 1003, 1042
_COLUMN_TYPES: dict[str, int] = {
    "name": NAME,
    '"char"': CHAR,
    "regproc": REGPROC,
    "xid": 28,
    "pg_node_tree": 194,
    '"char"[]': 1002,
    "information_schema.sql_identifier": NAME,
    "information_schema.character_data": VARCHAR,
    "information_schema.yes_or_no": VARCHAR,
}
_NAME_FUNCTIONS = frozenset(
    {"current_user", "session_user", "current_role", "current_schema", "current_database", "current_catalog"}
    | {"pg_get_userbyid", "pg_encoding_to_char"}
)
# written without parentheses, sqlglot reads these as column references
_NAME_KEYWORDS = frozenset({"user", "current_role", "current_schema"})
_FUNCTION_TYPES: dict[str, int] = {name: NAME for name in _NAME_FUNCTIONS} | {
    "to_regclass": REGCLASS,
    "to_regtype": REGTYPE,
    "pg_typeof": REGTYPE,  # its argument's type name (translate/functions/pg_typeof.py)
    "current_schemas": NAME_ARRAY,
    "trim_scale": 1700,  # numeric, each value its own scale: the engine's value is its text (functions/lowering.py)
}
_SPECIAL_FUNCTIONS: tuple[type[exp.Expression], ...] = (
    exp.CurrentUser,
    exp.SessionUser,
    exp.CurrentSchema,
    exp.CurrentDatabase,
    exp.CurrentCatalog,
)
_BY_SCHEMA = {(rel.schema, rel.name): rel for rel in RELATIONS}
_IMPLICIT = {rel.name: rel for rel in RELATIONS if rel.schema in IMPLICIT_SEARCH_SCHEMAS}
_TABLE_FUNCTIONS = {rel.name: rel for rel in TABLE_FUNCTIONS}


def _relation(table: exp.Table) -> BuiltinRelation | None:
    if table.db:
        return _BY_SCHEMA.get((table.db.lower(), table.name.lower()))
    return _IMPLICIT.get(table.name.lower())


def _table_function(source: exp.Expression) -> BuiltinRelation | None:
    """pg_get_keywords() & co. in FROM, declared like relations (relations.pg.TABLE_FUNCTIONS)."""
    if not isinstance(source, exp.Table):
        return None
    call = source.this.expression if isinstance(source.this, exp.Dot) else source.this
    if isinstance(call, exp.Anonymous) and not call.expressions:
        return _TABLE_FUNCTIONS.get(call.name.lower())
    return None


def _scope(select: exp.Select) -> tuple[dict[str, BuiltinRelation], bool] | None:
    """The FROM clause's builtin relations by alias (or name), in order, and whether that is all it holds;
    None when a name there is also a CTE of the statement (the CTE wins)."""
    sources: list[exp.Expression] = []
    from_ = select.args.get("from_") or select.args.get("from")
    if isinstance(from_, exp.From):
        sources.append(from_.this)
    sources += [join.this for join in select.args.get("joins") or ()]
    ctes = {cte.alias_or_name.lower() for cte in select.find_all(exp.CTE)}
    relations: dict[str, BuiltinRelation] = {}
    only_builtin = True
    for source in sources:
        function = _table_function(source)
        if function is not None:
            relations[source.alias_or_name.lower()] = function
            continue
        if not isinstance(source, exp.Table) or not isinstance(source.this, exp.Identifier):
            only_builtin = False
            continue
        if not source.db and source.name.lower() in ctes:
            return None
        found = _relation(source)
        if found is None:
            only_builtin = False
            continue
        relations[source.alias_or_name.lower()] = found
    return relations, only_builtin


def _column_type(rel: BuiltinRelation, column: str) -> Declared:
    for name, pg_type in rel.columns:
        if name == column:
            oid = _COLUMN_TYPES.get(pg_type)
            return (oid, -1) if oid is not None else None
    return None


def _column(node: exp.Column, relations: dict[str, BuiltinRelation], only_builtin: bool) -> Declared:
    name = node.name.lower() if not node.this.quoted else node.name
    if node.table:
        rel = relations.get(node.table.lower())
        return _column_type(rel, name) if rel is not None else None
    if not only_builtin:
        return None
    having = [rel for rel in relations.values() if any(c == name for c, _ in rel.columns)]
    return _column_type(having[0], name) if len(having) == 1 else None


def _function(node: exp.Expression) -> Declared:
    if isinstance(node, _SPECIAL_FUNCTIONS):
        return NAME, -1
    if isinstance(node, exp.CurrentSchemas):
        return NAME_ARRAY, -1
    if isinstance(node, exp.Anonymous):
        oid = _FUNCTION_TYPES.get(node.name.lower())
        return (oid, -1) if oid is not None else None
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):  # pg_catalog.f(…)
        return _function(node.expression)
    return None


def _parsed(spelled: str | None) -> Declared:
    """(oid, typmod) of a PostgreSQL type name, None when it names no type we know."""
    if spelled is None:
        return None
    try:
        pgtype, typmod = parse_type_name(spelled)
    except e.PgError:
        return None
    return pgtype.oid, typmod


def _cast(node: exp.Cast) -> Declared:
    return _parsed(node.to.sql(PG))


def _inferred(node: exp.Expression, columns: Columns) -> Declared:
    found = _parsed(result_type(node, columns))
    return None if found is None else (found[0], INFERRED)


def _character_column(node: exp.Column, columns: Columns) -> Declared:
    """A user relation's varchar(n) / char(n) column keeps its type and typmod (the engines hold both as text)."""
    found = _parsed(column_type(node, columns))
    return found if found is not None and found[0] in (VARCHAR, BPCHAR) else None


def _projection(
    node: exp.Expression,
    relations: dict[str, BuiltinRelation],
    only_builtin: bool,
    columns: Columns | None = None,
    derived: Columns | None = None,
) -> Declared:
    if derived is not None and not isinstance(node, exp.Cast | exp.Column | exp.Literal):
        found = _inferred(node, derived)
        if found is not None:
            return found
    if columns is not None and isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
        declared = _character_column(node, columns)
        if declared is not None:
            return declared
    if (
        columns is not None
        and derived is not None
        and isinstance(node, exp.Column)
        and result_type(node, columns) is None
    ):
        found = _inferred(node, derived)  # a derived table's or CTE's column: typed by PostgreSQL's rules (a
        if found is not None and found[0] in _TYPMOD_FREE:  # numeric or varchar one may keep its column's typmod)
            return found
    if isinstance(node, exp.Cast):
        return _cast(node)
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
        if node.name.lower() in _NAME_KEYWORDS and not node.table and not node.this.quoted:
            return NAME, -1
        return _column(node, relations, only_builtin)
    if isinstance(node, exp.Div | exp.Avg):
        return NUMERIC_QUOTIENT
    declared = _function(node)
    if declared is None and not isinstance(node, exp.Column | exp.Literal | exp.Paren | exp.Subquery):
        return COMPUTED
    return declared


def _star(node: exp.Expression, relations: dict[str, BuiltinRelation], only_builtin: bool) -> list[Declared] | None:
    """The declared types of the columns a `*` / `t.*` stands for; None when they are not all known."""
    if isinstance(node, exp.Star):
        chosen: Iterable[BuiltinRelation] | None = relations.values() if only_builtin else None
    elif isinstance(node, exp.Column):
        rel = relations.get(node.table.lower())
        chosen = [rel] if rel is not None else None
    else:
        chosen = None
    if chosen is None:
        return None
    return [_column_type(rel, name) for rel in chosen for name, _ in rel.columns]


def declared_types(tree: exp.Expression, columns: Columns | None = None) -> tuple[Declared, ...] | None:
    if not isinstance(tree, exp.Select):
        return None
    scope = _scope(tree)
    relations, only_builtin = scope if scope is not None else ({}, False)
    out: list[Declared] = []
    derived = with_derived(tree, columns) if columns is not None else None
    for projection in tree.expressions:
        node = projection.unalias()
        if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
            expanded = _star(node, relations, only_builtin)
            if expanded is None:
                return None
            out += expanded
            continue
        out.append(_projection(node, relations, only_builtin, columns, derived))
    return tuple(out)
