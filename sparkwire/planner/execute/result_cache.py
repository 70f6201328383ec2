"""Results of statements that read only builtin relations (or none), kept while nothing they read can have changed.

Clients send the same catalog queries over and over (psql's `\\d` family, a BI tool browsing schemas, pgjdbc's
metadata calls on every connection); the introspection store's answer changes only when something writes to the
store or the catalog commits. Contract:
- `ResultCache(store_generation, volatile, max_entries, max_rows, max_bytes)`: one per server, shared by every
  session, thread-safe, least recently used entries go first (when there are more than `max_entries` or their
  Arrow buffers exceed `max_bytes`). `key(sql, params, time_zone, catalog_generation)` names
  everything an answer depends on, or is None when the answer may differ between runs: the DuckDB SQL as run
  (session values such as current_user, the database and the schema are literals in it, and so are row filters of
  the role's privileges), the parameter values, the session's TimeZone, and the generations of the store
  (`store_generation()`: `DuckDBEngine.write_generation`, bumped after every write) and of the catalog
  (`SchemaGeneration`, bumped when a catalog transaction commits). The caller makes the key after the store has
  caught up with the catalog for the statement (`DuckDBConnection.catch_up`: that write moves the store's
  generation; keyed before it, the first answer after DDL was kept under a generation gone by the next run).
  Constant queries (no relation, no function) are keyed by their SQL alone (`constant_key`).
- `cacheable(sql, volatile)`: False when the SQL names any of the `volatile` functions (`volatile_functions`:
  DuckDB's non-deterministic and time functions, and the session functions current_setting, set_config and
  pg_sleep, which read or change session state or sleep). The check is by word, so a string literal that
  contains such a word only costs the cache.
- `get(key)` → (columns, batches) or None (the batches are marked shared: encoded once for every session that
  sends them, pgtypes/shared_rows.py); `recording(key, columns, batches)` passes the batches through and
  stores them once they are all read, unless there are more than `max_rows` rows (a big answer is streamed, not
  kept) — a cancelled or failed query is not stored.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from functools import lru_cache

import pyarrow as pa
from cachetools import LRUCache

from sparkwire.engine.base import Column
from sparkwire.pgtypes.shared_rows import SHARED

Entry = tuple[list[Column], list[pa.RecordBatch]]
_WORD = re.compile(r"[a-z_][a-z0-9_]*")


@lru_cache(maxsize=4096)
def cacheable(sql: str, volatile: frozenset[str]) -> bool:
    """Memoized: the same statements run again and again, and this runs on each of their executions."""
    return volatile.isdisjoint(_WORD.findall(sql.lower()))


def volatile_functions(engine_volatile: Iterable[str], session_functions: Iterable[str]) -> frozenset[str]:
    """The engine's functions whose result is not a function of their arguments, plus the session functions.
    The time keywords DuckDB spells without parentheses are included by name."""
    keywords = {"current_timestamp", "current_time", "current_date", "localtimestamp", "localtime", "now"}
    return frozenset(name.lower() for name in [*engine_volatile, *session_functions, *keywords])


def _entry_bytes(entry: Entry) -> int:
    return sum(batch.nbytes for batch in entry[1])


class _Entries(LRUCache[Hashable, Entry]):
    """Least recently used out, within a byte budget (cachetools sizes each entry once) and an entry count."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        super().__init__(maxsize=max_bytes, getsizeof=_entry_bytes)
        self._max_entries = max_entries

    def __setitem__(self, key: Hashable, value: Entry) -> None:
        super().__setitem__(key, value)
        while len(self) > self._max_entries:
            self.popitem()


class ResultCache:
    def __init__(
        self,
        store_generation: Callable[[], int],
        volatile: frozenset[str],
        max_entries: int = 512,
        max_rows: int = 20_000,
        max_bytes: int = 256 << 20,
    ) -> None:
        self._store_generation = store_generation
        self._volatile = volatile
        self._entries = _Entries(max_entries, max_bytes)
        self._max_rows = max_rows
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self.hits = 0  # answers served from the cache (observability, and the tests' way to see it work)

    def key(self, sql: str, params: tuple[object, ...], time_zone: str, catalog_generation: int) -> Hashable | None:
        if not cacheable(sql, self._volatile):
            return None
        key = (self._store_generation(), catalog_generation, time_zone, sql, params)
        try:
            hash(key)
        except TypeError:  # a parameter value that is a list (an array)
            return None
        return key

    @staticmethod
    def constant_key(sql: str) -> Hashable:
        return ("constant", sql)

    def get(self, key: Hashable) -> Entry | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self.hits += 1
        if found is not None:
            for batch in found[1]:
                SHARED.mark(batch)  # many sessions send it: encoded once per way (pgtypes/shared_rows.py)
        return found

    def put(self, key: Hashable, columns: list[Column], batches: list[pa.RecordBatch]) -> None:
        entry = (columns, batches)
        if _entry_bytes(entry) > self._max_bytes:
            return
        with self._lock:
            self._entries[key] = entry

    def recording(
        self, key: Hashable, columns: list[Column], batches: Iterator[pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        kept: list[pa.RecordBatch] | None = []
        rows = 0
        for batch in batches:
            if kept is not None:
                rows += batch.num_rows
                if rows <= self._max_rows:
                    kept.append(batch)
                else:
                    kept = None
            yield batch
        if kept is not None:
            self.put(key, columns, kept)
