"""What Spark's driver knows about its jobs and stages, read from its status store for introspection.

Contract: `SparkStatusReader(engine)` reads the live status of the engine's current SparkContext, reached through
`engine.session` at every read (its JVM handles are kept only while that is the same session, so after a restart it
reads the new one). `tagged(tag)` returns the jobs of one Spark job tag and their stages (EXPLAIN ANALYZE).
`read(known)` returns a `SparkStatus`: the jobs newer than `known.newest_job` (at most
`MAX_JOBS`), every running job, every active or pending stage, the final state of the jobs and stages the caller
last saw open (`known`), and the stages of every ended job not yet in `known.settled_jobs` (what `known` says of
another SparkContext than `known.app_id` is ignored); or None when Spark is not ready or runs as Spark Connect
(there is no SparkContext in this process, so no status to read). It never takes an engine lock and never submits a
Spark job: it asks the driver's `AppStatusStore` (what Spark's UI and REST API show, kept up to date by Spark's own
listener) and has the JVM serialize the answer to JSON with Jackson, as Spark's REST API does, so a read is a
handful of py4j calls whatever the number of jobs (answers stay small: py4j takes ~40 ms for one of tens of
kilobytes, so only new and open work is asked for). Failures raise (the caller logs them); nothing here reaches a
client (Spark's call-site `details` are not read).

Values: ids as Spark numbers them (per SparkContext: a restart starts again at 0, `app_id` tells them apart),
statuses lower-cased (jobs: running, succeeded, failed, unknown; stages: active, complete, pending, skipped, failed),
times in milliseconds since the epoch (None until known). `Job.tags` are the job's Spark job tags.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sparkwire.engine.spark import SparkEngine

MAX_JOBS = 1000
_OPEN_STAGE_STATUSES = ("ACTIVE", "PENDING")


@dataclass(frozen=True, slots=True)
class Job:
    job_id: int
    status: str
    tags: tuple[str, ...]
    description: str | None
    stage_ids: tuple[int, ...]
    num_tasks: int
    num_active_tasks: int
    num_completed_tasks: int
    num_skipped_tasks: int
    num_failed_tasks: int
    num_killed_tasks: int
    num_active_stages: int
    num_completed_stages: int
    num_skipped_stages: int
    num_failed_stages: int
    submitted_at: int | None
    completed_at: int | None


@dataclass(frozen=True, slots=True)
class Stage:
    stage_id: int
    attempt_id: int
    status: str
    name: str | None
    pool: str | None
    num_tasks: int
    num_active_tasks: int
    num_completed_tasks: int
    num_failed_tasks: int
    num_killed_tasks: int
    input_records: int
    input_bytes: int
    output_records: int
    output_bytes: int
    shuffle_read_records: int
    shuffle_read_bytes: int
    shuffle_write_records: int
    shuffle_write_bytes: int
    submitted_at: int | None
    first_task_at: int | None
    completed_at: int | None


@dataclass(frozen=True, slots=True)
class Known:
    """What the caller already holds: the newest job id it saw (-1: none), the jobs and stages it last saw open,
    and the ended jobs whose stages it has read since they ended."""

    app_id: str | None = None
    newest_job: int = -1
    open_jobs: frozenset[int] = frozenset()
    open_stages: frozenset[int] = frozenset()
    settled_jobs: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class SparkStatus:
    app_id: str
    jobs: tuple[Job, ...]
    stages: tuple[Stage, ...]


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    return int(value) if isinstance(value, int | float) else 0


def _time(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    return int(value) if isinstance(value, int | float) else None


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def job_of(data: dict[str, Any]) -> Job:
    return Job(
        job_id=_int(data, "jobId"),
        status=str(data.get("status") or "unknown").lower(),
        tags=tuple(str(tag) for tag in data.get("jobTags") or ()),
        description=_text(data, "description") or _text(data, "name"),
        stage_ids=tuple(int(s) for s in data.get("stageIds") or ()),
        num_tasks=_int(data, "numTasks"),
        num_active_tasks=_int(data, "numActiveTasks"),
        num_completed_tasks=_int(data, "numCompletedTasks"),
        num_skipped_tasks=_int(data, "numSkippedTasks"),
        num_failed_tasks=_int(data, "numFailedTasks"),
        num_killed_tasks=_int(data, "numKilledTasks"),
        num_active_stages=_int(data, "numActiveStages"),
        num_completed_stages=_int(data, "numCompletedStages"),
        num_skipped_stages=_int(data, "numSkippedStages"),
        num_failed_stages=_int(data, "numFailedStages"),
        submitted_at=_time(data, "submissionTime"),
        completed_at=_time(data, "completionTime"),
    )


def stage_of(data: dict[str, Any]) -> Stage:
    return Stage(
        stage_id=_int(data, "stageId"),
        attempt_id=_int(data, "attemptId"),
        status=str(data.get("status") or "unknown").lower(),
        name=_text(data, "name"),
        pool=_text(data, "schedulingPool"),
        num_tasks=_int(data, "numTasks"),
        num_active_tasks=_int(data, "numActiveTasks"),
        num_completed_tasks=_int(data, "numCompleteTasks"),
        num_failed_tasks=_int(data, "numFailedTasks"),
        num_killed_tasks=_int(data, "numKilledTasks"),
        input_records=_int(data, "inputRecords"),
        input_bytes=_int(data, "inputBytes"),
        output_records=_int(data, "outputRecords"),
        output_bytes=_int(data, "outputBytes"),
        shuffle_read_records=_int(data, "shuffleReadRecords"),
        shuffle_read_bytes=_int(data, "shuffleReadBytes"),
        shuffle_write_records=_int(data, "shuffleWriteRecords"),
        shuffle_write_bytes=_int(data, "shuffleWriteBytes"),
        submitted_at=_time(data, "submissionTime"),
        first_task_at=_time(data, "firstTaskLaunchedTime"),
        completed_at=_time(data, "completionTime"),
    )


class _Jvm:
    """The JVM handles of one SparkSession: its status store, a Jackson mapper, the enum lists."""

    def __init__(self, session: Any) -> None:
        context = session.sparkContext
        jvm = context._jvm
        self.store = context._jsc.sc().statusStore()
        self.tracker = context._jsc.sc().statusTracker()
        self.app_id = str(context.applicationId)
        self.mapper = jvm.com.fasterxml.jackson.databind.ObjectMapper()
        scala_module = getattr(jvm.com.fasterxml.jackson.module.scala, "DefaultScalaModule$")
        self.mapper.registerModule(getattr(scala_module, "MODULE$"))
        self.running = jvm.java.util.ArrayList()
        self.running.add(jvm.org.apache.spark.JobExecutionStatus.RUNNING)
        self.open_stages = jvm.java.util.ArrayList()
        for status in _OPEN_STAGE_STATUSES:
            self.open_stages.add(getattr(jvm.org.apache.spark.status.api.v1.StageStatus, status))
        self.no_quantiles = context._gateway.new_array(jvm.double, 0)

    def json(self, value: Any) -> Any:
        return json.loads(self.mapper.writeValueAsString(value))


class SparkStatusReader:
    def __init__(self, engine: SparkEngine) -> None:
        self._engine = engine
        self._jvm: tuple[object, _Jvm] | None = None

    def _handles(self) -> _Jvm | None:
        if not self._engine.is_ready:
            return None
        session = self._engine.session
        if getattr(session, "_jsc", None) is None:  # Spark Connect: no SparkContext here
            return None
        cached = self._jvm
        if cached is None or cached[0] is not session:
            cached = (session, _Jvm(session))
            self._jvm = cached
        return cached[1]

    def read(self, known: Known) -> SparkStatus | None:
        jvm = self._handles()
        if jvm is None:
            return None
        store = jvm.store
        if known.app_id != jvm.app_id:
            known = Known(jvm.app_id)
        listed = store.jobsList(None)  # newest first; a lazy Scala view, forced only as far as `take` goes
        newest = int(listed.head().jobId()) if listed.nonEmpty() else -1
        jobs: dict[int, Job] = {}
        if newest > known.newest_job:  # only the new jobs: small answers (a large one costs py4j ~40 ms)
            fresh = min(newest - known.newest_job, MAX_JOBS)
            jobs.update((j.job_id, j) for j in map(job_of, jvm.json(listed.take(fresh))))
        jobs.update((j.job_id, j) for j in map(job_of, jvm.json(store.jobsList(jvm.running))))
        for job_id in known.open_jobs - jobs.keys():
            try:
                jobs[job_id] = job_of(jvm.json(store.job(job_id)))
            except Exception:  # evicted from Spark's store (spark.ui.retainedJobs): its last state stays unknown
                continue
        open_stages = jvm.json(store.stageList(jvm.open_stages, False, False, jvm.no_quantiles, None))
        stages = {(s.stage_id, s.attempt_id): s for s in map(stage_of, open_stages)}
        open_ids = {stage_id for stage_id, _ in stages}
        ended = (j for j in jobs.values() if j.status != "running" and j.job_id not in known.settled_jobs)
        wanted = known.open_stages | {stage_id for job in ended for stage_id in job.stage_ids}
        for stage_id in sorted(wanted - open_ids):
            try:
                attempts = jvm.json(store.stageData(stage_id, False, None, False, jvm.no_quantiles))
            except Exception:  # never submitted (a skipped stage) or evicted (spark.ui.retainedStages)
                continue
            stages.update(((s.stage_id, s.attempt_id), s) for s in map(stage_of, attempts))
        return SparkStatus(jvm.app_id, tuple(jobs.values()), tuple(stages.values()))

    def tagged(self, tag: str) -> SparkStatus | None:
        """The jobs Spark ran under the job tag `tag` (oldest first) and their stages that were submitted; None when
        there is no status to read (as `read`)."""
        jvm = self._handles()
        if jvm is None:
            return None
        ids = sorted(int(job_id) for job_id in jvm.tracker.getJobIdsForTag(tag))
        jobs = [job_of(jvm.json(jvm.store.job(job_id))) for job_id in ids]
        stages: list[Stage] = []
        for stage_id in sorted({stage_id for job in jobs for stage_id in job.stage_ids}):
            try:
                attempts = jvm.json(jvm.store.stageData(stage_id, False, None, False, jvm.no_quantiles))
            except Exception:  # never submitted (skipped: its output was reused) or evicted
                continue
            stages.extend(map(stage_of, attempts))
        return SparkStatus(jvm.app_id, tuple(jobs), tuple(stages))
