"""Materialize's SUBSCRIBE statement (docs/subscribe.md).

Contract: `parse_subscribe(sql)` returns a `Subscribe` for

    SUBSCRIBE [TO] relation | (query)
      [ENVELOPE UPSERT (KEY (c, ...)) | ENVELOPE DEBEZIUM (KEY (c, ...))]
      [WITH (SNAPSHOT [= bool], PROGRESS [= bool])]
      [AS OF [AT LEAST] expr] [UP TO expr]

or None when `sql` does not start with SUBSCRIBE. The relation is kept as its source text (quoting intact) and the
query as its text slice; AS OF / UP TO as their expression text (the session evaluates them: a number of
milliseconds since the epoch, or a timestamp). Errors: 42601 for the grammar and unknown options, 22023 for an
option value that is not a boolean, 0A000 for WITHIN TIMESTAMP ORDER BY.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.tokens import Parser

_HEAD = re.compile(r"\s*subscribe\b", re.I)
_TRUE = frozenset({"true", "on", "1", "yes", "t"})
_FALSE = frozenset({"false", "off", "0", "no", "f"})


@dataclass(frozen=True, slots=True)
class Subscribe:
    relation: str | None  # the relation's name as written (SUBSCRIBE t)
    query: str | None  # SUBSCRIBE (query)
    snapshot: bool = True
    progress: bool = False
    as_of: str | None = None  # expression text
    up_to: str | None = None
    envelope: str | None = None  # "upsert" | "debezium"
    keys: tuple[str, ...] = ()

    @property
    def select(self) -> str:
        """The query whose changes are subscribed to."""
        return self.query if self.query is not None else f"SELECT * FROM {self.relation}"


def _parenthesized(p: Parser) -> str:
    """The text between a `(` at the parser's position and its matching `)`."""
    first = p.peek()
    if first is None or first.kind != "op" or first.text != "(":
        raise p.error()
    depth = 0
    while True:
        t = p.peek()
        if t is None:
            raise p.error()
        p.i += 1
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
            if depth == 0:
                return p.sql[first.end : t.start].strip()


def _relation(p: Parser) -> str:
    start = p.peek()
    p.qualified_name()
    last = p.tokens[p.i - 1]
    assert start is not None
    return p.sql[start.start : last.end]


def _boolean(p: Parser, option: str) -> bool:
    if not p.accept_op("="):
        t = p.peek()
        if t is None or (t.kind == "op" and t.text in ",)"):
            return True
    t = p.peek()
    if t is None or t.kind == "op":
        raise p.error()
    p.i += 1
    word = t.text.lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise e.InvalidParameterValue(f"invalid {option.upper()}: cannot use value as boolean: {t.text!r}")


def _options(p: Parser) -> dict[str, bool]:
    found: dict[str, bool] = {}
    p.expect_op("(")
    while True:
        name = p.name().lower()
        if name not in ("snapshot", "progress"):
            raise e.SyntaxError(f"unrecognized SUBSCRIBE option: {name.upper()}", hint="Options: SNAPSHOT, PROGRESS.")
        if name in found:
            raise e.SyntaxError(f"{name.upper()} specified more than once")
        found[name] = _boolean(p, name)
        if p.accept_op(")"):
            return found
        p.expect_op(",")


def _keys(p: Parser) -> tuple[str, ...]:
    p.expect_op("(")
    p.expect("key")
    p.expect_op("(")
    keys = [p.name()]
    while p.accept_op(","):
        keys.append(p.name())
    p.expect_op(")")
    p.expect_op(")")
    return tuple(keys)


_CLAUSE_STARTS = (("up", "to"), ("as", "of"), ("with",), ("envelope",))


def _expression(p: Parser) -> str:
    """A timestamp expression: the tokens up to the next clause at depth 0 (or the end)."""
    first = p.peek()
    if first is None:
        raise p.error()
    depth, last = 0, first
    while (t := p.peek()) is not None:
        if depth == 0 and t is not first and any(p.at(*words) for words in _CLAUSE_STARTS):
            break
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
        last = t
        p.i += 1
    return p.sql[first.start : last.end]


def parse_subscribe(sql: str) -> Subscribe | None:
    if _HEAD.match(sql) is None:
        return None
    p = Parser(sql.rstrip().rstrip(";"))
    p.i = 1
    p.accept("to")
    t = p.peek()
    if t is not None and t.kind == "op" and t.text == "(":
        relation, query = None, _parenthesized(p)
        if not query:
            raise p.error()
    else:
        relation, query = _relation(p), None
    options: dict[str, bool] = {}
    envelope: str | None = None
    keys: tuple[str, ...] = ()
    as_of = up_to = None
    while p.peek() is not None:
        if p.accept("envelope") and envelope is None:
            if p.accept("upsert"):
                envelope = "upsert"
            elif p.accept("debezium"):
                envelope = "debezium"
            else:
                raise p.error()
            keys = _keys(p)
        elif p.at("within", "timestamp"):
            raise e.FeatureNotSupported("SUBSCRIBE … WITHIN TIMESTAMP ORDER BY is not supported")
        elif p.accept("with") and not options:
            options = _options(p)
        elif p.accept("as", "of") and as_of is None:
            p.accept("at", "least")
            as_of = _expression(p)
        elif p.accept("up", "to") and up_to is None:
            up_to = _expression(p)
        else:
            raise p.error()
    return Subscribe(
        relation,
        query,
        snapshot=options.get("snapshot", True),
        progress=options.get("progress", False),
        as_of=as_of,
        up_to=up_to,
        envelope=envelope,
        keys=keys,
    )
