"""The workload tests wait for relations written from the side with the shared `tests.support.clients.poll`."""

from __future__ import annotations

from tests.support.clients import poll

__all__ = ["poll"]
