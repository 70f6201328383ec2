"""Secrets and connections: plan and run CREATE / ALTER / DROP SECRET, CREATE / VALIDATE / DROP CONNECTION, and
answer SHOW SECRETS / CONNECTIONS / CREATE CONNECTION (grammar/secrets.py).

Contract: `run_secret_statement(stmt, env)` applies one statement and returns its CommandComplete tag;
`show_secret_objects(stmt, state, names)` returns (fields, rows). A secret's value goes to the `SecretStore`
(encrypted, `<data_dir>/secrets/`) after the catalog commit that created the secret, and never into the catalog:
its `create_sql` says `AS '********'`. A connection's `create_sql` names its secrets; it depends on them (DROP
SECRET of a used secret is 2BP01 without CASCADE).

Privileges are Materialize's: CREATE on the schema (check_ops), USAGE on each secret a connection uses, ownership
to ALTER or DROP. Validation (CREATE CONNECTION, unless WITH (VALIDATE = false), and VALIDATE CONNECTION) is
sources/postgres/connection.py's `validate` (its SQLSTATEs: 28P01, 3D000, 28000, else 08001).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.api import Field, Notice
from sparkwire.catalog import CatalogState
from sparkwire.catalog.catalog import TransactResult
from sparkwire.catalog.drops import plan_drop
from sparkwire.catalog.objects import Item, ItemSpec, ObjectRef, Schema
from sparkwire.catalog.ops import CreateItem, DropItems, Op
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.grammar import secrets as g
from sparkwire.planner.grammar.ddl_parser import Name
from sparkwire.planner.security.privileges import check_ops, check_owner, check_privilege
from sparkwire.planner.statements.ddl import (
    DdlContext,
    _cascade_notices,
    _creation_schema,
    _existing_skip,
    _find,
    _qualified,
)
from sparkwire.sources.postgres.connection import PostgresConnection, postgres_connection, validate
from sparkwire.storage.secrets import SecretStore


@dataclass(frozen=True, slots=True)
class SecretEnv:
    """What running a statement needs from the data plane: the catalog state, the session's names, one catalog
    transaction, the secret store and the notice sink."""

    state: CatalogState
    names: Names
    transact: Callable[[Sequence[Op]], TransactResult]
    store: SecretStore
    notify: Callable[[Notice], None]


def _ctx(env: SecretEnv) -> DdlContext:
    return DdlContext(env.state, env.names, lambda _: ())


def run_secret_statement(stmt: g.SecretStatement, env: SecretEnv) -> str:
    match stmt:
        case g.CreateSecret():
            return _create_secret(stmt, env)
        case g.AlterSecret():
            item = _item(stmt.name, "secret", env, stmt.if_exists)
            if item is not None:
                check_owner(ObjectRef("item", item.id), env.state, env.names.role_id)
                env.store.put(item.id, stmt.value)
            return "ALTER SECRET"
        case g.CreateConnection():
            return _create_connection(stmt, env)
        case g.ValidateConnection():
            item = _item(stmt.name, "connection", env, False)
            assert item is not None
            check_privilege(ObjectRef("item", item.id), "USAGE", env.state, env.names.role_id)
            validate(postgres_connection(item, env.state, env.store))
            return "VALIDATE CONNECTION"
        case g.DropSecretObjects():
            return _drop(stmt, env)


def _item(name: Name, kind: str, env: SecretEnv, if_exists: bool) -> Item | None:
    notices: list[Notice] = []
    item = _find(name, _ctx(env), if_exists, notices)
    for notice in notices:
        env.notify(notice)
    if item is None:
        if if_exists:
            env.notify(Notice(f'{kind} "{name.written}" does not exist, skipping'))
            return None
        raise e.UndefinedObject(f"unknown catalog item '{name.written}'")
    if item.kind != kind:
        raise e.WrongObjectType(f"{name.written} is a {item.kind.replace('-', ' ')} not a {kind}")
    return item


def _creation(name: Name, if_not_exists: bool, tag: str, env: SecretEnv) -> Schema | None:
    """The schema a CREATE puts `name` in, or None when the name is taken and IF NOT EXISTS says to skip."""
    ctx = _ctx(env)
    schema = _creation_schema(name, ctx)
    if (skipped := _existing_skip(schema, name.name, ctx, if_not_exists, tag)) is not None:
        for notice in skipped.notices:
            env.notify(notice)
        return None
    return schema


def _create_secret(stmt: g.CreateSecret, env: SecretEnv) -> str:
    if (schema := _creation(stmt.name, stmt.if_not_exists, "CREATE SECRET", env)) is None:
        return "CREATE SECRET"
    spec = ItemSpec(
        kind="secret",
        schema_id=schema.id,
        name=stmt.name.name,
        owner_id=env.names.role_id,
        create_sql=g.render_secret(_qualified(schema, stmt.name.name, env.state)),
    )
    result = env.transact(_checked(env, [CreateItem(spec, stmt.if_not_exists)]))
    for ref in result.created:
        if ref.kind == "item":
            env.store.put(ref.id, stmt.value)
    return "CREATE SECRET"


def _checked(env: SecretEnv, ops: list[Op]) -> list[Op]:
    check_ops(ops, env.state, env.names.role_id)
    return ops


def _create_connection(stmt: g.CreateConnection, env: SecretEnv) -> str:
    if (schema := _creation(stmt.name, stmt.if_not_exists, "CREATE CONNECTION", env)) is None:
        return "CREATE CONNECTION"
    options: list[tuple[str, g.OptionValue]] = []
    secrets: list[str] = []
    values: dict[str, str] = {}
    for option, value in stmt.options:
        if isinstance(value, g.SecretRef):
            secret = _item(value.name, "secret", env, False)
            assert secret is not None
            check_privilege(ObjectRef("item", secret.id), "USAGE", env.state, env.names.role_id)
            secret_schema = env.state.schemas[secret.schema_id]
            value = g.SecretRef(_qualified(secret_schema, secret.name, env.state))
            secrets.append(secret.id)
            values[option] = env.store.get(secret.id)
        else:
            values[option] = value
        options.append((option, value))
    name = _qualified(schema, stmt.name.name, env.state)
    spec = ItemSpec(
        kind="connection",
        schema_id=schema.id,
        name=stmt.name.name,
        owner_id=env.names.role_id,
        create_sql=g.render_connection(name, tuple(options)),
        dependencies=tuple(dict.fromkeys(secrets)),
    )
    if stmt.validate:
        validate(
            PostgresConnection(
                host=values["HOST"],
                port=int(values.get("PORT", "5432")),
                user=values["USER"],
                database=values.get("DATABASE", "postgres"),
                password=values.get("PASSWORD"),
                sslmode=values.get("SSL MODE", "disable").lower(),
            )
        )
    env.transact(_checked(env, [CreateItem(spec, stmt.if_not_exists)]))
    return "CREATE CONNECTION"


def _drop(stmt: g.DropSecretObjects, env: SecretEnv) -> str:
    tag = f"DROP {stmt.kind.upper()}"
    ids = [item.id for name in stmt.names if (item := _item(name, stmt.kind, env, stmt.if_exists)) is not None]
    if not ids:
        return tag
    _checked(env, [DropItems(tuple(ids))])  # ownership before dependencies, as PostgreSQL
    plan = plan_drop(env.state, ids, stmt.cascade, env.names.context)
    for notice in _cascade_notices([env.state.describe_item(i, env.names.context) for i in plan.cascaded]):
        env.notify(notice)
    secrets = [i for i in plan.order if env.state.items[i].kind == "secret"]
    env.transact(_checked(env, [DropItems(plan.order)]))
    for item_id in secrets:
        env.store.delete(item_id)
    return tag


# ---- SHOW ----------------------------------------------------------------------------------------------------


def _fields(*names: str) -> tuple[Field, ...]:
    return tuple(Field(n, 25) for n in names)


def show_secret_objects(
    stmt: g.SecretShow, state: CatalogState, names: Names
) -> tuple[tuple[Field, ...], list[tuple[object, ...]]]:
    if isinstance(stmt, g.ShowCreateSecretObject):
        env_ctx = DdlContext(state, names, lambda _: ())
        item = _find(stmt.name, env_ctx, False, [])
        if item is None or item.kind != stmt.kind:
            raise e.UndefinedObject(f"unknown catalog item '{stmt.name.written}'")
        schema = state.schemas[item.schema_id]
        return _fields("name", "create_sql"), [(_qualified(schema, item.name, state).written, item.create_sql)]
    if stmt.where is not None:
        raise e.FeatureNotSupported(f"SHOW {stmt.kind.upper()}S … WHERE is not supported; use LIKE")
    ctx = DdlContext(state, names, lambda _: ())
    schema = _creation_schema(Name((*(stmt.from_schema.parts if stmt.from_schema else ()), "x")), ctx)
    items = sorted(
        (i for i in state.items_in_schema(schema.id) if i.kind == stmt.kind), key=lambda i: i.name
    )
    if stmt.like is not None:
        pattern = stmt.like.replace("*", "[*]").replace("?", "[?]").replace("%", "*").replace("_", "?")
        items = [i for i in items if fnmatch.fnmatchcase(i.name, pattern)]
    if stmt.kind == "secret":
        return _fields("name", "comment"), [(i.name, None) for i in items]
    return _fields("name", "type", "comment"), [(i.name, "postgres", None) for i in items]

