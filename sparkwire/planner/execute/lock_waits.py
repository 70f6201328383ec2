"""Waits on what another session holds, bounded by the waiting session's `lock_timeout`, as in PostgreSQL.

Contract: `lock_timeout_of(seconds)` is a context manager that bounds the waits of the statement work run inside it
on the current thread (0: wait as long as it takes). `waiting_for(lock)` acquires `lock` and releases it on exit;
if another session holds it longer than the bound, it raises 55P03 "canceling statement due to lock timeout".
The waits it bounds: a read of a materialized view or index that another session is computing (resident.py), and
a read waiting for a materialized view's maintainer to reach its snapshot (`lock_bound()`, compute/dataflow/) —
PostgreSQL's REFRESH holds its lock the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sparkwire import errors as e

_BOUND: ContextVar[float] = ContextVar("lock_timeout", default=0.0)


@contextmanager
def lock_timeout_of(seconds: float) -> Iterator[None]:
    token = _BOUND.set(seconds)
    try:
        yield
    finally:
        _BOUND.reset(token)


def lock_bound() -> float:
    """The current statement's lock_timeout in seconds (0: none)."""
    return _BOUND.get()


@contextmanager
def waiting_for(lock: threading.Lock) -> Iterator[None]:
    bound = _BOUND.get()
    if not lock.acquire(timeout=bound if bound > 0 else -1):
        raise e.LockNotAvailable("canceling statement due to lock timeout")
    try:
        yield
    finally:
        lock.release()
