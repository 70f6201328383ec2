"""Materialize's statements for secrets and connections, our grammar:

    CREATE SECRET [IF NOT EXISTS] name AS 'value'          ALTER SECRET [IF EXISTS] name AS 'value'
    CREATE CONNECTION [IF NOT EXISTS] name TO POSTGRES (HOST [=] 'h', PORT [=] n, USER [=] 'u' | SECRET s,
        PASSWORD [=] SECRET s, DATABASE [=] 'd', SSL MODE [=] 'disable' | 'require' | …) [WITH (VALIDATE [=] b)]
    VALIDATE CONNECTION name
    DROP SECRET | CONNECTION [IF EXISTS] name [, …] [CASCADE | RESTRICT]
    SHOW SECRETS | CONNECTIONS [FROM schema] [LIKE 'p' | WHERE …]     SHOW CREATE CONNECTION | SECRET name

Contract: `parse_secret_statement(sql)` returns one of the statement dataclasses below, or None when the statement
is none of these (call it before `ddl.parse_materialize_ddl`, which refuses CREATE SECRET as 0A000). Syntax errors
are 42601 at the token; an option a POSTGRES connection does not have is 42601 naming it (Materialize's wording).
A connection's options are kept as (OPTION, value) pairs, OPTION upper case (`SSL MODE`), a value a string, a
number's text or a `SecretRef`. `render_connection` prints the normalized `create_sql` (options sorted, `=`,
secrets fully qualified), which this grammar reads back: the catalog stores it and the source reads it.
A secret's value never appears in any rendering: `render_secret` prints `AS '********'`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sparkwire import errors as e
from sparkwire.planner.grammar.ddl_parser import DdlParser, Name, quote

REDACTED_VALUE = "'********'"
CONNECTION_OPTIONS = ("DATABASE", "HOST", "PASSWORD", "PORT", "SSL MODE", "USER")
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


@dataclass(frozen=True, slots=True)
class SecretRef:
    name: Name


OptionValue = str | SecretRef


@dataclass(frozen=True, slots=True)
class CreateSecret:
    name: Name
    value: str
    if_not_exists: bool = False


@dataclass(frozen=True, slots=True)
class AlterSecret:
    name: Name
    value: str
    if_exists: bool = False


@dataclass(frozen=True, slots=True)
class CreateConnection:
    name: Name
    options: tuple[tuple[str, OptionValue], ...]
    validate: bool = True
    if_not_exists: bool = False
    connection_type: str = "postgres"


@dataclass(frozen=True, slots=True)
class ValidateConnection:
    name: Name


@dataclass(frozen=True, slots=True)
class DropSecretObjects:
    kind: Literal["secret", "connection"]
    names: tuple[Name, ...]
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True, slots=True)
class ShowSecretObjects:
    kind: Literal["secret", "connection"]
    from_schema: Name | None = None
    like: str | None = None
    where: str | None = None


@dataclass(frozen=True, slots=True)
class ShowCreateSecretObject:
    kind: Literal["secret", "connection"]
    name: Name


SecretStatement = CreateSecret | AlterSecret | CreateConnection | ValidateConnection | DropSecretObjects
SecretShow = ShowSecretObjects | ShowCreateSecretObject

_HEAD = re.compile(
    r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*(create|alter|drop|validate|show)\s+(?:create\s+)?(secrets?|connections?)\b",
    re.S | re.I,
)


def parse_secret_statement(sql: str) -> SecretStatement | SecretShow | None:
    head = _HEAD.match(sql)
    if head is None:
        return None
    verb, noun = head.group(1).lower(), head.group(2).lower()
    p = DdlParser(sql)
    p.i = 1
    if verb == "show":
        return _show(p)
    if noun.endswith("s"):
        return None  # CREATE SECRETS …: not ours, let the other grammars word the error
    p.i = 2
    kind: Literal["secret", "connection"] = "secret" if noun == "secret" else "connection"
    if verb == "create":
        return _create_secret(p) if kind == "secret" else _create_connection(p)
    if verb == "alter":
        if kind == "connection":
            raise e.FeatureNotSupported("ALTER CONNECTION is not supported")
        if_exists = p.accept("if", "exists")
        name = p.object_name()
        p.expect("as")
        return AlterSecret(name, _secret_value(p), if_exists)
    if verb == "validate":
        if kind == "secret":
            raise p.error()
        name = p.object_name()
        p.end()
        return ValidateConnection(name)
    if_exists = p.accept("if", "exists")
    names = [p.object_name()]
    while p.accept_op(","):
        names.append(p.object_name())
    cascade = p.accept("cascade")
    if not cascade:
        p.accept("restrict")
    p.end()
    return DropSecretObjects(kind, tuple(names), if_exists, cascade)


def _show(p: DdlParser) -> SecretShow | None:
    if p.accept("create"):
        kind: Literal["secret", "connection"] = "secret" if p.accept("secret") else "connection"
        if kind == "connection":
            p.expect("connection")
        name = p.object_name()
        p.end()
        return ShowCreateSecretObject(kind, name)
    kind = "secret" if p.accept("secrets") else "connection"
    if kind == "connection" and not p.accept("connections"):
        return None
    from_schema = p.object_name() if p.accept("from") or p.accept("in") else None
    like, where = p.like_or_where()
    p.end()
    return ShowSecretObjects(kind, from_schema, like, where)


def _secret_value(p: DdlParser) -> str:
    t = p.peek()
    if t is None or t.kind != "string":
        raise e.FeatureNotSupported("a secret's value must be a string literal") if t is not None else p.error()
    p.i += 1
    p.end()
    return t.text


def _create_secret(p: DdlParser) -> CreateSecret:
    if_not_exists = p.accept("if", "not", "exists")
    name = p.object_name()
    p.expect("as")
    return CreateSecret(name, _secret_value(p), if_not_exists)


def _create_connection(p: DdlParser) -> CreateConnection:
    if_not_exists = p.accept("if", "not", "exists")
    name = p.object_name()
    p.expect("to")
    kind = p.word()
    if kind != "postgres":
        raise e.FeatureNotSupported(f"CREATE CONNECTION … TO {(kind or '?').upper()} is not supported")
    p.i += 1
    options: dict[str, OptionValue] = {}
    p.expect_op("(")
    while True:
        option = _option_name(p)
        if option in options:
            raise e.SyntaxError(f"{option} specified more than once")
        p.accept_op("=")
        if p.accept("secret"):
            if option not in ("USER", "PASSWORD"):
                raise e.InvalidParameterValue(f"invalid {option}: must provide a string value")
            options[option] = SecretRef(p.object_name())
        else:
            value = p.value()
            if option == "PASSWORD":
                raise e.InvalidParameterValue("invalid PASSWORD: must provide a secret value")
            options[option] = value
        if p.accept_op(")"):
            break
        p.expect_op(",")
    validate = True
    if p.accept("with"):
        p.expect_op("(")
        p.expect("validate")
        p.accept_op("=")
        validate = _boolean(p.value() if not p.at_op(")") else "true")
        p.expect_op(")")
    p.end()
    _check_connection(options)
    return CreateConnection(name, tuple(sorted(options.items())), validate, if_not_exists)


def _option_name(p: DdlParser) -> str:
    words = [(p.word() or "").upper()]
    p.i += 1
    if words[0] == "SSL" and p.word() in ("mode",):
        words.append("MODE")
        p.i += 1
    option = " ".join(words)
    if option not in CONNECTION_OPTIONS:
        raise e.SyntaxError(
            f"Expected one of {', '.join(CONNECTION_OPTIONS)}, found {option or 'end of input'}"
            " (options a POSTGRES connection has)"
        )
    return option


def _boolean(text: str) -> bool:
    low = text.lower()
    if low in ("true", "on", "1", "yes", "t"):
        return True
    if low in ("false", "off", "0", "no", "f"):
        return False
    raise e.InvalidParameterValue(f'invalid VALIDATE value "{text}": must be a boolean')


def _check_connection(options: dict[str, OptionValue]) -> None:
    for required in ("HOST", "USER"):
        if required not in options:
            raise e.InvalidParameterValue(f"POSTGRES connection must specify {required}")
    port = options.get("PORT")
    if port is not None and (not isinstance(port, str) or not port.isdigit() or not 0 < int(port) < 65536):
        raise e.InvalidParameterValue(f'invalid PORT "{port}": must be a port number')
    mode = options.get("SSL MODE")
    if mode is not None and (not isinstance(mode, str) or mode.lower() not in SSL_MODES):
        raise e.InvalidParameterValue(f"invalid SSL MODE: {mode}; expected one of {', '.join(SSL_MODES)}")


# ---- rendering -----------------------------------------------------------------------------------------------


def qualified(name: Name) -> str:
    return ".".join(quote(part) for part in name.parts)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def render_connection(name: Name, options: tuple[tuple[str, OptionValue], ...], *, redacted: bool = False) -> str:
    """The stored CREATE CONNECTION (names fully qualified by the caller); `redacted`: literals as '<REDACTED>'."""
    parts = []
    for option, value in options:
        if isinstance(value, SecretRef):
            text = f"SECRET {qualified(value.name)}"
        elif option == "PORT":
            text = value
        else:
            text = "'<REDACTED>'" if redacted else _literal(value)
        parts.append(f"{option} = {text}")
    return f"CREATE CONNECTION {qualified(name)} TO POSTGRES ({', '.join(parts)})"


def render_secret(name: Name) -> str:
    return f"CREATE SECRET {qualified(name)} AS {REDACTED_VALUE}"
