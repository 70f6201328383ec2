"""ALTER NOTICE: our own grammar for setting the status of an optimizer notice, and its planning into catalog ops.

Contract:
- `parse_alter_notice(sql)` reads `ALTER NOTICE '<fingerprint>' SET STATUS { = | TO } '<status>'` and
  `ALTER NOTICE '<fingerprint>' RESET STATUS` (keywords case-insensitive, an optional trailing `;`; the status may
  also be written as a bare word) and returns an `AlterNotice`, or None when the statement is not an ALTER NOTICE
  (call it before `ddl_grammar.parse_materialize_ddl`, which would reject `ALTER NOTICE`). A statement that starts
  `ALTER NOTICE` but breaks the grammar raises 42601 with PostgreSQL's wording and position; a status other than
  `new`, `resolved`, `ignored` raises 22023 (`status.parse_status`). RESET STATUS is status `new`.
- `plan_alter_notice(stmt, state, role_id, notices)` returns the catalog ops (one `status_op`) for one
  `catalog.transact`; `notices.find(state, fingerprint)` looks the notice up among the state's current notices. A
  fingerprint that is neither a current notice nor a stored status raises 42704 `notice "<fp>" does not exist`.
  Permission (42501): superusers, and the owner of the notice's object (roles it inherits included); a stored status
  whose notice is gone may be changed by superusers and by the role that set it. The fingerprint is compared in
  canonical uuid form (`ALTER NOTICE` accepts any case and the braces/hyphen-less forms `uuid.UUID` reads).
- `TAG` is the CommandComplete tag.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Protocol

from sparkwire import errors as e
from sparkwire.catalog.objects import ObjectRef
from sparkwire.catalog.ops import ResetNoticeStatus, SetNoticeStatus
from sparkwire.catalog.state import CatalogState
from sparkwire.notices.render import OptimizerNotice
from sparkwire.notices.status import NoticeStatus, parse_status, status_op
from sparkwire.planner.grammar.utility import _Parser

TAG = "ALTER NOTICE"
_HEAD = re.compile(r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*alter(?:\s|--[^\n]*\n?|/\*.*?\*/)+notice\b", re.I | re.S)


@dataclass(frozen=True, slots=True)
class AlterNotice:
    fingerprint: str  # as written
    status: NoticeStatus


class NoticeLookup(Protocol):
    def find(self, state: CatalogState, fingerprint: str) -> OptimizerNotice | None: ...


def parse_alter_notice(sql: str) -> AlterNotice | None:
    if _HEAD.match(sql) is None:
        return None
    p = _Parser(sql)
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


def canonical(fingerprint: str) -> str | None:
    try:
        return str(uuid.UUID(fingerprint.strip()))
    except ValueError:
        return None


def plan_alter_notice(
    stmt: AlterNotice, state: CatalogState, role_id: str, notices: NoticeLookup
) -> list[SetNoticeStatus | ResetNoticeStatus]:
    fingerprint = canonical(stmt.fingerprint)
    notice = None if fingerprint is None else notices.find(state, fingerprint)
    stored = None if fingerprint is None else state.notices.get(fingerprint)
    if fingerprint is None or (notice is None and stored is None):
        raise e.UndefinedObject(f'notice "{stmt.fingerprint}" does not exist')
    role = state.roles.get(role_id)
    if role is None or not role.superuser:
        roles = state.effective_roles(role_id)
        if notice is not None and notice.object_id is not None:
            allowed = state.owner_of(ObjectRef("item", notice.object_id)) in roles
        else:
            allowed = stored is not None and stored.set_by in roles
        if not allowed:
            detail = None
            if notice is not None and notice.object_id is not None:
                detail = f"The notice is about {state.describe_item(notice.object_id)}."
            raise e.InsufficientPrivilege(f'must be owner of notice "{fingerprint}"', detail=detail)
    return [status_op(fingerprint, stmt.status, role_id)]
