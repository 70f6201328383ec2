"""The replay corpus (tests/introspection/replay/*.sql, see its README): catalog queries Grafana, Metabase, DBeaver,
pgjdbc, psqlODBC and Npgsql send, each run on sparkwire and on PostgreSQL 15 over the same fixture and compared in
shape and content."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

CORPUS = Path(__file__).parent / "replay"
DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.t (id integer NOT NULL, amount numeric(10,2), name text, v varchar(20), "
    "ts timestamp with time zone, flag boolean)",
    "CREATE VIEW {s}.v AS SELECT id, name FROM {s}.t",
    "CREATE MATERIALIZED VIEW {s}.mv AS SELECT id, amount FROM {s}.t",
    "CREATE INDEX t_id_idx ON {s}.t (id)",
)
_BLOCK = re.compile(r"^-- query: (\S+)\n-- compare: (\S+)\n(.*?;)\s*$", re.M | re.S)


@dataclass(frozen=True)
class Replay:
    name: str
    compare: str
    sql: str


def corpus() -> list[Replay]:
    replays = [
        Replay(m.group(1), m.group(2), m.group(3).rstrip(";"))
        for path in sorted(CORPUS.glob("*.sql"))
        for m in _BLOCK.finditer(re.sub(r"\n(?=-- query:)", "\n\n", path.read_text()))
    ]
    assert replays and all(r.compare in ("rows", "fixture_rows", "shape", "subset") for r in replays)
    return replays


@pytest.fixture(scope="module")
def schema(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[str]:
    yield same_schema((server.dsn, oracle.dsn), "replay", DDL)


def run(conn: psycopg.Connection[tuple[Any, ...]], sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    cur = conn.execute(sql)
    assert cur.description is not None
    return [c.name for c in cur.description], cur.fetchall()


def _ordered(sql: str, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return rows if re.search(r"\border\s+by\b", sql, re.I) else sorted(rows, key=repr)


@pytest.mark.parametrize("replay", corpus(), ids=lambda r: r.name)
def test_replay(
    sw: psycopg.Connection[tuple[Any, ...]], pg: psycopg.Connection[tuple[Any, ...]], schema: str, replay: Replay
) -> None:
    sql = replay.sql.replace("{schema}", schema)
    (our_columns, ours), (their_columns, theirs) = run(sw, sql), run(pg, sql)
    assert our_columns == their_columns
    if replay.compare == "shape":
        assert len(ours) == len(theirs)
        return
    if replay.compare == "subset":
        assert ours
        assert set(ours) <= set(theirs), sorted(set(ours) - set(theirs), key=repr)
        return
    if replay.compare == "fixture_rows":
        ours = [row for row in ours if schema in repr(row)]
        theirs = [row for row in theirs if schema in repr(row)]
        assert ours
    assert _ordered(sql, ours) == _ordered(sql, theirs)
