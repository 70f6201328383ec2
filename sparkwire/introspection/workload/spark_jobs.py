"""The live Spark work relations, mz_internal.mz_spark_jobs and mz_internal.mz_spark_stages, fed from the side.

Contract: `SparkJobsFeed(engine, read, applications=...)` (after `store.install`) owns a DuckDB connection and, once
`start()`ed, a daemon thread that polls `read(known)` (an `engine.spark_status.SparkStatusReader.read`: the embedded
SparkContext's own status store, never a Spark job) and, with `--cluster-applications`, each replica application's
Spark UI REST API (`applications()`: pool name → that replica's engine, read by an
`engine.spark_status_rest.RestStatusReader` made per engine) every `BUSY_SECONDS` (`IDLE_SECONDS` when no
Spark has work open; an idle poll costs ~1 ms) and writes what changed into the two relations: one DuckDB
transaction per poll that changed something (deletes and inserts of the changed rows only), nothing otherwise.
Each source keeps its newest `KEEP_JOBS` jobs (older finished ones and their stages leave the relations); when a
source's application changes (a restart: Spark numbers jobs anew) its rows start afresh, and a replica that went
away takes its rows with it. A reader returning None (Spark not started, or `--spark-remote`, which has no status
here) leaves that source's rows as they are. A failure is logged and the next poll tries again; nothing here raises
into a statement, and the feed holds no lock a statement takes (its own lock guards its bookkeeping against
`progress`). `close()` stops the thread and closes the connection.

`peek(tree)` (introspection/peeks.py) answers `SELECT <*, plain or aliased columns> FROM mz_internal.mz_spark_jobs`
or `mz_spark_stages` (schema-qualified, no other clause) from the rows the last poll committed, held as Arrow
tables in the store's export types (rebuilt after each commit, on the feed's thread), without the store.

`progress(statement)` is what a statement's jobs have done so far (`Progress`), from the last poll, for the
progress notices: the jobs tagged `statement` or whose execution id is `statement`; None before any was seen.

Values: `application_id` is the Spark application that ran the job (ids are numbered per application: a row's key
is (application_id, job_id), or (application_id, stage_id, attempt_id)). A job's `execution_id` and `job_tag` come
from its sparkwire tag: `sw-<n>.<execution_id>` (a statement's query; `sw-<n>` without an execution id) or
`sparkwire-internal-<n>[.<execution_id>]` (a materialized view or index computation, with the id of the statement
that needed it, if any); a job without one shows NULL for both. A job's input and shuffle figures are the sums over
its stages; its pool is the scheduler pool of a stage that ran (Spark lists skipped stages of adaptive plans in
`default`), else its first stage's; an application's jobs and stages show its replica's pool name (its application
has the one pool). A stage belongs to the first job that lists it (later jobs list it again as skipped).
"""

from __future__ import annotations

import datetime
import logging
import re
import threading
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

import pyarrow as pa
from sqlglot import exp

from sparkwire.engine.base import Column
from sparkwire.engine.duckdb import DuckDBConnection, DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_status import Job, Known, SparkStatus, Stage
from sparkwire.engine.spark_status_rest import RestStatusReader
from sparkwire.introspection.peeks import Answer, plain_select, remembered, select
from sparkwire.introspection.tables import column_sqls, table_sql
from sparkwire.introspection.workload.relations import SPARK_JOBS, SPARK_STAGES, Values, arrow_of, relation

log = logging.getLogger(__name__)

BUSY_SECONDS = 0.5
IDLE_SECONDS = 0.5
ERROR_SECONDS = 2.0
KEEP_JOBS = 1000
_JOBS_REL = relation(SPARK_JOBS)
_STAGES_REL = relation(SPARK_STAGES)
_SPARKWIRE_TAG = re.compile(r"(?:sw|sparkwire-internal)-\d+(?:\.(?P<execution>.+))?\Z")

Read = Callable[[Known], SparkStatus | None]
StageKey = tuple[int, int]
JobRowKey = tuple[str, int]  # (application_id, job_id)
StageRowKey = tuple[str, int, int]  # (application_id, stage_id, attempt_id)
MAIN = ""  # the main engine's source key (an application's is its replica's pool)
# the committed rows of each relation as Arrow tables, and the answers given from them (by relation and output)
_Held = tuple[dict[tuple[str, str], pa.Table], dict[Hashable, Answer]]


