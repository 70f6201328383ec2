"""Unique indexes (`CREATE UNIQUE INDEX i ON t (a, b)`), enforced on writes as PostgreSQL enforces them.

Contract:
- `unique_indexes(state, table)`: the table's unique indexes as (index name, key columns), by index name;
  `key_columns(keys)` the columns of an index's stored keys.
- `check_unique(rows, existing, name, key)`: 23505 `duplicate key value violates unique constraint "i"` when a new
  row's key equals the key of a row the write leaves in place (`existing`, at least the key columns) or of an
  earlier new row. A key with a NULL in it never conflicts (NULLS DISTINCT, PostgreSQL's default).
- `check_unique_index(rows, name, key)`: 23505 `could not create unique index "i"` with DETAIL `Key (a)=(1) is
  duplicated.` when the rows already in the table (`rows`) repeat a key: CREATE UNIQUE INDEX over them fails.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item


def key_columns(keys: Sequence[str]) -> list[str]:
    """A unique index's keys as it stores them (column names, quoted where PostgreSQL would quote) → the columns."""
    return [k[1:-1].replace('""', '"') if k.startswith('"') and k.endswith('"') else k for k in keys]


def unique_indexes(state: CatalogState, table: Item) -> list[tuple[str, list[str]]]:
    found = [
        (item.name, key_columns(item.keys))
        for item in state.items.values()
        if item.kind == "index" and item.unique and item.on_id == table.id
    ]
    return sorted(found)


def _render(value: object) -> str:
    return "null" if value is None else str(value)


def _without_nulls(rows: pa.Table, key: Sequence[str]) -> pa.Table:
    keep = None
    for column in key:
        valid = pc.is_valid(rows.column(column))
        keep = valid if keep is None else pc.and_(keep, valid)
    return rows if keep is None else rows.filter(keep)


def _repeats(table: pa.Table, key: list[str]) -> bool:
    if table.num_rows < 2:
        return False
    counts = table.group_by(key).aggregate([([], "count_all")])
    return bool(pc.max(counts.column("count_all")).as_py() > 1)


def check_unique(rows: pa.Table, existing: pa.Table, name: str, key: list[str]) -> None:
    new = _without_nulls(rows.select(key), key)
    if new.num_rows == 0:
        return
    old = _without_nulls(existing.select(key).cast(new.schema), key)
    if not _repeats(pa.concat_tables([old, new]), key):
        return
    seen = set(zip(*(old.column(k).to_pylist() for k in key), strict=True))
    for values in zip(*(new.column(k).to_pylist() for k in key), strict=True):
        if values in seen:
            raise e.UniqueViolation(
                f'duplicate key value violates unique constraint "{name}"',
                detail=f"Key ({', '.join(key)})=({', '.join(_render(v) for v in values)}) already exists.",
            )
        seen.add(values)


def check_unique_index(rows: pa.Table, name: str, key: list[str]) -> None:
    table = _without_nulls(rows.select(key), key)
    if not _repeats(table, key):
        return
    seen: set[tuple[object, ...]] = set()
    for values in zip(*(table.column(k).to_pylist() for k in key), strict=True):
        if values in seen:
            raise e.UniqueViolation(
                f'could not create unique index "{name}"',
                detail=f"Key ({', '.join(key)})=({', '.join(_render(v) for v in values)}) is duplicated.",
            )
        seen.add(values)
