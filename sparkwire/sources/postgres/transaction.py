"""One upstream transaction's changes, consolidated, and turned into the contract's `Changes` per subsource.

Contract: `Transaction.insert(name, row)` / `delete(name, row)` count a whole row (raw text values) up or down;
`changes(specs)` gives, per subsource with a net change, inserts for rows counted up and deletes for rows counted
down, typed by the subsource's columns. Consolidating first makes the contract's "deletes apply before inserts"
hold for any order inside the transaction (an INSERT then DELETE of one row nets to nothing; an UPDATE of a row
inserted in the same transaction nets to one insert of the final row).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pyarrow as pa

from sparkwire.pgtypes.copy.convert import convert_column
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.sources.postgres.pgoutput import Row
from sparkwire.sources.reader import Changes, SubsourceSpec

_OPTIONS = EncodeOptions()


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
                out[name] = Changes(
                    inserts=rows_table(spec, inserts) if inserts else None,
                    deletes=rows_table(spec, deletes) if deletes else None,
                )
        return out


def rows_table(spec: SubsourceSpec, rows: list[Row]) -> pa.Table:
    """Rows of raw text values (pgoutput's) as an Arrow table of the subsource's columns."""
    arrays = []
    for i, column in enumerate(spec.columns):
        raw = [row[i] for row in rows]
        where = _where(spec.upstream, column.name)
        target = arrow_type_for_pg(column.type_oid, column.typmod)
        arrays.append(convert_column(raw, column.type_oid, target, _OPTIONS, where))
    return pa.Table.from_arrays(arrays, names=[c.name for c in spec.columns])


def _where(table: str, column: str) -> Callable[[int], str]:
    return lambda row: f"replicated row of {table}, column {column}"
