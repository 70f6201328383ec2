"""The PostgreSQL CDC reader: one logical replication slot (pgoutput) feeding one subsource per published table.

Contract: `PostgresReader(config, slot, specs=None, failed=())` implements `sparkwire.sources.reader.UpstreamReader`.
`subsources()` discovers the publication's tables (`upstream.discover`). `run(None, …)` creates the slot with an
exported snapshot, copies every table inside it and emits the whole snapshot as one batch (offset: the slot's
consistent point), then streams; `run(lsn, …)` starts replication from `lsn` and skips every transaction whose
commit LSN is at or below it. One batch per upstream transaction, offset = its commit LSN (`16/B374D848`),
changes consolidated (`transaction.py`); the slot's flush LSN is acknowledged only after `sink.emit` returns.

What cannot be followed raises `SourceError(subsource=…)` once and the subsource is then skipped by this reader
(`failed`), so the next `run` carries the others on: a Relation message whose columns differ from the subsource's
(an upstream ALTER TABLE), a TRUNCATE, a change without the old row (REPLICA IDENTITY FULL removed). Connection
failures (unreachable host, wrong password, a slot in use by another reader) raise `UpstreamUnavailable`:
transient, retried by ingestion. `close()` drops the slot upstream.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

import psycopg

from sparkwire.sources.postgres import pgoutput as po
from sparkwire.sources.postgres.stream import ReplicationConnection
from sparkwire.sources.postgres.transaction import Transaction
from sparkwire.sources.postgres.upstream import TEXT, UpstreamConfig, connect, describe, discover, snapshot
from sparkwire.sources.reader import POLL_SECONDS, Batch, Changes, Sink, SourceError, SubsourceSpec

log = logging.getLogger(__name__)


class UpstreamUnavailable(Exception):
    """A transient upstream failure: ingestion records the message and retries with backoff."""


def slot_name(source_id: str) -> str:
    """Materialize's slot name for a source: `materialize_<id>` (lower case; slot names allow [a-z0-9_])."""
    return "materialize_" + "".join(ch if ch.isalnum() else "_" for ch in source_id.lower())


class PostgresReader:
    def __init__(
        self,
        config: UpstreamConfig,
        slot: str,
        specs: Iterable[SubsourceSpec] | None = None,
        failed: Iterable[str] = (),
    ) -> None:
        self.config = config
        self.slot = slot
        self._specs = {s.name: s for s in specs} if specs is not None else None
        self.failed: set[str] = set(failed)

    # ---- UpstreamReader ------------------------------------------------------------------------------------

    def subsources(self) -> list[SubsourceSpec]:
        with _unavailable(self.config):
            tables = discover(self.config)
        self._specs = {t.spec.name: t.spec for t in tables}
        return [t.spec for t in tables]

    def run(self, resume: str | None, sink: Sink, stop: threading.Event) -> None:
        specs = self._specs if self._specs is not None else {s.name: s for s in self.subsources()}
        with _unavailable(self.config):
            repl = ReplicationConnection(self.config.conninfo(), self.config.connect_timeout)
        try:
            with _unavailable(self.config):
                start = self._snapshot(repl, specs, sink) - 1 if resume is None else po.parse_lsn(resume)
                self._start(repl, start)
                _Stream(self, specs, start).run(repl, sink, stop)
        finally:
            repl.close()

    def close(self) -> None:
        deadline = time.monotonic() + 10
        while True:
            try:
                with connect(self.config) as conn:
                    conn.execute(
                        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = %s",
                        (self.slot,),
                    )
                return
            except psycopg.errors.ObjectInUse:  # our own stream is still closing; it stops within POLL_SECONDS
                if time.monotonic() > deadline:
                    log.warning("replication slot %s is still in use upstream; not dropped", self.slot)
                    return
                time.sleep(POLL_SECONDS)
            except psycopg.Error as exc:
                log.warning("could not drop replication slot %s upstream: %s", self.slot, exc)
                return

    # ---- phases ----------------------------------------------------------------------------------------------

    def _snapshot(self, repl: ReplicationConnection, specs: dict[str, SubsourceSpec], sink: Sink) -> int:
        self._drop_stale_slot()
        lsn, name = repl.create_slot(self.slot)
        tables = [t for t in discover(self.config) if t.spec.name in specs and t.spec.name not in self.failed]
        for table in tables:
            self._check_columns(specs[table.spec.name], table.upstream_columns)
        try:
            copied = snapshot(self.config, name, tables)
        except SourceError as error:  # a table with a value sparkwire cannot hold: the next run snapshots the others
            self.failed.add(error.subsource or "")
            raise
        changes = {n: Changes(inserts=t) for n, (t, _) in copied.items() if t.num_rows and n not in self.failed}
        sink.emit(
            Batch(
                offset=po.format_lsn(lsn - 1),  # every commit before the consistent point is in the snapshot
                changes=changes,
                snapshot=True,
                snapshot_done=True,
                messages=sum(t.num_rows for t, _ in copied.values()),
                bytes=sum(b for _, b in copied.values()),
            )
        )
        return lsn

    def _drop_stale_slot(self) -> None:
        """A slot of this name left by a snapshot that never became durable (a crash while copying): drop it, so
        the new snapshot and the slot agree. One that is active belongs to a running reader: retry later."""
        with connect(self.config) as conn:
            row = conn.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)).fetchone()
            if row is not None and row[0]:
                raise UpstreamUnavailable(f'replication slot "{self.slot}" is in use by another reader upstream')
            if row is not None:
                conn.execute("SELECT pg_drop_replication_slot(%s)", (self.slot,))

    def _start(self, repl: ReplicationConnection, lsn: int) -> None:
        try:
            repl.start(self.slot, po.format_lsn(lsn), self.config.publication)
        except psycopg.errors.UndefinedObject as exc:
            if "publication" in str(exc):
                raise SourceError(f'publication "{self.config.publication}" does not exist upstream') from None
            raise SourceError(
                f'replication slot "{self.slot}" does not exist upstream (dropped by hand?): the source cannot '
                "resume without a gap; drop and recreate it"
            ) from None
        except psycopg.errors.ObjectInUse as exc:
            raise UpstreamUnavailable(f'replication slot "{self.slot}" is in use by another reader: {exc}') from None

    def _check_columns(self, spec: SubsourceSpec, upstream: tuple[tuple[str, int, int], ...]) -> None:
        names = [c.name for c in spec.columns]
        ok = names == [u[0] for u in upstream] and all(
            c.type_oid == TEXT or (c.type_oid, c.typmod) == (u[1], u[2])
            for c, u in zip(spec.columns, upstream, strict=True)
        )
        if not ok:
            self.failed.add(spec.name)
            raise SourceError(
                f"upstream table {spec.upstream} changed its columns to ({describe(upstream)}); "
                f'subsource "{spec.name}" can no longer follow it: drop the source and create it again',
                subsource=spec.name,
            )


