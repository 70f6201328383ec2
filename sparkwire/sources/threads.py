"""OS thread names for source readers, so that they can be counted from outside the process (Linux:
/proc/<pid>/task/*/comm, `top -H`, the tests' reader count).

Contract: `name_current(name)` names the calling OS thread (15 bytes at most, Linux's limit; elsewhere nothing).
Threads a library starts from a named thread (Arrow's thread pools grow lazily, from whichever thread submits work)
inherit the name; `release(name)` gives every other thread of the process still carrying `name` the process's
own name back — an ingestion thread calls it as it ends, so no thread named after a stopped reader remains.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from pathlib import Path

_TASKS = Path("/proc/self/task")


def name_current(name: str) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME


def release(name: str) -> None:
    wanted = name.encode()[:15].decode(errors="ignore")
    me = str(threading.get_native_id())
    try:
        process = Path("/proc/self/comm").read_text().strip()
        for task in _TASKS.iterdir():
            if task.name != me and (task / "comm").read_text().strip() == wanted:
                (task / "comm").write_text(process)
    except OSError:
        pass
