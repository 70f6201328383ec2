"""The DDL-flavoured parser our grammars for DDL, SHOW and roles share, and the object names they produce.

Contract: `Name` is a possibly qualified object name as written (unquoted words folded to lower case), `quote`
prints an identifier as PostgreSQL's quote_ident does. `DdlParser(sql)` is `tokens.Parser` plus `object_name`
(at most three parts, else 42601 as PostgreSQL), `name_list`, `source_until` / `query_rest` (text slices with
their positions), `skip_balanced`, `like_or_where` (SHOW … LIKE 'p' | WHERE …). `relation_kind(p)` reads TABLE,
VIEW, MATERIALIZED VIEW or INDEX.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sparkwire import errors as e
from sparkwire.catalog.relations.relation import quote_ident
from sparkwire.planner.grammar.tokens import Parser

RelationKind = Literal["table", "view", "materialized-view", "index"]


def quote(name: str) -> str:
    """An identifier as SQL: bare when PostgreSQL would read it back unchanged, else double-quoted (PostgreSQL's
    quote_ident, keywords included)."""
    return quote_ident(name)


@dataclass(frozen=True, slots=True)
class Name:
    """A possibly qualified object name: (name,), (schema, name) or (database, schema, name)."""

    parts: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.parts[-1]

    @property
    def schema(self) -> str | None:
        return self.parts[-2] if len(self.parts) >= 2 else None

    @property
    def database(self) -> str | None:
        return self.parts[-3] if len(self.parts) >= 3 else None

    @property
    def written(self) -> str:
        return ".".join(self.parts)

    def sql(self) -> str:
        return ".".join(quote(p) for p in self.parts)


class DdlParser(Parser):
    """The shared Parser with what DDL needs: a trailing `;` dropped, qualified object names, name lists, source
    slices of types, defaults and queries, LIKE / WHERE filters."""


    def __init__(self, sql: str) -> None:
        super().__init__(sql)
        if self.tokens and self.tokens[-1].kind == "op" and self.tokens[-1].text == ";":
            self.tokens.pop()

    def word(self) -> str | None:
        t = self.peek()
        return t.text if t is not None and t.kind == "word" else None

    def at_op(self, op: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "op" and t.text == op

    def object_name(self) -> Name:
        parts = [self.name()]
        while self.accept_op("."):
            parts.append(self.name())
        if len(parts) > 3:
            raise e.SyntaxError(f"improper qualified name (too many dotted names): {'.'.join(parts)}")
        return Name(tuple(parts))

    def name_list(self) -> tuple[str, ...]:
        self.expect_op("(")
        names = [self.name()]
        while self.accept_op(","):
            names.append(self.name())
        self.expect_op(")")
        return tuple(names)

    def source_until(self, stop_words: frozenset[str], *, first_free: bool = False) -> tuple[str, int]:
        """Source text up to a depth-0 `,`/`)` or stop word (the first token may be a stop word when
        `first_free`); returns (text, 1-based position)."""
        start = self.peek()
        if start is None:
            raise self.error()
        depth = 0
        end = start.end
        taken = 0
        while (t := self.peek()) is not None:
            if depth == 0 and t.kind == "op" and t.text in ",)":
                break
            if depth == 0 and t.kind == "word" and t.text in stop_words and (taken or not first_free):
                break
            if t.kind == "op" and t.text in "([":
                depth += 1
            elif t.kind == "op" and t.text in ")]":
                depth -= 1
            end = t.end
            taken += 1
            self.i += 1
        if not taken:
            raise self.error()
        return self.sql[start.start : end], start.start + 1

    def skip_balanced(self) -> None:
        """Skip a parenthesized group (the current token is its `(`)."""
        depth = 0
        while (t := self.peek()) is not None:
            self.i += 1
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
                if depth == 0:
                    return
        raise self.error()

    def query_rest(self) -> tuple[str, int]:
        t = self.peek()
        if t is None:
            raise self.error()
        last = self.tokens[-1]
        self.i = len(self.tokens)
        return self.sql[t.start : last.end], t.start

    def like_or_where(self) -> tuple[str | None, str | None]:
        if self.accept("like"):
            t = self.peek()
            if t is None or t.kind != "string":
                raise self.error()
            self.i += 1
            self.end()
            return t.text, None
        if self.accept("where"):
            text, _ = self.query_rest()
            return None, text
        self.end()
        return None, None


def relation_kind(p: DdlParser) -> RelationKind | None:
    for words, kind in (
        (("table",), "table"),
        (("view",), "view"),
        (("materialized", "view"), "materialized-view"),
        (("index",), "index"),
    ):
        if p.accept(*words):
            return kind  # type: ignore[return-value]
    return None
