"""Resident relations: materialized views kept current by recompute-when-stale, and indexes that keep their
relation in memory with a hash map from key to row positions.

Contract:
- A relation's contents depend on its *version*: for every base table it reads, transitively through views and
  materialized views (`Item.dependencies` in the `CatalogState`), the table's content version at the read
  snapshot. `table_version(snapshot, id)` is the visible data files with their deleted-row counts: files are
  immutable and deletion vectors only grow, so equal versions mean equal contents. `relation_version` gathers
  them; a relation that reads no table (`SELECT 1`) has the empty version and is computed once.
- `ResidentRelations(compute)` is process-wide and thread-safe. `compute(item, state, snapshot)` gives a
  relation's contents at the snapshot. `contents(item, state, snapshot)` returns the cached contents when the
  cached version equals the snapshot's, else computes them (recompute when stale); a result computed at an older
  snapshot than the cached one is returned but not cached. `index(index, state, snapshot)` returns the
  `ResidentIndex` of the indexed relation at the snapshot, built lazily and rebuilt when the version moved.
  Concurrent readers of one relation (or index) wait for a single computation and share it.
- What stays in memory: the contents of every materialized view read, and of every indexed relation, until
  `drop(item_id)` (dropping an index drops its relation's contents too unless the relation is a materialized view
  or another resident index reads it) or `prune(state)` (drops everything whose item is gone from `state`).
- `ResidentIndex.lookup(key)` / `lookup_many(keys)` return the rows whose key columns equal the key, in PostgreSQL's
  sense for the supported key types (`KEY_TYPES`): NULL never matches, NaN equals NaN, numerics compare by value
  (`1.0 = 1.00`), char(n) ignores trailing blanks. Keys are Python values (see `comparable`). An index whose key
  has an expression is resident but serves no lookup; the empty key is one group (every row); a DEFAULT INDEX
  without stored keys is keyed by every column.
"""

from __future__ import annotations

import math
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Generic, TypeVar

import pyarrow as pa
import sqlglot
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.errors import InternalError
from sparkwire.planner.execute.lock_waits import waiting_for
from sparkwire.storage import Snapshot

Compute = Callable[[Item, CatalogState, Snapshot], pa.Table]
TableVersion = tuple[tuple[int, int], ...]
RelationVersion = tuple[tuple[str, TableVersion], ...]
Maintained = Callable[[Item, Snapshot, RelationVersion], pa.Table | None]
Normalize = Callable[[object], object]

BASE_KINDS = frozenset({"table", "source"})
DERIVED_KINDS = frozenset({"view", "materialized-view"})

INT_TYPES = frozenset({20, 21, 23, 26})
FLOAT_TYPES = frozenset({700, 701})
NUMERIC = 1700
NUMBER_TYPES = INT_TYPES | FLOAT_TYPES | {NUMERIC}
TEXT_TYPES = frozenset({19, 25, 1043})
BPCHAR = 1042
BOOL, BYTEA, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, UUID = 16, 17, 1082, 1083, 1114, 1184, 2950
KEY_TYPES = NUMBER_TYPES | TEXT_TYPES | {BPCHAR, BOOL, BYTEA, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, UUID}
"""PostgreSQL types an index lookup supports (equality is plain value equality after `comparable`)."""


class _NaN:
    """NaN as a key: PostgreSQL orders NaN equal to itself (float and numeric), Python's nan is not."""

    def __repr__(self) -> str:
        return "NaN"


NAN = _NaN()


def table_version(snapshot: Snapshot, table_id: str) -> TableVersion:
    return snapshot.version(table_id)


def base_tables(item: Item, state: CatalogState) -> tuple[str, ...]:
    """The ids of the tables `item` reads, transitively through views and materialized views, sorted."""
    found: set[str] = set()
    seen: set[str] = set()
    stack = [item.id]
    while stack:
        current = state.items[stack.pop()]
        if current.kind in BASE_KINDS:
            found.add(current.id)
        elif current.kind in DERIVED_KINDS:
            stack.extend(dep for dep in current.dependencies if dep not in seen and dep in state.items)
            seen.update(current.dependencies)
    return tuple(sorted(found))


def relation_version(item: Item, state: CatalogState, snapshot: Snapshot) -> RelationVersion:
    return tuple((table_id, table_version(snapshot, table_id)) for table_id in base_tables(item, state))


def _float_key(value: object) -> object:
    return NAN if isinstance(value, float) and math.isnan(value) else value


def _numeric_key(value: object) -> object:
    if isinstance(value, str):
        value = Decimal(value)
    if isinstance(value, Decimal) and value.is_nan():
        return NAN
    return _float_key(value)


def _bpchar_key(value: object) -> object:
    return value.rstrip(" ") if isinstance(value, str) else value


def _uuid_key(value: object) -> object:
    return value if value is None else str(uuid.UUID(str(value)))


