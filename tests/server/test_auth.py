"""Authentication against real `sparkwire serve --auth …` processes: psycopg logs in with SCRAM-SHA-256 (also
when md5 is configured, as PostgreSQL answers md5 with SCRAM for SCRAM secrets) and with a cleartext password;
wrong passwords and unknown roles get the identical FATAL 28P01; the server refuses to start without a
password."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from scramp import ScramClient

from tests.fixtures import wire
from tests.fixtures.wire import RawClient
from tests.support.postgres import free_port
from tests.support.server import SparkwireServer

PASSWORD = "s3cret pässword"
SASL, CLEARTEXT = 10, 3


@pytest.fixture(scope="module", params=["password", "md5", "cleartext"])
def auth_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SparkwireServer]:
    method: str = request.param
    env = {"SPARKWIRE_SUPERUSER_PASSWORD": PASSWORD}
    srv = SparkwireServer.start(tmp_path_factory.mktemp(f"auth-{method}"), "--auth", method, env=env)
    try:
        yield srv
    finally:
        srv.stop()


def _method(srv: SparkwireServer) -> str:
    args = srv.process.args
    assert isinstance(args, list)
    return str(args[args.index("--auth") + 1])


def _auth_request(c: RawClient, user: str) -> tuple[int, bytes]:
    c.send(wire.startup_packet({"user": user, "database": "materialize"}))
    m = c.read()
    assert m is not None and m[0] == "R"
    return int.from_bytes(m[1][:4], "big"), m[1][4:]


def _login_raw(srv: SparkwireServer, user: str, password: str) -> list[tuple[str, bytes]]:
    """Authenticate with a hand-driven client (SCRAM via scramp's client side); return the server's answer."""
    c = RawClient(srv.port)
    code, payload = _auth_request(c, user)
    if code == CLEARTEXT:
        c.send(wire.msg(b"p", password.encode() + b"\0"))
        return c.until_ready()
    assert code == SASL and payload == b"SCRAM-SHA-256\0\0"
    client = ScramClient(["SCRAM-SHA-256"], user, password)
    first = client.get_client_first().encode()
    c.send(wire.msg(b"p", b"SCRAM-SHA-256\0" + len(first).to_bytes(4, "big") + first))
    m = c.read()
    assert m is not None and m[0] == "R" and m[1][:4] == (11).to_bytes(4, "big")
    client.set_server_first(m[1][4:].decode())
    c.send(wire.msg(b"p", client.get_client_final().encode()))
    return c.until_ready()


def test_the_method_asks_for_what_postgres_would(auth_server: SparkwireServer) -> None:
    code, payload = _auth_request(RawClient(auth_server.port), "materialize")
    if _method(auth_server) == "cleartext":
        assert code == CLEARTEXT
    else:  # password, and md5 with a SCRAM secret
        assert (code, payload) == (SASL, b"SCRAM-SHA-256\0\0")


def test_psycopg_logs_in_with_the_right_password(auth_server: SparkwireServer) -> None:
    with psycopg.connect(auth_server.dsn, password=PASSWORD) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_wrong_password_and_unknown_role_fail_identically(auth_server: SparkwireServer) -> None:
    answers = {
        "wrong password": _login_raw(auth_server, "materialize", "nope"),
        "unknown role": _login_raw(auth_server, "materialize", "nope"),
    }
    answers["unknown role"] = _login_raw(auth_server, "nobody", PASSWORD)
    for msgs in answers.values():
        assert [t for t, _ in msgs] == ["E"]
    wrong = wire.error_fields(answers["wrong password"][0][1])
    unknown = wire.error_fields(answers["unknown role"][0][1])
    assert wrong == {
        "S": "FATAL", "V": "FATAL", "C": "28P01", "M": 'password authentication failed for user "materialize"'
    }
    assert unknown == {**wrong, "M": 'password authentication failed for user "nobody"'}
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(auth_server.dsn, password="nope")


def test_the_raw_client_logs_in_too(auth_server: SparkwireServer) -> None:
    msgs = _login_raw(auth_server, "materialize", PASSWORD)
    assert [t for t, _ in msgs][-1] == "Z"
    assert ("R", (0).to_bytes(4, "big")) in msgs


def test_trust_accepts_any_role(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    msgs = c.connect({"user": "materialize", "database": "materialize"})
    assert msgs[0] == ("R", (0).to_bytes(4, "big"))


def test_refuses_to_start_without_a_password(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SPARKWIRE_SUPERUSER_PASSWORD"}
    done = subprocess.run(
        [sys.executable, "-m", "sparkwire", "serve", "--port", str(free_port()), "--data-dir", str(tmp_path),
         "--auth", "password"],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert b"SPARKWIRE_SUPERUSER_PASSWORD" in done.stderr
