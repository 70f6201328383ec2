"""A table's data files as a Spark DataFrame: the Parquet files minus their deleted rows.

Contract: `spark_dataframe(spark, snapshot, table_id)` returns a lazy DataFrame with exactly the rows (and the
column names and types) `snapshot.read_arrow(table_id)` returns; `spark_dataframe_of_files(spark, schema, files)`
does the same for any list of `DataFile`s with their Arrow schema (e.g. `WriteTxn.data_files`, which include a
transaction's own pending files). Building either runs no Spark job. Spark reads the files itself (the schema is
given, so no footer inference); deleted positions become a broadcast anti-join on Spark's hidden
`_metadata.file_name` / `_metadata.row_index` columns (file names are unique within a table). Compaction keeps the
deletion vectors few, so the anti-join side stays small.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.pandas.types import from_arrow_schema

from sparkwire.storage.model import DataFile
from sparkwire.storage.snapshot import Snapshot

_FILE = "__sw_file_name"
_ROW = "__sw_row_index"


def spark_dataframe(spark: SparkSession, snapshot: Snapshot, table_id: str) -> DataFrame:
    return spark_dataframe_of_files(spark, snapshot.schema(table_id), snapshot.files(table_id))


def spark_dataframe_of_files(spark: SparkSession, schema: pa.Schema, files: Sequence[DataFile]) -> DataFrame:
    if not files:
        return spark.createDataFrame(schema.empty_table())
    frame = spark.read.schema(from_arrow_schema(schema)).parquet(*(str(f.path) for f in files))
    deleted = [f for f in files if len(f.deleted)]
    if not deleted:
        return frame
    deletes = pa.table(
        {
            _FILE: pa.array(np.repeat([f.path.name for f in deleted], [len(f.deleted) for f in deleted])),
            _ROW: pa.array(np.concatenate([f.deleted for f in deleted])),
        }
    )
    # SQL text and hints, not pyspark.sql.functions: those build classic or Connect columns by the process's mode,
    # and a cluster's own Spark application is a Connect session beside the embedded classic one
    located = frame.selectExpr("*", f"_metadata.file_name AS {_FILE}", f"_metadata.row_index AS {_ROW}")
    kept = located.join(spark.createDataFrame(deletes).hint("broadcast"), [_FILE, _ROW], "left_anti")
    return kept.drop(_FILE, _ROW)
