"""The optimizer-notice relations of mz_internal, rendered from a `CatalogState`: mz_optimizer_notices, mz_notices,
mz_notices_redacted and mz_ignored_optimizer_notices.

Contract: `NOTICE_RELATIONS` lists them (the `BuiltinRelation` pattern of catalog/relations/mz.py; every row is a
pure function of the state, see `sparkwire.notices.catalog_notices`).
- mz_optimizer_notices: one row per stored notice: `id` (`<object id>.<n>`, n counting the object's notices from
  1), the texts and their redacted versions (NULL when nothing was redacted), `action_type`, `object_id`,
  `dependency_ids` (text list), `created_at` / `updated_at`, `fingerprint` (uuid), `status` (`new`, `resolved`,
  `ignored`) and `docs` (the path of the notice type's docs page).
- mz_notices: the union of every notice source (the optimizer's today): the same columns without `dependency_ids`.
- mz_notices_redacted: mz_notices with `message`, `hint` and `action` rebound to their redacted versions and no
  redacted_* columns.
- mz_ignored_optimizer_notices: every status set by ALTER NOTICE (durable; it outlives the notices it names, so a
  notice re-created with identical DDL keeps its status): fingerprint, status, set_by (role id), set_at.

Sensitivities: `superuser` for mz_optimizer_notices, mz_notices and mz_ignored_optimizer_notices,
`superuser_and_support` for mz_notices_redacted. Who may read them beyond that (mz_monitor, mz_monitor_redacted,
and the row filter on `object_id` of mz_notices_redacted for other roles, issue 5 item 7) is decided by name in
`sparkwire.planner.security.privileges`.
"""

from __future__ import annotations

from sparkwire.catalog.relations.relation import BuiltinRelation, Row, RowsOf, Sensitivity, parse_columns
from sparkwire.catalog.state import CatalogState
from sparkwire.notices.catalog_notices import CATALOG_NOTICES
from sparkwire.notices.render import OptimizerNotice

OPTIMIZER_NOTICES = "mz_optimizer_notices"
NOTICES = "mz_notices"
NOTICES_REDACTED = "mz_notices_redacted"
IGNORED_NOTICES = "mz_ignored_optimizer_notices"

_TEXTS = "notice_type text, message text, hint text, action text"
_REDACTED = "redacted_message text, redacted_hint text, redacted_action text"
_TIMES = "created_at timestamp with time zone, updated_at timestamp with time zone"
_TAIL = f"{_TIMES}, fingerprint uuid, status text, docs text"


def _micros(ms: int) -> int:
    return ms * 1000


def _numbered(state: CatalogState) -> list[tuple[str, OptimizerNotice]]:
    counts: dict[str | None, int] = {}
    out = []
    for notice in CATALOG_NOTICES.of_state(state):
        counts[notice.object_id] = counts.get(notice.object_id, 0) + 1
        out.append((f"{notice.object_id}.{counts[notice.object_id]}", notice))
    return out


def _tail(n: OptimizerNotice) -> Row:
    return (_micros(n.created_at), _micros(n.updated_at), str(n.fingerprint), n.status.value, n.docs)


def _optimizer_notices(state: CatalogState) -> list[Row]:
    return [
        (
            id_,
            n.notice_type,
            n.message,
            n.hint,
            n.action,
            n.redacted_message,
            n.redacted_hint,
            n.redacted_action,
            n.action_type,
            n.object_id,
            n.dependency_ids,
            *_tail(n),
        )
        for id_, n in _numbered(state)
    ]


def _notices(state: CatalogState) -> list[Row]:
    return [row[:10] + row[11:] for row in _optimizer_notices(state)]


def _notices_redacted(state: CatalogState) -> list[Row]:
    return [
        (
            id_,
            n.notice_type,
            n.redacted_message or n.message,
            n.redacted_hint or n.hint,
            n.redacted_action or n.action,
            n.action_type,
            n.object_id,
            *_tail(n),
        )
        for id_, n in _numbered(state)
    ]


def _ignored(state: CatalogState) -> list[Row]:
    return [
        (n.fingerprint, n.status, n.set_by, _micros(n.set_at))
        for n in sorted(state.notices.values(), key=lambda n: n.fingerprint)
    ]


def _relation(name: str, oid: int, columns: str, rows: RowsOf, sensitivity: Sensitivity) -> BuiltinRelation:
    return BuiltinRelation("mz_internal", name, oid, parse_columns(columns), rows, sensitivity)


NOTICE_RELATIONS: tuple[BuiltinRelation, ...] = (
    _relation(
        OPTIMIZER_NOTICES,
        16720,
        f"id text, {_TEXTS}, {_REDACTED}, action_type text, object_id text, dependency_ids text list, {_TAIL}",
        _optimizer_notices,
        "superuser",
    ),
    _relation(
        NOTICES,
        16721,
        f"id text, {_TEXTS}, {_REDACTED}, action_type text, object_id text, {_TAIL}",
        _notices,
        "superuser",
    ),
    _relation(
        NOTICES_REDACTED,
        16722,
        f"id text, {_TEXTS}, action_type text, object_id text, {_TAIL}",
        _notices_redacted,
        "superuser_and_support",
    ),
    _relation(
        IGNORED_NOTICES,
        16723,
        "fingerprint uuid, status text, set_by text, set_at timestamp with time zone",
        _ignored,
        "superuser",
    ),
)
