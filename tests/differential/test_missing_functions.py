"""One query per class of "function, operator, type or syntax missing" the differential suite found and the
translations now give (translate/functions/lowering.py and the modules it names, translate/duckdb_rules/), run on
the session's PostgreSQL 15 oracle and sparkwire over the shared schema and compared as the suite compares
(bench/differential.py): same column types, same text of every value, or the same SQLSTATE. Each class is checked on
the DuckDB route (a constant query) and, where it applies, on the Spark route (a query over a user table)."""

from __future__ import annotations

import psycopg
import pytest

from tests.differential.classes import class_tests
from tests.support.server import SparkwireServer

CLASSES = {
    "constant: trim_scale keeps each value's own digits": (
        "SELECT trim_scale(1.2300), trim_scale(100), trim_scale(-0.500), trim_scale(0.000), trim_scale(NULL::numeric)"
    ),
    "trim_scale of a numeric column": "SELECT id, trim_scale(n4), trim_scale(n2) AS t FROM nums ORDER BY id",
    "constant: interval units PostgreSQL abbreviates": (
        "SELECT interval '2 mons', interval '3 hrs', interval '5 mins' * 2, interval '10 secs', interval '1 yr'"
    ),
    "interval units PostgreSQL abbreviates, over a table": (
        "SELECT id, at + interval '1 mon', at - interval '3 hrs' FROM events ORDER BY id"
    ),
    "constant: concat() without arguments is 42883": "SELECT concat()",
    "constant: the prefix operators @ (abs), |/ and ||/": "SELECT @ -5, @ -2.5 + 1, |/ 25, ||/ 27",
    "the prefix operator @ over a table": "SELECT id, @ i, @ n2, @ f FROM nums ORDER BY id",
    "ranking and offset window functions without ORDER BY (Spark asks for one)": (
        "SELECT id, row_number() OVER () > 0, rank() OVER (), dense_rank() OVER (), percent_rank() OVER (), "
        "cume_dist() OVER (PARTITION BY dept), count(*) OVER () FROM emp ORDER BY id"
    ),
    "constant: dates PostgreSQL reads with month names, as YYYYMMDD and year first": (
        "SELECT 'Jan 15 2024'::date, '15-Jan-2024'::date, '20240115'::date, 'January 15, 2024'::date, "
        "'Mon Jan 15 2024'::date, '240115'::date, '2024.1.15'::date, 20240115::text::date"
    ),
    "constant: ISO 8601 intervals": "SELECT 'P1Y2M3DT4H5M6S'::interval, 'P2W'::interval, 'PT1.5S'::interval",
    "constant: an ISO 8601 interval with a leading minus is 22007": "SELECT '-P1D'::interval",
    "constant: the name type": "SELECT 'x'::name, name 'abc' || 'd'",
    "date and interval literals and ::name over tables": (
        "SELECT id, hired < 'Jan 15 2020'::date, at + 'P1DT2H'::interval, w::name FROM emp JOIN events USING (id) "
        "JOIN words USING (id) ORDER BY id"
    ),
    "constant: OVERLAPS with interval and reversed ends, NULL ends and equal starts": (
        "SELECT (timestamp '2024-01-01 10:00', interval '2 hours') OVERLAPS (timestamp '2024-01-01 11:00', "
        "interval '2 hours'), (date '2024-01-01', date '2024-02-01') OVERLAPS (date '2024-01-15', date '2023-12-01'), "
        "(date '2024-01-01', NULL::date) OVERLAPS (date '2024-01-01', date '2024-01-02'), (date '2024-01-01', "
        "date '2024-01-01') OVERLAPS (date '2024-01-01', date '2024-01-01'), (NULL::date, date '2024-01-05') "
        "OVERLAPS (date '2024-01-01', date '2024-01-09'), (date '2024-01-01', date '2024-01-02') OVERLAPS "
        "(date '2024-01-02', date '2024-01-03')"
    ),
    "OVERLAPS over a table": (
        "SELECT a.id, b.id, (a.at, a.at + interval '1 day') OVERLAPS (b.at, b.day) FROM events a, events b "
        "WHERE a.id < 5 AND b.id < 5 ORDER BY 1, 2"
    ),
    "constant: justify_hours, justify_days, justify_interval": (
        "SELECT justify_days(interval '35 days'), justify_hours(interval '27 hours'), "
        "justify_interval(interval '1 month -1 hour'), justify_interval(interval '-1 month 50 days -3 hours'), "
        "justify_hours(interval '-50 hours 3 days'), justify_days(interval '1 year -65 days 3 hours'), "
        "justify_interval(interval '1 month -30 days -1 hour'), justify_days(interval '-35 days'), "
        "justify_interval(NULL)"
    ),
    "justify_hours over a table": (
        "SELECT id, justify_hours(at - timestamp '2024-01-01'), justify_hours(justify_hours(at - day)) FROM events "
        "ORDER BY id"
    ),
    "constant: nested justify calls": (
        "SELECT justify_days(justify_hours(interval '800 hours')), justify_interval(interval '1 day' + "
        "justify_days(interval '40 days'))"
    ),
    "constant: encode, decode, convert_to, convert_from": (
        "SELECT encode(convert_to('héllo', 'UTF8'), 'hex'), encode('abc'::bytea, 'base64'), decode('616263', 'hex'), "
        "decode('YWJj', 'base64'), convert_from('\\x68c3a9'::bytea, 'UTF8'), convert_to('x', 'utf8')"
    ),
    "encode, decode, convert_to, convert_from over a table": (
        "SELECT id, encode(convert_to(w, 'UTF8'), 'hex'), encode(w::bytea, 'base64'), "
        "convert_from(decode(encode(convert_to(w, 'UTF8'), 'base64'), 'base64'), 'UTF8') = w FROM words "
        "WHERE id < 10 ORDER BY id"
    ),
    "ROLLUP, CUBE and GROUPING SETS of expressions": (
        "SELECT dept, active, age > 30 AS old, count(*) FROM emp GROUP BY ROLLUP (dept, active, age > 30) "
        "ORDER BY 1, 2, 3, 4"
    ),
    "CUBE of comparisons": "SELECT age > 30, count(*) FROM emp GROUP BY CUBE (age > 30, dept IS NULL) ORDER BY 1, 2",
    "constant: GROUPING SETS of a comparison": (
        "SELECT x > 1, count(*) FROM (VALUES (1), (2)) v(x) GROUP BY GROUPING SETS ((x > 1), ()) ORDER BY 1, 2"
    ),
    "generate_series in LATERAL over an outer column, named by its alias": (
        "SELECT e.id, g, h.x FROM emp e, LATERAL generate_series(1, e.id % 3) g, generate_series(g, 2) h(x) "
        "ORDER BY 1, 2, 3"
    ),
    "generate_series in CROSS JOIN LATERAL, bigint bounds": (
        "SELECT e.id, g FROM emp e CROSS JOIN LATERAL generate_series(e.badge, e.badge + 1) AS g ORDER BY 1, 2"
    ),
    "constant: generate_series over a VALUES column": (
        "SELECT x, g FROM (VALUES (1), (3)) v(x), generate_series(x, 4, 2) g ORDER BY 1, 2"
    ),
    "constant: an interval's text": (
        "SELECT interval '1 day'::text, interval '-1 day 2 hours'::text, interval '1 mon'::text, interval '0'::text, "
        "justify_days(interval '40 days')::text, '1 year 2 months 3 days 04:05:06.5'::interval::text, "
        "CAST(interval '-3 hours' AS varchar), (NULL::interval)::text"
    ),
    "LATERAL VALUES of one column over outer columns": (
        "SELECT e.id, x.v, y.column1 FROM emp e, LATERAL (VALUES (e.id), (e.manager_id)) x(v) "
        "CROSS JOIN LATERAL (VALUES (e.name), (NULL)) y ORDER BY 1, 2, 3"
    ),
    "constant: LATERAL VALUES over a VALUES column": (
        "SELECT a, v FROM (VALUES (1), (2)) t(a), LATERAL (VALUES (a), (a + 10)) x(v) ORDER BY 1, 2"
    ),
    "ranking functions over a named window keep its ORDER BY": (
        "SELECT id, rank() OVER w, dense_rank() OVER w, row_number() OVER () > 0 FROM emp WINDOW w AS (ORDER BY dept) "
        "ORDER BY id"
    ),
    "constant: to_char templates with quoted text, MS, US and FM": (
        "SELECT to_char(timestamp '2024-01-05 13:07:09.123', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'), "
        "to_char(date '2024-01-05', 'FMMonth FMDD'), "
        "to_char(timestamp '2024-03-09 08:05:03.5', 'FMDD/FMMM/YY FMHH12:MI:SS AM US Dy Mon DDD FMDDD FMDay \"100%\"')"
    ),
}


outcomes, test_class_agrees_with_postgres = class_tests(CLASSES, "class")


def test_groups_frame_is_not_supported_on_spark(server: SparkwireServer) -> None:
    """Spark has ROWS and RANGE frames only: a GROUPS frame is 0A000, not Spark's syntax error."""
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS groups_frame (a int)")
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            conn.execute(
                "SELECT count(*) OVER (ORDER BY a GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM groups_frame"
            )
