"""The ALTER NOTICE statement's grammar (ours; Materialize's console sets a notice's status the same way).

Contract: `parse_alter_notice(sql)` reads `ALTER NOTICE '<fingerprint>' SET STATUS { = | TO } '<status>'` and
`ALTER NOTICE '<fingerprint>' RESET STATUS` (keywords case-insensitive, an optional trailing `;`; the status may
also be written as a bare word) and returns a `notices.alter.AlterNotice`, or None when the statement is not an
ALTER NOTICE (call it before `ddl.parse_materialize_ddl`, which would reject `ALTER NOTICE`). A statement that
starts `ALTER NOTICE` but breaks the grammar raises 42601 with PostgreSQL's wording and position; a status other
than `new`, `resolved`, `ignored` raises 22023 (`notices.status.parse_status`). RESET STATUS is status `new`.
"""

from __future__ import annotations

import re

from sparkwire.notices.alter import AlterNotice
from sparkwire.notices.status import NoticeStatus, parse_status
from sparkwire.planner.grammar.tokens import Parser

_HEAD = re.compile(r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*alter(?:\s|--[^\n]*\n?|/\*.*?\*/)+notice\b", re.I | re.S)


def parse_alter_notice(sql: str) -> AlterNotice | None:
    if _HEAD.match(sql) is None:
        return None
    p = Parser(sql)
    if p.tokens and p.tokens[-1].kind == "op" and p.tokens[-1].text == ";":
        p.tokens.pop()
    p.expect("alter", "notice")
    token = p.peek()
    if token is None or token.kind != "string":
        raise p.error()
    p.i += 1
    if p.accept("reset", "status"):
        p.end()
        return AlterNotice(token.text, NoticeStatus.NEW)
    p.expect("set", "status")
    if not p.accept_op("="):
        p.expect("to")
    value = p.peek()
    if value is None or value.kind not in ("string", "word", "ident"):
        raise p.error()
    p.i += 1
    p.end()
    return AlterNotice(token.text, parse_status(value.text))
