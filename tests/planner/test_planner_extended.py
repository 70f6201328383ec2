"""The extended protocol on a real session: parse/bind/describe/execute/close/sync, parameter type inference,
describing without executing, row limits that resume, SQL-level PREPARE/EXECUTE, and cursors sharing the portal
namespace (psycopg's named cursors DECLARE then Describe the portal by the cursor's name)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sparkwire.api import CommandComplete, Rows
from sparkwire.errors import PgError
from sparkwire.session.service import PlannerService
from tests.planner.test_planner_helpers import Client, materialize, new_service

INT4, INT8, TEXT, NUMERIC, DATE, BOOL = 23, 20, 25, 1700, 1082, 16


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlannerService]:
    svc = new_service(Path(tmp_path_factory.mktemp("ext")))
    c = Client(svc)
    c.run("CREATE TABLE items (id int, name text, price numeric(10,2), day date, ok boolean)")
    c.run("INSERT INTO items VALUES (1, 'one', 1.50, '2024-01-01', true), (2, 'two', 2.00, '2024-01-02', false)")
    c.close()
    yield svc
    svc.close()


def param_oids(c: Client, sql: str, declared: list[int] | None = None) -> tuple[int, ...]:
    c.session.parse("", sql, declared or [])
    return c.session.describe_statement("").param_oids


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT $1::int", (INT4,)),
        ("SELECT * FROM items WHERE id = $1", (INT4,)),
        ("SELECT * FROM items WHERE $1 = name AND price > $2", (TEXT, NUMERIC)),
        ("SELECT * FROM items WHERE id IN ($1, $2)", (INT4, INT4)),
        ("SELECT * FROM items WHERE day BETWEEN $1 AND $2", (DATE, DATE)),
        ("SELECT id + $1 FROM items", (INT4,)),
        ("INSERT INTO items VALUES ($1, $2, $3, $4, $5)", (INT4, TEXT, NUMERIC, DATE, BOOL)),
        ("INSERT INTO items (name, id) VALUES ($1, $2)", (TEXT, INT4)),
        ("UPDATE items SET ok = $1 WHERE id = $2", (BOOL, INT4)),
        ("DELETE FROM items WHERE day < $1", (DATE,)),
        ("SELECT id FROM items LIMIT $1 OFFSET $2", (INT8, INT8)),
        ("SELECT $1", (TEXT,)),
        ("SELECT $2::bigint, $1", (TEXT, INT8)),
        ("SELECT 1 WHERE 5 = any($1::oid[])", (1028,)),
        ("SELECT * FROM items WHERE id = ANY($1) AND name <> ANY($2)", (1007, 1009)),  # int4[], text[]
        ("SELECT $1::pg_catalog.int4, $2::pg_catalog.regclass", (INT4, TEXT)),
    ],
)
def test_parameter_type_inference(client: Client, sql: str, expected: tuple[int, ...]) -> None:
    assert param_oids(client, sql) == expected


def test_declared_types_win(client: Client) -> None:
    assert param_oids(client, "SELECT * FROM items WHERE id = $1", [INT8]) == (INT8,)


def test_describe_does_not_execute(client: Client) -> None:
    s = client.session
    s.parse("ins", "INSERT INTO items VALUES ($1, 'x', 0, '2024-01-01', true) RETURNING id, name", [])
    desc = s.describe_statement("ins")
    assert desc.param_oids == (INT4,)
    assert desc.fields is not None and [(f.name, f.type_oid) for f in desc.fields] == [("id", INT4), ("name", TEXT)]
    s.bind("p", "ins", [], [b"99"], [])
    assert s.describe_portal("p") == desc.fields
    s.parse("slow", "SELECT pg_sleep(30) AS z", [])
    assert [f.name for f in s.describe_statement("slow").fields or ()] == ["z"]
    s.close_portal("p")
    s.sync()
    assert client.rows("SELECT count(*) FROM items WHERE id = 99") == [(0,)]


def test_describe_results(client: Client) -> None:
    s = client.session
    s.parse("q", "SELECT id, name AS n, count(*) FROM items WHERE id > $1 GROUP BY id, name", [])
    desc = s.describe_statement("q")
    assert desc.fields is not None
    assert [(f.name, f.type_oid, f.type_size) for f in desc.fields] == [
        ("id", INT4, 4), ("n", TEXT, -1), ("count", INT8, 8),
    ]  # fmt: skip
    s.parse("u", "UPDATE items SET ok = ok WHERE id = $1", [])
    assert s.describe_statement("u").fields is None


def test_bind_execute_with_text_and_binary_parameters(client: Client) -> None:
    s = client.session
    s.parse("q", "SELECT name FROM items WHERE id = $1 AND ok = $2", [])
    s.bind("", "q", [1, 0], [(1).to_bytes(4, "big"), b"t"], [])
    out = materialize(s.execute("", 0))
    assert (out.tag, out.rows) == ("SELECT 1", [("one",)])
    s.bind("", "q", [], [None, b"t"], [])
    assert materialize(s.execute("", 0)).rows == []
    s.sync()


def test_result_formats_are_expanded(client: Client) -> None:
    s = client.session
    s.parse("q", "SELECT id, name FROM items", [])
    for codes, expected in (([], (0, 0)), ([1], (1, 1)), ([0, 1], (0, 1))):
        s.bind("", "q", [], [], codes)
        result = s.execute("", 0)
        assert isinstance(result, Rows) and result.formats == expected
        materialize(result)
    s.bind("", "q", [], [], [0, 1, 1])
    with pytest.raises(PgError) as info:
        s.execute("", 0)
    assert info.value.code == "08P01"
    s.sync()


def test_max_rows_resumes_where_it_stopped(client: Client) -> None:
    s = client.session
    s.parse("", "SELECT x FROM generate_series(1, 7) AS g(x)", [])
    s.bind("", "", [], [], [])
    chunks = [materialize(s.execute("", 3)).rows for _ in range(3)]
    assert chunks == [[(1,), (2,), (3,)], [(4,), (5,), (6,)], [(7,)]]
    s.sync()


def test_protocol_errors(client: Client) -> None:
    s = client.session
    s.parse("dup", "SELECT 1", [])
    with pytest.raises(PgError) as info:
        s.parse("dup", "SELECT 2", [])
    assert info.value.code == "42P05"
    with pytest.raises(PgError) as info:
        s.bind("", "dup", [], [b"1"], [])
    assert info.value.code == "08P01"
    with pytest.raises(PgError) as info:
        s.bind("", "missing", [], [], [])
    assert info.value.code == "26000"
    with pytest.raises(PgError) as info:
        s.execute("missing", 0)
    assert info.value.code == "34000"
    with pytest.raises(PgError) as info:
        s.parse("", "SELECT 1; SELECT 2", [])
    assert info.value.code == "42601"
    s.close_statement("dup")
    s.parse("dup", "SELECT 2", [])
    with pytest.raises(PgError) as info:  # PostgreSQL reads a typed literal while parsing: Parse fails, as there
        s.parse("", "SELECT 'x'::int", [])
    assert info.value.code == "22P02"
    s.sync()
    s.parse("", "SELECT 3", [])  # the session goes on
    s.bind("", "", [], [], [])
    assert materialize(s.execute("", 0)).rows == [(3,)]


def test_empty_statement(client: Client) -> None:
    s = client.session
    s.parse("", "", [])
    assert s.describe_statement("").fields is None
    s.bind("", "", [], [], [])
    assert materialize(s.execute("", 0)).tag == ""
    s.sync()


def test_sql_prepare_execute_deallocate(client: Client) -> None:
    out = client.run(
        "PREPARE byid (int) AS SELECT name FROM items WHERE id = $1; EXECUTE byid (2); EXECUTE byid(1 + 0)"
    )
    assert [o.tag for o in out] == ["PREPARE", "SELECT 1", "SELECT 1"]
    assert [o.rows for o in out[1:]] == [[("two",)], [("one",)]]
    assert client.error("PREPARE byid AS SELECT 1").code == "42P05"
    assert client.error("EXECUTE byid").code == "42601"
    assert client.one("DEALLOCATE byid").tag == "DEALLOCATE"
    assert client.error("EXECUTE byid (1)").code == "26000"
    assert client.one("DEALLOCATE ALL").tag == "DEALLOCATE ALL"


def test_sql_cursors(client: Client) -> None:
    out = client.run(
        "BEGIN; DECLARE c CURSOR FOR SELECT x FROM generate_series(1, 10) AS g(x); FETCH 3 FROM c; "
        "FETCH NEXT FROM c; MOVE FORWARD 2 IN c; FETCH ALL c; FETCH c; CLOSE c; COMMIT"
    )
    assert [o.tag for o in out] == [
        "BEGIN", "DECLARE CURSOR", "FETCH 3", "FETCH 1", "MOVE 2", "FETCH 4", "FETCH 0", "CLOSE CURSOR", "COMMIT",
    ]  # fmt: skip
    assert out[5].rows == [(7,), (8,), (9,), (10,)]
    err = client.error("DECLARE d CURSOR FOR SELECT 1")
    assert (err.code, err.message) == ("25P01", "DECLARE CURSOR can only be used in transaction blocks")
    assert client.error("FETCH 1 FROM nope").code == "34000"


def test_cursors_close_at_commit_unless_held(client: Client) -> None:
    client.run("BEGIN; DECLARE c CURSOR FOR SELECT 1; DECLARE h CURSOR WITH HOLD FOR SELECT id FROM items; COMMIT")
    assert client.error("FETCH c").code == "34000"
    assert client.one("FETCH ALL FROM h").rows == [(1,), (2,)]
    client.run("CLOSE ALL")
    assert client.error("FETCH h").code == "34000"


def test_named_cursor_the_psycopg_way(client: Client) -> None:
    """DECLARE through Execute, Describe(Portal, name), then FETCH statements through the extended protocol."""
    s = client.session
    client.run("BEGIN")
    s.parse("", 'DECLARE "pc" CURSOR FOR SELECT id, name FROM items ORDER BY id', [])
    s.bind("", "", [], [], [])
    assert isinstance(s.execute("", 0), CommandComplete)
    fields = s.describe_portal("pc")
    assert fields is not None and [f.name for f in fields] == ["id", "name"]
    s.parse("", 'FETCH FORWARD 1 FROM "pc"', [])
    assert s.describe_statement("").fields == fields
    s.bind("", "", [], [], [1])
    result = s.execute("", 0)
    assert isinstance(result, Rows) and result.formats == (1, 1)
    assert materialize(result).rows == [(1, "one")]
    s.sync()
    client.run("COMMIT")


def test_another_statement_while_a_portal_is_suspended(client: Client) -> None:
    s = client.session
    client.run("BEGIN")
    s.parse("big", "SELECT x FROM generate_series(1, 10000) AS g(x)", [])
    s.bind("big", "big", [], [], [])
    assert len(materialize(s.execute("big", 5)).rows) == 5
    assert client.rows("SELECT count(*) FROM items") == [(2,)]
    rest = materialize(s.execute("big", 0)).rows
    assert (len(rest), rest[0], rest[-1]) == (9995, (6,), (10000,))
    client.run("COMMIT")


def test_cast_projections_report_the_cast_type(client: Client) -> None:
    s = client.session
    s.parse("", "SELECT $1::varchar(5) AS v, $2::numeric AS n, $3::jsonb AS j, $4::numeric(6,2) AS m", [])
    fields = s.describe_statement("").fields
    assert fields is not None
    assert [(f.type_oid, f.type_modifier) for f in fields] == [(1043, 9), (1700, -1), (3802, -1), (1700, 393222)]
    s.bind("", "", [], [b"abc", b"1.50", b'{"a": 1}', b"2.5"], [])
    out = materialize(s.execute("", 0))
    assert [str(v) for v in out.rows[0]] == ["abc", "1.50", '{"a": 1}', "2.50"]
    s.sync()
