"""The notice documentation the console serves (sparkwire/console/docs.py): found as package data (the
notice_docs/ link to docs/notices/) or in the repository, rendered with raw HTML off and links between pages
rewritten to the console's routes; no name leaves the folder."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sparkwire.console import docs

ROOT = Path(__file__).resolve().parent.parent.parent


def test_every_notice_page_is_found_and_rendered() -> None:
    notice_docs = docs.NoticeDocs()
    assert notice_docs.folder == docs.PACKAGED  # the package data (a link to docs/notices/), not the fallback
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "notice_docs/*.md" in package_data["sparkwire.console"]
    names = sorted(p.stem for p in (ROOT / "docs" / "notices").glob("*.md"))
    assert sorted(p.stem for p in notice_docs.folder.glob("*.md")) == names
    for name in names:
        html = notice_docs.render(name)
        assert html is not None and html.startswith("<h1>"), name
    index = notice_docs.render("index") or ""
    assert 'href="/docs/notices/cross_join"' in index and ".md\"" not in index
    assert notice_docs.title("cross_join") == "Cross join (cross_join)"


def test_names_stay_in_the_folder_and_raw_html_is_escaped(tmp_path: Path) -> None:
    (tmp_path / "index.md").write_text("# x\n\n<script>alert(1)</script> and [next](other.md#top)\n")
    (tmp_path / "other.md").write_text("# other\n")
    (tmp_path.parent / "secret.md").write_text("# secret\n")
    folder = docs.NoticeDocs(tmp_path)
    html = folder.render("index") or ""
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="/docs/notices/other#top"' in html
    for bad in ("../secret", "..", "Index", "index.md", "", "a/b", "x" * 100):
        assert folder.render(bad) is None, bad
    assert docs.NoticeDocs(tmp_path / "missing").render("index") is None


def test_the_docs_column_names_a_page() -> None:
    assert docs.page_name("docs/notices/equals_null.md") == "equals_null"
    for other in ("docs/notices/../x.md", "/etc/passwd", None, 3, "docs/notices/equals_null.md.bak"):
        assert docs.page_name(other) is None
