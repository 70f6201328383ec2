"""A short sample of bench/fuzz_protocol.py (issue 12, item 6): about 3,000 mutated frames from a corpus of recorded
psycopg and raw sessions (startup, simple, extended, COPY, cancel, password login) against servers of its own, with
no crash, hang, malformed answer, leaked traceback or internal error, a bystander session unaffected throughout,
length claims of 1 GiB + 1 and 2 GiB refused with FATAL 08P01 before any allocation, and a fresh connection working
afterwards. The full run and its figures: `python -m bench.fuzz_protocol --frames 100000`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.fuzz_protocol import PASSWORD, PASSWORD_ENV, SERVER_ARGS, run_fuzz
from tests.support.server import SparkwireServer


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[SparkwireServer, SparkwireServer]]:
    trust = SparkwireServer.start(tmp_path / "trust", *SERVER_ARGS)
    try:
        auth = SparkwireServer.start(
            tmp_path / "password", *SERVER_ARGS, "--auth", "password", env={PASSWORD_ENV: PASSWORD}
        )
        try:
            yield trust, auth
        finally:
            auth.stop()
    finally:
        trust.stop()


@pytest.mark.timeout(120)
def test_protocol_fuzz_sample(servers: tuple[SparkwireServer, SparkwireServer]) -> None:
    trust, auth = servers
    report = run_fuzz(trust, auth, frames=3_000, clients=16, seed=12)
    report.print()
    assert report.failures == dict.fromkeys(report.failures, 0)
    assert report.frames >= 3_000 and report.mutated >= 500
    assert {"session", "startup", "cancel", "auth"} <= set(report.connections)
    assert report.bystander_queries > 0
    assert len(report.limits) == 6
