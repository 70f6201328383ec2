"""Micro-benchmark of DataRow encoding: rows/s for 1M rows of (int8, text, numeric(12,2)), text and binary format;
then, for small results, the two ways `encode_data_rows` can encode a batch, side by side.

Run: `python bench/encode.py [rows]`. Measures `encode_data_rows` alone (no socket), over 64Ki-row batches as an
engine would stream them, best of three runs. The second table times one batch of 8 to 64 rows, median of 300,
per value (`rows.encode_by_values`, what batches under `SMALL_BATCH` rows take) and per column
(`rows.encode_by_columns`, what larger ones take), for a narrow catalog-like result (int4, name, bool, int8) and a
wide one like the activity log's (20 columns: text, timestamptz, float8, int8, bytea, text[]); `SMALL_BATCH` is set
where the per-value way stops being the cheaper one.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.pgtypes import EncodeOptions, encode_data_rows, rows

BATCH_ROWS = 65536


def make_table(rows: int) -> pa.Table:
    ids = pa.array(np.arange(rows, dtype=np.int64) * 7919)
    names = pc.binary_join_element_wise(pa.scalar("name-"), pc.cast(ids, pa.string()), "")
    prices = pc.cast(pc.divide(pc.cast(ids, pa.float64()), 100.0), pa.decimal128(12, 2))
    return pa.table({"id": ids, "name": names, "price": prices})


def rows_per_second(table: pa.Table, fmt: int) -> float:
    options = EncodeOptions()
    oids = [20, 25, 1700]
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        size = 0
        for batch in table.to_batches(max_chunksize=BATCH_ROWS):
            size += len(encode_data_rows(batch, oids, [fmt] * 3, options))
        best = min(best, time.perf_counter() - start)
    return float(table.num_rows / best)


def _narrow(n: int) -> tuple[pa.RecordBatch, list[int]]:
    batch = pa.record_batch(
        [pa.array(range(n), pa.int32()), pa.array([f"relation_{i}" for i in range(n)]),
         pa.array([i % 2 == 0 for i in range(n)]), pa.array(range(n), pa.int64())],
        names=["oid", "relname", "relhasindex", "reltuples"],
    )
    return batch, [26, 19, 16, 20]


def _wide(n: int) -> tuple[pa.RecordBatch, list[int]]:
    stamps = pa.array([1_764_000_000_000_000 + i for i in range(n)], pa.int64()).cast(pa.timestamp("us", "UTC"))
    columns: list[pa.Array] = []
    oids: list[int] = []
    for i in range(10):
        columns.append(pa.array([f"value {i} of row {r}" if r % 7 else None for r in range(n)]))
        oids.append(25)
    for _ in range(4):
        columns.append(stamps)
        oids.append(1184)
    columns += [pa.array([r / 3 for r in range(n)]), pa.array([r / 7 for r in range(n)])]
    oids += [701, 701]
    columns += [pa.array(range(n), pa.int64()), pa.array(range(n), pa.int64())]
    oids += [20, 20]
    columns.append(pa.array([bytes([r % 256]) * 32 for r in range(n)]))
    oids.append(17)
    columns.append(pa.array([["public", f"s{r}"] for r in range(n)]))
    oids.append(1009)
    return pa.record_batch(columns, names=[f"c{i}" for i in range(len(columns))]), oids


def _median_us(fn: Callable[[], bytes]) -> float:
    for _ in range(20):
        fn()
    times = []
    for _ in range(300):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(sorted(times)[len(times) // 2] * 1e6)


def small_batches() -> None:
    options = EncodeOptions()
    print(f"\none small batch, text format, median µs (SMALL_BATCH = {rows.SMALL_BATCH})")
    print(f"{'rows':>5} {'narrow per value':>17} {'per column':>11} {'wide per value':>15} {'per column':>11}")
    for n in (8, 16, 24, 32, 40, 48, 64):
        line = f"{n:>5}"
        for make, width in ((_narrow, 17), (_wide, 15)):
            batch, oids = make(n)
            formats = [0] * len(oids)
            per_value = _median_us(functools.partial(rows.encode_by_values, batch, oids, formats, options))
            per_column = _median_us(functools.partial(rows.encode_by_columns, batch, oids, formats, options))
            line += f" {per_value:>{width}.0f} {per_column:>11.0f}"
        print(line)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    table = make_table(count)
    for label, fmt in (("text", 0), ("binary", 1)):
        print(f"{label:6s} {rows_per_second(table, fmt):12,.0f} rows/s  ({count:,} rows of int8, text, numeric(12,2))")
    small_batches()


if __name__ == "__main__":
    main()
