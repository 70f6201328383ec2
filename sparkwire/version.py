"""Version numbers sparkwire reports to clients.

`SERVER_VERSION` is the PostgreSQL version whose protocol, catalogs and behaviour we emulate; clients key features
off it (server_version ParameterStatus, `SHOW server_version`, `server_version_num`, `version()`). `MZ_VERSION` is
what Materialize's own tools read (the mz_version ParameterStatus, `SHOW mz_version`, `mz_version()`): dbt-materialize
takes the first word without its `v` and checks it against the Materialize versions it supports.
"""

SPARKWIRE_VERSION = "0.1.0"
SERVER_VERSION = "15.0"
SERVER_VERSION_NUM = "150000"
MATERIALIZE_VERSION = "26.1.0"  # the Materialize whose SQL and session conventions we follow
MZ_VERSION = f"v{MATERIALIZE_VERSION} (sparkwire-{SPARKWIRE_VERSION})"  # Materialize's format: v<semver> (<build>)


def mz_version_num() -> int:
    """Materialize's mz_version_num(): major * 10000 + minor * 100 + patch (v26.1.0 → 260100)."""
    major, minor, patch = (int(part) for part in MATERIALIZE_VERSION.split("."))
    return major * 10_000 + minor * 100 + patch


def version_string() -> str:
    """What `SELECT version()` returns: starts like PostgreSQL's so that clients parsing it are satisfied."""
    return (
        f"PostgreSQL {SERVER_VERSION} on x86_64-pc-linux-gnu, compiled by sparkwire {SPARKWIRE_VERSION}, 64-bit "
        f"(sparkwire {SPARKWIRE_VERSION})"
    )
