"""A small keyword-driven grammar for the utility statements sqlglot does not model (or models loosely).

Contract: `parse_utility(sql)` returns a frozen dataclass describing one transaction-control, SET/RESET/SHOW,
ALTER SYSTEM SET/RESET, DISCARD, PREPARE/EXECUTE/DEALLOCATE, DECLARE/FETCH/MOVE/CLOSE or COPY statement, or None
when the statement is not one of those (it then goes to sqlglot). A statement that starts like one of them but
does not follow its grammar raises 42601 like PostgreSQL. Embedded queries (PREPARE … AS q, DECLARE … FOR q,
COPY (q) TO) are returned as the original text slice, so their planning is the caller's job. SET search_path
(and PostgreSQL's `SET SCHEMA 'name'`) stores its schema names quoted as PostgreSQL does (search_path.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.copy_statement import CopyFrom, CopyTo, parse_copy
from sparkwire.planner.grammar.search_path import format_list
from sparkwire.planner.grammar.tokens import Parser

# ---- statements ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Begin:
    isolation: str | None = None
    read_only: bool | None = None
    tag: str = "BEGIN"  # START TRANSACTION's tag is its own, as in PostgreSQL


@dataclass(frozen=True, slots=True)
class Commit:
    pass


@dataclass(frozen=True, slots=True)
class Rollback:
    pass


@dataclass(frozen=True, slots=True)
class Savepoint:
    name: str


@dataclass(frozen=True, slots=True)
class Release:
    name: str


@dataclass(frozen=True, slots=True)
class RollbackTo:
    name: str


@dataclass(frozen=True, slots=True)
class SetVariable:
    name: str
    value: str | None  # None = DEFAULT
    local: bool = False


@dataclass(frozen=True, slots=True)
class ResetVariable:
    name: str | None  # None = ALL


@dataclass(frozen=True, slots=True)
class ShowVariable:
    name: str | None  # None = ALL


@dataclass(frozen=True, slots=True)
class AlterSystem:
    """ALTER SYSTEM SET name { TO | = } value [, …] | DEFAULT, ALTER SYSTEM RESET name | ALL."""

    name: str | None  # None = RESET ALL
    value: str | None  # None = RESET (or DEFAULT)


@dataclass(frozen=True, slots=True)
class SetTransaction:
    isolation: str | None
    read_only: bool | None
    session_default: bool  # SET SESSION CHARACTERISTICS AS TRANSACTION …


@dataclass(frozen=True, slots=True)
class Discard:
    what: str


@dataclass(frozen=True, slots=True)
class Prepare:
    name: str
    param_types: tuple[str, ...]
    query: str


@dataclass(frozen=True, slots=True)
class ExecutePrepared:
    name: str
    args: tuple[str, ...]  # SQL expressions


@dataclass(frozen=True, slots=True)
class Deallocate:
    name: str | None  # None = ALL


@dataclass(frozen=True, slots=True)
class Declare:
    name: str
    binary: bool
    hold: bool
    query: str


@dataclass(frozen=True, slots=True)
class Fetch:
    cursor: str
    count: int | None  # None = ALL
    move: bool
    timeout: str | None = None  # Materialize's FETCH … WITH (TIMEOUT = '1s'), for SUBSCRIBE cursors


@dataclass(frozen=True, slots=True)
class CloseCursor:
    name: str | None  # None = ALL


Utility = (
    Begin
    | Commit
    | Rollback
    | Savepoint
    | Release
    | RollbackTo
    | SetVariable
    | ResetVariable
    | ShowVariable
    | AlterSystem
    | SetTransaction
    | Discard
    | Prepare
    | ExecutePrepared
    | Deallocate
    | Declare
    | Fetch
    | CloseCursor
    | CopyTo
    | CopyFrom
)

TRANSACTION_CONTROL = (Commit, Rollback, RollbackTo)


def _isolation_and_access(p: Parser) -> tuple[str | None, bool | None]:
    isolation: str | None = None
    read_only: bool | None = None
    while p.peek() is not None:
        if p.accept("isolation", "level"):
            for level in (
                "read uncommitted",
                "read committed",
                "repeatable read",
                "strict serializable",
                "serializable",
            ):
                if p.accept(*level.split()):
                    isolation = level
                    break
            else:
                raise p.error()
        elif p.accept("read", "only"):
            read_only = True
        elif p.accept("read", "write"):
            read_only = False
        elif p.accept("deferrable") or p.accept("not", "deferrable"):
            pass
        else:
            raise p.error()
        p.accept_op(",")
    return isolation, read_only


def _transaction(p: Parser, first: str) -> Utility:
    if first in ("begin", "start"):
        if first == "start":
            p.expect("transaction")
        else:
            p.accept("transaction") or p.accept("work")
        return Begin(*_isolation_and_access(p), tag="START TRANSACTION" if first == "start" else "BEGIN")
    if first in ("commit", "end"):
        p.accept("transaction") or p.accept("work")
        p.end()
        return Commit()
    if first in ("rollback", "abort"):
        p.accept("transaction") or p.accept("work")
        if first == "rollback" and p.accept("to"):
            p.accept("savepoint")
            name = p.name()
            p.end()
            return RollbackTo(name)
        p.end()
        return Rollback()
    if first == "savepoint":
        name = p.name()
        p.end()
        return Savepoint(name)
    p.accept("savepoint")  # release
    name = p.name()
    p.end()
    return Release(name)


def _set(p: Parser) -> Utility:
    local = False
    if p.accept("local"):
        local = True
    else:
        p.accept("session")
    if p.accept("characteristics", "as", "transaction"):
        return SetTransaction(*_isolation_and_access(p), session_default=True)
    if p.accept("transaction"):
        return SetTransaction(*_isolation_and_access(p), session_default=False)
    if p.accept("time", "zone"):
        if p.accept("local") or p.accept("default"):
            p.end()
            return SetVariable("TimeZone", None, local)
        value = p.value()
        p.end()
        return SetVariable("TimeZone", value, local)
    if p.at("schema") and (schema := p.peek(1)) is not None and schema.kind == "string":  # SET SCHEMA 'name'
        p.i += 2
        p.end()
        return SetVariable("search_path", format_list([schema.text]), local)
    if p.accept("names"):
        value = p.value() if p.peek() is not None else "UTF8"
        p.end()
        return SetVariable("client_encoding", value, local)
    if p.accept("authorization") or p.accept("session", "authorization"):  # SET [SESSION] SESSION AUTHORIZATION
        authorization = None if p.accept("default") else p.value()
        p.end()
        return SetVariable("session_authorization", authorization, local)
    if p.accept("role"):
        value = p.value()
        p.end()
        return SetVariable("role", None if value == "none" else value, local)
    name = p.qualified_name()
    if name.lower() == "search_path":
        return SetVariable(name, _search_path_value(p), local)
    return SetVariable(name, _set_value(p), local)


def _search_path_value(p: Parser) -> str | None:
    """search_path's elements are schema names: stored quoted as PostgreSQL stores them (search_path.py)."""
    if not (p.accept("to") or p.accept_op("=")):
        raise p.error()
    if p.accept("default"):
        p.end()
        return None
    elements = [p.value()]
    while p.accept_op(","):
        elements.append(p.value())
    p.end()
    return format_list(elements)


