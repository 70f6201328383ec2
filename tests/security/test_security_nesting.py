"""RBAC cannot be walked around by nesting (issue 12 item 5): hypothesis builds queries that put a relation the plain
role may not read (a user table without a grant, pg_authid, the unredacted notices) in every position a query has
(FROM, join, subquery in the select list and in WHERE, EXISTS, IN, CTE, LATERAL, UNION, derived table), nested
up to three deep and spelled every way (quoted, qualified, upper case). The role gets 42501 and never a row; the
superuser runs the same query without a privilege error."""

from __future__ import annotations

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.security.conftest import Conn

PROTECTED = [
    "sec_secret",
    '"sec_secret"',
    "public.sec_secret",
    "materialize.public.sec_secret",
    "pg_authid",
    "pg_catalog.pg_authid",
    '"pg_authid"',
    "mz_internal.mz_optimizer_notices",
]

POSITIONS = [
    "SELECT * FROM {q}",
    "SELECT (SELECT count(*) FROM {q})",
    "SELECT a FROM sec_public WHERE EXISTS (SELECT 1 FROM {q})",
    "SELECT a FROM sec_public WHERE a IN (SELECT 1 FROM {q})",
    "WITH c AS (SELECT * FROM {q}) SELECT count(*) FROM c",
    "SELECT * FROM sec_public, LATERAL (SELECT * FROM {q}) x",
    "SELECT a FROM sec_public UNION ALL SELECT 1 FROM {q}",
    "SELECT * FROM sec_public JOIN {q} ON true",
    "SELECT * FROM sec_public LEFT JOIN {q} ON false",
    "SELECT * FROM (SELECT * FROM {q}) s",
    "SELECT count(*) FROM sec_public WHERE a > ALL (SELECT 1 FROM {q})",
]


def _nest(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(POSITIONS), inner).map(lambda p: p[0].format(q=f"({p[1]}) n"))


QUERIES = st.recursive(
    st.tuples(st.sampled_from(POSITIONS), st.sampled_from(PROTECTED)).map(lambda p: p[0].format(q=p[1])),
    _nest,
    max_leaves=3,
)


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(QUERIES)
def test_nested_protected_relations_are_refused(plain: Conn, admin: Conn, sql: str) -> None:
    try:
        rows = plain.execute(sql).fetchall()
    except psycopg.errors.InsufficientPrivilege:
        rows = None
    assert rows is None, f"{sql} returned {rows!r}"
    assert plain.execute("SELECT count(*) FROM sec_public").fetchone() == (2,)  # still usable
    try:
        admin.execute(sql).fetchall()
    except psycopg.errors.InsufficientPrivilege as err:  # pragma: no cover - the assertion's message
        raise AssertionError(f"superuser refused: {sql}") from err
    except psycopg.Error:
        pass  # a type or cardinality error of the generated SQL is no privilege question
