"""The console's security points over plain HTTP against a real server: CSRF tokens on every change (missing,
wrong or from another origin: refused, nothing changes), the session cookie's attributes, security headers, clean
error pages with the SQLSTATE and never a traceback, logout, the JSON badge without a login, a login ended by
pg_terminate_backend, and trust mode's role picker on loopback only."""

from __future__ import annotations

import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.console.conftest import ALICE_PASSWORD
from tests.console.support import PASSWORD, Console, Http, start_console_server

pytestmark = pytest.mark.timeout(300)

Conn = psycopg.Connection[tuple[object, ...]]


def status_of(psql: Conn, fingerprint: str) -> str:
    row = psql.execute(
        "SELECT status FROM mz_internal.mz_notices WHERE fingerprint::text = %s", (fingerprint,)
    ).fetchone()
    assert row is not None
    return str(row[0])


def fingerprint_of(psql: Conn, object_name: str) -> str:
    row = psql.execute(
        "SELECT n.fingerprint::text FROM mz_internal.mz_notices n JOIN mz_catalog.mz_objects o ON o.id = n.object_id "
        "WHERE o.name = %s",
        (object_name,),
    ).fetchone()
    assert row is not None
    return str(row[0])


def clean(body: str) -> None:
    assert "Traceback" not in body and 'File "' not in body


@pytest.fixture
def http(console: Console) -> Http:
    client = Http(console.url)
    assert client.login("materialize").status == 303
    return client


def test_login_sets_a_strict_httponly_cookie_and_security_headers(console: Console) -> None:
    client = Http(console.url)
    reply = client.login("materialize")
    assert reply.status == 303 and reply.headers["location"] == "/notices"
    cookie = next(c for c in reply.headers.get_all("set-cookie") or [] if c.startswith("sw_console="))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert len(cookie.split(";")[0].split("=", 1)[1]) >= 40  # 256 random bits
    page = client.request("/notices")
    assert page.status == 200
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"


def test_the_login_form_needs_its_csrf_token(console: Console) -> None:
    client = Http(console.url)
    client.request("/login")  # sets the pre-login cookie
    assert client.request("/login", {"role": "materialize", "password": PASSWORD}).status == 403
    assert client.request("/login", {"csrf": "forged", "role": "materialize", "password": PASSWORD}).status == 403
    other = Http(console.url)  # a token from another browser's form does not go with this browser's cookie
    assert client.request("/login", {"csrf": other.csrf_of("/login"), "role": "materialize",
                                     "password": PASSWORD}).status == 403
    assert client.request("/notices").status == 303  # still logged out


def test_a_status_change_needs_the_logins_csrf_token(http: Http, psql: Conn) -> None:
    fingerprint = fingerprint_of(psql, "orders_a2")
    assert status_of(psql, fingerprint) == "new"
    change = {"fingerprint": fingerprint, "status": "ignored", "back": "/notices"}
    missing = http.request("/notices/status", change)
    assert missing.status == 403 and "CSRF token is missing or wrong" in missing.body
    clean(missing.body)
    assert http.request("/notices/status", {**change, "csrf": "x" * 43}).status == 403
    token = http.csrf_of("/notices")
    foreign = http.request("/notices/status", {**change, "csrf": token}, {"Origin": "http://evil.example"})
    assert foreign.status == 403
    assert status_of(psql, fingerprint) == "new"  # nothing changed
    ok = http.request("/notices/status", {**change, "csrf": token})
    assert ok.status == 303 and ok.headers["location"] == "/notices"
    assert status_of(psql, fingerprint) == "ignored"
    # the token in a header works too (fetch), and `back` only ever leads inside the console
    again = http.request("/notices/status", {**change, "status": "new", "back": "https://evil.example/"},
                         {"X-CSRF-Token": token})
    assert again.status == 303 and again.headers["location"] == "/notices"
    assert status_of(psql, fingerprint) == "new"


def test_values_never_reach_sql_text(http: Http, psql: Conn) -> None:
    token = http.csrf_of("/notices")
    fingerprint = fingerprint_of(psql, "orders_a2")
    injected = f"{fingerprint}' SET STATUS = 'ignored'; DROP TABLE orders; --"
    bad = http.request("/notices/status", {"csrf": token, "fingerprint": injected, "status": "ignored"})
    assert bad.status == 400 and "Not a notice fingerprint" in bad.body
    bad = http.request("/notices/status", {"csrf": token, "fingerprint": fingerprint, "status": "ignored' --"})
    assert bad.status == 400
    # filters are bound parameters: quotes and backslashes are only text to match
    page = http.request("/notices?object=x%27%20OR%201%3D1%20--&q=%27%29%3B%20DROP%20TABLE%20orders%3B%20--&type=%27")
    assert page.status == 200 and "No notices match." in page.body
    assert psql.execute("SELECT count(*) FROM mz_catalog.mz_tables WHERE name = 'orders'").fetchone() == (1,)
    assert status_of(psql, fingerprint) == "new"