def _set_value(p: Parser) -> str | None:
    """`{ TO | = } { value [, …] | DEFAULT }` to the end of the statement; None = DEFAULT."""
    if not (p.accept("to") or p.accept_op("=")):
        raise p.error()
    if p.accept("default"):
        p.end()
        return None
    values = [p.value()]
    while p.accept_op(","):
        values.append(p.value())
    p.end()
    return ", ".join(values)


def _alter_system(p: Parser) -> AlterSystem:
    p.expect("system")
    if p.accept("reset"):
        name = None if p.accept("all") else p.qualified_name()
        p.end()
        return AlterSystem(name, None)
    p.expect("set")
    name = p.qualified_name()
    return AlterSystem(name, _set_value(p))


def _parenthesized_list(p: Parser) -> tuple[str, ...]:
    """An optional `( item, item, … )` whose items are kept as source text (nested parentheses allowed)."""
    items: list[str] = []
    if not p.accept_op("("):
        return ()
    first = p.peek()
    begin = first.start if first else len(p.sql)
    depth = 0
    while True:
        t = p.peek()
        if t is None:
            raise p.error()
        p.i += 1
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")" and depth:
            depth -= 1
        elif t.kind == "op" and t.text in ",)" and not depth:
            items.append(p.sql[begin : t.start].strip())
            nxt = p.peek()
            begin = nxt.start if nxt else len(p.sql)
            if t.text == ")":
                return tuple(items)


def _prepare(p: Parser) -> Utility:
    name = p.name()
    types = _parenthesized_list(p)
    p.expect("as")
    return Prepare(name, types, p.rest())


