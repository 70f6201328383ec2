"""The console's ASGI application: routes, security headers and error pages.

Contract: `create_app(console)` returns a Starlette app whose every page is server-rendered HTML (Jinja2,
autoescaped) plus one small script and stylesheet from /static. Routes: / → /notices, /login, /logout,
/notices, /notices/status, /notices/{fingerprint}, /objects, /objects/{id}, /history, /history/{execution_id},
/docs/notices/{name}, /api/badge, /static/*.

Errors never show a stack trace: a `PgError` renders a page with its SQLSTATE and message (42501 → 403, 57P01 —
the login's session was terminated, e.g. by pg_terminate_backend — → back to /login, others 400 or 500 for XX000);
a refused CSRF token 403; an unreadable request 400; anything else is logged with its traceback and shown as
"internal error" (500). A missing login redirects to /login (401 JSON for /api/*).

Every response carries a Content-Security-Policy that allows only this origin's script and style (no inline script),
`X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`, `Referrer-Policy: same-origin` and, for pages,
`Cache-Control: no-store`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sparkwire.console import pages_auth, pages_notices, pages_objects
from sparkwire.console.web import BadRequest, Console, CsrfRefused, LoginRequired, NotFound, login_of, render
from sparkwire.errors import PgError

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


class SecurityHeaders:
    """Adds the security headers to every response (pure ASGI: works for streaming and static files too)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(_HEADERS)
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def _error_page(request: Request, status: int, title: str, message: str, code: str | None = None) -> Response:
    if _wants_json(request):
        body: dict[str, str] = {"error": message}
        if code:
            body["sqlstate"] = code
        return JSONResponse(body, status_code=status)
    try:
        login = await login_of(request)
    except Exception:  # the page must render even when the login table cannot be read
        login = None
    return render(request, "error.html", login, status, title=title, message=message, code=code)


async def on_pg_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PgError)
    if exc.code == "57P01" and not _wants_json(request):
        return RedirectResponse("/login", status_code=303)
    status = 403 if exc.code == "42501" else 500 if exc.code.startswith("XX") else 400
    message = exc.message + (f" ({exc.detail})" if exc.detail else "")
    return await _error_page(request, status, "The statement failed", message, exc.code)


async def on_login_required(request: Request, _exc: Exception) -> Response:
    if _wants_json(request):
        return JSONResponse({"error": "not logged in"}, status_code=401)
    return RedirectResponse("/login", status_code=303)


async def on_csrf(request: Request, _exc: Exception) -> Response:
    log.warning("console: refused a change without a valid CSRF token (%s %s)", request.method, request.url.path)
    return await _error_page(request, 403, "Forbidden", "The request's CSRF token is missing or wrong: reload the "
                             "page and try again.")


async def on_bad_request(request: Request, exc: Exception) -> Response:
    return await _error_page(request, 400, "Bad request", str(exc))


async def on_not_found(request: Request, exc: Exception) -> Response:
    return await _error_page(request, 404, "Not found", str(exc))


async def on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    titles = {404: "Not found", 405: "Method not allowed"}
    return await _error_page(request, exc.status_code, titles.get(exc.status_code, "Error"),
                             "There is no such page." if exc.status_code == 404 else str(exc.detail))


async def on_internal(request: Request, exc: Exception) -> Response:
    log.error("console: internal error on %s %s", request.method, request.url.path, exc_info=exc)
    return await _error_page(request, 500, "Internal error", "internal error (the server log has the details)",
                             "XX000")


async def home(_request: Request) -> Response:
    return RedirectResponse("/notices", status_code=303)


def create_app(console: Console) -> Starlette:
    routes = [
        Route("/", home),
        Route("/login", pages_auth.login_page, methods=["GET"]),
        Route("/login", pages_auth.login_submit, methods=["POST"]),
        Route("/logout", pages_auth.logout, methods=["POST"]),
        Route("/notices", pages_notices.notice_list, methods=["GET"]),
        Route("/notices/status", pages_notices.change_status, methods=["POST"]),
        Route("/notices/{fingerprint}", pages_notices.notice_detail, methods=["GET"]),
        Route("/objects", pages_objects.objects, methods=["GET"]),
        Route("/objects/{id}", pages_objects.object_detail, methods=["GET"]),
        Route("/history", pages_objects.history, methods=["GET"]),
        Route("/history/{execution_id}", pages_objects.statement_detail, methods=["GET"]),
        Route("/docs/notices/{name}", pages_notices.notice_doc, methods=["GET"]),
        Route("/api/badge", pages_notices.badge, methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {
        PgError: on_pg_error,
        LoginRequired: on_login_required,
        CsrfRefused: on_csrf,
        BadRequest: on_bad_request,
        NotFound: on_not_found,
        HTTPException: on_http,
        Exception: on_internal,
    }
    app = Starlette(
        debug=False,
        routes=routes,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers=handlers,
    )
    app.state.console = console
    return app
