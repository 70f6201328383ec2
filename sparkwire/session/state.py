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

from collections.abc import Callable

from sparkwire.api import NoticeSink
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.result_cache import ResultCache
from sparkwire.planner.execute.user_data import UserData
from sparkwire.planner.execute.write_txn import StorageTransaction
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
        self.ctx = ctx
        self.data = data
        self.results = results
        self.schema = schema
        self.notices = notices
        self.storage_tx = StorageTransaction(data)
        self.tx = Transactions(self.storage_tx, schema)
        self.user = UserData(data, engine, ctx, self.names, notices, enabled_by(variables.get))
        self.user.setting = variables.get  # progress_notices
        self.statements: dict[str, Prepared] = {}
        self.portals: dict[str, Portal] = {}
        self._encode: tuple[int, EncodeOptions] | None = None
        # workload introspection (activity.py): how the current statement runs, and hooks the session sets
        self.strategy: str | None = None
        self.portal_closed: Callable[[Portal], None] = _nothing

    def names(self) -> Names:
        return Names(self.ctx.database, ("public",), self.role_id)

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
