"""The tokenizer and the small recursive-descent parser that our own statement grammars share.

Contract: `tokenize(sql)` splits statement text into `Token`s (words lower-cased; quoted identifiers and strings
unquoted, E'' escapes applied, dollar-quoted strings (`$$…$$`, `$tag$…$tag$`) read as strings; white space and
comments, `--` and `/* */`, dropped) and raises 42601 at a
character no token starts with. `Parser(sql)` walks those tokens: `at` / `accept` / `expect` match keyword
sequences, `accept_op` / `expect_op` operators, `name` / `qualified_name` identifiers, `value` a SET value,
`integer`, `rest` the text from the current token on (an embedded query), `end` insists nothing is left.
`error()` is PostgreSQL's 42601 `syntax error at or near "…"` (or `at end of input`) with its 1-based position.
Used by utility.py (transaction control, SET, COPY, …), ddl.py / rbac.py (Materialize DDL, roles) and
alter_notice.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire import errors as e


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "ident" (quoted), "string", "number", "op"
    text: str  # words lower-cased; idents and strings unquoted
    start: int
    end: int


_TOKEN = re.compile(
    r"""
    (?P<space>\s+|--[^\n]*|/\*.*?\*/)
  | (?P<string>[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*')
  | (?P<dollar>\$(?P<tag>[A-Za-z_][A-Za-z_0-9]*|)\$.*?\$(?P=tag)\$)
  | (?P<ident>"(?:[^"]|"")*")
  | (?P<number>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|-?\.\d+)
  | (?P<word>[A-Za-z_][A-Za-z_0-9$]*)
  | (?P<op>::|[^\s\w])
    """,
    re.X | re.S,
)


def _unescape_e(body: str) -> str:
    return re.sub(
        r"\\(.)",
        lambda m: {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(m.group(1), m.group(1)),
        body,
    ).replace("''", "'")


def tokenize(sql: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    while pos < len(sql):
        m = _TOKEN.match(sql, pos)
        if m is None:
            raise e.SyntaxError(f'syntax error at or near "{sql[pos]}"', position=pos + 1)
        kind = m.lastgroup or "op"
        text = m.group(0)
        pos = m.end()
        if kind == "space":
            continue
        if kind == "dollar":
            kind, fence = "string", len(m.group("tag") or "") + 2
            text = text[fence:-fence]
        elif kind == "string":
            text = _unescape_e(text[2:-1]) if text[0] in "eE" else text[1:-1].replace("''", "'")
        elif kind == "ident":
            text = text[1:-1].replace('""', '"')
        elif kind == "word":
            text = text.lower()
        tokens.append(Token(kind, text, m.start(), m.end()))
    return tokens


class Parser:
    def __init__(self, sql: str) -> None:
        self.sql = sql
        self.tokens = tokenize(sql)
        self.i = 0

    def peek(self, offset: int = 0) -> Token | None:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, *words: str) -> bool:
        for k, w in enumerate(words):
            t = self.peek(k)
            if t is None or t.kind != "word" or t.text != w:
                return False
        return True

    def accept(self, *words: str) -> bool:
        if self.at(*words):
            self.i += len(words)
            return True
        return False

    def accept_op(self, op: str) -> bool:
        t = self.peek()
        if t is not None and t.kind == "op" and t.text == op:
            self.i += 1
            return True
        return False

    def error(self) -> e.PgError:
        t = self.peek()
        if t is None:
            return e.SyntaxError("syntax error at end of input", position=len(self.sql) + 1)
        return e.SyntaxError(f'syntax error at or near "{self.sql[t.start : t.end]}"', position=t.start + 1)

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise self.error()

    def expect_op(self, op: str) -> None:
        if not self.accept_op(op):
            raise self.error()

    def name(self) -> str:
        t = self.peek()
        if t is None or t.kind not in ("word", "ident"):
            raise self.error()
        self.i += 1
        return t.text

    def qualified_name(self) -> str:
        parts = [self.name()]
        while self.accept_op("."):
            parts.append(self.name())
        return ".".join(parts)

    def rest(self) -> str:
        t = self.peek()
        return "" if t is None else self.sql[t.start :].strip()

    def end(self) -> None:
        if self.peek() is not None:
            raise self.error()

    def value(self) -> str:
        """One SET value: a word, quoted identifier, string or (signed) number."""
        t = self.peek()
        if t is None:
            raise self.error()
        if t.kind == "op" and t.text in "+-":
            self.i += 1
            n = self.peek()
            if n is None or n.kind != "number":
                raise self.error()
            self.i += 1
            return t.text.replace("+", "") + n.text
        if t.kind == "op":
            raise self.error()
        self.i += 1
        return t.text

    def integer(self) -> int:
        t = self.peek()
        if t is None or t.kind != "number" or not re.fullmatch(r"-?\d+", t.text):
            raise self.error()
        self.i += 1
        return int(t.text)
