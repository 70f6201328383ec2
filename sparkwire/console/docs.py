"""The notice documentation pages (docs/notices/*.md), found on disk and rendered from Markdown to HTML.

Where the pages come from: the package ships them as package data, `sparkwire/console/notice_docs/`, which in the
repository is a symlink to `docs/notices/` (one copy of the text; setuptools copies the files through the link
into a wheel, so `pip install .` carries them). When that folder is missing (an install from a tree without
docs/), the repository's `docs/notices/` next to the package is tried; without either, `NoticeDocs.render`
returns None and the console says the documentation is not installed.

Contract: `NoticeDocs(folder=None)`; `page_name(docs_column)` maps the `docs` column of mz_notices
(`docs/notices/<kind>.md`) to the page name `<kind>` (None for anything else); `render(name)` returns the page as
HTML, or None when `name` is not a page (names are `[a-z0-9_]+`, so no path leaves the folder). Rendering uses
markdown-it-py with raw HTML disabled (text such as `<script>` in a page is escaped, not passed through), tables
on, and links between the pages (`cross_join.md`) rewritten to the console's `/docs/notices/<kind>`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from markdown_it import MarkdownIt

_NAME = re.compile(r"[a-z0-9_]{1,64}")
_DOCS_COLUMN = re.compile(r"docs/notices/([a-z0-9_]{1,64})\.md")
_LOCAL_LINK = re.compile(r'href="([a-z0-9_]{1,64})\.md(#[A-Za-z0-9_-]*)?"')
PACKAGED = Path(__file__).resolve().parent / "notice_docs"
REPOSITORY = Path(__file__).resolve().parent.parent.parent / "docs" / "notices"


def default_folder() -> Path | None:
    for folder in (PACKAGED, REPOSITORY):
        if (folder / "index.md").is_file():
            return folder
    return None


def page_name(docs_column: object) -> str | None:
    if not isinstance(docs_column, str):
        return None
    match = _DOCS_COLUMN.fullmatch(docs_column)
    return match.group(1) if match else None


class NoticeDocs:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else default_folder()
        self._md = MarkdownIt("js-default").enable("table")

    def render(self, name: str) -> str | None:
        if self.folder is None or _NAME.fullmatch(name) is None:
            return None
        path = self.folder / f"{name}.md"
        if not path.is_file():
            return None
        return self._render(path, path.stat().st_mtime_ns)

    @lru_cache(maxsize=64)  # noqa: B019 - one NoticeDocs per console, kept for the process's life
    def _render(self, path: Path, _mtime: int) -> str:
        html: str = self._md.render(path.read_text(encoding="utf-8"))
        return _LOCAL_LINK.sub(lambda m: f'href="/docs/notices/{m.group(1)}{m.group(2) or ""}"', html)

    def title(self, name: str) -> str:
        if self.folder is not None and _NAME.fullmatch(name):
            path = self.folder / f"{name}.md"
            if path.is_file():
                first = path.read_text(encoding="utf-8").splitlines()[:1]
                if first and first[0].startswith("# "):
                    return first[0][2:].replace("`", "")
        return name
