"""The console's SQL (sparkwire/console/queries.py) without a server: request values only ever become bound
parameters; the SQL text comes from constants and whitelists; ALTER NOTICE, which takes no parameters, accepts
only a canonical uuid and a known status."""

from __future__ import annotations

import pytest

from sparkwire.console import queries as q

HOSTILE = "x'); DROP TABLE t; --\\ $1 █"


def test_filters_are_parameters() -> None:
    f = q.NoticeFilter(status="all", notice_type=HOSTILE, object=HOSTILE, cluster=HOSTILE, text=HOSTILE)
    for full in (True, False):
        query = q.notice_list(full, f)
        assert HOSTILE not in query.sql and "DROP" not in query.sql
        assert query.params == (HOSTILE, HOSTILE.lower(), HOSTILE, HOSTILE.lower())
        assert query.sql.count("$") == 1 + 3 + 1 + 3  # the object and text needles are used three times each
    history = q.history_list(q.HistoryFilter(status="error", application=HOSTILE, user=HOSTILE, text=HOSTILE))
    assert HOSTILE not in history.sql and history.params == ("error", HOSTILE, HOSTILE, HOSTILE.lower())
    assert q.notice_detail(True, HOSTILE).params == (HOSTILE,)
    assert q.object_detail(HOSTILE).params[-1] == HOSTILE and HOSTILE not in q.object_detail(HOSTILE).sql


def test_sort_and_status_come_from_whitelists() -> None:
    query = q.notice_list(True, q.NoticeFilter(status=HOSTILE, sort=HOSTILE, descending=False))
    assert "ORDER BY n.created_at ASC" in query.sql and query.params == ("new",)  # unknown: the defaults
    assert "mz_internal.mz_notices " in query.sql
    assert "mz_internal.mz_notices_redacted " in q.notice_list(False, q.NoticeFilter()).sql
    assert q.notice_list(True, q.NoticeFilter(status="unignored")).params == ("new", "resolved")
    assert "WHERE" not in q.notice_list(True, q.NoticeFilter(status="all")).sql


def test_alter_notice_takes_only_a_uuid_and_a_status() -> None:
    fp = "54127200-c69b-544c-94ae-47b2b26da208"
    assert q.alter_notice(fp.upper(), "ignored").sql == f"ALTER NOTICE '{fp}' SET STATUS = 'ignored'"
    assert q.alter_notice("{" + fp.replace("-", "") + "}", "new").sql == f"ALTER NOTICE '{fp}' RESET STATUS"
    for fingerprint, status in [(f"{fp}'; DROP TABLE t; --", "ignored"), (fp, "ignored'"), ("", "new"),
                                (fp, "done"), ("x" * 100, "new")]:
        with pytest.raises(ValueError):
            q.alter_notice(fingerprint, status)
