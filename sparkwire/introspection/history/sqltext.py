"""How a statement's text is kept in the history: hashed, truncated, and redacted as the notices redact.

Contract: `keep(sql)` → (sql_hash, sql, redacted_sql); a statement that sets a role's password or a secret's value
(CREATE / ALTER SECRET) is kept redacted in both texts (`secret_free`). `sql_hash` is the SHA-256 of the whole text
(Materialize's `sql_hash`), so a truncated text still groups with its twins. Texts longer than `MAX_SQL_BYTES` (UTF-8)
are cut at a character boundary and end with the marker `… [truncated: N bytes]`, N the full length. `redacted_sql`
replaces every literal — strings of any quoting (E'…', $$…$$, $tag$…$tag$, B'…', X'…', U&'…'), numbers — with █ (U+2588,
the notices' redaction mark, `notices.sqltext.REDACTED`); identifiers (quoted too), keywords, operators, comments, `$n`
parameters and NULL stay; an unterminated string is redacted to the end. One compiled regular expression, not a
tokenizer: the history writer runs it for every statement, on its own thread but under the GIL the statements share, so
it must cost microseconds (about 5 µs for a short statement; sqlglot's tokenizer took 130 µs).
"""

from __future__ import annotations

import hashlib
import re

from sparkwire.notices.sqltext import REDACTED

MAX_SQL_BYTES = 65536
# One pass over the text, left to right: prefixed strings first (E'…' is no identifier E), then what may contain
# quote characters or digits without being a literal (quoted identifiers, comments, identifiers, $n parameters),
# kept; every other match is a literal and is replaced.
_LEXEMES = re.compile(
    r"""
      (?P<prefixed>[eE]'(?:[^'\\]|\\.|'')*(?:'|$)   # E'escape\'d' (to the end of the text when unterminated)
      | (?:[bBxXnN]|[uU]&)'(?:[^']|'')*(?:'|$)      # B'101', X'1F', N'…', U&'…'
      )
    | (?P<keep>"(?:[^"]|"")*"                     # "quoted identifier"
      | --[^\n]*                                  # -- line comment
      | /\*.*?\*/                                  # /* block comment */
      | \$\d+                                     # $1: a parameter, not a literal
      | [A-Za-z_\x80-\U0010ffff][\w$]*             # identifiers and keywords (t1 is no number)
      )
    | \$\$.*?\$\$                                  # $$dollar quoted$$
    | \$(?P<tag>[A-Za-z_]\w*)\$.*?\$(?P=tag)\$
    | '(?:[^']|'')*(?:'|$)
    | (?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?
    """,
    re.S | re.X,
)


_WITH_PASSWORD = re.compile(
    r"\b(?:CREATE|ALTER)\s+(?:ROLE|USER)\b.*\bPASSWORD\b|\b(?:CREATE|ALTER)\s+SECRET\b", re.I | re.S
)


def secret_free(sql: str) -> str:
    """`sql`, or its redacted form when it is a CREATE / ALTER ROLE that sets a password or a CREATE / ALTER SECRET:
    a password or secret never reaches the history's `sql` nor pg_stat_activity's `query`, whoever may read them."""
    return redact(sql) if _WITH_PASSWORD.search(sql) else sql


def truncated(sql: str) -> str:
    data = sql.encode()
    if len(data) <= MAX_SQL_BYTES:
        return sql
    head = data[:MAX_SQL_BYTES].decode(errors="ignore")
    return f"{head}… [truncated: {len(data)} bytes]"


def _replace(match: re.Match[str]) -> str:
    return match.group(0) if match.group("keep") is not None else REDACTED


def redact(sql: str) -> str:
    return _LEXEMES.sub(_replace, sql)


def keep(sql: str) -> tuple[bytes, str, str]:
    sql = secret_free(sql)  # the hash too: a weak password would fall to a dictionary over its statement's hash
    digest = hashlib.sha256(sql.encode()).digest()
    kept = truncated(sql)
    return digest, kept, redact(kept)
