"""Progress notices: while a statement's Spark jobs run, a NOTICE with the share of their tasks done, every few
seconds (`SET progress_notices = on`).

Contract: `watch(progress, statement, send)` starts a daemon thread that, `FIRST_SECONDS` after the call and then
every `EVERY_SECONDS` until the returned `stop()` is called, asks `progress(statement)` (`SparkJobsFeed.progress`:
Spark's status as the feed last read it, never Spark itself) and, when the statement has jobs, calls `send(message)`
with e.g. `progress: 42% (stage 3 of 5, 120/286 tasks)`. `stop()` returns at once and no message is sent after it.
`send` runs on the watcher's thread (the session's notice sink takes notices from any thread); an exception in it or
in `progress` ends the watch silently (logged at DEBUG). The session pays for nothing when the variable is off: no
watch is started.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sparkwire.introspection.workload.spark_jobs import Progress

log = logging.getLogger(__name__)

FIRST_SECONDS = 2.0
EVERY_SECONDS = 2.0


def watch(
    progress: Callable[[str], Progress | None],
    tag: str,
    send: Callable[[str], None],
    *,
    first: float = FIRST_SECONDS,
    every: float = EVERY_SECONDS,
) -> Callable[[], None]:
    stopped = threading.Event()
    lock = threading.Lock()  # a message is never sent after stop() returned

    def run() -> None:
        wait = first
        while not stopped.wait(wait):
            wait = every
            try:
                state = progress(tag)
                if state is None:
                    continue
                with lock:
                    if stopped.is_set():
                        return
                    send(state.message())
            except Exception:
                log.debug("progress notice for %s failed", tag, exc_info=True)
                return

    def stop() -> None:
        with lock:
            stopped.set()

    threading.Thread(target=run, name=f"progress-{tag}", daemon=True).start()
    return stop
