"""The embedded Spark driver as a process: launch it, look at it, and throw it away so that another can start.

Contract:
- `launch(master, remote, conf) -> SparkSession`: a new session with `conf` given to the builder (so JVM settings
  such as `spark.driver.memory` reach spark-submit before the JVM starts), warmed up with `SELECT 1`.
- `jvm_process(spark)`: the driver JVM's `Popen` (PySpark runs spark-submit, which execs the JVM), or None for
  Spark Connect or a JVM this process did not launch. `jvm_max_memory(spark)`: the JVM's `Runtime.maxMemory()`.
- `connect(url, conf) -> SparkSession`: a Spark Connect session to one of sparkwire's own applications, leaving
  PySpark's process-wide mode (classic) alone. `connect_query(spark, sql, args)`: a Connect session's query as a
  DataFrame, without a round trip to the server.
- `small_input_session(spark, url=None)`: a second session on the same SparkContext (or, with `url`, of the same
  Connect server), tuned for queries over a few rows (`spark_config.SMALL_INPUT_CONF`).
- `exit_reason(status)`: how a JVM's process ended; `first_line(exc)`: an exception's first line, for messages.
- `probe(spark) -> str | None`: None when the driver answers and its SparkContext is running, else why not (one
  line). It blocks while the JVM does not answer: call it from a thread you can abandon (the watchdog does).
- `discard(spark)`: kill the driver JVM if it still runs and reset PySpark's process-wide state (the gateway, the
  active SparkContext and SparkSession), so that the next `launch` starts a new JVM. PySpark keeps one JVM per
  Python process in class attributes and `getOrCreate` would hand back the dead session otherwise. Never raises.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
from typing import Any, cast

from pyspark.sql import DataFrame, SparkSession

from sparkwire.engine import pg_functions
from sparkwire.engine.spark_config import SMALL_INPUT_CONF

log = logging.getLogger(__name__)
_KILL_WAIT_SECONDS = 10.0
_EXIT_WAIT_SECONDS = 1.0
_OUT_OF_MEMORY_EXITS = (3, 52)  # -XX:+ExitOnOutOfMemoryError; Spark's own exit code for an OutOfMemoryError


def launch(master: str, remote: str | None, conf: dict[str, str]) -> SparkSession:
    # Python UDFs (engine/pg_functions.py) run in Python workers; PySpark starts them as $PYSPARK_PYTHON (default
    # `python3` from PATH): this interpreter, which can import sparkwire, unless the environment says otherwise
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder
    builder = builder.remote(remote) if remote is not None else builder.master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if remote is None:
        spark.sparkContext.setLogLevel("ERROR")
    pg_functions.install_spark(spark)
    spark.sql("SELECT 1").toArrow()  # warm up the planner and the Arrow path
    return spark


def connect(url: str, conf: dict[str, str]) -> SparkSession:
    """A new Spark Connect session to `url` (an application sparkwire launched, spark_application.py), warmed up
    like `launch`'s. Through Connect's own builder: `SparkSession.builder.remote` would switch the whole process to
    Connect (it sets SPARK_CONNECT_MODE_ENABLED), under the embedded classic session that runs beside it."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    builder = ConnectSession.builder.remote(url)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = cast(SparkSession, builder.create())  # the same API (Connect's class does not inherit the classic one)
    client: Any = getattr(spark, "client", None)
    if hasattr(client, "_use_reattachable_execute"):
        # reattachable execution survives a dropped stream at the cost of one more call per query (ReleaseExecute):
        # nothing to gain on loopback, and SELECT 1 took 58 ms with it, 33 ms without (PySpark 4.x client)
        client._use_reattachable_execute = False
    pg_functions.install_spark(spark)
    spark.sql("SELECT 1").toArrow()
    return spark


def connect_query(spark: SparkSession, sql: str, args: dict[str, object]) -> DataFrame:
    """A Spark Connect DataFrame of the query `sql` (named markers bound to `args`), built without a call to the
    server: `SparkSession.sql` sends the text first (it must run a command at once) and then again with the
    DataFrame's run, one round trip more per query (about 20 ms of a 90 ms small aggregation on loopback). Its
    errors come with the run, or with `.schema`. Queries only: a command in it would run at every use."""
    from pyspark.sql.connect import functions
    from pyspark.sql.connect.dataframe import DataFrame as ConnectFrame
    from pyspark.sql.connect.plan import SQL

    named = {name: functions.lit(value) for name, value in args.items()}
    return cast(DataFrame, ConnectFrame(SQL(sql, [], named, []), cast(Any, spark)))


def silence_pyspark_loggers() -> None:
    """PySpark logs every failed query with its Java stack trace to stdout; the client gets the error instead."""
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


