"""A small keyword-driven grammar for the utility statements sqlglot does not model (or models loosely).

Contract: `parse_utility(sql)` returns a frozen dataclass describing one transaction-control, SET/RESET/SHOW,
ALTER SYSTEM SET/RESET, DISCARD, PREPARE/EXECUTE/DEALLOCATE, DECLARE/FETCH/MOVE/CLOSE or COPY statement, or None
when the statement is not one of those (it then goes to sqlglot). A statement that starts like one of them but
does not follow its grammar raises 42601 like PostgreSQL. Embedded queries (PREPARE … AS q, DECLARE … FOR q,
COPY (q) TO) are returned as the original text slice, so their planning is the caller's job.
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
        if kind == "string":
            text = _unescape_e(text[2:-1]) if text[0] in "eE" else text[1:-1].replace("''", "'")
        elif kind == "ident":
            text = text[1:-1].replace('""', '"')
        elif kind == "word":
            text = text.lower()
        tokens.append(Token(kind, text, m.start(), m.end()))
    return tokens


# ---- statements ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Begin:
    isolation: str | None = None
    read_only: bool | None = None


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


@dataclass(frozen=True, slots=True)
class CloseCursor:
    name: str | None  # None = ALL


@dataclass(frozen=True, slots=True)
class CopyOptions:
    format: str = "text"
    header: bool = False
    delimiter: str | None = None
    null: str | None = None
    quote: str = '"'
    escape: str | None = None


@dataclass(frozen=True, slots=True)
class CopyTo:
    query: str | None  # COPY (query) TO STDOUT
    table: str | None  # COPY table [(columns)] TO STDOUT
    columns: tuple[str, ...]
    options: CopyOptions


@dataclass(frozen=True, slots=True)
class CopyFrom:
    table: str
    columns: tuple[str, ...]
    options: CopyOptions


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


# ---- the parser ------------------------------------------------------------------------------------------


class _Parser:
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


def _isolation_and_access(p: _Parser) -> tuple[str | None, bool | None]:
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


def _transaction(p: _Parser, first: str) -> Utility:
    if first in ("begin", "start"):
        if first == "start":
            p.expect("transaction")
        else:
            p.accept("transaction") or p.accept("work")
        return Begin(*_isolation_and_access(p))
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


def _set(p: _Parser) -> Utility:
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
    if p.accept("names"):
        value = p.value() if p.peek() is not None else "UTF8"
        p.end()
        return SetVariable("client_encoding", value, local)
    if p.accept("session", "authorization") or p.accept("role"):
        return SetVariable("session_authorization", p.value(), local)
    name = p.qualified_name()
    return SetVariable(name, _set_value(p), local)


def _set_value(p: _Parser) -> str | None:
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


def _alter_system(p: _Parser) -> AlterSystem:
    p.expect("system")
    if p.accept("reset"):
        name = None if p.accept("all") else p.qualified_name()
        p.end()
        return AlterSystem(name, None)
    p.expect("set")
    name = p.qualified_name()
    return AlterSystem(name, _set_value(p))


def _parenthesized_list(p: _Parser) -> tuple[str, ...]:
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


def _prepare(p: _Parser) -> Utility:
    name = p.name()
    types = _parenthesized_list(p)
    p.expect("as")
    return Prepare(name, types, p.rest())


def _execute(p: _Parser) -> Utility:
    name = p.name()
    args = _parenthesized_list(p)
    p.end()
    return ExecutePrepared(name, args)


def _declare(p: _Parser) -> Utility:
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


def _fetch(p: _Parser, move: bool) -> Utility:
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
    p.end()
    return Fetch(name, count, move)


def _copy_options(p: _Parser) -> CopyOptions:
    opts: dict[str, str | bool] = {}
    p.accept("with")
    if p.accept_op("("):
        while True:
            key = p.name()
            t = p.peek()
            if t is not None and not (t.kind == "op" and t.text in ",)"):
                opts[key] = p.value()
            else:
                opts[key] = True
            if p.accept_op(")"):
                break
            p.expect_op(",")
    else:  # the pre-9.0 syntax: WITH CSV HEADER DELIMITER ',' NULL '' …
        while p.peek() is not None:
            if p.accept("csv") or p.accept("binary") or p.accept("text"):
                opts["format"] = p.tokens[p.i - 1].text
            elif p.accept("header"):
                opts["header"] = True
            elif p.accept("delimiter") or p.accept("null") or p.accept("quote") or p.accept("escape"):
                key = p.tokens[p.i - 1].text
                p.accept("as")
                opts[key] = p.value()
            else:
                raise p.error()
    p.end()
    return _build_copy_options(opts)


def _build_copy_options(opts: dict[str, str | bool]) -> CopyOptions:
    fmt = str(opts.pop("format", "text")).lower()
    if fmt not in ("text", "csv", "binary"):
        raise e.InvalidParameterValue(f'COPY format "{fmt}" not recognized')
    header = opts.pop("header", False)
    header_on = header is True or str(header).lower() in ("on", "true", "1")
    result = CopyOptions(format=fmt, header=header_on)
    fields: dict[str, str] = {}
    for key, value in opts.items():
        if key not in ("delimiter", "null", "quote", "escape"):
            raise e.SyntaxError(f'option "{key}" not recognized')
        fields[key] = str(value)
    for key in ("delimiter", "null"):
        if fmt == "binary" and key in fields:
            raise e.SyntaxError(f"cannot specify {key.upper()} in BINARY mode")
    if "delimiter" in fields and len(fields["delimiter"]) != 1:
        raise e.FeatureNotSupported("COPY delimiter must be a single one-byte character")
    if fmt == "binary" and header_on:
        raise e.FeatureNotSupported("cannot specify HEADER in BINARY mode")
    for key in ("quote", "escape"):
        if fmt != "csv" and key in fields:
            raise e.FeatureNotSupported(f"COPY {key} available only in CSV mode")
    return CopyOptions(
        format=result.format,
        header=result.header,
        delimiter=fields.get("delimiter"),
        null=fields.get("null"),
        quote=fields.get("quote", '"'),
        escape=fields.get("escape"),
    )


def _copy(p: _Parser) -> Utility:
    query: str | None = None
    table: str | None = None
    columns: list[str] = []
    t = p.peek()
    if t is not None and t.kind == "op" and t.text == "(":
        depth = 0
        start = t.start
        while True:
            tok = p.peek()
            if tok is None:
                raise p.error()
            p.i += 1
            if tok.kind == "op" and tok.text == "(":
                depth += 1
            elif tok.kind == "op" and tok.text == ")":
                depth -= 1
                if depth == 0:
                    query = p.sql[start + 1 : tok.start].strip()
                    break
    else:
        table = p.qualified_name()
        if p.accept_op("("):
            columns.append(p.name())
            while p.accept_op(","):
                columns.append(p.name())
            p.expect_op(")")
    if p.accept("to"):
        if not p.accept("stdout"):
            raise e.InsufficientPrivilege("COPY to or from a file is prohibited", hint="Use COPY … TO STDOUT.")
        return CopyTo(query, table, tuple(columns), _copy_options(p))
    if p.accept("from"):
        if query is not None:
            raise p.error()
        if not p.accept("stdin"):
            raise e.InsufficientPrivilege("COPY to or from a file is prohibited", hint="Use COPY … FROM STDIN.")
        assert table is not None
        return CopyFrom(table, tuple(columns), _copy_options(p))
    raise p.error()


def parse_utility(sql: str) -> Utility | None:
    head = re.match(r"\s*([A-Za-z]+)", sql)
    if head is None:
        return None
    first = head.group(1).lower()
    if first not in _STARTERS or (first == "alter" and _ALTER_SYSTEM.match(sql) is None):
        return None
    p = _Parser(sql)
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
    return _copy(p)


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
