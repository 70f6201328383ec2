"""mz_internal.mz_cluster_replica_history's rows, kept across restarts.

Contract: `ReplicaHistory(path)` loads the history from `path` (JSON lines; created on the first change). Each line is
one replica's whole record; a later line for the same replica replaces an earlier one, so recording a change is one
appended line, flushed and fsynced before `record` returns (a torn last line, from a crash while it was written, is
skipped when loading). `path` None keeps the history in memory only. `observe(live, now)` takes the replicas the
catalog has (replica id → size, cluster id, cluster name, replica name) and records what changed: a replica not
seen before is created `now` (or at an unknown time, NULL, on the first observation of a history that has no file
yet: replicas made before the history was kept), a known replica's cluster name follows renames, and a recorded
replica no longer there is dropped `now` (also at start, for one dropped while the server was stopping). `rows()`:
the relation's rows. Not thread-safe: the cluster controller calls it under its lock.

Materialize derives the relation from its audit log; sparkwire has none, so the controller keeps this one record.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger(__name__)

Live = dict[str, tuple[str, str, str, str]]  # replica id → (size, cluster id, cluster name, replica name)


@dataclass(slots=True)
class ReplicaRecord:
    replica_id: str
    size: str
    cluster_id: str
    cluster_name: str
    replica_name: str
    created_at: datetime.datetime | None
    dropped_at: datetime.datetime | None = None


def _time(text: str | None) -> datetime.datetime | None:
    return None if text is None else datetime.datetime.fromisoformat(text)


def _line(record: ReplicaRecord) -> str:
    fields = asdict(record)
    for key in ("created_at", "dropped_at"):
        value = fields[key]
        fields[key] = None if value is None else value.isoformat()
    return json.dumps(fields, sort_keys=True) + "\n"


class ReplicaHistory:
    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._records: dict[str, ReplicaRecord] = {}
        self._fresh = path is None or not path.exists()  # no history kept yet: today's replicas have no known birth
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                fields = json.loads(line)
                record = ReplicaRecord(
                    **{**fields, "created_at": _time(fields["created_at"]), "dropped_at": _time(fields["dropped_at"])}
                )
            except (ValueError, KeyError, TypeError):
                log.warning("skipping line %d of the replica history %s: not a record", number, path)
                continue
            self._records[record.replica_id] = record

    def observe(self, live: Live, now: datetime.datetime) -> None:
        changed: list[ReplicaRecord] = []
        for replica_id, (size, cluster_id, cluster_name, replica_name) in live.items():
            known = self._records.get(replica_id)
            if known is None or known.dropped_at is not None:
                created = None if self._fresh else now
                known = ReplicaRecord(replica_id, size, cluster_id, cluster_name, replica_name, created)
                self._records[replica_id] = known
                changed.append(known)
            elif known.cluster_name != cluster_name:
                known.cluster_name = cluster_name
                changed.append(known)
        for record in self._records.values():
            if record.replica_id not in live and record.dropped_at is None:
                record.dropped_at = now
                changed.append(record)
        self._fresh = False
        self._append(changed)

    def _append(self, records: list[ReplicaRecord]) -> None:
        if self._path is None or not records:
            return
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as out:
                out.write("".join(_line(record) for record in records))
                out.flush()
                os.fsync(out.fileno())
        except OSError:  # introspection is best effort: a full disk must not fail the DDL that changed a replica
            log.exception("writing the replica history %s failed", self._path)

    def rows(self) -> list[ReplicaRecord]:
        return list(self._records.values())
