"""The upstream side that is plain SQL: where to connect, which tables a publication feeds, and their snapshot.

Contract: `UpstreamConfig` says where to connect (libpq keywords; the password already resolved from its secret)
and what to read (`publication`, optional `tables` filter, `text_columns`). `discover(config)` reads the
publication's tables and columns into `UpstreamTable`s, raising `SourceError` for what retrying will not fix (no
publication, a table without REPLICA IDENTITY FULL, a column type with no mapping and not in TEXT COLUMNS).
`snapshot(config, name, tables, rows)` copies every table inside the exported snapshot `name` (REPEATABLE READ,
`SET TRANSACTION SNAPSHOT`) with COPY … TO STDOUT (text) and returns each table's rows as one Arrow table.

Every connection (this one and the replication stream) fixes the settings that shape text output — UTC, ISO
dates, shortest-exact floats, hex bytea — so the values decode the same way whoever configured the upstream role.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg
import pyarrow as pa

from sparkwire.pgtypes.copy.text_in import CopyInParser
from sparkwire.pgtypes.registry import format_type
from sparkwire.sources.postgres.connection import PostgresConnection
from sparkwire.sources.postgres.stream import quote_ident
from sparkwire.sources.postgres.transaction import TIMESTAMPTZ, rows_table, unreadable, utc_timestamps
from sparkwire.sources.reader import SourceError, SubsourceColumn, SubsourceSpec

TEXT = 25
# Upstream types read as themselves; anything else must be listed in TEXT COLUMNS (read as its text output).
SUPPORTED_TYPES = frozenset(
    {16, 17, 20, 21, 23, 25, 114, 700, 701, 1042, 1043, 1082, 1083, 1114, 1184, 1186, 1700, 2950, 3802}
)
OUTPUT_SETTINGS = (
    "-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=3 -c bytea_output=hex"
)


@dataclass(frozen=True, slots=True)
class UpstreamConfig:
    host: str
    port: int
    user: str
    database: str
    publication: str
    password: str | None = None
    sslmode: str = "prefer"
    tables: tuple[str, ...] = ()  # FOR TABLES (schema.table, or table in public); empty: FOR ALL TABLES
    text_columns: tuple[str, ...] = ()  # schema.table.column, or table.column in public
    connect_timeout: int = 10

    def conninfo(self) -> str:
        connection = PostgresConnection(self.host, self.port, self.user, self.database, self.password, self.sslmode)
        return connection.conninfo(self.connect_timeout, OUTPUT_SETTINGS)


@dataclass(frozen=True, slots=True)
class UpstreamTable:
    """One published table: its subsource spec (columns as sparkwire reads them) and the upstream column types
    the replication stream must keep announcing (name, type oid, typmod) for the subsource to stay valid."""

    spec: SubsourceSpec
    upstream_columns: tuple[tuple[str, int, int], ...] = field(default=())


def connect(config: UpstreamConfig) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(config.conninfo(), autocommit=True)


def _qualified(name: str) -> str:
    return name if "." in name else f"public.{name}"


def discover(config: UpstreamConfig) -> list[UpstreamTable]:
    with connect(config) as conn:
        if conn.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (config.publication,)).fetchone() is None:
            raise SourceError(
                f'publication "{config.publication}" does not exist upstream: create it with CREATE PUBLICATION '
                f"{config.publication} FOR ALL TABLES (or FOR TABLE …) in database {config.database}"
            )
        rows = conn.execute(
            "SELECT c.oid, n.nspname, c.relname, c.relreplident FROM pg_publication_tables p "
            "JOIN pg_namespace n ON n.nspname = p.schemaname "
            "JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = p.tablename "
            "WHERE p.pubname = %s ORDER BY 2, 3",
            (config.publication,),
        ).fetchall()
        wanted = {_qualified(t) for t in config.tables}
        published = {f"{r[1]}.{r[2]}" for r in rows}
        missing = sorted(wanted - published)
        if missing:
            raise SourceError(f'table(s) {", ".join(missing)} not in publication "{config.publication}" upstream')
        tables = [r for r in rows if not wanted or f"{r[1]}.{r[2]}" in wanted]
        if not tables:
            raise SourceError(f'publication "{config.publication}" publishes no tables')
        not_full = [f"{r[1]}.{r[2]}" for r in tables if r[3] != "f"]
        if not_full:
            raise SourceError(
                f"table(s) {', '.join(not_full)} do not have REPLICA IDENTITY FULL; run ALTER TABLE … REPLICA "
                "IDENTITY FULL upstream so updates and deletes carry whole rows"
            )
        text_columns = {_qualified(c.rsplit(".", 1)[0]) + "." + c.rsplit(".", 1)[1] for c in config.text_columns}
        found = [_table(conn, int(str(oid)), str(schema), str(name), text_columns) for oid, schema, name, _ in tables]
    unsupported = [c for t in found for c in t[1]]
    if unsupported:
        raise SourceError(
            f"unsupported upstream column type(s): {', '.join(unsupported)}; list the column(s) in TEXT COLUMNS "
            "(…) to read them as text"
        )
    return [t[0] for t in found]


def _table(
    conn: psycopg.Connection[tuple[object, ...]], oid: int, schema: str, name: str, text_columns: set[str]
) -> tuple[UpstreamTable, list[str]]:
    attrs = conn.execute(
        "SELECT attname, atttypid, atttypmod, attnotnull FROM pg_attribute "
        "WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
        (oid,),
    ).fetchall()
    key_rows = conn.execute(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
        "WHERE i.indrelid = %s AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)",
        (oid,),
    ).fetchall()
    columns, upstream, unsupported = [], [], []
    for attname, typid, typmod, notnull in attrs:
        col, type_oid, mod = str(attname), int(str(typid)), int(str(typmod))
        upstream.append((col, type_oid, mod))
        if f"{schema}.{name}.{col}" in text_columns:
            columns.append(SubsourceColumn(col, TEXT, -1, not notnull))
        elif type_oid in SUPPORTED_TYPES:
            columns.append(SubsourceColumn(col, type_oid, mod, not notnull))
        else:
            type_name = conn.execute("SELECT format_type(%s, %s)", (type_oid, mod)).fetchone()
            unsupported.append(f"{schema}.{name}.{col} ({type_name[0] if type_name else type_oid})")
    spec = SubsourceSpec(name, f"{schema}.{name}", tuple(columns), tuple(str(k[0]) for k in key_rows))
    return UpstreamTable(spec, tuple(upstream)), unsupported


def describe(columns: tuple[tuple[str, int, int], ...]) -> str:
    return ", ".join(f"{n} {format_type(o, m) if o in SUPPORTED_TYPES else o}" for n, o, m in columns)


def snapshot(config: UpstreamConfig, name: str, tables: list[UpstreamTable]) -> dict[str, tuple[pa.Table, int]]:
    """Each table's rows in the exported snapshot `name`, with the bytes COPY sent."""
    out: dict[str, tuple[pa.Table, int]] = {}
    with psycopg.connect(config.conninfo()) as conn:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        conn.execute(f"SET TRANSACTION SNAPSHOT '{name}'")
        for table in tables:
            with unreadable(table.spec):
                out[table.spec.name] = _copy(conn, table.spec)
        conn.rollback()
    return out


