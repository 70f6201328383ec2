"""LIKE / ILIKE escapes for DuckDB: PostgreSQL's patterns escape with a backslash unless the statement names
another ESCAPE character; DuckDB's have no escape character unless one is named.

Contract: `like_escapes(node, ctx)` is a `translate.duckdb.TRANSFORMS` transform: `x [NOT] LIKE p` and
`x [NOT] ILIKE p` (also written `~~`, `~~*`, `!~~`, `!~~*`) without an ESCAPE clause become `… ESCAPE '\\'`, so
`relname LIKE 'pg\\_%'` matches a literal underscore (harlequin's completion query, psql's patterns) and
`'a%' LIKE 'a\\%'` is true, as in PostgreSQL. An explicit ESCAPE (including `ESCAPE ''`, no escape) is kept.
Spark's LIKE already escapes with a backslash by default.
"""

from __future__ import annotations

from sqlglot import exp

BACKSLASH = "\\"


def like_escapes(node: exp.Expression, ctx: object) -> exp.Expression:
    if isinstance(node, exp.Like | exp.ILike) and not isinstance(node.parent, exp.Escape):
        return exp.Escape(this=node.copy(), expression=exp.Literal.string(BACKSLASH))
    return node
