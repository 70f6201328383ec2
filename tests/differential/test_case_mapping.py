"""Case mapping and regular expression classes of non-ASCII text, on both routes, against the session's PostgreSQL
15 oracle (LC_COLLATE C, LC_CTYPE C.UTF-8: tests/support/postgres.py), compared as the differential suite compares:
upper / lower one character at a time (planner/translate/functions/case_mapping.py) and Unicode regular expression
classes on Spark (spark_text.unicode_classes)."""

from __future__ import annotations

from tests.differential.classes import class_tests

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


outcomes, test_class_agrees_with_postgres = class_tests(CLASSES, "case")
