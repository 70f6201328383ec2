"""What one session holds, shared by the session's modules: its collaborators and its named objects.

Contract: `SessionState` is built once per connection by `session.DuckSession` and handed to every part of the
session (lifecycle, plans, dispatch, queries, transaction control, prepared statements, cursors, COPY); it owns no
behaviour beyond small lookups. It holds the role, the session variables, the engine connection and its
`SessionContext`, the data plane with the session's storage write transaction (`storage_tx`) and the transaction
state machine over it (`tx`, see transactions.py), the user-data router (`user`), the shared result cache and
schema generation, the notice sink, and the two namespaces PostgreSQL gives a session: prepared statements and
portals (Bind portals and SQL cursors share one). `names()` is the name-resolution context for this session;
`encode_options()` the wire encoding settings, rebuilt only when a variable changed; `close_portal(name)` drops a
portal and closes its row stream.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace

from sparkwire import errors as e
from sparkwire.api import NoticeSink
from sparkwire.catalog import CatalogState
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.introspection.peeks import Peek
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.bind.resolve import BUILTIN_SCHEMAS, Names
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.result_cache import ResultCache
from sparkwire.planner.execute.user_data import UserData
from sparkwire.planner.execute.write_txn import StorageTransaction
from sparkwire.planner.grammar.search_path import schemas_of
from sparkwire.planner.statements.notice_service import enabled_by
from sparkwire.planner.statements.variables import SessionVariables
from sparkwire.planner.translate.duckdb import SessionContext
from sparkwire.session.portals import Portal, Prepared
from sparkwire.session.schema_generation import SchemaGeneration
from sparkwire.session.transactions import Transactions


def _nothing(_: object) -> None:
    pass


class SessionState:
    def __init__(
        self,
        role_id: str,
        variables: SessionVariables,
        engine: DuckDBConnection,
        ctx: SessionContext,
        data: DataPlane,
        results: ResultCache,
        schema: SchemaGeneration,
        notices: NoticeSink,
    ) -> None:
        self.role_id = role_id
        self.vars = variables
        self.engine = engine
        self._base_ctx = ctx
        # (key, catalog state, variables version, context); set only once the engine connection follows it
        self._ctx: tuple[tuple[int, int, str], CatalogState, int, SessionContext] | None = None
        self._engine_ctx: SessionContext | None = None
        self._engine_path: tuple[str, ...] = ("public",)  # the engine connection's search_path (see connect)
        self.data = data
        self.results = results
        self.schema = schema
        self.notices = notices
        self.storage_tx = StorageTransaction(data)
        self.tx = Transactions(self.storage_tx, schema)
        self.user = UserData(data, engine, lambda: self.ctx, self.names, notices, enabled_by(variables.get))
        self.user.setting = variables.get  # progress_notices
        self.user.read_snapshot = self.storage_tx.snapshot  # one snapshot per transaction block
        self.user.in_block = lambda: self.storage_tx.in_block
        self.statements: dict[str, Prepared] = {}
        self.portals: dict[str, Portal] = {}
        self._encode: tuple[int, EncodeOptions] | None = None
        # workload introspection (activity.py): how the current statement runs, and hooks the session sets
        self.strategy: str | None = None
        self.portal_closed: Callable[[Portal], None] = _nothing
        self.peeks: tuple[Peek, ...] = ()  # live relations answered from memory (introspection/peeks.py)

    @property
    def ctx(self) -> SessionContext:
        """The session's facts for translation, its search path resolved against the catalog as it is now (which
        schemas exist decides current_schema()); the engine connection resolves unqualified names the same way."""
        state = self.data.state
        version = self.vars.version
        cached = self._ctx
        if cached is not None and cached[1] is state and cached[2] == version:  # the common case: nothing changed
            return cached[3]
        role = state.roles.get(self.role_id)
        key = (version, state.revision, role.name if role is not None else self._base_ctx.user)
        if cached is None or cached[0] != key:
            listed = schemas_of(self.vars.get("search_path"), key[2])
            db = state.resolve_database(self._base_ctx.database)
            existing = tuple(dict.fromkeys(n for n in listed if state.find_schema(db.id, n) is not None))
            ctx = replace(self._base_ctx, schema=existing[0] if existing else "", search_path=existing)
        else:
            ctx = cached[3]
        self.sync_engine_search_path(ctx)
        self._ctx = (key, state, version, ctx) if self._engine_ctx is ctx else None
        return ctx

    def sync_engine_search_path(self, ctx: SessionContext | None = None) -> None:
        """Point the engine connection's search_path at the session's user schemas, unless a result is still open
        on it (then at the next statement: `Lifecycle.prepare_engine` frees the connection and calls again)."""
        ctx = ctx or self.ctx
        if ctx is self._engine_ctx:
            return
        user_schemas = tuple(n for n in ctx.search_path if n not in BUILTIN_SCHEMAS)
        if user_schemas != self._engine_path:
            with contextlib.suppress(e.PgError):
                self.engine.set_search_path(user_schemas)
                self._engine_path = user_schemas
        if user_schemas == self._engine_path:
            self._engine_ctx = ctx  # the engine connection follows this context

    def names(self) -> Names:
        ctx = self.ctx
        return Names(ctx.database, ctx.search_path, self.role_id)

    def encode_options(self) -> EncodeOptions:
        cached = self._encode
        if cached is not None and cached[0] == self.vars.version:
            return cached[1]
        options = EncodeOptions(
            timezone=self.vars.get("TimeZone"),
            extra_float_digits=int(self.vars.get("extra_float_digits")),
            datestyle=self.vars.get("DateStyle"),
            intervalstyle=self.vars.get("IntervalStyle"),
            bytea_output=self.vars.get("bytea_output"),
        )
        self._encode = (self.vars.version, options)
        return options

    def close_portal(self, name: str) -> None:
        entry = self.portals.pop(name, None)
        if entry is not None and entry.source is not None:
            entry.source.close()
        if entry is not None and entry.execution is not None:
            self.portal_closed(entry)

    def close_portals(self, keep_held: bool = False) -> None:
        for name, portal in list(self.portals.items()):
            if not (keep_held and portal.hold):
                self.close_portal(name)