def _copy(conn: psycopg.Connection[tuple[object, ...]], spec: SubsourceSpec) -> tuple[pa.Table, int]:
    schema, _, relname = spec.upstream.partition(".")
    columns = ", ".join(quote_ident(c.name) for c in spec.columns)
    batches: list[pa.RecordBatch] = []
    received = 0

    # timestamptz columns are read as text and typed by the vectorized UTC path (PostgreSQL's rules otherwise)
    def parser() -> CopyInParser:
        return CopyInParser(
            [TEXT if c.type_oid == TIMESTAMPTZ else c.type_oid for c in spec.columns],
            table=spec.upstream,
            columns=[c.name for c in spec.columns],
            typmods=[c.typmod for c in spec.columns],
        )

    current, pending, block = parser(), 0, bytearray()
    query = f"COPY (SELECT {columns} FROM {quote_ident(schema)}.{quote_ident(relname)}) TO STDOUT"
    with conn.cursor().copy(query) as cp:
        for chunk in cp:  # one row per chunk: fed to the parser in blocks of ~1 MiB, one parser per ~16 MiB
            block += chunk
            if len(block) >= 1 << 20:
                received, pending = received + len(block), pending + len(block)
                current.feed(bytes(block))
                block.clear()
                if pending >= 16 << 20:
                    batches.append(current.finish())
                    current, pending = parser(), 0
    received += len(block)
    current.feed(bytes(block))
    batches.append(current.finish())
    table = pa.Table.from_batches(batches)
    for i, column in enumerate(spec.columns):
        if column.type_oid == TIMESTAMPTZ:
            text = table.column(i).combine_chunks()
            typed = utc_timestamps(text)
            if typed is None:
                raw = [None if v is None else v.encode() for v in text.to_pylist()]
                typed = rows_table(SubsourceSpec(spec.name, spec.upstream, (column,)), [(v,) for v in raw]).column(0)
            table = table.set_column(i, column.name, typed)
    return table, received
