"""Logging in and out of the console.

Contract:
- GET /login shows the form: role and password when the server authenticates with passwords; with trust auth a
  role picker (no password), offered only to loopback clients that name a loopback host (anyone else gets 403: a
  trust console must not be reachable from the network, nor through DNS rebinding). The form carries a CSRF token
  that must match the pre-login cookie it sets (double submit).
- POST /login checks the password against the role's SCRAM verifier (the pgwire server's store), then opens the
  login's session as that role (a role that does not exist or may not log in fails like a wrong password), sets
  the session cookie (HttpOnly, SameSite=Strict, Secure with TLS) and redirects to the notices. A failure shows the
  form again with one message that does not tell unknown roles from wrong passwords.
- POST /logout (with the login's CSRF token) terminates the login's session and clears the cookie.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from sparkwire.console.web import (
    Console,
    CsrfRefused,
    check_csrf,
    console_of,
    login_of,
    loopback_names,
    read_form,
    render,
    run_sync,
    same_origin,
)
from sparkwire.errors import PgError

log = logging.getLogger(__name__)

LOGIN_FAILED = "Login failed: wrong role or password."
FAILURE_DELAY = 0.25  # seconds a failed login waits (without holding a thread): guessing passwords is slow


def trust_allowed(request: Request) -> bool:
    """Trust logins: only from a loopback address, and only to a loopback host name (no DNS rebinding)."""
    client = request.client.host if request.client else ""
    try:
        loopback = ipaddress.ip_address(client).is_loopback
    except ValueError:
        loopback = False
    host = request.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return loopback and name.lower() in loopback_names()


def _set_cookie(console: Console, response: Response, name: str, value: str) -> None:
    response.set_cookie(
        name, value, httponly=True, samesite="strict", secure=console.secure_cookies, path="/"
    )


async def _form_page(request: Request, console: Console, status: int = 200, error: str | None = None,
                     role: str = "") -> Response:
    token = secrets.token_urlsafe(32)
    roles = await run_sync(console.roles) if console.auth.mode == "trust" and console.roles else []
    response = render(
        request, "login.html", None, status, mode=console.auth.mode, login_csrf=token, error=error,
        roles=roles, role_value=role,
    )
    _set_cookie(console, response, console.login_cookie, token)
    return response


async def login_page(request: Request) -> Response:
    console = console_of(request)
    if console.auth.mode == "trust" and not trust_allowed(request):
        return render(request, "error.html", None, 403, title="Forbidden", code=None,
                      message="This console uses trust authentication and is only offered on loopback "
                              "(start the server with --auth password to log in from elsewhere).")
    if await login_of(request) is not None:
        return RedirectResponse("/notices", status_code=303)
    return await _form_page(request, console)


async def login_submit(request: Request) -> Response:
    console = console_of(request)
    if console.auth.mode == "trust" and not trust_allowed(request):
        return render(request, "error.html", None, 403, title="Forbidden", code=None,
                      message="Trust logins are only accepted on loopback.")
    form = await read_form(request)
    expected = request.cookies.get(console.login_cookie, "")
    given = form.get("csrf", "")
    if not expected or not hmac.compare_digest(expected.encode(), given.encode()) or not same_origin(request):
        raise CsrfRefused()
    role = form.get("role", "").strip()
    if not role or len(role) > 255 or "\x00" in role:
        return await _form_page(request, console, 400, "Enter a role.", role[:255].replace("\x00", ""))
    password = form.get("password", "")
    if not await run_sync(console.auth.check, role, password):
        log.info("console login failed for role %r", role)
        await asyncio.sleep(FAILURE_DELAY)
        return await _form_page(request, console, 401, LOGIN_FAILED, role)
    try:
        token, login = await run_sync(console.logins.open, role)
    except PgError as exc:
        log.info("console login refused for role %r: %s", role, exc.message)
        message = exc.message if console.auth.mode == "trust" else LOGIN_FAILED
        await asyncio.sleep(FAILURE_DELAY)
        return await _form_page(request, console, 401, message, role)
    log.info("console login: role %r (backend pid %d)", role, login.session.pid)
    response = RedirectResponse("/notices", status_code=303)
    _set_cookie(console, response, console.cookie, token)
    response.delete_cookie(console.login_cookie, path="/", secure=console.secure_cookies, httponly=True,
                           samesite="strict")
    return response


async def logout(request: Request) -> Response:
    console = console_of(request)
    login = await login_of(request)
    form = await read_form(request)
    if login is None:
        return RedirectResponse("/login", status_code=303)
    check_csrf(login, form, request)
    await run_sync(console.logins.close, request.cookies.get(console.cookie))
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(console.cookie, path="/", secure=console.secure_cookies, httponly=True,
                           samesite="strict")
    return response

