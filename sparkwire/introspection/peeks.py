"""Peeks: statements over one live builtin relation that an arrangement in memory answers without the store.

Contract: `Answer` is what a peek returns — the columns as DuckDB types them and the Arrow batches the store would
have returned. `Peek` is a callable from a statement's tree to an `Answer`, or None when the statement is not its
shape (then the store answers). `relation_of(tree, relations, clauses)` matches `SELECT … FROM <schema>.<name>
[alias]` with no clause but `clauses` and no joins, against `relations` ({(schema, name): column names}), and
returns (schema, name, qualifier) — the name is folded as PostgreSQL folds it and must be schema-qualified (an
unqualified name could be a user's relation earlier in the search path); `projection(items, names, qualifier)`
maps a select list of `*`, `alias.*`, plain and aliased columns to (column, output name) pairs; `column_of` reads
one plain column; `plain_select` is both for a statement with no clause but its select list and FROM; `select`
picks and renames the output columns of a held table; `remembered(answers, key, build)` gives the same answer (the
same batch objects) again while what it was built from is held, so that its DataRows are encoded once for every
session (pgtypes/shared_rows.py). Anything else is None: the store's path reports any error the statement has.

The callers (session/queries.py) take a peek only where the store's answer would be the same: no row filter of
RBAC's on the statement, and no snapshot of the session's (a transaction block, AS OF).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

import pyarrow as pa
from sqlglot import exp

from sparkwire.engine.base import Column
from sparkwire.pgtypes.shared_rows import SHARED

Answer = tuple[list[Column], list[pa.RecordBatch]]
Peek = Callable[[exp.Expr], Answer | None]
_TABLE_ARGS = frozenset({"this", "db", "catalog", "alias"})
_COLUMN_ARGS = frozenset({"this", "table"})
ANSWERS_KEPT = 32  # per held table: a handful of shapes are polled


def name_of(node: exp.Expr | None) -> str | None:
    """An identifier as PostgreSQL folds it (unquoted: lower case)."""
    if not isinstance(node, exp.Identifier):
        return None
    text = str(node.this)
    return text if node.quoted else text.lower()


def extra(node: exp.Expr, allowed: frozenset[str]) -> bool:
    """Does `node` have any argument outside `allowed`?"""
    return any(value not in (None, [], False) for key, value in node.args.items() if key not in allowed)


def relation_of(
    tree: exp.Expr, relations: Mapping[tuple[str, str], tuple[str, ...]], clauses: frozenset[str]
) -> tuple[str, str, str | None] | None:
    if not isinstance(tree, exp.Select) or extra(tree, clauses | {"expressions", "from_"}):
        return None
    from_ = tree.args.get("from_")
    table = from_.this if isinstance(from_, exp.From) else None
    if not isinstance(table, exp.Table) or extra(table, _TABLE_ARGS) or not isinstance(table.this, exp.Identifier):
        return None
    schema, relation = name_of(table.args.get("db")), name_of(table.this)
    catalog = table.args.get("catalog")
    if schema is None or relation is None or (schema, relation) not in relations:
        return None
    if catalog is not None and name_of(catalog) != "materialize":
        return None
    alias = table.args.get("alias")
    if alias is not None and (alias.columns or not isinstance(alias.this, exp.Identifier)):
        return None
    return schema, relation, name_of(alias.this) if alias is not None else relation


def column_of(node: exp.Expr, names: tuple[str, ...], qualifier: str | None) -> str | None:
    if not isinstance(node, exp.Column) or extra(node, _COLUMN_ARGS):
        return None
    table = node.args.get("table")
    if table is not None and name_of(table) != qualifier:
        return None
    name = name_of(node.this)
    return name if name in names else None


def projection(
    items: list[exp.Expr], names: tuple[str, ...], qualifier: str | None
) -> tuple[tuple[str, str], ...] | None:
    output: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, exp.Star) and not extra(item, frozenset()):
            output.extend((name, name) for name in names)
        elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            if extra(item, _COLUMN_ARGS) or name_of(item.args.get("table")) != qualifier:
                return None
            output.extend((name, name) for name in names)
        elif isinstance(item, exp.Alias) and (alias := name_of(item.args.get("alias"))) is not None:
            column = column_of(item.this, names, qualifier)
            if column is None:
                return None
            output.append((column, alias))
        elif (column := column_of(item, names, qualifier)) is not None:
            output.append((column, column))
        else:
            return None
    return tuple(output) or None


def plain_select(
    tree: exp.Expr, relations: Mapping[tuple[str, str], tuple[str, ...]]
) -> tuple[tuple[str, str], tuple[tuple[str, str], ...]] | None:
    """((schema, name), output) of `SELECT <*, plain or aliased columns> FROM <schema>.<name> [alias]` with no other
    clause, over one of `relations`."""
    found = relation_of(tree, relations, frozenset())
    if found is None:
        return None
    schema, relation, qualifier = found
    output = projection(tree.expressions, relations[(schema, relation)], qualifier)
    return None if output is None else ((schema, relation), output)


def select(
    table: pa.Table, columns: list[Column], output: tuple[tuple[str, str], ...]
) -> tuple[list[Column], pa.Table]:
    """The output columns of `table` (whose columns are `columns`), renamed."""
    index = {column.name: i for i, column in enumerate(columns)}
    picked = [index[name] for name, _ in output]
    named = [Column(out, columns[i].engine_type) for i, (_, out) in zip(picked, output, strict=True)]
    return named, table.select(picked).rename_columns([out for _, out in output])


def remembered(
    answers: dict[Hashable, Answer], key: Hashable, build: Callable[[], tuple[list[Column], pa.Table]]
) -> Answer:
    """The answer kept in `answers` under `key`, else `build()`'s as one batch (kept while fewer than
    `ANSWERS_KEPT` are); its batches are marked shared (pgtypes/shared_rows.py)."""
    answer = answers.get(key)
    if answer is None:
        columns, table = build()
        answer = columns, table.combine_chunks().to_batches()
        if len(answers) < ANSWERS_KEPT:
            answers[key] = answer
    for batch in answer[1]:
        SHARED.mark(batch)
    return list(answer[0]), answer[1]
