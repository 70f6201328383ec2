"""Optimizer notices: detection passes that flag costly query and index shapes, and their stored rendering.

To add a notice type (as Materialize's notice/mod.rs):
1. Create `sparkwire/notices/<kind>.py` with a module docstring saying why the pattern is bad.
2. In it, define a frozen dataclass holding catalog ids and sqlglot expressions (never names) that implements
   `base.RawNotice`: `notice_type`, `kind` (= the module name), `action_type`, `message` / `hint` / `action`
   (each taking `Names` and `redacted`; print expressions with `sqltext.show` so literals redact) and
   `dependencies`.
3. In it, write the detection pass `detect(source: IndexInput | QueryInput) -> list[<the class>]`, pure.
4. Register both in `registry.py`: the class in `NOTICE_TYPES` and `(class, detect)` in `INDEX_PASSES` or
   `QUERY_PASSES`, where the order is the order passes run.
5. Write `docs/notices/<kind>.md` (what it means, a minimal example, the corrective action), link it from
   `docs/notices/index.md`, and add `tests/notices/test_notices_<kind>.py` with positive and negative cases.

How the package is used:
- The stored notices (mz_internal.mz_optimizer_notices) are a pure function of the catalog state:
  `catalog_notices.CATALOG_NOTICES.of_state(state)` derives them for every index and materialized view
  (`detect_index(IndexInput(state, index_id))`, `detect_query(QueryInput(tree, state, database, search_path,
  is_definition=True))` over a materialized view's or an indexed view's query), rendered with `render`; they
  disappear from the next state when the object or any dependency is dropped (`is_valid` states the rule).
- SELECT and EXPLAIN: `detect_query` with `is_definition=False`, rendered with `object_id=None` and the query
  text as `object_sql` (planner/statements/notice_service.py sends and prints them).
- ALTER NOTICE: parsed by the planner (`planner/grammar/alter_notice.py`) into `alter.AlterNotice`;
  `alter.plan_alter_notice(…)`, which returns
  `[status_op(fingerprint, status, role_id)]` for `catalog.transact` (RESET STATUS is `NoticeStatus.NEW`);
  the next derivation carries the status.
"""

from sparkwire.notices.base import ActionType, Names, RawNotice, docs_path
from sparkwire.notices.query import IndexInput, QueryInput
from sparkwire.notices.registry import KINDS, NOTICE_TYPES, detect_index, detect_query
from sparkwire.notices.render import OptimizerNotice, is_valid, render, render_all
from sparkwire.notices.status import NoticeStatus, parse_status, status_op

__all__ = [
    "KINDS",
    "NOTICE_TYPES",
    "ActionType",
    "IndexInput",
    "Names",
    "NoticeStatus",
    "OptimizerNotice",
    "QueryInput",
    "RawNotice",
    "detect_index",
    "detect_query",
    "docs_path",
    "is_valid",
    "parse_status",
    "render",
    "render_all",
    "status_op",
]
