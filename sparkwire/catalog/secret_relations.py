"""The secret and connection relations, with Materialize's names and columns (catalog/relations/ is full):

- `mz_catalog.mz_secrets` (id, oid, schema_id, name, owner_id, privileges): names only. A secret's value is not in
  the catalog at all (sparkwire/storage/secrets.py), so no relation can show it.
- `mz_catalog.mz_connections` (id, oid, schema_id, name, type, owner_id, privileges, create_sql,
  redacted_create_sql): `type` is `postgres`; `create_sql` names the secrets it uses (never their values);
  `redacted_create_sql` has every string literal replaced by '<REDACTED>' (Materialize's redaction).

Contract: `SECRET_RELATIONS` lists them for `introspection.relations`.
"""

from __future__ import annotations

import re

from sparkwire.catalog.objects import ObjectRef
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, names_of, parse_columns
from sparkwire.catalog.state import CatalogState

_LITERAL = re.compile(r"'(?:[^']|'')*'")


def _rows(state: CatalogState, kind: str) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    for item in names.items(kind):
        privileges = names.acl(ObjectRef("item", item.id), item.owner_id, item.kind, by_id=True, always=True)
        if kind == "secret":
            rows.append((item.id, item.oid, item.schema_id, item.name, item.owner_id, privileges))
        else:
            redacted = _LITERAL.sub("'<REDACTED>'", item.create_sql)
            rows.append(
                (item.id, item.oid, item.schema_id, item.name, "postgres", item.owner_id, privileges,
                 item.create_sql, redacted)
            )  # fmt: skip
    return rows


SECRET_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation(
        "mz_catalog",
        "mz_secrets",
        16740,
        parse_columns("id text, oid oid, schema_id text, name text, owner_id text, privileges mz_aclitem[]"),
        lambda state: _rows(state, "secret"),
    ),
    BuiltinRelation(
        "mz_catalog",
        "mz_connections",
        16741,
        parse_columns(
            "id text, oid oid, schema_id text, name text, type text, owner_id text, privileges mz_aclitem[], "
            "create_sql text, redacted_create_sql text"
        ),
        lambda state: _rows(state, "connection"),
    ),
)
