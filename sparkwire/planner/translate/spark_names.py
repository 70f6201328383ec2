"""Result column names as PostgreSQL gives them (its `FigureColname`), computed on a parsed PostgreSQL query.

Contract: `postgres_column_names(query)` returns one name per projection of the query's leftmost SELECT (set
operations take the names of their first branch): an alias as written; a column reference -> the column name; a
function call -> the function name; a cast -> its operand's name if that is a real one (PostgreSQL's "strength"),
else the PostgreSQL type name (`int4`, `text`, …); CASE -> "case"; EXISTS -> "exists"; ARRAY[…] -> "array"; a
scalar subquery -> its own first column name; anything else (operators, literals) -> "?column?". A `*` projection
yields "*" (its expansion needs the catalog). `projection_name(expression)` does the same for one projection.

Known limit: sqlglot folds some spellings into one node, so the name is the common spelling: strpos() reports
"position", date_part() "extract", now() and current_timestamp "now", ceiling() "ceil", pow() "power",
substr() "substring", char_length() "length", the operator `^` "power".
"""

from __future__ import annotations

from sqlglot import exp

UNNAMED = "?column?"

_TYPE_NAMES: dict[exp.DType, str] = {
    exp.DType.SMALLINT: "int2",
    exp.DType.INT: "int4",
    exp.DType.BIGINT: "int8",
    exp.DType.FLOAT: "float4",
    exp.DType.DOUBLE: "float8",
    exp.DType.DECIMAL: "numeric",
    exp.DType.BOOLEAN: "bool",
    exp.DType.TEXT: "text",
    exp.DType.VARCHAR: "varchar",
    exp.DType.CHAR: "bpchar",
    exp.DType.DATE: "date",
    exp.DType.TIME: "time",
    exp.DType.TIMESTAMP: "timestamp",
    exp.DType.TIMESTAMPTZ: "timestamptz",
    exp.DType.INTERVAL: "interval",
    exp.DType.JSON: "json",
    exp.DType.JSONB: "jsonb",
    exp.DType.UUID: "uuid",
    exp.DType.VARBINARY: "bytea",
    exp.DType.BINARY: "bytea",
}

# sqlglot folds several PostgreSQL spellings into one node; these are the names PostgreSQL reports.
_FUNCTION_NAMES: dict[type[exp.Expr], str] = {
    exp.CurrentTimestamp: "now",
    exp.CurrentDate: "current_date",
    exp.Count: "count",
    exp.ArrayAgg: "array_agg",
    exp.GroupConcat: "string_agg",
    exp.Substring: "substring",
    exp.StrPosition: "position",
    exp.Trim: "btrim",
    exp.Extract: "extract",
    exp.Coalesce: "coalesce",
    exp.Nullif: "nullif",
    exp.Greatest: "greatest",
    exp.Least: "least",
    exp.Length: "length",
    exp.Pow: "power",
    exp.ExplodingGenerateSeries: "generate_series",
    exp.GenerateSeries: "generate_series",
    exp.RegexpReplace: "regexp_replace",
    exp.Initcap: "initcap",
    exp.Lower: "lower",
    exp.Upper: "upper",
    exp.Concat: "concat",
    exp.ConcatWs: "concat_ws",
    exp.DateTrunc: "date_trunc",
    exp.TimestampTrunc: "date_trunc",
    exp.Avg: "avg",
    exp.Sum: "sum",
    exp.Min: "min",
    exp.Max: "max",
    exp.RowNumber: "row_number",
    exp.TimeToStr: "to_char",
    exp.ToChar: "to_char",
}


def _type_name(data_type: exp.DataType) -> str:
    return _TYPE_NAMES.get(data_type.this, data_type.sql("postgres").lower())


def projection_name(node: exp.Expr) -> str:
    """PostgreSQL's name for one SELECT-list expression (see the module docstring)."""
    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return "*"
    name, _strength = _figure(node)
    return name or UNNAMED


def _function_name(node: exp.Func) -> str:
    if isinstance(node, exp.Trim):
        position = str(node.args.get("position") or "").upper()
        return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(position, "btrim")
    if isinstance(node, exp.Pad):
        return "lpad" if node.args.get("is_left") else "rpad"
    return _FUNCTION_NAMES.get(type(node)) or node.sql_name().lower()


def _figure(node: exp.Expr) -> tuple[str | None, int]:
    """(name, strength) as PostgreSQL's FigureColnameInternal: 2 = a real name, 1 = a fallback, 0 = none."""
    match node:
        case exp.Column():
            return node.name, 2
        case exp.Paren():
            return _figure(node.this)
        case exp.Cast():
            name, strength = _figure(node.this)
            return (name, strength) if strength > 1 else (_type_name(node.to), 1)
        case exp.Case():
            return "case", 1
        case exp.Array():
            return "array", 1
        case exp.Exists():
            return "exists", 2
        case exp.Subquery():
            inner = node.this
            if isinstance(inner, exp.Select) and inner.expressions:
                name = projection_name(inner.expressions[0])
                return (None, 0) if name == UNNAMED else (name, 2)
            return None, 0
        case exp.Window() | exp.Filter() | exp.WithinGroup() | exp.Bracket():
            return _figure(node.this)
        case exp.Anonymous():
            return str(node.this).lower(), 2
        case exp.Func():
            return _function_name(node), 2
    return None, 0


def postgres_column_names(query: exp.Expr) -> list[str]:
    """The names of `query`'s result columns as PostgreSQL reports them."""
    select = query
    while isinstance(select, (exp.SetOperation, exp.Subquery)):
        select = select.this
    if not isinstance(select, exp.Select):
        return []
    return [projection_name(p) for p in select.expressions]
