"""The relations a Spark query reads, as versioned temporary views shared by every session.

Contract:
- A `Source` is one relation as Spark sees it: `name` (the temporary view), `columns` (column -> PostgreSQL type
  name, for the translator) and how to build its DataFrame. Its name carries a content version, so a name always
  means the same rows and can be shared by every session on the one SparkSession:
  - `table_source(item, schema, files, exact=...)`: a storage table's data files, `sw_<id>_<digest>`. The digest
    covers the schema and each file's path and deleted positions: their count when `exact` is False (sound for
    committed files, whose deletion vectors only grow), their bytes when True (a transaction's private view). A
    table of at most `SMALL_TABLE_ROWS` live rows whose column types reach Spark the same either way is read here
    and registered as its rows (a local relation): Spark broadcasts it without a scan job, which made a 10-way join
    of small tables ~3x faster (issue 21); anything larger is scanned by Spark from its Parquet files.
  - `SparkRelations.arrow_source(key, table, columns)`: an Arrow table that stands for a relation (a materialized
    view's contents). The same `key` and the same table object reuse one name; otherwise a new name is taken and
    the old one is retired: dropped as soon as no query pins it, so superseded contents do not stay in the JVM.
  - `content_source(prefix, table)`: a small Arrow table (a builtin relation's rows), named by a digest of its
    contents.
- `Source.small`: its rows are held in memory, `SMALL_TABLE_ROWS` at most (a small table, a small materialized view,
  builtin rows). A query that reads only small sources is a small-input query: it runs in the engine's small-input
  session (`engine.session_for(small=True)`: interpreted, one partition, one job), where its sources are
  registered as one partition each (through coalesce(1)), and also as the rows themselves, `rows_view(name)`, for
  the queries Spark's optimizer answers without a job (row_scans.py).
- `SparkRelations.pinned(sources, small=False)` (a context manager) registers the sources not yet registered (in
  the small-input session with `small`) and keeps all of them registered until it exits; analyse and run the query
  inside it. Registered views are kept for reuse and
  evicted least-recently-used beyond `capacity` (retired ones first), never while pinned. `registrations` counts
  the views created (a reused source costs a dictionary lookup). Every method is thread-safe; registration is
  serialized (one lock, held while a missing view is built: a file listing or an Arrow upload).
- `forget_registrations()`: the SparkSession was replaced (engine restart: its temporary views died with the old
  JVM), so every source is registered again at its next use; pins and Arrow names are kept (a name still means the
  same rows). The engine calls it before the new session serves statements (`DataPlane`).
- Failures are PgErrors (engine/spark_errors.py).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from sparkwire import errors
from sparkwire.catalog.objects import Item
from sparkwire.engine.spark import SparkEngine
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow
from sparkwire.pgtypes.registry import format_type
from sparkwire.planner.execute.spark.row_scans import rows_view
from sparkwire.storage.files import read_data_files
from sparkwire.storage.model import DataFile
from sparkwire.storage.numeric_text import max_scale, text_scale
from sparkwire.storage.spark_reader import spark_dataframe_of_files

NUMERIC_OID = 1700
DEFAULT_CAPACITY = 256
SMALL_TABLE_ROWS = 10_000  # a table with at most this many live rows is registered as rows, not Parquet files


@dataclass(frozen=True, eq=False)
class Source:
    name: str
    columns: Mapping[str, str]
    build: Callable[[SparkSession], DataFrame] = field(repr=False)
    # unconstrained numeric columns held as text -> the largest scale present (storage/numeric_text.py)
    numeric_scales: Mapping[str, int] = field(default_factory=dict)
    rows: int | None = None  # handed to Spark as this many rows held in memory; None: Spark scans data files

    @property
    def small(self) -> bool:
        """A few thousand rows in memory at most: a query that reads only such sources is a small-input query."""
        return self.rows is not None and self.rows <= SMALL_TABLE_ROWS


def item_columns(item: Item) -> dict[str, str]:
    """A catalog relation's columns with their PostgreSQL type names."""
    return {c.name: format_type(c.type_oid, c.typmod) for c in item.columns}


def catalog_arrow_schema(item: Item) -> pa.Schema:
    """The Arrow schema of a catalog relation's columns (storage's own schema when a table has data)."""
    return pa.schema([(c.name, arrow_type_for_pg(c.type_oid, c.typmod)) for c in item.columns])


