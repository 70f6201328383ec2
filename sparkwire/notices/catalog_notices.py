"""The optimizer notices of a catalog state: what mz_internal.mz_optimizer_notices holds, as a pure function.

Contract: `CatalogNotices.of_state(state)` is every stored notice of `state` (`OptimizerNotice`s), ordered by the
OID of their object and then by the order the passes emit them; `of_item(state, item)` those of one item. Only
dataflow-backed items carry notices: a materialized view (the passes over its query) and an index (the index
passes, plus the query passes over the definition of the view it indexes, as Materialize optimizes an index on a
view together with the view). Plain views and tables carry none.

Everything comes from the state, so re-deriving after a restart gives the same rows: names are resolved against
the state, fingerprints come from the normalized DDL (`fingerprint`), `created_at` / `updated_at` are the item's
durable `created_at` (kept by CREATE OR REPLACE) and `updated_at` (its latest definition), in ms since the epoch,
and the status is the one ALTER NOTICE stored under the fingerprint (`state.notices`), else `new`. Notices of a
dropped item, and of an item whose dependency was dropped, are gone from the next state in the same way: the
state no longer derives them. Notices are never filtered by the `enable_notices_for_<kind>` settings here (those
decide what a session is sent).

Derivation is memoized per item, keyed by the item and every item its notices read (its inputs and the indexes on
them), so a commit re-derives only what it touched. A detection or rendering bug is logged and yields no notices
for that item: notices must never make DDL fail. Thread-safe; `CATALOG_NOTICES` is the process-wide instance that
the builtin relations and the planner share.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterable

import sqlglot
from sqlglot import exp

from sparkwire.catalog.objects import Item
from sparkwire.catalog.relations.relation import view_definition
from sparkwire.catalog.state import CatalogState
from sparkwire.notices.base import RawNotice
from sparkwire.notices.query import IndexInput, QueryInput, indexes_on
from sparkwire.notices.registry import detect_index, detect_query
from sparkwire.notices.render import OptimizerNotice, render
from sparkwire.notices.sqltext import DIALECT
from sparkwire.notices.status import NoticeStatus

log = logging.getLogger(__name__)

Key = tuple[Item, ...]


def definition(item: Item) -> exp.Expr:
    """The query of a view or materialized view, parsed from its stored create_sql."""
    return sqlglot.parse_one(view_definition(item.create_sql).rstrip(";"), read=DIALECT)


def query_input(state: CatalogState, item: Item, view: Item) -> QueryInput:
    """The detection input of `view`'s query, resolved in the database and schema of `item`."""
    schema = state.schemas[item.schema_id]
    database = state.databases[schema.database_id or ""].name
    return QueryInput(definition(view), state, database, (schema.name,), is_definition=True)


def _with_indexes(state: CatalogState, ids: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for item_id in ids:
        if item_id in state.items:
            out.add(item_id)
            out.update(index.id for index in indexes_on(state, item_id))
    return out


def _read_ids(state: CatalogState, item: Item) -> set[str]:
    """The ids of the items the notices of `item` depend on (beyond the item itself)."""
    if item.kind == "materialized-view":
        return _with_indexes(state, item.dependencies)
    if item.kind != "index" or item.on_id is None:
        return set()
    ids = _with_indexes(state, [item.on_id])
    on = state.items.get(item.on_id)
    if on is not None and on.kind == "view":
        ids |= _with_indexes(state, on.dependencies)
    return ids


def _raw(state: CatalogState, item: Item) -> list[RawNotice]:
    if item.kind == "materialized-view":
        return detect_query(query_input(state, item, item))
    if item.kind != "index":
        return []
    found = detect_index(IndexInput(state, item.id))
    on = state.items.get(item.on_id or "")
    if on is not None and on.kind == "view":
        found += detect_query(query_input(state, item, on))
    return found


def with_status(notice: OptimizerNotice, state: CatalogState) -> OptimizerNotice:
    """`notice` with the status ALTER NOTICE stored for its fingerprint (`new` when none is stored)."""
    stored = state.notices.get(str(notice.fingerprint))
    status = NoticeStatus.NEW if stored is None else NoticeStatus(stored.status)
    return notice if notice.status == status else dataclasses.replace(notice, status=status)


class CatalogNotices:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._memo: dict[str, tuple[Key, tuple[OptimizerNotice, ...]]] = {}
        self._last: tuple[CatalogState, tuple[OptimizerNotice, ...]] | None = None

    def of_item(self, state: CatalogState, item: Item) -> tuple[OptimizerNotice, ...]:
        if item.kind not in ("materialized-view", "index"):
            return ()
        with self._lock:
            return tuple(with_status(n, state) for n in self._derived(state, item))

    def of_state(self, state: CatalogState) -> tuple[OptimizerNotice, ...]:
        with self._lock:
            if self._last is not None and self._last[0] is state:
                return self._last[1]
            items = sorted(
                (i for i in state.items.values() if i.kind in ("materialized-view", "index")), key=lambda i: i.oid
            )
            notices = tuple(with_status(n, state) for item in items for n in self._derived(state, item))
            for gone in self._memo.keys() - state.items.keys():
                del self._memo[gone]
            self._last = (state, notices)
            return notices

    def _derived(self, state: CatalogState, item: Item) -> tuple[OptimizerNotice, ...]:
        key = (item, *(state.items[i] for i in sorted(_read_ids(state, item))))
        memo = self._memo.get(item.id)
        if memo is not None and memo[0] == key:
            return memo[1]
        try:
            notices = tuple(
                render(raw, state, object_id=item.id, object_sql=item.create_sql, now=item.updated_at)
                for raw in _raw(state, item)
            )
            notices = tuple(dataclasses.replace(n, created_at=item.created_at) for n in notices)
        except Exception:  # a notice bug must not fail the DDL whose commit renders the catalog
            log.exception("deriving the optimizer notices of %s failed", item.id)
            notices = ()
        self._memo[item.id] = (key, notices)
        return notices


CATALOG_NOTICES = CatalogNotices()
