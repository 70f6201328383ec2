"""The PostgreSQL protocol v3 frontend. It owns bytes, framing, authentication, TLS, cancel and value encoding
calls; it never parses SQL (that is the Session's job, see api.py).

Layout, I/O-free first: `frontend` (decode client messages, one size limit), `backend` (encode server messages,
the one PgError → ErrorResponse mapping), `startup` (StartupMessage → who/what/settings), `auth/` (one module
per method), `protocol` (the query-phase state machine), `cancel` (pid/secret registry); then the drivers:
`connection` (one thread per client, blocking sockets) and `listener` (accept, limits, graceful shutdown).
"""
