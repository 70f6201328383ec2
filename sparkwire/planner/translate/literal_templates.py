"""Translations of statements that differ only in the OIDs they spell inline, shared by every session.

psql's `\\d t` sends a dozen catalog queries with the table's OID written as a string literal
(`WHERE c.oid = '16385'`), psqlODBC inlines its arguments the same way: every table described is new SQL text, so
the plan cache cannot help and each query pays for the sqlglot passes of `translate.duckdb.to_duckdb` again.
Contract:
- `shape(sql)`: the statement with each digits-only string literal (`'16385'`) masked, and those literals; None
  when it has none, or when it holds what this scan does not follow (E'' strings, dollar quotes, backslashes,
  comments) or session-specific functions (current_setting, set_config, pg_sleep, pg_backend_pid, pg_settings)
  whose translation names the session.
- `LiteralTemplates.translate(sql, tree, context, duck_types, generation)`: the DuckDB SQL of `tree` (the parse of
  `sql`). The first statement of a shape is translated, and so is a probe: the same text with each masked literal
  replaced by a distinct sentinel of digits. When the probe's translation, with every sentinel put back to the
  statement's literal, is exactly the statement's translation, the probe's translation is kept as the shape's
  template; a later statement of the same shape (same session database, schema, search path and user, same catalog
  generation, same parameter types) fills it with its own literals. Any other outcome (the literal was resolved
  while planning, folded, or the probe failed) keeps the shape out, and its statements are translated each time.
  Thread-safe; at most `max_shapes`, least recently used first out.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable, Sequence

from cachetools import LRUCache
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb_result

Translate = Callable[[exp.Expression, SessionContext, Sequence[str]], str]

_TOKENS = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|[^'"]+""")
_DIGITS = re.compile(r"'(\d{1,10})'")
_SESSION_SPECIFIC = re.compile(r"current_setting|set_config|pg_sleep|pg_backend_pid|pg_settings", re.IGNORECASE)
_UNFOLLOWED_TEXT = re.compile(r"[\\$]|--|/\*")
_PREFIXED = re.compile(r"(?<!\w)(?:[EeBbXxNn]|[Uu]&)\Z")  # E'…', B'…', X'…', N'…', U&'…'
_SENTINEL_BASE = 2_047_000_000  # ten digits, like no OID the catalog hands out, and within int4
_NO_TEMPLATE = ""


def _scan(sql: str) -> list[str] | None:
    """The statement as tokens: quoted strings, quoted identifiers, and the text between; None for what this scan
    does not follow."""
    if _SESSION_SPECIFIC.search(sql):
        return None
    tokens = _TOKENS.findall(sql)
    if "".join(tokens) != sql:
        return None
    for i, token in enumerate(tokens):
        if token[0] not in "'\"" and (
            _UNFOLLOWED_TEXT.search(token) or (_PREFIXED.search(token) and i + 1 < len(tokens))
        ):
            return None
    return tokens


def shape(sql: str) -> tuple[str, list[str]] | None:
    tokens = _scan(sql)
    if tokens is None:
        return None
    literals = [m.group(1) for t in tokens if (m := _DIGITS.fullmatch(t)) is not None]
    if not literals:
        return None
    return "".join("'\0'" if _DIGITS.fullmatch(t) else t for t in tokens), literals


def _probe(sql: str, sentinels: Sequence[str]) -> str:
    """`sql` with its digits-only literals replaced by the sentinels, in order."""
    pieces = iter(sentinels)
    return "".join(f"'{next(pieces)}'" if _DIGITS.fullmatch(t) else t for t in _scan(sql) or ())


def _sentinels(count: int) -> list[str]:
    return [str(_SENTINEL_BASE + i) for i in range(count)]


def _filled(template: str, sentinels: Sequence[str], literals: Sequence[str]) -> str:
    out = template
    for sentinel, literal in zip(sentinels, literals, strict=True):
        out = out.replace(sentinel, literal)
    return out


class LiteralTemplates:
    def __init__(self, translate: Translate = to_duckdb_result, max_shapes: int = 1024) -> None:
        self._translate = translate
        self._templates: LRUCache[Hashable, str] = LRUCache(max_shapes)
        self._lock = threading.Lock()

    def translate(
        self, sql: str, tree: exp.Expression, context: SessionContext, duck_types: Sequence[str], generation: int
    ) -> str:
        found = shape(sql)
        if found is None:
            return self._translate(tree, context, duck_types)
        masked, literals = found
        facts = (context.database, context.schema, context.search_path, context.user)
        key = (masked, *facts, tuple(duck_types), generation)
        with self._lock:
            template = self._templates.get(key)
        sentinels = _sentinels(len(literals))
        if template:
            return _filled(template, sentinels, literals)
        translated = self._translate(tree, context, duck_types)
        if template is None:
            self._learn(key, sql, sentinels, literals, translated, context, duck_types)
        return translated

    def _learn(
        self,
        key: Hashable,
        sql: str,
        sentinels: list[str],
        literals: list[str],
        translated: str,
        context: SessionContext,
        duck_types: Sequence[str],
    ) -> None:
        probe_sql = _probe(sql, sentinels) if not any(s in sql for s in sentinels) else ""
        template = _NO_TEMPLATE
        if probe_sql and not any(s in translated for s in sentinels):
            try:
                probe = self._translate(parse(probe_sql), context, duck_types)
            except e.PgError:
                probe = _NO_TEMPLATE
            if probe and _filled(probe, sentinels, literals) == translated:
                template = probe
        with self._lock:
            self._templates[key] = template
