"""`PlannerService`: the process-wide entry point the server uses to create sessions, and the owner of what they share.

Contract: `PlannerService(data_dir, spark=SparkOptions())` opens, under `data_dir`, the durable catalog (`catalog/`)
and table storage (`storage/`), reconciles them (a table the catalog has but storage lacks is created empty; storage
tables the catalog no longer has are dropped: a crash between the two commits loses nothing acknowledged), opens an
in-memory DuckDB that hosts the introspection store and the schema shadows (planner/execute/shadow.py), both
registered as catalog listeners so they change in the catalog's transaction, and starts Spark in the background (or
on first use with `SparkOptions(start="on-demand")`), unless it is handed a running `SparkEngine` to share (tests:
one Spark per process), which it then never stops. `new_session(startup, notices, parameter_status)` returns a
`DuckSession` running as the startup user's catalog role (FATAL 3D000 for a database other than `materialize`, FATAL
28000 for a role that does not exist or may not log in); `close()` stops Spark and closes everything.

Every catalog commit bumps the process-wide schema generation, so every session re-plans statements whose names,
parameter types or result fields may have changed. Constant SELECT results are shared by all sessions.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from sparkwire import errors as e
from sparkwire.api import NoticeSink, ParameterStatusSink, StartupInfo
from sparkwire.catalog import Catalog, CatalogChange
from sparkwire.catalog.relations.pg import SettingDefinition
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.introspection import store as introspection_store
from sparkwire.introspection.sessions import SessionInfo, SessionTable
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.result_cache import ResultCache, volatile_functions
from sparkwire.planner.execute.shadow import ShadowListener
from sparkwire.planner.execute.udfs import SessionFunctions
from sparkwire.planner.statements.rbac import login_role
from sparkwire.planner.statements.variables import VARIABLES
from sparkwire.planner.translate.duckdb import UDF_CURRENT_SETTING, UDF_PG_SLEEP, UDF_SET_CONFIG
from sparkwire.planner.translate.literal_templates import LiteralTemplates
from sparkwire.session.schema_generation import SchemaGeneration
from sparkwire.session.session import DuckSession
from sparkwire.storage import Storage

log = logging.getLogger(__name__)

DATABASE = "materialize"
_SETTINGS = tuple(SettingDefinition(v.name, v.default, v.description, v.settable) for v in VARIABLES)


@dataclass(frozen=True, slots=True)
class SparkOptions:
    master: str = "local[*]"
    remote: str | None = None  # Spark Connect, sc://host:port
    start: str = "background"  # "background": at server start; "on-demand": at the first query that needs it
    shuffle_partitions: int = 4


class _GenerationBump:
    """A catalog listener that invalidates every session's cached plans when the catalog changes."""

    def __init__(self, generation: SchemaGeneration) -> None:
        self._generation = generation

    def prepare(self, change: CatalogChange) -> None:
        pass

    def commit(self, change: CatalogChange) -> None:
        self._generation.bump()

    def abort(self, change: CatalogChange) -> None:
        pass


class PlannerService:
    def __init__(self, data_dir: Path, spark: SparkOptions | SparkEngine | None = None) -> None:
        data_dir = Path(data_dir)
        self._catalog = Catalog.open(data_dir)
        self._storage = Storage.open(data_dir)
        self._engine = DuckDBEngine(None)
        self._owns_spark = not isinstance(spark, SparkEngine)
        if isinstance(spark, SparkEngine):
            self._spark = spark
        else:
            options = spark or SparkOptions()
            self._spark = SparkEngine(
                data_dir / "spark",
                master=options.master,
                remote=options.remote,
                shuffle_partitions=options.shuffle_partitions,
            )
            if options.start == "background":
                self._spark.start_background()
        state = self._catalog.state
        self._functions = SessionFunctions()
        self._functions.install(self._engine)
        session_functions = (UDF_CURRENT_SETTING, UDF_SET_CONFIG, UDF_PG_SLEEP)
        volatile = volatile_functions(self._engine.volatile_functions, session_functions)
        self._results = ResultCache(lambda: self._engine.write_generation, volatile)
        self._templates = LiteralTemplates()
        self._schema = SchemaGeneration()
        listener = introspection_store.install(self._engine, _SETTINGS, state)
        self._catalog.add_listener(listener)
        self._sessions = SessionTable(self._engine)
        self._catalog.add_listener(ShadowListener(self._engine.connect(), state))
        self._catalog.add_listener(_GenerationBump(self._schema))
        self._data = DataPlane(self._catalog, self._storage, self._spark, self._engine)
        self._data.reconcile()

    @property
    def data(self) -> DataPlane:
        return self._data

    @property
    def results(self) -> ResultCache:
        return self._results

    def new_session(
        self, startup: StartupInfo, notices: NoticeSink, parameter_status: ParameterStatusSink
    ) -> DuckSession:
        if startup.database != DATABASE:
            raise e.InvalidCatalogName(f'database "{startup.database}" does not exist', severity="FATAL")
        state = self._data.state
        role = login_role(state, startup.user)  # FATAL 28000 for an unknown role or one without LOGIN
        database = state.resolve_database(DATABASE)
        info = SessionInfo(
            startup.backend_pid, role.id, role.oid, startup.user, database.name, database.oid, startup.application_name
        )
        session = DuckSession(
            role.id,
            self._engine.connect(),
            self._functions,
            self._results,
            self._templates,
            self._schema,
            startup,
            notices,
            parameter_status,
            self._data,
            on_close=lambda: self._sessions.ended(info.connection_id),
        )
        self._sessions.started(info)  # mz_internal.mz_sessions, pg_stat_activity
        return session

    def close(self) -> None:
        try:
            if self._owns_spark:
                self._spark.stop()
        except Exception:  # stopping is best effort: the process is going away
            log.exception("stopping Spark failed")
        self._sessions.close()
        self._storage.close()
        self._catalog.close()
        self._engine.close()
