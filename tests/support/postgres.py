"""A throwaway PostgreSQL 15 on a loopback port: the oracle for tests and the reference for benchmarks.

`PostgresOracle.start(tmpdir)` runs initdb + pg_ctl from Debian's postgresql-15 package (installed by the
README's set-up). PostgreSQL refuses to run as root, so as root the cluster is owned by and run as the
`postgres` user, in its own directory under the system temp dir (`workdir` may sit below directories that only
root can enter, like pytest's 0700 basetemp); `stop()` removes that directory. Connect with `oracle.dsn`
(trust auth on 127.0.0.1, database `postgres`, user `postgres`).

The cluster orders text by bytes (LC_COLLATE C, as sparkwire does) and maps case by Unicode (LC_CTYPE C.UTF-8:
`upper('é')` is `É`, as in sparkwire, Materialize and PostgreSQL in any UTF-8 locale); under LC_CTYPE C
PostgreSQL changes the case of ASCII letters only.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PG_BIN_CANDIDATES = (Path("/usr/lib/postgresql/15/bin"),)
# What logical replication (the PostgreSQL source's tests) needs of the upstream server.
LOGICAL_REPLICATION = {"wal_level": "logical", "max_replication_slots": "20", "max_wal_senders": "20"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pg_bin_dir() -> Path:
    for candidate in PG_BIN_CANDIDATES:
        if (candidate / "initdb").exists():
            return candidate
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    raise RuntimeError("PostgreSQL 15 server binaries not found: apt-get install postgresql-15")


def _as_postgres_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@dataclass
class PostgresOracle:
    datadir: Path
    port: int

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    @classmethod
    def start(cls, workdir: Path, settings: dict[str, str] | None = None) -> PostgresOracle:
        """`settings`: extra server settings (`-c name=value`), applied after the defaults so they win."""
        bindir = pg_bin_dir()
        if os.geteuid() == 0:
            workdir = Path(tempfile.mkdtemp(prefix="sparkwire-pg-"))
            shutil.chown(workdir, "postgres")
        datadir = workdir / "pgdata"
        datadir.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(datadir, "postgres")
        subprocess.run(
            _as_postgres_user(
                [str(bindir / "initdb"), "-D", str(datadir), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                 "--locale=C", "--lc-ctype=C.UTF-8", "--no-sync"]
            ),
            check=True,
            capture_output=True,
        )
        port = free_port()
        opts = (
            f"-c port={port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={datadir} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50 "
            "-c shared_buffers=128MB -c TimeZone=UTC -c log_min_messages=warning"
        ) + "".join(f" -c {name}={value}" for name, value in (settings or {}).items())
        subprocess.run(
            _as_postgres_user(
                [str(bindir / "pg_ctl"), "-D", str(datadir), "-o", opts, "-l", str(datadir / "log"), "-w",
                 "start"]
            ),
            check=True,
            capture_output=True,
        )
        oracle = cls(datadir, port)
        oracle._wait_ready()
        return oracle

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"PostgreSQL did not start on port {self.port}")

    def stop(self) -> None:
        subprocess.run(
            _as_postgres_user(
                [str(pg_bin_dir() / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "stop"]
            ),
            check=False,
            capture_output=True,
        )
        if os.geteuid() == 0:  # the directory start() made for the postgres user
            shutil.rmtree(self.datadir.parent, ignore_errors=True)
