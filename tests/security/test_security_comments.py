"""Statements behind comments (issue 12 item 4): a line comment, a block comment and a nested block comment before
(and inside) every kind of statement change nothing, over the simple and the extended protocol, as in PostgreSQL
(the oracle runs the same script and must give the same command tags)."""

from __future__ import annotations

import psycopg
import pytest

from tests.security.conftest import Conn

COMMENTS = ["/* c */ ", "-- c\n", "/* a /* nested */ b */\n", "-- one\n/* two */ -- three\n"]


def script(n: int) -> list[str]:
    t = f"sec_cmt_{n}"
    return [
        "SET search_path = public",
        "SHOW search_path",
        "RESET search_path",
        f"CREATE TABLE {t} (a int, b text)",
        f"INSERT INTO {t} VALUES (1, 'x')",
        f"UPDATE {t} SET b = 'y' WHERE a = 1",
        f"SELECT a, b FROM {t}",
        "BEGIN",
        "SET TRANSACTION READ ONLY",
        "SELECT 1",
        "COMMIT",
        "START TRANSACTION",
        "ROLLBACK",
        f"PREPARE sec_cmt_p{n} AS SELECT 1",
        f"EXECUTE sec_cmt_p{n}",
        f"DEALLOCATE sec_cmt_p{n}",
        f"CREATE VIEW {t}_v AS SELECT /* inside */ a FROM {t}",
        f"DROP VIEW {t}_v",
        f"DELETE FROM {t}",
        f"DROP TABLE {t}",
    ]


def simple(conn: Conn, sql: str) -> str:
    """Run `sql` with the simple query protocol; its command tag."""
    result = conn.pgconn.exec_(sql.encode())
    assert result.status in (1, 2), (sql, result.error_message)  # COMMAND_OK, TUPLES_OK
    return (result.command_status or b"").decode()


def extended(conn: Conn, sql: str) -> str:
    cur = conn.execute(sql)
    return cur.statusmessage or ""


@pytest.mark.parametrize("comment", COMMENTS)
@pytest.mark.parametrize("run", [simple, extended], ids=["simple", "extended"])
def test_statements_behind_comments(sw: Conn, pg: Conn, comment: str, run: object) -> None:
    n = COMMENTS.index(comment) * 2 + (run is extended)
    for sql in script(n):
        if run is extended and sql.split()[0] in ("PREPARE", "EXECUTE", "DEALLOCATE"):
            continue  # psycopg prepares its own statements; these run over the simple protocol above
        statement = comment + sql
        assert callable(run)
        assert run(sw, statement) == run(pg, statement), statement


def test_a_comment_alone_is_an_empty_query(sw: Conn) -> None:
    result = sw.pgconn.exec_(b"/* nothing /* at */ all */ -- really")
    assert result.status == 0  # EMPTY_QUERY


def test_comment_does_not_hide_an_error_position(sw: Conn, pg: Conn) -> None:
    for conn in (sw, pg):
        with pytest.raises(psycopg.errors.SyntaxError) as err:
            conn.execute("/* c */ SELECT 1 +")
        assert err.value.diag.statement_position == "19"
