"""kill -9 of a real `sparkwire serve` at random moments during single-row INSERTs, COPY batches, transactions and
DDL (issue 12, item 6): a CI-sized sample of `python -m bench.crash`, two trials on one data dir.

After each restart every acknowledged row, COPY batch, transaction, CREATE and DROP is there, nothing is there in part,
the catalog relations agree with each other and with what the clients created, every relation answers, and the
server log holds no traceback (see bench/crash.py for the machinery).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.crash import Timing, report, run_trials

pytestmark = pytest.mark.timeout(240)


def test_kill_9_during_writes_and_ddl_loses_and_tears_nothing(tmp_path: Path) -> None:
    results = list(run_trials(tmp_path / "data", 2, seed=20261125, timing=Timing(min_run=1.0, jitter=2.0)))
    lines: list[str] = []
    ok = report(results, lines.append)
    assert ok, "\n".join(lines)
    assert len(results) == 2
    assert sum(r.inserts for r in results) > 0
    assert sum(r.batches for r in results) > 0
    assert sum(r.txns for r in results) > 0
    assert sum(r.ddl for r in results) > 3 * len(results)  # beyond each trial's own three tables
