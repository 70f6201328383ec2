"""Notice fingerprints: stable identities that survive restarts and drop/re-create with identical DDL.

Contract: `fingerprint(notice_type, object_sql, dependency_sqls, discriminator)` is a UUID (uuid5) computed from
the notice type, the normalized DDL of the notice's object (the SELECT text for a query notice), the sorted
normalized DDL of its dependencies, and a discriminator that tells apart notices of one type on one object
(the rendered unredacted message). Catalog ids and OIDs never enter it.

`normalize_ddl` makes DDL formatting-, case- and alias-insensitive: parsed with sqlglot (PostgreSQL dialect),
identifiers case-normalized, table aliases renamed `_r0`, `_r1`, … in order of appearance (with the columns
qualified by them), printed canonically. Materialize's `IN CLUSTER <name>` is cut out before parsing and
appended in normalized form. Statements sqlglot still cannot parse (`CREATE DEFAULT INDEX`) fall back to their
token stream: keywords and unquoted identifiers lower-cased, whitespace and comments dropped. sqlglot's
"unsupported syntax" warning is silenced while parsing (its logger's level is raised for the call).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.tokenizer_core import TokenType

from sparkwire.notices.sqltext import DIALECT

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "sparkwire:optimizer-notice")


def fingerprint(notice_type: str, object_sql: str, dependency_sqls: Iterable[str], discriminator: str) -> uuid.UUID:
    parts = [notice_type, normalize_ddl(object_sql), *sorted(normalize_ddl(s) for s in dependency_sqls), discriminator]
    return uuid.uuid5(NAMESPACE, "\x00".join(parts))


def normalize_ddl(sql: str) -> str:
    try:
        sql, cluster = _cut_cluster(sql)
        tree = _parse_quietly(sql)
    except (ParseError, TokenError):
        return _tokens(sql)
    if isinstance(tree, exp.Command):
        text = _tokens(sql)
    else:
        tree = normalize_identifiers(tree, dialect=DIALECT)
        _rename_aliases(tree)
        text = tree.sql(dialect=DIALECT, normalize_functions="lower")
    return text if cluster is None else f"{text} in cluster {cluster}"


def _parse_quietly(sql: str) -> exp.Expr:
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return sqlglot.parse_one(sql, read=DIALECT)
    finally:
        logger.setLevel(level)


def _cut_cluster(sql: str) -> tuple[str, str | None]:
    """`sql` without its first `IN CLUSTER <name>` clause, and the normalized cluster name (None if absent)."""
    tokens = sqlglot.tokenize(sql, read=DIALECT)
    for first, second, name in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if first.token_type == TokenType.IN and second.text.upper() == "CLUSTER":
            cluster = name.text if name.token_type == TokenType.IDENTIFIER else name.text.lower()
            return sql[: first.start] + sql[name.end + 1 :], cluster
    return sql, None


def _rename_aliases(tree: exp.Expr) -> None:
    renamed: dict[str, str] = {}
    for alias in tree.find_all(exp.TableAlias, bfs=False):
        if isinstance(alias.parent, exp.Table | exp.Subquery) and alias.name and alias.name not in renamed:
            renamed[alias.name] = f"_r{len(renamed)}"
        if alias.name in renamed:
            alias.set("this", exp.to_identifier(renamed[alias.name]))
    for column in tree.find_all(exp.Column):
        if column.table in renamed:
            column.set("table", exp.to_identifier(renamed[column.table]))


def _tokens(sql: str) -> str:
    words = []
    for token in sqlglot.tokenize(sql, read=DIALECT):
        if token.token_type == TokenType.STRING:
            words.append("'" + token.text.replace("'", "''") + "'")
        elif token.token_type == TokenType.IDENTIFIER:
            words.append('"' + token.text.replace('"', '""') + '"')
        else:
            words.append(token.text.lower())
    return " ".join(words)
