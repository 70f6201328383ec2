"""`Catalog`: the durable, transactional catalog. One writer at a time; readers take `catalog.state`.

Contract:
- `Catalog.open(data_dir)` loads `<data_dir>/catalog/catalog.db` (see `store`), bootstrapping it on first open
  in one durable transaction (see `builtins` for what it creates and for the id scheme).
- `transact(ops)` applies typed ops (see `ops`, `apply`) all-or-nothing under the writer lock: validate every
  op against the state the previous ops produced, write the changed rows, let each registered listener
  `prepare` the change (e.g. the introspection store applies it to DuckDB inside its own open transaction),
  COMMIT SQLite durably, swap `state`, bump `revision`, then tell listeners to `commit`. If validation fails
  nothing happens; if a listener's `prepare` or the COMMIT fails, SQLite rolls back, prepared listeners get
  `abort` (including the one whose `prepare` raised), the state is unchanged and the exception propagates.
  `on_commit(result)` runs after the swap, still under the lock, so callers can apply engine-side effects in
  catalog order. A transact that changes nothing (e.g. only skipped creates) writes nothing and keeps the
  revision.
- every transact gets a timeline write timestamp (see `timeline`); `write_ts()`/`read_ts()` serve other
  writers.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sparkwire.catalog import codec
from sparkwire.catalog.apply import Applied, apply_ops
from sparkwire.catalog.builtins import (
    BUILTIN_PRIVILEGES,
    BUILTIN_ROLES,
    BUILTIN_SCHEMAS,
    DEFAULT_CLUSTER,
    DEFAULT_DATABASE,
    DEFAULT_ROLE,
    MZ_SYSTEM_ROLE_ID,
    PUBLIC_ROLE_ID,
)
from sparkwire.catalog.objects import (
    Cluster,
    Comment,
    Database,
    IgnoredNotice,
    Item,
    ObjectRef,
    Privilege,
    Role,
    RoleMembership,
    Schema,
    SystemVariable,
)
from sparkwire.catalog.ops import CreateCluster, CreateDatabase, CreateRole, GrantPrivileges, Op
from sparkwire.catalog.state import CatalogState, Counters
from sparkwire.catalog.store import Store
from sparkwire.catalog.timeline import Reservation, Timeline, wall_clock_ms
from sparkwire.catalog.wording import AlreadyExists
from sparkwire.errors import ObjectNotInPrerequisiteState

FORMAT_VERSION = "1"


@dataclass(frozen=True, slots=True)
class CatalogChange:
    """What listeners see: the states before and after, the ops, and the transaction's timestamp/revision."""

    old: CatalogState
    new: CatalogState
    ops: tuple[Op, ...]
    timestamp: int


class CatalogListener(Protocol):
    def prepare(self, change: CatalogChange) -> None:
        """Apply the change tentatively; raise to abort the catalog transaction."""
        ...

    def commit(self, change: CatalogChange) -> None:
        """The change is durable: make the tentative work final. Must not fail."""
        ...

    def abort(self, change: CatalogChange) -> None:
        """The transaction failed after `prepare`: undo the tentative work."""
        ...


@dataclass(frozen=True, slots=True)
class TransactResult:
    """`created`/`dropped` in op order; `skipped` lists the IF NOT EXISTS creates whose name was taken."""

    state: CatalogState
    revision: int
    timestamp: int
    created: tuple[ObjectRef, ...]
    dropped: tuple[ObjectRef, ...]
    skipped: tuple[AlreadyExists, ...]


