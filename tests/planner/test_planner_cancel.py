"""Cancel and statement_timeout on a real session: pg_sleep and a long DuckDB scan are interrupted with 57014 and
PostgreSQL's messages; a cancel that arrives while nothing runs does not affect the next statement."""

from __future__ import annotations

import threading

import pytest

from tests.planner.test_planner_helpers import Client

LONG_SCAN = "SELECT count(*) FROM generate_series(1, 1000000000000) AS r(x) WHERE x % 7 = 3"


class Canceller:
    """Cancels from another thread, repeatedly until stopped: cancels that land before the statement runs are
    ignored by the session (that rule is tested separately), so one of them hits the running statement."""

    def __init__(self, c: Client) -> None:
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, args=(c,))
        self._thread.start()

    def _loop(self, c: Client) -> None:
        while not self._done.wait(0.05):
            c.session.cancel()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


@pytest.mark.parametrize("sql", ["SELECT pg_sleep(60)", LONG_SCAN])
def test_cancel_interrupts(client: Client, sql: str) -> None:
    canceller = Canceller(client)
    err = client.error(sql)
    canceller.stop()
    assert (err.code, err.message) == ("57014", "canceling statement due to user request")
    assert client.rows("SELECT 1") == [(1,)]


def test_cancel_in_a_transaction_fails_it(client: Client) -> None:
    client.run("BEGIN")
    canceller = Canceller(client)
    assert client.error("SELECT pg_sleep(60)").code == "57014"
    canceller.stop()
    assert client.status == "E"
    client.run("ROLLBACK")


def test_cancel_while_idle_does_nothing(client: Client) -> None:
    client.session.cancel()
    assert client.rows("SELECT pg_sleep(0.01)") == [("",)]
    assert client.rows("SELECT count(*) FROM generate_series(1, 1000)") == [(1000,)]


@pytest.mark.parametrize("sql", ["SELECT pg_sleep(60)", LONG_SCAN])
def test_statement_timeout(client: Client, sql: str) -> None:
    client.run("SET statement_timeout = '200ms'")
    err = client.error(sql)
    assert (err.code, err.message) == ("57014", "canceling statement due to statement timeout")
    client.run("RESET statement_timeout")
    assert client.rows("SELECT pg_sleep(0.3)") == [("",)]


def test_statement_timeout_in_the_extended_protocol(client: Client) -> None:
    s = client.session
    client.run("SET statement_timeout = 200")
    s.parse("", "SELECT pg_sleep(60)", [])
    s.bind("", "", [], [], [])
    with pytest.raises(Exception, match="statement timeout"):
        s.execute("", 0)
    s.sync()
    assert client.status == "I"
