"""Connections for `bench.pgwire`: many idle ones (memory), many active ones (throughput), and set-up time.

- `idle_connections(dsn, count, rss)` opens `count` connections that each ran one `SELECT 1` and keeps them open;
  returns the growth of `rss()` (the server's resident memory, summed over its processes) per connection.
- `active_clients(dsn, clients, seconds)` runs `clients` connections doing `SELECT 1` round trips at once, from
  several client processes (one Python process would be the bottleneck: the GIL), and returns the aggregate
  round trips/s.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg

PROCESSES = 4


def idle_connections(dsn: str, count: int, rss: Callable[[], int]) -> tuple[float, int]:
    """(bytes of server memory per idle connection, connections held)."""
    for _ in range(8):  # first-connection costs out of the figure
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("SELECT 1")
    time.sleep(0.5)
    before = rss()
    conns: list[psycopg.Connection[Any]] = []
    try:
        for _ in range(count):
            conn = psycopg.connect(dsn, autocommit=True)
            conn.execute("SELECT 1").fetchone()
            conns.append(conn)
        time.sleep(1.0)
        after = rss()
        return (after - before) / count, len(conns)
    finally:
        for conn in conns:
            conn.close()


def _client_process(dsn: str, threads: int, start_at: float, seconds: float, out: Any) -> None:
    counts = [0] * threads

    def client(slot: int) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for _ in range(20):
                conn.execute("SELECT 1").fetchone()
            time.sleep(max(0.0, start_at - time.time()))
            deadline = start_at + seconds
            done = 0
            while time.time() < deadline:
                for _ in range(20):
                    conn.execute("SELECT 1").fetchone()
                done += 20
            counts[slot] = done

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    out.put(sum(counts))


def active_clients(dsn: str, clients: int, seconds: float) -> float:
    """Aggregate `SELECT 1` round trips/s of `clients` connections working at once."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    per = [clients // PROCESSES + (1 if i < clients % PROCESSES else 0) for i in range(PROCESSES)]
    start_at = time.time() + 3.0  # every connection open and warm before the clock starts
    procs = [ctx.Process(target=_client_process, args=(dsn, n, start_at, seconds, out)) for n in per if n]
    for proc in procs:
        proc.start()
    total: int = sum(out.get(timeout=120) for _ in procs)
    for proc in procs:
        proc.join()
    return total / seconds
