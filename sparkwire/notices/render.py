"""Rendering raw notices into stored notices (the rows of mz_internal.mz_optimizer_notices).

Contract: `render(raw, state, object_id=…, object_sql=…, now=…)` resolves names against `state` (which must
contain the object and every dependency), fills message/hint/action and their redacted versions (None when
redaction changes nothing), the fingerprint (see `fingerprint`), and the status (the one stored in
`state.notices` under the fingerprint, else `new`). `created_at` defaults to `now`; `render_all` keeps the
`created_at` of a previous incarnation with the same fingerprint (re-derivation at start, CREATE OR REPLACE)
and sets `updated_at` to `now`. A stored notice is valid while its object and dependencies exist (`is_valid`):
the caller removes it in the transaction that drops any of them. `object_id` is None for a SELECT's notices,
whose `object_sql` is the query text.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from sparkwire.catalog.state import CatalogState
from sparkwire.notices.base import Names, RawNotice, docs_path
from sparkwire.notices.fingerprint import fingerprint
from sparkwire.notices.status import NoticeStatus


@dataclass(frozen=True, slots=True)
class OptimizerNotice:
    notice_type: str
    kind: str
    message: str
    hint: str
    action: str | None
    redacted_message: str | None
    redacted_hint: str | None
    redacted_action: str | None
    action_type: str | None
    object_id: str | None
    dependency_ids: tuple[str, ...]
    created_at: int
    updated_at: int
    fingerprint: uuid.UUID
    status: NoticeStatus
    docs: str


def _changed(plain: str | None, redacted: str | None) -> str | None:
    return None if redacted == plain else redacted


def render(
    raw: RawNotice,
    state: CatalogState,
    *,
    object_id: str | None,
    object_sql: str,
    now: int,
    created_at: int | None = None,
) -> OptimizerNotice:
    names = Names(state)
    message = raw.message(names, False)
    hint = raw.hint(names, False)
    action = raw.action(names, False)
    dependencies = raw.dependencies()
    print_ = fingerprint(raw.notice_type, object_sql, (state.items[d].create_sql for d in dependencies), message)
    stored = state.notices.get(str(print_))
    return OptimizerNotice(
        notice_type=raw.notice_type,
        kind=raw.kind,
        message=message,
        hint=hint,
        action=action,
        redacted_message=_changed(message, raw.message(names, True)),
        redacted_hint=_changed(hint, raw.hint(names, True)),
        redacted_action=_changed(action, raw.action(names, True)),
        action_type=None if raw.action_type is None else raw.action_type.value,
        object_id=object_id,
        dependency_ids=dependencies,
        created_at=now if created_at is None else created_at,
        updated_at=now,
        fingerprint=print_,
        status=NoticeStatus.NEW if stored is None else NoticeStatus(stored.status),
        docs=docs_path(raw.kind),
    )


def render_all(
    raws: Iterable[RawNotice],
    state: CatalogState,
    *,
    object_id: str | None,
    object_sql: str,
    now: int,
    previous: Iterable[OptimizerNotice] = (),
) -> list[OptimizerNotice]:
    """Render every raw notice of one object, keeping `created_at` from `previous` incarnations."""
    created = {p.fingerprint: p.created_at for p in previous}
    out = []
    for raw in raws:
        notice = render(raw, state, object_id=object_id, object_sql=object_sql, now=now)
        if notice.fingerprint in created:
            notice = dataclasses.replace(notice, created_at=created[notice.fingerprint])
        out.append(notice)
    return out


def is_valid(notice: OptimizerNotice, state: CatalogState) -> bool:
    ids = notice.dependency_ids if notice.object_id is None else (notice.object_id, *notice.dependency_ids)
    return all(i in state.items for i in ids)
