"""The registry: every notice module in the package is registered, has a pass, follows the naming rules and has
a docs page linked from docs/notices/index.md."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import sparkwire.notices
from sparkwire.notices import KINDS, NOTICE_TYPES, docs_path
from sparkwire.notices.registry import INDEX_PASSES, QUERY_PASSES

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORK = {
    "alter",
    "base",
    "catalog_notices",
    "fingerprint",
    "query",
    "registry",
    "relations",
    "render",
    "sqltext",
    "status",
}


def _notice_modules() -> list[str]:
    names = [m.name for m in pkgutil.iter_modules(sparkwire.notices.__path__)]
    assert set(names) >= FRAMEWORK
    return sorted(set(names) - FRAMEWORK)


def test_every_notice_module_is_registered_under_its_kind() -> None:
    registered = {t.__module__.rsplit(".", 1)[1]: t for t in NOTICE_TYPES}
    assert sorted(registered) == _notice_modules()
    for module, notice_type in registered.items():
        assert notice_type.kind == module
        assert importlib.import_module(f"sparkwire.notices.{module}").__doc__


def test_every_type_has_exactly_one_pass_and_unique_names() -> None:
    passes = [t for t, _ in (*INDEX_PASSES, *QUERY_PASSES)]
    assert sorted(t.kind for t in passes) == sorted(t.kind for t in NOTICE_TYPES)
    assert all(run.__module__ == t.__module__ for t, run in (*INDEX_PASSES, *QUERY_PASSES))
    assert len({t.notice_type for t in NOTICE_TYPES}) == len(NOTICE_TYPES) == len(KINDS)


def test_every_type_has_a_docs_page_linked_from_the_index() -> None:
    index = (ROOT / "docs/notices/index.md").read_text()
    for notice_type in NOTICE_TYPES:
        page = (ROOT / docs_path(notice_type.kind)).read_text()
        assert page.startswith(f"# {notice_type.notice_type} (`{notice_type.kind}`)")
        assert "## Example" in page and "## Corrective action" in page
        assert f"]({notice_type.kind}.md)" in index
    pages = {p.stem for p in (ROOT / "docs/notices").glob("*.md")} - {"index"}
    assert pages == set(KINDS)
