"""What a cluster replica's own Spark application knows about its jobs and stages, read from its Spark UI's REST API.

An application (`--cluster-applications`, spark_application.py) is a Spark Connect server in a JVM of its own: no
SparkContext in this process to ask, as `spark_status.SparkStatusReader` asks the embedded one. Its UI's REST API
(`/api/v1`, on loopback) serves the same `AppStatusStore` as JSON, so this reader returns the same `SparkStatus`
for the same `Known`, over HTTP, and the live Spark work relations show an application's jobs like the main
engine's (introspection/workload/spark_jobs.py).

Contract: `RestStatusReader(engine)` reads `engine.status_url` at every read (None: the application does not run, or
the engine is not an application's: `read` returns None; so does a UI there whose application is not
`engine.application_name`). `read(known)`: the jobs newer than `known.newest_job`
(the first read lists the jobs Spark retains, at most `MAX_JOBS`; later ones ask for the next job ids one by one
until one is unknown, at most `MAX_NEW` a read), every running job, the jobs `known` saw open, every active or
pending stage, and the stages of every ended job not yet in `known.settled_jobs` (with no new job and nothing
open in `known`, nothing else is asked: an idle read is one request). Each job's tags are completed by
`engine.operations` with its statement's tag (Spark Connect leaves session tags off jobs: spark_operations.py).
`tagged(tag)`: the jobs of one statement tag and their stages (EXPLAIN ANALYZE). Times are the
API's (`2026-11-27T01:44:37.122GMT`) in milliseconds since the epoch. One HTTP/1.1 connection is
kept and reopened after a failure; failures raise (the feed logs them and tries again). Not thread-safe: one
thread reads one reader (the feed its own, EXPLAIN ANALYZE a new one).
"""

from __future__ import annotations

import datetime
import http.client
import json
import re
from typing import Any
from urllib.parse import urlsplit

from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_status import MAX_JOBS, Job, Known, SparkStatus, Stage, job_of, stage_of

MAX_NEW = 200
TIMEOUT_SECONDS = 2.0
_TIMES = ("submissionTime", "completionTime", "firstTaskLaunchedTime")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MILLISECOND = datetime.timedelta(milliseconds=1)
_API_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}GMT\Z")


class _NotFound(Exception):
    pass


def _epoch_ms(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the API's time strings as milliseconds since the epoch (what `job_of` / `stage_of` read)."""
    for key in _TIMES:
        value = data.get(key)
        if isinstance(value, str) and _API_TIME.match(value):
            moment = datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fGMT").replace(tzinfo=datetime.UTC)
            data[key] = (moment - _EPOCH) // _MILLISECOND  # exact: a float's `timestamp() * 1000` can lose one
    return data


class RestStatusReader:
    def __init__(self, engine: SparkEngine) -> None:
        self._engine = engine
        self._base: str | None = None
        self._http: http.client.HTTPConnection | None = None
        self._app: str | None = None

    def _get(self, path: str) -> Any:
        assert self._base is not None
        if self._http is None:
            address = urlsplit(self._base)
            self._http = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port,
                                                    timeout=TIMEOUT_SECONDS)
        try:
            self._http.request("GET", "/api/v1" + path)
            response = self._http.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            self._close()
            raise
        if response.status == 404:
            raise _NotFound(path)
        if response.status != 200:
            raise http.client.HTTPException(f"GET {path}: HTTP {response.status}")
        return json.loads(body)

    def _close(self) -> None:
        if self._http is not None:
            self._http.close()
        self._http = None

    def _application(self) -> str | None:
        base = self._engine.status_url
        if base != self._base:  # another launch (a restart): another port, another application id
            self._close()
            self._base, self._app = base, None
        if base is None:
            return None
        if self._app is None:  # the application of that name (another's UI, should the port have been taken: none)
            named = [app for app in self._get("/applications") if app.get("name") == self._engine.application_name]
            self._app = str(named[0]["id"]) if named else None
        return self._app

    def _job(self, data: dict[str, Any]) -> Job:
        data = _epoch_ms(data)
        data["jobTags"] = list(self._engine.operations.job_tags([str(t) for t in data.get("jobTags") or ()]))
        return job_of(data)

    def read(self, known: Known) -> SparkStatus | None:
        app = self._application()
        if app is None:
            return None
        root = f"/applications/{app}"
        if known.app_id != app:
            known = Known(app)
        jobs: dict[int, Job] = {}
        if known.newest_job < 0:
            jobs.update((j.job_id, j) for j in map(self._job, self._get(f"{root}/jobs")[:MAX_JOBS]))
        else:
            for job_id in range(known.newest_job + 1, known.newest_job + 1 + MAX_NEW):
                try:
                    jobs[job_id] = self._job(self._get(f"{root}/jobs/{job_id}"))
                except _NotFound:
                    break
        if not jobs and not known.open_jobs and not known.open_stages:
            return SparkStatus(app, (), ())  # no new job, none open: nothing can run (an idle read: one request)
        jobs.update((j.job_id, j) for j in map(self._job, self._get(f"{root}/jobs?status=running")))
        for job_id in known.open_jobs - jobs.keys():
            try:
                jobs[job_id] = self._job(self._get(f"{root}/jobs/{job_id}"))
            except _NotFound:  # evicted from Spark's store: its last state stays unknown
                continue
        listed = self._get(f"{root}/stages?status=active&status=pending&details=false")
        stages: dict[tuple[int, int], Stage] = {}
        stages.update(((s.stage_id, s.attempt_id), s) for s in (stage_of(_epoch_ms(d)) for d in listed))
        open_ids = {stage_id for stage_id, _ in stages}
        ended = (j for j in jobs.values() if j.status != "running" and j.job_id not in known.settled_jobs)
        wanted = known.open_stages | {stage_id for job in ended for stage_id in job.stage_ids}
        for stage_id in sorted(wanted - open_ids):
            try:
                attempts = self._get(f"{root}/stages/{stage_id}?details=false")
            except _NotFound:  # never submitted (a skipped stage) or evicted
                continue
            stages.update(((s.stage_id, s.attempt_id), s) for s in (stage_of(_epoch_ms(d)) for d in attempts))
        return SparkStatus(app, tuple(jobs.values()), tuple(stages.values()))

    def tagged(self, tag: str) -> SparkStatus | None:
        """The jobs the application ran under the statement tag `tag` (oldest first) and their submitted stages
        (EXPLAIN ANALYZE; as `SparkStatusReader.tagged`); None when it does not run."""
        app = self._application()
        if app is None:
            return None
        root = f"/applications/{app}"
        jobs = sorted((j for j in map(self._job, self._get(f"{root}/jobs")) if tag in j.tags), key=lambda j: j.job_id)
        stages: list[Stage] = []
        for stage_id in sorted({stage_id for job in jobs for stage_id in job.stage_ids}):
            try:
                attempts = self._get(f"{root}/stages/{stage_id}?details=false")
            except _NotFound:  # never submitted (skipped: its output was reused) or evicted
                continue
            stages.extend(stage_of(_epoch_ms(data)) for data in attempts)
        return SparkStatus(app, tuple(jobs), tuple(stages))
