"""Numeric sqrt, ln, log, exp and power on Spark with PostgreSQL's digits: numeric.c's scale, not a double's.

Contract: `numeric_math(tree, schema, results_as_text)` rewrites a type-annotated, PostgreSQL-parsed tree in place
(called by translate/spark.py after the numeric quotients; `schema` as there). A call whose PostgreSQL result type
is numeric (planner/bind/pg_function_types.py: a numeric argument and no float one) becomes `sw_numeric_math(name,
args…)` (engine/pg_functions.py, pgtypes/numeric_math.py): exact text where the value leaves the engine for a
client (a result projection, `results_as_text`; ORDER BY on it sorts by the number), else that text as
DECIMAL(38, 16) for the expression around it. Spark computes them in double precision (`sqrt(12.34)` has 17
digits where PostgreSQL prints 3.512833614050059, `power(12.34, 2)` 152.2756 where it prints
152.2756000000000000). The domain errors (2201E, 2201F, 22012) are raised by the function, as PostgreSQL raises
them; float calls keep Spark's functions and spark_math.py's guards.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.engine.pg_functions import NESTED_NUMERIC, NUMERIC_MATH
from sparkwire.planner.bind.pg_result_types import NUMERIC, Columns, result_type
from sparkwire.planner.translate import numeric_types as nt

_NAMES: dict[type[exp.Expr], str] = {exp.Sqrt: "sqrt", exp.Ln: "ln", exp.Exp: "exp", exp.Log: "log", exp.Pow: "power"}


def _nested(call: exp.Expr) -> exp.Cast:
    target = exp.DataType.build(NESTED_NUMERIC)
    cast = exp.Cast(this=call, to=target)
    cast.type = target.copy()
    return cast


def numeric_math(tree: exp.Expr, schema: Columns, results_as_text: bool) -> exp.Expr:
    nodes = list(tree.find_all(*_NAMES))
    if not nodes:
        return tree
    known = nt.alias_columns(tree, schema)
    for node in reversed(nodes):  # inner first: sqrt(ln(x)) reads the inner call's replacement
        if result_type(node, known) != NUMERIC:
            continue
        args = [a for a in (node.this, node.args.get("expression")) if isinstance(a, exp.Expr)]
        call = exp.Anonymous(this=NUMERIC_MATH, expressions=[exp.Literal.string(_NAMES[type(node)]), *args])
        if results_as_text and nt.leaves_as_text(node):
            nt.order_by_value(node, _nested(call.copy()))
            node.replace(nt.named_as_postgres(node, call))
        else:
            node.replace(nt.named_as_postgres(node, _nested(call)))
    return tree