class Catalog:
    def __init__(self, store: Store, state: CatalogState, timeline: Timeline) -> None:
        self._store = store
        self._state = state
        self._timeline = timeline
        self._lock = threading.Lock()
        self._listeners: list[CatalogListener] = []

    @classmethod
    def open(cls, data_dir: Path, *, clock: Callable[[], int] = wall_clock_ms) -> Catalog:
        store = Store.open(data_dir)
        try:
            rows, settings = store.load()
            if not settings:
                catalog = cls(store, _builtin_state(), Timeline(0, clock))
                catalog._bootstrap()
                return catalog
            if settings.get("format_version") != FORMAT_VERSION:
                found = settings.get("format_version")
                raise ObjectNotInPrerequisiteState(
                    f"catalog format {found!r} is not supported (expected {FORMAT_VERSION})"
                )
            state = _loaded_state(rows, settings)
            return cls(store, state, Timeline(int(settings["timeline_upper"]), clock))
        except BaseException:
            store.close()
            raise

    # ---- reading ------------------------------------------------------------------------------------------

    @property
    def state(self) -> CatalogState:
        return self._state

    @property
    def revision(self) -> int:
        return self._state.revision

    def read_ts(self) -> int:
        return self._timeline.read_ts()

    # ---- writing ------------------------------------------------------------------------------------------

    def add_listener(self, listener: CatalogListener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: CatalogListener) -> None:
        with self._lock:
            self._listeners.remove(listener)

    def transact(
        self, ops: Sequence[Op], *, on_commit: Callable[[TransactResult], None] | None = None
    ) -> TransactResult:
        with self._lock:
            reservation = self._timeline.reserve()
            applied = apply_ops(self._state, ops, timestamp=reservation.timestamp)
            result = self._commit(applied, tuple(ops), reservation)
            if on_commit is not None:
                on_commit(result)
            return result

    def write_ts(self) -> int:
        """A write timestamp for a non-catalog write (e.g. a table INSERT), durable when handed out."""
        with self._lock:
            reservation = self._timeline.reserve()
            if reservation.upper is not None:
                self._store.begin()
                try:
                    self._store.write((), (), {"timeline_upper": str(reservation.upper)})
                    self._store.commit()
                except BaseException:
                    self._store.rollback()
                    raise
            self._timeline.commit(reservation)
            return reservation.timestamp

    def close(self) -> None:
        with self._lock:
            self._store.close()

    # ---- internals ----------------------------------------------------------------------------------------

    def _commit(self, applied: Applied, ops: tuple[Op, ...], reservation: Reservation) -> TransactResult:
        """Durably commit `applied` (the caller holds the lock), with the listeners' two phases."""
        old = self._state
        upserts, deletes = codec.diff(old, applied.state)
        upper = reservation.upper
        if applied.advance_to >= self._timeline.upper:
            upper = max(upper or 0, applied.advance_to + 1)
        if not upserts and not deletes and not applied.advance_to:
            return _result(old, self._timeline.read_ts(), applied)
        new = applied.state.evolve(revision=old.revision + 1)
        change = CatalogChange(old, new, ops, reservation.timestamp)
        settings = {
            "format_version": FORMAT_VERSION,
            "counters": json.dumps(dataclasses.asdict(new.counters), sort_keys=True),
            "revision": str(new.revision),
            "timeline_upper": str(max(upper or 0, self._timeline.upper)),
        }
        prepared: list[CatalogListener] = []
        self._store.begin()
        try:
            self._store.write(upserts, deletes, settings)
            for listener in self._listeners:
                prepared.append(listener)
                listener.prepare(change)
            self._store.commit()
        except BaseException:
            self._store.rollback()
            for listener in reversed(prepared):
                listener.abort(change)
            raise
        self._timeline.commit(Reservation(max(reservation.timestamp, applied.advance_to), upper))
        self._state = new
        for listener in self._listeners:
            listener.commit(change)
        return _result(new, reservation.timestamp, applied)

    def _bootstrap(self) -> None:
        """Create the default role, database (with its public schema) and cluster in one durable transaction,
        with USAGE for PUBLIC on all three."""
        with self._lock:
            reservation = self._timeline.reserve()
            ops: list[Op] = [
                CreateRole(DEFAULT_ROLE, superuser=True, login=True),
                CreateDatabase(DEFAULT_DATABASE, MZ_SYSTEM_ROLE_ID),
                CreateCluster(DEFAULT_CLUSTER, MZ_SYSTEM_ROLE_ID),
            ]
            applied = apply_ops(self._state, ops, timestamp=reservation.timestamp)
            grants: list[Op] = [
                GrantPrivileges(ref, PUBLIC_ROLE_ID, MZ_SYSTEM_ROLE_ID, "U")
                for ref in applied.created
                if ref.kind != "role"
            ]
            granted = apply_ops(applied.state, grants, timestamp=reservation.timestamp)
            applied.state = granted.state
            self._commit(applied, (*ops, *grants), reservation)


def _result(state: CatalogState, timestamp: int, applied: Applied) -> TransactResult:
    return TransactResult(
        state=state,
        revision=state.revision,
        timestamp=timestamp,
        created=tuple(applied.created),
        dropped=tuple(applied.dropped),
        skipped=tuple(applied.skipped),
    )


def _builtin_state() -> CatalogState:
    return CatalogState(
        databases={},
        schemas={s.id: s for s in BUILTIN_SCHEMAS},
        roles={r.id: r for r in BUILTIN_ROLES},
        memberships={},
        clusters={},
        items={},
        privileges={(p.object, p.grantee_id, p.grantor_id): p for p in BUILTIN_PRIVILEGES},
        notices={},
        counters=Counters(),
        revision=0,
    )


def _loaded_state(rows: list[tuple[str, str]], settings: dict[str, str]) -> CatalogState:
    base = _builtin_state()
    databases: dict[str, Database] = {}
    schemas: dict[str, Schema] = dict(base.schemas)
    roles: dict[str, Role] = dict(base.roles)
    memberships: dict[tuple[str, str], RoleMembership] = {}
    clusters: dict[str, Cluster] = {}
    items: dict[str, Item] = {}
    privileges: dict[tuple[ObjectRef, str, str], Privilege] = dict(base.privileges)
    notices: dict[str, IgnoredNotice] = {}
    system_vars: dict[str, SystemVariable] = {}
    comments: dict[tuple[ObjectRef, int], Comment] = {}
    for kind, payload in rows:
        match codec.decode(kind, payload):
            case Database() as db:
                databases[db.id] = db
            case Schema() as schema:
                schemas[schema.id] = schema
            case Role() as role:
                roles[role.id] = role
            case RoleMembership() as m:
                memberships[(m.role_id, m.member_id)] = m
            case Cluster() as cluster:
                clusters[cluster.id] = cluster
            case Item() as item:
                items[item.id] = item
            case Privilege() as p:
                privileges[(p.object, p.grantee_id, p.grantor_id)] = p
            case IgnoredNotice() as notice:
                notices[notice.fingerprint] = notice
            case SystemVariable() as variable:
                system_vars[variable.name] = variable
            case Comment() as comment:
                comments[(comment.object, comment.sub_id)] = comment
    return CatalogState(
        databases=databases,
        schemas=schemas,
        roles=roles,
        memberships=memberships,
        clusters=clusters,
        items=items,
        privileges=privileges,
        notices=notices,
        counters=Counters(**json.loads(settings["counters"])),
        revision=int(settings["revision"]),
        system_vars=system_vars,
        comments=comments,
    )
