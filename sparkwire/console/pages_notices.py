"""The notice pages: the list (the seed's wireframe), a notice's detail, status changes, the badge and the docs.

Contract (every page needs a login; every query runs as the login's role through its session):
- GET /notices: every notice the role may see — from mz_internal.mz_notices when the role may read it, else
  mz_notices_redacted (redacted texts; other roles see only their objects' notices) — with its type, object,
  message, status and creation time. Query parameters: `status` (`open` = hide ignored and resolved, the
  default; `unignored` = hide ignored; `all`), `type`, `object` (name, schema.name or id), `cluster`, `q` (text
  search in message, hint and object name), `sort` (created, type, object, status, cluster) and `dir` (asc,
  desc), `page` (50 a page). Each row changes its status inline (a form per action).
- POST /notices/status (`fingerprint`, `status` new|resolved|ignored, `csrf`, `back`): runs ALTER NOTICE as the
  role (42501 for a notice it does not own is shown as that error), then redirects to `back` (only console paths
  are accepted) with a message.
- GET /notices/{fingerprint}: Notice, Hint and Corrective Action (a copyable SQL snippet when action_type is
  sql_statements, else the action's Markdown rendered), the object with a link, the fingerprint, a "Learn more"
  link to the type's docs page and the status actions. 404 when the role sees no such notice.
- GET /api/badge: `{"active": n}`, the number of notices with status new the role sees (polled by console.js).
- GET /docs/notices/{name}: a notice type's documentation page (docs.py), 404 for anything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from sparkwire.console import queries as q
from sparkwire.console.docs import page_name
from sparkwire.console.logins import Login
from sparkwire.console.sql import Table
from sparkwire.console.web import (
    BadRequest,
    NotFound,
    check_csrf,
    console_of,
    login_of,
    query_url,
    read_form,
    render,
    require_login,
    run_sql,
)
from sparkwire.errors import PgError

PAGE_SIZE = 50
_BACK = re.compile(r"/notices(/[0-9a-f-]{36})?(\?[A-Za-z0-9_.~%&=+-]*)?")
_ACTION_MD = MarkdownIt("js-default")
STATUS_DONE = {"new": "is active again", "resolved": "is marked resolved", "ignored": "is ignored"}


async def notices_sql(login: Login, build: Callable[[bool], q.Query]) -> tuple[Table, bool]:
    """Run `build(full)` with `full` = whether the role may read mz_notices (probed once per login; a privilege
    lost since falls back to the redacted relation)."""
    if login.full_notices is None:
        try:
            await run_sql(login, q.Query(q.probe_full_notices()))
            login.full_notices = True
        except PgError as exc:
            if exc.code != "42501":
                raise
            login.full_notices = False
    try:
        return await run_sql(login, build(login.full_notices)), login.full_notices
    except PgError as exc:
        if exc.code != "42501" or not login.full_notices:
            raise
        login.full_notices = False
        return await run_sql(login, build(False)), False


def _filter(request: Request) -> q.NoticeFilter:
    p = request.query_params
    status = p.get("status", q.DEFAULT_STATUS_FILTER)
    sort = p.get("sort", q.DEFAULT_NOTICE_SORT)
    return q.NoticeFilter(
        status=status if status in q.STATUS_FILTERS else q.DEFAULT_STATUS_FILTER,
        notice_type=p.get("type", "")[:200],
        object=p.get("object", "")[:300].strip(),
        cluster=p.get("cluster", "")[:200],
        text=p.get("q", "")[:300].strip(),
        sort=sort if sort in q.NOTICE_SORTS else q.DEFAULT_NOTICE_SORT,
        descending=p.get("dir", "desc") != "asc",
    )


def _page_number(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    return int(raw) if raw.isdigit() and 0 < len(raw) < 7 and int(raw) > 0 else 1


async def notice_list(request: Request) -> Response:
    login = await require_login(request)
    f = _filter(request)
    table, full = await notices_sql(login, lambda full: q.notice_list(full, f))
    choices, _ = await notices_sql(login, q.notice_choices)
    rows = table.dicts()
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    page = min(_page_number(request), pages)
    shown = rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    params = {
        "status": f.status if f.status != q.DEFAULT_STATUS_FILTER else "",
        "type": f.notice_type, "object": f.object, "cluster": f.cluster, "q": f.text,
        "sort": f.sort if f.sort != q.DEFAULT_NOTICE_SORT else "", "dir": "" if f.descending else "asc",
    }
    types = sorted({str(r[0]) for r in choices.rows if r[0]} | ({f.notice_type} if f.notice_type else set()))
    clusters = sorted({str(r[1]) for r in choices.rows if r[1]} | ({f.cluster} if f.cluster else set()))

    def url(**changes: object) -> str:
        return query_url("/notices", params, **changes)

    def sort_url(key: str) -> str:
        """A column header: the same column again flips the order; another starts ascending (newest first for
        the creation time)."""
        descending = not f.descending if f.sort == key else key == "created"
        return url(sort=key if key != q.DEFAULT_NOTICE_SORT else "", dir="" if descending else "asc", page="")

    return render(
        request, "notices.html", login, f=f, rows=shown, total=len(rows), page=page, pages=pages,
        first=(page - 1) * PAGE_SIZE + 1, full=full, url=url, sort_url=sort_url, types=types, clusters=clusters,
        status_filters=q.STATUS_FILTERS, sorts=q.NOTICE_SORTS, back=url(page=page if page > 1 else ""),
        truncated=table.truncated,
    )


async def notice_detail(request: Request) -> Response:
    login = await require_login(request)
    try:
        fingerprint = q.canonical_fingerprint(request.path_params["fingerprint"])
    except ValueError:
        raise NotFound("There is no notice with this fingerprint.") from None
    table, full = await notices_sql(login, lambda full: q.notice_detail(full, fingerprint))
    rows = table.dicts()
    if not rows:
        raise NotFound("There is no notice with this fingerprint, or your role may not see it.")
    notice = rows[0]
    docs = console_of(request).docs
    name = page_name(notice["docs"])
    action = notice["action"]
    action_html = None
    if isinstance(action, str) and notice["action_type"] != "sql_statements":
        action_html = Markup(_ACTION_MD.render(action))  # raw HTML off: the action's text is escaped
    return render(
        request, "notice.html", login, n=notice, full=full, doc_name=name,
        doc_title=docs.title(name) if name else None, action_html=action_html, back=f"/notices/{fingerprint}",
        statuses=q.STATUSES, alter_sql={s: q.alter_notice(fingerprint, s).sql for s in q.STATUSES},
    )


async def change_status(request: Request) -> Response:
    login = await require_login(request)
    form = await read_form(request)
    check_csrf(login, form, request)
    status = form.get("status", "")
    try:
        query = q.alter_notice(form.get("fingerprint", ""), status)
    except ValueError:
        raise BadRequest("Not a notice fingerprint and status (new, resolved or ignored).") from None
    back = form.get("back", "")
    if _BACK.fullmatch(back) is None:
        back = "/notices"
    await run_sql(login, query)
    login.flash = f"Notice {q.canonical_fingerprint(form['fingerprint'])} {STATUS_DONE[status]}."
    return RedirectResponse(back, status_code=303)


async def badge(request: Request) -> Response:
    login = await login_of(request)
    if login is None:
        return JSONResponse({"error": "not logged in"}, status_code=401)
    table, _ = await notices_sql(login, q.active_count)
    count = table.rows[0][0] if table.rows else 0
    return JSONResponse({"active": int(count) if isinstance(count, int) else 0},
                        headers={"Cache-Control": "no-store"})


async def notice_doc(request: Request) -> Response:
    login = await require_login(request)
    name = request.path_params["name"]
    docs = console_of(request).docs
    html = docs.render(name)
    if html is None:
        if docs.folder is None:
            raise NotFound("The notice documentation (docs/notices/) is not installed with this server.")
        raise NotFound("There is no documentation page with this name.")
    return render(request, "doc.html", login, body=Markup(html), title=docs.title(name), name=name)
