"""One query per class of disagreement the differential suite found and the Spark translation fixes
(planner/translate/spark_math.py, spark_text.py, spark_typecheck.py, spark_aggregates.py, spark_datetime.py,
spark_rules.py) or the DuckDB translation of constant queries fixes (translate/duckdb_rules/), run on the session's
PostgreSQL 15 oracle and sparkwire over the shared schema and compared as the suite compares
(bench/differential.py): same column types, same text of every value, or the same SQLSTATE."""

from __future__ import annotations

from tests.differential.classes import class_tests

CLASSES = {
    "sqrt of a negative number is 2201F": "SELECT id, sqrt(f) FROM nums ORDER BY id",
    "logarithm of zero is 2201E": "SELECT id, ln(abs(i)) FROM nums ORDER BY id",
    "negative base to a fractional power is 2201F": "SELECT id, power(f, 0.5) FROM nums WHERE id <> 4 ORDER BY id",
    "round(float8) rounds half to even": "SELECT id, round(f * 2), round(f) FROM nums WHERE id <> 4 ORDER BY id",
    "trunc(numeric, n) keeps n decimals": "SELECT id, trunc(n4, 2), trunc(n4) FROM nums ORDER BY id",
    "ceil/floor/trunc of a float stay floats, -0 kept": (
        "SELECT id, ceil(f), floor(f), trunc(f) FROM nums WHERE id <> 4 ORDER BY id"
    ),
    "no cast from a number to boolean but integer: 42846": "SELECT id, age::boolean FROM emp ORDER BY id",
    "no cast from a date to a number: 42846": "SELECT id, hired::int FROM emp ORDER BY id",
    "no float modulo: 42883": "SELECT id, f % 2 FROM nums ORDER BY id",
    "no round(float8, n): 42883": "SELECT id, round(f, 1) FROM nums ORDER BY id",
    "no avg(date), no min(boolean): 42883": "SELECT avg(hired) FROM emp",
    "varchar(n) and char(n) casts truncate": "SELECT id, w::varchar(4), note::char(3) FROM words ORDER BY id",
    "left/right with a negative count": "SELECT id, left(w, -2), right(w, -2) FROM words ORDER BY id",
    "to_hex is lower case": "SELECT id, to_hex(id * 255) FROM words ORDER BY id",
    "functions neither engine has: every, quote_*, width_bucket, scale, regexp_match (translate/functions/)": (
        "SELECT every(id > 0), min(quote_ident(w) || quote_literal(note) || quote_nullable(lang)), "
        "max(width_bucket(id, 0, 20, 3)), max((regexp_match(w, '(p+)(l)?'))[1]) FROM words"
    ),
    "scale and min_scale of a numeric": "SELECT id, scale(n2), min_scale(n4) FROM nums ORDER BY id",
    "result types of scalar functions (bind/pg_function_types.py): math over integers, reals, numerics": (
        "SELECT id, sign(i), round(si), trunc(r), sign(n2), greatest(si, 0), coalesce(si, -1), abs(si) "
        "FROM nums WHERE id <> 4 ORDER BY id"
    ),
    "result types of scalar functions: date_trunc of a date, date_part, strpos, length, coalesce of varchar": (
        "SELECT e.id, date_trunc('month', day), date_part('dow', at), strpos(w, 'a'), length(note), "
        "coalesce(note, '-') FROM events e JOIN words w ON w.id = e.id ORDER BY e.id"
    ),
    "numeric scale of EXTRACT epoch (0 for a date) and milliseconds": (
        "SELECT id, extract(epoch FROM day), extract(epoch FROM at), extract(milliseconds FROM at) FROM events "
        "ORDER BY id"
    ),
    "string_to_array, regexp_split_to_array, regexp_substr (Spark lacks them; functions/spark_arrays.py)": (
        "SELECT id, string_to_array(note, ' '), string_to_array(w, ''), regexp_split_to_array(w, 'p'), "
        "regexp_substr(w, 'p+') FROM words ORDER BY id"
    ),
    "regexp_split_to_table in FROM is a lateral unnest": (
        "SELECT id, s FROM words, regexp_split_to_table(w, 'p') s ORDER BY id, s"
    ),
    "x::numeric keeps each value's scale: numeric(p, s), integer, float8 and real (%.15g / %.6g)": (
        "SELECT id, n2::numeric, i::numeric, f::numeric, r::numeric FROM nums ORDER BY id"
    ),
    "numeric sqrt/ln/log/exp/power with numeric.c's scale (pgtypes/numeric_math.py)": (
        "SELECT id, sqrt(abs(n4)), ln(abs(n2) + 1), log(2, abs(n0) + 1), exp(n4), power(n2, 2), power(n4 + 3, 0.5) "
        "FROM nums WHERE id <> 4 ORDER BY id"
    ),
    "numeric ln of zero or a negative number is 2201E": "SELECT id, ln(n0) FROM nums ORDER BY id",
    "substring(s FROM 'pattern') is a regular expression's first group": (
        "SELECT id, substring(w FROM '[a-z]+'), substring(w FROM '(.)p') FROM words ORDER BY id"
    ),
    "text || NULL is a NULL text column": "SELECT id, w || NULL, NULL || lang FROM words ORDER BY id",
    "COALESCE / GREATEST / LEAST of numerics return the chosen value with its own scale": (
        "SELECT id, coalesce(n2, -1) AS c, greatest(n4, 0), least(n2, n4, 2.50), coalesce(i, n2) FROM nums "
        "ORDER BY c, id"
    ),
    "json_agg (json text as PostgreSQL prints it) and regexp_matches as a set": (
        "SELECT json_agg(w ORDER BY id DESC), json_agg(id), min(x) FROM words, "
        "LATERAL (SELECT regexp_matches(w, 'p', 'g') AS x) m"
    ),
    "COALESCE / GREATEST of a real and an integer is real": (
        "SELECT id, coalesce(r, -1), greatest(r, 0), coalesce(n2, r) FROM nums WHERE id <> 4 ORDER BY id"
    ),
    "round/trunc(x, n) has n decimals, of an integer too": (
        "SELECT id, round(i, 1), round(n0, 2), trunc(bi, -2), trunc(si, 1) FROM nums WHERE id <> 4 ORDER BY id"
    ),
    "case-insensitive regular expression match ~* and !~*": (
        "SELECT id, w ~* '^a', w !~* 'E' FROM words ORDER BY id"
    ),
    "POSIX bracket classes in regular expressions": "SELECT id FROM words WHERE w ~ '[[:upper:]]' ORDER BY id",
    "a boolean reads t/f in concat(), true/false in ||": "SELECT emp.id, concat(w, active), name || active "
    "FROM emp, words "
    "WHERE emp.id = words.id ORDER BY emp.id",
    "float8 zero to text": "SELECT id, f::text, r::text FROM nums ORDER BY id",
    "grouping() of several columns is a bit mask": (
        "SELECT dept, active, grouping(dept, active)::int AS g, count(*) FROM emp GROUP BY CUBE (dept, active)"
    ),
    "percentile_cont is exact": "SELECT dept, percentile_cont(0.25) WITHIN GROUP (ORDER BY age) FROM emp "
    "GROUP BY dept ORDER BY dept",
    "to_char template patterns": "SELECT id, to_char(last_login, 'FMDay, DD Mon YYYY HH12:MI:SS.MS AM \"Q\"Q') "
    "FROM emp ORDER BY id",
    "to_char padded names": "SELECT id, to_char(hired, 'Month Day DY mon WW IW D DDD') FROM emp ORDER BY id",
    "extract isoyear, century, millennium, decade": "SELECT id, extract(isoyear FROM hired), extract(century FROM "
    "hired), extract(millennium FROM hired), extract(decade FROM hired) FROM emp ORDER BY id",
    "extract of a time field from a date is 0A000": "SELECT extract(hour FROM hired) FROM emp",
    "NATURAL JOIN and USING under * list the join columns once": (
        "SELECT * FROM pairs NATURAL JOIN (SELECT 1 AS k, 'extra' AS z) t ORDER BY v, tag"
    ),
    "FULL JOIN USING under * coalesces the join column": (
        "SELECT * FROM pairs a FULL JOIN (SELECT k, v AS w FROM pairs WHERE k < 3) b USING (k) ORDER BY 1, 2, 3, 4"
    ),
    "COLLATE \"C\" orders by bytes": "SELECT id, w FROM words ORDER BY w COLLATE \"C\", id",
    "an unknown collation is 42704": "SELECT id FROM words ORDER BY w COLLATE \"no_such_collation\"",
    "a scalar subquery of several rows is 21000 (a job's failure found in its Java cause)": (
        "SELECT words.id AS k, (SELECT e.id FROM emp e) AS s FROM words ORDER BY k"
    ),
    # result types of aggregates, window functions and operators (planner/bind/pg_result_types.py)
    "window and aggregate result types: ntile integer, sum(int) bigint, sum(bigint) numeric, count bigint": (
        "SELECT id, ntile(3) OVER (ORDER BY id), sum(age) OVER (ORDER BY id), sum(badge) OVER (ORDER BY id), "
        "count(*) OVER (), rank() OVER (ORDER BY age) FROM emp ORDER BY id"
    ),
    "avg of integers and numerics is numeric with PostgreSQL's scale in a window": (
        "SELECT id, avg(age) OVER (ORDER BY id), avg(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND "
        "1 FOLLOWING) FROM emp ORDER BY id"
    ),
    "avg with DISTINCT and FILTER is numeric": (
        "SELECT avg(DISTINCT v), avg(v) FILTER (WHERE v > 10), sum(v) FILTER (WHERE v > 10) FROM pairs"
    ),
    "stddev and variance of integers and numerics are numeric with numeric.c's scale; sum(real) is real": (
        "SELECT stddev_pop(age), var_samp(age), stddev(salary), variance(salary), stddev(score), sum(rating) FROM emp"
    ),
    "arithmetic result types: real with a number is double precision, smallint with integer integer": (
        "SELECT id, i + r, r * 2, n2 * r, si + 3, si * si, -r, i % si FROM nums WHERE id <> 4 ORDER BY id"
    ),
    "a derived table's computed columns keep PostgreSQL's types; date - date is integer": (
        "SELECT s.x + 1, avg(s.x), max(s.d) - min(s.d) FROM (SELECT age * 2 AS x, hired AS d FROM emp) s "
        "GROUP BY 1 ORDER BY 1"
    ),
    "a varchar(n) column is described as character varying; percentile_cont is double precision": (
        "SELECT note, percentile_cont(0.5) WITHIN GROUP (ORDER BY id) FROM words GROUP BY note ORDER BY note"
    ),
    "a scalar subquery's numeric avg or quotient as a result column has PostgreSQL's scale": (
        "SELECT id, (SELECT avg(age) FROM emp e2 WHERE e2.dept = emp.dept) AS a, (SELECT max(salary) / 3 FROM emp) "
        "FROM emp ORDER BY id"
    ),
    # constant queries, answered by DuckDB (planner/translate/duckdb_rules/)
    "constant: a math domain error is Spark's rule (2201E)": "SELECT 1 + ln(-1.5)",
    "constant: an integer's input syntax (22P02)": "SELECT '7.0'::smallint",
    "constant: an integer input out of range (22003)": "SELECT bigint '9223372036854775808'",
    "constant: a float input out of range (22003)": "SELECT '-2e308'::float8",
    "constant: numeric(p, s) overflow (22003)": "SELECT 99999.9::numeric(4,1)",
    "constant: boolean input words": "SELECT 'of'::boolean, ' Y '::boolean, bool 'TR', 'on'::boolean",
    "constant: an interval divided by a number": "SELECT interval '3 months 2 days' / 4, interval '90 minutes' / 2.5",
    "constant: an interval divided by zero (22012)": "SELECT interval '1 day' / (2 - 2)",
    "constant: varchar(n) and char(n) casts truncate": "SELECT 'hello'::varchar(2), 'hello'::char(3)",
    "constant: a float cast to text": "SELECT 2e15::float8::text, (0.5::float8 * 4)::text, 1234567::real::text",
    "constant: round(float8) half to even": "SELECT round(0.5::float8), round(-1.5::float8), round(2.5)",
    "constant: float overflow and underflow (22003)": "SELECT 1e200::float8 * 1e200::float8",
    "constant: a number with an exponent is numeric": "SELECT 2.5e2, 4e-4, '2.50e1'::numeric",
    "constant: an invalid regular expression is 2201B": "SELECT 'abc' ~ 'a[b'",
    "constant: SQLSTATEs of DuckDB's errors (22008)": "SELECT make_date(2021, 13, 1)",
    "constant: a VALUES list's columns are column1, column2": (
        "SELECT column2 FROM (VALUES (1, 'b'), (2, 'a')) v ORDER BY column2"
    ),
    "constant: a VALUES statement ordered by column1": "VALUES (2, 'x'), (1, 'y') ORDER BY column1 LIMIT 1",
    "constant: substring from a position before 1": "SELECT substring('sparkwire' FROM -1 FOR 4)",
    "constant: string functions' argument errors": "SELECT split_part('x-y', '-', 0)",
    "constant: || of two numbers is 42883": "SELECT 1.5 || 2",
    "constant: integer and timestamptz result types of computed columns": (
        "SELECT lcm(6, 4) AS l, strpos('abc', 'c'), date '2024-03-01' - date '2024-01-01', "
        "date_trunc('month', date '2024-02-29')"
    ),
    "constant: a negative OFFSET is 2201X (Spark's LIMIT rule shared)": "SELECT 1 OFFSET -2",
    "constant: -2147483648 is an integer constant (22003 when divided by -1)": "SELECT -2147483648 * -1",
    "LIMIT and OFFSET given by subqueries": (
        "SELECT k, v, tag FROM pairs ORDER BY k, v, tag OFFSET (SELECT 1) LIMIT (SELECT count(*) FROM dept)"
    ),
    "a NULL LIMIT from a subquery is no limit": "SELECT k FROM pairs ORDER BY k, v, tag LIMIT (SELECT NULL::int)",
    "constant: a string literal in a UNION of integers is read as an integer": "SELECT 1 UNION SELECT ' 2 ' ORDER BY 1",
    "array_agg with FILTER and as a window function": (
        "SELECT k, v, tag, array_agg(v) FILTER (WHERE v > 1) OVER (PARTITION BY k ORDER BY v, tag), "
        "array_agg(tag) OVER (PARTITION BY k ORDER BY v, tag) FROM pairs ORDER BY k, v, tag"
    ),
    "constant: casts PostgreSQL lacks are 42846 (spark_typecheck shared)": "SELECT 2.5::boolean",
    "a subquery of two columns as a value is 42601": "SELECT (SELECT 1, 2)",
    "WITH … AS [NOT] MATERIALIZED on Spark": (
        "WITH x AS MATERIALIZED (SELECT k FROM pairs), y AS NOT MATERIALIZED (SELECT v FROM pairs) "
        "SELECT (SELECT count(*) FROM x), (SELECT count(v) FROM y)"
    ),
    "constant: SIMILAR TO patterns": (
        "SELECT 'a_c' SIMILAR TO 'a!_c' ESCAPE '!', 'xyz' SIMILAR TO '_y%', 'x.z' SIMILAR TO 'x.z'"
    ),
}


outcomes, test_class_agrees_with_postgres = class_tests(CLASSES, "class")
