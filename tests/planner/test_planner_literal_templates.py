"""Translations reused across statements that differ only in inline OIDs (planner/translate/literal_templates.py): the
reused translation is exactly what translating the statement gives, and shapes whose literal is not carried
through verbatim are translated every time."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlglot import exp

from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb
from sparkwire.planner.translate.literal_templates import LiteralTemplates, shape

CTX = SessionContext(1, "materialize", 42)
D_QUERY = (
    "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), (SELECT pg_catalog.pg_get_expr(d.adbin, "
    "d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND "
    "a.atthasdef) FROM pg_catalog.pg_attribute a WHERE a.attrelid = '{oid}' AND a.attnum > 0 ORDER BY a.attnum"
)


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, tree: exp.Expression, ctx: SessionContext, duck_types: Sequence[str]) -> str:
        self.calls += 1
        return to_duckdb(tree, ctx, duck_types)


def _translate(templates: LiteralTemplates, sql: str, generation: int = 1, ctx: SessionContext = CTX) -> str:
    return templates.translate(sql, parse(sql), ctx, [], generation)


def test_shape_masks_digit_strings_only() -> None:
    assert shape("SELECT 1 FROM t WHERE a = '123' AND b = 'x' AND c = 5") == (
        "SELECT 1 FROM t WHERE a = '\0' AND b = 'x' AND c = 5",
        ["123"],
    )
    assert shape("SELECT 'x'") is None
    assert shape(r"SELECT E'\x' || '1'") is None
    assert shape("SELECT current_setting('1')") is None
    assert shape("SELECT '1' -- ' comment") is None
    assert shape('SELECT "a\'1\'b" FROM t WHERE x = \'2\'') == ('SELECT "a\'1\'b" FROM t WHERE x = \'\0\'', ["2"])


def test_psql_describe_queries_reuse_one_translation() -> None:
    counting = Counting()
    templates = LiteralTemplates(counting)
    first = _translate(templates, D_QUERY.format(oid=16385))
    assert counting.calls == 2  # the statement and its probe
    for oid in (16386, 20001, 7):
        sql = D_QUERY.format(oid=oid)
        assert _translate(templates, sql) == to_duckdb(parse(sql), CTX, [])
    assert counting.calls == 2
    assert first == to_duckdb(parse(D_QUERY.format(oid=16385)), CTX, [])


def test_a_shape_is_per_generation_and_session_identity() -> None:
    counting = Counting()
    templates = LiteralTemplates(counting)
    _translate(templates, D_QUERY.format(oid=1))
    _translate(templates, D_QUERY.format(oid=2), generation=2)
    other_user = SessionContext(2, "alice", 43)
    _translate(templates, D_QUERY.format(oid=3), ctx=other_user)
    assert counting.calls == 6


class Folding(Counting):
    """A translation that does not carry the literal through as written (as when a pass resolves it while
    planning)."""

    def __call__(self, tree: exp.Expression, ctx: SessionContext, duck_types: Sequence[str]) -> str:
        return re.sub(r"'(\d+)'", lambda m: str(int(m.group(1)) * 2), super().__call__(tree, ctx, duck_types))


def test_literals_not_carried_verbatim_are_translated_each_time() -> None:
    folding = Folding()
    templates = LiteralTemplates(folding)
    sql = "SELECT relname FROM pg_class WHERE oid = '{}'"
    for oid in (1259, 1247, 2615):
        assert _translate(templates, sql.format(oid)).endswith(f"oid = {oid * 2}")
    assert folding.calls == 2 + 1 + 1  # the first statement and its probe, then each statement