@dataclass(frozen=True, slots=True)
class Progress:
    """A statement's Spark work so far: stages and tasks done of those its jobs have planned (skipped ones left
    out). Adaptive execution may start more jobs as it goes, so totals can grow."""

    stages_done: int
    stages_total: int
    tasks_done: int
    tasks_total: int
    running: bool

    @property
    def percent(self) -> int:
        return 0 if self.tasks_total <= 0 else min(100, self.tasks_done * 100 // self.tasks_total)

    def message(self) -> str:
        stage = min(self.stages_done + 1, self.stages_total) if self.stages_total else 0
        return (
            f"progress: {self.percent}% (stage {stage} of {self.stages_total}, "
            f"{self.tasks_done}/{self.tasks_total} tasks)"
        )


def tag_of(job: Job) -> tuple[str | None, str | None]:
    """(job_tag, execution_id) of a job: its sparkwire tag and the statement it names."""
    for tag in job.tags:
        match = _SPARKWIRE_TAG.match(tag)
        if match:
            return tag, match.group("execution")
    return None, None


def _time(ms: int | None) -> datetime.datetime | None:
    return None if ms is None else datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


@dataclass
class _Source:
    """What the feed knows of one Spark application: its jobs and stages as last read."""

    read: Read
    pool: str | None  # an application's replica pool (its rows show it); None: the main engine (Spark's pools)
    app: str | None = None
    jobs: dict[int, Job] = field(default_factory=dict)
    stages: dict[StageKey, Stage] = field(default_factory=dict)
    settled: set[int] = field(default_factory=set)
    owners: dict[int, int] = field(default_factory=dict)  # stage id -> the first job that lists it
    attempts: dict[int, set[int]] = field(default_factory=dict)  # stage id -> its attempts
    engine: SparkEngine | None = None  # an application's engine (a new engine, a new reader)

    def known(self) -> Known:
        return Known(
            app_id=self.app,
            newest_job=max(self.jobs, default=-1),
            open_jobs=frozenset(j.job_id for j in self.jobs.values() if j.status == "running"),
            open_stages=frozenset(k[0] for k, s in self.stages.items() if s.status in ("active", "pending")),
            settled_jobs=frozenset(self.settled),
        )

    def adopt(self, status: SparkStatus, keep: int) -> tuple[set[int], set[StageKey]]:
        """Take in a read; the jobs and stages whose rows may have changed."""
        if status.app_id != self.app:
            self.app = status.app_id
            for bookkeeping in (self.jobs, self.stages, self.owners, self.attempts):
                bookkeeping.clear()
            self.settled.clear()
        for job in status.jobs:
            self.jobs[job.job_id] = job
            for stage_id in job.stage_ids:
                if self.owners.get(stage_id, job.job_id) >= job.job_id:
                    self.owners[stage_id] = job.job_id
        for stage in status.stages:
            self.stages[(stage.stage_id, stage.attempt_id)] = stage
            self.attempts.setdefault(stage.stage_id, set()).add(stage.attempt_id)
        self.settled.update(job.job_id for job in status.jobs if job.status != "running")
        self._forget_old_jobs(keep)
        changed_jobs = {job.job_id for job in status.jobs if job.job_id in self.jobs}  # not forgotten
        touched_jobs = changed_jobs | {self.owners.get(s.stage_id, -1) for s in status.stages}
        touched_stages = {(s.stage_id, s.attempt_id) for s in status.stages} | {
            (stage_id, attempt) for job_id in changed_jobs for stage_id in self.jobs[job_id].stage_ids
            for attempt in self.attempts.get(stage_id, ())
        }  # fmt: skip
        return {i for i in touched_jobs if i in self.jobs}, {k for k in touched_stages if k in self.stages}

    def _forget_old_jobs(self, keep: int) -> None:
        if len(self.jobs) <= keep:
            return
        ended = sorted(job_id for job_id, job in self.jobs.items() if job.status != "running")
        for job_id in ended[: len(self.jobs) - keep]:
            del self.jobs[job_id]
            self.settled.discard(job_id)
        self.owners = {}
        for job_id in sorted(self.jobs, reverse=True):
            self.owners.update((stage_id, job_id) for stage_id in self.jobs[job_id].stage_ids)
        for key in [key for key in self.stages if key[0] not in self.owners]:
            del self.stages[key]
            self.attempts.pop(key[0], None)

    def keys(self) -> tuple[set[JobRowKey], set[StageRowKey]]:
        app = self.app or ""
        return {(app, j) for j in self.jobs}, {(app, *k) for k in self.stages}

    def _stages_of(self, job: Job) -> list[Stage]:
        """The attempts of the stages `job` owns."""
        return [
            self.stages[(stage_id, attempt)]
            for stage_id in job.stage_ids
            if self.owners.get(stage_id) == job.job_id
            for attempt in sorted(self.attempts.get(stage_id, ()))
        ]

    def stage_row(self, stage: Stage) -> Values:
        job = self.jobs.get(self.owners.get(stage.stage_id, -1))
        execution = tag_of(job)[1] if job is not None else None
        return (
            stage.stage_id, stage.attempt_id, None if job is None else job.job_id, execution, stage.status,
            self.pool or stage.pool, stage.name, stage.num_tasks, stage.num_active_tasks, stage.num_completed_tasks,
            stage.num_failed_tasks, stage.num_killed_tasks, stage.input_records, stage.input_bytes,
            stage.output_records, stage.output_bytes, stage.shuffle_read_records, stage.shuffle_read_bytes,
            stage.shuffle_write_records, stage.shuffle_write_bytes, _time(stage.submitted_at),
            _time(stage.first_task_at), _time(stage.completed_at), self.app,
        )  # fmt: skip

    def job_row(self, job: Job) -> Values:
        tag, execution = tag_of(job)
        stages = self._stages_of(job)
        # the pool of a stage that ran (complete, then active): Spark lists skipped and not-yet-submitted stages of
        # adaptive plans in the `default` pool, whatever pool the job was submitted to
        ran = [s for s in stages if s.status in ("complete", "active") and s.pool]
        pool = self.pool or next((s.pool for s in sorted(ran, key=lambda s: s.status != "complete")), None)
        if pool is None:
            first = min(job.stage_ids, default=-1)
            pool = next((s.pool for s in stages if s.stage_id == first), None) or next((s.pool for s in stages), None)
        return (
            job.job_id, execution, tag, job.status, pool, len(job.stage_ids), job.num_active_stages,
            job.num_completed_stages, job.num_skipped_stages, job.num_failed_stages, job.num_tasks,
            job.num_active_tasks, job.num_completed_tasks, job.num_skipped_tasks, job.num_failed_tasks,
            job.num_killed_tasks, sum(s.input_records for s in stages), sum(s.input_bytes for s in stages),
            sum(s.shuffle_read_bytes for s in stages), sum(s.shuffle_write_bytes for s in stages),
            _time(job.submitted_at), _time(job.completed_at), job.description, self.app,
        )  # fmt: skip


class SparkJobsFeed:
    def __init__(
        self,
        engine: DuckDBEngine,
        read: Read,
        *,
        keep_jobs: int = KEEP_JOBS,
        applications: Callable[[], Mapping[str, SparkEngine]] = dict,
    ) -> None:
        self._con: DuckDBConnection = engine.connect(counts_writes=False)  # live relations: never cached
        self._keep = keep_jobs
        self._applications = applications
        self._lock = threading.Lock()  # the bookkeeping below, between the poller and `progress`
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sources: dict[str, _Source] = {MAIN: _Source(read, None)}
        self._written_jobs: dict[JobRowKey, Values] = {}
        self._written_stages: dict[StageRowKey, Values] = {}
        self._last_error: str | None = None
        self._exported: dict[tuple[str, str], tuple[list[Column], pa.Schema]] = {}
        for rel in (_JOBS_REL, _STAGES_REL):
            self._exported[(rel.schema, rel.name)] = self._con.describe_arrow(f"SELECT * FROM {table_sql(rel)}")
        self._names = {key: tuple(c.name for c in columns) for key, (columns, _) in self._exported.items()}
        self._held: _Held = self._tables()

    # ---- the thread ---------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="spark-jobs-feed", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._con.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self.poll()
                self._last_error = None
                wait = BUSY_SECONDS if busy else IDLE_SECONDS
            except Exception as exc:  # logged, never raised: the next poll tries again
                message = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
                if message != self._last_error:
                    log.warning("reading Spark's job status failed: %s", message[:300])
                    log.debug("reading Spark's job status failed", exc_info=True)
                self._last_error = message
                wait = ERROR_SECONDS
            self._stop.wait(wait)

    # ---- one poll -----------------------------------------------------------------------------------------

    def _sync_sources(self) -> list[_Source]:
        """The sources to read now: the main engine's and one per replica application (new engine, new source)."""
        applications = self._applications()
        with self._lock:
            for pool in [p for p in self._sources if p != MAIN and p not in applications]:
                del self._sources[pool]
            for pool, app_engine in applications.items():
                known = self._sources.get(pool)
                if known is None or known.engine is not app_engine:
                    self._sources[pool] = _Source(RestStatusReader(app_engine).read, pool, engine=app_engine)
            return list(self._sources.values())

    def poll(self) -> bool:
        """Read each source's status once and write what changed; True while some Spark has work open."""
        job_rows: dict[JobRowKey, Values] = {}
        stage_rows: dict[StageRowKey, Values] = {}
        failure: Exception | None = None
        for source in self._sync_sources():
            try:
                status = source.read(source.known())
            except Exception as exc:  # the others are still read; this one is logged by the thread
                failure = exc
                continue
            if status is None or (status.app_id == source.app and not status.jobs and not status.stages):
                continue  # nothing new and nothing open
            with self._lock:
                jobs, stages = source.adopt(status, self._keep)
                job_rows.update(((status.app_id, i), source.job_row(source.jobs[i])) for i in jobs)
                stage_rows.update(((status.app_id, *k), source.stage_row(source.stages[k])) for k in stages)
        with self._lock:
            sources = list(self._sources.values())
            alive_jobs: set[JobRowKey] = set()
            alive_stages: set[StageRowKey] = set()
            for source in sources:
                jobs_of, stages_of = source.keys()
                alive_jobs |= jobs_of
                alive_stages |= stages_of
            busy = any(job.status == "running" for source in sources for job in source.jobs.values())
        gone_jobs = [k for k in self._written_jobs if k not in alive_jobs]
        gone_stages = [k for k in self._written_stages if k not in alive_stages]
        self._write(job_rows, stage_rows, gone_jobs, gone_stages)
        if failure is not None:
            raise failure
        return busy

    def _write(
        self,
        job_rows: dict[JobRowKey, Values],
        stage_rows: dict[StageRowKey, Values],
        gone_jobs: list[JobRowKey],
        gone_stages: list[StageRowKey],
    ) -> None:
        """Replace the rows that changed and delete those that are gone, in one DuckDB transaction."""
        jobs = {k: row for k, row in job_rows.items() if self._written_jobs.get(k) != row}
        stages = {k: row for k, row in stage_rows.items() if self._written_stages.get(k) != row}
        stale_jobs = [*gone_jobs, *(k for k in jobs if k in self._written_jobs)]
        stale_stages = [*gone_stages, *(k for k in stages if k in self._written_stages)]
        if not (jobs or stages or stale_jobs or stale_stages):
            return
        con = self._con
        con.begin()
        try:
            if stale_jobs:
                con.command(
                    f"DELETE FROM {table_sql(_JOBS_REL)} WHERE list_contains(?, application_id || ':' || job_id)",
                    ([f"{app}:{job}" for app, job in stale_jobs],),
                )
            if stale_stages:
                con.command(
                    f"DELETE FROM {table_sql(_STAGES_REL)} "
                    "WHERE list_contains(?, application_id || ':' || stage_id || ':' || attempt_id)",
                    ([f"{app}:{stage}:{attempt}" for app, stage, attempt in stale_stages],),
                )
            if jobs:
                con.insert_arrow(table_sql(_JOBS_REL), column_sqls(_JOBS_REL), arrow_of(_JOBS_REL, list(jobs.values())))
            if stages:
                rows = arrow_of(_STAGES_REL, list(stages.values()))
                con.insert_arrow(table_sql(_STAGES_REL), column_sqls(_STAGES_REL), rows)
            con.commit()
        except BaseException:
            con.rollback()
            raise
        for job_key in gone_jobs:
            self._written_jobs.pop(job_key, None)
        for stage_key in gone_stages:
            self._written_stages.pop(stage_key, None)
        self._written_jobs.update(jobs)
        self._written_stages.update(stages)
        self._held = self._tables()

    def _tables(self) -> _Held:
        """The rows as committed, as the store exports them (and no answer given from them yet)."""
        tables = {}
        for rel, rows in ((_JOBS_REL, self._written_jobs), (_STAGES_REL, self._written_stages)):
            key = (rel.schema, rel.name)
            tables[key] = arrow_of(rel, list(rows.values())).cast(self._exported[key][1])
        return tables, {}

    def peek(self, tree: exp.Expr) -> Answer | None:
        found = plain_select(tree, self._names)
        if found is None:
            return None
        (schema, relation), output = found
        tables, answers = self._held
        table, columns = tables[(schema, relation)], self._exported[(schema, relation)][0]
        return remembered(answers, (schema, relation, output), lambda: select(table, columns, output))

    # ---- progress -----------------------------------------------------------------------------------------

    def progress(self, statement: str) -> Progress | None:
        with self._lock:
            jobs = [
                job for source in self._sources.values() for job in source.jobs.values()
                if statement in job.tags or tag_of(job)[1] == statement
            ]  # fmt: skip
        if not jobs:
            return None
        return Progress(
            stages_done=sum(j.num_completed_stages for j in jobs),
            stages_total=sum(len(j.stage_ids) - j.num_skipped_stages for j in jobs),
            tasks_done=sum(j.num_completed_tasks for j in jobs),
            tasks_total=sum(j.num_tasks - j.num_skipped_tasks for j in jobs),
            running=any(j.status == "running" for j in jobs),
        )
