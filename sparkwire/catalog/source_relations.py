"""The source relations, with Materialize's names and columns (catalog/relations/ is full):

- `mz_catalog.mz_sources` (id, oid, schema_id, name, type, connection_id, size, envelope_type, key_format,
  value_format, cluster_id, owner_id, privileges, create_sql, redacted_create_sql): from the catalog. `type` is
  `load-generator` / `postgres` for a source, `subsource`, `progress`; `size` the size of the source's cluster
  (subsources: their source's); `envelope_type` `none` for sources (NULL for subsources and progress);
  `connection_id` the connection a PostgreSQL source reads through.
- `mz_internal.mz_source_statuses` (id, name, type, last_status_change_at, status, error, details),
  `mz_internal.mz_source_status_history` (occurred_at, source_id, status, error, details, replica_id) and
  `mz_internal.mz_source_statistics` (id, replica_id, messages_received, bytes_received, updates_staged,
  updates_committed, records_indexed, bytes_indexed, snapshot_records_known, snapshot_records_staged,
  snapshot_committed, offset_known, offset_committed): live, no rows here — sparkwire/sources/live.py replaces their
  tables with views over the running sources. `details` is JSON text (Materialize: jsonb).

Contract: `SOURCE_RELATIONS` lists them for `introspection.relations`.
"""

from __future__ import annotations

import json

from sparkwire.catalog.clusters import effective_size
from sparkwire.catalog.objects import Item, ObjectRef
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, names_of, no_rows, parse_columns
from sparkwire.catalog.state import CatalogState

SOURCE_STATUSES = "mz_source_statuses"
SOURCE_STATUS_HISTORY = "mz_source_status_history"
SOURCE_STATISTICS = "mz_source_statistics"
_SUBSOURCE_TYPES = ("subsource", "progress")


def _connection_id(item: Item) -> str | None:
    if item.source_type in _SUBSOURCE_TYPES or not item.source_options:
        return None
    found = json.loads(item.source_options).get("connection_id")
    return None if found is None else str(found)


def _cluster_of(state: CatalogState, item: Item) -> str | None:
    if item.cluster_id is not None:
        return item.cluster_id
    owner = next((state.items[d] for d in item.dependencies if d in state.items), None)
    return None if owner is None else owner.cluster_id


def _sources(state: CatalogState) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    for item in names.items("source"):
        cluster_id = _cluster_of(state, item)
        cluster = state.clusters.get(cluster_id) if cluster_id is not None else None
        privileges = names.acl(ObjectRef("item", item.id), item.owner_id, item.kind, by_id=True, always=True)
        primary = item.source_type not in _SUBSOURCE_TYPES
        rows.append(
            (
                item.id,
                item.oid,
                item.schema_id,
                item.name,
                item.source_type,
                _connection_id(item),
                effective_size(cluster) if cluster is not None else None,
                "none" if primary else None,
                None,
                None,
                item.cluster_id,
                item.owner_id,
                privileges,
                item.create_sql,
                item.create_sql,
            )
        )
    return rows


def _live(name: str, oid: int, columns: str) -> BuiltinRelation:
    return BuiltinRelation("mz_internal", name, oid, parse_columns(columns), no_rows, from_state=False, live=True)


SOURCE_STATUS_COLUMNS = (
    "id text, name text, type text, last_status_change_at timestamp with time zone, status text, error text, "
    "details text"
)
SOURCE_HISTORY_COLUMNS = (
    "occurred_at timestamp with time zone, source_id text, status text, error text, details text, replica_id text"
)
SOURCE_STATISTICS_COLUMNS = (
    "id text, replica_id text, messages_received uint8, bytes_received uint8, updates_staged uint8, "
    "updates_committed uint8, records_indexed uint8, bytes_indexed uint8, snapshot_records_known uint8, "
    "snapshot_records_staged uint8, snapshot_committed boolean, offset_known uint8, offset_committed uint8"
)

SOURCE_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation(
        "mz_catalog",
        "mz_sources",
        16716,
        parse_columns(
            "id text, oid oid, schema_id text, name text, type text, connection_id text, size text, "
            "envelope_type text, key_format text, value_format text, cluster_id text, owner_id text, "
            "privileges mz_aclitem[], create_sql text, redacted_create_sql text"
        ),
        _sources,
    ),
    _live(SOURCE_STATUSES, 17170, SOURCE_STATUS_COLUMNS),
    _live(SOURCE_STATUS_HISTORY, 17171, SOURCE_HISTORY_COLUMNS),
    _live(SOURCE_STATISTICS, 17172, SOURCE_STATISTICS_COLUMNS),
)
