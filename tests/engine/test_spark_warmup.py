"""Warming a new Spark up (engine/spark_warmup.py): every shape runs without a failure (a failure would be logged as
a warning), and the warm-up's own views are gone afterwards. On the tests' shared Spark."""

from __future__ import annotations

import logging

import pytest

from sparkwire.engine.spark_warmup import warm_up
from tests.support.spark import shared_spark


def test_warm_up_runs_every_shape_and_leaves_nothing_behind(caplog: pytest.LogCaptureFixture) -> None:
    engine = shared_spark()
    small, main = engine.session_for(True), engine.session
    with caplog.at_level(logging.WARNING, logger="sparkwire.engine.spark_warmup"):
        warm_up(small, main, rounds=1)
    assert not [r for r in caplog.records if r.name == "sparkwire.engine.spark_warmup"], caplog.text
    for session in (small, main):
        assert not [t.name for t in session.catalog.listTables() if t.name.startswith("sw_warmup")]
