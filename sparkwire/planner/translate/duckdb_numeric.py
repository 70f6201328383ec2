"""PostgreSQL's aggregate result types and numeric quotients on DuckDB (engine/pg_functions.py has the functions).

Contract: `pg_numerics(tree, columns)` rewrites a PostgreSQL-parsed tree in place for DuckDB, `columns` being what
is known of the relations' column types (translate/numeric_types.py; empty on the introspection path):
- `sum(x)` → `sw_sum(x)`: bigint over smallint / integer, numeric over bigint (DuckDB's sum is HUGEINT);
- `avg(x)` of integers or numerics → numeric: PostgreSQL's exact quotient sum / count, as text where it leaves the
  engine (`numeric_types.leaves_as_text`) of a statement whose rows go to a client (`results_as_text`), else
  DECIMAL(38, 16) (DuckDB's avg is DOUBLE);
- `a / b` of numerics (an operand numeric, none float) → PostgreSQL's numeric division, the same way;
- `int_expr::numeric` → DECIMAL(38, 0) (numeric_types.integer_to_numeric).
Windows, FILTER and DISTINCT aggregates keep DuckDB's own (a macro cannot take them).
Also `octet_length(x)` and `length(x)` → `sw_octet_length(x)` / `sw_length(x)`: int4, and bytes for bytea (DuckDB
has no octet_length(VARCHAR) nor length(BLOB)); EXTRACT → numeric (`_extracts`; date_part, which sqlglot parses
as EXTRACT too, is float8 in PostgreSQL and therefore differs); EXTRACT(epoch …) of a known type → numeric
(`_epochs`: scale 0 for a date, 6 for the others).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.grammar.dialect import DATE_PART
from sparkwire.planner.translate import numeric_types as nt
from sparkwire.planner.translate.functions.pg_typeof import type_name


def _call(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _lengths(tree: exp.Expr) -> None:
    for node in list(tree.find_all(exp.Length, exp.Anonymous)):
        if isinstance(node, exp.Length) and not node.args.get("binary"):
            node.replace(_call("sw_length", node.this))
        elif isinstance(node, exp.Anonymous) and node.name.lower() == "octet_length" and len(node.expressions) == 1:
            node.replace(_call("sw_octet_length", node.expressions[0]))


_SUBSECOND_SCALES = {"SECOND": ("0.000001", 6), "MILLISECOND": ("0.001", 3), "MILLISECONDS": ("0.001", 3)}


def _extracts(tree: exp.Expr) -> None:
    """EXTRACT is numeric in PostgreSQL (DuckDB: BIGINT): whole fields as DECIMAL(38, 0), seconds with their
    microseconds (scale 6) and milliseconds (scale 3); epoch keeps DuckDB's double."""
    for node in list(tree.find_all(exp.Extract)):
        field = node.this.name.upper() if isinstance(node.this, exp.Var | exp.Identifier) else ""
        if field in ("EPOCH", ""):
            continue
        if field in _SUBSECOND_SCALES:
            factor, scale = _SUBSECOND_SCALES[field]
            micros = _call("date_part", exp.Literal.string("microsecond"), node.expression.copy())
            whole = exp.Cast(this=micros, to=exp.DataType.build("DECIMAL(38, 0)"))
            product = exp.Mul(
                this=whole,
                expression=exp.Cast(this=exp.Literal.number(factor), to=exp.DataType.build(f"DECIMAL(7, {scale})")),
            )
            node.replace(exp.Cast(this=exp.Paren(this=product), to=exp.DataType.build(f"DECIMAL(38, {scale})")))
        elif not isinstance(node.parent, exp.Cast):
            node.replace(exp.Cast(this=node.copy(), to=exp.DataType.build("DECIMAL(38, 0)")))


_MICROSECOND_EPOCHS = frozenset(
    {"timestamp without time zone", "timestamp with time zone", "interval", "time without time zone"}
)


def _epochs(tree: exp.Expr, known: nt.Columns) -> None:
    """EXTRACT(epoch FROM x) is numeric in PostgreSQL: of a date whole seconds (scale 0), of a timestamp,
    timestamptz, interval (365.25-day years, 30-day months) or time seconds with their
    microseconds (scale 6). DuckDB's is a double; left so where x's type is not known (and for date_part)."""
    for node in list(tree.find_all(exp.Extract)):
        field = node.this.name.upper() if isinstance(node.this, exp.Var | exp.Identifier) else ""
        if field != "EPOCH" or node.meta.get(DATE_PART):
            continue
        source = type_name(node.expression, known)
        micros: exp.Expr = _call("epoch_us", node.expression.copy())
        if source == "interval":  # DuckDB counts a year as 12 30-day months, PostgreSQL as 365.25 days
            years = _call("datepart", exp.Literal.string("year"), node.expression.copy())
            micros = exp.Add(this=micros, expression=exp.Mul(this=years, expression=exp.Literal.number(453600000000)))
        if source == "date":
            seconds = exp.IntDiv(this=micros, expression=exp.Literal.number(1000000))
            node.replace(exp.Cast(this=seconds, to=exp.DataType.build("DECIMAL(38, 0)")))
        elif source in _MICROSECOND_EPOCHS:
            whole = exp.Cast(this=micros, to=exp.DataType.build("DECIMAL(38, 0)"))
            factor = exp.Cast(this=exp.Literal.number("0.000001"), to=exp.DataType.build("DECIMAL(7, 6)"))
            product = exp.Paren(this=exp.Mul(this=whole, expression=factor))
            node.replace(exp.Cast(this=product, to=exp.DataType.build("DECIMAL(38, 6)")))


def pg_numerics(tree: exp.Expr, columns: nt.Columns, results_as_text: bool = False) -> exp.Expr:
    _lengths(tree)
    known = nt.alias_columns(tree, columns)
    _epochs(tree, known)
    _extracts(tree)
    nt.integer_to_numeric(tree, known)
    for node in list(tree.find_all(exp.Sum, exp.Avg, exp.Div)):
        text = results_as_text and nt.leaves_as_text(node)
        if isinstance(node, exp.Sum) and nt.aggregate_call(node):
            node.replace(nt.named_as_postgres(node, _call("sw_sum", node.this)))
            continue
        if isinstance(node, exp.Avg) and nt.aggregate_call(node):
            name = "sw_numeric_avg" if nt.avg_kind(node, known) == "numeric" else "sw_avg"
            args = [node.this]
        elif isinstance(node, exp.Div) and nt.numeric_quotient(node, known):
            name, args = "sw_quotient", [node.this, node.expression]
        else:
            continue
        if text:
            nt.order_by_value(node, _call(name, *[a.copy() for a in args]))
        node.replace(nt.named_as_postgres(node, _call(name + "_text" if text else name, *args)))
    return tree
