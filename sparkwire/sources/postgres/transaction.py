"""One upstream transaction's changes, consolidated, and turned into the contract's `Changes` per subsource.

Contract: `Transaction.insert(name, row)` / `delete(name, row)` count a whole row (raw text values) up or down;
`changes(specs)` gives, per subsource with a net change, inserts for rows counted up and deletes for rows counted
down, typed by the subsource's columns. Consolidating first makes the contract's "deletes apply before inserts"
hold for any order inside the transaction (an INSERT then DELETE of one row nets to nothing; an UPDATE of a row
inserted in the same transaction nets to one insert of the final row).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.errors import PgError
from sparkwire.pgtypes.copy.convert import convert_column
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.sources.postgres.pgoutput import Row
from sparkwire.sources.reader import Changes, SourceError, SubsourceSpec

_OPTIONS = EncodeOptions()
TIMESTAMPTZ = 1184
_UTC_TEXT = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?\+00$"


class Transaction:
    __slots__ = ("bytes", "counts", "messages")

    def __init__(self) -> None:
        self.counts: dict[str, Counter[Row]] = {}
        self.messages = 0
        self.bytes = 0

    def insert(self, name: str, row: Row) -> None:
        self.counts.setdefault(name, Counter())[row] += 1

    def delete(self, name: str, row: Row) -> None:
        self.counts.setdefault(name, Counter())[row] -= 1

    def changes(self, specs: dict[str, SubsourceSpec]) -> dict[str, Changes]:
        out: dict[str, Changes] = {}
        for name, counts in self.counts.items():
            inserts = [row for row, n in counts.items() for _ in range(n)]
            deletes = [row for row, n in counts.items() for _ in range(-n)]
            if inserts or deletes:
                spec = specs[name]
                with unreadable(spec):
                    out[name] = Changes(
                        inserts=rows_table(spec, inserts) if inserts else None,
                        deletes=rows_table(spec, deletes) if deletes else None,
                    )
        return out


@contextmanager
def unreadable(spec: SubsourceSpec) -> Iterator[None]:
    """A value sparkwire cannot hold (a BC timestamp, a date past 294276 AD) fails its subsource, never the source
    forever: `SourceError(subsource=…)` naming the value and the way out (TEXT COLUMNS)."""
    try:
        yield
    except PgError as error:
        where = f" ({error.detail})" if error.detail else ""
        raise SourceError(
            f"upstream table {spec.upstream} has a value sparkwire cannot read: {error.message}{where}; list the "
            "column in TEXT COLUMNS to read it as text, then recreate the source",
            subsource=spec.name,
        ) from None


def rows_table(spec: SubsourceSpec, rows: list[Row]) -> pa.Table:
    """Rows of raw text values (pgoutput's) as an Arrow table of the subsource's columns."""
    arrays = []
    for i, column in enumerate(spec.columns):
        raw = [row[i] for row in rows]
        fast = utc_timestamps(pa.array(raw, pa.binary()).cast(pa.string())) if column.type_oid == TIMESTAMPTZ else None
        if fast is None:
            where = _where(spec.upstream, column.name)
            target = arrow_type_for_pg(column.type_oid, column.typmod)
            fast = convert_column(raw, column.type_oid, target, _OPTIONS, where)
        arrays.append(fast)
    return pa.Table.from_arrays(arrays, names=[c.name for c in spec.columns])


def utc_timestamps(text: pa.Array) -> pa.Array | None:
    """timestamptz text as the upstream prints it in UTC (`2024-01-02 03:04:05.123456+00`), vectorized; None when
    any value is spelled otherwise (BC, infinity, years past 9999: PostgreSQL's input rules take those)."""
    if not pc.all(pc.match_substring_regex(text, _UTC_TEXT)).as_py():
        return None
    try:
        return pc.utf8_slice_codeunits(text, 0, -3).cast(pa.timestamp("us")).cast(pa.timestamp("us", "UTC"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _where(table: str, column: str) -> Callable[[int], str]:
    return lambda row: f"replicated row of {table}, column {column}"
