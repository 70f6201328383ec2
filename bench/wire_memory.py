"""Server memory while streaming, for `bench.pgwire`.

- `stream_growth(dsn, rows, rss)`: the server's peak RSS growth while one client streams `rows` rows with
  `cursor.stream()` (libpq's single-row mode: the client reads as the server sends), sampled every 20 ms.
- `slow_reader_growth(dsn, rows, rss, seconds)`: the same query read by a client that takes a row every few
  milliseconds for `seconds`: a server with backpressure stops producing when the socket is full, so its memory
  stays flat however many rows the query has.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg

from bench.wire_client import stream_query


def rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except FileNotFoundError:
        return 0
    return 0


@contextmanager
def peak_of(rss: Callable[[], int], interval: float = 0.02) -> Iterator[list[int]]:
    """Yields a one-element list that holds the peak of `rss()` sampled until the block ends."""
    peak = [rss()]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(interval):
            peak[0] = max(peak[0], rss())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        stop.set()
        thread.join()
        peak[0] = max(peak[0], rss())


def stream_growth(dsn: str, rows: int, rss: Callable[[], int]) -> tuple[int, float]:
    """(peak RSS growth in bytes, rows/s) streaming `rows` rows through `cursor.stream()`."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _ in conn.cursor().stream(stream_query(1000)):
            pass
        before = rss()
        with peak_of(rss) as peak:
            start = time.perf_counter()
            got = sum(1 for _ in conn.cursor().stream(stream_query(rows)))
            elapsed = time.perf_counter() - start
        if got != rows:
            raise RuntimeError(f"streamed {got} rows, wanted {rows}")
        return peak[0] - before, rows / elapsed


def slow_reader_growth(dsn: str, rows: int, rss: Callable[[], int], seconds: float) -> tuple[int, int]:
    """(peak RSS growth in bytes, rows read) for a client reading 1,000 rows every 10 ms for `seconds`."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        before = rss()
        read = 0
        with peak_of(rss) as peak:
            deadline = time.monotonic() + seconds
            for _ in conn.cursor().stream(stream_query(rows)):
                read += 1
                if read % 1000 == 0:
                    time.sleep(0.01)
                    if time.monotonic() > deadline:
                        break
        conn.cancel_safe()
        return peak[0] - before, read
