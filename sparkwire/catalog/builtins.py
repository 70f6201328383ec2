"""Builtin catalog objects and the id scheme. Builtins are defined here, in code, never persisted.

Id scheme (as Materialize):
- every kind has its own id space: databases, schemas, roles, clusters and items are numbered independently,
  so database `u1`, schema `u3`, role `u1`, cluster `u1` and item `u1` are different objects; a reference to
  an object always says which kind it is (see `ObjectRef`).
- user objects get `u<n>` from a per-kind allocator that is persisted in the catalog and only moves forward:
  an id is never reused, even after the object is dropped and the catalog reopened.
- builtin objects get `s<n>` (system) and are defined here; predefined roles get `g<n>` (mz_monitor,
  mz_monitor_redacted); `p` is the PUBLIC pseudo-role, which can be granted privileges but is not a role.
- OIDs: user objects (databases, schemas, roles, items) get OIDs from one allocator starting at
  `FIRST_USER_OID` = 20000, never reused. Builtin schemas and roles have fixed OIDs below that (pg_catalog is
  11 and information_schema 13183 as in PostgreSQL, so that clients that hard-code them keep working).

Bootstrap (first open, one durable transaction): database `materialize` (u1) with schema `public` (u3 — the
schema allocator starts at 3, as Materialize's), superuser login role `materialize` (u1), cluster `quickstart`
(u1), PUBLIC granted USAGE on all three. They are ordinary user objects afterwards (they can be dropped).
"""

from __future__ import annotations

from sparkwire.catalog.objects import ObjectRef, Privilege, Role, Schema

FIRST_USER_OID = 20000
FIRST_USER_SCHEMA_NUMBER = 3

PUBLIC_ROLE_ID = "p"
MZ_SYSTEM_ROLE_ID = "s1"

BUILTIN_ROLES: tuple[Role, ...] = (
    Role(id="s1", oid=16662, name="mz_system", superuser=True, login=True),
    Role(id="s2", oid=16663, name="mz_support", login=True),
    Role(id="g1", oid=16664, name="mz_monitor"),
    Role(id="g2", oid=16665, name="mz_monitor_redacted"),
)

BUILTIN_SCHEMAS: tuple[Schema, ...] = (
    Schema(id="s1", oid=16656, database_id=None, name="mz_catalog", owner_id=MZ_SYSTEM_ROLE_ID),
    Schema(id="s2", oid=11, database_id=None, name="pg_catalog", owner_id=MZ_SYSTEM_ROLE_ID),
    Schema(id="s4", oid=16657, database_id=None, name="mz_internal", owner_id=MZ_SYSTEM_ROLE_ID),
    Schema(id="s5", oid=13183, database_id=None, name="information_schema", owner_id=MZ_SYSTEM_ROLE_ID),
    Schema(id="s8", oid=16658, database_id=None, name="mz_introspection", owner_id=MZ_SYSTEM_ROLE_ID),
)

# Everyone may use the builtin schemas.
BUILTIN_PRIVILEGES: tuple[Privilege, ...] = tuple(
    Privilege(ObjectRef("schema", s.id), PUBLIC_ROLE_ID, MZ_SYSTEM_ROLE_ID, "U") for s in BUILTIN_SCHEMAS
)

# Schemas searched before the search_path when they are not named in it (PostgreSQL does this for pg_catalog,
# Materialize for mz_catalog too).
IMPLICIT_SEARCH_SCHEMAS: tuple[str, ...] = ("mz_catalog", "pg_catalog")

# Role names that users cannot create (PostgreSQL reserves pg_*, Materialize mz_*; PUBLIC is a keyword).
RESERVED_ROLE_PREFIXES: tuple[str, ...] = ("mz_", "pg_")
RESERVED_ROLE_NAMES: frozenset[str] = frozenset(
    {"public", "none", "current_role", "current_user", "session_user"}
)

DEFAULT_DATABASE = "materialize"
DEFAULT_SCHEMA = "public"
DEFAULT_ROLE = "materialize"
DEFAULT_CLUSTER = "quickstart"


def is_builtin_id(object_id: str) -> bool:
    """Builtin (code-defined) objects: system `s…` and predefined `g…` ids, and PUBLIC."""
    return object_id == PUBLIC_ROLE_ID or object_id[:1] in ("s", "g")