def test_errors_render_clean_pages_with_the_sqlstate(console: Console, http: Http, psql: Conn) -> None:
    for path, status in [("/notices/not-a-fingerprint", 404), ("/notices/00000000-0000-0000-0000-000000000000", 404),
                         ("/objects/u99999", 404), ("/objects/%3Cscript%3E", 404), ("/history/nope", 404),
                         ("/docs/notices/..%2F..%2FREADME", 404), ("/no/such/page", 404)]:
        reply = http.request(path)
        assert reply.status == status, path
        assert "<h1>Not found</h1>" in reply.body
        clean(reply.body)
    assert http.request("/logout").status == 405  # GET of a change
    alice = Http(console.url)
    assert alice.login("alice", ALICE_PASSWORD).status == 303
    fingerprint = fingerprint_of(psql, "wide_mv")  # not alice's
    denied = alice.request("/notices/status", {"csrf": alice.csrf_of("/notices"), "fingerprint": fingerprint,
                                               "status": "ignored", "back": "/notices"})
    assert denied.status == 403
    assert '<code class="sqlstate" id="error-sqlstate">42501</code>' in denied.body
    assert f"must be owner of notice &#34;{fingerprint}&#34;" in denied.body
    clean(denied.body)
    assert status_of(psql, fingerprint) == "new"
    assert alice.request("/notices").status == 200  # the login's session went on after the failed statement
    not_json = http.request("/notices/status", {"csrf": "x"}, {"Content-Type": "application/json"})
    assert not_json.status in (400, 403)
    clean(not_json.body)


def test_logout_needs_csrf_and_ends_the_session(console: Console, http: Http, psql: Conn) -> None:
    assert http.request("/logout", {}).status == 403
    pids = psql.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sparkwire console'"
    ).fetchone()
    reply = http.request("/logout", {"csrf": http.csrf_of("/notices")})
    assert reply.status == 303 and reply.headers["location"] == "/login"
    assert http.request("/notices").status == 303
    after = psql.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sparkwire console'"
    ).fetchone()
    assert pids is not None and after is not None and int(str(after[0])) == int(str(pids[0])) - 1


def test_badge_json(console: Console, http: Http, psql: Conn) -> None:
    assert Http(console.url).request("/api/badge").status == 401
    reply = http.request("/api/badge")
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    row = psql.execute("SELECT count(*) FROM mz_internal.mz_notices WHERE status = 'new'").fetchone()
    assert row is not None and reply.body == f'{{"active":{row[0]}}}'


def test_pg_terminate_backend_ends_a_console_login(console: Console, psql: Conn) -> None:
    alice = Http(console.url)
    assert alice.login("alice", ALICE_PASSWORD).status == 303
    assert alice.request("/notices").status == 200
    row = psql.execute(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'sparkwire console' AND usename = 'alice' "
        "ORDER BY backend_start DESC LIMIT 1"
    ).fetchone()
    assert row is not None
    assert psql.execute("SELECT pg_terminate_backend(%s)", (row[0],)).fetchone() == (True,)
    gone = alice.request("/notices")
    assert gone.status == 303 and gone.headers["location"] == "/login"


@pytest.fixture(scope="module")
def trust_console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    srv = start_console_server(Path(tmp_path_factory.mktemp("console-trust")))
    try:
        yield srv
    finally:
        srv.server.stop()


def test_trust_mode_offers_a_role_picker_on_loopback_only(trust_console: Console) -> None:
    client = Http(trust_console.url)
    form = client.request("/login")
    assert form.status == 200 and 'id="login-password"' not in form.body
    assert '<option value="materialize">' in form.body  # the login roles, to pick from
    token = client.csrf_of("/login")
    assert client.request("/login", {"csrf": token, "role": "materialize"}).status == 303
    assert client.request("/notices").status == 200
    rebound = Http(trust_console.url).request("/login", headers={"Host": "evil.example"})  # DNS rebinding
    assert rebound.status == 403 and "only offered on loopback" in rebound.body
    unknown = Http(trust_console.url)
    reply = unknown.request("/login", {"csrf": unknown.csrf_of("/login"), "role": "nobody"})
    assert reply.status == 401 and "role &#34;nobody&#34; does not exist" in reply.body


def test_tls_uses_the_pgwire_certificate_and_secure_cookies(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "2", "-subj", "/CN=localhost"],
        check=True,
        capture_output=True,
    )
    srv = start_console_server(tmp_path / "data", "--auth", "password", "--tls-cert", str(cert), "--tls-key",
                               str(key), env={"SPARKWIRE_SUPERUSER_PASSWORD": PASSWORD})
    try:
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        client = Http(srv.url, context)
        reply = client.login("materialize")
        assert reply.status == 303
        cookie = next(c for c in reply.headers.get_all("set-cookie") or [] if c.startswith("__Host-sw_console="))
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert client.request("/notices").status == 200
        plain = Http(srv.url.replace("https:", "http:"))
        with pytest.raises(Exception):  # noqa: B017 - plain HTTP to a TLS port: the connection fails
            plain.request("/login")
    finally:
        srv.server.stop()


def test_an_explicit_console_port_in_use_stops_the_server(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(RuntimeError) as info:
            start_console_server(tmp_path / "data", "--http-port", str(port))  # the last --http-port counts
    assert "exited with 2" in str(info.value) and "the web console cannot serve" in str(info.value)
