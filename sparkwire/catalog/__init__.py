"""The durable, transactional catalog: databases, schemas, roles, clusters, items, privileges, notices.

How the planner uses it (Materialize's "sequence → typed catalog ops → one transact"):
1. resolve names against a snapshot: `state = catalog.state`; `state.resolve_item(...)`,
   `state.resolve_schema`, `state.resolve_role`, `state.check_privilege(...)`; for DROP,
   `drops.plan_drop(state, ids, cascade, names)`.
2. build ops (`sparkwire.catalog.ops`) and call `catalog.transact(ops)` once; it validates, commits durably
   and swaps the state, or raises a `PgError` and changes nothing.
3. report `result.skipped` (IF NOT EXISTS) as NOTICEs (`AlreadyExists.notice_message`) and
   `DropPlan.cascaded` as `drop cascades to …` NOTICEs.

Modules: `objects` (frozen dataclasses), `builtins` (id scheme, builtin roles/schemas), `ops`, `apply` (op
semantics), `state` (snapshot lookups, privileges), `drops` (RESTRICT/CASCADE), `wording` (PostgreSQL
messages), `codec` + `store` (SQLite persistence), `timeline`, `catalog` (the `Catalog` itself).
"""

from sparkwire.catalog.catalog import Catalog, CatalogChange, CatalogListener, TransactResult
from sparkwire.catalog.drops import DropPlan, plan_drop
from sparkwire.catalog.state import CatalogState
from sparkwire.catalog.wording import AlreadyExists

__all__ = [
    "AlreadyExists",
    "Catalog",
    "CatalogChange",
    "CatalogListener",
    "CatalogState",
    "DropPlan",
    "TransactResult",
    "plan_drop",
]
