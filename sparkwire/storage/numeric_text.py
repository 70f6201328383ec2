"""The largest display scale of a text-held numeric column: what Spark computes such a column with.

An unconstrained `numeric` column is stored as each value's exact text (PostgreSQL's numeric has a display scale
per value and no precision limit; no Arrow or Parquet type holds that). Spark selects it as that text; wherever it
computes with it (arithmetic, comparisons, aggregates) the translator casts it to DECIMAL(38, s) with `s` the
largest scale present (`max_scale`), so no value is rounded: a value with more integer digits than 38 − s leaves
room for fails the cast with 22003, never silently.

Contract: `max_scale(files, column)` reads only that column of the visible rows of `files` (deleted rows included:
a larger scale is harmless), one file at a time, each file's answer cached by its path (data files are immutable).
NaN, Infinity and NULL count as scale 0.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sparkwire.storage.model import DataFile

_CACHE_SIZE = 4096
_cache: OrderedDict[tuple[Path, str], int] = OrderedDict()
_lock = threading.Lock()


def text_scale(values: pa.Array | pa.ChunkedArray) -> int:
    """The largest number of digits after the decimal point among `values` (text)."""
    if len(values) == 0:
        return 0
    text = pc.cast(values, pa.string())
    dot = pc.find_substring(text, ".")
    lengths = pc.utf8_length(text)
    scales = pc.if_else(pc.greater_equal(dot, 0), pc.subtract(pc.subtract(lengths, dot), 1), 0)
    largest = pc.max(scales).as_py()
    return int(largest) if largest is not None else 0


def _file_scale(path: Path, column: str) -> int:
    key = (path, column)
    with _lock:
        known = _cache.get(key)
        if known is not None:
            _cache.move_to_end(key)
            return known
    with pq.ParquetFile(path, memory_map=True) as parquet:
        held = column in parquet.schema_arrow.names
        scale = text_scale(parquet.read(columns=[column]).column(0)) if held else 0
    with _lock:
        _cache[key] = scale
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return scale


def max_scale(files: Sequence[DataFile], column: str) -> int:
    return max((_file_scale(f.path, column) for f in files), default=0)
