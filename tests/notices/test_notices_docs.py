"""The docs pages' examples are real: each page's example statements run against a real catalog through the
detection passes, and the NOTICE/HINT comments under a statement are exactly what its notices say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sparkwire.catalog import Catalog
from sparkwire.notices import NOTICE_TYPES, OptimizerNotice, RawNotice, docs_path
from tests.notices.test_notices_catalog import catalog, index, index_notices, select_notices, table, view_notices

__all__ = ["catalog"]

ROOT = Path(__file__).resolve().parents[2]
INDEX = re.compile(r"CREATE (DEFAULT )?INDEX (\w+ )?ON (\w+) ?(?:\((.*)\))?;", re.IGNORECASE)
TABLE = re.compile(r"CREATE TABLE (\w+) \((.*)\);", re.IGNORECASE)


def _example(kind: str) -> list[tuple[str, list[str]]]:
    """The example's statements, each with the `-- NOTICE:` / `-- HINT:` texts that follow it."""
    page = (ROOT / docs_path(kind)).read_text()
    block = page.split("## Example", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    statements: list[tuple[str, list[str]]] = []
    for line in block.strip().splitlines():
        if line.startswith("-- "):
            statements[-1][1].append(line[3:].split(":", 1)[1].strip())
        else:
            statements.append((line.strip(), []))
    return statements


def _run(catalog: Catalog, statement: str, kind: str) -> list[OptimizerNotice]:
    if found := TABLE.fullmatch(statement):
        table(catalog, found[1], found[2])
        return []
    if found := INDEX.fullmatch(statement):
        default, name, on, keys = found.groups()
        on_id = next(i.id for i in catalog.state.items.values() if i.name == on)
        key_list = [k.strip() for k in keys.split(",") if k.strip()] if keys else []
        return index_notices(catalog, index(catalog, (name or "idx").strip(), on_id, key_list, default=bool(default)))
    if statement.upper().startswith("CREATE MATERIALIZED VIEW"):
        return view_notices(catalog, statement.rstrip(";"), kind)
    return select_notices(catalog, statement.rstrip(";"), kind)


@pytest.mark.parametrize("notice_type", NOTICE_TYPES, ids=lambda t: t.kind)
def test_docs_example_produces_the_documented_notice(catalog: Catalog, notice_type: type[RawNotice]) -> None:
    documented = 0
    for statement, expected in _example(notice_type.kind):
        notices = _run(catalog, statement, notice_type.kind)
        if expected:
            documented += 1
            assert [text for n in notices for text in (n.message, n.hint)] == expected, statement
    assert documented == 1
