"""Fixtures of the console tests: one password-auth server with its console, the notices the tests work through,
and one headless Chromium (Debian's, through chromium-driver) for the whole package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.console.support import PASSWORD, Browser, Console, chromium_available, start_console_server

ALICE_PASSWORD = "alice-pw"
XSS = "<script>alert(1)</script>"

SETUP = (
    "CREATE TABLE orders (a int, b int)",
    "CREATE INDEX orders_a1 ON orders (a)",
    "CREATE INDEX orders_a2 ON orders (a)",  # An identical index already exists
    f'CREATE TABLE "{XSS}" (x int)',
    f'CREATE INDEX ON "{XSS}" ()',  # Empty index key, on an object whose name is markup
    "CREATE TABLE wide (x int, y int, z int)",
    "CREATE INDEX wide_xy ON wide (x, y)",
    "CREATE MATERIALIZED VIEW wide_mv AS SELECT z FROM wide WHERE x = 5",  # too wide: an SQL action, a literal
    f"CREATE ROLE alice LOGIN PASSWORD '{ALICE_PASSWORD}'",
    "GRANT CREATE ON SCHEMA public TO alice",
    "GRANT CREATE ON CLUSTER quickstart TO alice",
)
ALICE_SETUP = (
    "CREATE TABLE alice_t (x int, y int, z int)",
    "CREATE INDEX alice_xy ON alice_t (x, y)",
    "CREATE MATERIALIZED VIEW alice_mv AS SELECT z FROM alice_t WHERE x = 42",
)


@pytest.fixture(scope="session")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    data_dir = Path(tmp_path_factory.mktemp("console"))
    srv = start_console_server(data_dir, "--auth", "password", env={"SPARKWIRE_SUPERUSER_PASSWORD": PASSWORD})
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as conn:
            for sql in SETUP:
                conn.execute(sql)
        with psycopg.connect(srv.dsn("alice", ALICE_PASSWORD), autocommit=True) as conn:
            for sql in ALICE_SETUP:
                conn.execute(sql)
        yield srv
    finally:
        srv.server.stop()


@pytest.fixture(scope="session")
def chrome() -> Iterator[Browser]:
    if not chromium_available():
        pytest.fail("the console's browser tests need Debian's chromium and chromium-driver (scripts/test installs "
                    "them)")
    browser = Browser()
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture
def browser(chrome: Browser) -> Browser:
    """The shared browser, logged out."""
    chrome.clear_cookies()
    return chrome


@pytest.fixture
def psql(console: Console) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(console.dsn(), autocommit=True) as conn:
        yield conn
