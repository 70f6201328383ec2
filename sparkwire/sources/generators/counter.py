"""LOAD GENERATOR COUNTER: the source relation itself has one column, `counter bigint`; tick n inserts n + 1.

`MAX CARDINALITY m`: from tick m on, tick n also deletes n - m + 1, so the relation holds the last m values
(Materialize's counter.rs semantics).
"""

from __future__ import annotations

from typing import Any, ClassVar

import pyarrow as pa

from sparkwire.sources.generators.base import INT8, UNSIGNED, Extra, Generator, LoadGenerator, column
from sparkwire.sources.reader import Changes, SubsourceSpec

OUTPUT = SubsourceSpec("counter", "counter", (column("counter", INT8),))


class _Counter:
    outputs: tuple[SubsourceSpec, ...] = (OUTPUT,)

    def __init__(self, max_cardinality: int | None) -> None:
        self._max = max_cardinality

    def changes(self, start: int, end: int) -> dict[str, Changes]:
        """Net changes of ticks start … end-1: values start+1 … end inserted, those that fell out deleted."""
        low = start if self._max is None else max(start, end - self._max)
        inserts = pa.table({"counter": pa.array(range(low + 1, end + 1), pa.int64())})
        deletes = None
        if self._max is not None:
            # present before: max(1, start - max + 1) … start; present after: end - max + 1 … end
            gone = range(max(1, start - self._max + 1), min(start, end - self._max) + 1)
            if len(gone):
                deletes = pa.table({"counter": pa.array(gone, pa.int64())})
        return {"counter": Changes(inserts, deletes)}


class Counter(LoadGenerator):
    name = "COUNTER"
    extra: ClassVar[Extra] = {"MAX CARDINALITY": ("max_cardinality", UNSIGNED, None)}

    def generator(self, config: dict[str, Any]) -> Generator:
        return _Counter(config["max_cardinality"])

    def primary_output(self, config: str) -> str | None:
        return "counter"


COUNTER = Counter()
