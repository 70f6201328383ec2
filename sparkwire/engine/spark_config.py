"""The Spark configuration sparkwire runs with, and the files it needs, all under one data directory.

Contract: `spark_conf(data_dir, ...)` writes `log4j2.properties` and `fairscheduler.xml` into `data_dir` and returns
the `spark.*` settings for `SparkSession.builder`: warehouse, Derby home, Spark scratch space and the JVM temp dir
all live inside `data_dir` (nothing is created in the working directory); few shuffle partitions, AQE on, ANSI
mode on (overflow, bad casts and division by zero raise, like PostgreSQL), session time zone UTC, no `${var}`
substitution inside SQL text, no UI and no console progress bar, Arrow for PySpark conversions, FAIR scheduling whose
`default` pool is itself FAIR so that a short query does not queue behind a long one (Spark does not preempt running
tasks: a short query still waits for a free task slot, so long queries need many short tasks). The pools of the
cluster replicas (`POOLS_FILE`, written by sparkwire/compute/pools.py) are declared too, FAIR, with their weight and
minShare (`fair_scheduler_xml`).
`nice_spark_launches(SPARK_NICENESS)`, called before Spark starts, runs every embedded JVM PySpark launches at a lower
CPU priority than the server, so that what never needs Spark keeps answering while Spark saturates the machine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

log = logging.getLogger(__name__)
# The embedded JVM runs at this nice value: under full CPU load, the server's own threads (the wire, the planner,
# the introspection store) get about nine times its share, so catalog and introspection queries answer while Spark
# saturates every core (seed 000). Idle cores are Spark's whatever its nice value.
SPARK_NICENESS = 10

LOG4J2 = """\
rootLogger.level = {level}
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{{HH:mm:ss}} spark %p %c{{1}}: %m%n
# a failing query is reported to the client; the executor's copy of the stack trace is noise
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = off
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = off
"""

FAIR_SCHEDULER = """\
<?xml version="1.0"?>
<allocations>
  <pool name="default"><schedulingMode>FAIR</schedulingMode><weight>1</weight><minShare>0</minShare></pool>
