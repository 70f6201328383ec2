"""Result column names as PostgreSQL gives them (its FigureColname rules) for a sqlglot (postgres) projection — the
one place sparkwire names result columns: RowDescription, view columns in the catalog, and the aliases of the Spark
SQL we emit all come from here.

Contract: `column_name(projection)` returns the alias when there is one, else the name PostgreSQL derives: a
column reference → its last field (both folded to lower case unless quoted, as PostgreSQL folds identifiers); a
function call → the function's name (also through OVER, FILTER and WITHIN GROUP); a cast → the inner name if it
has a strong one, else the target type's internal name (`CAST(1 AS int)` → int4); CASE → case; ARRAY[…] → array;
EXISTS → exists; a scalar subquery → its first column's name; an operator expression or a bare constant →
?column?. `None` for `*` projections (the engine names those columns). `projection_names(tree)` names the
projections of a statement's (first) SELECT; `align_names(names, n)` spreads them over n result columns (a `*`
stands for several). `postgres_column_names(query)` names the leftmost SELECT's projections with `*` as "*" (the
Spark translation aliases its outputs with them).

sqlglot folds some spellings into one node (now() and current_timestamp, strpos() and position(), pow() and
power(), substr() and substring()); the spelling is told apart by the length of the function-name token, which
sqlglot keeps in the node's meta only when the function was called by that name. Other folds report the common
spelling: date_part() "extract", ceiling() "ceil", char_length() "length", the operator `^` "power".
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.grammar.dialect import PG

UNNAMED = "?column?"
_NO_NAME = (UNNAMED, 0)

_SPECIAL: dict[type[exp.Expression], str] = {
    exp.CurrentUser: "current_user",
    exp.SessionUser: "session_user",
    exp.CurrentDatabase: "current_database",
    exp.CurrentCatalog: "current_catalog",
    exp.CurrentVersion: "version",
    exp.CurrentSchema: "current_schema",
    exp.CurrentDate: "current_date",
    exp.CurrentTime: "current_time",
    exp.Localtimestamp: "localtimestamp",
    exp.Array: "array",
    exp.Exists: "exists",
    exp.JSONArrayAgg: "json_agg",
    exp.Coalesce: "coalesce",
    exp.Greatest: "greatest",
    exp.Least: "least",
    exp.Nullif: "nullif",
    exp.GenerateSeries: "generate_series",
    exp.ExplodingGenerateSeries: "generate_series",
    exp.Explode: "unnest",
    exp.ArraySize: "array_length",
    exp.GroupConcat: "string_agg",
    exp.TimeToStr: "to_char",
    exp.ToChar: "to_char",
    exp.Extract: "extract",
    exp.Overlaps: "overlaps",
    exp.AtTimeZone: "timezone",  # x AT TIME ZONE z is timezone(z, x)
}
# (the common spelling, {length of the function-name token: the spelling it stands for})
_SPELLINGS: dict[type[exp.Expression], tuple[str, dict[int, str]]] = {
    exp.CurrentTimestamp: ("current_timestamp", {3: "now"}),
    exp.StrPosition: ("position", {6: "strpos"}),
    exp.Pow: ("power", {3: "pow"}),
    exp.Substring: ("substring", {6: "substr"}),
}


def _type_name(datatype: exp.DataType) -> str:
    spelled = datatype.sql(PG)
    try:
        pgtype, _ = parse_type_name(spelled)
    except e.PgError:
        return spelled.split("(")[0].lower()
    return pgtype.name.lstrip("_") if pgtype.is_array else pgtype.name


def _folded(identifier: object, name: str) -> str:
    """PostgreSQL folds unquoted identifiers to lower case."""
    return name.lower() if isinstance(identifier, exp.Identifier) and not identifier.quoted else name


def _figure(node: exp.Expression) -> tuple[str, int]:
    if isinstance(node, exp.Column):
        return (_folded(node.this, node.name), 2) if not isinstance(node.this, exp.Star) else _NO_NAME
    if isinstance(node, exp.Dot):
        return node.name, 2
    if isinstance(node, exp.Paren | exp.Window | exp.Filter | exp.WithinGroup):
        return _figure(node.this)
    if isinstance(node, exp.Bracket):  # `indkey[0]` is named after the subscripted column, as PostgreSQL names it
        return _figure(node.this)
    if isinstance(node, exp.Cast):
        inner = _figure(node.this)
        return inner if inner[1] == 2 else (_type_name(node.to), 1)
    if isinstance(node, exp.Interval):
        return "interval", 1
    if isinstance(node, exp.Case):
        return "case", 1
    if isinstance(node, exp.Subquery):
        inner_select = node.this
        if isinstance(inner_select, exp.Select) and inner_select.expressions:
            first = inner_select.expressions[0]
            return (first.alias, 2) if first.alias else _figure(first)
        return _NO_NAME
    if isinstance(node, exp.Trim):
        position = str(node.args.get("position") or "").upper()
        return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(position, "btrim"), 2
    if isinstance(node, exp.Pad):
        return ("lpad" if node.args.get("is_left") else "rpad"), 2
    spelling = _SPELLINGS.get(type(node))
    if spelling is not None:
        return _spelled(node, *spelling), 2
    if isinstance(node, exp.TimestampTrunc | exp.DateTrunc):
        return "date_trunc", 2
    for cls, name in _SPECIAL.items():
        if isinstance(node, cls):
            return name, 2
    if isinstance(node, exp.Anonymous):
        return node.name.lower(), 2
    if isinstance(node, exp.Func) and not isinstance(node, exp.Binary | exp.Unary | exp.Connector):
        return node.sql_name().lower(), 2
    return _NO_NAME


def _spelled(node: exp.Expression, common: str, by_length: dict[int, str]) -> str:
    start, end = node.meta.get("start"), node.meta.get("end")
    if not isinstance(start, int) or not isinstance(end, int):
        return common
    return by_length.get(end - start + 1, common)


def column_name(projection: exp.Expression) -> str | None:
    if isinstance(projection, exp.Alias):
        return _folded(projection.args.get("alias"), projection.alias)
    if isinstance(projection, exp.Star) or (
        isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
    ):
        return None
    return _figure(projection)[0]


def projection_names(tree: exp.Expression) -> tuple[str | None, ...] | None:
    """Per projection of the (first) SELECT: its PostgreSQL name, None for `*`; None for other statements."""
    node: exp.Expr = tree
    while isinstance(node, exp.SetOperation):
        node = node.this
    if isinstance(node, exp.Subquery):
        node = node.unnest()
    if isinstance(node, exp.Select):
        return tuple(column_name(p) for p in node.expressions)
    return None


def align_names(names: Sequence[str | None] | None, column_count: int) -> list[str | None] | None:
    """Spread per-projection names over the engine's columns (a `*` expands to several)."""
    if names is None:
        return None
    if None not in names:
        return list(names) if len(names) == column_count else None
    star = names.index(None)
    if None in names[star + 1 :]:
        return [*names[:star], *[None] * (column_count - star)]
    tail = list(names[star + 1 :])
    middle = column_count - star - len(tail)
    if middle < 0:
        return None
    return [*names[:star], *[None] * middle, *tail]


def postgres_column_names(query: exp.Expr) -> list[str]:
    """The names of `query`'s result columns as PostgreSQL reports them, `*` for a star projection."""
    select: exp.Expr = query
    while isinstance(select, exp.SetOperation | exp.Subquery):
        select = select.this
    if not isinstance(select, exp.Select):
        return []
    return [column_name(p) or "*" for p in select.expressions]
