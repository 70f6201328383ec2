"""Helpers of the load generator tests: waiting on a source's committed offset (mz_source_statistics, answered by
the introspection store without Spark) and counting a server's source reader threads from /proc."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg

Conn = psycopg.Connection[tuple[Any, ...]]


def source_id(conn: Conn, name: str) -> str:
    rows = conn.execute("SELECT id FROM mz_sources WHERE name = %s", (name,)).fetchall()
    assert rows, f"no source {name}"
    return str(rows[0][0])


def committed_offset(conn: Conn, name: str) -> int | None:
    rows = conn.execute(
        "SELECT offset_committed FROM mz_internal.mz_source_statistics WHERE id = %s", (source_id(conn, name),)
    ).fetchall()
    return None if not rows or rows[0][0] is None else int(rows[0][0])


def wait_offset(conn: Conn, name: str, offset: int, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = committed_offset(conn, name)
        if found is not None and found >= offset:
            return found
        time.sleep(0.05)
    raise AssertionError(f"source {name} did not reach offset {offset} (at {committed_offset(conn, name)})")


def status(conn: Conn, name: str) -> tuple[str, str | None]:
    rows = conn.execute("SELECT status, error FROM mz_internal.mz_source_statuses WHERE name = %s", (name,)).fetchall()
    assert rows, f"no status for {name}"
    return str(rows[0][0]), rows[0][1]


def wait_status(conn: Conn, name: str, wanted: str, timeout: float = 20.0) -> tuple[str, str | None]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = status(conn, name)
        if found[0] == wanted:
            return found
        time.sleep(0.05)
    raise AssertionError(f"source {name} is {status(conn, name)}, not {wanted}")


def reader_threads(pid: int, source: str) -> set[str]:
    """The distinct names of the OS threads of `source`'s readers in process `pid` (`sw-src-<id>.<n>`, one per
    ingestion started: sources/ingestion.py; library threads it started carry its name too, hence distinct)."""
    names = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
        except OSError:
            continue
        if comm.startswith(f"sw-src-{source}."):
            names.add(comm)
    return names
