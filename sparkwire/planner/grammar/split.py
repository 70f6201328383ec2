"""Split a simple-query string into statements, the way PostgreSQL's lexer sees `;`.

Contract: `split_statements(sql)` returns the statements in order, each stripped of surrounding whitespace and
of its terminating `;`; statements that are empty (only whitespace, comments or `;`) are dropped, so an empty
list means EmptyQueryResponse. Semicolons inside '…' strings (with '' escapes), E'…' strings (with backslash
escapes), "…" identifiers, $tag$…$tag$ dollar quotes, -- line comments and nested /* … */ comments do not
split. An unterminated quote or comment runs to the end of the string (PostgreSQL then reports the syntax
error). `mask_comments(sql)` blanks every comment with spaces of the same length, so that the statement grammars,
the guard and the engines see a statement's first word first whatever comments precede or separate its words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")
_IDENT_CHAR = re.compile(r"[A-Za-z_0-9$]")
_COMMENT_MARK = re.compile(r"/\*|\*/")
_SPECIAL = re.compile(r"['\";$/-]")
_STOPS = {"'": re.compile("'"), '"': re.compile('"')}
_BACKSLASH_STOPS = {"'": re.compile(r"['\\]"), '"': re.compile(r'["\\]')}


def _skip_quoted(sql: str, i: int, quote: str, backslash: bool) -> int:
    """`i` is just after the opening quote; return the index after the closing quote."""
    n = len(sql)
    stops = _BACKSLASH_STOPS[quote] if backslash else _STOPS[quote]
    while True:
        match = stops.search(sql, i)
        if match is None:
            return n
        i = match.start()
        if sql[i] == "\\" or (i + 1 < n and sql[i + 1] == quote):  # an escape, or a doubled quote
            i += 2
        else:
            return i + 1


def _skip_block_comment(sql: str, i: int) -> int:
    """`i` is just after the opening `/*`; comments nest as in PostgreSQL."""
    depth = 1
    n = len(sql)
    while depth:
        match = _COMMENT_MARK.search(sql, i)
        if match is None:
            return n
        depth += 1 if match.group() == "/*" else -1
        i = match.end()
    return i


def _is_blank(statement: str) -> bool:
    """True when the text holds nothing but whitespace and comments."""
    i, n = 0, len(statement)
    while i < n:
        if statement[i].isspace():
            i += 1
        elif statement.startswith("--", i):
            nl = statement.find("\n", i)
            i = n if nl < 0 else nl + 1
        elif statement.startswith("/*", i):
            i = _skip_block_comment(statement, i + 2)
        else:
            return False
    return True


def _scan(sql: str) -> Iterator[tuple[str, int, int]]:
    """The spans that matter to statement boundaries: ("comment", start, end) and (";", i, i + 1), in order."""
    i = 0
    n = len(sql)
    while i < n:
        c = sql[i]
        if c == "'":
            escaped = i > 0 and sql[i - 1] in "eE" and (i < 2 or not _IDENT_CHAR.match(sql[i - 2]))
            i = _skip_quoted(sql, i + 1, "'", escaped)
        elif c == '"':
            i = _skip_quoted(sql, i + 1, '"', False)
        elif c == "-" and sql.startswith("--", i):
            nl = sql.find("\n", i)
            end = n if nl < 0 else nl
            yield "comment", i, end
            i = end
        elif c == "/" and sql.startswith("/*", i):
            end = _skip_block_comment(sql, i + 2)
            yield "comment", i, end
            i = end
        elif c == "$" and (i == 0 or not _IDENT_CHAR.match(sql[i - 1])):
            m = _DOLLAR_TAG.match(sql, i)
            if m:
                end = sql.find(m.group(0), m.end())
                i = n if end < 0 else end + len(m.group(0))
            else:
                i += 1
        elif c == ";":
            yield ";", i, i + 1
            i += 1
        else:
            special = _SPECIAL.search(sql, i + 1)  # nothing before the next special character matters
            i = n if special is None else special.start()


def split_statements(sql: str) -> list[str]:
    statements: list[str] = []
    start = 0
    for kind, i, end in _scan(sql):
        if kind == ";":
            statements.append(sql[start:i])
            start = end
    statements.append(sql[start:])
    return [s.strip() for s in statements if not _is_blank(s)]


def mask_comments(sql: str) -> str:
    """`sql` with every comment (line, block, nested block) turned into spaces, newlines kept: each character
    keeps its position (error positions stay right) and every statement head is its first word."""
    spans = [(start, end) for kind, start, end in _scan(sql) if kind == "comment"]
    if not spans:
        return sql
    out: list[str] = []
    at = 0
    for start, end in spans:
        out.append(sql[at:start])
        out.append(re.sub(r"[^\n]", " ", sql[start:end]))
        at = end
    out.append(sql[at:])
    return "".join(out)