def small_input_session(spark: SparkSession, url: str | None = None) -> SparkSession:
    """A session on `spark`'s SparkContext with `SMALL_INPUT_CONF` (spark_config) and sparkwire's functions: its
    own temporary views and settings, the same JVM, jobs, pools and cancellation. `url`: a new session of the same
    Spark Connect server instead (one of sparkwire's own applications)."""
    if url is not None:
        return connect(url, SMALL_INPUT_CONF)
    small = spark.newSession()
    for key, value in SMALL_INPUT_CONF.items():
        small.conf.set(key, value)
    pg_functions.install_spark(small)
    return small


def jvm_process(spark: SparkSession | None) -> subprocess.Popen[bytes] | None:
    if spark is None:
        return None
    try:
        gateway: Any = spark.sparkContext._gateway
    except Exception:  # Spark Connect has no SparkContext
        return None
    proc = getattr(gateway, "proc", None)
    return proc if isinstance(proc, subprocess.Popen) else None


def jvm_max_memory(spark: SparkSession) -> int:
    jvm: Any = spark.sparkContext._jvm
    return int(jvm.java.lang.Runtime.getRuntime().maxMemory())


def probe(spark: SparkSession) -> str | None:
    """Why the driver is unusable, or None (see the module docstring)."""
    proc = jvm_process(spark)
    if proc is not None and proc.poll() is not None:
        return exit_reason(proc.returncode)
    try:
        context: Any = spark.sparkContext
        if context._jsc is None or context._jsc.sc().isStopped():
            return "the SparkContext was stopped"
    except Exception as exc:
        if proc is not None:  # a dying JVM drops its connections just before the process ends: say how it ended
            with contextlib.suppress(subprocess.TimeoutExpired):
                return exit_reason(proc.wait(_EXIT_WAIT_SECONDS))
        return f"the Spark JVM does not answer: {first_line(exc, 200)}"
    return None


def exit_reason(status: int, jvm: str = "the Spark JVM") -> str:
    """How a Spark JVM's process ended, from its exit status (`jvm`: how to name it)."""
    if status in _OUT_OF_MEMORY_EXITS:
        return f"{jvm} ran out of memory and exited (status {status})"
    if status < 0:
        return f"{jvm} was killed by signal {-status}"
    return f"{jvm} exited with status {status}"


def first_line(exc: BaseException, limit: int = 300) -> str:
    """An exception's first line (its type's name if it has no text), at most `limit` characters."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:limit]


def discard(spark: SparkSession | None) -> None:
    """Kill the JVM (if any) and reset PySpark's globals (see the module docstring)."""
    from pyspark import SparkContext
    from pyspark.sql import SQLContext

    proc = jvm_process(spark)
    if proc is not None and proc.poll() is None:
        proc.kill()
        try:
            proc.wait(_KILL_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            log.warning("the Spark JVM (pid %d) did not exit after SIGKILL", proc.pid)
    context: Any = SparkContext._active_spark_context
    gateway: Any = SparkContext._gateway
    if context is not None:
        context._jsc = None  # its JVM is gone: stop() must not talk to it
        accumulators = getattr(context, "_accumulatorServer", None)
        if accumulators is not None:
            with contextlib.suppress(Exception):
                accumulators.shutdown()
            context._accumulatorServer = None
    if gateway is not None:
        with contextlib.suppress(Exception):
            gateway.shutdown()
    with SparkContext._lock:
        SparkContext._active_spark_context = None
        SparkContext._gateway = None
        SparkContext._jvm = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
    SQLContext._instantiatedContext = None


class HeapGauge:
    """How full the driver JVM's heap is of live data, 0.0 to 1.0: the used bytes each heap memory pool reported
    after its last collection, over the maximum heap — and no more than the heap's current use, since a pool's
    after-collection figure stays as it was until that pool is collected again. Garbage does not count, so a value
    near 1.0 means live data fills the heap: the JVM is about to thrash or throw OutOfMemoryError. The pools are
    looked up once; a read is a few py4j calls. `collect()` runs a full collection (the engine does, once after a
    shed statement ended, before it sheds another on a figure that may still count its memory)."""

    def __init__(self, spark: SparkSession) -> None:
        jvm: Any = spark.sparkContext._jvm
        management = jvm.java.lang.management.ManagementFactory
        self._memory = management.getMemoryMXBean()
        self._pools = [p for p in management.getMemoryPoolMXBeans() if str(p.getType().toString()) == "Heap memory"]
        self._max = int(jvm.java.lang.Runtime.getRuntime().maxMemory())
        self._system = jvm.java.lang.System

    def collect(self) -> None:
        """A full collection now (System.gc(): G1 collects the whole heap), so every pool's figure is fresh."""
        self._system.gc()

    def fraction(self) -> float:
        if self._max <= 0:
            return 0.0
        used = 0
        for pool in self._pools:
            usage = pool.getCollectionUsage()
            if usage is not None:
                used += int(usage.getUsed())
        now = int(self._memory.getHeapMemoryUsage().getUsed())
        return min(used, now) / self._max
