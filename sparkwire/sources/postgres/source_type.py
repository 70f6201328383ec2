"""`CREATE SOURCE … FROM POSTGRES CONNECTION c (PUBLICATION 'p' [, TEXT COLUMNS (t.c, …)]) FOR ALL TABLES | FOR
TABLES (…) | FOR SCHEMAS (…)`: the POSTGRES source type (the contract is in sparkwire/sources/registry.py).

`configure` checks the options, validates the connection (connection.py: the upstream's SQLSTATE, 08001 when
unreachable) and the publication (`upstream.discover`: 42704 no such publication, 55000 a table without REPLICA
IDENTITY FULL, 0A000 a column type without TEXT COLUMNS, 42P01 a FOR TABLES table the publication lacks), and stores
{connection_id, publication, tables, text_columns} — never a password: `open` reads the connection item and its
secrets (decrypted from the data directory) each time it opens a reader. A reader of a created source gets its
subsources' columns from the catalog, so an upstream change made while the server was down is caught, not followed.
The slot is `materialize_<source id>`; the progress relation has one column, `lsn` (bigint: the LSN as a number).
"""

from __future__ import annotations

import json
from typing import Any

from sparkwire import errors as e
from sparkwire.catalog.objects import Item
from sparkwire.sources.postgres.connection import postgres_connection, validate
from sparkwire.sources.postgres.pgoutput import format_lsn, parse_lsn
from sparkwire.sources.postgres.source import PostgresReader, UpstreamUnavailable, slot_name
from sparkwire.sources.postgres.upstream import UpstreamConfig, discover
from sparkwire.sources.reader import SourceError, SubsourceColumn, SubsourceSpec, UpstreamReader
from sparkwire.sources.registry import SourceContext, SourceRequest
from sparkwire.storage.secrets import SecretStore

INT8 = 20
_OPTIONS = ("PUBLICATION", "TEXT COLUMNS")


class Postgres:
    name = "POSTGRES"
    mz_type = "postgres"
    load_generator = False
    requires_selection = True
    progress_columns: tuple[SubsourceColumn, ...] = (SubsourceColumn("lsn", INT8),)

    def configure(self, request: SourceRequest, context: SourceContext) -> str:
        connection = request.connection
        if connection is None or connection.kind != "connection":
            raise e.WrongObjectType("CREATE SOURCE … FROM POSTGRES needs a POSTGRES connection")
        options = dict(request.options)
        for option in options:
            if option not in _OPTIONS:
                raise e.SyntaxError(f"unexpected option {option} for a POSTGRES source; expected one of {_OPTIONS}")
        publication = options.get("PUBLICATION")
        if not isinstance(publication, str) or not publication:
            raise e.InvalidParameterValue("POSTGRES source must specify PUBLICATION")
        text_columns = options.get("TEXT COLUMNS") or ()
        if isinstance(text_columns, str):
            text_columns = (text_columns,)
        config: dict[str, Any] = {
            "connection_id": connection.id,
            "publication": publication,
            "tables": [reference for reference, _ in request.selection.tables],
            "text_columns": list(text_columns),
        }
        upstream = self._upstream(config, connection, context)
        validate(postgres_connection(connection, context.state, _store(context)))
        try:
            discover(upstream)
        except SourceError as error:
            raise _pg_error(str(error)) from None
        except UpstreamUnavailable as error:
            raise e.PgError(str(error), sqlstate="08001") from None
        return json.dumps(config, sort_keys=True)

    def open(self, config: str, context: SourceContext) -> UpstreamReader:
        parsed = json.loads(config)
        connection = context.state.items.get(parsed["connection_id"])
        if connection is None:
            raise SourceError("the source's connection no longer exists")
        specs = _catalog_specs(context) if context.source_id is not None else None
        return PostgresReader(
            self._upstream(parsed, connection, context), slot_name(context.source_id or "planning"), specs
        )

    def primary_output(self, config: str) -> str | None:
        return None

    def progress_row(self, offset: str) -> dict[str, object]:
        return {"lsn": parse_lsn(offset)}

    def resume_offset(self, row: dict[str, object]) -> str | None:
        value = row.get("lsn")
        return None if value is None else format_lsn(int(str(value)))

    @staticmethod
    def _upstream(config: dict[str, Any], connection: Item, context: SourceContext) -> UpstreamConfig:
        pg = postgres_connection(connection, context.state, _store(context))
        return UpstreamConfig(
            host=pg.host,
            port=pg.port,
            user=pg.user,
            database=pg.database,
            publication=str(config["publication"]),
            password=pg.password,
            sslmode=pg.sslmode,
            tables=tuple(config["tables"]),
            text_columns=tuple(config["text_columns"]),
        )


def _store(context: SourceContext) -> SecretStore:
    if context.data_dir is None:
        raise e.FeatureNotSupported("POSTGRES sources need a data directory (for their connection's secrets)")
    return SecretStore(context.data_dir)


def _catalog_specs(context: SourceContext) -> list[SubsourceSpec]:
    """The subsources CREATE SOURCE made, as specs: the columns the reader must keep seeing upstream."""
    specs = []
    for item in context.state.items.values():
        if item.kind != "source" or item.source_type != "subsource" or context.source_id not in item.dependencies:
            continue
        options = json.loads(item.source_options)
        columns = tuple(SubsourceColumn(c.name, c.type_oid, c.typmod, c.nullable) for c in item.columns)
        specs.append(SubsourceSpec(str(options["output"]), str(options["upstream"]), columns, item.primary_key))
    return specs


def _pg_error(message: str) -> e.PgError:
    if "does not exist upstream" in message:
        return e.UndefinedObject(message)
    if "REPLICA IDENTITY FULL" in message:
        return e.ObjectNotInPrerequisiteState(message)
    if "unsupported upstream column type" in message:
        return e.FeatureNotSupported(message)
    if "not in publication" in message:
        return e.UndefinedTable(message)
    return e.PgError(message)


POSTGRES = Postgres()
