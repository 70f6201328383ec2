"""What every source is doing, for mz_internal.mz_source_statuses, mz_source_status_history and
mz_source_statistics (sources/live.py serves them).

Contract: `SourceHealth` is one per process, thread-safe. `set(ids, status, error, details)` records a status of
sources (a source and its subsources and progress collection move together; a subsource's own error is set on it
alone) and appends to the history only when a source's (status, error) changes. Statuses are Materialize's:
`created`, `starting`, `running`, `paused`, `stalled`, `failed`, `dropped`. `forget(ids)` drops them from the
statuses (their history and a last `dropped` row stay). Statistics accumulate per source (primary) since the
server started; `committed(...)` is called once per durable batch. The history (its last `HISTORY_ROWS` rows) is
also appended to `history_file` (JSON lines, `DATA_DIR/sources/status_history.jsonl`) and read back at start, so it
survives restarts; statuses and statistics start anew with the server.
"""

from __future__ import annotations

import datetime
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

HISTORY_ROWS = 10_000  # rows kept (in memory and in the file, which is trimmed at start)


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _line(row: tuple[object, ...]) -> str:
    at, *rest = row
    assert isinstance(at, datetime.datetime)
    return json.dumps([at.isoformat(), *rest]) + "\n"


def _load(path: Path) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return rows
    for line in lines[-HISTORY_ROWS:]:
        try:
            at, *rest = json.loads(line)
            rows.append((datetime.datetime.fromisoformat(at), *rest))
        except (ValueError, TypeError):
            continue  # a line cut short by a crash
    return rows


