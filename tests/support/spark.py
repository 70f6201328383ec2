"""One embedded Spark for the whole pytest process.

PySpark allows one SparkSession per process (`getOrCreate` hands back the first one whatever the settings), so every
test that needs Spark — in-process PlannerServices, the translation oracle tests, the executor tests — shares the
`SparkEngine` from `shared_spark()`: local[2], two shuffle partitions, started once in the background on first use,
its data in a temp dir removed at exit. Nobody stops it but the exit hook.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from pathlib import Path

from sparkwire.engine.spark import SparkEngine

_lock = threading.Lock()
_engine: SparkEngine | None = None


def shared_spark(wait: bool = True) -> SparkEngine:
    global _engine
    with _lock:
        if _engine is None:
            directory = Path(tempfile.mkdtemp(prefix="sparkwire-test-spark-"))
            _engine = SparkEngine(directory, master="local[2]", shuffle_partitions=2)
            _engine.start_background()
            engine = _engine

            def _stop() -> None:
                engine.stop()
                shutil.rmtree(directory, ignore_errors=True)

            atexit.register(_stop)
        engine = _engine
    if wait and not engine.wait_ready(300):
        raise RuntimeError("Spark did not start")
    return engine
