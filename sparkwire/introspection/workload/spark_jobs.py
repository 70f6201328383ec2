"""The live Spark work relations, mz_internal.mz_spark_jobs and mz_internal.mz_spark_stages, fed from the side.

Contract: `SparkJobsFeed(engine, read)` (after `store.install`) owns a DuckDB connection and, once `start()`ed, a
daemon thread that polls `read(known)` (an `engine.spark_status.SparkStatusReader.read`: Spark's own status store,
never a Spark job) every `BUSY_SECONDS` (`IDLE_SECONDS` when Spark has no work open; an idle poll costs ~1 ms) and
writes what changed into the two relations: one DuckDB transaction per poll that changed something (deletes and
inserts of the changed rows only), nothing otherwise. It keeps the newest `KEEP_JOBS` jobs (older finished ones and
their stages leave the relations); when the SparkContext changes (a restart) the relations start afresh, since Spark
numbers jobs anew. `read` returning None (Spark not started, or Spark Connect, which has no SparkContext in this
process) leaves the relations as they are. A failure is logged and the next poll tries again; nothing here raises
into a statement, and the feed holds no lock a statement takes (its own lock guards its bookkeeping against
`progress`). `close()` stops the thread and closes the connection.

`progress(statement)` is what a statement's jobs have done so far (`Progress`), from the last poll, for the
progress notices: the jobs tagged `statement` or whose execution id is `statement`; None before any was seen.

Values: a job's `execution_id` and `job_tag` come from its sparkwire tag: `sw-<n>.<execution_id>` (a statement's
query; `sw-<n>` without an execution id) or `sparkwire-internal-<n>[.<execution_id>]` (a materialized view or index
computation, with the id of the statement that needed it, if any); a job without one shows NULL for both. A job's
input and shuffle figures are the sums over its stages; its pool is the scheduler pool of a stage that ran (Spark
lists skipped stages of adaptive plans in `default`), else its first stage's. A stage belongs to the first job that
lists it (later jobs list it again as skipped).
"""

from __future__ import annotations

import datetime
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from sparkwire.engine.duckdb import DuckDBConnection, DuckDBEngine
from sparkwire.engine.spark_status import Job, Known, SparkStatus, Stage
from sparkwire.introspection.tables import column_sqls, table_sql
from sparkwire.introspection.workload.relations import SPARK_JOBS, SPARK_STAGES, Values, arrow_of, relation

log = logging.getLogger(__name__)

BUSY_SECONDS = 0.5
IDLE_SECONDS = 0.5
ERROR_SECONDS = 2.0
KEEP_JOBS = 1000
_ATTEMPTS = 1 << 16  # a stage's key for DELETE: stage_id * _ATTEMPTS + attempt_id
_JOBS_REL = relation(SPARK_JOBS)
_STAGES_REL = relation(SPARK_STAGES)
_SPARKWIRE_TAG = re.compile(r"(?:sw|sparkwire-internal)-\d+(?:\.(?P<execution>.+))?\Z")

Read = Callable[[Known], SparkStatus | None]
StageKey = tuple[int, int]


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


