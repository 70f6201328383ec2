"""What sparkwire adds on top of Spark, and what an index buys (issue 3, item 7).

Run: `.venv/bin/python -m bench.spark_overhead [--rows 1000000] [--repeat 15]`. It starts `sparkwire serve` (temp
data dir, embedded local[*] Spark) and, in this process, a PySpark session with the same settings. The same data
(`big`: id, k, v over `--rows` rows; `dim`: 10 rows) is loaded into sparkwire with SQL, and the very Parquet files
sparkwire's storage wrote are read by the direct session, so both run the same SQL over the same bytes.
Then, alternating between the two, it times through psycopg (extended protocol, rows fetched) and through
`spark.sql(q).toArrow()`:

- a point lookup, an aggregation over every row and a join, each warmed up first (JIT): median added latency
  (median through sparkwire − median direct; also the median of the paired per-round differences), goal ≤ 5 ms;
- a literal lookup on a view over `big`, without and with `CREATE INDEX … (id)` on it: goal ≤ 2 ms median with the
  index and ≥ 30× faster than without.
It prints a table and the goals met or missed; it asserts nothing and always exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import psycopg
from pyspark.sql import SparkSession

from sparkwire.engine.spark_config import spark_conf
from tests.support.server import SparkwireServer

QUERIES = {
    "point lookup": "SELECT id, k, v FROM big WHERE id = 4242",
    "aggregation": "SELECT k, count(*) AS n, sum(v) AS s FROM big GROUP BY k ORDER BY k",
    "join": "SELECT d.name, count(*) AS n FROM big b JOIN dim d ON b.k = d.k GROUP BY d.name ORDER BY d.name",
}
LOOKUP = "SELECT id, v FROM bigv WHERE id = 4242"
WARMUP = 5


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000.0


def _load(conn: psycopg.Connection[tuple[object, ...]], rows: int) -> None:
    conn.execute("CREATE TABLE big (id bigint NOT NULL, k int NOT NULL, v double precision)")
    conn.execute(
        f"INSERT INTO big SELECT i, (i % 10)::int, i * 0.5 FROM generate_series(1, {rows}) AS g(i)"
    )
    conn.execute("CREATE TABLE dim (k int, name text)")
    conn.execute("INSERT INTO dim SELECT i, 'name ' || i FROM generate_series(0, 9) AS g(i)")
    conn.execute("CREATE VIEW bigv AS SELECT id, v FROM big")


def _direct_session(tmp: Path, storage: Path, ids: dict[str, str]) -> SparkSession:
    builder = SparkSession.builder.master("local[*]")
    for key, value in spark_conf(tmp / "direct-spark").items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    for table in ("big", "dim"):
        files = sorted(str(p) for p in (storage / ids[table]).glob("*.parquet"))
        spark.read.parquet(*files).createOrReplaceTempView(table)
    spark.sql("SELECT id, v FROM big").createOrReplaceTempView("bigv")
    return spark


def _fetch(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> object:
    return conn.execute(sql).fetchall()


def _direct(spark: SparkSession, sql: str) -> object:
    return spark.sql(sql).toArrow()


def _median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sparkwire-bench-") as tmp_name:
        tmp = Path(tmp_name)
        srv = SparkwireServer.start(tmp / "sw", wait=120)
        try:
            with psycopg.connect(srv.dsn, autocommit=True) as conn:
                started = time.perf_counter()
                _load(conn, args.rows)
                print(f"loaded {args.rows:,} rows through sparkwire in {time.perf_counter() - started:.1f} s")
                ids = {
                    str(name): str(table_id)
                    for name, table_id in conn.execute(
                        "SELECT name, id FROM mz_catalog.mz_tables WHERE name IN ('big', 'dim')"
                    ).fetchall()
                }
                spark = _direct_session(tmp, tmp / "sw" / "storage", ids)
                for sql in [*QUERIES.values(), LOOKUP]:  # check both sides agree, then warm them up (JIT)
                    ours = conn.execute(sql).fetchall()
                    theirs = [tuple(r) for r in spark.sql(sql).collect()]
                    same = sorted(map(repr, ours)) == sorted(map(repr, theirs))
                    print(f"  same rows for {sql[:60]!r}: {same}")
                    for _ in range(WARMUP):
                        _fetch(conn, sql)
                        _direct(spark, sql)
                print(
                    f"\n{'query':<16} {'sparkwire ms':>13} {'direct ms':>10} {'added ms':>9} {'paired':>8}  goal ≤ 5 ms"
                )
                for label, sql in QUERIES.items():
                    sw_times: list[float] = []
                    direct: list[float] = []
                    for _ in range(args.repeat):
                        sw_times.append(_timed(partial(_fetch, conn, sql)))
                        direct.append(_timed(partial(_direct, spark, sql)))
                    added = _median(sw_times) - _median(direct)
                    paired = _median([a - b for a, b in zip(sw_times, direct, strict=True)])
                    print(
                        f"{label:<16} {_median(sw_times):>13.2f} {_median(direct):>10.2f} {added:>9.2f} "
                        f"{paired:>8.2f}  {'met' if added <= 5 else 'MISSED'}"
                    )
                without = [_timed(lambda: conn.execute(LOOKUP).fetchall()) for _ in range(args.repeat)]
                conn.execute("CREATE INDEX bigv_id_idx ON bigv (id)")
                conn.execute(LOOKUP).fetchall()  # builds the resident index
                with_index = [_timed(lambda: conn.execute(LOOKUP).fetchall()) for _ in range(args.repeat * 10)]
                plan = conn.execute(f"EXPLAIN {LOOKUP}").fetchall()
                speedup = _median(without) / _median(with_index)
                print(f"\nindexed lookup on a {args.rows:,}-row view: {LOOKUP}")
                print(f"  without index: median {_median(without):.2f} ms (Spark)")
                print(
                    f"  with index:    median {_median(with_index):.3f} ms "
                    f"({'met' if _median(with_index) <= 2 else 'MISSED'} goal ≤ 2 ms); "
                    f"{speedup:.0f}× faster ({'met' if speedup >= 30 else 'MISSED'} goal ≥ 30×)"
                )
                print("  EXPLAIN: " + " / ".join(str(r[0]) for r in plan))
                spark.stop()
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
