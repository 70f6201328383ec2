"""SET, SET LOCAL, SET TRANSACTION, SET SESSION CHARACTERISTICS, RESET and SHOW, applied to session variables.

Contract: `apply_setting(stmt, variables, in_block=…, in_transaction=…, warn=…)` performs one SET/RESET-family
statement and returns its CommandComplete; PostgreSQL's warnings (SET LOCAL or SET TRANSACTION outside a
transaction block, which then do nothing) go to `warn(message, sqlstate=…)`. `transaction_isolation` and
`transaction_read_only` only ever change for the current transaction. A session keeps the role it logged in
with: SET ROLE / SET SESSION AUTHORIZATION to that role, NONE or DEFAULT (and RESET of either) change nothing,
any other role is 0A000. `show(stmt, variables)` returns the
RowDescription and rows of SHOW name (one column named like the variable) or SHOW ALL (name, setting,
description), all text.

`alter_system_ops(stmt, state, role_id, in_block=…)` plans ALTER SYSTEM SET / RESET [ALL] into the catalog ops
for one `catalog.transact` (tag `ALTER_SYSTEM`); the stored values become the defaults of every session's
variables (see variables.py). As PostgreSQL 15: 25001 inside a transaction block, then 42501 `must be superuser to
execute ALTER SYSTEM command` for any role without SUPERUSER (membership does not count), 42704 for an unknown
variable, 55P02 for one that cannot be changed (and for the per-transaction ones, whose defaults are the
default_transaction_* variables), and the variable's own validation of the value (22023, 0A000).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import CommandComplete, Field
from sparkwire.catalog import CatalogState
from sparkwire.catalog.ops import ResetSystemVariable, SetSystemVariable
from sparkwire.planner.bind.fields import TEXT_OID
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.security.privileges import is_superuser
from sparkwire.planner.statements.variables import SessionVariables, lookup

Warn = Callable[..., None]
_PER_TRANSACTION = ("transaction_isolation", "transaction_read_only")
ALTER_SYSTEM = "ALTER SYSTEM"
_IDENTITY = ("role", "session_authorization")


def _set_transaction(
    stmt: u.SetTransaction, variables: SessionVariables, in_block: bool, in_transaction: bool, warn: Warn
) -> CommandComplete:
    read_only = None if stmt.read_only is None else ("on" if stmt.read_only else "off")
    if stmt.session_default:
        if stmt.isolation is not None:
            variables.set("default_transaction_isolation", stmt.isolation, in_transaction=in_transaction)
        if read_only is not None:
            variables.set("default_transaction_read_only", read_only, in_transaction=in_transaction)
    elif not in_block:
        warn("SET TRANSACTION can only be used in transaction blocks", sqlstate="25P01")
    else:
        if stmt.isolation is not None:
            variables.set_internal("transaction_isolation", stmt.isolation)
        if read_only is not None:
            variables.set_internal("transaction_read_only", read_only)
    return CommandComplete("SET")


def _keep_identity(name: str, value: str | None, variables: SessionVariables, in_transaction: bool) -> None:
    """SET ROLE / SET SESSION AUTHORIZATION: a session acts as the role it logged in as. Naming that role again,
    NONE or DEFAULT changes nothing; any other role is 0A000 rather than a silent change of privileges."""
    if value is None or value == variables.get("session_authorization"):
        variables.set("role", value if name == "role" else None, in_transaction=in_transaction, internal=True)
        return
    statement = "SET ROLE" if name == "role" else "SET SESSION AUTHORIZATION"
    raise e.FeatureNotSupported(
        f"{statement} is not supported",
        hint="Log in as the role instead; a session keeps the role it logged in with.",
    )


def apply_setting(
    stmt: u.Utility, variables: SessionVariables, *, in_block: bool, in_transaction: bool, warn: Warn
) -> CommandComplete:
    match stmt:
        case u.SetVariable(name=name, value=value) if name in _IDENTITY:
            _keep_identity(name, value, variables, in_transaction)
            return CommandComplete("SET")
        case u.ResetVariable(name=str(name)) if name.lower() in _IDENTITY:
            variables.set("role", None, in_transaction=in_transaction, internal=True)
            return CommandComplete("RESET")
        case u.SetVariable(name=name, value=value, local=local):
            if local and not in_block:
                warn("SET LOCAL can only be used in transaction blocks", sqlstate="25P01")
            elif lookup(name).name in _PER_TRANSACTION:
                if value is not None:
                    variables.set_internal(name, value)
            else:
                variables.set(name, value, local=local, in_transaction=in_transaction)
            return CommandComplete("SET")
        case u.SetTransaction():
            return _set_transaction(stmt, variables, in_block, in_transaction, warn)
        case u.ResetVariable(name=None):
            variables.reset_all(in_transaction=in_transaction)
            return CommandComplete("RESET")
        case u.ResetVariable(name=str(name)):
            variables.set(name, None, in_transaction=in_transaction)
            return CommandComplete("RESET")
    raise TypeError(f"not a SET/RESET statement: {stmt!r}")


def _text_rows(names: list[str], rows: Sequence[Sequence[str]]) -> tuple[tuple[Field, ...], list[pa.RecordBatch]]:
    fields = tuple(Field(name=n, type_oid=TEXT_OID) for n in names)
    columns = [pa.array([r[i] for r in rows], pa.string()) for i in range(len(names))]
    return fields, [pa.RecordBatch.from_arrays(columns, names=names)]


def show(stmt: u.ShowVariable, variables: SessionVariables) -> tuple[tuple[Field, ...], list[pa.RecordBatch]]:
    if stmt.name is None:
        return _text_rows(["name", "setting", "description"], variables.all())
    var = lookup(stmt.name)
    return _text_rows([var.name], [(variables.get(var.name),)])


def show_fields(stmt: u.ShowVariable) -> tuple[Field, ...]:
    names = ["name", "setting", "description"] if stmt.name is None else [lookup(stmt.name).name]
    return tuple(Field(name=n, type_oid=TEXT_OID) for n in names)


def alter_system_ops(
    stmt: u.AlterSystem, state: CatalogState, role_id: str, *, in_block: bool
) -> list[SetSystemVariable | ResetSystemVariable]:
    if in_block:
        raise e.ActiveSqlTransaction("ALTER SYSTEM cannot run inside a transaction block")
    if not is_superuser(state, role_id):
        raise e.InsufficientPrivilege("must be superuser to execute ALTER SYSTEM command")
    if stmt.name is None:
        return [ResetSystemVariable(name) for name in sorted(state.system_vars)]
    var = lookup(stmt.name)
    if not var.settable or var.name in _PER_TRANSACTION:
        hint = f"Set default_{var.name} instead." if var.name in _PER_TRANSACTION else None
        raise e.CantChangeRuntimeParam(f'parameter "{var.name}" cannot be changed', hint=hint)
    if stmt.value is None:
        return [ResetSystemVariable(var.name)]
    return [SetSystemVariable(var.name, var.normalize(var.name, stmt.value), role_id)]
