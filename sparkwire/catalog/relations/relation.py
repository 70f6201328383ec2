"""The shape of a builtin catalog relation and the helpers every family of them (pg_catalog, information_schema,
mz_catalog) uses to render catalog objects as rows.

Contract: a `BuiltinRelation` declares its schema, name, OID, columns (name, type as the relation's own system
spells it: PostgreSQL's `format_type` names for pg_catalog and information_schema, Materialize's documented names
such as `uint8`, `mz_aclitem[]` or `text list` for mz_*), a sensitivity (Materialize's: `public` — anyone may read,
`superuser_and_support`, `superuser`) and `rows(state)`: the relation's tuples, in column order, as a pure function
of a `CatalogState`. `from_state` is False for relations whose rows do not depend on the state (pg_type, pg_am, …):
the store fills those once and never diffs them. `live` relations (sessions, the statement history, Spark's jobs)
are written from the side as the workload runs: no answer that reads them is cached. Array values are tuples
(rows are hashable, so a store can diff them as sets); every relation's rows are distinct.

Helpers: `names_of(state)` resolves the ids a row refers to (role, schema and database names, OIDs, ACLs) once
per state;
`acl` renders privileges the PostgreSQL way (`grantee=letters/grantor`, PUBLIC as an empty grantee, the owner's
implicit privileges first) with names (pg_catalog) or ids (mz_catalog); `quote_ident` quotes as PostgreSQL's
quote_ident (keywords from pg_keywords.py); `view_definition` is the query of a CREATE [MATERIALIZED] VIEW statement.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

from sparkwire.catalog.builtins import PUBLIC_ROLE_ID
from sparkwire.catalog.objects import PRIVILEGES_BY_KIND, Item, ObjectRef
from sparkwire.catalog.relations.pg_keywords import KEYWORDS
from sparkwire.catalog.state import CatalogState

Sensitivity = Literal["public", "superuser_and_support", "superuser"]
Value = str | int | float | bool | datetime.timedelta | tuple[str, ...] | tuple[int, ...] | None
Row = tuple[Value, ...]
RowsOf = Callable[[CatalogState], Sequence[Row]]


@dataclass(frozen=True, slots=True)
class BuiltinRelation:
    schema: str
    name: str
    oid: int
    columns: tuple[tuple[str, str], ...]  # (column name, type)
    rows: RowsOf
    sensitivity: Sensitivity = "public"
    from_state: bool = True
    live: bool = False  # rows change with the workload, not the catalog: never answered from the result cache


def parse_columns(columns: str) -> tuple[tuple[str, str], ...]:
    """ "name type, name type, …" → ((name, type), …); types may contain spaces, not commas."""
    parsed = (spec.strip().split(" ", 1) for spec in columns.split(","))
    return tuple((name, pg_type.strip()) for name, pg_type in parsed)


def no_rows(state: CatalogState) -> list[Row]:
    return []


# PostgreSQL prints ACL letters in this order (aclitemout), Materialize's system privileges after them.
_ACL_ORDER = "arwdDxtXUCTcsARBN"


@lru_cache(maxsize=256)
def _letters(privileges: str) -> str:
    return "".join(letter for letter in _ACL_ORDER if letter in privileges)


class Names:
    """Lookups rows need, computed once per state (get one with `names_of`)."""

    def __init__(self, state: CatalogState) -> None:
        self.state = state
        self._acls: dict[tuple[ObjectRef, str, str, bool, bool], tuple[str, ...] | None] = {}

    @cached_property
    def _role_names(self) -> dict[str, str]:
        return {r.id: r.name for r in self.state.roles.values()}

    def role(self, role_id: str) -> str:
        return self._role_names.get(role_id, role_id)

    def role_oid(self, role_id: str) -> int | None:
        role = self.state.roles.get(role_id)
        return None if role is None else role.oid

    def schema(self, schema_id: str) -> str:
        return self.state.schemas[schema_id].name

    def schema_oid(self, schema_id: str) -> int:
        return self.state.schemas[schema_id].oid

    def database_of(self, schema_id: str) -> str | None:
        database_id = self.state.schemas[schema_id].database_id
        return None if database_id is None else self.state.databases[database_id].name

    @cached_property
    def indexed(self) -> frozenset[str]:
        """Ids of the items that have at least one index."""
        return frozenset(i.on_id for i in self.state.items.values() if i.kind == "index" and i.on_id is not None)

    def items(self, *kinds: str) -> list[Item]:
        """The items of these kinds, in OID order (creation order)."""
        return sorted((i for i in self.state.items.values() if i.kind in kinds), key=lambda i: i.oid)

    def placed_items(self, *kinds: str) -> list[tuple[str, str, Item]]:
        """(database, schema, item) of the items of these kinds in user schemas (those of a database)."""
        out: list[tuple[str, str, Item]] = []
        for item in self.items(*kinds):
            database = self.database_of(item.schema_id)
            if database is not None:
                out.append((database, self.schema(item.schema_id), item))
        return out

    def acl(self, obj: ObjectRef, owner_id: str, kind: str, *, by_id: bool, always: bool) -> tuple[str, ...] | None:
        """The object's ACL: the owner's implicit privileges, then every grant (sorted). Without grants it is
        None (PostgreSQL's "default privileges") unless `always`; kinds without privileges (indexes) have no owner
        entry. `by_id`: roles as ids (mz_aclitem)."""
        key = (obj, owner_id, kind, by_id, always)
        if key not in self._acls:
            self._acls[key] = self._acl(obj, owner_id, kind, by_id=by_id, always=always)
        return self._acls[key]

    def _acl(self, obj: ObjectRef, owner_id: str, kind: str, *, by_id: bool, always: bool) -> tuple[str, ...] | None:
        grants = sorted(self.state.privileges_on(obj), key=lambda p: (p.grantee_id, p.grantor_id))
        if not grants and not always:
            return None
        name: Callable[[str], str] = (lambda role_id: role_id) if by_id else self.role

        def grantee(role_id: str) -> str:
            return "" if role_id == PUBLIC_ROLE_ID else name(role_id)

        owner_letters = _letters(PRIVILEGES_BY_KIND[kind])
        owner = [f"{name(owner_id)}={owner_letters}/{name(owner_id)}"] if owner_letters else []
        rest = [f"{grantee(p.grantee_id)}={_letters(p.privileges)}/{name(p.grantor_id)}" for p in grants]
        return (*owner, *rest)


@lru_cache(maxsize=4)
def names_of(state: CatalogState) -> Names:
    """The `Names` of a state, shared by every relation rendered from it."""
    return Names(state)


_PLAIN_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*\Z")
_QUOTED_KEYWORDS = frozenset(word for word, catcode, _ in KEYWORDS if catcode != "U")


def quote_ident(name: str) -> str:
    """PostgreSQL's quote_identifier: bare when it is lower-case letters, digits and `_` (not leading with a digit)
    and no keyword other than an unreserved one, else double-quoted."""
    if _PLAIN_IDENTIFIER.match(name) and name not in _QUOTED_KEYWORDS:
        return name
    return '"' + name.replace('"', '""') + '"'


def unquote_ident(text: str) -> str:
    """A column reference as written in SQL → the column name (unquoted identifiers fold to lower case)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('""', '"')
    return text.lower()


_VIEW_QUERY = re.compile(
    r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP\w*\s+)?(?:MATERIALIZED\s+)?VIEW\s.*?\sAS\s+(.*?)\s*;?\s*\Z",
    re.IGNORECASE | re.DOTALL,
)


def view_definition(create_sql: str) -> str:
    """The query of a CREATE [MATERIALIZED] VIEW statement, ending in `;` as PostgreSQL and Materialize print it."""
    match = _VIEW_QUERY.match(create_sql)
    query = match.group(1) if match else create_sql.strip().rstrip(";")
    return query + ";"
