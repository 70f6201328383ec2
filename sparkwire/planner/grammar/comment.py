"""The COMMENT ON statement's grammar, as Materialize and PostgreSQL write it.

Contract: `parse_comment(sql)` returns a `CommentOn`, or None when the statement does not start with COMMENT:

    COMMENT ON { TABLE | VIEW | MATERIALIZED VIEW | INDEX | SOURCE | SINK | CONNECTION | SECRET | TYPE } name
             | COLUMN relation.column | SCHEMA name | DATABASE name | CLUSTER name | ROLE name
        IS { 'text' | $$text$$ | NULL }

`kind` is the catalog's item kind for the item forms ("materialized-view", …) and "column", "schema", "database",
"cluster", "role" for the others; `text` None for IS NULL. Object kinds PostgreSQL has and sparkwire does not
(SEQUENCE, FUNCTION, CONSTRAINT, TRIGGER, …) raise 0A000 naming them; a broken statement raises 42601 with
PostgreSQL's wording and position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.ddl_parser import DdlParser, Name

_HEAD = re.compile(r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*comment\b", re.I | re.S)

# (words, kind) in the order they are tried: MATERIALIZED VIEW before VIEW is not needed (different first word).
_KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("table",), "table"),
    (("view",), "view"),
    (("materialized", "view"), "materialized-view"),
    (("index",), "index"),
    (("source",), "source"),
    (("sink",), "sink"),
    (("connection",), "connection"),
    (("secret",), "secret"),
    (("type",), "type"),
    (("column",), "column"),
    (("schema",), "schema"),
    (("database",), "database"),
    (("cluster",), "cluster"),
    (("role",), "role"),
)
_UNSUPPORTED = (
    "access", "aggregate", "cast", "collation", "constraint", "conversion", "domain", "event", "extension",
    "foreign", "function", "large", "operator", "policy", "procedure", "publication", "routine", "rule",
    "sequence", "server", "statistics", "subscription", "tablespace", "text", "transform", "trigger",
)


@dataclass(frozen=True, slots=True)
class CommentOn:
    kind: str
    name: Name  # for a column: the relation's name
    text: str | None
    column: str | None = None


def _kind(p: DdlParser) -> str:
    for words, kind in _KINDS:
        if p.accept(*words):
            return kind
    word = p.word()
    if word in _UNSUPPORTED:
        raise e.FeatureNotSupported(f"COMMENT ON {word.upper()} is not supported")
    raise p.error()


def parse_comment(sql: str) -> CommentOn | None:
    if _HEAD.match(sql) is None:
        return None
    p = DdlParser(sql)
    p.expect("comment", "on")
    kind = _kind(p)
    column = None
    if kind == "column":  # [[database.]schema.]relation.column
        parts = [p.name()]
        while p.accept_op("."):
            parts.append(p.name())
        if len(parts) < 2:
            raise e.SyntaxError(f"column name must be qualified: {parts[0]}")
        if len(parts) > 4:
            raise e.SyntaxError(f"improper qualified name (too many dotted names): {'.'.join(parts)}")
        column, name = parts[-1], Name(tuple(parts[:-1]))
    else:
        name = p.object_name()
    p.expect("is")
    token = p.peek()
    if token is not None and token.kind == "string":
        text: str | None = token.text
    elif token is not None and token.kind == "word" and token.text == "null":
        text = None
    else:
        raise p.error()
    p.i += 1
    p.end()
    return CommentOn(kind, name, text, column)
