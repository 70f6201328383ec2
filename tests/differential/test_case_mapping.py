"""Case mapping and regular expression classes of non-ASCII text, on both routes, against the session's PostgreSQL
15 oracle (LC_COLLATE C, LC_CTYPE C.UTF-8: tests/support/postgres.py), compared as the differential suite compares:
upper / lower one character at a time (planner/translate/functions/case_mapping.py) and Unicode regular expression
classes on Spark (spark_text.unicode_classes)."""

from __future__ import annotations

import pytest

from bench.differential import Query, describe, run_all
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

CLASSES = {
    "upper and lower of non-ASCII letters over a table (Spark)": (
        "SELECT id, upper(w), lower(w), initcap(w), upper(w || ' ᾳ ﬁ ŉ'), lower(upper(w) || ' ΟΔΟΣ İ') "
        "FROM words ORDER BY id"
    ),
    "upper and lower of non-ASCII letters, constants (DuckDB)": (
        "SELECT upper('straße ẞ ᾳ é'), lower('ΟΔΟΣ ÉCLAIR'), upper(lower('STRAßE'))"
    ),
    "regular expression classes know non-ASCII letters (Spark)": (
        "SELECT id, w ~ '^\\w+$', w ~* 'É', regexp_replace(w, '(\\w)(\\w)', '\\2\\1', 'g'), "
        "w ~ '[[:alpha:]]{3}', w ~ '[[:upper:]]' FROM words ORDER BY id"
    ),
}


@pytest.fixture(scope="module")
def outcomes(server: SparkwireServer, oracle: PostgresOracle) -> dict[str, str]:
    queries = [Query(f"case:{n}", "case", sql) for n, sql in enumerate(CLASSES.values(), start=1)]
    results = run_all(oracle.dsn, server.dsn, queries)
    return {name: "" if o.agrees else describe(o, {}) for name, o in zip(CLASSES, results, strict=True)}


@pytest.mark.parametrize("name", list(CLASSES))
def test_case_mapping_agrees_with_postgres(outcomes: dict[str, str], name: str) -> None:
    assert outcomes[name] == ""
