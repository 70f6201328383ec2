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

import datetime
import logging
from dataclasses import dataclass
from pathlib import Path

from sparkwire import errors as e
from sparkwire.api import BackendSignals, NoticeSink, ParameterStatusSink, StartupInfo
from sparkwire.catalog import Catalog, CatalogChange
from sparkwire.catalog.relations.pg import SettingDefinition
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.introspection import store as introspection_store
from sparkwire.introspection.history.log import HistoryLog, HistorySettings
from sparkwire.introspection.history.records import SessionRecord
from sparkwire.introspection.relations import RELATIONS
from sparkwire.introspection.sessions import SessionInfo, SessionTable
from sparkwire.introspection.workload.feeds import WorkloadFeeds
from sparkwire.planner.execute import resident
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.result_cache import ResultCache, volatile_functions
from sparkwire.planner.execute.shadow import ShadowListener
from sparkwire.planner.execute.udfs import SessionFunctions
from sparkwire.planner.security.privileges import is_superuser
from sparkwire.planner.statements.rbac import login_role
from sparkwire.planner.statements.variables import VARIABLES, duration_ms, lookup
from sparkwire.planner.translate.duckdb import UDF_CURRENT_SETTING, UDF_PG_SIGNAL, UDF_PG_SLEEP, UDF_SET_CONFIG
from sparkwire.planner.translate.literal_templates import LiteralTemplates
from sparkwire.session.activity import Workload
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
        self._engine = DuckDBEngine(None, own_files=data_dir.resolve() / "introspection")
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
        session_functions = (UDF_CURRENT_SETTING, UDF_SET_CONFIG, UDF_PG_SLEEP, UDF_PG_SIGNAL)
        live = tuple(rel.name for rel in RELATIONS if rel.live)  # answers over them are never cached
        volatile = volatile_functions(self._engine.volatile_functions, (*session_functions, *live))
        self._results = ResultCache(lambda: self._engine.write_generation, volatile)
        self._templates = LiteralTemplates()
        self._schema = SchemaGeneration()
        listener = introspection_store.install(self._engine, _SETTINGS, state)
        self._catalog.add_listener(listener)
        self._sessions = SessionTable(self._engine)
        history_file = data_dir.resolve() / "introspection" / "history.duckdb"
        self._history = HistoryLog(self._engine, history_file, self._history_settings)
        self._settings_seen: tuple[object, HistorySettings] | None = None
        self._clusters_seen: tuple[object, dict[str, str]] | None = None
        self.backends: BackendSignals | None = None  # the server's connections (cli.py sets it)
        self._catalog.add_listener(ShadowListener(self._engine.connect(), state))
        self._catalog.add_listener(_GenerationBump(self._schema))
        self._data = DataPlane(self._catalog, self._storage, self._spark, self._engine, data_dir.resolve())
        self._data.reconcile()
        data = self._data  # live Spark work and freshness, fed from the side (introspection/workload/)
        catalog_state, snapshot = (lambda: data.state), data.snapshot
        applications = data.clusters.applications.engines  # replicas' own Spark applications (their jobs' status)
        self._feeds = WorkloadFeeds(
            self._engine, self._spark, data.refreshes, catalog_state, snapshot, resident, applications
        )
        data.spark_jobs = self._feeds.spark_jobs

    @property
    def data(self) -> DataPlane:
        return self._data

    @property
    def history(self) -> HistoryLog:
        return self._history

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
        live = self._sessions.started(info)  # mz_internal.mz_sessions, pg_stat_activity
        record = SessionRecord(info.id, info.connected_at, startup.application_name, startup.user)
        peeks = (self._history.recent.answer, self._sessions.peek, self._feeds.spark_jobs.peek)
        workload = Workload(self._history, live, record, self._cluster_ids, self.signal_backend, peeks)
        try:
            session = self._open_session(role.id, startup, notices, parameter_status, info, workload)
        except BaseException:
            self._sessions.ended(info.connection_id)
            raise
        return session  # its mz_session_history row is written with its first logged statement (session/activity.py)

    def _open_session(
        self,
        role_id: str,
        startup: StartupInfo,
        notices: NoticeSink,
        parameter_status: ParameterStatusSink,
        info: SessionInfo,
        workload: Workload,
    ) -> DuckSession:
        return DuckSession(
            role_id,
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
            workload=workload,
        )

    # ---- workload introspection -------------------------------------------------------------------------------

    def _history_settings(self) -> HistorySettings:
        """The history's system settings (ALTER SYSTEM), re-read only when the catalog's values change. The catalog's
        own state: the history's writer starts (and may ask) before the data plane exists."""
        defaults = self._catalog.state.system_defaults
        seen = self._settings_seen
        if seen is not None and seen[0] is defaults:
            return seen[1]
        rate = defaults.get("statement_logging_max_sample_rate", lookup("statement_logging_max_sample_rate").default)
        retention = defaults.get("statement_logging_retention", lookup("statement_logging_retention").default)
        rate_limit, credit = (
            defaults.get(name, lookup(name).default)
            for name in ("statement_logging_target_data_rate", "statement_logging_max_data_credit")
        )
        settings = HistorySettings(
            float(rate),
            datetime.timedelta(milliseconds=duration_ms(retention)),
            int(rate_limit) if rate_limit else None,
            int(credit) if credit else None,
        )
        self._settings_seen = (defaults, settings)
        return settings

    def _cluster_ids(self) -> dict[str, str]:
        clusters = self._catalog.state.clusters
        seen = self._clusters_seen
        if seen is None or seen[0] is not clusters:
            seen = self._clusters_seen = (clusters, {c.name: c.id for c in clusters.values()})
        return seen[1]

    def signal_backend(self, role_id: str, pid: int, terminate: bool) -> bool | None:
        """pg_cancel_backend / pg_terminate_backend with PostgreSQL's privilege rules: a superuser signals anyone;
        another role only backends of roles it is a member of, never a superuser's (42501); None for a pid that is
        no connected session (the caller warns, as PostgreSQL does)."""
        target = self._sessions.pids().get(pid)
        if target is None or self.backends is None:
            return None
        state = self._data.state
        if not is_superuser(state, role_id):
            if is_superuser(state, target):
                what = "terminate superuser process" if terminate else "cancel superuser query"
                raise e.InsufficientPrivilege(f"must be a superuser to {what}")
            if target not in state.effective_roles(role_id):
                what = "process is being terminated" if terminate else "query is being canceled"
                raise e.InsufficientPrivilege(
                    f"must be a member of the role whose {what} or member of pg_signal_backend"
                )
        return self.backends.signal(pid, terminate)

    def flush_history(self) -> None:
        """Write the statement history now (tests, benchmarks; the writer does it every 250 ms anyway)."""
        self._history.flush()

    def close(self) -> None:
        self._feeds.close()
        try:
            if self._owns_spark:
                self._spark.stop()
        except Exception:  # stopping is best effort: the process is going away
            log.exception("stopping Spark failed")
        self._history.close()
        self._sessions.close()
        self._data.close()  # source ingestion (its threads commit to storage)
        self._storage.close()
        self._catalog.close()
        self._engine.close()
