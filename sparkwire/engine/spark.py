"""`SparkEngine`: one warm SparkSession that runs Spark SQL and returns Arrow.

Contract (the planner's view):

    engine = SparkEngine(data_dir)                # embedded local[*]; or master="spark://h:7077"; or remote="sc://h"
    engine.start_background()                     # cold start (~10 s) in a daemon thread, never in a connection path
    engine.wait_ready(timeout=30) -> bool         # True once the session is up; `is_ready` polls without waiting
    engine.schema(sql, params=()) -> pa.Schema    # analysis only, no Spark job (queries only)
    engine.prepare(sql, params=()) -> PreparedSpark   # analysis once: .schema, then execute_arrow(prepared, ...)
    engine.execute_arrow(sql_or_prepared, params=(), job_tag=..., timeout=None, pool=None) -> SparkArrowStream
    engine.cancel(job_tag)                        # from any thread: the statement raises QueryCanceled (57014)
    engine.is_running(job_tag) -> bool
    engine.register_arrow(name, table)            # an Arrow table as a temporary view
    engine.stop()

`sql` is Spark SQL (see `sparkwire.planner.translate.spark`); `params` are Python values bound to its named
markers `:p1`, `:p2`, … (what the translator makes of `$1`, `$2`, …), never spliced into the text; a query with
markers can only be analysed with its values bound. Statements other than queries (DDL, SET) run
as soon as they are analysed, so `schema`/`prepare` are for queries only. A `PreparedSpark` serves one
Parse/Describe/Execute cycle (schema, then one run, analysed once). Do not keep it across statements: a second
run reuses the first run's shuffle output (Spark skips finished stages) and the file listings of the first
analysis, so it can return stale results.

Every failure is a `PgError` (see `spark_errors`); calling before the session is ready raises
ObjectNotInPrerequisiteState (55000), and a failed start is reported as InternalError with its first line.

Execution: `execute_arrow` runs the query when called (so errors surface there), collecting the result as Arrow
(`DataFrame.toArrow()`: Spark sends Arrow batches out of partition order and the driver reorders them, so a lazily
streamed, ordered result is not available cheaply); the returned `SparkArrowStream` then hands out record batches
of at most `batch_rows` rows and satisfies `sparkwire.api.RowStream`.

Cancellation: each statement runs on the calling thread with its jobs tagged `job_tag` (a SparkContext job tag;
Spark Connect: a session tag) and its FAIR pool set as a thread-local property (py4j pins one JVM thread per Python
thread). `cancel(job_tag)` marks the statement and cancels the tag's jobs every 50 ms until the statement ends, which
also catches a job submitted just after the first cancel; `timeout` (seconds) does the same from a timer. A cancelled
statement raises QueryCanceled with PostgreSQL's message ("canceling statement due to user request" / "... due to
statement timeout"); one that completes before the cancel lands returns its result. Spark stops a cancelled job at
task boundaries: a running task finishes its partition, so cores free up only as fast as tasks end.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from sparkwire import errors
from sparkwire.engine.spark_config import SPARK_NICENESS, below_the_server, spark_conf
from sparkwire.engine.spark_errors import to_pg_error

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


def _silence_pyspark_loggers() -> None:
    """PySpark logs every failed query with its Java stack trace to stdout; the client gets the error instead."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


class SparkArrowStream:
    """A finished Spark result handed out as record batches of at most `batch_rows` rows."""

    def __init__(self, table: pa.Table, batch_rows: int) -> None:
        self.schema: pa.Schema = table.schema
        self.num_rows: int = table.num_rows
        self.nbytes: int = table.nbytes
        self._batches: Iterator[pa.RecordBatch] = iter(table.to_batches(max_chunksize=batch_rows))

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        return next(self._batches)

    def close(self) -> None:
        self._batches = iter(())


@dataclass(frozen=True)
class PreparedSpark:
    """An analysed Spark query for one Describe + Execute: the schema is known and the run skips re-analysis.

    Run it once: a second run may reuse the first run's shuffle output (see the module docstring)."""

    sql: str
    dataframe: DataFrame

    @property
    def schema(self) -> pa.Schema:
        from pyspark.sql.pandas.types import to_arrow_schema

        try:
            schema: pa.Schema = to_arrow_schema(self.dataframe.schema, timezone="UTC")
        except Exception as exc:
            raise to_pg_error(exc) from None
        # Spark marks generated column names in field metadata; the Arrow result of a run carries none
        return pa.schema([f.remove_metadata() for f in schema])


@dataclass
class _Running:
    """A statement in flight under one tag; `reason` is set once it is cancelled."""

    reason: str | None = None
    done: threading.Event = field(default_factory=threading.Event)


