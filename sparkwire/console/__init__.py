"""The web console (docs/console.md): work through optimizer notices in a browser, browse objects and the
statement history. Served by sparkwire itself on `--http-port` (6876 by default, loopback), next to pgwire.

The console sits beside the pgwire server (`server | console` in the import contracts) and, like it, reaches
SQL only through the session contract (`sparkwire.api`): every page runs its statements in a `Session` made by the
same factory the pgwire server uses (`PlannerService.new_session`), as the logged-in role, with Parse / Bind /
Execute / Sync and bound parameters. There is no other way in: no superuser session, no catalog reads.

`start_console(...)` wires it up for the CLI: the session factory, how logins are checked (`"trust"`, or
`"password"` with the pgwire server's password store), the server's backend registry (pids, pg_cancel_backend /
pg_terminate_backend), the login roles for the trust-mode picker, host, port and TLS files. It returns the running
`ConsoleServer` and the `Logins` table (stop the server, then `close_all()` the logins).

Modules: app.py (routes, headers, error pages), web.py (shared request helpers), pages_auth.py, pages_notices.py,
pages_objects.py (the pages), queries.py (the SQL), sql.py (the session driver), logins.py (logins, password
checks), docs.py (notice docs), server.py (Uvicorn on a thread); templates/ and static/ are package data.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sparkwire.api import SessionFactory
from sparkwire.console.app import create_app
from sparkwire.console.docs import NoticeDocs
from sparkwire.console.logins import Authenticator, AuthMode, Backend, Backends, Logins, VerifierLookup
from sparkwire.console.server import ConsoleServer
from sparkwire.console.web import Console

DEFAULT_PORT = 6876

__all__ = ["DEFAULT_PORT", "ConsoleServer", "Logins", "start_console"]


def start_console(
    factory: SessionFactory,
    *,
    mode: AuthMode,
    verifier: VerifierLookup | None,
    register: Callable[[Backend], tuple[int, int]] | None,
    unregister: Callable[[int], None] | None,
    roles: Callable[[], list[str]] | None,
    host: str,
    port: int,
    tls: tuple[Path, Path] | None,
) -> tuple[ConsoleServer, Logins]:
    logins = Logins(factory, Backends(register, unregister))
    console = Console(Authenticator(mode, verifier), logins, NoticeDocs(), secure_cookies=tls is not None,
                      roles=roles)
    server = ConsoleServer(create_app(console), host, port, tls)
    server.start()
    return server, logins
