"""What `SparkEngine` hands back: a finished result as record batches (`SparkArrowStream`) and an analysed query
(`PreparedSpark`). See engine/spark.py for how they are made and used."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql import DataFrame

from sparkwire.engine.spark_errors import to_pg_error


class SparkArrowStream:
    """A finished Spark result handed out as record batches of at most `batch_rows` rows."""

    def __init__(self, table: pa.Table, batch_rows: int) -> None:
        self.schema: pa.Schema = table.schema
        self.num_rows: int = table.num_rows
        self.nbytes: int = table.nbytes
        self._batches: Iterator[pa.RecordBatch] = iter(table.to_batches(max_chunksize=batch_rows))

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        return next(self._batches)

    def close(self) -> None:
        self._batches = iter(())


@dataclass(frozen=True)
class PreparedSpark:
    """An analysed Spark query for one Describe + Execute: the schema is known and the run skips re-analysis.

    Run it once: a second run may reuse the first run's shuffle output (see the module docstring)."""

    sql: str
    dataframe: DataFrame

    @property
    def schema(self) -> pa.Schema:
        from pyspark.sql.pandas.types import to_arrow_schema

        try:
            schema: pa.Schema = to_arrow_schema(self.dataframe.schema, timezone="UTC")
        except Exception as exc:
            raise to_pg_error(exc) from None
        # Spark marks generated column names in field metadata; the Arrow result of a run carries none
        return pa.schema([f.remove_metadata() for f in schema])
