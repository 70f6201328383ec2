"""The `sparkwire` command line: `sparkwire serve --host H --port P --data-dir DIR [--auth …] [--tls-cert F
--tls-key F] [--spark-memory SIZE …] [--log-level L]`.

Contract: logs go to stderr. With `--auth` other than trust the bootstrap superuser's password must be in
SPARKWIRE_SUPERUSER_PASSWORD (the command refuses to start otherwise, exit status 2); it is kept only as a
SCRAM verifier. SIGTERM/SIGINT shut the server down gracefully (exit status 0). Spark is sized from the machine
(`engine/spark_sizing.py`) unless `--spark-memory` and friends say otherwise; a size that does not parse is a usage
error (exit status 2). The command owns the `SparkEngine` and stops it after the service.
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

from sparkwire.console import DEFAULT_PORT as CONSOLE_PORT
from sparkwire.console import ConsoleServer, Logins, start_console
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_sizing import SparkSizing, parse_size
from sparkwire.server.auth import AUTH_METHODS, BootstrapPasswords, make_auth_method
from sparkwire.server.auth.passwords import CatalogPasswords
from sparkwire.server.connection import ServerContext
from sparkwire.server.listener import Listener
from sparkwire.session.service import PlannerService

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
        "--cluster-applications",
        action="store_true",
        help="run each cluster replica as a Spark application of its own (local[cores] embedded, or on the "
        "--spark-master cluster with spark.cores.max), instead of a FAIR pool of the one application",
    )
    srv.add_argument(
        "--spark-start",
        choices=["background", "on-demand"],
        default="background",
        help="start Spark with the server (default) or at the first query that needs it",
    )
    srv.add_argument(
        "--spark-warm-up",
        choices=["on", "off"],
        default="on",
        help="run a few queries of each kind once Spark is up, before clients' first ones (default on)",
    )
    srv.add_argument("--spark-memory", type=_size, help="driver memory, e.g. 4g (default: a quarter of the RAM)")
    srv.add_argument("--spark-executor-memory", type=_size, help="executor memory on a cluster (default: as driver)")
    srv.add_argument("--spark-max-result-size", type=_size, help="largest result Spark collects (default: memory/4)")
    srv.add_argument("--spark-broadcast-threshold", type=_size, help="largest relation broadcast in a join")
    srv.add_argument("--spark-shuffle-partitions", type=int, help="shuffle partitions (default: 2 × cores)")
    srv.add_argument("--http-host", default="127.0.0.1", help="the web console's address (default 127.0.0.1)")
    srv.add_argument(
        "--http-port", type=int, default=None, help=f"the web console's port (default {CONSOLE_PORT}; 0: no console)"
    )
    srv.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return root


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def spark_engine(args: argparse.Namespace) -> SparkEngine:
    """The Spark engine the flags describe (not started)."""
    sizing = SparkSizing.for_machine(
        args.spark_memory,
        executor_memory=args.spark_executor_memory,
        max_result_size=args.spark_max_result_size,
        broadcast_threshold=args.spark_broadcast_threshold,
        shuffle_partitions=args.spark_shuffle_partitions,
    )
    # with an application per cluster replica, the main one runs only work of no cluster (a view computed for a
    # reader): on a Spark cluster it takes one core, not every core the cluster manager would otherwise give it
    own = args.cluster_applications and not args.spark_master.startswith("local")
    return SparkEngine(
        args.data_dir.resolve() / "spark",
        extra_conf={"spark.cores.max": "1"} if own else None,
        master=args.spark_master,
        remote=args.spark_remote,
        sizing=sizing,
        cluster_applications=args.cluster_applications,
        warm_up=args.spark_warm_up == "on",
    )


def _tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    return ctx


GIL_SWITCH_INTERVAL = 0.002


def prefer_short_gil_turns() -> None:
    """A connection thread waiting for the GIL gets it within `GIL_SWITCH_INTERVAL` seconds of asking, not Python's
    default 5 ms. Under load, another session's Python work (planning and committing an INSERT) held the GIL while
    an introspection query's thread, already woken with its answer's bytes, slept on it: `perf sched` showed
    2.2 ms of such a wait in a 3.9 ms `SELECT 1` (issue 14). Shorter turns cost round trips: a connection thread
    and the statement-history writer hand the GIL to each other more often. Measured (bench/introspection_under_load
    p99 under load; bench.pgwire --quick, sparkwire's rates), 5 / 2 / 0.5 ms: `\\dt` 3.5-3.7 / 3.2-3.9 / 2.9-3.8 ms,
    mz_objects 3.3-3.6 / 2.8-2.9 / 2.4-3.0 ms; simple-protocol `SELECT 1` 5,700-6,900 / 6,000-6,200 / 4,800-5,600
    round trips/s, 64 clients 3,840-4,400 / 3,840-4,060 / 3,820-3,840. 2 ms keeps the round trips and most of the
    tail's gain."""
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)


