"""information_schema.routines against PostgreSQL 15: every column of every row sparkwire has (its pg_proc's builtin
functions) equals PostgreSQL's row for the same function, with the same result column types; harlequin-postgres'
completion query runs."""

from __future__ import annotations

from typing import Any

import psycopg

QUERY = (
    "SELECT * FROM information_schema.routines WHERE specific_catalog = current_database() "
    "AND specific_name = ANY({names}) ORDER BY specific_name"
)


def _names(conn: psycopg.Connection[Any]) -> list[str]:
    rows = conn.execute(
        "SELECT specific_name FROM information_schema.routines WHERE specific_catalog = current_database()"
    ).fetchall()
    return [str(r[0]) for r in rows]


def test_rows_match_postgres(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    names = _names(sw)
    assert len(names) == len(set(names)) > 100
    assert "int4in_42" in names and "heap_tableam_handler_3" in names
    literal = "ARRAY[" + ", ".join(f"'{n}'" for n in names) + "]"
    ours = sw.execute(QUERY.format(names=literal))
    theirs = pg.execute(QUERY.format(names=literal))
    assert ours.description is not None and theirs.description is not None
    assert [(d.name, d.type_code) for d in ours.description] == [(d.name, d.type_code) for d in theirs.description]
    assert len(ours.description) == 82
    columns = [d.name for d in ours.description]
    mine = [dict(zip(columns, row, strict=True)) for row in ours.fetchall()]
    pgs = [dict(zip(columns, row, strict=True)) for row in theirs.fetchall()]
    assert len(mine) == len(pgs) == len(names)
    strict = dict(sw.execute("SELECT proname || '_' || oid, proisstrict FROM pg_proc").fetchall())
    for row, expected in zip(mine, pgs, strict=True):
        # is_null_call is the view over pg_proc.proisstrict: compared with sparkwire's own pg_proc
        assert row.pop("is_null_call") == ("YES" if strict[row["specific_name"]] else "NO")
        expected.pop("is_null_call")
        for key in ("specific_catalog", "routine_catalog", "type_udt_catalog"):
            assert row[key] == "materialize"
            row[key] = expected[key]
        assert row == expected
    by_name = {r["specific_name"]: r for r in mine}
    assert (by_name["int2vectorin_40"]["data_type"], by_name["int2vectorin_40"]["type_udt_name"]) == (
        "ARRAY", "int2vector"
    )
    assert by_name["array_in_750"]["data_type"] == "anyarray"


def test_harlequin_completion_query(sw: psycopg.Connection[Any]) -> None:
    rows = sw.execute(
        r"""select distinct routine_name as label,
                case when routine_type is null then 'agg' else 'fn' end as type_label,
                case when routine_schema = 'pg_catalog' then null else routine_schema end as context
            from information_schema.routines
            where length(routine_name) < 37 and routine_name not ilike '\_%' and routine_name not ilike 'pg\_%'
              and routine_name not ilike 'binary\_upgrade\_%'"""
    ).fetchall()
    labels = {r[0] for r in rows}
    assert ("int4in", "fn", None) in rows
    assert not any(label.startswith("pg_") for label in labels)
