"""ALTER NOTICE: setting the status of an optimizer notice, planned into catalog ops.

Contract:
- `AlterNotice(fingerprint, status)` is the statement (parsed by the planner's grammar,
  `planner/grammar/alter_notice.py`; RESET STATUS is status `new`).
- `plan_alter_notice(stmt, state, role_id, notices)` returns the catalog ops (one `status_op`) for one
  `catalog.transact`; `notices.find(state, fingerprint)` looks the notice up among the state's current notices. A
  fingerprint that is neither a current notice nor a stored status raises 42704 `notice "<fp>" does not exist`.
  Permission (42501): superusers, and the owner of the notice's object (roles it inherits included); a stored status
  whose notice is gone may be changed by superusers and by the role that set it. The fingerprint is compared in
  canonical uuid form (`ALTER NOTICE` accepts any case and the braces/hyphen-less forms `uuid.UUID` reads).
- `TAG` is the CommandComplete tag.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Protocol

from sparkwire import errors as e
from sparkwire.catalog.objects import ObjectRef
from sparkwire.catalog.ops import ResetNoticeStatus, SetNoticeStatus
from sparkwire.catalog.state import CatalogState
from sparkwire.notices.render import OptimizerNotice
from sparkwire.notices.status import NoticeStatus, status_op

TAG = "ALTER NOTICE"


@dataclass(frozen=True, slots=True)
class AlterNotice:
    fingerprint: str  # as written
    status: NoticeStatus


class NoticeLookup(Protocol):
    def find(self, state: CatalogState, fingerprint: str) -> OptimizerNotice | None: ...


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