def cmd_serve(args: argparse.Namespace) -> int:
    bootstrap = None
    if args.auth != "trust":
        password = os.environ.get(PASSWORD_ENV)
        if not password:
            log.error("--auth %s needs the superuser password in %s", args.auth, PASSWORD_ENV)
            return 2
        bootstrap = BootstrapPasswords(SUPERUSER, password)
    if args.cluster_applications and args.spark_remote:
        log.error("--cluster-applications needs --spark-master (embedded or spark://): sparkwire cannot start "
                  "applications through one Spark Connect server")
        return 2
    if (args.tls_cert is None) != (args.tls_key is None):
        log.error("--tls-cert and --tls-key go together")
        return 2
    tls = _tls_context(args.tls_cert, args.tls_key) if args.tls_cert else None
    spark = spark_engine(args)
    if args.spark_start == "background":
        spark.start_background()
    try:
        service = PlannerService(args.data_dir.resolve(), spark)
    except BaseException:
        spark.stop()
        raise
    # everything built so far (catalog state, builtin relations, type tables) lives as long as the process: keep it
    # out of the collector's full passes, which otherwise show up as tail latency on every connection
    gc.freeze()
    prefer_short_gil_turns()
    try:
        # passwords of roles made with CREATE ROLE … PASSWORD live in the catalog; the superuser's comes from the env
        store = None if bootstrap is None else CatalogPasswords(lambda: service.data.state, bootstrap)
        ctx = ServerContext(service.new_session, make_auth_method(args.auth, store), tls)
        service.backends = ctx.cancels  # pg_cancel_backend / pg_terminate_backend reach the connections
        try:  # the console first: a server that cannot have the console it was asked for never takes clients
            console = _start_console(args, service, store, ctx)
        except (OSError, RuntimeError) as exc:
            log.error("the web console cannot serve on %s:%s: %s", args.http_host, args.http_port, exc)
            return 2
        try:
            listener = Listener(ctx, args.host, args.port)

            def on_signal(signum: int, _frame: FrameType | None) -> None:
                log.info("received %s", signal.Signals(signum).name)
                listener.stop()

            signal.signal(signal.SIGTERM, on_signal)
            signal.signal(signal.SIGINT, on_signal)
            log.info("sparkwire listening on %s:%d (auth %s%s, GIL switch interval %.1f ms)", args.host,
                     listener.port, args.auth, ", TLS" if tls else "", sys.getswitchinterval() * 1000)
            listener.serve_forever()
        finally:
            if console is not None:
                console[0].stop()
                console[1].close_all()
    finally:
        service.close()
        spark.stop()
    log.info("sparkwire stopped")
    return 0


def _start_console(
    args: argparse.Namespace, service: PlannerService, store: CatalogPasswords | None, ctx: ServerContext
) -> tuple[ConsoleServer, Logins] | None:
    """The web console on its own thread, or None when it is turned off (or the default port is taken)."""
    port = CONSOLE_PORT if args.http_port is None else args.http_port
    if port == 0:
        return None
    tls = (args.tls_cert, args.tls_key) if args.tls_cert else None

    def login_roles() -> list[str]:
        return sorted(role.name for role in service.data.state.roles.values() if role.login)

    try:
        console = start_console(
            service.new_session,
            mode="trust" if store is None else "password",
            verifier=None if store is None else store.scram_verifier,
            register=ctx.cancels.register,
            unregister=ctx.cancels.unregister,
            roles=login_roles,
            host=args.http_host,
            port=port,
            tls=tls,
        )
    except OSError as exc:
        if args.http_port is not None:
            raise
        log.warning("web console not started: port %d is not available (%s); use --http-port", port, exc)
        return None
    log.info("web console on %s", console[0].url)
    if store is None and args.http_host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("the web console uses trust authentication: it offers logins to loopback clients only")
    return console


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if args.command == "serve":
        return cmd_serve(args)
    return 2
