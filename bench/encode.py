"""Micro-benchmark of DataRow encoding: rows/s for 1M rows of (int8, text, numeric(12,2)), text and binary format.

Run: `python bench/encode.py [rows]`. Measures `encode_data_rows` alone (no socket), over 64Ki-row batches as an
engine would stream them, best of three runs.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.pgtypes import EncodeOptions, encode_data_rows

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


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    table = make_table(rows)
    for label, fmt in (("text", 0), ("binary", 1)):
        print(f"{label:6s} {rows_per_second(table, fmt):12,.0f} rows/s  ({rows:,} rows of int8, text, numeric(12,2))")


if __name__ == "__main__":
    main()