def comparable(type_oid: int) -> Normalize | None:
    """How values of a key type become dict keys with PostgreSQL's equality; None when they already are."""
    if type_oid in FLOAT_TYPES:
        return _float_key
    if type_oid == NUMERIC:
        return _numeric_key
    if type_oid == BPCHAR:
        return _bpchar_key
    if type_oid == UUID:
        return _uuid_key
    return None


def _plain_column(key: str) -> str | None:
    node: exp.Expr = normalize_identifiers(sqlglot.parse_one(key, read="postgres"), dialect="postgres")
    return node.name if isinstance(node, exp.Column) else None


def index_key_columns(index: Item, relation: Item) -> tuple[str, ...] | None:
    """The relation columns an index is keyed by, in key order; None if a key is not a plain column of it."""
    if index.is_default_index and not index.keys:
        return tuple(column.name for column in relation.columns)
    names = {column.name for column in relation.columns}
    columns = tuple(_plain_column(key) for key in index.keys)
    if any(column is None or column not in names for column in columns):
        return None
    return tuple(column for column in columns if column is not None)


Key = tuple[object, ...]
_Slot = int | list[int]


class ResidentIndex:
    """The contents of an indexed relation at one version, with a map from key to row positions."""

    def __init__(
        self,
        index_id: str,
        contents: pa.Table,
        key_columns: tuple[str, ...] | None,
        key_types: tuple[int, ...],
        version: RelationVersion,
    ) -> None:
        self.index_id = index_id
        self.contents = contents.combine_chunks()  # one chunk: a lookup is a slice or a take, not a search
        self.key_columns = key_columns
        self.version = version
        self._normalizers: tuple[Normalize | None, ...] = ()
        self._map: dict[object, _Slot] = {}
        if key_columns:
            built = [_key_values(contents.column(n), oid) for n, oid in zip(key_columns, key_types, strict=True)]
            self._normalizers = tuple(normalize for _, normalize in built)
            nulls = any(contents.column(name).null_count for name in key_columns)
            self._map = _key_map([values for values, _ in built], nulls)

    def _normalized(self, key: Key) -> object | None:
        """`key` as a map key; None if it matches nothing (a NULL, a value the column cannot hold)."""
        if self.key_columns is None or len(key) != len(self.key_columns):
            raise InternalError(f"index {self.index_id} cannot look up a key of {len(key)} values")
        parts = tuple(
            None if value is None else value if f is None else f(value)
            for value, f in zip(key, self._normalizers, strict=True)
        )
        if any(part is None for part in parts):
            return None
        return parts[0] if len(parts) == 1 else parts

    def lookup(self, key: Key) -> pa.Table:
        return self.lookup_many((key,))

    def lookup_many(self, keys: Iterable[Key]) -> pa.Table:
        """The rows matching any of `keys` (each matching row once, grouped by key in the order given)."""
        if self.key_columns == ():
            return self.contents if any(True for _ in keys) else self.contents.slice(0, 0)
        positions: list[int] = []
        for key in dict.fromkeys(self._normalized(k) for k in keys):
            slot = None if key is None else self._map.get(key)
            if isinstance(slot, int):
                positions.append(slot)
            elif slot is not None:
                positions.extend(slot)
        if len(positions) == 1:  # a primary-key lookup: a zero-copy slice, ~20x cheaper than a take
            return self.contents.slice(positions[0], 1)
        return self.contents.take(pa.array(positions, pa.int64()))


def _key_values(column: pa.ChunkedArray, type_oid: int) -> tuple[list[object], Normalize | None]:
    """A key column's values as map keys, and how a looked-up value becomes one. A fixed-scale decimal column is
    keyed by its text, which has exactly `scale` fraction digits (converting text is ~6x faster than Decimals)."""
    if pa.types.is_decimal(column.type):
        return column.cast(pa.string()).to_pylist(), _decimal_text(column.type.scale)
    normalize = comparable(type_oid)
    values = column.to_pylist()
    return (values if normalize is None else [normalize(v) for v in values]), normalize


def _decimal_text(scale: int) -> Normalize:
    quantum = Decimal(1).scaleb(-scale)

    def normalize(value: object) -> object:
        number = _numeric_key(value)
        if isinstance(number, float):
            number = Decimal(number)
        if not isinstance(number, int | Decimal) or (isinstance(number, Decimal) and not number.is_finite()):
            return None
        exact = Decimal(number)
        try:
            rounded = exact.quantize(quantum)
        except InvalidOperation:
            return None
        if rounded != exact:
            return None  # more fraction digits than the column holds: equals no row
        return format(rounded.copy_abs() if rounded.is_zero() else rounded, "f")

    return normalize


