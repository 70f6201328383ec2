"""PostgreSQL's value semantics on DuckDB: the tree rules `translate/duckdb.py` applies before printing DuckDB SQL.

Contract: `pg_semantics(tree)` rewrites a PostgreSQL-parsed sqlglot tree in place (and returns it) so that DuckDB
answers a query as PostgreSQL 15 does where DuckDB's own semantics differ: the same errors for the same values
(a rule shared with the Spark translation where one exists, so both routes decide alike), the input syntax of
literals, intervals divided, floats rounded, printed and kept finite, VALUES columns named, constant result
types. Every rule only rewrites what the statement already says or raises a `PgError`; none adds a function a user
could call, except engine functions of our own (`sw_*`, refused to users by the allowlist) and DuckDB's `error()`
carrying a translator's SQLSTATE (`errors.RAISED_MARKER`, mapped back by engine/duckdb_errors.py).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.translate.duckdb_rules.floats import FLOAT_RULES
from sparkwire.planner.translate.duckdb_rules.intervals import interval_division
from sparkwire.planner.translate.duckdb_rules.literals import (
    exponent_literals,
    literal_inputs,
    negative_literals,
    set_operation_literals,
)
from sparkwire.planner.translate.duckdb_rules.result_types import constant_result_types
from sparkwire.planner.translate.duckdb_rules.shared import SHARED_RULES, constant_type_errors
from sparkwire.planner.translate.duckdb_rules.strings import similar_to, string_errors, text_concatenation
from sparkwire.planner.translate.duckdb_rules.values import values_columns
from sparkwire.planner.translate.functions.case_mapping import duckdb_case_mapping


def pg_semantics(tree: exp.Expr) -> exp.Expr:
    out = tree
    for rule in (
        constant_type_errors,
        constant_result_types,
        values_columns,
        set_operation_literals,
        literal_inputs,
        negative_literals,
        text_concatenation,
        exponent_literals,
        interval_division,
        *FLOAT_RULES,
        string_errors,
        similar_to,
        duckdb_case_mapping,
        *SHARED_RULES,
    ):
        out = rule(out)
    return out