class SparkEngine:
    """One SparkSession shared by every sparkwire session (see the module docstring)."""

    def __init__(
        self,
        data_dir: Path,
        *,
        master: str = "local[*]",
        remote: str | None = None,
        shuffle_partitions: int = 4,
        batch_rows: int = 65536,
        extra_conf: dict[str, str] | None = None,
    ) -> None:
        self._data_dir = data_dir
        self._master = master
        self._remote = remote
        self._shuffle_partitions = shuffle_partitions
        self._batch_rows = batch_rows
        self._extra_conf = dict(extra_conf or {})
        self._spark: SparkSession | None = None
        self._start_error: BaseException | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._running: dict[str, _Running] = {}

    # ---- lifecycle ----------------------------------------------------------------------------------------

    def start_background(self) -> None:
        """Start the session in a daemon thread; idempotent."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._start, name="spark-start", daemon=True)
            self._thread.start()

    def _start(self) -> None:
        try:
            _silence_pyspark_loggers()
            if self._remote is None:
                below_the_server(SPARK_NICENESS)  # the JVM this thread launches yields the CPU to the server
            conf = spark_conf(self._data_dir, shuffle_partitions=self._shuffle_partitions)
            conf.update(self._extra_conf)
            builder = SparkSession.builder
            if self._remote is not None:
                builder = builder.remote(self._remote)
                conf = {k: v for k, v in conf.items() if k in _CONNECT_SETTINGS}
            else:
                builder = builder.master(self._master)
            for key, value in conf.items():
                builder = builder.config(key, value)
            spark = builder.getOrCreate()
            if self._remote is None:
                spark.sparkContext.setLogLevel("ERROR")
            spark.sql("SELECT 1").toArrow()  # warm up the planner and the Arrow path
            self._spark = spark
        except BaseException as exc:  # reported by every later call, never lost in the thread
            log.exception("Spark failed to start")
            self._start_error = exc
        finally:
            self._ready.set()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait for the start to finish; True if the session is usable."""
        self._ready.wait(timeout)
        return self.is_ready

    @property
    def is_ready(self) -> bool:
        return self._spark is not None

    def stop(self) -> None:
        """Stop the session (waits for a start in progress)."""
        if self._thread is not None:
            self._ready.wait()
        if self._spark is not None:
            self._spark.stop()
            self._spark = None

    @property
    def session(self) -> SparkSession:
        """The live SparkSession, for the few callers that need it directly (tests, benchmarks)."""
        if self._spark is not None:
            return self._spark
        if self._start_error is not None:
            first = (str(self._start_error).strip().splitlines() or [type(self._start_error).__name__])[0]
            raise errors.InternalError(f"Spark failed to start: {first[:300]}")
        raise errors.ObjectNotInPrerequisiteState("the Spark engine is still starting")

    # ---- statements ---------------------------------------------------------------------------------------

    def _dataframe(self, sql: str, params: Sequence[object]) -> DataFrame:
        args = {f"p{i}": value for i, value in enumerate(params, start=1)} or None
        try:
            return self.session.sql(sql, args=args)
        except errors.PgError:
            raise
        except Exception as exc:
            raise to_pg_error(exc) from None

    def prepare(self, sql: str, params: Sequence[object] = ()) -> PreparedSpark:
        """Parse and analyse `sql` with `params` bound (no job runs) for one later `execute_arrow`."""
        return PreparedSpark(sql, self._dataframe(sql, params))

    def schema(self, sql: str, params: Sequence[object] = ()) -> pa.Schema:
        """The Arrow schema of a query's result, from analysis alone (no job runs)."""
        return self.prepare(sql, params).schema

    def execute_arrow(
        self,
        query: str | PreparedSpark,
        params: Sequence[object] = (),
        *,
        job_tag: str,
        timeout: float | None = None,
        pool: str | None = None,
    ) -> SparkArrowStream:
        """Run `query` under `job_tag` (unique among running statements; no commas) and return its result."""
        spark = self.session
        running = _Running()
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
            self._tag_thread(spark, job_tag, pool)
            try:
                if running.reason is not None:
                    raise errors.QueryCanceled(running.reason)
                prepared = query if isinstance(query, PreparedSpark) else self.prepare(query, params)
                frame = prepared.dataframe
                table = frame.toArrow()
            finally:
                self._untag_thread(spark, job_tag)
        except Exception as exc:
            if running.reason is not None:
                raise errors.QueryCanceled(running.reason) from None
            raise to_pg_error(exc) from None
        finally:
            if timer is not None:
                timer.cancel()
            running.done.set()
            with self._lock:
                self._running.pop(job_tag, None)
        return SparkArrowStream(table, self._batch_rows)

    def _tag_thread(self, spark: SparkSession, job_tag: str, pool: str | None) -> None:
        """Tag the jobs this thread starts and pick their FAIR pool. Classic Spark: SparkContext job tags,
        because session tags (`SparkSession.addTag`) do not reach the job that `toArrow` starts from its
        socket-serving JVM thread; Spark Connect: session tags (there is no SparkContext)."""
        if self._remote is not None:
            spark.addTag(job_tag)
            return
        context = spark.sparkContext
        context.addJobTag(job_tag)
        context.setInterruptOnCancel(True)
        context.setLocalProperty("spark.scheduler.pool", pool or "default")

    def _untag_thread(self, spark: SparkSession, job_tag: str) -> None:
        if self._remote is not None:
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
        spark = self._spark
        if spark is None:
            return

        def keep_interrupting() -> None:
            while not running.done.is_set():
                try:
                    if self._remote is None:
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
        try:
            self.session.createDataFrame(table).createOrReplaceTempView(name)
        except errors.PgError:
            raise
        except Exception as exc:
            raise to_pg_error(exc) from None
