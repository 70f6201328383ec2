"""Named queries compared on the session's PostgreSQL 15 oracle and sparkwire as the differential suite compares
them (bench/differential.py): the class tests (test_translation_classes, test_fidelity_classes,
test_missing_functions, test_case_mapping) each hold one query per class of disagreement fixed, and get their
fixture and test from `class_tests`:

    outcomes, test_class_agrees_with_postgres = class_tests(CLASSES, "topic")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bench.differential import Query, describe, run_all
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer


def compare_classes(
    classes: dict[str, str], topic: str, server: SparkwireServer, oracle: PostgresOracle
) -> dict[str, str]:
    """Each class's name → "" when both servers agree, else both answers (as the suite prints a disagreement)."""
    queries = [Query(f"{topic}:{n}", topic, sql) for n, sql in enumerate(classes.values(), start=1)]
    results = run_all(oracle.dsn, server.dsn, queries)
    return {name: "" if o.agrees else describe(o, {}) for name, o in zip(classes, results, strict=True)}


def class_tests(classes: dict[str, str], topic: str) -> tuple[Any, Callable[[dict[str, str], str], None]]:
    """A module fixture `outcomes` (every class run once, together) and a test per class that it agrees."""

    @pytest.fixture(scope="module")
    def outcomes(server: SparkwireServer, oracle: PostgresOracle) -> dict[str, str]:
        return compare_classes(classes, topic, server, oracle)

    @pytest.mark.parametrize("name", list(classes))
    def test_class_agrees_with_postgres(outcomes: dict[str, str], name: str) -> None:
        assert outcomes[name] == ""

    return outcomes, test_class_agrees_with_postgres