def arrow_columns(schema: pa.Schema) -> dict[str, str]:
    """PostgreSQL type names for an Arrow schema's columns."""
    return {f.name: format_type(*pg_type_for_arrow(f.type)) for f in schema}


def _text_numeric_columns(item: Item, schema: pa.Schema) -> list[str]:
    """The columns of `item` of type numeric that `schema` holds as text (unconstrained numeric)."""
    names = set(schema.names)
    return [
        c.name
        for c in item.columns
        if c.type_oid == NUMERIC_OID and c.name in names and pa.types.is_string(schema.field(c.name).type)
    ]


def _files_digest(schema: pa.Schema, files: Sequence[DataFile], exact: bool) -> str:
    digest = hashlib.blake2b(schema.to_string().encode(), digest_size=10)
    for data_file in files:
        digest.update(f"\0{data_file.path}\0{data_file.rows}\0{len(data_file.deleted)}".encode())
        if exact:
            digest.update(data_file.deleted.tobytes())
    return digest.hexdigest()


def _local_type(dtype: pa.DataType) -> bool:
    """Types that reach Spark the same from Arrow rows as from Parquet (not: timestamp without time zone, which
    Arrow rows would make a TIMESTAMP; time; intervals; unsigned integers)."""
    if pa.types.is_list(dtype):
        return _local_type(dtype.value_type)
    if pa.types.is_timestamp(dtype):
        return dtype.tz is not None
    return any(
        check(dtype)
        for check in (
            pa.types.is_signed_integer,
            pa.types.is_floating,
            pa.types.is_decimal,
            pa.types.is_boolean,
            pa.types.is_string,
            pa.types.is_binary,
            pa.types.is_date32,
        )
    )


def _rows_of_files(schema: pa.Schema, files: Sequence[DataFile]) -> pa.Table:
    try:
        return read_data_files(schema, files, None, False)
    except FileNotFoundError:
        message = "the data of a table at this timestamp is no longer available"
        raise errors.ObjectNotInPrerequisiteState(message) from None


def table_source(item: Item, schema: pa.Schema, files: Sequence[DataFile], *, exact: bool = False) -> Source:
    listed = tuple(files)
    scales = {name: max_scale(listed, name) for name in _text_numeric_columns(item, schema)}
    rows = sum(f.live_rows for f in listed)
    if listed and rows <= SMALL_TABLE_ROWS and all(_local_type(f.type) for f in schema):
        # a small table goes to Spark as its rows: a broadcast of them needs no scan job (3x faster many-way joins)
        return Source(
            f"sw_{item.id}_{_files_digest(schema, listed, exact)}",
            item_columns(item),
            lambda spark: spark.createDataFrame(_rows_of_files(schema, listed)),
            scales,
            rows,
        )
    return Source(
        f"sw_{item.id}_{_files_digest(schema, listed, exact)}",
        item_columns(item),
        lambda spark: spark_dataframe_of_files(spark, schema, listed),
        scales,
    )


def _spark_type(dtype: pa.DataType) -> pa.DataType:
    """The closest type Spark accepts from Arrow: no unsigned integers, no large or view strings and binaries."""
    if pa.types.is_unsigned_integer(dtype):
        return {8: pa.int16(), 16: pa.int32(), 32: pa.int64()}.get(dtype.bit_width, pa.decimal128(20, 0))
    if pa.types.is_large_string(dtype) or pa.types.is_string_view(dtype):
        return pa.string()
    if pa.types.is_large_binary(dtype) or pa.types.is_binary_view(dtype):
        return pa.binary()
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype) or pa.types.is_list_view(dtype):
        return pa.list_(_spark_type(dtype.value_type))
    return dtype


def spark_compatible(table: pa.Table) -> pa.Table:
    """`table` with every column cast to a type Spark can take (e.g. DuckDB's UINTEGER oids become bigint)."""
    schema = pa.schema([f.with_type(_spark_type(f.type)) for f in table.schema])
    return table if schema.equals(table.schema) else table.cast(schema)


