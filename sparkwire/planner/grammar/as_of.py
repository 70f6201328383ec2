"""Materialize's `AS OF [AT LEAST] <timestamp expression>` at the end of a SELECT.

Contract: `split_as_of(sql)` returns `(query, as_of)`: the statement without its AS OF clause and an `AsOf` holding
the expression's text and whether it is AT LEAST; `(sql, None)` when the statement has none. The clause is the
first `AS OF` outside parentheses of a statement that starts like a query (SELECT, WITH, VALUES, TABLE or `(`) that
an expression follows, and everything after it is the expression (Materialize's grammar puts it after ORDER BY /
LIMIT / OFFSET). `of` is also a label PostgreSQL accepts (`SELECT 1 AS of`, `x AS of, y`, `FROM t AS of WHERE …`):
an `AS OF` followed by nothing, a comma, a closing parenthesis or a clause keyword is that label, not the clause.
`AS OF AT LEAST` with nothing after it is 42601. The expression is evaluated by the session (a constant, castable
to mz_timestamp: see planner/statements/timestamps.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.tokens import Token, tokenize

_QUICK = re.compile(r"\bas\s+of\b", re.I)
_QUERY_HEADS = frozenset({"select", "with", "values", "table"})
# words that follow a relation or column alias and never start an AS OF expression
_AFTER_ALIAS = frozenset(
    {"from", "where", "group", "having", "window", "order", "limit", "offset", "fetch", "for", "union", "intersect"}
    | {"except", "join", "inner", "left", "right", "full", "cross", "natural", "on", "using", "into", "as", "lateral"}
)


@dataclass(frozen=True, slots=True)
class AsOf:
    expression: str  # SQL text of the timestamp expression
    at_least: bool  # AS OF AT LEAST: the timestamp may be later


def _label(following: Token | None) -> bool:
    """Whether the token after `AS OF` makes `of` a label rather than the clause."""
    if following is None:
        return True
    if following.kind == "op":
        return following.text in ",);"
    return following.kind == "word" and following.text in _AFTER_ALIAS


def split_as_of(sql: str) -> tuple[str, AsOf | None]:
    if _QUICK.search(sql) is None:  # the common case costs one regex search
        return sql, None
    try:
        tokens = tokenize(sql)
    except e.PgError:
        return sql, None  # the statement's own parser reports it
    if not tokens or not (tokens[0].text in _QUERY_HEADS or (tokens[0].kind == "op" and tokens[0].text == "(")):
        return sql, None
    depth = 0
    for i, token in enumerate(tokens):
        if token.kind == "op" and token.text in "()":
            depth += 1 if token.text == "(" else -1
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if depth or token.kind != "word" or token.text != "as" or following is None:
            continue
        if following.kind != "word" or following.text != "of":
            continue
        j = i + 2
        at_least = j + 1 < len(tokens) and tokens[j].text == "at" and tokens[j + 1].text == "least"
        if not at_least and _label(tokens[j] if j < len(tokens) else None):
            continue
        j += 2 if at_least else 0
        expression = sql[tokens[j].start :].strip().rstrip(";").strip() if j < len(tokens) else ""
        if not expression:
            raise e.SyntaxError("syntax error at end of input", position=len(sql.rstrip()) + 1)
        return sql[: token.start].rstrip(), AsOf(expression, at_least)
    return sql, None
