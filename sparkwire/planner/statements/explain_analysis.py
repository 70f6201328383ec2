"""EXPLAIN ANALYZE: what running the query did — its rows and time, and the Spark jobs and stages it ran — as the
lines that follow the plan, or as the JSON object of EXPLAIN (ANALYZE, FORMAT JSON).

Contract:
- `spark_work(reader, tag)`: the jobs Spark ran under the statement's job tag and their stages, read from Spark's
  status store (`engine.spark_status.SparkStatusReader.tagged`, or a replica application's REST API:
  `engine.spark_status_rest.RestStatusReader.tagged`) once it has recorded every job's end (Spark's
  listener records it shortly after the result arrived: waits up to `SETTLE_SECONDS`); None without a status store
  (Spark Connect), for which EXPLAIN ANALYZE of a Spark query is refused (0A000) rather than shown without metrics.
- `Analysis(route, rows, milliseconds, jobs, stages)`: `route` is how it ran ("spark", "fast-path", "introspection",
  "constant"); `jobs`/`stages` are empty when no Spark job ran.
- `analysis_lines(analysis)` → text lines: `Actual Rows: n`, `Spark Jobs: …` with one line per job and per stage
  (tasks, input / output / shuffle records and bytes, time), `Execution Time: x ms` last, as PostgreSQL ends.
- `analysis_json(analysis)` → `{"Actual Rows", "Spark Jobs": [{…, "Stages": […]}], "Execution Time"}`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from sparkwire.engine.spark_status import Job, SparkStatus, Stage

SETTLE_SECONDS = 5.0
_POLL_SECONDS = 0.02


@dataclass(frozen=True, slots=True)
class Analysis:
    route: str
    rows: int
    milliseconds: float
    jobs: tuple[Job, ...] = ()
    stages: tuple[Stage, ...] = ()


class TaggedReader(Protocol):
    def tagged(self, tag: str) -> SparkStatus | None: ...


def spark_work(reader: TaggedReader, tag: str) -> SparkStatus | None:
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        status = reader.tagged(tag)
        if status is None:
            return None
        if all(job.status != "running" for job in status.jobs) or time.monotonic() > deadline:
            return status
        time.sleep(_POLL_SECONDS)


def _elapsed(start: int | None, end: int | None) -> int | None:
    return end - start if start is not None and end is not None else None


def _bytes(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    size = float(n)
    for unit in ("kB", "MB"):
        size /= 1024
        if size < 1024:
            return f"{size:.1f} {unit}"
    return f"{size / 1024:.1f} GB"


def _ms(value: int | None) -> str:
    return "?" if value is None else f"{value} ms"


def _job_line(job: Job) -> str:
    stages = f"{job.num_completed_stages} stages" + (
        f" ({job.num_skipped_stages} skipped)" if job.num_skipped_stages else ""
    )
    return (
        f"  Job {job.job_id} ({job.status}): {stages}, {job.num_completed_tasks} tasks, "
        f"{_ms(_elapsed(job.submitted_at, job.completed_at))}"
    )


def _stage_line(stage: Stage) -> str:
    if stage.status == "skipped":
        return f"    Stage {stage.stage_id} (skipped: an earlier job's output was reused)"
    parts = [f"{stage.num_completed_tasks} tasks"]
    if stage.input_records or stage.input_bytes:
        parts.append(f"input {stage.input_records} rows, {_bytes(stage.input_bytes)}")
    if stage.output_records or stage.output_bytes:
        parts.append(f"output {stage.output_records} rows, {_bytes(stage.output_bytes)}")
    if stage.shuffle_read_records or stage.shuffle_read_bytes:
        parts.append(f"shuffle read {stage.shuffle_read_records} rows, {_bytes(stage.shuffle_read_bytes)}")
    if stage.shuffle_write_records or stage.shuffle_write_bytes:
        parts.append(f"shuffle write {stage.shuffle_write_records} rows, {_bytes(stage.shuffle_write_bytes)}")
    parts.append(_ms(_elapsed(stage.submitted_at, stage.completed_at)))
    return f"    Stage {stage.stage_id} ({stage.status}): {', '.join(parts)}"


def _stages_of(job: Job, analysis: Analysis) -> list[Stage]:
    wanted = set(job.stage_ids)
    return [s for s in analysis.stages if s.stage_id in wanted]


def _route_line(analysis: Analysis) -> str:
    if analysis.route == "fast-path":
        return "Spark Jobs: none (answered from an index in memory)"
    if analysis.route in ("introspection", "constant"):
        return "Spark Jobs: none (answered by DuckDB)"
    if not analysis.jobs:
        return "Spark Jobs: none (the relations were read into memory without a Spark job)"
    stages = sum(job.num_completed_stages for job in analysis.jobs)
    tasks = sum(job.num_completed_tasks for job in analysis.jobs)
    return f"Spark Jobs: {len(analysis.jobs)}, stages: {stages}, tasks: {tasks}"


def analysis_lines(analysis: Analysis) -> list[str]:
    lines = [f"Actual Rows: {analysis.rows}", _route_line(analysis)]
    for job in analysis.jobs:
        lines.append(_job_line(job))
        lines.extend(_stage_line(stage) for stage in _stages_of(job, analysis))
    lines.append(f"Execution Time: {analysis.milliseconds:.3f} ms")
    return lines


def _stage_json(stage: Stage) -> dict[str, object]:
    return {
        "Stage": stage.stage_id,
        "Attempt": stage.attempt_id,
        "Status": stage.status,
        "Tasks": stage.num_completed_tasks,
        "Input Rows": stage.input_records,
        "Input Bytes": stage.input_bytes,
        "Output Rows": stage.output_records,
        "Output Bytes": stage.output_bytes,
        "Shuffle Read Rows": stage.shuffle_read_records,
        "Shuffle Read Bytes": stage.shuffle_read_bytes,
        "Shuffle Write Rows": stage.shuffle_write_records,
        "Shuffle Write Bytes": stage.shuffle_write_bytes,
        "Time": _elapsed(stage.submitted_at, stage.completed_at),
    }


def analysis_json(analysis: Analysis) -> dict[str, object]:
    jobs = [
        {
            "Job": job.job_id,
            "Status": job.status,
            "Stages": [_stage_json(stage) for stage in _stages_of(job, analysis)],
            "Skipped Stages": job.num_skipped_stages,
            "Tasks": job.num_completed_tasks,
            "Time": _elapsed(job.submitted_at, job.completed_at),
        }
        for job in analysis.jobs
    ]
    return {"Actual Rows": analysis.rows, "Spark Jobs": jobs, "Execution Time": round(analysis.milliseconds, 3)}