def _rewrite(path: Path, rows: list[tuple[object, ...]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text("".join(_line(r) for r in rows))
        temporary.replace(path)
    except OSError:
        pass


@dataclass(slots=True)
class _Status:
    name: str
    type: str
    status: str
    error: str | None
    details: str | None
    changed_at: datetime.datetime
    replica_id: str | None


@dataclass(slots=True)
class Statistics:
    messages_received: int = 0
    bytes_received: int = 0
    updates_staged: int = 0
    updates_committed: int = 0
    records_indexed: int = 0
    bytes_indexed: int = 0
    snapshot_records_known: int | None = None
    snapshot_records_staged: int | None = None
    snapshot_committed: bool = False
    offset_known: int | None = None
    offset_committed: int | None = None
    replica_id: str | None = None
    batches: int = 0


def _offset_number(offset: str) -> int | None:
    """A load generator's tick, or a PostgreSQL LSN (`16/B374D848`) as a number, as Materialize reports it."""
    high, slash, low = offset.partition("/")
    try:
        return (int(high, 16) << 32 | int(low, 16)) if slash else int(offset)
    except ValueError:
        return None


class SourceHealth:
    def __init__(self, history_file: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._statuses: dict[str, _Status] = {}
        self._history: list[tuple[object, ...]] = _load(history_file) if history_file is not None else []
        self._file = history_file
        self._statistics: dict[str, Statistics] = {}
        if history_file is not None:
            _rewrite(history_file, self._history)

    def _record(self, row: tuple[object, ...]) -> None:
        self._history.append(row)
        if len(self._history) > HISTORY_ROWS:
            del self._history[: len(self._history) - HISTORY_ROWS]
        if self._file is not None:
            try:
                with self._file.open("a") as out:
                    out.write(_line(row))
            except OSError:
                pass  # the history is best effort; the statuses themselves are in memory

    def register(self, source_id: str, name: str, type_: str) -> None:
        with self._lock:
            if source_id not in self._statuses:
                self._statuses[source_id] = _Status(name, type_, "created", None, None, now(), None)

    def set(
        self,
        ids: Iterable[str],
        status: str,
        error: str | None = None,
        details: dict[str, object] | None = None,
        replica_id: str | None = None,
    ) -> None:
        at = now()
        text = None if details is None else json.dumps(details, sort_keys=True)
        with self._lock:
            for source_id in ids:
                current = self._statuses.get(source_id)
                if current is None:
                    continue
                if (current.status, current.error) == (status, error):
                    continue
                current.status, current.error, current.details = status, error, text
                current.changed_at, current.replica_id = at, replica_id
                self._record((at, source_id, status, error, text, replica_id))

    def status_of(self, source_id: str) -> tuple[str, str | None] | None:
        with self._lock:
            found = self._statuses.get(source_id)
            return None if found is None else (found.status, found.error)

    def forget(self, ids: Iterable[str]) -> None:
        self.set(ids, "dropped")
        with self._lock:
            for source_id in ids:
                self._statuses.pop(source_id, None)
                self._statistics.pop(source_id, None)

    def statistics(self, source_id: str) -> Statistics:
        with self._lock:
            return self._statistics.setdefault(source_id, Statistics())

    def committed(
        self,
        source_id: str,
        *,
        messages: int,
        size: int,
        updates: int,
        offset: str,
        snapshot: bool,
        snapshot_done: bool,
        tables: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        """One durable batch of `source_id`: `tables` gives each subsource's (inserted, deleted) rows (their own
        statistics rows; the source's counts the total)."""
        per_table = tables or {}
        with self._lock:
            s = self._statistics.setdefault(source_id, Statistics())
            s.batches += 1
            s.messages_received += messages
            s.bytes_received += size
            s.bytes_indexed += size
            net = sum(i - d for i, d in per_table.values()) if per_table else updates
            for stats, changed, grown in [
                (s, updates, net),
                *(
                    (self._statistics.setdefault(t, Statistics()), i + d, i - d)
                    for t, (i, d) in per_table.items()
                    if t != source_id  # COUNTER: the source is its own output, counted once
                ),
            ]:
                stats.updates_staged += changed
                stats.updates_committed += changed
                stats.records_indexed += grown
                if snapshot:
                    stats.snapshot_records_known = (stats.snapshot_records_known or 0) + changed
                    stats.snapshot_records_staged = (stats.snapshot_records_staged or 0) + changed
                if snapshot_done or not snapshot:
                    stats.snapshot_committed = True
                stats.offset_known = stats.offset_committed = _offset_number(offset)
                stats.replica_id = s.replica_id

    def indexed(self, source_id: str, counts: dict[str, int]) -> None:
        """The rows each collection of `source_id` holds when ingestion starts (records_indexed counts on from
        there; the source's is their total)."""
        with self._lock:
            for table_id, rows in counts.items():
                self._statistics.setdefault(table_id, Statistics()).records_indexed = rows
            self._statistics.setdefault(source_id, Statistics()).records_indexed = sum(counts.values())

    # ---- the relations' rows ---------------------------------------------------------------------------------

    def statuses(self) -> list[dict[str, object]]:
        with self._lock:
            return [
                {
                    "id": source_id,
                    "name": s.name,
                    "type": s.type,
                    "last_status_change_at": s.changed_at,
                    "status": s.status,
                    "error": s.error,
                    "details": s.details,
                }
                for source_id, s in self._statuses.items()
            ]

    def history(self) -> list[dict[str, object]]:
        keys = ("occurred_at", "source_id", "status", "error", "details", "replica_id")
        with self._lock:
            return [dict(zip(keys, row, strict=True)) for row in self._history]

    def statistics_rows(self) -> list[dict[str, object]]:
        with self._lock:
            return [
                {
                    "id": source_id,
                    "replica_id": s.replica_id,
                    "messages_received": s.messages_received,
                    "bytes_received": s.bytes_received,
                    "updates_staged": s.updates_staged,
                    "updates_committed": s.updates_committed,
                    "records_indexed": s.records_indexed,
                    "bytes_indexed": s.bytes_indexed,
                    "snapshot_records_known": s.snapshot_records_known,
                    "snapshot_records_staged": s.snapshot_records_staged,
                    "snapshot_committed": s.snapshot_committed,
                    "offset_known": s.offset_known,
                    "offset_committed": s.offset_committed,
                }
                for source_id, s in self._statistics.items()
            ]
