"""The objects and query-history pages (beyond the seed), read as the login's role.

Contract:
- GET /objects: user objects grouped by database.schema — tables, views, materialized views and indexes (with the
  relation an index is on) — with their cluster, owner, the notices the role sees about each (active / all, linked
  to the filtered notice list) and freshness (mz_internal.mz_materialization_lag local lag and
  mz_hydration_statuses). Query parameters: `type` (table, view, materialized-view, index) and `q` (name search).
- GET /objects/{id}: one object: the same facts, its CREATE statement as the catalog's redacted_create_sql, and its
  notices. 404 for an id the role does not see.
- GET /history: mz_internal.mz_recent_activity_log as the role reads it (superusers and mz_monitor every
  statement, every other role its own), newest first, 500 at most. Query parameters: `status` (success, error,
  canceled, aborted, running), `app` (application_name), `user`, `q` (text search in the SQL), `console` (include
  the console's own statements; off by default).
- GET /history/{execution_id}: one statement: every column, and its lifecycle events when the role may read them.
"""

from __future__ import annotations

import datetime
import re
from collections import defaultdict

from starlette.requests import Request
from starlette.responses import Response

from sparkwire.console import queries as q
from sparkwire.console.logins import Login
from sparkwire.console.pages_notices import notices_sql
from sparkwire.console.sql import APPLICATION_NAME
from sparkwire.console.web import NotFound, query_url, render, require_login, run_sql
from sparkwire.errors import PgError

_OBJECT_ID = re.compile(r"[us][0-9]{1,18}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
KIND_LABELS = {"table": "table", "view": "view", "materialized-view": "materialized view", "index": "index"}


async def _notice_counts(login: Login) -> dict[str, tuple[int, int]]:
    table, _ = await notices_sql(login, q.notice_counts)
    return {str(r[0]): (int(str(r[2] or 0)), int(str(r[1] or 0))) for r in table.rows if r[0] is not None}


async def objects(request: Request) -> Response:
    login = await require_login(request)
    kind = request.query_params.get("type", "")
    kind = kind if kind in q.OBJECT_KINDS else ""
    needle = request.query_params.get("q", "")[:200].strip()
    table = await run_sql(login, q.OBJECTS)
    counts = await _notice_counts(login)
    groups: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in table.dicts():
        if kind and row["type"] != kind:
            continue
        if needle and needle.lower() not in str(row["name"]).lower():
            continue
        row["active"], row["notices"] = counts.get(str(row["id"]), (0, 0))
        groups[f"{row['database_name'] or ''}.{row['schema_name']}".lstrip(".")].append(row)
    return render(
        request, "objects.html", login, groups=dict(sorted(groups.items())), kind=kind, needle=needle,
        kinds=KIND_LABELS,
    )


async def object_detail(request: Request) -> Response:
    login = await require_login(request)
    object_id = request.path_params["id"]
    if _OBJECT_ID.fullmatch(object_id) is None:
        raise NotFound("There is no object with this id.")
    rows = (await run_sql(login, q.object_detail(object_id))).dicts()
    if not rows:
        raise NotFound("There is no object with this id, or it is not a table, view, materialized view or index.")
    definition = await run_sql(login, q.object_definition(object_id))
    f = q.NoticeFilter(status="all", object=object_id)
    notices, full = await notices_sql(login, lambda full: q.notice_list(full, f))
    return render(
        request, "object.html", login, o=rows[0], kinds=KIND_LABELS, notices=notices.dicts(), full=full,
        create_sql=definition.rows[0][0] if definition.rows else None,
        back=f"/notices?object={object_id}&status=all",
    )


def _history_filter(request: Request) -> tuple[q.HistoryFilter, bool, dict[str, str]]:
    p = request.query_params
    status = p.get("status", "")
    include_console = p.get("console", "") == "1"
    f = q.HistoryFilter(
        status=status if status in q.HISTORY_STATUSES else "",
        application=p.get("app", "")[:200],
        user=p.get("user", "")[:200].strip(),
        text=p.get("q", "")[:300].strip(),
    )
    params = {"status": f.status, "app": f.application, "user": f.user, "q": f.text,
              "console": "1" if include_console else ""}
    return f, include_console, params


async def history(request: Request) -> Response:
    login = await require_login(request)
    f, include_console, params = _history_filter(request)
    # the console's own statements would crowd out everything else: left out unless asked for (a Python filter
    # over the rows, so the LIMIT is raised to keep a page's worth)
    query = q.history_list(f if include_console or f.application else q.HistoryFilter(
        f.status, f.application, f.user, f.text, limit=5000))
    table = await run_sql(login, query)
    rows = table.dicts()
    if not include_console and not f.application:
        rows = [r for r in rows if r["application_name"] != APPLICATION_NAME][: f.limit]
    for row in rows:
        began, finished = row["began_at"], row["finished_at"]
        row["duration"] = (finished - began if isinstance(began, datetime.datetime)
                           and isinstance(finished, datetime.datetime) else None)
    apps = await run_sql(login, q.history_applications())
    applications = sorted({str(r[0]) for r in apps.rows if r[0] is not None} | ({f.application} - {""}))
    return render(
        request, "history.html", login, rows=rows, f=f, include_console=include_console,
        statuses=q.HISTORY_STATUSES, applications=applications,
        url=lambda **changes: query_url("/history", params, **changes),
    )


async def statement_detail(request: Request) -> Response:
    login = await require_login(request)
    execution_id = request.path_params["execution_id"]
    if _UUID.fullmatch(execution_id) is None:
        raise NotFound("There is no statement with this id.")
    rows = (await run_sql(login, q.history_detail(execution_id))).dicts()
    if not rows:
        raise NotFound("There is no statement with this id in your statement history.")
    try:
        events = (await run_sql(login, q.statement_lifecycle(execution_id))).dicts()
    except PgError as exc:
        if exc.code != "42501":
            raise
        events = []
    row = rows[0]
    began, finished = row["began_at"], row["finished_at"]
    duration = (finished - began if isinstance(began, datetime.datetime)
                and isinstance(finished, datetime.datetime) else None)
    return render(request, "statement.html", login, s=row, events=events, duration=duration)