def content_source(prefix: str, table: pa.Table) -> Source:
    """A (small) Arrow table under a name derived from its contents: `sw_<prefix>_<digest>`; its columns are made
    `spark_compatible` first (the translator sees those types)."""
    table = spark_compatible(table)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    digest = hashlib.blake2b(sink.getvalue().to_pybytes(), digest_size=10).hexdigest()
    def build(spark: SparkSession) -> DataFrame:
        return spark.createDataFrame(table)

    return Source(f"sw_{prefix}_{digest}", arrow_columns(table.schema), build, rows=table.num_rows)


class SparkRelations:
    """Versioned temporary views on one SparkSession (see the module docstring)."""

    def __init__(self, engine: SparkEngine, capacity: int = DEFAULT_CAPACITY) -> None:
        self._engine = engine
        self._capacity = capacity
        self._lock = threading.Lock()
        self._registered: OrderedDict[tuple[str, bool], Source] = OrderedDict()  # (name, in the small session)
        self._pins: dict[str, int] = {}
        self._arrow: dict[str, tuple[pa.Table, str]] = {}
        self._retired: set[str] = set()  # superseded Arrow registrations: dropped once no query pins them
        self._numbers = itertools.count(1)
        self.registrations = 0

    def arrow_source(self, key: str, table: pa.Table, columns: Mapping[str, str] | None = None) -> Source:
        """`table` under a name derived from `key`, reused while the same table object is passed for `key`."""
        with self._lock:
            known = self._arrow.get(key)
            if known is not None and known[0] is table:
                name = known[1]
            else:
                if known is not None:
                    self._retired.add(known[1])
                name = f"sw_{key}_r{next(self._numbers)}"
                self._arrow[key] = (table, name)
        types = dict(columns) if columns is not None else arrow_columns(table.schema)
        scales = {
            f.name: text_scale(table.column(f.name))
            for f in table.schema
            if pa.types.is_string(f.type) and types.get(f.name) == "numeric"
        }
        return Source(name, types, lambda spark: spark.createDataFrame(spark_compatible(table)), scales, table.num_rows)

    @contextmanager
    def pinned(self, sources: Sequence[Source], small: bool = False) -> Iterator[None]:
        """Register what is missing and keep every source registered until the block ends; `small`: in the
        small-input session (engine.session_for), as one partition each."""
        with self._lock:
            for source in sources:
                self._pins[source.name] = self._pins.get(source.name, 0) + 1
            try:
                for source in sources:
                    self._ensure(source, small)
                self._evict()
            except BaseException:
                self._unpin(sources)
                raise
        try:
            yield
        finally:
            with self._lock:
                self._unpin(sources)

    def _unpin(self, sources: Sequence[Source]) -> None:
        for source in sources:
            left = self._pins[source.name] - 1
            if left:
                self._pins[source.name] = left
            else:
                del self._pins[source.name]

    def _ensure(self, source: Source, small: bool) -> None:
        key = (source.name, small)
        if key in self._registered:
            self._registered.move_to_end(key)
            return
        generation = self._engine.generation
        try:
            frame = source.build(self._engine.session_for(small))
            if small:  # as its rows too, for the queries the optimizer answers (row_scans.py)
                frame.createOrReplaceTempView(rows_view(source.name))
            (frame.coalesce(1) if small else frame).createOrReplaceTempView(source.name)
        except errors.PgError:
            raise
        except Exception as exc:  # a JVM found gone here fails the statement with 58000, as in the query's run
            raise self._engine.failure(exc, generation) from None
        self._registered[key] = source
        self.registrations += 1

    def _evict(self) -> None:
        unpinned = [key for key in self._registered if key[0] not in self._pins]
        excess = max(0, len(self._registered) - self._capacity)
        victims = [key for key in unpinned if key[0] in self._retired]
        victims += [key for key in unpinned if key[0] not in self._retired][: max(0, excess - len(victims))]
        if not victims:
            return
        for key in victims:
            del self._registered[key]
            catalog = self._engine.session_for(key[1]).catalog
            catalog.dropTempView(key[0])
            if key[1]:
                catalog.dropTempView(rows_view(key[0]))
        registered = {name for name, _ in self._registered}
        dropped = {name for name, _ in victims} - registered
        self._retired.intersection_update(registered)
        self._arrow = {key: known for key, known in self._arrow.items() if known[1] not in dropped}

    def forget_registrations(self) -> None:
        with self._lock:
            self._registered.clear()
            self._retired.clear()

    def is_registered(self, name: str) -> bool:
        with self._lock:
            return any(key[0] == name for key in self._registered)