def _execute(p: Parser) -> Utility:
    name = p.name()
    args = _parenthesized_list(p)
    p.end()
    return ExecutePrepared(name, args)


def _declare(p: Parser) -> Utility:
    name = p.name()
    binary = hold = False
    while not p.at("cursor"):
        if p.accept("binary"):
            binary = True
        elif p.accept("insensitive") or p.accept("asensitive") or p.accept("no", "scroll"):
            pass
        elif p.accept("scroll"):
            raise e.FeatureNotSupported("SCROLL cursors are not supported")
        else:
            raise p.error()
    p.expect("cursor")
    if p.accept("with", "hold"):
        hold = True
    else:
        p.accept("without", "hold")
    p.expect("for")
    return Declare(name, binary, hold, p.rest())


def _fetch(p: Parser, move: bool) -> Utility:
    count: int | None = 1
    if p.accept("forward", "all") or p.accept("all"):
        count = None
    elif p.accept("next"):
        count = 1
    elif p.accept("forward") or (p.peek() is not None and p.peek().kind == "number"):  # type: ignore[union-attr]
        t = p.peek()
        if t is not None and t.kind == "number":
            count = p.integer()
    elif any(p.accept(w) for w in ("prior", "first", "last", "absolute", "relative", "backward")):
        raise e.FeatureNotSupported("cursor can only scan forward")
    if count is not None and count < 0:
        raise e.FeatureNotSupported("cursor can only scan forward")
    p.accept("from") or p.accept("in")
    name = p.name()
    timeout = None
    if not move and p.accept("with"):
        p.expect_op("(")
        if p.name() != "timeout":
            raise p.error()
        p.accept_op("=")
        timeout = p.value()
        p.expect_op(")")
    p.end()
    return Fetch(name, count, move, timeout)


def parse_utility(sql: str) -> Utility | None:
    head = re.match(r"\s*([A-Za-z]+)", sql)
    if head is None:
        return None
    first = head.group(1).lower()
    if first not in _STARTERS or (first == "alter" and _ALTER_SYSTEM.match(sql) is None):
        return None
    p = Parser(sql)
    p.i = 1
    if first in ("begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release"):
        return _transaction(p, first)
    if first == "set":
        return _set(p)
    if first == "alter":
        return _alter_system(p)
    if first == "reset":
        if p.accept("all"):
            p.end()
            return ResetVariable(None)
        if p.accept("time", "zone"):
            p.end()
            return ResetVariable("TimeZone")
        if p.accept("session", "authorization"):
            p.end()
            return ResetVariable("session_authorization")
        name = p.qualified_name()
        p.end()
        return ResetVariable(name)
    if first == "show":
        if p.accept("all"):
            p.end()
            return ShowVariable(None)
        if p.accept("time", "zone"):
            p.end()
            return ShowVariable("TimeZone")
        if p.accept("transaction", "isolation", "level"):
            p.end()
            return ShowVariable("transaction_isolation")
        name = p.qualified_name()
        p.end()
        return ShowVariable(name)
    if first == "discard":
        what = p.name()
        if what not in ("all", "plans", "sequences", "temp", "temporary"):
            raise p.error()
        p.end()
        return Discard(what.upper())
    if first == "prepare":
        if p.at("transaction"):
            raise e.FeatureNotSupported("PREPARE TRANSACTION is not supported")
        return _prepare(p)
    if first == "execute":
        return _execute(p)
    if first == "deallocate":
        p.accept("prepare")
        if p.accept("all"):
            p.end()
            return Deallocate(None)
        name = p.name()
        p.end()
        return Deallocate(name)
    if first == "declare":
        return _declare(p)
    if first in ("fetch", "move"):
        return _fetch(p, first == "move")
    if first == "close":
        if p.accept("all"):
            p.end()
            return CloseCursor(None)
        name = p.name()
        p.end()
        return CloseCursor(name)
    return parse_copy(p)


_ALTER_SYSTEM = re.compile(r"\s*alter\s+system\b", re.I)
_STARTERS = frozenset(
    [
        "begin",
        "start",
        "commit",
        "end",
        "rollback",
        "abort",
        "savepoint",
        "release",
        "set",
        "reset",
        "show",
        "alter",
        "discard",
        "prepare",
        "execute",
        "deallocate",
        "declare",
        "fetch",
        "move",
        "close",
        "copy",
    ]
)
