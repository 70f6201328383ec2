"""PostgreSQL's value semantics on DuckDB: the tree rules `translate/duckdb.py` applies before printing DuckDB SQL.

Contract: `pg_semantics(tree)` rewrites a PostgreSQL-parsed sqlglot tree in place (and returns it) so that DuckDB
answers a query as PostgreSQL 15 does where DuckDB's own semantics differ: the same errors for the same values
(a rule shared with the Spark translation where one exists, so both routes decide alike), the input syntax of
literals, intervals divided. Every rule only rewrites what the statement already says or raises a `PgError`; none
adds a function a user could not call, except DuckDB's `error()` carrying a translator's SQLSTATE
(`errors.RAISED_MARKER`, mapped back by engine/duckdb_errors.py).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.translate.duckdb_rules.intervals import interval_division
from sparkwire.planner.translate.duckdb_rules.literals import literal_inputs
from sparkwire.planner.translate.duckdb_rules.shared import SHARED_RULES


def pg_semantics(tree: exp.Expression) -> exp.Expression:
    out: exp.Expr = tree
    for rule in (literal_inputs, interval_division, *SHARED_RULES):
        out = rule(out)
    assert isinstance(out, exp.Expression)
    return out
