"""Fixtures shared by the in-process session tests of this folder: one `PlannerService` (real DuckDB, catalog and
storage in a temp dir; Spark on demand) per test module, and a fresh `Client` session on it per test. A module
that needs set-up (tables, rows) overrides `service` or `client` with its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sparkwire.session.service import PlannerService
from tests.planner.test_planner_helpers import Client, new_service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[PlannerService]:
    svc = new_service(Path(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])))
    yield svc
    svc.close()


@pytest.fixture
def client(service: PlannerService) -> Iterator[Client]:
    c = Client(service)
    yield c
    c.close()
