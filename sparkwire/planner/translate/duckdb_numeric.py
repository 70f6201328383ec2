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
as EXTRACT too, is float8 in PostgreSQL and therefore differs).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.translate import numeric_types as nt


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


def pg_numerics(tree: exp.Expr, columns: nt.Columns, results_as_text: bool = False) -> exp.Expr:
    _lengths(tree)
    _extracts(tree)
    known = nt.alias_columns(tree, columns)
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
