"""What every load generator shares: its options and the reader that ticks.

Options (Materialize's): `TICK INTERVAL 'd'` (default 1s; '100ms', '1 second', '2.5s', …), `AS OF n` (the first
batch holds every tick before n at once), `UP TO n` (stop after tick n-1: the collection is then final). A type adds
its own (`extra`: COUNTER's MAX CARDINALITY, TPCH's SCALE FACTOR). The configuration is JSON: `tick` (seconds),
`as_of`, `up_to` and the extras.

`TickingReader` runs a `Generator`: `changes(start, end)` are the net changes of ticks start … end-1 (deterministic:
they depend only on the offsets and the configuration), offsets count ticks, and the offset after a batch is the
next tick to run. A reader resumed at offset n emits tick n next: no gap, no duplicate. Ticks are paced from a
monotonic clock; when ingestion is slower than the interval, every tick already due goes into the next batch (at
most `MAX_TICKS_PER_BATCH`), so the collection keeps up with the clock at the cost of larger commits.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.sources.reader import POLL_SECONDS, Batch, Changes, Sink, SubsourceColumn, SubsourceSpec, UpstreamReader
from sparkwire.sources.registry import OptionValue, SourceContext, SourceRequest

INT8, INT4, TEXT, DATE, TIMESTAMPTZ, NUMERIC = 20, 23, 25, 1082, 1184, 1700
DEFAULT_TICK_SECONDS = 1.0
MAX_TICKS_PER_BATCH = 10_000
_UNITS = {
    "us": 1e-6, "microsecond": 1e-6, "microseconds": 1e-6,
    "ms": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "m": 60.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hour": 3600.0, "hours": 3600.0,
}  # fmt: skip
_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)\s*", re.I)


def column(name: str, type_oid: int, typmod: int = -1) -> SubsourceColumn:
    return SubsourceColumn(name, type_oid, typmod, nullable=False)


def parse_interval(text: str) -> float:
    """`'1s'`, `'100ms'`, `'1 second'`, `'1.5 s'` → seconds (22023 for anything else or a zero interval)."""
    total, pos = 0.0, 0
    while pos < len(text):
        m = _DURATION.match(text, pos)
        if m is None or m.end() == pos or m.group(2).lower() not in _UNITS:
            raise e.InvalidParameterValue(f'invalid TICK INTERVAL: "{text}"', hint="Write it as '1s' or '100ms'.")
        total += float(m.group(1)) * _UNITS[m.group(2).lower()]
        pos = m.end()
    if total <= 0:
        raise e.InvalidParameterValue(f'invalid TICK INTERVAL: "{text}": it must be positive')
    return total


def _unsigned(name: str, value: OptionValue) -> int:
    if not isinstance(value, str) or not re.fullmatch(r"\d+", value):
        raise e.InvalidParameterValue(f"invalid {name}: {value!r}: an unsigned integer is expected")
    return int(value)


def _number(name: str, value: OptionValue) -> float:
    try:
        found = float(value) if isinstance(value, str) else -1.0
    except ValueError:
        found = -1.0
    if found <= 0:
        raise e.InvalidParameterValue(f"invalid {name}: {value!r}: a positive number is expected")
    return found


OptionReader = Callable[[str, OptionValue], Any]
UNSIGNED: OptionReader = _unsigned
Extra = dict[str, tuple[str, OptionReader, Any]]
POSITIVE: OptionReader = _number


class Generator(Protocol):
    outputs: tuple[SubsourceSpec, ...]

    def changes(self, start: int, end: int) -> dict[str, Changes]: ...


class TickingReader:
    def __init__(self, generator: Generator, config: dict[str, Any], snapshot_ticks: int = 0) -> None:
        self._generator = generator
        self._tick = float(config["tick"])
        self._as_of = int(config["as_of"])
        self._up_to: int | None = config["up_to"]
        self._snapshot_ticks = snapshot_ticks  # ticks before this are the initial snapshot

    def subsources(self) -> list[SubsourceSpec]:
        return list(self._generator.outputs)

    def close(self) -> None:
        pass

    def _batch(self, start: int, end: int) -> Batch:
        changes = self._generator.changes(start, end)
        rows = sum((c.inserts.num_rows if c.inserts else 0) + (c.deletes.num_rows if c.deletes else 0)
                   for c in changes.values())  # fmt: skip
        size = sum((c.inserts.nbytes if c.inserts else 0) for c in changes.values())
        snapshot = start < self._snapshot_ticks
        return Batch(str(end), changes, snapshot, snapshot and end >= self._snapshot_ticks, rows, size)

    def run(self, resume: str | None, sink: Sink, stop: threading.Event) -> None:
        offset = int(resume) if resume else 0
        first = max(self._as_of, self._snapshot_ticks, offset + 1)
        if self._up_to is not None:
            first = min(first, self._up_to)
        if first > offset:
            sink.emit(self._batch(offset, first))
            offset = first
        due = time.monotonic() + self._tick
        while not stop.is_set():
            if self._up_to is not None and offset >= self._up_to:
                stop.wait(POLL_SECONDS)
                continue
            now = time.monotonic()
            if due > now:
                stop.wait(min(due - now, POLL_SECONDS))
                continue
            # every tick that is due goes into one batch (ingestion fell behind the interval: catch up in one commit)
            ticks = min(1 + int((now - due) / self._tick), MAX_TICKS_PER_BATCH)
            if self._up_to is not None:
                ticks = min(ticks, self._up_to - offset)
            sink.emit(self._batch(offset, offset + ticks))
            offset += ticks
            due += ticks * self._tick


class LoadGenerator:
    """The SourceType side every load generator shares; a subclass sets the class attributes and `generator`."""

    name = ""
    mz_type = "load-generator"
    load_generator = True
    requires_selection = False
    progress_columns: tuple[SubsourceColumn, ...] = (SubsourceColumn("offset", INT8),)
    extra: ClassVar[Extra] = {}  # option name → (config key, reader, default)
    snapshot_ticks = 0

    def configure(self, request: SourceRequest, context: SourceContext) -> str:
        config: dict[str, Any] = {"tick": DEFAULT_TICK_SECONDS, "as_of": 0, "up_to": None}
        config.update({key: default for key, _, default in self.extra.values()})
        seen: set[str] = set()
        for name, value in request.options:
            if name in seen:
                raise e.InvalidParameterValue(f"{name} specified more than once")
            seen.add(name)
            if name == "TICK INTERVAL":
                if not isinstance(value, str):
                    raise e.InvalidParameterValue("TICK INTERVAL requires a value, e.g. '1s'")
                config["tick"] = parse_interval(value)
            elif name == "AS OF":
                config["as_of"] = _unsigned(name, value)
            elif name == "UP TO":
                config["up_to"] = _unsigned(name, value)
            elif name in self.extra:
                key, reader, _ = self.extra[name]
                config[key] = reader(name, value)
            else:
                raise e.InvalidParameterValue(f"LOAD GENERATOR {self.name} does not support the option {name}")
        if config["up_to"] is not None and config["up_to"] < config["as_of"]:
            raise e.InvalidParameterValue(f"UP TO ({config['up_to']}) cannot be less than AS OF ({config['as_of']})")
        return json.dumps(config, sort_keys=True)

    def generator(self, config: dict[str, Any]) -> Generator:
        raise NotImplementedError

    def open(self, config: str, context: SourceContext) -> UpstreamReader:
        parsed = json.loads(config)
        return TickingReader(self.generator(parsed), parsed, self.snapshot_ticks)

    def primary_output(self, config: str) -> str | None:
        return None

    def progress_row(self, offset: str) -> dict[str, object]:
        return {"offset": int(offset)}

    def resume_offset(self, row: dict[str, object]) -> str | None:
        value = row.get("offset")
        return None if value is None else str(value)


def table(spec: SubsourceSpec, columns: Mapping[str, Sequence[Any]]) -> pa.Table:
    """Rows for `spec` from Python lists (typed by the spec's columns; Arrow casts them when ingestion stores)."""
    from sparkwire.pgtypes.mapping import arrow_type_for_pg

    return pa.table({c.name: pa.array(columns[c.name], arrow_type_for_pg(c.type_oid, c.typmod)) for c in spec.columns})

