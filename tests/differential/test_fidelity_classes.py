"""One query per class of disagreement fixed for SQL fidelity (issue 13): ORDER BY positions on Spark, numeric
values' own scales, result types, error SQLSTATEs. Each runs on the session's PostgreSQL 15 oracle and on sparkwire
over the shared schema (tests/differential/schema.sql) and is compared as the differential suite compares
(bench/differential.py): same column type OIDs, same text of every value, or the same SQLSTATE."""

from __future__ import annotations

from tests.differential.classes import class_tests

CLASSES = {
    "ORDER BY the position of a grouping() column (Spark: 42803 on the copied expression)": (
        "SELECT k, grouping(k), count(*) FROM pairs GROUP BY ROLLUP (k) ORDER BY 2 DESC, 1"
    ),
    "ORDER BY the position of a DISTINCT expression (Spark: 42703 on the qualified column)": (
        "SELECT DISTINCT k * 2, tag FROM pairs ORDER BY 1 DESC, 2"
    ),
    "format() with %s, %I, %L, positions and widths (functions/pg_format.py)": (
        "SELECT words.id, format('%s|%2$I|%-6s|%L|%4s', words.id, lang, note, active) FROM words, emp "
        "WHERE lang IS NOT NULL AND emp.id = words.id ORDER BY words.id"
    ),
    "format('%I', NULL) is 22004, not an engine's error": "SELECT format('%I', lang) FROM words",
    "constant: format() and concat() print a boolean as t / f": (
        "SELECT format('%5s|%L|%s|%%', true, NULL, 1 < 2), concat(false, 1), format('%s', NULL)"
    ),
    "float8 to real: overflow is 22003 on Spark (it answered Infinity)": (
        "SELECT id, (f * 1e30)::real FROM nums WHERE id = 9"
    ),
    "float8 to real: underflow is 22003 on Spark (it answered 0)": "SELECT (f * 1e-300)::real FROM nums WHERE id = 1",
    "float8 to real in range, NaN and infinities kept": (
        "SELECT id, f::real, ('NaN'::float8 * f)::real, ('-Infinity'::float8 + f)::real FROM nums WHERE id <> 4 "
        "ORDER BY id"
    ),
    "chr() of code points past 255 on Spark (1 to 4 UTF-8 bytes)": (
        "SELECT id, chr(id * 9000 + 1), chr(id * 100), chr(id), chr(id * 80000) FROM words ORDER BY id"
    ),
    "chr() of a surrogate is 54000 on Spark": "SELECT chr(id * 1000 + 55000) FROM words WHERE id = 1",
    "chr() past U+10FFFF is 54000 on Spark": "SELECT chr(id * 200000) FROM words",
    "pg_typeof() is a regtype naming PostgreSQL's type, over user columns (Spark)": (
        "SELECT pg_typeof(k), pg_typeof(e.tag), pg_typeof(k * 1.5), pg_typeof(avg(v)), pg_typeof(k > 1), "
        "pg_typeof(ARRAY[k]), pg_typeof(sum(k)) FROM pairs e GROUP BY k, tag"
    ),
    "constant: pg_typeof() of literals, casts and functions": (
        "SELECT pg_typeof(NULL), pg_typeof(ARRAY[1]), pg_typeof(interval '1 day'), pg_typeof(1::numeric(5,2)), "
        "pg_typeof('a'::varchar(3)), pg_typeof(true), pg_typeof(now()), pg_typeof(2.5e3), pg_typeof(1 / 2)"
    ),
    "pg_typeof() of a builtin relation's columns": (
        "SELECT pg_typeof(relname), pg_typeof(c.oid), pg_typeof(relkind) FROM pg_class c LIMIT 1"
    ),
    "constant: arithmetic of a real with another number is double precision": (
        "SELECT 1 / 3::real, 2 * 1.5::real, 1.5::real * 1.5::real, 1::real + 1.5"
    ),
    "constant: EXTRACT(epoch …) is numeric (scale 0 of a date, 6 of the others; 365.25-day years)": (
        "SELECT extract(epoch FROM date '2024-01-01'), extract(epoch FROM time '01:00:00.5'), "
        "extract(epoch FROM interval '1 year 2 months 3 days 04:05:06.7'), extract(epoch FROM interval '-14 months'), "
        "extract(epoch FROM timestamptz '2024-01-01 00:00:00+00')::text, date_part('epoch', timestamp '1970-01-02')"
    ),
    "constant: to_timestamp() is timestamp with time zone": (
        "SELECT to_timestamp('2024-01-15 10:30', 'YYYY-MM-DD HH24:MI'), to_timestamp(1700000000.5)"
    ),
    "char(n) in || loses its trailing spaces, in concat() keeps them (Spark)": (
        "SELECT id, w::char(8) || '|', concat(w::char(8), '|'), '|' || lang::char(3) FROM words ORDER BY id"
    ),
    "constant: char(n) in || loses its trailing spaces": "SELECT 'ab '::char(5) || 'x', concat('ab'::char(4), '|')",
    "constant: NaN or infinity as numeric cast to an integer is 0A000": "SELECT 'nan'::numeric::bigint",
    "constant: sign() is double precision, or numeric of a numeric": (
        "SELECT sign(-2.50), sign(0.0), sign(-1.5::real), sign(3::bigint), sign(2.5) * 2.5, sign(-7)::text"
    ),
    "lag/lead with a default of another scale or type: each value its own scale, the common type (Spark)": (
        "SELECT id, lag(salary, 1, 0) OVER (ORDER BY id), lag(age, 1, 0) OVER (ORDER BY id), "
        "lead(name, 1, 'x') OVER (ORDER BY id), lead(age, 2, 1.5) OVER (ORDER BY id) FROM emp ORDER BY id"
    ),
    "div() truncates toward zero, a numeric at scale 0 (Spark's bigint DIV wrapped past 2^63)": (
        "SELECT id, div(n2, 2), div(i, 2), div(n4, n2), div(f::numeric, 3), div(-n4, 0.3) FROM nums "
        "WHERE id <> 4 AND n2 <> 0 ORDER BY id"
    ),
    "constant: div() of numerics": "SELECT div(7.5, 2), div(-7.5, 2), div(7, 2.5), div(1e20, 3), div(-7, 2)",
    "constant: an ARRAY of constants cast to text is PostgreSQL's array text": (
        "SELECT ARRAY[1, -2.50, NULL]::text, ARRAY['a b', '', 'NULL', 'x\"y', 'c,d', 'é']::text, "
        "ARRAY[true, NULL]::varchar, (ARRAY[3])::text || '!'"
    ),
    "an ARRAY of constants cast to text on Spark": "SELECT id, ARRAY[1, 2]::text FROM nums WHERE id = 1",
    "constant: GREATEST / LEAST / COALESCE of written numbers keep the chosen one's scale": (
        "SELECT greatest(1.0, 1), least(2, 2.00, 3), coalesce(NULL, 1.50, 2), greatest(-1.5, -2), "
        "greatest(1, 2.5) * 2, greatest(1, 2.5, 3)"
    ),
    "lag/lead with a default of a wider integer or float type is computed in it (Spark)": (
        "SELECT id, lag(age, 1, 100000) OVER (ORDER BY id), lag(age, 1, 2.5::float8) OVER (ORDER BY id), "
        "lead(rating, 1, 1) OVER (ORDER BY id), lag(badge, 1, age) OVER (ORDER BY id) FROM emp ORDER BY id"
    ),
}


outcomes, test_class_agrees_with_postgres = class_tests(CLASSES, "fidelity")
