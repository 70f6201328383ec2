"""What a role may see of other sessions in pg_stat_activity: PostgreSQL's rule.

Contract: `masked_columns(columns, state, role_id)` is the select list that privileges.py reads pg_stat_activity
through for a role that `needs_mask` (every reference is rewritten to it): in it the rows of sessions the role may
not see keep only `datid`, `datname`, `pid`, `leader_pid`, `usesysid`, `usename` and
`application_name`; `query` reads `<insufficient privilege>` and every other column is NULL — as PostgreSQL 15
shows them (pg_stat_get_activity without HAS_PGSTAT_PERMISSIONS, checked against a real PostgreSQL 15 in
tests/workload/test_workload_sessions.py). A role sees a session in full when it is a member of (or is) the
session's role; superusers and members of `readers` (privileges.py passes `mz_monitor`: sparkwire's
pg_read_all_stats, Materialize's role for reading the whole workload) see every session: `needs_mask(state,
role_id, readers)` says whether a role's reads are masked at all.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.catalog import CatalogState

RELATION = ("pg_catalog", "pg_stat_activity")
_SHOWN = frozenset({"datid", "datname", "pid", "leader_pid", "usesysid", "usename", "application_name"})
_HIDDEN_QUERY = "<insufficient privilege>"


def needs_mask(state: CatalogState, role_id: str, readers: frozenset[str]) -> bool:
    role = state.roles.get(role_id)
    if role is None:
        return True
    return not role.superuser and readers.isdisjoint(state.effective_roles(role_id))


def masked_columns(columns: list[str], state: CatalogState, role_id: str) -> list[exp.Expr]:
    """pg_stat_activity's `columns` (in order) as `role_id` may see them."""
    oids = sorted(state.roles[r].oid for r in state.effective_roles(role_id) if r in state.roles)
    visible = exp.In(this=exp.column("usesysid"), expressions=[exp.Literal.number(o) for o in oids])
    projection: list[exp.Expr] = []
    for name in columns:
        column = exp.column(name)
        if name in _SHOWN:
            projection.append(column)
            continue
        otherwise = exp.Literal.string(_HIDDEN_QUERY) if name == "query" else exp.null()
        case = exp.Case(ifs=[exp.If(this=visible.copy(), true=column)], default=otherwise)
        projection.append(exp.alias_(case, name))
    return projection
