"""The workload relations sparkwire fills from the side, declared like every builtin relation (no rows at install).

Contract: `WORKLOAD_RELATIONS` lists them for `introspection.relations`; `SPARK_JOBS`, `SPARK_STAGES`, … name them
for their writers (`spark_jobs`, `freshness`), which find them with `relation(name)` and build Arrow rows with
`arrow_of`. Their rows are written by those writers, never rendered from the catalog (`from_state=False`), and they
are `live`: an answer over them is never taken from the result cache.

- `mz_internal.mz_spark_jobs`, `mz_internal.mz_spark_stages` (sparkwire's own): one row per Spark job / stage attempt
  of the running SparkContext and of each replica's own application (`--cluster-applications`), the newest 1,000
  jobs of each and their stages, `application_id` the Spark application that ran it; `execution_id` is the
  statement that ran it (from the job's `sw-<n>.<execution_id>` tag; NULL for work no statement tagged:
  materialized view and index refreshes, internal jobs), `job_tag` the sparkwire tag. Readable by superusers and
  mz_monitor (privileges.py).
- `mz_internal.mz_materialization_lag`, `mz_internal.mz_hydration_statuses`, `mz_internal.mz_wallclock_global_lag`
  (Materialize's names and columns, sparkwire's values) and `mz_internal.mz_materialization_refreshes` (sparkwire's
  own: when each materialized view and index was last computed, what input write it reflects). Public, as in
  Materialize.
- `mz_internal.mz_spark_health` (sparkwire's own, public): the Spark engine's watchdog state, one row, read live
  (spark_health.py: a view over a UDF, nothing written).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from sparkwire.catalog.relations.relation import BuiltinRelation, no_rows, parse_columns
from sparkwire.introspection.tables import arrow_rows

Values = tuple[object, ...]  # a row as a writer builds it (timestamps as datetimes)

SPARK_JOBS = "mz_spark_jobs"
SPARK_STAGES = "mz_spark_stages"
MATERIALIZATION_LAG = "mz_materialization_lag"
HYDRATION_STATUSES = "mz_hydration_statuses"
WALLCLOCK_GLOBAL_LAG = "mz_wallclock_global_lag"
REFRESHES = "mz_materialization_refreshes"
SPARK_HEALTH = "mz_spark_health"

SPARK_JOB_COLUMNS = parse_columns(
    "job_id bigint, execution_id text, job_tag text, status text, pool text, num_stages integer, "
    "num_active_stages integer, num_completed_stages integer, num_skipped_stages integer, num_failed_stages integer, "
    "num_tasks integer, num_active_tasks integer, num_completed_tasks integer, num_skipped_tasks integer, "
    "num_failed_tasks integer, num_killed_tasks integer, input_records bigint, input_bytes bigint, "
    "shuffle_read_bytes bigint, shuffle_write_bytes bigint, started_at timestamp with time zone, "
    "finished_at timestamp with time zone, description text, application_id text"
)
SPARK_STAGE_COLUMNS = parse_columns(
    "stage_id bigint, attempt_id integer, job_id bigint, execution_id text, status text, pool text, name text, "
    "num_tasks integer, num_active_tasks integer, num_completed_tasks integer, num_failed_tasks integer, "
    "num_killed_tasks integer, input_records bigint, input_bytes bigint, output_records bigint, output_bytes bigint, "
    "shuffle_read_records bigint, shuffle_read_bytes bigint, shuffle_write_records bigint, "
    "shuffle_write_bytes bigint, submitted_at timestamp with time zone, started_at timestamp with time zone, "
    "finished_at timestamp with time zone, application_id text"
)
MATERIALIZATION_LAG_COLUMNS = parse_columns(
    "object_id text, local_lag interval, global_lag interval, slowest_local_input_id text, slowest_global_input_id text"
)
HYDRATION_COLUMNS = parse_columns("object_id text, replica_id text, hydrated boolean")
WALLCLOCK_LAG_COLUMNS = parse_columns("object_id text, lag interval")
REFRESH_COLUMNS = parse_columns(
    "object_id text, object_type text, hydrated boolean, up_to_date boolean, "
    "last_refreshed_at timestamp with time zone, refresh_duration interval, refreshes bigint, "
    "reflected_write_ts uint8, input_write_ts uint8"
)


SPARK_HEALTH_COLUMNS = parse_columns(
    "state text, restarts bigint, failed_statements bigint, memory_cancels bigint, last_failure text, "
    "last_failure_at timestamp with time zone, checked_at timestamp with time zone"
)


def _relation(name: str, oid: int, columns: tuple[tuple[str, str], ...]) -> BuiltinRelation:
    return BuiltinRelation("mz_internal", name, oid, columns, no_rows, from_state=False, live=True)


WORKLOAD_RELATIONS: tuple[BuiltinRelation, ...] = (
    _relation(SPARK_JOBS, 17150, SPARK_JOB_COLUMNS),
    _relation(SPARK_STAGES, 17151, SPARK_STAGE_COLUMNS),
    _relation(MATERIALIZATION_LAG, 17152, MATERIALIZATION_LAG_COLUMNS),
    _relation(HYDRATION_STATUSES, 17153, HYDRATION_COLUMNS),
    _relation(WALLCLOCK_GLOBAL_LAG, 17154, WALLCLOCK_LAG_COLUMNS),
    _relation(REFRESHES, 17155, REFRESH_COLUMNS),
    _relation(SPARK_HEALTH, 17156, SPARK_HEALTH_COLUMNS),
)


def relation(name: str) -> BuiltinRelation:
    return next(rel for rel in WORKLOAD_RELATIONS if rel.name == name)


def arrow_of(rel: BuiltinRelation, rows: Sequence[Values]) -> pa.Table:
    """`rows` as an Arrow table with the store's engine types (see `tables.arrow_rows`)."""
    schema = arrow_rows(rel, []).schema
    columns = [pa.array([row[i] for row in rows], type=field.type) for i, field in enumerate(schema)]
    return pa.Table.from_arrays(columns, schema=schema)
