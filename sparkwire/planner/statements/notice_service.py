"""`NoticeService`: the optimizer notices a session sends and prints, over the notices the catalog derives.

Contract (one per process, shared by every session; every method may be called from any thread):
- `start(state)` derives the notices of every index and materialized view of the state opened at start (the same
  fingerprints and `created_at` as before the restart: both come from the durable catalog, see
  `sparkwire.notices.catalog_notices`). `notices(state)` lists them, `find(state, fingerprint)` looks one up (the
  `NoticeLookup` of `notices.alter.plan_alter_notice`).
- `after_ddl(new, created_ids, enabled)` after a committed DDL transaction: the NoticeResponses to send for the
  indexes and materialized views it created (CREATE OR REPLACE included). Dropped objects, and objects whose
  dependency was dropped, need no call: their notices are not derived from the next state.
- `for_query(tree, state, names, enabled)`: the NoticeResponses for a SELECT (EqualsNull, CrossJoin, …), detected on
  its tree against `state`; fingerprinted by the query text. The last `RECENT_QUERY_NOTICES` of them are remembered
  (in memory) so that `find`, hence ALTER NOTICE, knows them: ignoring one silences it for that query text.
  Detection is cached per tree object and state (the last `TREE_CACHE` trees): a cached plan costs a lookup.
- `explain_lines(target, state, names, redacted, enabled)`: the lines EXPLAIN ends with, for a query tree or a
  catalog item (an index or materialized view: its stored notices; a view: its query's):
  `Notices:` / `  - Notice: <message>` / `    Hint: <hint>`, nothing when there is no notice. `redacted` prints the
  redacted texts (EXPLAIN WITH (redacted)).
A notice whose status is `ignored` is never sent nor printed; `enabled(kind)` (the session's
`enable_notices_for_<kind>` settings, see `NOTICE_VARIABLES` and `enabled_by`) filters by type. NoticeResponses
carry severity NOTICE, SQLSTATE 00000, the message, the hint and, as detail, the fingerprint (what ALTER NOTICE
names) and the docs page: `Notice <uuid>; see docs/notices/<kind>.md.`
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from cachetools import LRUCache
from sqlglot import exp

from sparkwire.api import Notice
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.notices import NOTICE_TYPES, NoticeStatus, OptimizerNotice, QueryInput, detect_query, render
from sparkwire.notices.catalog_notices import CATALOG_NOTICES, CatalogNotices, query_input
from sparkwire.notices.sqltext import DIALECT
from sparkwire.planner.bind.resolve import Names

Enabled = Callable[[str], bool]
RECENT_QUERY_NOTICES = 1024
TREE_CACHE = 256

# (name, default, description) of the per-type session variables, one per notice kind.
NOTICE_VARIABLES: tuple[tuple[str, str, str], ...] = tuple(
    (f"enable_notices_for_{t.kind}", "on", f"Send and print the optimizer notice `{t.notice_type}`.")
    for t in NOTICE_TYPES
)


def everything(kind: str) -> bool:
    return True


def enabled_by(setting: Callable[[str], str]) -> Enabled:
    """`enabled` from a session's variables: `setting(name)` returns a variable's value (`on` / `off`)."""
    return lambda kind: setting(f"enable_notices_for_{kind}") == "on"


def _shown(notices: Iterable[OptimizerNotice], enabled: Enabled) -> list[OptimizerNotice]:
    return [n for n in notices if n.status != NoticeStatus.IGNORED and enabled(n.kind)]


def _response(notice: OptimizerNotice) -> Notice:
    detail = f"Notice {notice.fingerprint}; see {notice.docs}."
    return Notice(message=notice.message, hint=notice.hint, detail=detail)


class NoticeService:
    def __init__(self, catalog_notices: CatalogNotices = CATALOG_NOTICES) -> None:
        self._catalog = catalog_notices
        self._lock = threading.Lock()
        self._recent: LRUCache[str, OptimizerNotice] = LRUCache(RECENT_QUERY_NOTICES)  # SELECT notices sent
        # Detection per query tree object (plans are cached per session): id(tree) -> (tree, state, names, notices).
        self._by_tree: LRUCache[int, tuple[exp.Expr, CatalogState, Names, list[OptimizerNotice]]] = LRUCache(TREE_CACHE)

    def start(self, state: CatalogState) -> None:
        self._catalog.of_state(state)

    def notices(self, state: CatalogState) -> tuple[OptimizerNotice, ...]:
        return self._catalog.of_state(state)

    def find(self, state: CatalogState, fingerprint: str) -> OptimizerNotice | None:
        found = next((n for n in self._catalog.of_state(state) if str(n.fingerprint) == fingerprint), None)
        if found is None:
            with self._lock:
                found = self._recent.get(fingerprint)
        return found

    def after_ddl(self, new: CatalogState, created_ids: Iterable[str], enabled: Enabled = everything) -> list[Notice]:
        items = (new.items[i] for i in created_ids if i in new.items)
        return [_response(n) for item in items for n in _shown(self._catalog.of_item(new, item), enabled)]

    def _query_notices(self, tree: exp.Expr, state: CatalogState, names: Names) -> list[OptimizerNotice]:
        with self._lock:
            cached = self._by_tree.get(id(tree))
        if cached is not None and cached[0] is tree and cached[1] is state and cached[2] == names:
            return cached[3]
        raws = detect_query(QueryInput(tree, state, names.database, names.search_path))
        notices = []
        if raws:
            sql = tree.sql(dialect=DIALECT)
            now = int(time.time() * 1000)
            notices = [render(raw, state, object_id=None, object_sql=sql, now=now) for raw in raws]
        with self._lock:
            self._by_tree[id(tree)] = (tree, state, names, notices)  # holding `tree` keeps its id unique
        return notices

    def for_query(self, tree: exp.Expr, state: CatalogState, names: Names, enabled: Enabled) -> list[Notice]:
        notices = self._query_notices(tree, state, names)
        if notices:
            with self._lock:
                for n in notices:
                    self._recent[str(n.fingerprint)] = n
        return [_response(n) for n in _shown(notices, enabled)]

    def explain_lines(
        self, target: exp.Expr | Item, state: CatalogState, names: Names, redacted: bool, enabled: Enabled
    ) -> list[str]:
        if isinstance(target, exp.Expr):
            notices = self._query_notices(target, state, names)
        elif target.kind == "view":
            source = query_input(state, target, target)
            now = int(time.time() * 1000)
            notices = [
                render(raw, state, object_id=target.id, object_sql=target.create_sql, now=now)
                for raw in detect_query(source)
            ]
        else:
            notices = list(self._catalog.of_item(state, target))
        lines = []
        for n in _shown(notices, enabled):
            message = (n.redacted_message or n.message) if redacted else n.message
            hint = (n.redacted_hint or n.hint) if redacted else n.hint
            lines += [f"  - Notice: {message}", f"    Hint: {hint}"]
        return ["Notices:", *lines] if lines else []
