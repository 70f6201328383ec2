"""A POSTGRES connection item read back from the catalog, and its validation.

Contract: a connection's `create_sql` is stored normalized by the planner (planner/grammar/secrets.py
`render_connection`): `CREATE CONNECTION db.s.c TO POSTGRES (OPT = value, …)`, OPT one of DATABASE, HOST,
PASSWORD, PORT, SSL MODE, USER; a value a string literal, digits, or `SECRET db.s.name`. `connection_options(sql)`
reads that back into (OPT, value) pairs, a secret as a `SecretName` (its name parts). `postgres_connection(item,
state, store)` resolves the secrets (decrypted from the `SecretStore`) into a `PostgresConnection`.
`validate(connection)` connects and runs `SELECT 1`; a failure is a PgError with the upstream's SQLSTATE when it sent
one (28P01 wrong password, 3D000 missing database, 28000 no pg_hba entry) and 08001 when no connection was made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import psycopg

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.storage.secrets import SecretStore


@dataclass(frozen=True, slots=True)
class SecretName:
    parts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PostgresConnection:
    host: str
    port: int
    user: str
    database: str
    password: str | None
    sslmode: str

    def conninfo(self, connect_timeout: int = 10, options: str = "") -> str:
        params: dict[str, str | int] = {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "dbname": self.database,
            "sslmode": self.sslmode,
            "connect_timeout": connect_timeout,
        }
        if options:
            params["options"] = options
        if self.password is not None:
            params["password"] = self.password
        return psycopg.conninfo.make_conninfo("", **params)


_IDENT = r'(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*)'
_OPTION = re.compile(
    rf"\s*(?P<opt>SSL MODE|[A-Z]+) = (?:'(?P<lit>(?:[^']|'')*)'|(?P<num>\d+)|SECRET (?P<sec>{_IDENT}(?:\.{_IDENT})*))"
    r"\s*(?P<end>[,)])"
)
_PART = re.compile(_IDENT)


def connection_options(create_sql: str) -> tuple[tuple[str, str | SecretName], ...]:
    start = create_sql.index(" TO POSTGRES (") + len(" TO POSTGRES (")
    out: list[tuple[str, str | SecretName]] = []
    while True:
        m = _OPTION.match(create_sql, start)
        if m is None:
            raise e.InternalError(f"connection definition not understood: {create_sql}")
        if m.group("sec") is not None:
            parts = tuple(
                p[1:-1].replace('""', '"') if p.startswith('"') else p for p in _PART.findall(m.group("sec"))
            )
            out.append((m.group("opt"), SecretName(parts)))
        elif m.group("num") is not None:
            out.append((m.group("opt"), m.group("num")))
        else:
            out.append((m.group("opt"), m.group("lit").replace("''", "'")))
        if m.group("end") == ")":
            return tuple(out)
        start = m.end()


def resolve_secret(parts: tuple[str, ...], state: CatalogState) -> Item:
    """The secret a fully qualified name (database, schema, name) refers to."""
    database, schema, name = (None, None, *parts)[-3:]
    found = state.lookup_item(
        str(name), current_database=database or "materialize", search_path=("public",), schema=schema, database=database
    )
    if found is None or found.kind != "secret":
        raise e.UndefinedObject(f"unknown catalog item '{'.'.join(parts)}'")
    return found


def postgres_connection(item: Item, state: CatalogState, store: SecretStore) -> PostgresConnection:
    values: dict[str, str] = {}
    for option, value in connection_options(item.create_sql):
        values[option] = store.get(resolve_secret(value.parts, state).id) if isinstance(value, SecretName) else value
    return PostgresConnection(
        host=values["HOST"],
        port=int(values.get("PORT", "5432")),
        user=values["USER"],
        database=values.get("DATABASE", "postgres"),
        password=values.get("PASSWORD"),
        sslmode=values.get("SSL MODE", "disable").lower(),  # Materialize's default
    )


def validate(connection: PostgresConnection) -> None:
    try:
        with psycopg.connect(connection.conninfo(), autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        message = " ".join(str(exc).split())
        raise e.PgError(f"db error: {message}", sqlstate=exc.sqlstate or _sqlstate_of(message)) from None


def _sqlstate_of(message: str) -> str:
    """libpq reports connection failures without a SQLSTATE; name the ones PostgreSQL has a code for."""
    if "password authentication failed" in message or "no password supplied" in message:
        return "28P01"
    if "database" in message and "does not exist" in message:
        return "3D000"
    if "no pg_hba.conf entry" in message:
        return "28000"
    return "08001"
