"""`SparkEngine`: one warm SparkSession that runs Spark SQL and returns Arrow.

Contract (the planner's view):

    engine = SparkEngine(data_dir, sizing=SparkSizing.for_machine())  # embedded local[*] sized from the machine
                                                  # (spark_sizing); or master="spark://h:7077"; or remote="sc://h"
    engine.start_background()                     # cold start (~10 s) in a daemon thread, never in a connection path
                                                  # (warm_up=True: then a few queries of each kind, spark_warmup)
    engine.wait_ready(timeout=30) -> bool         # True once the session is up; `is_ready` polls without waiting
    engine.health() -> SparkHealth                # starting / ready / restarting / failed, restarts, last failure
    engine.add_restart_listener(fn)               # fn() after a restart, before the new session serves statements
    engine.schema(sql, params=()) -> pa.Schema    # analysis only, no Spark job (queries only)
    engine.prepare(sql, params=()) -> PreparedSpark   # analysis once: .schema, then execute_arrow(prepared, ...)
    engine.execute_arrow(sql_or_prepared, params=(), job_tag=..., timeout=None, pool=None) -> SparkArrowStream
    engine.session_for(small) -> SparkSession     # small=True: the small-input session (spark_config.SMALL_INPUT_CONF)
    engine.cancel(job_tag)                        # from any thread: the statement raises QueryCanceled (57014)
    engine.is_running(job_tag) -> bool
    engine.register_arrow(name, table)            # an Arrow table as a temporary view
    engine.stop()

A cluster replica's own application (`application=SparkApplication(...)`, made by compute/applications.py for
`--cluster-applications`): `_start` launches its Spark Connect server and connects to it through Connect's own
builder (spark_process.connect; the embedded classic session in the same process is left alone), with a
small-input session of its own; its watchdog only looks whether the server's process still runs, and a restart
stops and relaunches it. `cluster_applications` (a flag the main engine carries for compute/) asks for them.
`status_url` is its Spark UI's REST API while it runs (spark_status_rest reads its jobs there), and `operations`
(spark_operations) gives its jobs the statements' tags Spark Connect leaves off.

`schema`, `prepare` and `execute_arrow` take `small=True` for a query whose every input is a few thousand rows
held in memory: it runs in the small-input session (interpreted, one partition, one job; created on first use on the
same SparkContext, anew after a restart), whose temporary views are its own (the planner registers them there).
Embedded and `spark://` only; with Spark Connect `small` changes nothing.

`sql` is Spark SQL (see `sparkwire.planner.translate.spark`); `params` are Python values bound to its named
markers `:p1`, `:p2`, … (what the translator makes of `$1`, `$2`, …), never spliced into the text; a query with
markers can only be analysed with its values bound. Statements other than queries (DDL, SET) run
as soon as they are analysed, so `schema`/`prepare` are for queries only. A `PreparedSpark` serves one
Parse/Describe/Execute cycle (schema, then one run, analysed once). Do not keep it across statements: a second
run reuses the first run's shuffle output (Spark skips finished stages) and the file listings of the first
analysis, so it can return stale results.

Every failure is a `PgError` (see `spark_errors`); calling before the session is ready raises
ObjectNotInPrerequisiteState (55000), and a failed start is reported as InternalError with its first line.

Health (embedded and `spark://` masters, where the driver JVM is this process's child): a watchdog
(`spark_watchdog`) looks every second whether the JVM still runs and its SparkContext is not stopped, and gives a
JVM that has not answered for 20 s up as wedged. On a failure, or when a statement's call finds the JVM gone, every
statement in flight fails with SystemFailure (58000, "the Spark engine failed and is restarting: …", with a hint),
the old JVM is killed and PySpark's process-wide state reset (`spark_process.discard`), and a new session starts in
the background (retried three times, then `failed`; the next statement that needs Spark tries again). Meanwhile
`is_ready` is False, so callers wait as they do at start; catalog queries never needed Spark. Restart listeners run
before the new session is handed out (the planner forgets its temporary views).

Memory: a statement that runs out of memory fails with 53200, from Spark's own failures (`spark_errors`) or from the
watchdog's heap check: when live data (heap used after garbage collection) passes 85% of the heap, the statement that
has run longest is cancelled with 53200, one at a time (no one else while it runs and for 30 s after it, or a
statement Spark failed out of memory, ended, unless the heap reads below the mark: its tasks may still be winding
down; the heap is collected every 2 s meanwhile), before the JVM thrashes. A JVM whose heap runs out anyway exits
(`-XX:+ExitOnOutOfMemoryError`: threads that died of the error left statements waiting forever) and is restarted as
above. `health().memory_cancels` counts the statements shed.

Execution: `execute_arrow` runs the query when called (so errors surface there), collecting the result as Arrow: rows
the optimizer already computed (a filter or projection of rows held in memory) are converted on the driver without a
job (`spark_local_result`), anything else through a job (`DataFrame.toArrow()`: Spark sends Arrow batches out of
partition order and the driver reorders them, so a lazily streamed, ordered result is not available cheaply); the
returned `SparkArrowStream` then hands out record batches of at most `batch_rows` rows and satisfies
`sparkwire.api.RowStream`.

Cancellation: each statement runs on the calling thread with its jobs tagged `job_tag` (a SparkContext job tag;
Spark Connect: a session tag) and its FAIR pool set as a thread-local property (py4j pins one JVM thread per Python
thread); analysis and planning come first, untagged (they start no job), and a result the optimizer computed needs
no tag at all. `cancel(job_tag)` marks the statement and cancels the tag's jobs every 50 ms until the statement ends,
which also catches a job submitted just after the first cancel; `timeout` (seconds) does the same from a timer. A
cancelled statement raises QueryCanceled with PostgreSQL's message ("canceling statement due to user request" /
"... due to statement timeout"); one that completes before the cancel lands returns its result. Spark stops a
cancelled job at task boundaries: a running task finishes its partition, so cores free up only as fast as tasks end.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
from py4j.protocol import Py4JNetworkError  # type: ignore[import-untyped]
from pyspark.sql import DataFrame, SparkSession

from sparkwire import errors
from sparkwire.engine.spark_application import SparkApplication
from sparkwire.engine.spark_config import SPARK_NICENESS, nice_spark_launches, spark_conf
from sparkwire.engine.spark_errors import to_pg_error
from sparkwire.engine.spark_heap import HeapShedding, Running
from sparkwire.engine.spark_local_result import local_result
from sparkwire.engine.spark_operations import OperationTags
from sparkwire.engine.spark_process import (
    HeapGauge,
    connect,
    connect_query,
    discard,
    first_line,
    jvm_max_memory,
    jvm_process,
    launch,
    probe,
    silence_pyspark_loggers,
    small_input_session,
)
from sparkwire.engine.spark_results import PreparedSpark, SparkArrowStream
from sparkwire.engine.spark_sizing import SparkSizing, describe_size
from sparkwire.engine.spark_warmup import warm_up
from sparkwire.engine.spark_watchdog import SparkHealth, SparkWatchdog
from sparkwire.engine.task_threads import TaskThreads

log = logging.getLogger(__name__)

USER_CANCEL = "canceling statement due to user request"
TIMEOUT_CANCEL = "canceling statement due to statement timeout"
# Session SQL settings that also apply to a Spark Connect session (static ones belong to the server).
_CONNECT_SETTINGS = (
    "spark.sql.ansi.enabled",
    "spark.sql.session.timeZone",
    "spark.sql.shuffle.partitions",
    "spark.sql.adaptive.enabled",
    "spark.sql.variable.substitute",
)
_REINTERRUPT_SECONDS = 0.05
_RESTART_ATTEMPTS = 3  # a restart launches a new JVM up to 1 + this many times before the engine is "failed"
_RESTART_PAUSE_SECONDS = 2.0
_RESTART_HINT = "Run the statement again in a moment: Spark restarts by itself. Catalog queries keep working."


class SparkEngine(HeapShedding):
    """One SparkSession shared by every sparkwire session (see the module docstring)."""

    def __init__(
        self,
        data_dir: Path,
        *,
        master: str = "local[*]",
        remote: str | None = None,
        shuffle_partitions: int | None = None,
        batch_rows: int = 65536,
        extra_conf: dict[str, str] | None = None,
        sizing: SparkSizing | None = None,
        watchdog_interval: float = 1.0,
        wedged_after: float = 20.0,
        warm_up: bool = False,
        application: SparkApplication | None = None,
        cluster_applications: bool = False,
    ) -> None:
        self._data_dir = data_dir
        self._warm_up = warm_up
        self._master = master
        self._remote = remote
        self._application = application
        self.cluster_applications = cluster_applications  # each cluster replica its own application (compute/)
        self._connect = remote is not None or application is not None  # no SparkContext in this process
        self.operations = OperationTags()  # an application's operations → their statements' tags (status)
        sizing = sizing or SparkSizing.for_machine()
        self._sizing = sizing if shuffle_partitions is None else sizing.with_shuffle_partitions(shuffle_partitions)
        self._batch_rows = batch_rows
        self._extra_conf = dict(extra_conf or {})
        self._watchdog_interval = watchdog_interval
        self._wedged_after = wedged_after
        self._spark: SparkSession | None = None
        self._small: tuple[SparkSession, SparkSession] | None = None  # (the session it was made from, it)
        self._start_error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._running: dict[str, Running] = {}
        self._health = SparkHealth("starting")
        self._generation = 0  # bumped by every failure: a late report about an older session is ignored
        self._watchdog: SparkWatchdog | None = None
        self._closing = False
        self._restart_listeners: list[Callable[[], None]] = []
        self._settle_until = 0.0
        self._shed_seen = False
        self._last_collect = 0.0

    # ---- lifecycle ----------------------------------------------------------------------------------------

    @property
    def sizing(self) -> SparkSizing:
        return self._sizing

    @property
    def master(self) -> str:
        return self._master

    @property
    def closed(self) -> bool:
        """`stop()` was called (a dropped cluster replica's engine)."""
        return self._closing

    @property
    def status_url(self) -> str | None:
        """An application's Spark UI REST API while it runs; None for any other engine."""
        return None if self._application is None else self._application.status_url

    @property
    def application_name(self) -> str | None:
        """An application's Spark application name (`sparkwire <cluster>.<replica>`); None for any other engine."""
        return None if self._application is None else self._application.app_name

    @property
    def data_dir(self) -> Path:
        """Spark's own directory (configuration files, scratch space); compute/pools.py declares pools in it."""
        return self._data_dir

    def start_background(self) -> None:
        """Start the session in a daemon thread; idempotent. After a failed start or failed restarts it tries
        again (a later statement asks for Spark again)."""
        with self._lock:
            if self._closing or (self._thread is not None and self._health.state != "failed"):
                return
            restart = self._thread is not None
            self._health = replace(self._health, state="restarting" if restart else "starting")
            self._start_error = None
            self._thread = threading.Thread(target=self._start, args=(1 if restart else 0,), name="spark-start",
                                            daemon=True)
            self._thread.start()

    def _conf(self) -> dict[str, str]:
        conf = spark_conf(self._data_dir, shuffle_partitions=self._sizing.shuffle_partitions)
        conf.update(self._sizing.conf(local=self._master.startswith("local")))
        if self._master.startswith("local"):
            # a JVM that ran out of heap is not trustworthy (threads that died with the OutOfMemoryError leave
            # statements waiting forever): it exits instead, and the watchdog starts a new one within seconds
            conf["spark.driver.extraJavaOptions"] += " -XX:+ExitOnOutOfMemoryError"
        conf.update(self._extra_conf)
        if self._connect:
            conf = {k: v for k, v in conf.items() if k in _CONNECT_SETTINGS}
        return conf

    def _start(self, attempts: int) -> None:
        """Launch a session; `attempts` > 0 is a restart, retried that many times more with a growing pause."""
        try:
            silence_pyspark_loggers()
            if not self._connect:
                nice_spark_launches(SPARK_NICENESS)  # the JVM PySpark launches yields the CPU to the server
            for attempt in range(attempts + 1):
                try:
                    if self._application is not None:
                        self._remote = self._application.start()
                        spark = connect(self._remote, self._conf())
                        self.operations.watch(spark)
                    else:
                        spark = launch(self._master, self._remote, self._conf())
                    break
                except Exception:
                    if attempt >= attempts or self._closing:
                        raise
                    log.exception("restarting Spark failed (attempt %d); trying again", attempt + 1)
                    self._discard(None)
                    time.sleep(_RESTART_PAUSE_SECONDS * (attempt + 1))
            if not self._connect:
                log.info("Spark sized: %s; JVM max heap %s", self._sizing.describe(),
                         describe_size(jvm_max_memory(spark)))
            for listener in list(self._restart_listeners) if attempts else ():
                listener()
        except BaseException as exc:  # reported by every later call, never lost in the thread
            if self._closing:  # stopped while starting (a dropped replica's application): not a failure
                log.info("Spark start stopped: %s", first_line(exc))
            else:
                log.exception("Spark failed to start")
            with self._changed:
                self._start_error = exc
                failure = f"Spark failed to start: {first_line(exc)}"
                self._health = replace(self._health, state="failed", last_failure=failure)
                self._changed.notify_all()
            return
        with self._changed:
            self._spark = spark
            self._health = replace(self._health, state="ready", restarts=self._health.restarts + int(attempts > 0))
            self._changed.notify_all()
        if self._application is not None and not self._closing:
            self._watch(spark)
        if not self._connect and not self._closing:
            if (process := jvm_process(spark)) is not None:
                TaskThreads(process.pid).start()  # ends with its JVM
            generation = self._generation
            gauge: list[HeapGauge] = []
            self._watchdog = SparkWatchdog(
                lambda: self._check(spark, gauge),
                lambda reason: self._failed(reason, generation),
                interval=self._watchdog_interval,
                wedged_after=self._wedged_after,
            ).start()
            if self._warm_up:  # a new JVM's first queries: here, not a client's (spark_warmup)
                warm_up(self.session_for(True), spark)

    def _watch(self, spark: SparkSession) -> None:
        """An application's watchdog: its Connect server's process still runs (`_failed` restarts it)."""
        application = self._application
        assert application is not None
        generation = self._generation
        self._watchdog = SparkWatchdog(
            application.exit_reason,
            lambda reason: self._failed(reason, generation),
            interval=self._watchdog_interval,
            wedged_after=self._wedged_after,
        ).start()

    def _discard(self, spark: SparkSession | None) -> None:
        """Throw a failed session away before the next start: an application's client and Connect server (the
        classic session beside it is not touched), else the embedded JVM and PySpark's globals (spark_process)."""
        if self._application is None:
            discard(spark)
            return
        for session in (spark, self._small[1] if self._small is not None else None):
            if session is not None:
                # no ReleaseSession call: its server is dead or about to be stopped, and the client retries that
                # call for minutes while holding a process-wide lock that every new Connect session needs
                session.release_session_on_close = False  # type: ignore[attr-defined]
                try:
                    session.stop()
                except Exception:
                    log.debug("closing a Spark Connect client", exc_info=True)
        self._application.stop()

    def _failed(self, reason: str, generation: int) -> None:
        """The session of `generation` died or wedged: fail what runs on it, and start a new one."""
        with self._changed:
            if generation != self._generation or self._closing or self._health.state != "ready":
                return
            self._generation += 1
            spark, self._spark = self._spark, None
            failure = errors.SystemFailure(f"the Spark engine failed and is restarting: {reason}", hint=_RESTART_HINT)
            for running in self._running.values():
                if running.failure is None and running.reason is None:
                    running.failure = failure
            failed = sum(1 for r in self._running.values() if r.failure is failure)
            self._health = replace(
                self._health,
                state="restarting",
                last_failure=reason,
                last_failure_at=datetime.now(UTC),
                failed_statements=self._health.failed_statements + failed,
            )
            self._changed.notify_all()
            watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.stop()
        log.error("Spark failed (%s): %d statement(s) in flight fail with 58000; restarting", reason, failed)

        def restart() -> None:
            self._discard(spark)  # kills the JVM: statements blocked in it return (and fail with `failure`)
            self._start(_RESTART_ATTEMPTS)

        with self._lock:
            self._thread = threading.Thread(target=restart, name="spark-restart", daemon=True)
            self._thread.start()

    def add_restart_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every restart, before the new session serves statements (state the old JVM
        held, such as temporary views, is gone)."""
        self._restart_listeners.append(listener)

    def health(self) -> SparkHealth:
        """The engine's state, restarts and last failure (see `spark_watchdog.SparkHealth`)."""
        with self._lock:
            watchdog = self._watchdog
            health = self._health
        return replace(health, checked_at=watchdog.checked_at if watchdog is not None else None)

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait for a start or restart to finish; True if the session is usable."""
        with self._changed:
            self._changed.wait_for(lambda: self._health.state in ("ready", "failed") or self._closing, timeout)
            return self._spark is not None

    @property
    def is_ready(self) -> bool:
        return self._spark is not None

    def stop(self) -> None:
        """Stop the session (waits for a start in progress)."""
        with self._lock:
            self._closing = True
            watchdog, self._watchdog = self._watchdog, None
            thread = self._thread
        if watchdog is not None:
            watchdog.stop()
        if self._application is not None:
            self._application.abort()  # a start in progress gives up instead of being waited for
        if thread is not None:
            thread.join()
        if self._application is not None:
            self._discard(self._spark)
            self._spark = None
        if self._spark is not None:
            try:
                self._spark.stop()
            except Exception:  # its JVM is already gone (killed, or discarded by a restart): nothing left to stop
                log.debug("stopping a Spark session whose JVM is gone", exc_info=True)
            self._spark = None

    @property
    def session(self) -> SparkSession:
        """The live SparkSession, for the few callers that need it directly (tests, benchmarks)."""
        spark = self._spark
        if spark is not None:
            return spark
        error = self._start_error
        if error is not None:
            first = first_line(error)
            if self._health.restarts or self._health.last_failure_at:  # a restart, not the first start
                raise errors.SystemFailure(f"Spark failed to restart: {first}")
            raise errors.InternalError(f"Spark failed to start: {first}")
        if self._health.state == "restarting":
            raise errors.ObjectNotInPrerequisiteState(
                "the Spark engine is restarting", hint="Run the statement again in a moment."
            )
        raise errors.ObjectNotInPrerequisiteState("the Spark engine is still starting")

    def session_for(self, small: bool) -> SparkSession:
        """The session a query runs in: the small-input one for `small` (see the module docstring)."""
        spark = self.session
        if not small or (self._connect and self._application is None):
            return spark
        with self._lock:
            if self._small is None or self._small[0] is not spark:
                url = self._remote if self._application is not None else None
                self._small = (spark, small_input_session(spark, url))
                if url is not None:
                    self.operations.watch(self._small[1])
            return self._small[1]

    # ---- statements ---------------------------------------------------------------------------------------

    def _dataframe(self, sql: str, params: Sequence[object], small: bool = False) -> DataFrame:
        args = {f"p{i}": value for i, value in enumerate(params, start=1)} or None
        generation = self.generation
        try:
            if self._connect:  # analysed with the run, one round trip fewer (spark_process.connect_query)
                return connect_query(self.session_for(small), sql, args or {})
            return self.session_for(small).sql(sql, args=args)
        except errors.PgError:
            raise
        except Exception as exc:
            raise self.failure(exc, generation) from None

    def prepare(self, sql: str, params: Sequence[object] = (), small: bool = False) -> PreparedSpark:
        """Parse and analyse `sql` with `params` bound (no job runs) for one later `execute_arrow`."""
        return PreparedSpark(sql, self._dataframe(sql, params, small))

    def schema(self, sql: str, params: Sequence[object] = (), small: bool = False) -> pa.Schema:
        """The Arrow schema of a query's result, from analysis alone (no job runs)."""
        return self.prepare(sql, params, small).schema

    def execute_arrow(
        self,
        query: str | PreparedSpark,
        params: Sequence[object] = (),
        *,
        job_tag: str,
        timeout: float | None = None,
        pool: str | None = None,
        small: bool = False,
    ) -> SparkArrowStream:
        """Run `query` under `job_tag` (unique among running statements; no commas) and return its result."""
        generation = self.generation  # before the session: a late report of this statement names the old one
        spark = self.session
        running = Running()
        with self._lock:
            if job_tag in self._running:
                raise errors.InternalError(f"Spark job tag {job_tag!r} is already running")
            self._running[job_tag] = running
        timer = None
        if timeout is not None and timeout > 0:
            timer = threading.Timer(timeout, self._interrupt, (job_tag, TIMEOUT_CANCEL))
            timer.daemon = True
            timer.start()
        try:
            if running.reason is not None:
                raise errors.QueryCanceled(running.reason)
            # analysis and planning start no job; rows the optimizer already computed need none (spark_local_result)
            prepared = query if isinstance(query, PreparedSpark) else self.prepare(query, params, small)
            frame = prepared.dataframe
            table = local_result(frame)
            if table is None:
                # Spark Connect: tags are a session's, so the session that runs it (an application's small-input
                # one, or its main one) is tagged, and interrupted by `cancel`; classic: the SparkContext's
                runner = running.session = frame.sparkSession if self._connect else spark
                self._tag_thread(runner, job_tag, pool)
                try:
                    table = frame.toArrow()
                finally:
                    self._untag_thread(runner, job_tag)
        except Exception as exc:
            raise self.failure(exc, generation, running) from None
        finally:
            if timer is not None:
                timer.cancel()
            running.done.set()
            with self._lock:
                self._running.pop(job_tag, None)
        return SparkArrowStream(table, self._batch_rows)

    @property
    def generation(self) -> int:
        """Counts failovers: read it before a Spark call (before the session), for `failure` if the call fails."""
        return self._generation

    def failure(self, exc: Exception, generation: int, running: Running | None = None) -> errors.PgError:
        """What a statement's failed Spark call raises: 58000 if it found Spark gone (`_lost` looks now, even outside
        `execute_arrow`), else what the statement was marked with meanwhile (shed, cancelled), else its own error."""
        error: errors.PgError | None = None
        if running is None or (running.failure is None and running.reason is None):
            error = None if isinstance(exc, Py4JNetworkError | ConnectionError) else to_pg_error(exc)
            spark = self._spark  # the session `generation` names, unless a failover came meanwhile (then: 58000)
            if (error is None or isinstance(error, errors.InternalError | errors.OutOfMemory)) and spark is not None:
                self._lost(spark, generation)  # did Spark go down under us? then fail over now
            if isinstance(error, errors.OutOfMemory):
                self._ran_out_of_memory()
                return error  # this statement ran out of memory, whether or not Spark survived
        if running is not None and running.failure is not None:
            return running.failure
        if running is not None and running.reason is not None:
            return errors.QueryCanceled(running.reason)
        if generation != self._generation:  # Spark went down under it (this call, another statement or the watchdog)
            return errors.SystemFailure("the Spark engine failed and is restarting", hint=_RESTART_HINT)
        return error if error is not None else to_pg_error(exc)

    def _lost(self, spark: SparkSession, generation: int) -> None:
        """A statement failed without a SQL reason: if the JVM is dead or its SparkContext stopped, fail over now
        rather than at the watchdog's next look (so the statement gets 58000, not an internal error)."""
        if self._connect:
            return
        reason = probe(spark)
        if reason is not None:
            self._failed(reason, generation)

    def _tag_thread(self, spark: SparkSession, job_tag: str, pool: str | None) -> None:
        """Tag the jobs this thread starts and pick their FAIR pool. Classic Spark: SparkContext job tags,
        because session tags (`SparkSession.addTag`) do not reach the job that `toArrow` starts from its
        socket-serving JVM thread; Spark Connect: session tags (there is no SparkContext)."""
        if self._connect:
            spark.addTag(job_tag)
            return
        context = spark.sparkContext
        context.addJobTag(job_tag)
        context.setInterruptOnCancel(True)
        context.setLocalProperty("spark.scheduler.pool", pool or "default")

    def _untag_thread(self, spark: SparkSession, job_tag: str) -> None:
        if self._connect:
            spark.removeTag(job_tag)
            return
        context = spark.sparkContext
        context.removeJobTag(job_tag)
        context.setLocalProperty("spark.scheduler.pool", None)  # type: ignore[arg-type]

    def is_running(self, job_tag: str) -> bool:
        """True while a statement runs under `job_tag`."""
        with self._lock:
            return job_tag in self._running

    def cancel(self, job_tag: str) -> None:
        """Interrupt the statement running under `job_tag`, if any (any thread, any time)."""
        self._interrupt(job_tag, USER_CANCEL)

    def _interrupt(self, job_tag: str, reason: str) -> None:
        with self._lock:
            running = self._running.get(job_tag)
            if running is None or running.reason is not None:
                return
            running.reason = reason
        spark = running.session or self._spark
        if spark is None:
            return

        def keep_interrupting() -> None:
            while not running.done.is_set():
                try:
                    if not self._connect:
                        spark.sparkContext.cancelJobsWithTag(job_tag)
                    else:
                        spark.interruptTag(job_tag)
                except Exception:  # the session is stopping; the statement fails on its own
                    log.debug("interruptTag(%s) failed", job_tag, exc_info=True)
                    return
                running.done.wait(_REINTERRUPT_SECONDS)

        threading.Thread(target=keep_interrupting, name=f"spark-cancel-{job_tag}", daemon=True).start()

    def register_arrow(self, name: str, table: pa.Table) -> None:
        """Expose a (small) Arrow table to Spark SQL as the temporary view `name`, replacing any older one."""
        generation = self.generation
        try:
            self.session.createDataFrame(table).createOrReplaceTempView(name)
        except Exception as exc:
            raise self.failure(exc, generation) from None
