"""An upstream PostgreSQL 15 with wal_level=logical for the PostgreSQL source's tests (one per test session), and
a `CollectingSink` that keeps every batch a reader emits, in order, as ingestion would make them durable."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from sparkwire.sources.postgres.upstream import UpstreamConfig
from sparkwire.sources.reader import Batch
from tests.support.postgres import LOGICAL_REPLICATION, PostgresOracle


@pytest.fixture(scope="session")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresOracle]:
    pg = PostgresOracle.start(Path(tmp_path_factory.mktemp("pg-logical")), settings=LOGICAL_REPLICATION)
    try:
        yield pg
    finally:
        pg.stop()


@pytest.fixture
def updb(upstream: PostgresOracle) -> Iterator[str]:
    """A fresh upstream database (its name), dropped afterwards with any slot left in it."""
    name = "cdc_" + uuid.uuid4().hex[:8]
    with psycopg.connect(upstream.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield name
    with psycopg.connect(upstream.dsn, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = %s AND NOT active",
            (name,),
        )
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def config_for(upstream: PostgresOracle, database: str, **kwargs: object) -> UpstreamConfig:
    return UpstreamConfig(
        host="127.0.0.1", port=upstream.port, user="postgres", database=database, publication="p", **kwargs  # type: ignore[arg-type]
    )


class CollectingSink:
    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.lock = threading.Lock()

    def emit(self, batch: Batch) -> None:
        with self.lock:
            self.batches.append(batch)

    def wait_for(self, predicate: Callable[[list[Batch]], bool], timeout: float = 15) -> list[Batch]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self.batches):
                    return list(self.batches)
            time.sleep(0.02)
        raise AssertionError(f"timed out; batches: {self.batches}")
