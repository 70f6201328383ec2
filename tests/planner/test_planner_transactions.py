"""Transactions through a real PlannerService session: the I/T/E state machine, implicit transactions of the
simple and extended protocols, warnings, failed-transaction rules and savepoints (tracked, with ROLLBACK TO refused
when it cannot undo writes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sparkwire.session.service import PlannerService
from tests.planner.test_planner_helpers import Client


@pytest.fixture
def client(service: PlannerService) -> Iterator[Client]:
    c = Client(service)
    c.run("CREATE TABLE IF NOT EXISTS acct (id int, v int); DELETE FROM acct")
    c.notices.clear()  # "relation already exists, skipping" from the second test on
    yield c
    c.close()


def count(c: Client) -> int:
    value = c.rows("SELECT count(*) FROM acct")[0][0]
    assert isinstance(value, int)
    return value


def test_status_follows_begin_commit_rollback(client: Client) -> None:
    assert client.status == "I"
    assert client.one("BEGIN").tag == "BEGIN"
    assert client.status == "T"
    client.run("INSERT INTO acct VALUES (1, 1)")
    assert client.one("COMMIT").tag == "COMMIT"
    assert client.status == "I"
    assert count(client) == 1
    client.run("START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE")
    client.run("INSERT INTO acct VALUES (2, 2)")
    assert client.one("ROLLBACK").tag == "ROLLBACK"
    assert count(client) == 1


def test_other_sessions_do_not_see_uncommitted_writes(service: PlannerService, client: Client) -> None:
    other = Client(service)
    try:
        client.run("BEGIN; INSERT INTO acct VALUES (1, 1)")
        assert count(other) == 0
        client.run("COMMIT")
        assert count(other) == 1
    finally:
        other.close()


def test_failed_transaction_refuses_statements_until_rollback(client: Client) -> None:
    client.run("BEGIN")
    client.run("INSERT INTO acct VALUES (1, 1)")
    assert client.error("SELECT 1/0").code == "22012"
    assert client.status == "E"
    err = client.error("SELECT 1")
    assert err.code == "25P02"
    assert err.message == "current transaction is aborted, commands ignored until end of transaction block"
    assert client.status == "E"
    assert client.one("COMMIT").tag == "ROLLBACK"  # COMMIT of a failed transaction rolls back
    assert client.status == "I"
    assert count(client) == 0


def test_warnings_for_misplaced_transaction_control(client: Client) -> None:
    client.run("COMMIT")
    client.run("ROLLBACK")
    client.run("BEGIN; BEGIN")
    client.run("ROLLBACK")
    assert [(n.severity, n.sqlstate, n.message) for n in client.notices] == [
        ("WARNING", "25P01", "there is no transaction in progress"),
        ("WARNING", "25P01", "there is no transaction in progress"),
        ("WARNING", "25001", "there is already a transaction in progress"),
    ]


def test_multi_statement_string_is_atomic(client: Client) -> None:
    err = client.error("INSERT INTO acct VALUES (1, 1); INSERT INTO acct VALUES (2, 2); SELECT 1/0")
    assert err.code == "22012"
    assert client.status == "I"
    assert count(client) == 0
    client.run("INSERT INTO acct VALUES (1, 1); INSERT INTO acct VALUES (2, 2)")
    assert count(client) == 2


def test_begin_inside_a_string_makes_an_explicit_block(client: Client) -> None:
    client.run("INSERT INTO acct VALUES (1, 1); BEGIN; INSERT INTO acct VALUES (2, 2)")
    assert client.status == "T"
    client.run("ROLLBACK")
    assert count(client) == 0  # the statement before BEGIN was folded into the block


def test_extended_protocol_transaction_lasts_until_sync(client: Client) -> None:
    s = client.session
    s.parse("ins", "INSERT INTO acct VALUES ($1, $2)", [])
    for i in (1, 2):
        s.bind("", "ins", [], [str(i).encode(), b"0"], [])
        s.execute("", 0)
    s.parse("", "SELECT 1/0", [])
    s.bind("", "", [], [], [])
    with pytest.raises(Exception, match="division by zero"):
        s.execute("", 0)
    s.sync()
    assert client.status == "I"
    assert count(client) == 0  # the failed implicit transaction rolled both inserts back
    s.bind("", "ins", [], [b"3", b"0"], [])
    s.execute("", 0)
    s.sync()
    assert count(client) == 1


def test_savepoints_without_writes_roll_back_cleanly(client: Client) -> None:
    client.run("BEGIN; INSERT INTO acct VALUES (1, 1); SAVEPOINT a")
    assert client.error("SELECT nope FROM acct").code == "42703"
    assert client.status == "E"
    assert client.one("ROLLBACK TO SAVEPOINT a").tag == "ROLLBACK"
    assert client.status == "T"
    client.run("SAVEPOINT b; RELEASE SAVEPOINT b; RELEASE a")
    client.run("COMMIT")
    assert count(client) == 1


def test_rollback_to_undoes_the_writes_after_the_savepoint(client: Client) -> None:
    client.run("BEGIN; INSERT INTO acct VALUES (1, 1); SAVEPOINT a; INSERT INTO acct VALUES (2, 2)")
    client.run("SAVEPOINT b; UPDATE acct SET v = 10 WHERE id = 1")
    assert client.one("ROLLBACK TO b").tag == "ROLLBACK"
    assert client.rows("SELECT id, v FROM acct ORDER BY id") == [(1, 1), (2, 2)]
    client.run("ROLLBACK TO SAVEPOINT a")
    assert client.rows("SELECT id, v FROM acct ORDER BY id") == [(1, 1)]
    client.run("INSERT INTO acct VALUES (3, 3); COMMIT")
    assert client.rows("SELECT id FROM acct ORDER BY id") == [(1,), (3,)]


def test_rollback_to_recovers_from_an_execution_error(client: Client) -> None:
    """DuckDB aborts its whole transaction on a runtime error; ROLLBACK TO still restores the earlier writes."""
    client.run("BEGIN; INSERT INTO acct VALUES (1, 1); SAVEPOINT a")
    assert client.error("SELECT v / 0 FROM acct").code == "22012"
    assert client.error("INSERT INTO acct VALUES (2, 2)").code == "25P02"
    client.run("ROLLBACK TO a; INSERT INTO acct VALUES (2, 2); COMMIT")
    assert client.rows("SELECT id FROM acct ORDER BY id") == [(1,), (2,)]


def test_rollback_to_keeps_copied_rows_from_before_the_savepoint(client: Client) -> None:
    client.run("BEGIN")
    client.run("COPY acct FROM STDIN", copy_data=b"1\t1\n2\t2\n")
    client.run("SAVEPOINT a; DELETE FROM acct; ROLLBACK TO a; COMMIT")
    assert count(client) == 2


def test_savepoint_errors(client: Client) -> None:
    assert client.error("SAVEPOINT a").code == "25P01"
    assert client.error("RELEASE a").code == "25P01"
    assert client.error("ROLLBACK TO a").code == "25P01"
    client.run("BEGIN")
    assert client.error("RELEASE nope").code == "3B001"
    client.run("ROLLBACK")


def test_read_only_transactions(client: Client) -> None:
    client.run("BEGIN READ ONLY")
    assert client.rows("SHOW transaction_read_only") == [("on",)]
    err = client.error("INSERT INTO acct VALUES (1, 1)")
    assert (err.code, err.message) == ("25006", "cannot execute INSERT in a read-only transaction")
    client.run("ROLLBACK")
    assert client.rows("SHOW transaction_read_only") == [("off",)]


def test_set_is_undone_by_rollback_and_set_local_by_commit(client: Client) -> None:
    client.run("BEGIN; SET application_name = 'inside'; ROLLBACK")
    assert client.rows("SHOW application_name") == [("",)]
    client.run("BEGIN; SET application_name = 'kept'; COMMIT")
    assert client.rows("SHOW application_name") == [("kept",)]
    client.run("BEGIN; SET LOCAL application_name = 'local'")
    assert client.rows("SHOW application_name") == [("local",)]
    client.run("COMMIT")
    assert client.rows("SHOW application_name") == [("kept",)]
    assert ("application_name", "kept") in client.statuses


def test_terminate_rolls_back(service: PlannerService, client: Client) -> None:
    other = Client(service)
    other.run("BEGIN; INSERT INTO acct VALUES (9, 9)")
    other.close()
    assert count(client) == 0
