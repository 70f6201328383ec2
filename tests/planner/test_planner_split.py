"""Statement splitting and the utility-statement grammar (pure functions, no engine)."""

from __future__ import annotations

import pytest

from sparkwire.errors import PgError
from sparkwire.planner.grammar import copy_statement as c
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.grammar.split import split_statements


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("", []),
        (" ; ;\n", []),
        ("-- only a comment", []),
        ("/* a /* nested */ comment */", []),
        ("SELECT 1", ["SELECT 1"]),
        ("SELECT 1;", ["SELECT 1"]),
        ("SELECT 1; SELECT 2", ["SELECT 1", "SELECT 2"]),
        ("SELECT ';'; SELECT 'it''s;'", ["SELECT ';'", "SELECT 'it''s;'"]),
        ("SELECT E'\\';'; SELECT 2", ["SELECT E'\\';'", "SELECT 2"]),
        ('SELECT 1 AS ";"; SELECT 2', ['SELECT 1 AS ";"', "SELECT 2"]),
        ("SELECT $$a;b$$; SELECT $x$;$y$;$x$", ["SELECT $$a;b$$", "SELECT $x$;$y$;$x$"]),
        ("SELECT $1; SELECT 2", ["SELECT $1", "SELECT 2"]),
        ("SELECT 1 -- ; not a split\n; SELECT 2", ["SELECT 1 -- ; not a split", "SELECT 2"]),
        ("SELECT /* ; */ 1; SELECT 2", ["SELECT /* ; */ 1", "SELECT 2"]),
        ("SELECT 'unterminated; SELECT 2", ["SELECT 'unterminated; SELECT 2"]),
    ],
)
def test_split(sql: str, expected: list[str]) -> None:
    assert split_statements(sql) == expected


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("BEGIN", u.Begin()),
        ("begin work", u.Begin()),
        (
            "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY",
            u.Begin("repeatable read", True, tag="START TRANSACTION"),
        ),
        ("COMMIT", u.Commit()),
        ("END TRANSACTION", u.Commit()),
        ("ABORT", u.Rollback()),
        ("ROLLBACK TO SAVEPOINT s1", u.RollbackTo("s1")),
        ("ROLLBACK WORK TO s1", u.RollbackTo("s1")),
        ("SAVEPOINT s1", u.Savepoint("s1")),
        ("RELEASE s1", u.Release("s1")),
        ('SET search_path TO a, "B"', u.SetVariable("search_path", 'a, "B"')),
        ("SET LOCAL statement_timeout = '1s'", u.SetVariable("statement_timeout", "1s", local=True)),
        ("SET extra_float_digits = -3", u.SetVariable("extra_float_digits", "-3")),
        ("SET x TO DEFAULT", u.SetVariable("x", None)),
        ("SET TIME ZONE 'UTC'", u.SetVariable("TimeZone", "UTC")),
        ("SET TIME ZONE LOCAL", u.SetVariable("TimeZone", None)),
        ("SET NAMES 'UTF8'", u.SetVariable("client_encoding", "UTF8")),
        ("SET TRANSACTION READ ONLY", u.SetTransaction(None, True, session_default=False)),
        ("RESET ALL", u.ResetVariable(None)),
        ("SHOW ALL", u.ShowVariable(None)),
        ("SHOW TRANSACTION ISOLATION LEVEL", u.ShowVariable("transaction_isolation")),
        ("DISCARD ALL", u.Discard("ALL")),
        ("PREPARE p (int, text) AS SELECT $1, $2", u.Prepare("p", ("int", "text"), "SELECT $1, $2")),
        ("PREPARE p (numeric(10, 2)) AS SELECT $1", u.Prepare("p", ("numeric(10, 2)",), "SELECT $1")),
        ("EXECUTE p (1, 'a, b')", u.ExecutePrepared("p", ("1", "'a, b'"))),
        ("DEALLOCATE PREPARE ALL", u.Deallocate(None)),
        ("DECLARE c BINARY NO SCROLL CURSOR WITH HOLD FOR SELECT 1", u.Declare("c", True, True, "SELECT 1")),
        ("FETCH FORWARD 5 FROM c", u.Fetch("c", 5, move=False)),
        ("FETCH ALL IN c", u.Fetch("c", None, move=False)),
        ("FETCH c", u.Fetch("c", 1, move=False)),
        ("MOVE NEXT FROM c", u.Fetch("c", 1, move=True)),
        ("CLOSE ALL", u.CloseCursor(None)),
        (
            "COPY t (a, b) FROM STDIN WITH (FORMAT csv, HEADER true)",
            c.CopyFrom("t", ("a", "b"), c.CopyOptions(format="csv", header=True)),
        ),
        ("COPY (SELECT 1) TO STDOUT", c.CopyTo("SELECT 1", None, (), c.CopyOptions())),
        ("SELECT 1", None),
        ("INSERT INTO t VALUES (1)", None),
    ],
)
def test_utility_grammar(sql: str, expected: u.Utility | None) -> None:
    assert u.parse_utility(sql) == expected


@pytest.mark.parametrize("sql", ["BEGIN nonsense", "SET x", "SAVEPOINT", "FETCH BACKWARD 1 FROM c", "COPY t"])
def test_utility_grammar_errors(sql: str) -> None:
    with pytest.raises(PgError) as info:
        u.parse_utility(sql)
    assert info.value.code in ("42601", "0A000")
