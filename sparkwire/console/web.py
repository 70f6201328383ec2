"""What every console page shares: the configuration, templates, the logged-in role, SQL off the event loop, forms
and CSRF.

Contract:
- `Console` (one per app, in `request.app.state.console`) holds the `Authenticator`, the `Logins`, the notice docs,
  the Jinja2 environment (autoescaping on for every template: every value is HTML-escaped unless a template marks
  it safe, which only the rendered docs and the console's own markup do) and whether cookies are `Secure` (TLS).
- `login_of(request)` is the request's `Login` or None (the session cookie: HttpOnly, SameSite=Strict, random token
  kept server side as a hash); `require_login` raises `LoginRequired`, which app.py answers with a redirect to
  /login (HTML) or 401 (JSON).
- `run_sql(login, query)` runs a `queries.Query` in Starlette's thread pool (never on the event loop): a `PgError`
  propagates to app.py's error page. `run_sync(fn, *args)` is the same for any other blocking call.
- `read_form(request)` parses an application/x-www-form-urlencoded body of at most `MAX_FORM_BYTES` (else
  `BadRequest`); `check_csrf(login, form, request)` raises `CsrfRefused` unless the form field `csrf` (or the
  `X-CSRF-Token` header) equals the login's token, and unless an `Origin` header, when sent, is this console's.
- `render(request, template, status, **values)` renders a page with the common values (role, CSRF token, flash).
"""

from __future__ import annotations

import datetime
import decimal
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

import jinja2
from markupsafe import Markup, escape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from sparkwire.console.docs import NoticeDocs
from sparkwire.console.logins import Authenticator, Login, Logins
from sparkwire.console.queries import Query
from sparkwire.console.sql import Table

COOKIE = "sw_console"
LOGIN_COOKIE = "sw_console_login"  # the login form's CSRF token (double submit), before there is a login
MAX_FORM_BYTES = 64 * 1024
TEMPLATES = Path(__file__).resolve().parent / "templates"

P = ParamSpec("P")
T = TypeVar("T")


class LoginRequired(Exception):
    """No (live) login: app.py redirects to /login, or answers 401 to the JSON endpoints."""


class CsrfRefused(Exception):
    """A change without the login's CSRF token (or from another origin): 403."""


class BadRequest(Exception):
    """A request the console cannot read (malformed form, unknown fingerprint format, …): 400 with this message."""


class NotFound(Exception):
    """A page about something that does not exist (or that the role may not see): 404 with this message."""


@dataclass
class Console:
    auth: Authenticator
    logins: Logins
    docs: NoticeDocs
    secure_cookies: bool = False
    roles: Callable[[], list[str]] | None = None  # login roles for the trust-mode picker

    def __post_init__(self) -> None:
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=True,  # every template, whatever its name
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.filters["ts"] = format_time
        self.templates.filters["num"] = format_number
        self.templates.filters["duration"] = format_duration
        self.templates.filters["ticks"] = code_spans
        self.templates.filters["kind"] = lambda value: str(value or "").replace("-", " ")

    @property
    def cookie(self) -> str:
        return f"__Host-{COOKIE}" if self.secure_cookies else COOKIE

    @property
    def login_cookie(self) -> str:
        return f"__Host-{LOGIN_COOKIE}" if self.secure_cookies else LOGIN_COOKIE


def console_of(request: Request) -> Console:
    console: Console = request.app.state.console
    return console


async def login_of(request: Request) -> Login | None:
    console = console_of(request)
    return await run_in_threadpool(console.logins.get, request.cookies.get(console.cookie))


async def require_login(request: Request) -> Login:
    login = await login_of(request)
    if login is None:
        raise LoginRequired()
    return login


async def run_sync(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    return await run_in_threadpool(fn, *args, **kwargs)


async def run_sql(login: Login, query: Query) -> Table:
    return await run_in_threadpool(login.session.query, query.sql, query.params)


async def read_form(request: Request) -> dict[str, str]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise BadRequest("expected a form (application/x-www-form-urlencoded)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise BadRequest("the form is too large")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=100)
    except (UnicodeDecodeError, ValueError):
        raise BadRequest("the form could not be read") from None
    return {key: values[-1] for key, values in parsed.items()}


def same_origin(request: Request) -> bool:
    """An Origin header, when the browser sends one, must name this console (scheme, host and port)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")
    parts = urlsplit(origin)
    return parts.netloc == host and parts.scheme == request.url.scheme


def check_csrf(login: Login, form: Mapping[str, str], request: Request) -> None:
    token = form.get("csrf") or request.headers.get("x-csrf-token")
    if not login.csrf_ok(token) or not same_origin(request):
        raise CsrfRefused()


def render(request: Request, template: str, login: Login | None, status: int = 200, **values: object) -> HTMLResponse:
    console = console_of(request)
    page = console.templates.get_template(template)
    html = page.render(
        role=login.role if login else None,
        csrf=login.csrf if login else "",
        flash=login.take_flash() if login else None,
        path=request.url.path,
        **values,
    )
    return HTMLResponse(html, status_code=status)


def query_url(path: str, params: Mapping[str, object], **changes: object) -> str:
    """`path?…` with `params` updated by `changes` (empty values dropped): links that keep the current filters."""
    merged = {**params, **changes}
    kept = {k: str(v) for k, v in merged.items() if v not in (None, "", False)}
    return path + ("?" + urlencode(kept) if kept else "")


_TICKS = re.compile(r"`([^`<>]+)`")


def code_spans(value: object) -> Markup:
    """The notices' texts quote SQL in backticks: escape the text, then show those spans as code."""
    escaped = str(escape("" if value is None else value))
    return Markup(_TICKS.sub(r"<code>\1</code>", escaped))


def format_time(value: object) -> str:
    if isinstance(value, datetime.datetime):
        value = value.astimezone(datetime.UTC)
        return value.strftime("%Y-%m-%d %H:%M:%S UTC")
    return "" if value is None else str(value)


def format_number(value: object) -> str:
    if isinstance(value, int | decimal.Decimal):
        return f"{int(value):,}"
    return "" if value is None else str(value)


def format_duration(value: object) -> str:
    if not isinstance(value, datetime.timedelta):
        return ""
    ms = value.total_seconds() * 1000
    return f"{ms:,.1f} ms" if ms < 10_000 else f"{ms / 1000:,.1f} s"


@functools.cache
def loopback_names() -> frozenset[str]:
    return frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
