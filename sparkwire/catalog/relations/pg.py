"""The builtin pg_catalog relations sparkwire serves, declared as data (see `relation.py`): name, OID, columns with
their PostgreSQL 15 types, and rows as functions of a `CatalogState`.

Contract: `BUILTIN_RELATIONS` lists the pg_catalog relations defined here; the ones that describe catalog items
(pg_class, pg_attribute, …) live in `pg_items.py`, information_schema in `info.py`, mz_catalog in `mz.py`. Code-
defined rows: pg_type (`pg_type.py`), pg_am, pg_opfamily and pg_opclass (PostgreSQL 15's for those access methods,
owned by the builtin owner: pg_opclasses.py), pg_collation, pg_tablespace, pg_language; pg_proc lists the builtin
functions those rows name by regproc (types' I/O functions, access method handlers: `pgtypes.functions`), so that
joins such as Npgsql's `pg_proc.oid = pg_type.typreceive` find them (the rewrite compares regproc columns by OID,
see introspection/regprocs.py); pg_sequence and `_EMPTY_RELATIONS` have PostgreSQL 15's columns and no rows
(sparkwire has no user-defined functions or sequences). Catalog-defined rows: pg_namespace (builtin and user
schemas), pg_roles / pg_user / pg_authid (superusers only, as in PostgreSQL) / pg_auth_members (roles; rolcreaterole
/ rolcreatedb are the CREATEROLE / CREATEDB system privileges), pg_database. The fixed OIDs are in `pg_oids.py`.
pg_stat_activity's rows (one per session) come from `introspection.sessions`; pg_settings's from another layer:
`settings_rows(definitions)` turns the planner's variables into its rows, and its `setting` column is per session,
so the store holds NULL there and the rewrite computes it with current_setting(). pg_catalog describes every
database's schemas at once (sessions connect to one database today). `TABLE_FUNCTIONS` are the rows of pg_catalog's
table functions, declared like relations: pg_get_keywords() (pg_keywords.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sparkwire.catalog.objects import SYSTEM_OBJECT, ObjectRef
from sparkwire.catalog.relations.pg_keywords import BARE_LABELS, CATEGORIES, KEYWORDS
from sparkwire.catalog.relations.pg_oids import (
    BUILTIN_OWNER_OID,
    DEFAULT_COLLATION_OID,
    DEFAULT_TABLESPACE_OID,
    PG_CATALOG_OID,
    UTF8_ENCODING,
)
from sparkwire.catalog.relations.pg_opclasses import OPCLASSES, OPFAMILIES
from sparkwire.catalog.relations.pg_type import PG_TYPE_COLUMNS, pg_type_rows
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, Sensitivity, names_of, no_rows, parse_columns
from sparkwire.catalog.state import CatalogState
from sparkwire.pgtypes.functions import BUILTIN_FUNCTIONS, NOT_STRICT

# ---- namespaces, roles, databases -----------------------------------------------------------------------------


def _pg_namespace_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            s.oid,
            s.name,
            names.role_oid(s.owner_id),
            names.acl(ObjectRef("schema", s.id), s.owner_id, "schema", by_id=False, always=False),
        )
        for s in sorted(state.schemas.values(), key=lambda s: s.oid)
    ]


def _may(state: CatalogState, role_id: str, letter: str) -> bool:
    return state.has_privilege(role_id, SYSTEM_OBJECT, letter)


def _pg_roles_rows(state: CatalogState) -> list[Row]:
    return [
        (
            r.name,
            r.superuser,
            r.inherit,
            _may(state, r.id, "R"),
            _may(state, r.id, "B"),
            r.login,
            False,
            -1,
            "********",
            None,
            r.superuser,
            None,
            r.oid,
        )
        for r in sorted(state.roles.values(), key=lambda r: r.oid)
    ]


def _pg_user_rows(state: CatalogState) -> list[Row]:
    return [
        (r.name, r.oid, _may(state, r.id, "B"), r.superuser, False, r.superuser, "********", None, None)
        for r in sorted(state.roles.values(), key=lambda r: r.oid)
        if r.login
    ]


def _pg_authid_rows(state: CatalogState) -> list[Row]:
    return [
        (
            r.oid,
            r.name,
            r.superuser,
            r.inherit,
            _may(state, r.id, "R"),
            _may(state, r.id, "B"),
            r.login,
            False,
            r.superuser,
            -1,
            None,
            None,
        )
        for r in sorted(state.roles.values(), key=lambda r: r.oid)
    ]


def _pg_auth_members_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (names.role_oid(m.role_id), names.role_oid(m.member_id), names.role_oid(m.grantor_id), False)
        for m in sorted(state.memberships.values(), key=lambda m: (m.role_id, m.member_id))
    ]


def _pg_database_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            d.oid,
            d.name,
            names.role_oid(d.owner_id),
            UTF8_ENCODING,
            "c",
            False,
            True,
            -1,
            0,
            0,
            DEFAULT_TABLESPACE_OID,
            "C",
            "C",
            None,
            None,
            names.acl(ObjectRef("database", d.id), d.owner_id, "database", by_id=False, always=False),
        )
        for d in sorted(state.databases.values(), key=lambda d: d.oid)
    ]


@dataclass(frozen=True, slots=True)
class SettingDefinition:
    """What pg_settings shows of one session variable."""

    name: str
    default: str
    description: str
    settable: bool


def settings_rows(definitions: Sequence[SettingDefinition]) -> list[Row]:
    return [
        (
            d.name,
            None,
            None,
            "Ungrouped",
            d.description,
            None,
            "user" if d.settable else "internal",
            "string",
            "default",
            None,
            None,
            None,
            d.default,
            d.default,
            None,
            None,
            False,
        )
        for d in definitions
    ]


PG_SETTINGS = "pg_settings"


def _constant(rows: list[Row]) -> Callable[[CatalogState], list[Row]]:
    return lambda state: rows


_AM_ROWS: list[Row] = [
    (2, "heap", "heap_tableam_handler", "t"),
    (403, "btree", "bthandler", "i"),
    (405, "hash", "hashhandler", "i"),
    (783, "gist", "gisthandler", "i"),
    (2742, "gin", "ginhandler", "i"),
    (4000, "spgist", "spghandler", "i"),
    (3580, "brin", "brinhandler", "i"),
]
_OPFAMILY_ROWS: list[Row] = [(oid, method, name, PG_CATALOG_OID, BUILTIN_OWNER_OID) for oid, method, name in OPFAMILIES]
_OPCLASS_ROWS: list[Row] = [
    (oid, method, name, PG_CATALOG_OID, BUILTIN_OWNER_OID, family, intype, default, keytype)
    for oid, method, name, family, intype, default, keytype in OPCLASSES
]
_KEYWORD_ROWS: list[Row] = [
    (word, catcode, barelabel, CATEGORIES[catcode], BARE_LABELS[barelabel]) for word, catcode, barelabel in KEYWORDS
]
_COLLATION_ROWS: list[Row] = [
    (DEFAULT_COLLATION_OID, "default", PG_CATALOG_OID, BUILTIN_OWNER_OID, "d", True, -1, None, None, None, None),
    (950, "C", PG_CATALOG_OID, BUILTIN_OWNER_OID, "c", True, -1, "C", "C", None, None),
    (951, "POSIX", PG_CATALOG_OID, BUILTIN_OWNER_OID, "c", True, -1, "POSIX", "POSIX", None, None),
]


_INTERNAL_LANGUAGE = 12
# pg_proc of a builtin function: internal, strict (but NOT_STRICT), no set, parallel safe, cost 1, its C symbol is
# its name
_PROC_ROWS: list[Row] = [
    (
        *(oid, name, PG_CATALOG_OID, BUILTIN_OWNER_OID, _INTERNAL_LANGUAGE, 1.0, 0.0, 0, "-", "f", False, False),
        *(name not in NOT_STRICT, False, volatility, "s", len(args), 0, returns, args, None, None, None, None, None),
        *(name, None, None, None, None),
    )
    for oid, name, volatility, returns, args in BUILTIN_FUNCTIONS
]
_TABLESPACE_ROWS: list[Row] = [
    (DEFAULT_TABLESPACE_OID, "pg_default", BUILTIN_OWNER_OID, None, None),
    (1664, "pg_global", BUILTIN_OWNER_OID, None, None),
]
_LANGUAGE_ROWS: list[Row] = [
    (12, "internal", BUILTIN_OWNER_OID, False, False, 0, 0, 2246, None),
    (13, "c", BUILTIN_OWNER_OID, False, False, 0, 0, 2247, None),
    (14, "sql", BUILTIN_OWNER_OID, False, True, 0, 0, 2248, None),
]
# Relations of features sparkwire does not have (rules, triggers, policies, publications, partitioning, foreign
# tables, extended statistics): PostgreSQL 15's columns, no rows,
# so the catalog queries clients send still run.
_EMPTY_RELATIONS: tuple[tuple[str, int, str], ...] = (
    (
        "pg_trigger",
        2620,
        'oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype smallint, tgenabled "char", '
        "tgisinternal boolean, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable boolean, "
        "tginitdeferred boolean, tgnargs smallint, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, "
        "tgoldtable name, tgnewtable name",
    ),
    ("pg_foreign_table", 3118, "ftrelid oid, ftserver oid, ftoptions text[]"),
    (
        "pg_policy",
        3256,
        'oid oid, polname name, polrelid oid, polcmd "char", polpermissive boolean, polroles oid[], '
        "polqual pg_node_tree, polwithcheck pg_node_tree",
    ),
    (
        "pg_partitioned_table",
        3350,
        'partrelid oid, partstrat "char", partnatts smallint, partdefid oid, partattrs int2vector, '
        "partclass oidvector, partcollation oidvector, partexprs pg_node_tree",
    ),
    (
        "pg_statistic_ext",
        3381,
        "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget integer, "
        'stxkeys int2vector, stxkind "char"[], stxexprs pg_node_tree',
    ),
    (
        "pg_publication",
        6104,
        "oid oid, pubname name, pubowner oid, puballtables boolean, pubinsert boolean, pubupdate boolean, "
        "pubdelete boolean, pubtruncate boolean, pubviaroot boolean",
    ),
    ("pg_publication_rel", 6106, "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector"),
    ("pg_publication_namespace", 6237, "oid oid, pnpubid oid, pnnspid oid"),
)

COLLATION_OIDS = frozenset(int(str(row[0])) for row in _COLLATION_ROWS)


def _pg(
    name: str,
    oid: int,
    columns: str,
    rows: Callable[[CatalogState], Sequence[Row]],
    *,
    from_state: bool = True,
    sensitivity: Sensitivity = "public",
    live: bool = False,
) -> BuiltinRelation:
    """A pg_catalog relation; `columns` is "name type, name type, …"."""
    return BuiltinRelation("pg_catalog", name, oid, parse_columns(columns), rows, sensitivity, from_state, live)


BUILTIN_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation("pg_catalog", "pg_type", 1247, PG_TYPE_COLUMNS, pg_type_rows, from_state=False),
    _pg("pg_namespace", 2615, "oid oid, nspname name, nspowner oid, nspacl aclitem[]", _pg_namespace_rows),
    _pg(
        "pg_range",
        3541,
        "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical regproc, "
        "rngsubdiff regproc",
        no_rows,
        from_state=False,
    ),
    _pg("pg_enum", 3501, "oid oid, enumtypid oid, enumsortorder real, enumlabel name", no_rows, from_state=False),
    _pg(
        "pg_database",
        1262,
        'oid oid, datname name, datdba oid, encoding integer, datlocprovider "char", datistemplate boolean, '
        "datallowconn boolean, datconnlimit integer, datfrozenxid xid, datminmxid xid, dattablespace oid, "
        "datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]",
        _pg_database_rows,
    ),
    _pg("pg_am", 2601, 'oid oid, amname name, amhandler regproc, amtype "char"', _constant(_AM_ROWS), from_state=False),
    _pg(
        "pg_opfamily",
        2753,
        "oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid",
        _constant(_OPFAMILY_ROWS),
        from_state=False,
    ),
    _pg(
        "pg_opclass",
        2616,
        "oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, "
        "opcdefault boolean, opckeytype oid",
        _constant(_OPCLASS_ROWS),
        from_state=False,
    ),
    _pg(
        "pg_collation",
        3456,
        'oid oid, collname name, collnamespace oid, collowner oid, collprovider "char", '
        "collisdeterministic boolean, collencoding integer, collcollate text, collctype text, colliculocale text, "
        "collversion text",
        _constant(_COLLATION_ROWS),
        from_state=False,
    ),
    _pg(
        "pg_extension",
        3079,
        "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable boolean, extversion text, "
        "extconfig oid[], extcondition text[]",
        no_rows,
        from_state=False,
    ),
    _pg(
        "pg_roles",
        12000,
        "rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, "
        "rolcanlogin boolean, rolreplication boolean, rolconnlimit integer, rolpassword text, "
        "rolvaliduntil timestamp with time zone, rolbypassrls boolean, rolconfig text[], oid oid",
        _pg_roles_rows,
    ),
    _pg(
        "pg_user",
        12014,
        "usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, usebypassrls boolean, "
        "passwd text, valuntil timestamp with time zone, useconfig text[]",
        _pg_user_rows,
    ),
    _pg(
        PG_SETTINGS,
        12104,
        "name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, "
        "vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, "
        "sourcefile text, sourceline integer, pending_restart boolean",
        no_rows,
        from_state=False,
    ),
    _pg(
        "pg_authid",
        1260,
        "oid oid, rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, "
        "rolcanlogin boolean, rolreplication boolean, rolbypassrls boolean, rolconnlimit integer, rolpassword text, "
        "rolvaliduntil timestamp with time zone",
        _pg_authid_rows,
        sensitivity="superuser",  # it holds password hashes: PostgreSQL lets superusers only read it
    ),
    _pg(
        "pg_proc",
        1255,
        "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost real, prorows real, "
        'provariadic oid, prosupport regproc, prokind "char", prosecdef boolean, proleakproof boolean, '
        'proisstrict boolean, proretset boolean, provolatile "char", proparallel "char", pronargs smallint, '
        "pronargdefaults smallint, prorettype oid, proargtypes oidvector, proallargtypes oid[], "
        'proargmodes "char"[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], prosrc text, '
        "probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]",
        _constant(_PROC_ROWS),
        from_state=False,
    ),
    _pg(
        "pg_sequence",
        2224,
        "seqrelid oid, seqtypid oid, seqstart bigint, seqincrement bigint, seqmax bigint, seqmin bigint, "
        "seqcache bigint, seqcycle boolean",
        no_rows,
        from_state=False,
    ),
    _pg(
        "pg_tablespace",
        1213,
        "oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]",
        _constant(_TABLESPACE_ROWS),
        from_state=False,
    ),
    _pg(
        "pg_language",
        2612,
        "oid oid, lanname name, lanowner oid, lanispl boolean, lanpltrusted boolean, lanplcallfoid oid, "
        "laninline oid, lanvalidator oid, lanacl aclitem[]",
        _constant(_LANGUAGE_ROWS),
        from_state=False,
    ),
    *(_pg(name, oid, columns, no_rows, from_state=False) for name, oid, columns in _EMPTY_RELATIONS),
    _pg(
        "pg_stat_activity",
        12222,
        "datid oid, datname name, pid integer, leader_pid integer, usesysid oid, usename name, "
        "application_name text, client_addr inet, client_hostname text, client_port integer, "
        "backend_start timestamp with time zone, xact_start timestamp with time zone, "
        "query_start timestamp with time zone, state_change timestamp with time zone, wait_event_type text, "
        "wait_event text, state text, backend_xid xid, backend_xmin xid, query_id bigint, query text, "
        "backend_type text",
        no_rows,
        from_state=False,
        live=True,
    ),
    _pg("pg_auth_members", 1261, "roleid oid, member oid, grantor oid, admin_option boolean", _pg_auth_members_rows),
)
# The rows of pg_catalog's set-returning functions clients call in FROM, hosted like relations (named and
# numbered as the function's pg_proc entry) but listed in no catalog relation.
TABLE_FUNCTIONS: tuple[BuiltinRelation, ...] = (
    _pg(
        "pg_get_keywords",
        1686,
        'word text, catcode "char", barelabel boolean, catdesc text, baredesc text',
        _constant(_KEYWORD_ROWS),
        from_state=False,
    ),
)
