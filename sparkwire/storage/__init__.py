"""STORAGE (seed 001): tables as definite collections — durable, explicitly timestamped, identical for every
reader at a timestamp.

How a caller uses it:

    storage = Storage.open(data_dir)                       # <data_dir>/storage/, one process at a time
    storage.create_table("u7", arrow_schema)
    txn = storage.begin()                                  # optimistic; any number of tables
    txn.append("u7", arrow_table)                          # INSERT / COPY: pure pyarrow, a new Parquet file
    txn.delete_where("u7", lambda t: pc.equal(t["a"], 1))  # DELETE: a row-wise mask, or row ids
    txn.replace("u8", arrow_table)                         # TRUNCATE + INSERT (e.g. a recomputed view)
    ts = txn.commit(catalog.write_ts)                      # all tables at one timestamp, or SerializationFailure
    snap = storage.snapshot(ts)                            # or snapshot() for the latest commit
    snap.read_arrow("u7", row_ids=True)                    # pyarrow; ROW_ID_COLUMN feeds delete_where (UPDATE)
    snap.files("u7")                                       # Parquet paths + deleted positions
    spark_reader.spark_dataframe(spark, snap, "u7")        # the same rows as a lazy Spark DataFrame
    storage.compact(since=oldest_read_ts, timestamp=catalog.write_ts)

Layout on disk: `storage/manifest.db` (SQLite: the manifest of every table, one transaction per commit — see
`manifest` for why one database is the global commit record), `storage/<table id>/<file no>.parquet` (immutable
data files). Deletes are deletion vectors (positions per file, per timestamp); compaction rewrites them away.

Modules: `model` (immutable state, visibility, row ids), `changes` (a commit as data; apply and prune),
`manifest` (SQLite), `files` (Parquet I/O, orphans), `snapshot`, `txn`, `compaction` (policy), `storage`,
and `spark_reader` (imported on its own, so that using storage does not import pyspark).
"""

from sparkwire.storage.files import ROW_ID_COLUMN
from sparkwire.storage.model import DataFile
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.storage import CompactionResult, Storage
from sparkwire.storage.txn import MaskFn, RowSelector, Timestamp, WriteTxn

__all__ = [
    "ROW_ID_COLUMN",
    "CompactionResult",
    "DataFile",
    "MaskFn",
    "RowSelector",
    "Snapshot",
    "Storage",
    "Timestamp",
    "WriteTxn",
]
