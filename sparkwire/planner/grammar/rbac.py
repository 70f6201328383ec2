"""Our own grammar for role and privilege statements: roles, memberships, GRANT / REVOKE and ownership.

Contract: `parse_rbac(sql)` returns one frozen statement dataclass, or None when the statement is none of these
(call it before `ddl.parse_materialize_ddl`, which refuses `ALTER SCHEMA …` and leaves `… OWNER TO` alone):

    CREATE ROLE | CREATE USER name [WITH] option…      option: SUPERUSER | NOSUPERUSER | LOGIN | NOLOGIN |
    ALTER ROLE | ALTER USER name [WITH] option…                INHERIT | NOINHERIT | PASSWORD 'x' | PASSWORD NULL
    DROP ROLE | DROP USER [IF EXISTS] name [, …]
    GRANT role [, …] TO member [, …]
    REVOKE role [, …] FROM member [, …]
    GRANT privilege [, …] | ALL [PRIVILEGES] ON [TABLE] name [, …] | ON SCHEMA | DATABASE | CLUSTER name [, …]
        TO grantee [, …]                                  privilege: SELECT INSERT UPDATE DELETE USAGE CREATE
    GRANT CREATEROLE | CREATEDB | CREATECLUSTER [, …] ON SYSTEM TO grantee [, …]   (Materialize's system privileges)
    REVOKE … FROM grantee [, …] [RESTRICT]
    ALTER TABLE | VIEW | MATERIALIZED VIEW | SCHEMA | DATABASE | CLUSTER name OWNER TO role

CREATE USER differs from CREATE ROLE only in defaulting to LOGIN, as in PostgreSQL. A grantee `PUBLIC` is kept as
"public" (`PUBLIC` below), which names the PUBLIC pseudo-role (no role may be called public). A statement that
starts like one of these but breaks the grammar raises 42601 with PostgreSQL's wording and position; a repeated
option raises 42601 `conflicting or redundant options`; options and clauses PostgreSQL has and sparkwire does not
(CREATEROLE as a role attribute, WITH GRANT OPTION, GRANTED BY, column privileges, ON ALL TABLES IN SCHEMA, REVOKE …
CASCADE) raise 0A000 naming them.
Privileges are kept as the upper-case words written (`ALL` for ALL [PRIVILEGES]); names as written (unquoted words
folded to lower case).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sparkwire import errors as e
from sparkwire.planner.grammar.ddl_parser import DdlParser, Name

GrantKind = Literal["table", "schema", "database", "cluster", "system", "secret", "connection"]
OwnedKind = Literal["table", "view", "materialized-view", "schema", "database", "cluster"]

PRIVILEGE_WORDS = frozenset({"select", "insert", "update", "delete", "usage", "create"})
SYSTEM_PRIVILEGE_WORDS = frozenset({"createrole", "createdb", "createcluster"})
PUBLIC = "public"


@dataclass(frozen=True, slots=True)
class RoleOptions:
    """Role attributes as written; None = not mentioned. `password_given` tells PASSWORD NULL (password None)
    from no PASSWORD clause."""

    superuser: bool | None = None
    login: bool | None = None
    inherit: bool | None = None
    password_given: bool = False
    password: str | None = None


@dataclass(frozen=True, slots=True)
class CreateRole:
    name: str
    options: RoleOptions
    user: bool = False  # CREATE USER: LOGIN unless NOLOGIN


@dataclass(frozen=True, slots=True)
class AlterRole:
    name: str
    options: RoleOptions


@dataclass(frozen=True, slots=True)
class DropRole:
    names: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True, slots=True)
class GrantRole:
    roles: tuple[str, ...]
    members: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RevokeRole:
    roles: tuple[str, ...]
    members: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GrantPrivileges:
    """`privileges`: upper-case words (`SELECT`, `CREATEROLE`, …) or ("ALL",). `objects` is empty for SYSTEM."""

    privileges: tuple[str, ...]
    kind: GrantKind
    objects: tuple[Name, ...]
    grantees: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RevokePrivileges:
    privileges: tuple[str, ...]
    kind: GrantKind
    objects: tuple[Name, ...]
    grantees: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AlterOwner:
    kind: OwnedKind
    name: Name
    new_owner: str
    if_exists: bool = False


RbacStatement = (
    CreateRole | AlterRole | DropRole | GrantRole | RevokeRole | GrantPrivileges | RevokePrivileges | AlterOwner
)

_HEAD = re.compile(r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*([A-Za-z]+)", re.S)
_FIRST_WORDS = frozenset({"create", "alter", "drop", "grant", "revoke"})
_ROLE_WORDS = frozenset({"role", "user"})
_OWNED_WORDS: dict[str, OwnedKind] = {
    "table": "table",
    "view": "view",
    "schema": "schema",
    "database": "database",
    "cluster": "cluster",
}


def _unsupported(what: str) -> e.PgError:
    return e.FeatureNotSupported(f"{what} is not supported")


def _redundant() -> e.PgError:
    return e.SyntaxError("conflicting or redundant options")


def _name_list(p: DdlParser) -> tuple[str, ...]:
    names = [p.name()]
    while p.accept_op(","):
        names.append(p.name())
    return tuple(names)


def _role_options(p: DdlParser) -> RoleOptions:
    p.accept("with")
    found: dict[str, bool] = {}
    password: str | None = None
    flags = {"superuser": True, "nosuperuser": False, "login": True, "nologin": False}
    flags |= {"inherit": True, "noinherit": False}
    while (word := p.word()) is not None:
        if word in flags:
            attribute = word.removeprefix("no") if word.startswith("no") else word
            if attribute in found:
                raise _redundant()
            p.i += 1
            found[attribute] = flags[word]
        elif word == "password":
            if "password" in found:
                raise _redundant()
            p.i += 1
            found["password"] = True
            password = _password(p)
        elif word in ("createrole", "nocreaterole", "createdb", "nocreatedb", "createcluster", "nocreatecluster"):
            raise e.FeatureNotSupported(
                f"{word.upper()} attribute is not supported",
                hint=f"Use system privileges instead: GRANT {word.removeprefix('no').upper()} ON SYSTEM TO role.",
            )
        elif word in (
            "replication",
            "noreplication",
            "bypassrls",
            "nobypassrls",
            "valid",
            "connection",
            "in",
            "role",
            "admin",
            "user",
            "sysid",
            "encrypted",
            "unencrypted",
        ):
            raise _unsupported(f"role option {word.upper()}")
        else:
            raise p.error()
    p.end()
    return RoleOptions(
        superuser=found.get("superuser"),
        login=found.get("login"),
        inherit=found.get("inherit"),
        password_given="password" in found,
        password=password,
    )


def _password(p: DdlParser) -> str | None:
    t = p.peek()
    if t is not None and t.kind == "string":
        p.i += 1
        return t.text
    if p.accept("null"):
        return None
    raise p.error()


def _create(p: DdlParser, word: str) -> CreateRole:
    name = p.name()
    return CreateRole(name, _role_options(p), user=word == "user")


def _drop(p: DdlParser) -> DropRole:
    if_exists = p.accept("if", "exists")
    names = _name_list(p)
    p.end()
    return DropRole(names, if_exists)


def _alter(p: DdlParser, word: str) -> RbacStatement | None:
    if word in _ROLE_WORDS:
        role = p.name()
        if p.at("rename") or p.at("set") or p.at("reset"):
            raise _unsupported(f"ALTER ROLE … {p.word() or ''}".upper().rstrip())
        return AlterRole(role, _role_options(p))
    start = p.i
    kind: OwnedKind
    if p.accept("materialized", "view"):
        kind = "materialized-view"
    elif word in _OWNED_WORDS:
        p.i += 1
        kind = _OWNED_WORDS[word]
    else:
        return None
    if_exists = p.accept("if", "exists")
    name = p.object_name()
    if not p.accept("owner", "to"):
        p.i = start
        return None
    owner = p.name()
    p.end()
    return AlterOwner(kind, name, owner, if_exists)


def _privileges(p: DdlParser) -> tuple[str, ...] | None:
    """The privilege list of GRANT/REVOKE … ON, or None when the statement grants roles."""
    if p.accept("all"):
        p.accept("privileges")
        if p.at_op("("):
            raise _unsupported("column privileges")
        return ("ALL",)
    start = p.i
    words: list[str] = []
    while True:
        t = p.peek()
        if t is None or t.kind not in ("word", "ident"):
            raise p.error()
        words.append(t.text)
        p.i += 1
        if p.at_op("("):
            raise _unsupported("column privileges")
        if not p.accept_op(","):
            break
    if not p.at("on"):
        p.i = start
        return None
    for word, t in zip(words, p.tokens[start : p.i : 2], strict=True):
        if t.kind != "word" or word not in PRIVILEGE_WORDS | SYSTEM_PRIVILEGE_WORDS:
            raise e.SyntaxError(f'unrecognized privilege type "{word}"', position=t.start + 1)
    return tuple(w.upper() for w in words)


def _target(p: DdlParser) -> tuple[GrantKind, tuple[Name, ...]]:
    p.expect("on")
    if p.accept("system"):
        return "system", ()
    if p.at("all"):
        raise _unsupported("GRANT ON ALL … IN SCHEMA")
    kind: GrantKind = "table"
    for word in ("table", "schema", "database", "cluster", "secret", "connection"):
        if p.accept(word):
            kind = word
            break
    else:
        if p.word() in ("sequence", "function", "type", "view", "foreign", "large"):
            raise _unsupported(f"GRANT ON {(p.word() or '').upper()}")
    names = [p.object_name()]
    while p.accept_op(","):
        names.append(p.object_name())
    return kind, tuple(names)


def _grantees(p: DdlParser) -> tuple[str, ...]:
    grantees: list[str] = []
    while True:
        p.accept("group")
        t = p.peek()
        if t is None or t.kind not in ("word", "ident"):
            raise p.error()
        grantees.append(t.text)
        p.i += 1
        if not p.accept_op(","):
            return tuple(grantees)


def _trailing(p: DdlParser, grant: bool) -> None:
    if p.at("with", "grant", "option") or p.at("with", "admin", "option") or p.at("with", "admin"):
        raise _unsupported(" ".join(t.text.upper() for t in p.tokens[p.i : p.i + 3]))
    if p.at("granted", "by"):
        raise _unsupported("GRANTED BY")
    if not grant and p.accept("cascade"):
        raise _unsupported("REVOKE … CASCADE")
    if not grant:
        p.accept("restrict")
    p.end()


def _grant_or_revoke(p: DdlParser, grant: bool) -> RbacStatement:
    if not grant and (p.at("grant", "option", "for") or p.at("admin", "option", "for")):
        raise _unsupported(f"REVOKE {(p.word() or '').upper()} OPTION FOR")
    privileges = _privileges(p)
    if privileges is None:
        roles = _name_list(p)
        p.expect("to" if grant else "from")
        members = _grantees(p)
        _trailing(p, grant)
        return GrantRole(roles, members) if grant else RevokeRole(roles, members)
    kind, objects = _target(p)
    system_words = [w for w in privileges if w.lower() in SYSTEM_PRIVILEGE_WORDS]
    if kind == "system" and len(system_words) != len(privileges) and privileges != ("ALL",):
        raise e.InvalidGrantOperation(f"invalid privilege types {', '.join(privileges)} for SYSTEM")
    if kind != "system" and system_words:
        raise e.InvalidGrantOperation(f"invalid privilege type {system_words[0]} for {kind}")
    p.expect("to" if grant else "from")
    grantees = _grantees(p)
    _trailing(p, grant)
    if grant:
        return GrantPrivileges(privileges, kind, objects, grantees)
    return RevokePrivileges(privileges, kind, objects, grantees)


def parse_rbac(sql: str) -> RbacStatement | None:
    head = _HEAD.match(sql)
    if head is None or head.group(1).lower() not in _FIRST_WORDS:
        return None
    p = DdlParser(sql)
    p.i = 1
    first, second = p.tokens[0].text, p.word() or ""
    if first in ("grant", "revoke"):
        return _grant_or_revoke(p, first == "grant")
    if first == "alter":
        if second in _ROLE_WORDS:
            p.i = 2
        return _alter(p, second)
    if second not in _ROLE_WORDS:
        return None
    p.i = 2
    return _create(p, second) if first == "create" else _drop(p)