</allocations>
"""
# The cluster replicas' pools (sparkwire/compute/pools.py writes them: {"pool": [weight, minShare], …}); each start
# declares them in fairscheduler.xml, which Spark reads once, when the SparkContext starts.
POOLS_FILE = "cluster-pools.json"
_POOL = (
    '  <pool name="{name}"><schedulingMode>FAIR</schedulingMode>'
    "<weight>{weight}</weight><minShare>{min_share}</minShare></pool>\n"
)


def fair_scheduler_xml(pools: dict[str, tuple[int, int]]) -> str:
    """FAIR_SCHEDULER with one more FAIR pool per entry of `pools` (name → (weight, minShare))."""
    lines = "".join(_POOL.format(name=escape(n), weight=w, min_share=m) for n, (w, m) in sorted(pools.items()))
    return FAIR_SCHEDULER.replace("</allocations>", lines + "</allocations>")


def declared_pools(data_dir: Path) -> dict[str, tuple[int, int]]:
    try:
        raw = json.loads((data_dir / POOLS_FILE).read_text())
        return {str(name): (int(w), int(m)) for name, (w, m) in raw.items()}
    except (OSError, ValueError, TypeError):
        return {}


# The small-input session (engine.session_for(small=True)): a query whose every input is rows held in memory, a few
# thousand at most (planner/execute/spark/spark_relations.py: small tables, materialized views, builtin rows). Its cost
# is Spark's fixed per-query work, not the data: generating and compiling Java for every distinct query (literals are
# compiled in) costs more than interpreting a few rows, exchanges between stages are separate jobs, and adaptive
# execution re-plans between them. So: expressions and operators interpreted, one shuffle partition, no broadcasts (both
# sides are one partition: a join needs no exchange), no adaptive re-planning; its inputs are registered as one
# partition (coalesce(1)), so a whole query is one stage and one job. Rows in memory scan as one partition too
# (leafNodeDefaultParallelism), for the queries that read them directly: a filter or projection of them is folded by the
# optimizer into rows, with no job at all (planner/execute/spark/row_scans.py, spark_local_result). The other settings
# are the session's own.
SMALL_INPUT_CONF = {
    "spark.sql.leafNodeDefaultParallelism": "1",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.autoBroadcastJoinThreshold": "-1",
    "spark.sql.adaptive.enabled": "false",
}


def spark_conf(data_dir: Path, *, shuffle_partitions: int = 4, log_level: str = "error") -> dict[str, str]:
    """Write the helper files into `data_dir` and return the settings (see the module docstring). Paths are
    absolute: Spark reads `file:` URIs, and a relative one (`--data-dir ./data`) is not a URI it accepts."""
    data_dir = data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    for sub in ("warehouse", "derby", "local", "jvmtmp"):
        (data_dir / sub).mkdir(exist_ok=True)
    log4j = data_dir / "log4j2.properties"
    log4j.write_text(LOG4J2.format(level=log_level))
    fair = data_dir / "fairscheduler.xml"
    fair.write_text(fair_scheduler_xml(declared_pools(data_dir)))
    java_opts = (
        f"-Dlog4j2.configurationFile=file:{log4j} -Dderby.system.home={data_dir / 'derby'} "
        f"-Djava.io.tmpdir={data_dir / 'jvmtmp'}"
    )
    return {
        "spark.app.name": "sparkwire",
        "spark.driver.extraJavaOptions": java_opts,
        "spark.executor.extraJavaOptions": java_opts,
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.host": "127.0.0.1",
        "spark.sql.warehouse.dir": str(data_dir / "warehouse"),
        "spark.sql.catalogImplementation": "in-memory",
        "spark.local.dir": str(data_dir / "local"),
        "spark.sql.shuffle.partitions": str(shuffle_partitions),
        "spark.default.parallelism": str(shuffle_partitions),
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.adaptive.coalescePartitions.enabled": "true",
        "spark.sql.ansi.enabled": "true",
        "spark.sql.timeType.enabled": "true",  # PostgreSQL's time: TIME columns from Parquet, time arithmetic
        # numeric arithmetic keeps PostgreSQL's scales (sum of scales for *, the larger for + and -): Spark's default
        # drops fractional digits past 38 digits of precision, which PostgreSQL never does; past 38 digits the
        # result is 22003 (numeric field overflow) instead
        "spark.sql.decimalOperations.allowPrecisionLoss": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.variable.substitute": "false",  # '${x}' in a string literal is data, not a variable
        "spark.sql.runSQLOnFiles": "false",  # parquet.`/path` in SQL is not a file read (planner refuses it too)
        # list a table's Parquet files on the driver: a listing job for > 32 files costs seconds, not milliseconds
        "spark.sql.sources.parallelPartitionDiscovery.threshold": "1000000",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.scheduler.mode": "FAIR",
        "spark.scheduler.allocation.file": f"file:{fair}",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
    }


def nice_spark_launches(niceness: int) -> None:
    """Every JVM PySpark launches from now on starts at `niceness` (its child process lowers itself before exec, so
    the JVM and every thread it makes inherit it), and no thread of the server does. Lowering the thread that
    launches it instead left the Python threads started from that thread at the JVM's priority (PySpark's
    accumulator server, py4j's, the watchdog's): under a saturated CPU a low-priority thread preempted while
    holding the GIL kept the server's own threads waiting (issue 14: a round trip's p99 under load). PySpark sets
    its own `preexec_fn` for the launch, so its `Popen` is wrapped to run ours after it. Idempotent; Linux and
    macOS (elsewhere nothing happens)."""
    from pyspark import java_gateway

    module: Any = java_gateway  # its `Popen` is subprocess's, imported by name
    popen = module.Popen
    if getattr(popen, "sparkwire_niceness", None) is not None or not hasattr(os, "nice"):
        return

    def niced_popen(*args: Any, **kwargs: Any) -> Any:
        theirs = kwargs.get("preexec_fn")

        def preexec() -> None:
            if theirs is not None:
                theirs()
            with contextlib.suppress(OSError):  # else the JVM runs at the server's priority: slower answers under load
                os.nice(niceness)

        kwargs["preexec_fn"] = preexec
        return popen(*args, **kwargs)

    niced_popen.sparkwire_niceness = niceness  # type: ignore[attr-defined]
    module.Popen = niced_popen
