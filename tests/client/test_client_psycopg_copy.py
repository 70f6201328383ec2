"""psycopg 3 bulk paths against sparkwire: COPY FROM STDIN / TO STDOUT (text and CSV), pipeline mode,
executemany.

COPY TO output is compared byte for byte with PostgreSQL 15's output for the same statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from psycopg import errors

from tests.support.clients import unique

COLUMNS = "a int8, b text, c numeric(10,2), d date, e bool"
ROWS = [
    (1, "one", Decimal("1.50"), date(2024, 1, 1), True),
    (2, "tab\there, newline\nthere, backslash \\ and \"quotes\", comma", Decimal("-2.25"), None, False),
    (3, None, None, date(1999, 12, 31), None),
    (4, "", Decimal("0.00"), date(2000, 2, 29), True),
]


@pytest.fixture
def table(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> Iterator[str]:
    name = unique("copy")
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {name} ({COLUMNS})")
    yield name
    for conn in (sw, pg):
        conn.execute(f"DROP TABLE IF EXISTS {name}")


def _rows(conn: psycopg.Connection[Any], table: str) -> list[tuple[Any, ...]]:
    return conn.execute(f"SELECT * FROM {table} ORDER BY a").fetchall()


def test_copy_from_stdin_write_row(sw: psycopg.Connection[Any], table: str) -> None:
    cur = sw.cursor()
    with cur.copy(f"COPY {table} (a, b, c, d, e) FROM STDIN") as copy:
        for row in ROWS:
            copy.write_row(row)
    assert cur.statusmessage == "COPY 4"
    assert cur.rowcount == 4
    assert _rows(sw, table) == ROWS


def test_copy_from_stdin_raw_text_and_csv(sw: psycopg.Connection[Any], table: str) -> None:
    cur = sw.cursor()
    with cur.copy(f"COPY {table} FROM STDIN") as copy:
        copy.write("10\tten\t10.10\t2024-03-01\tt\n11\t\\N\t\\N\t\\N\t\\N\n")
    assert cur.statusmessage == "COPY 2"
    with cur.copy(f"COPY {table} (a, b) FROM STDIN (FORMAT csv, HEADER true)") as copy:
        copy.write('a,b\n12,"quoted, with comma"\n13,\n')
    assert cur.statusmessage == "COPY 2"
    assert _rows(sw, table) == [
        (10, "ten", Decimal("10.10"), date(2024, 3, 1), True),
        (11, None, None, None, None),
        (12, "quoted, with comma", None, None, None),
        (13, None, None, None, None),
    ]


def test_copy_from_stdin_bad_data_is_atomic(sw: psycopg.Connection[Any], table: str) -> None:
    cur = sw.cursor()
    with pytest.raises(errors.InvalidTextRepresentation), cur.copy(f"COPY {table} (a, b) FROM STDIN") as copy:
        copy.write("1\tfine\nnot-a-number\toops\n")
    assert _rows(sw, table) == []
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_copy_from_stdin_client_abort(sw: psycopg.Connection[Any], table: str) -> None:
    class Abort(Exception):
        pass

    cur = sw.cursor()
    with pytest.raises(Abort), cur.copy(f"COPY {table} (a) FROM STDIN") as copy:
        copy.write_row((1,))
        raise Abort  # psycopg sends CopyFail
    assert _rows(sw, table) == []
    assert sw.execute("SELECT 1").fetchone() == (1,)


COPY_OUT = [
    "COPY (SELECT * FROM {t} ORDER BY a) TO STDOUT",
    "COPY (SELECT * FROM {t} ORDER BY a) TO STDOUT (FORMAT csv)",
    "COPY (SELECT * FROM {t} ORDER BY a) TO STDOUT WITH (FORMAT csv, HEADER true, DELIMITER ';')",
    "COPY (SELECT * FROM {t} ORDER BY a) TO STDOUT (FORMAT text, NULL 'nil', DELIMITER '|')",
    "COPY {t} (a, b) TO STDOUT",
    "COPY (SELECT i, 'row ' || i FROM generate_series(1, 2000) i) TO STDOUT",
]


@pytest.mark.parametrize("statement", COPY_OUT)
def test_copy_to_stdout_matches_oracle(
    sw: psycopg.Connection[Any], pg: psycopg.Connection[Any], table: str, statement: str
) -> None:
    outputs = []
    for conn in (sw, pg):
        cur = conn.cursor()
        with cur.copy(f"COPY {table} FROM STDIN") as copy:
            for row in ROWS:
                copy.write_row(row)
        with cur.copy(statement.format(t=table)) as copy:
            outputs.append(b"".join(bytes(block) for block in copy))
        outputs.append(cur.statusmessage.encode() if cur.statusmessage else b"")
    assert outputs[0:2] == outputs[2:4]


def test_copy_to_stdout_rows(sw: psycopg.Connection[Any]) -> None:
    cur = sw.cursor()
    with cur.copy("COPY (SELECT i, i * 2 AS j FROM generate_series(1, 5) i) TO STDOUT") as copy:
        copy.set_types(["int8", "int8"])
        rows = list(copy.rows())
    assert rows == [(i, i * 2) for i in range(1, 6)]


def test_copy_to_and_from_files_is_refused(sw: psycopg.Connection[Any], table: str) -> None:
    with pytest.raises(errors.InsufficientPrivilege):
        sw.execute(f"COPY {table} FROM '/etc/passwd'")
    with pytest.raises(errors.InsufficientPrivilege):
        sw.execute(f"COPY {table} TO '/tmp/sparkwire-must-not-write-this'")
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_pipeline_mode(sw: psycopg.Connection[Any], table: str) -> None:
    with sw.pipeline() as pipeline:
        inserts = [sw.execute(f"INSERT INTO {table} (a, b) VALUES (%s, %s)", [i, f"p{i}"]) for i in range(5)]
        count = sw.execute(f"SELECT count(*) FROM {table}")
        typed = sw.execute("SELECT %s::int4 + 1, %s::text", [41, "x"])
        pipeline.sync()
        assert [cur.rowcount for cur in inserts] == [1] * 5
        assert count.fetchone() == (5,)
        assert typed.fetchone() == (42, "x")


def test_pipeline_error_aborts_the_rest(sw: psycopg.Connection[Any], table: str) -> None:
    with pytest.raises(errors.UndefinedTable), sw.pipeline():
        sw.execute(f"INSERT INTO {table} (a) VALUES (1)")
        sw.execute("SELECT * FROM no_such_table_in_pipeline")
        sw.execute(f"INSERT INTO {table} (a) VALUES (2)")
    # the implicit transaction of the pipeline rolled back everything up to the Sync
    assert _rows(sw, table) == []
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_executemany(sw: psycopg.Connection[Any], table: str) -> None:
    cur = sw.cursor()
    cur.executemany(f"INSERT INTO {table} VALUES (%s, %s, %s, %s, %s)", ROWS)
    assert cur.rowcount == len(ROWS)
    assert _rows(sw, table) == ROWS


def test_executemany_returning(sw: psycopg.Connection[Any], table: str) -> None:
    cur = sw.cursor()
    cur.executemany(
        f"INSERT INTO {table} (a, b) VALUES (%s, %s) RETURNING a * 10, b", [(i, f"r{i}") for i in range(3)],
        returning=True,
    )
    returned = []
    while True:
        returned.extend(cur.fetchall())
        if not cur.nextset():
            break
    assert returned == [(0, "r0"), (10, "r1"), (20, "r2")]


def test_update_delete_tags(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any], table: str) -> None:
    statements = [
        f"INSERT INTO {table} (a, b) VALUES (1, 'x'), (2, 'y'), (3, 'z')",
        f"UPDATE {table} SET b = 'w' WHERE a >= 2",
        f"DELETE FROM {table} WHERE a = 1",
        f"UPDATE {table} SET b = 'none' WHERE a > 100",
    ]
    for statement in statements:
        got, want = sw.execute(statement), pg.execute(statement)
        assert (got.statusmessage, got.rowcount) == (want.statusmessage, want.rowcount)
    assert _rows(sw, table) == _rows(pg, table)
