"""The secret, connection and PostgreSQL source relations, with Materialize's names and columns (catalog/relations/
is full):

- `mz_catalog.mz_secrets` (id, oid, schema_id, name, owner_id, privileges): names only. A secret's value is not in
  the catalog at all (sparkwire/storage/secrets.py), so no relation can show it.
- `mz_catalog.mz_connections` (id, oid, schema_id, name, type, owner_id, privileges, create_sql,
  redacted_create_sql): `type` is `postgres`; `create_sql` names the secrets it uses (never their values);
  `redacted_create_sql` has every string literal replaced by '<REDACTED>' (Materialize's redaction).
- `mz_internal.mz_postgres_sources` (id, replication_slot, timeline_id): each PostgreSQL source and its slot,
  `materialize_<id>` (sources/postgres/source.py `slot_name`); timeline_id NULL (not tracked).
- `mz_internal.mz_postgres_source_tables` (id, schema_name, table_name): each subsource of a PostgreSQL source and
  the upstream table it is fed from.

Contract: `SECRET_RELATIONS` lists them for `introspection.relations`.
"""

from __future__ import annotations

import json
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


def _postgres_sources(state: CatalogState) -> list[Row]:
    sources = [i for i in state.items.values() if i.kind == "source" and i.source_type == "postgres"]
    return [(i.id, "materialize_" + "".join(c if c.isalnum() else "_" for c in i.id.lower()), None) for i in sources]


def _postgres_tables(state: CatalogState) -> list[Row]:
    postgres = {i.id for i in state.items.values() if i.kind == "source" and i.source_type == "postgres"}
    rows: list[Row] = []
    for item in state.items.values():
        if item.source_type == "subsource" and postgres.intersection(item.dependencies):
            schema, _, table = str(json.loads(item.source_options).get("upstream", "")).partition(".")
            rows.append((item.id, schema, table))
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
    BuiltinRelation(
        "mz_internal",
        "mz_postgres_sources",
        16742,
        parse_columns("id text, replication_slot text, timeline_id uint8"),
        _postgres_sources,
    ),
    BuiltinRelation(
        "mz_internal",
        "mz_postgres_source_tables",
        16743,
        parse_columns("id text, schema_name text, table_name text"),
        _postgres_tables,
    ),
)