def _key_map(values: list[list[object]], nulls: bool) -> dict[object, _Slot]:
    """Key (a value, or a tuple for several columns) → its position, or its positions when repeated; keys with a
    NULL are left out, since NULL never equals anything."""
    keys: Sequence[object] = values[0] if len(values) == 1 else list(zip(*values, strict=True))
    mapping: dict[object, _Slot] = dict(zip(keys, range(len(keys)), strict=True))
    if len(mapping) < len(keys):
        groups: dict[object, list[int]] = {}
        for position, key in enumerate(keys):
            groups.setdefault(key, []).append(position)
        mapping = {key: slot[0] if len(slot) == 1 else slot for key, slot in groups.items()}
    if len(values) == 1:
        mapping.pop(None, None)
    elif nulls:
        for key in [k for k in mapping if isinstance(k, tuple) and None in k]:
            del mapping[key]
    return mapping


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Cached(Generic[T]):
    version: RelationVersion
    ts: int
    value: T
    kind: str
    on_id: str | None = None


class ResidentRelations:
    def __init__(self, compute: Compute, maintained: Maintained | None = None) -> None:
        self._compute = compute
        self._maintained = maintained
        self._lock = threading.Lock()
        self._build_locks: dict[str, threading.Lock] = {}
        self._relations: dict[str, _Cached[pa.Table]] = {}
        self._indexes: dict[str, _Cached[ResidentIndex]] = {}
        self._dropped: set[str] = set()
        self._stats = {"computes": 0, "hits": 0, "index_builds": 0, "index_hits": 0, "maintained_reads": 0}

    def _build_lock(self, item_id: str) -> threading.Lock:
        with self._lock:
            return self._build_locks.setdefault(item_id, threading.Lock())

    def _count(self, name: str) -> None:
        with self._lock:
            self._stats[name] += 1

    def contents(self, item: Item, state: CatalogState, snapshot: Snapshot) -> pa.Table:
        version = relation_version(item, state, snapshot)
        if item.kind == "materialized-view" and self._maintained is not None:
            maintained = self._maintained(item, snapshot, version)  # kept current by its maintainer: no work here
            if maintained is not None:
                self._count("maintained_reads")
                return maintained
        with waiting_for(self._build_lock(item.id)):
            cached = self._relations.get(item.id)
            if cached is not None and cached.version == version:
                self._count("hits")
                return cached.value
            table = self._compute(item, state, snapshot)
            self._count("computes")
            with self._lock:
                if item.id not in self._dropped and (cached is None or cached.ts <= snapshot.ts):
                    self._relations[item.id] = _Cached(version, snapshot.ts, table, item.kind)
            return table

    def index(self, index: Item, state: CatalogState, snapshot: Snapshot) -> ResidentIndex:
        if index.kind != "index" or index.on_id is None:
            raise InternalError(f"{index.id} is not an index")
        relation = state.items[index.on_id]
        with waiting_for(self._build_lock(index.id)):
            return self._index(index, relation, state, snapshot)

    def prebuild(self, index: Item, state: CatalogState, snapshot: Snapshot) -> None:
        """Build an index at `snapshot` unless a reader is building or reading it right now (that reader may be
        waiting for the caller: a materialized view's maintainer prebuilds the indexes on it after each step)."""
        if index.kind != "index" or index.on_id is None:
            return
        lock = self._build_lock(index.id)
        if lock.acquire(blocking=False):
            try:
                self._index(index, state.items[index.on_id], state, snapshot)
            finally:
                lock.release()

    def _index(self, index: Item, relation: Item, state: CatalogState, snapshot: Snapshot) -> ResidentIndex:
        version = relation_version(relation, state, snapshot)
        cached = self._indexes.get(index.id)
        if cached is not None and cached.version == version:
            self._count("index_hits")
            return cached.value
        contents = self.contents(relation, state, snapshot)
        columns = index_key_columns(index, relation)
        types = {column.name: column.type_oid for column in relation.columns}
        key_types = tuple(types[name] for name in columns or ())
        built = ResidentIndex(index.id, contents, columns, key_types, version)
        self._count("index_builds")
        with self._lock:
            if index.id not in self._dropped and (cached is None or cached.ts <= snapshot.ts):
                self._indexes[index.id] = _Cached(version, snapshot.ts, built, "index", relation.id)
        return built

    def drop(self, item_id: str) -> None:
        with self._lock:
            self._dropped.add(item_id)
            self._build_locks.pop(item_id, None)
            self._relations.pop(item_id, None)
            dropped = self._indexes.pop(item_id, None)
            on_id = dropped.on_id if dropped is not None else None
            if on_id is None:
                return
            relation = self._relations.get(on_id)
            still_read = any(entry.on_id == on_id for entry in self._indexes.values())
            if relation is not None and relation.kind != "materialized-view" and not still_read:
                del self._relations[on_id]

    def prune(self, state: CatalogState) -> None:
        with self._lock:
            gone = [i for i in (*self._relations, *self._indexes) if i not in state.items]
        for item_id in gone:
            self.drop(item_id)

    def stats(self) -> dict[str, int]:
        """Counters (computes, hits, index_builds, index_hits) and what is resident (relations, indexes, bytes)."""
        with self._lock:
            return {
                **self._stats,
                "relations": len(self._relations),
                "indexes": len(self._indexes),
                "bytes": sum(int(entry.value.nbytes) for entry in self._relations.values()),
            }
