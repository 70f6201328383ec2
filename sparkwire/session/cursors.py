"""SQL cursors: DECLARE, FETCH, MOVE and CLOSE over the session's portal namespace.

Contract: `declare(stmt, plan, params)` opens a cursor for a row-returning plan (25P01 outside a block unless WITH
HOLD; 42P03 if the name is taken; 42601 for anything but SELECT / VALUES / SUBSCRIBE): its query starts at once
and a WITH HOLD cursor is read into memory, so it survives its transaction. A SUBSCRIBE cursor (subscriptions.py)
is read by FETCH [n] … [WITH (timeout = 'd')]: the rows ready now, waiting up to the timeout (none: until one
comes) for at least one. `run(stmt, formats)` executes FETCH [n] (rows in
the cursor's own format, BINARY or text, over the simple protocol; in the Bind's formats over the extended one),
MOVE [n] (a count, no rows), CLOSE name and CLOSE ALL (34000 for an unknown cursor). Cursors only scan forward.
"""

from __future__ import annotations

from sparkwire import errors as e
from sparkwire.api import CommandComplete, FormatCode, Result, Rows
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.execute.subscribe.subscription import SubscriptionSource
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.planning.plan import Plan
from sparkwire.session.portals import Formats, Portal, all_text
from sparkwire.session.queries import Queries
from sparkwire.session.state import SessionState
from sparkwire.session.subscriptions import Subscriptions, fetch_timeout


class Cursors:
    def __init__(self, state: SessionState, queries: Queries, subscriptions: Subscriptions) -> None:
        self._s = state
        self._queries = queries
        self._subscriptions = subscriptions

    def declare(self, stmt: u.Declare, plan: Plan, params: tuple[object, ...]) -> Result:
        portals = self._s.portals
        if not stmt.hold and not self._s.tx.in_block:
            raise e.NoActiveSqlTransaction("DECLARE CURSOR can only be used in transaction blocks")
        if stmt.name in portals:
            raise e.DuplicateCursor(f'cursor "{stmt.name}" already exists')
        source: RowSource
        if plan.kind == "subscribe":  # Materialize's SUBSCRIBE cursor: FETCH … WITH (timeout = …)
            if stmt.hold:
                raise e.FeatureNotSupported("DECLARE … WITH HOLD is not supported for SUBSCRIBE")
            fields, source = self._subscriptions.start(plan, params)
        elif plan.kind != "query":
            raise e.SyntaxError("DECLARE CURSOR can only be used with a SELECT, VALUES or SUBSCRIBE query")
        else:
            self._subscriptions.check_query()
            fields, source = self._queries.start_query(plan, params)
        if stmt.hold:
            source.materialize()
        code: FormatCode = 1 if stmt.binary else 0
        portals[stmt.name] = Portal(plan, fields=fields, formats=(code,) * len(fields), source=source, hold=stmt.hold)
        return CommandComplete("DECLARE CURSOR")

    def run(self, stmt: u.Utility, formats: Formats) -> Result:
        portals = self._s.portals
        match stmt:
            case u.Fetch(cursor=name, count=count, move=move, timeout=timeout):
                cursor = portals.get(name)
                if cursor is None or cursor.source is None or cursor.fields is None:
                    raise e.InvalidCursorName(f'cursor "{name}" does not exist')
                if isinstance(cursor.source, SubscriptionSource):  # what is ready, waiting up to timeout for a row
                    cursor.source.fetching(fetch_timeout(timeout))
                elif timeout is not None:
                    raise e.FeatureNotSupported("FETCH … WITH (timeout) is supported for SUBSCRIBE cursors only")
                if move:
                    moved = sum(batch.num_rows for batch in cursor.source.take(count))
                    return CommandComplete(f"MOVE {moved}")
                # simple protocol: the cursor's own format (BINARY or text); extended: the FETCH portal's Bind
                fmts = cursor.formats if formats is all_text else formats(len(cursor.fields))
                return Rows(cursor.fields, cursor.source.take(count), fmts, tag_prefix="FETCH")
            case u.CloseCursor(name=None):
                self._s.close_portals()
                return CommandComplete("CLOSE CURSOR ALL")
            case u.CloseCursor(name=str(name)):
                if name not in portals:
                    raise e.InvalidCursorName(f'cursor "{name}" does not exist')
                self._s.close_portal(name)
                return CommandComplete("CLOSE CURSOR")
        raise AssertionError(stmt)
