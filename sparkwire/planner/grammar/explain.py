"""The head of an EXPLAIN statement: PostgreSQL's options and Materialize's PLAN … FOR forms.

Contract: `parse_explain(sql)` returns None for a statement that is not EXPLAIN, else `(options, offset)`: the
`ExplainOptions` and where the explained statement starts in `sql`. Accepted heads:
- PostgreSQL: `EXPLAIN [ANALYZE | ANALYSE] [VERBOSE] q` and `EXPLAIN ( option [value] [, …] ) q` with the options
  ANALYZE, VERBOSE, FORMAT { TEXT | JSON | XML | YAML }, and COSTS, SETTINGS, BUFFERS, WAL, TIMING, SUMMARY (accepted,
  no effect on what sparkwire prints). A boolean option takes TRUE/FALSE/ON/OFF/1/0 (quoted or not; alone: true).
  Errors as PostgreSQL's: 42601 `unrecognized EXPLAIN option "x"`, 42601 `analyze requires a Boolean value`,
  42601 `format requires a parameter`,
  22023 `unrecognized value for EXPLAIN option "format": "x"`, 22023 `EXPLAIN option WAL requires ANALYZE` (and
  TIMING set true without ANALYZE).
- Materialize: `EXPLAIN [[RAW | DECORRELATED | [LOCALLY] OPTIMIZED | PHYSICAL] PLAN] [WITH (modifier, …)]
  [AS TEXT | AS JSON] [FOR] q` (`WITH` also before PLAN); the modifier `redacted` is kept, others are accepted;
  `EXPLAIN TIMESTAMP [AS TEXT | AS JSON] FOR q` sets `timestamp` (the query's timestamps: docs/timestamps.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.tokens import Parser

FORMATS = ("text", "json", "xml", "yaml")
_BOOLEAN_OPTIONS = ("analyze", "verbose", "costs", "settings", "buffers", "wal", "timing", "summary")
_TRUE = frozenset({"true", "on", "1"})
_FALSE = frozenset({"false", "off", "0"})
_HEAD = re.compile(r"\s*explain\b", re.I)
_STAGES = ("raw", "decorrelated", "optimized", "physical")


@dataclass(frozen=True, slots=True)
class ExplainOptions:
    analyze: bool = False
    verbose: bool = False
    format: str = "text"  # one of FORMATS
    redacted: bool = False  # Materialize's WITH (redacted)
    timestamp: bool = False  # Materialize's EXPLAIN TIMESTAMP FOR q


def _boolean(name: str, p: Parser, at: int) -> bool:
    t = p.peek()
    if t is None or (t.kind == "op" and t.text in ",)"):
        return True
    p.i += 1
    value = t.text.lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise e.SyntaxError(f"{name} requires a Boolean value", position=at + 1)


def _parenthesized(p: Parser) -> ExplainOptions:
    chosen: dict[str, bool] = {}
    form = "text"
    while True:
        t = p.peek()
        if t is None or t.kind not in ("word", "ident"):
            raise p.error()
        name = "analyze" if t.text == "analyse" else t.text
        p.i += 1
        if name == "format":
            value = p.peek()
            if value is None or value.kind == "op":
                raise e.SyntaxError("format requires a parameter", position=t.start + 1)
            p.i += 1
            form = value.text.lower()
            if form not in FORMATS:
                raise e.InvalidParameterValue(f'unrecognized value for EXPLAIN option "format": "{value.text}"')
        elif name in _BOOLEAN_OPTIONS:
            chosen[name] = _boolean(name, p, t.start)
        else:
            raise e.SyntaxError(f'unrecognized EXPLAIN option "{t.text}"', position=t.start + 1)
        if p.accept_op(")"):
            break
        p.expect_op(",")
    analyze = chosen.get("analyze", False)
    if chosen.get("wal") and not analyze:
        raise e.InvalidParameterValue("EXPLAIN option WAL requires ANALYZE")
    if chosen.get("timing") and not analyze:
        raise e.InvalidParameterValue("EXPLAIN option TIMING requires ANALYZE")
    return ExplainOptions(analyze=analyze, verbose=chosen.get("verbose", False), format=form)


def _modifiers(p: Parser) -> bool:
    """`WITH (modifier, …)` of Materialize: whether `redacted` is among them."""
    p.expect_op("(")
    redacted = False
    depth = 1
    while depth:
        t = p.peek()
        if t is None:
            raise p.error()
        p.i += 1
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif t.kind == "word" and t.text == "redacted":
            redacted = True
    return redacted


def _with_modifiers(p: Parser) -> bool | None:
    """`WITH (modifier, …)` if it comes next (a CTE's `WITH name AS` does not): whether `redacted` is among them."""
    following = p.peek(1)
    if not p.at("with") or following is None or following.text != "(":
        return None
    p.i += 1
    return _modifiers(p)


def _materialize(p: Parser) -> ExplainOptions:
    """What follows EXPLAIN in Materialize's forms; nothing of them is required."""
    if p.at("timestamp", "for") or p.at("timestamp", "as"):
        p.i += 1
        form = "text"
        if p.at("as", "json") or p.at("as", "text"):
            form = p.tokens[p.i + 1].text
            p.i += 2
        p.expect("for")
        return ExplainOptions(format=form, timestamp=True)
    before = _with_modifiers(p)
    planned = p.accept("locally", "optimized", "plan") or any(p.accept(s, "plan") for s in _STAGES) or p.accept("plan")
    after = _with_modifiers(p)
    form = "text"
    if p.at("as", "json") or p.at("as", "text"):
        form = p.tokens[p.i + 1].text
        p.i += 2
    if planned or form != "text" or before is not None or after is not None:
        p.accept("for")
    return ExplainOptions(format=form, redacted=bool(before) or bool(after))


def parse_explain(sql: str) -> tuple[ExplainOptions, int] | None:
    if _HEAD.match(sql) is None:
        return None
    p = Parser(sql)
    p.expect("explain")
    if p.accept_op("("):
        options = _parenthesized(p)
    elif p.at("analyze") or p.at("analyse") or p.at("verbose"):
        analyze = p.accept("analyze") or p.accept("analyse")
        options = ExplainOptions(analyze=analyze, verbose=p.accept("verbose"))
    else:
        options = _materialize(p)
    rest = p.peek()
    if rest is None:
        raise p.error()
    return options, rest.start
