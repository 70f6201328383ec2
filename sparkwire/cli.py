"""The `sparkwire` command line: `sparkwire serve --host H --port P --data-dir DIR [--auth …] [--tls-cert F
--tls-key F] [--log-level L]`.

Contract: logs go to stderr. With `--auth` other than trust the bootstrap superuser's password must be in
SPARKWIRE_SUPERUSER_PASSWORD (the command refuses to start otherwise, exit status 2); it is kept only as a
SCRAM verifier. SIGTERM/SIGINT shut the server down gracefully (exit status 0).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import ssl
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from sparkwire.server.auth import AUTH_METHODS, BootstrapPasswords, make_auth_method
from sparkwire.server.auth.passwords import CatalogPasswords
from sparkwire.server.connection import ServerContext
from sparkwire.server.listener import Listener
from sparkwire.session.service import PlannerService, SparkOptions

SUPERUSER = "materialize"
PASSWORD_ENV = "SPARKWIRE_SUPERUSER_PASSWORD"

log = logging.getLogger("sparkwire")


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="sparkwire", description="A PostgreSQL-wire-compatible SQL server.")
    commands = root.add_subparsers(dest="command", required=True)
    srv = commands.add_parser("serve", help="run the server")
    srv.add_argument("--host", default="127.0.0.1")
    srv.add_argument("--port", type=int, default=6875)
    srv.add_argument("--data-dir", type=Path, required=True)
    srv.add_argument("--auth", choices=AUTH_METHODS, default="trust")
    srv.add_argument("--tls-cert", type=Path)
    srv.add_argument("--tls-key", type=Path)
    srv.add_argument("--spark-master", default="local[*]", help="local[*] (embedded, default) or spark://host:port")
    srv.add_argument("--spark-remote", help="use a Spark Connect server instead, sc://host:port")
    srv.add_argument(
        "--spark-start",
        choices=["background", "on-demand"],
        default="background",
        help="start Spark with the server (default) or at the first query that needs it",
    )
    srv.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return root


def _tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    return ctx


def cmd_serve(args: argparse.Namespace) -> int:
    bootstrap = None
    if args.auth != "trust":
        password = os.environ.get(PASSWORD_ENV)
        if not password:
            log.error("--auth %s needs the superuser password in %s", args.auth, PASSWORD_ENV)
            return 2
        bootstrap = BootstrapPasswords(SUPERUSER, password)
    if (args.tls_cert is None) != (args.tls_key is None):
        log.error("--tls-cert and --tls-key go together")
        return 2
    tls = _tls_context(args.tls_cert, args.tls_key) if args.tls_cert else None
    spark = SparkOptions(master=args.spark_master, remote=args.spark_remote, start=args.spark_start)
    service = PlannerService(args.data_dir.resolve(), spark)
    # everything built so far (catalog state, builtin relations, type tables) lives as long as the process: keep it
    # out of the collector's full passes, which otherwise show up as tail latency on every connection
    gc.freeze()
    try:
        # passwords of roles made with CREATE ROLE … PASSWORD live in the catalog; the superuser's comes from the env
        store = None if bootstrap is None else CatalogPasswords(lambda: service.data.state, bootstrap)
        ctx = ServerContext(service.new_session, make_auth_method(args.auth, store), tls)
        service.backends = ctx.cancels  # pg_cancel_backend / pg_terminate_backend reach the connections
        listener = Listener(ctx, args.host, args.port)

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            log.info("received %s", signal.Signals(signum).name)
            listener.stop()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        log.info("sparkwire listening on %s:%d (auth %s%s)", args.host, listener.port, args.auth,
                 ", TLS" if tls else "")
        listener.serve_forever()
    finally:
        service.close()
    log.info("sparkwire stopped")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if args.command == "serve":
        return cmd_serve(args)
    return 2