class _Stream:
    """One replication session: decodes pgoutput and emits a batch per transaction."""

    def __init__(self, reader: PostgresReader, specs: dict[str, SubsourceSpec], resume: int) -> None:
        self.reader = reader
        self.specs = specs
        self.by_upstream = {s.upstream: s for s in specs.values()}
        self.resume = resume
        self.relations: dict[int, SubsourceSpec | None] = {}
        self.txn: Transaction | None = None
        self.skip = False

    def run(self, repl: ReplicationConnection, sink: Sink, stop: threading.Event) -> None:
        while not stop.is_set():
            for wal, payload in repl.messages(POLL_SECONDS):
                if not payload:  # a keepalive: between transactions, everything before it was emitted
                    if self.txn is None:
                        repl.acknowledge(wal)
                elif (commit := self.apply(po.decode(payload), len(payload))) is not None:
                    self.commit(commit, repl, sink)
                if stop.is_set():
                    return

    def apply(self, msg: po.Message | None, size: int) -> po.Commit | None:
        if isinstance(msg, po.Begin):
            self.txn, self.skip = Transaction(), msg.final_lsn <= self.resume
        elif isinstance(msg, po.Commit):
            return msg
        elif isinstance(msg, po.Relation):
            spec = self.by_upstream.get(msg.qualified)
            self.relations[msg.relid] = spec
            if spec is not None and spec.name not in self.reader.failed:
                self.reader._check_columns(spec, tuple((c.name, c.type_oid, c.typmod) for c in msg.columns))
        elif isinstance(msg, po.Truncate):
            for relid in msg.relids:
                spec = self.relations.get(relid)
                if spec is not None and spec.name not in self.reader.failed:
                    self.reader.failed.add(spec.name)
                    raise SourceError(
                        f"upstream table {spec.upstream} was truncated; subsource \"{spec.name}\" cannot follow a "
                        "TRUNCATE: drop the source and create it again",
                        subsource=spec.name,
                    )
        elif msg is not None and self.txn is not None:
            self.row_change(msg, self.txn, size)
        return None

    def row_change(self, msg: po.Insert | po.Update | po.Delete, txn: Transaction, size: int) -> None:
        spec = self.relations.get(msg.relid)
        if spec is None or spec.name in self.reader.failed or self.skip:
            return
        txn.messages += 1
        txn.bytes += size
        if isinstance(msg, po.Insert):
            txn.insert(spec.name, msg.new)
            return
        if msg.old is None or msg.old_is_key:
            self.reader.failed.add(spec.name)
            raise SourceError(
                f"upstream table {spec.upstream} no longer has REPLICA IDENTITY FULL (an update or delete arrived "
                f'without the whole old row); subsource "{spec.name}" stopped: restore it and recreate the source',
                subsource=spec.name,
            )
        txn.delete(spec.name, msg.old)
        if isinstance(msg, po.Update):
            txn.insert(spec.name, tuple(o if n == po.UNCHANGED else n for n, o in zip(msg.new, msg.old, strict=True)))

    def commit(self, commit: po.Commit, repl: ReplicationConnection, sink: Sink) -> None:
        txn, self.txn = self.txn, None
        if txn is not None and not self.skip:
            try:
                changes = txn.changes(self.specs)
            except SourceError as error:
                self.reader.failed.add(error.subsource or "")
                raise
            if changes:
                offset = po.format_lsn(commit.commit_lsn)
                sink.emit(Batch(offset=offset, changes=changes, messages=txn.messages, bytes=txn.bytes))
        repl.acknowledge(commit.end_lsn)


class _unavailable:
    """Turns connection-level psycopg errors into `UpstreamUnavailable` with a message that names the upstream."""

    def __init__(self, config: UpstreamConfig) -> None:
        self.where = f"{config.host}:{config.port}/{config.database} as {config.user}"

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, psycopg.OperationalError | psycopg.errors.InvalidPassword):
            text = " ".join(str(exc).split()) or type(exc).__name__
            raise UpstreamUnavailable(f"upstream PostgreSQL {self.where}: {text}") from None
