"""`PlannerService`: the process-wide entry point the server uses to create sessions.

Contract: `PlannerService(data_dir)` opens the DuckDB database under `data_dir/duckdb/` once per process and
installs the session-aware SQL functions and the introspection store (engine/introspection);
`new_session(startup, notices, parameter_status)` returns a `DuckSession` on its own engine connection (raising
3D000 `database "x" does not exist`, FATAL, for any database but `materialize`, and FATAL errors for invalid
startup settings); `close()` closes the database.
Constant SELECT results are shared by all sessions (they depend on nothing session-specific).
"""

from __future__ import annotations

from pathlib import Path

from sparkwire import errors as e
from sparkwire.catalog.builtins_pg import SettingDefinition
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.introspection import store as introspection_store
from sparkwire.planner.api import NoticeSink, ParameterStatusSink, StartupInfo
from sparkwire.planner.schema_generation import SchemaGeneration
from sparkwire.planner.session import Constants, DuckSession
from sparkwire.planner.udfs import SessionFunctions
from sparkwire.planner.variables import VARIABLES

DATABASE = "materialize"
_SETTINGS = tuple(SettingDefinition(v.name, v.default, v.description, v.settable) for v in VARIABLES)


class PlannerService:
    def __init__(self, data_dir: Path) -> None:
        self._engine = DuckDBEngine(Path(data_dir) / "duckdb" / "sparkwire.duckdb")
        self._functions = SessionFunctions()
        self._functions.install(self._engine)
        introspection_store.install(self._engine, _SETTINGS)
        self._constants: Constants = {}
        self._schema = SchemaGeneration()

    def new_session(
        self, startup: StartupInfo, notices: NoticeSink, parameter_status: ParameterStatusSink
    ) -> DuckSession:
        if startup.database != DATABASE:
            raise e.InvalidCatalogName(f'database "{startup.database}" does not exist', severity="FATAL")
        return DuckSession(
            self._engine.connect(), self._functions, self._constants, self._schema, startup, notices, parameter_status
        )

    def close(self) -> None:
        self._engine.close()
