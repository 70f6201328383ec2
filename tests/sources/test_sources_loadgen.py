"""Load generator sources through psycopg against the session's server (issue 16 part A): COUNTER, AUCTION and
TPCH contents (deterministic), options and their errors, SHOW SOURCES / SUBSOURCES / CREATE SOURCE, mz_sources."""

from __future__ import annotations

import psycopg
import pytest

from tests.sources.loadgen_support import Conn, wait_offset


def test_counter_counts_up_to(sw: Conn) -> None:
    sw.execute("CREATE SOURCE lg_counter FROM LOAD GENERATOR COUNTER (TICK INTERVAL '10ms', UP TO 25)")
    try:
        assert wait_offset(sw, "lg_counter", 25) == 25
        rows = sw.execute("SELECT counter FROM lg_counter ORDER BY counter").fetchall()
        assert [r[0] for r in rows] == list(range(1, 26))
        assert sw.execute('SELECT "offset" FROM lg_counter_progress').fetchall() == [(25,)]
        columns = sw.execute(
            "SELECT c.name, c.type FROM mz_columns c JOIN mz_sources s ON c.id = s.id WHERE s.name = 'lg_counter'"
        ).fetchall()
        assert columns == [("counter", "bigint")]
    finally:
        sw.execute("DROP SOURCE lg_counter")


def test_counter_max_cardinality_and_as_of(sw: Conn) -> None:
    sw.execute(
        "CREATE SOURCE lg_card FROM LOAD GENERATOR COUNTER (TICK INTERVAL '10ms', MAX CARDINALITY 3, AS OF 5, UP TO 9)"
    )
    try:
        wait_offset(sw, "lg_card", 9)
        assert sw.execute("SELECT counter FROM lg_card ORDER BY 1").fetchall() == [(7,), (8,), (9,)]
    finally:
        sw.execute("DROP SOURCE lg_card")


def test_auction_subsources(sw: Conn) -> None:
    sw.execute("CREATE SOURCE lg_auction FROM LOAD GENERATOR AUCTION (TICK INTERVAL '10ms', UP TO 12) FOR ALL TABLES")
    try:
        wait_offset(sw, "lg_auction", 12)
        subsources = sw.execute("SHOW SUBSOURCES ON lg_auction").fetchall()
        assert subsources == [
            ("accounts", "subsource"),
            ("auctions", "subsource"),
            ("bids", "subsource"),
            ("lg_auction_progress", "progress"),
            ("organizations", "subsource"),
            ("users", "subsource"),
        ]
        counts = sw.execute(
            "SELECT (SELECT count(*) FROM organizations), (SELECT count(*) FROM users), "
            "(SELECT count(*) FROM accounts), (SELECT count(*) FROM auctions), (SELECT count(*) FROM bids)"
        ).fetchall()
        assert counts == [(10, 100, 10, 3, 8)]  # ticks 1-11: auctions 1-3 and their bids so far
        bids = sw.execute("SELECT id, buyer, auction_id, amount FROM bids ORDER BY id LIMIT 3").fetchall()
        assert bids == [(10, 33, 1, 16), (11, 64, 1, 98), (12, 58, 1, 61)]
        assert sw.execute("SELECT id, seller, item FROM auctions ORDER BY id").fetchall()[0][0] == 1
        with pytest.raises(psycopg.errors.WrongObjectType, match="has no columns"):
            sw.execute("SELECT * FROM lg_auction")
        joined = sw.execute(
            "SELECT count(*) FROM bids b JOIN auctions a ON b.auction_id = a.id JOIN users u ON b.buyer = u.id"
        ).fetchall()
        assert joined == [(8,)]
        types = sw.execute(
            "SELECT c.name, c.type FROM mz_columns c JOIN mz_sources s ON c.id = s.id WHERE s.name = 'bids' "
            "ORDER BY c.position"
        ).fetchall()
        assert types == [
            ("id", "bigint"),
            ("buyer", "bigint"),
            ("auction_id", "bigint"),
            ("amount", "integer"),
            ("bid_time", "timestamp with time zone"),
        ]
    finally:
        sw.execute("DROP SOURCE lg_auction")
    assert sw.execute("SELECT count(*) FROM mz_sources WHERE name IN ('bids', 'lg_auction_progress')").fetchall() == [
        (0,)
    ]


