"""Classes of interval and time values the differential suite found missing (intervals:16, 17, 20, 21, 33,
datetime:24, 72, strings:70), run on the session's PostgreSQL 15 oracle and sparkwire over the shared schema and
compared as the suite compares (bench/differential.py): same column types, same text of every value. Each class is
checked on the DuckDB route (a constant query) and on the Spark route (a query over a user table); the translations
are translate/functions/intervals/time_ops.py, interval_results.py, pg_age.py and interval_text.py, and the typed
literal's operators grammar/dialect.py."""

from __future__ import annotations

from tests.differential.classes import class_tests

CLASSES = {
    "constant: a typed literal's operators apply to the typed value": (
        "SELECT date '2024-02-29'::text || '!', time '10:30'::text, timestamp '2024-01-15'::text, int '42'::text, "
        "CAST('2024-01-15'::text AS date), date '2024-01-15'::text::date"
    ),
    "datetime columns as text": "SELECT id, day::text, at::text, at_tz::text, (day + 1)::text FROM events ORDER BY id",
    "constant: time - time, date_trunc of a time, time ± interval wrapping around midnight": (
        "SELECT time '08:15' - time '10:30:00.5', time '00:00' - time '23:59:59.999999', "
        "date_trunc('minute', time '10:30:45'), date_trunc('day', time '10:30'), time '01:00' - interval '2 hours', "
        "time '10:00' + interval '1 day 3 hours', NULL::time - time '01:00', time '23:00' + interval '2 hours'"
    ),
    "time - time, date_trunc of a time, time ± interval over a table": (
        "SELECT id, at::time - time '08:00', time '12:00' - at::time, date_trunc('minute', at::time), "
        "date_trunc('second', at::time), at::time + interval '20 hours', at::time - interval '9 hours' FROM events "
        "ORDER BY id"
    ),
    "sum and avg of intervals per group: days and time summed apart, avg by interval_div": (
        "SELECT kind, sum(at - timestamp '2024-01-01'), avg(at - day), sum(day - at), "
        "avg(at_tz - timestamptz '2024-01-01 00:00:00+00') AS a FROM events GROUP BY kind ORDER BY kind"
    ),
    "sum and avg of intervals over no rows, and with FILTER": (
        "SELECT sum(at - at), avg(at - timestamp '2024-01-01') FILTER (WHERE id < 5), "
        "sum(at - timestamp '2030-01-01') FROM events WHERE id > 100"
    ),
    "avg of intervals over a whole table": "SELECT avg(at - timestamp '2024-01-01'), sum(at - day) FROM events",
    "sum and avg of intervals ordered by their result column, with FILTER and over windows": (
        "SELECT kind, sum(at - day) AS s, avg(at - day) FILTER (WHERE id > 2), count(*) FROM events GROUP BY kind "
        "ORDER BY s DESC, 3"
    ),
    "sum and avg of intervals as window functions": (
        "SELECT id, sum(at - day) OVER (ORDER BY id), avg(at - timestamp '2024-01-01') OVER (PARTITION BY kind) "
        "FROM events ORDER BY id"
    ),
    "constant: sum and avg of intervals over windows and with FILTER": (
        "SELECT sum(x) OVER (ORDER BY n), avg(x) FILTER (WHERE n > 1) OVER () FROM (VALUES (1, interval '1 day "
        "23 hours'), (2, interval '23 hours'), (3, interval '-1 mon 3 days')) v(n, x) ORDER BY n"
    ),
    "age() ordered by its result column": (
        "SELECT id, age(at, timestamp '2022-02-28') AS a FROM events ORDER BY a DESC, id"
    ),
    "constant: sum and avg of intervals with months, negative parts and NULLs": (
        "SELECT sum(x), avg(x), sum(-x), avg(y) FROM (VALUES (interval '1 day 23 hours', interval '1 mon'), "
        "(interval '23 hours', interval '2 mons 3 days'), (interval '-3 days 4 hours', NULL), "
        "(NULL, interval '1 year -5 days')) v(x, y)"
    ),
    "age() over a table: month and day borrows, negative ages, timestamptz, NULLs": (
        "SELECT id, age(at, timestamp '2020-02-29 12:00'), age(timestamp '2023-01-31', day), "
        "age(at_tz, timestamptz '2024-03-01 00:00:00+00'), age(day, at) FROM events ORDER BY id"
    ),
    "age() of dates": (
        "SELECT id, age(date '2024-06-01', hired) AS a, age(hired, date '2019-12-31') FROM emp ORDER BY id"
    ),
    "age() of one timestamp counts from today's midnight": (
        "SELECT id, age(hired), age(last_login) FROM emp ORDER BY id"
    ),
    "constant: age() borrows": (
        "SELECT age(timestamp '2024-03-01', timestamp '2023-01-31 01:00'), "
        "age(timestamp '2023-01-31', timestamp '2024-03-01 02:00:00.5'), age(date '2024-02-29', date '2023-02-28'), "
        "age(NULL::timestamp, timestamp '2024-01-01')"
    ),
    "constant: to_char of intervals: hours past a day, negative fields, FM, AM/PM, MS/US, YYYY/MM/DD/DDD": (
        "SELECT to_char(interval '3 hours 20 minutes', 'HH24:MI'), to_char(interval '1 day 3 hours', 'DD HH24'), "
        "to_char(interval '-3 hours -20 minutes', 'HH24:MI'), to_char(interval '27 hours 5 minutes', "
        "'HH24:MI HH12 AM'), to_char(interval '1 year 2 mons 3 days 04:05:06.789', "
        "'YYYY MM DD DDD HH24 MI SS MS US FMHH24 FMMM'), to_char(interval '-1 year -2 mons -3 days -04:05:06.789', "
        "'YYYY MM DD DDD HH24 MI SS MS US FMHH24 FMMM HH12 AM pm'), to_char(interval '0', 'HH24:MI:SS \"h\" FMDD'), "
        "to_char(NULL::interval, 'HH24'), to_char(interval '100 hours', 'HH12:MI PM')"
    ),
    "to_char of intervals over a table": (
        "SELECT id, to_char(at - day, 'HH24:MI:SS.MS'), to_char(day - at, 'FMHH24 \"h\" MI US'), "
        "to_char(at - timestamp '2024-01-01', 'DD \"days\" HH12 AM DDD') FROM events ORDER BY id"
    ),
    "constant: to_char of numbers: 9 and 0 positions, D, G, FM, rounding, overflow, signs, NULL": (
        "SELECT to_char(0, '999'), to_char(0.5, '9D9'), to_char(-0.5, '0D9'), to_char(-12, '9999'), "
        "to_char(-12, '0000'), to_char(1234.567, '9G999D99'), to_char(-234.567, '9,999.99'), to_char(12345, '999'), "
        "to_char(-12345, '999D9'), to_char(1.5, 'FM999D99'), to_char(1.5, 'FM999D00'), to_char(0, 'FM9D99'), "
        "to_char(-0.004, '9D99'), to_char(9.995, '99D99'), to_char(7, '9909'), to_char(5, '9D'), to_char(0.5, 'D99'), "
        "to_char(NULL::numeric, '999'), to_char(-7::bigint, 'FM0099'), to_char(234, '0,000')"
    ),
    "to_char of integer and numeric columns": (
        "SELECT id, to_char(id, '000'), to_char(id * 1.5, '999D99'), to_char(n2, 'FM9G999G999D99'), "
        "to_char(n4, '99999D9999'), to_char(i, '9G999'), to_char(bi, '9999999999'), to_char(n0 * -1.5, 'FM0999D0') "
        "FROM nums ORDER BY id"
    ),
}


outcomes, test_class_agrees_with_postgres = class_tests(CLASSES, "datetime_intervals")
