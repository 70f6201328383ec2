"""Helpers for the workload tests: poll a query until its rows satisfy a condition (the history is written from the
side every 250 ms, so a test waits for it instead of sleeping a fixed time)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import psycopg

Row = tuple[object, ...]


def poll(
    conn: psycopg.Connection[tuple[object, ...]],
    sql: str,
    params: Sequence[object] = (),
    until: Callable[[list[Row]], bool] = bool,
    timeout: float = 10.0,
) -> list[Row]:
    deadline = time.monotonic() + timeout
    while True:
        rows = list(conn.execute(sql, params).fetchall())
        if until(rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)
