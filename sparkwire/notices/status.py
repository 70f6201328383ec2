"""The status a user gives a notice (ALTER NOTICE … SET STATUS), as a typed enum with PostgreSQL-style parsing.

Contract: `parse_status(text)` accepts `new`, `resolved`, `ignored` (case-insensitive, surrounding blanks
ignored) and raises `InvalidParameterValue` (22023) for anything else, naming the allowed values in the hint.
A notice without a stored status is `NEW`; `ignored` notices are not sent to clients. `status_op` is the
catalog op ALTER NOTICE commits: `new` (and RESET STATUS, which is `new`) removes the durable entry.
"""

from __future__ import annotations

from enum import StrEnum

from sparkwire.catalog.ops import ResetNoticeStatus, SetNoticeStatus
from sparkwire.errors import InvalidParameterValue


class NoticeStatus(StrEnum):
    NEW = "new"
    RESOLVED = "resolved"
    IGNORED = "ignored"


def parse_status(text: str) -> NoticeStatus:
    try:
        return NoticeStatus(text.strip().lower())
    except ValueError:
        allowed = ", ".join(s.value for s in NoticeStatus)
        raise InvalidParameterValue(
            f'invalid value for parameter "status": "{text}"', hint=f"Available values: {allowed}."
        ) from None


def status_op(fingerprint: str, status: NoticeStatus, role_id: str) -> SetNoticeStatus | ResetNoticeStatus:
    match status:
        case NoticeStatus.NEW:
            return ResetNoticeStatus(fingerprint)
        case NoticeStatus.RESOLVED:
            return SetNoticeStatus(fingerprint, "resolved", role_id)
        case NoticeStatus.IGNORED:
            return SetNoticeStatus(fingerprint, "ignored", role_id)
