"""The fixed OIDs the builtin pg_catalog relations share: pg_catalog's own, the builtin owner, encodings,
collation and tablespace defaults, and `BOOTSTRAP_OIDS`, the OIDs `Catalog._bootstrap` assigns on first open (role
`materialize`, database `materialize`, schema `public` — sparkwire's own OIDs, not PostgreSQL's 2200)."""

from __future__ import annotations

from sparkwire.catalog.builtins import BUILTIN_ROLES

PG_CATALOG_OID = 11
# What `Catalog._bootstrap` assigns on first open (FIRST_USER_OID onwards, in creation order).
BOOTSTRAP_OIDS = {"role": 20000, "database": 20001, "schema": 20002}
BUILTIN_OWNER_OID = next(r.oid for r in BUILTIN_ROLES if r.name == "mz_system")
UTF8_ENCODING = 6
DEFAULT_COLLATION_OID = 100
DEFAULT_TABLESPACE_OID = 1663