class SparkJobsFeed:
    def __init__(self, engine: DuckDBEngine, read: Read, *, keep_jobs: int = KEEP_JOBS) -> None:
        self._con: DuckDBConnection = engine.connect(counts_writes=False)  # live relations: never cached
        self._read = read
        self._keep = keep_jobs
        self._lock = threading.Lock()  # the bookkeeping below, between the poller and `progress`
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._app: str | None = None
        self._jobs: dict[int, Job] = {}
        self._stages: dict[StageKey, Stage] = {}
        self._settled: set[int] = set()
        self._owners: dict[int, int] = {}  # stage id -> the first job that lists it
        self._attempts: dict[int, set[int]] = {}  # stage id -> its attempts
        self._written_jobs: dict[int, Values] = {}
        self._written_stages: dict[StageKey, Values] = {}
        self._last_error: str | None = None

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

    def _known(self) -> Known:
        with self._lock:
            return Known(
                app_id=self._app,
                newest_job=max(self._jobs, default=-1),
                open_jobs=frozenset(j.job_id for j in self._jobs.values() if j.status == "running"),
                open_stages=frozenset(k[0] for k, s in self._stages.items() if s.status in ("active", "pending")),
                settled_jobs=frozenset(self._settled),
            )

    def poll(self) -> bool:
        """Read Spark's status once and write what changed; True while Spark has work open."""
        status = self._read(self._known())
        if status is None:
            return False
        if status.app_id == self._app and not status.jobs and not status.stages:
            return False  # nothing new and nothing open
        with self._lock:
            if status.app_id != self._app:
                self._app = status.app_id
                for bookkeeping in (self._jobs, self._stages, self._owners, self._attempts):
                    bookkeeping.clear()
                self._settled.clear()
            for job in status.jobs:
                self._jobs[job.job_id] = job
                for stage_id in job.stage_ids:
                    if self._owners.get(stage_id, job.job_id) >= job.job_id:
                        self._owners[stage_id] = job.job_id
            for stage in status.stages:
                self._stages[(stage.stage_id, stage.attempt_id)] = stage
                self._attempts.setdefault(stage.stage_id, set()).add(stage.attempt_id)
            self._settled.update(job.job_id for job in status.jobs if job.status != "running")
            self._forget_old_jobs()
            changed_jobs = {job.job_id for job in status.jobs if job.job_id in self._jobs}  # not forgotten
            touched_jobs = changed_jobs | {self._owners.get(s.stage_id, -1) for s in status.stages}
            touched_stages = {(s.stage_id, s.attempt_id) for s in status.stages} | {
                (stage_id, attempt) for job_id in changed_jobs for stage_id in self._jobs[job_id].stage_ids
                for attempt in self._attempts.get(stage_id, ())
            }  # fmt: skip
            job_rows = {i: self._job_row(self._jobs[i]) for i in touched_jobs if i in self._jobs}
            stage_rows = {k: self._stage_row(self._stages[k]) for k in touched_stages if k in self._stages}
            busy = any(job.status == "running" for job in self._jobs.values())
            gone_jobs = [k for k in self._written_jobs if k not in self._jobs]
            gone_stages = [k for k in self._written_stages if k not in self._stages]
        self._write(job_rows, stage_rows, gone_jobs, gone_stages)
        return busy

    def _forget_old_jobs(self) -> None:
        if len(self._jobs) <= self._keep:
            return
        ended = sorted(job_id for job_id, job in self._jobs.items() if job.status != "running")
        for job_id in ended[: len(self._jobs) - self._keep]:
            del self._jobs[job_id]
            self._settled.discard(job_id)
        self._owners = {}
        for job_id in sorted(self._jobs, reverse=True):
            self._owners.update((stage_id, job_id) for stage_id in self._jobs[job_id].stage_ids)
        for key in [key for key in self._stages if key[0] not in self._owners]:
            del self._stages[key]
            self._attempts.pop(key[0], None)

    def _stages_of(self, job: Job) -> list[Stage]:
        """The attempts of the stages `job` owns."""
        return [
            self._stages[(stage_id, attempt)]
            for stage_id in job.stage_ids
            if self._owners.get(stage_id) == job.job_id
            for attempt in sorted(self._attempts.get(stage_id, ()))
        ]

    def _stage_row(self, stage: Stage) -> Values:
        job = self._jobs.get(self._owners.get(stage.stage_id, -1))
        execution = tag_of(job)[1] if job is not None else None
        return (
            stage.stage_id, stage.attempt_id, None if job is None else job.job_id, execution, stage.status,
            stage.pool, stage.name, stage.num_tasks, stage.num_active_tasks, stage.num_completed_tasks,
            stage.num_failed_tasks, stage.num_killed_tasks, stage.input_records, stage.input_bytes,
            stage.output_records, stage.output_bytes, stage.shuffle_read_records, stage.shuffle_read_bytes,
            stage.shuffle_write_records, stage.shuffle_write_bytes, _time(stage.submitted_at),
            _time(stage.first_task_at), _time(stage.completed_at),
        )  # fmt: skip

    def _job_row(self, job: Job) -> Values:
        tag, execution = tag_of(job)
        stages = self._stages_of(job)
        # the pool of a stage that ran (complete, then active): Spark lists skipped and not-yet-submitted stages of
        # adaptive plans in the `default` pool, whatever pool the job was submitted to
        ran = [s for s in stages if s.status in ("complete", "active") and s.pool]
        pool = next((s.pool for s in sorted(ran, key=lambda s: s.status != "complete")), None)
        if pool is None:
            first = min(job.stage_ids, default=-1)
            pool = next((s.pool for s in stages if s.stage_id == first), None) or next((s.pool for s in stages), None)
        return (
            job.job_id, execution, tag, job.status, pool, len(job.stage_ids), job.num_active_stages,
            job.num_completed_stages, job.num_skipped_stages, job.num_failed_stages, job.num_tasks,
            job.num_active_tasks, job.num_completed_tasks, job.num_skipped_tasks, job.num_failed_tasks,
            job.num_killed_tasks, sum(s.input_records for s in stages), sum(s.input_bytes for s in stages),
            sum(s.shuffle_read_bytes for s in stages), sum(s.shuffle_write_bytes for s in stages),
            _time(job.submitted_at), _time(job.completed_at), job.description,
        )  # fmt: skip

    def _write(
        self,
        job_rows: dict[int, Values],
        stage_rows: dict[StageKey, Values],
        gone_jobs: list[int],
        gone_stages: list[StageKey],
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
                con.command(f"DELETE FROM {table_sql(_JOBS_REL)} WHERE list_contains(?, job_id)", (stale_jobs,))
            if stale_stages:
                keys = [k[0] * _ATTEMPTS + k[1] for k in stale_stages]
                con.command(
                    f"DELETE FROM {table_sql(_STAGES_REL)} WHERE list_contains(?, stage_id * {_ATTEMPTS} + attempt_id)",
                    (keys,),
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
        for k in gone_jobs:
            self._written_jobs.pop(k, None)
        for key in gone_stages:
            self._written_stages.pop(key, None)
        self._written_jobs.update(jobs)
        self._written_stages.update(stages)

    # ---- progress -----------------------------------------------------------------------------------------

    def progress(self, statement: str) -> Progress | None:
        with self._lock:
            jobs = [job for job in self._jobs.values() if statement in job.tags or tag_of(job)[1] == statement]
        if not jobs:
            return None
        return Progress(
            stages_done=sum(j.num_completed_stages for j in jobs),
            stages_total=sum(len(j.stage_ids) - j.num_skipped_stages for j in jobs),
            tasks_done=sum(j.num_completed_tasks for j in jobs),
            tasks_total=sum(j.num_tasks - j.num_skipped_tasks for j in jobs),
            running=any(j.status == "running" for j in jobs),
        )
