"""TLS: a real `sparkwire serve --tls-cert/--tls-key` (self-signed certificate made with the openssl CLI)
accepts psycopg with sslmode=require — also with SCRAM — and plaintext clients; a server without TLS declines
SSLRequest."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.server import SparkwireServer

PASSWORD = "tls-password"


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkwireServer]:
    certs = tmp_path_factory.mktemp("certs")
    cert, key = certs / "cert.pem", certs / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "2", "-subj", "/CN=localhost"],
        check=True,
        capture_output=True,
    )
    srv = SparkwireServer.start(
        tmp_path_factory.mktemp("tls"),
        "--tls-cert", str(cert), "--tls-key", str(key), "--auth", "password",
        env={"SPARKWIRE_SUPERUSER_PASSWORD": PASSWORD},
    )
    try:
        yield srv
    finally:
        srv.stop()


def test_sslmode_require_with_scram(tls_server: SparkwireServer) -> None:
    with psycopg.connect(tls_server.dsn, password=PASSWORD, sslmode="require") as conn:
        assert conn.pgconn.ssl_in_use
        assert conn.execute("SELECT 1").fetchone() == (1,)
        rows = conn.execute("SELECT i FROM generate_series(1, 50000) AS g(i)").fetchall()
        assert len(rows) == 50000 and rows[-1] == (50000,)


def test_plaintext_still_works_on_a_tls_server(tls_server: SparkwireServer) -> None:
    with psycopg.connect(tls_server.dsn, password=PASSWORD, sslmode="disable") as conn:
        assert not conn.pgconn.ssl_in_use
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_cancel_over_tls(tls_server: SparkwireServer) -> None:
    with psycopg.connect(tls_server.dsn, password=PASSWORD, sslmode="require", autocommit=True) as conn:
        timer = threading.Timer(0.5, conn.cancel)
        timer.start()
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("SELECT pg_sleep(10)")
        timer.join()


def test_server_without_tls_declines(server: SparkwireServer) -> None:
    with pytest.raises(psycopg.OperationalError, match="does not support SSL"):
        psycopg.connect(server.dsn, sslmode="require")
    with psycopg.connect(server.dsn, sslmode="prefer") as conn:
        assert not conn.pgconn.ssl_in_use