def test_tpch_snapshot(sw: Conn) -> None:
    sw.execute("CREATE SOURCE lg_tpch FROM LOAD GENERATOR TPCH (SCALE FACTOR 0.001, UP TO 1) FOR ALL TABLES")
    try:
        wait_offset(sw, "lg_tpch", 1)
        counts = sw.execute(
            "SELECT (SELECT count(*) FROM region), (SELECT count(*) FROM nation), (SELECT count(*) FROM supplier), "
            "(SELECT count(*) FROM part), (SELECT count(*) FROM partsupp), (SELECT count(*) FROM customer), "
            "(SELECT count(*) FROM orders), (SELECT count(*) FROM lineitem)"
        ).fetchall()
        assert counts == [(5, 25, 10, 200, 800, 150, 1500, 6001)]
        q1 = sw.execute(
            "SELECT l_returnflag, l_linestatus, count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' "
            "GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall()
        assert sum(r[2] for r in q1) > 5000 and {r[0] for r in q1} <= {"A", "N", "R"}
        orphans = sw.execute(
            "SELECT count(*) FROM lineitem l LEFT JOIN orders o ON l.l_orderkey = o.o_orderkey "
            "WHERE o.o_orderkey IS NULL"
        ).fetchall()
        assert orphans == [(0,)]
        price = sw.execute("SELECT o_totalprice FROM orders WHERE o_orderkey = 1")
        assert price.description is not None and price.description[0].type_code == 1700  # numeric
    finally:
        sw.execute("DROP SOURCE lg_tpch")


def test_show_and_catalog(sw: Conn) -> None:
    sw.execute("CREATE CLUSTER lg_c (SIZE = '25cc')")
    sw.execute(
        "CREATE SOURCE lg_show IN CLUSTER lg_c FROM LOAD GENERATOR COUNTER (TICK INTERVAL '1s') "
        "EXPOSE PROGRESS AS lg_show_p"
    )
    try:
        shown = sw.execute("SHOW SOURCES IN CLUSTER lg_c").fetchall()
        assert shown == [("lg_show", "load-generator", "lg_c", None), ("lg_show_p", "progress", "lg_c", None)]
        create = sw.execute("SHOW CREATE SOURCE lg_show").fetchall()
        assert create == [
            (
                "materialize.public.lg_show",
                "CREATE SOURCE materialize.public.lg_show IN CLUSTER lg_c FROM LOAD GENERATOR COUNTER "
                "(TICK INTERVAL = '1s') EXPOSE PROGRESS AS lg_show_p",
            )
        ]
        row = sw.execute(
            "SELECT s.type, s.size, s.envelope_type, c.name FROM mz_sources s JOIN mz_clusters c "
            "ON s.cluster_id = c.id WHERE s.name = 'lg_show'"
        ).fetchall()
        assert row == [("load-generator", "25cc", "none", "lg_c")]
        relkind = sw.execute("SELECT relkind FROM pg_class WHERE relname = 'lg_show'").fetchall()
        assert relkind == [("r",)]
        with pytest.raises(psycopg.errors.DuplicateTable):
            sw.execute("CREATE SOURCE lg_show FROM LOAD GENERATOR COUNTER")
        sw.execute("CREATE SOURCE IF NOT EXISTS lg_show FROM LOAD GENERATOR COUNTER")
    finally:
        sw.execute("DROP CLUSTER lg_c CASCADE")
    assert sw.execute("SELECT count(*) FROM mz_sources WHERE name LIKE 'lg_show%'").fetchall() == [(0,)]


@pytest.mark.parametrize(
    ("sql", "sqlstate"),
    [
        ("CREATE SOURCE e FROM LOAD GENERATOR COUNTER (TICK INTERVAL 'soon')", "22023"),
        ("CREATE SOURCE e FROM LOAD GENERATOR COUNTER (SCALE FACTOR 1)", "22023"),
        ("CREATE SOURCE e FROM LOAD GENERATOR COUNTER FOR ALL TABLES", "42601"),
        ("CREATE SOURCE e FROM LOAD GENERATOR AUCTION", "42601"),
        ("CREATE SOURCE e FROM LOAD GENERATOR AUCTION FOR TABLES (nope)", "42P01"),
        ("CREATE SOURCE e FROM LOAD GENERATOR MARKETING", "0A000"),
        ("CREATE SOURCE e IN CLUSTER nope FROM LOAD GENERATOR COUNTER", "42704"),
        ("CREATE SOURCE e FROM LOAD GENERATOR COUNTER WITH (SIZE = '1')", "0A000"),
        ("CREATE SOURCE e FROM LOAD", "42601"),
        ("DROP SOURCE nope", "42P01"),
    ],
)
def test_errors(sw: Conn, sql: str, sqlstate: str) -> None:
    with pytest.raises(psycopg.Error) as raised:
        sw.execute(sql)
    assert raised.value.sqlstate == sqlstate, raised.value
    assert sw.execute("SELECT count(*) FROM mz_sources WHERE name = 'e'").fetchall() == [(0,)]


def test_for_tables_renames(sw: Conn) -> None:
    sw.execute(
        "CREATE SOURCE lg_some FROM LOAD GENERATOR AUCTION (UP TO 1) FOR TABLES (organizations AS lg_orgs, users)"
    )
    try:
        wait_offset(sw, "lg_some", 1)
        assert sw.execute("SHOW SUBSOURCES ON lg_some").fetchall() == [
            ("lg_orgs", "subsource"),
            ("lg_some_progress", "progress"),
            ("users", "subsource"),
        ]
        assert sw.execute("SELECT count(*) FROM lg_orgs").fetchall() == [(10,)]
    finally:
        sw.execute("DROP SOURCE IF EXISTS lg_some")
    sw.execute("DROP SOURCE IF EXISTS lg_some")


def test_subsource_name_taken_creates_nothing(sw: Conn) -> None:
    sw.execute("CREATE TABLE lg_taken (a int)")
    try:
        with pytest.raises(psycopg.errors.DuplicateTable):
            sw.execute("CREATE SOURCE lg_clash FROM LOAD GENERATOR AUCTION FOR TABLES (users AS lg_taken)")
        assert sw.execute("SELECT count(*) FROM mz_sources WHERE name LIKE 'lg_clash%'").fetchall() == [(0,)]
        assert sw.execute(
            "SELECT count(*) FROM mz_internal.mz_source_statuses WHERE name LIKE 'lg_clash%'"
        ).fetchall() == [(0,)]
    finally:
        sw.execute("DROP TABLE lg_taken")
