"""The clients of one kill -9 trial (`bench.crash`) and the catalog model they keep.

`Clients(dsn, trial)` creates the trial's tables (`ins_<t>`, `cp_<t>`, `tx_<t>`), then runs client threads, each on
its own autocommit psycopg connection, until the server dies:
  - two single-row INSERT writers into `ins_<t>` (k text: a unique key per row);
  - a COPY writer: `COPY cp_<t> FROM STDIN` batches of `COPY_ROWS` rows, every row tagged with its batch id, sent in
    a few CopyData messages a moment apart;
  - a transaction writer: BEGIN, two single-row INSERTs and one three-row INSERT into `tx_<t>` a moment apart, COMMIT;
  - a DDL writer: CREATE TABLE (and INSERT of one row into it) / CREATE VIEW / CREATE INDEX of uniquely named objects,
    and DROP INDEX / DROP VIEW / DROP TABLE [CASCADE] of the previous step's objects (every eighth step's objects are
    left standing).
Every key, batch and transaction is recorded as attempted before it is sent and as acknowledged once the server
answered (CommandComplete, COMMIT's success); an error before `killing` is set is a client error, after it the
expected end of the connection. DDL statements are recorded as `DdlOp`s: acknowledged ones, and the one in flight.

`Model` is what the catalog must hold: every object the bench ever created, present, absent or unknown (a statement in
flight at the kill); unknown objects of one statement form a group that must be all present or all absent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import psycopg
from psycopg.copy import LibpqWriter

Conn: TypeAlias = psycopg.Connection[tuple[Any, ...]]
Kind: TypeAlias = Literal["table", "view", "index"]
State: TypeAlias = Literal["present", "absent", "unknown"]

COPY_ROWS = 500
COPY_CHUNKS = 5
TXN_ROWS = 5
PAYLOAD = "payload-" + "x" * 24


@dataclass(frozen=True, slots=True)
class Created:
    name: str
    kind: Kind
    on: str | None = None  # the table a view or index depends on


@dataclass(frozen=True, slots=True)
class DdlOp:
    sql: str
    creates: tuple[Created, ...] = ()
    drops: tuple[str, ...] = ()
    cascade: bool = False
    writes: str | None = None  # not DDL: an INSERT of one row into this table


@dataclass(slots=True)
class Expectation:
    kind: Kind
    on: str | None
    trial: int
    state: State
    rows: int | None = None  # what SELECT count(*) must say, once known


@dataclass
class Model:
    objects: dict[str, Expectation] = field(default_factory=dict)
    # unknown objects that stand or fall together: the names, and whether the statement creates (or drops) them
    groups: list[tuple[frozenset[str], bool]] = field(default_factory=list)

    def _affected(self, op: DdlOp) -> list[str]:
        names = list(op.drops)
        if op.cascade:
            names += [n for n, e in self.objects.items() if e.on in op.drops and e.state != "absent"]
        return names

    def apply(self, op: DdlOp, trial: int) -> None:
        """An acknowledged statement."""
        for obj in op.creates:
            rows = self.objects[obj.on].rows if obj.on else 0  # a view or index of all its table's rows
            self.objects[obj.name] = Expectation(obj.kind, obj.on, trial, "present", rows)
        for name in self._affected(op):
            self.objects[name].state = "absent"
        if op.writes is not None:
            table = self.objects[op.writes]
            table.rows = None if table.rows is None else table.rows + 1

    def in_flight(self, op: DdlOp, trial: int) -> None:
        """A statement the kill interrupted: it happened completely or not at all."""
        if op.writes is not None:
            self.objects[op.writes].rows = None
            return
        for obj in op.creates:
            rows = self.objects[obj.on].rows if obj.on else 0
            self.objects[obj.name] = Expectation(obj.kind, obj.on, trial, "unknown", rows)
        names = [*(obj.name for obj in op.creates), *self._affected(op)]
        for name in names:
            self.objects[name].state = "unknown"
        self.groups.append((frozenset(names), bool(op.creates)))


@dataclass
class Ledger:
    """Keys (rows, batches, transactions) attempted and acknowledged; set.add is atomic under the GIL."""

    attempted: set[str] = field(default_factory=set)
    acked: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Pace:
    """Pauses between operations, per client kind (seconds): they bound what a trial writes (every statement writes a
    Parquet file), and so what Spark reads back after the restart."""

    insert: float = 0.05
    copy: float = 0.1
    txn: float = 0.1
    ddl: float = 0.1
    within: float = 0.02  # between the messages of one COPY, between the statements of one transaction


def data_tables(trial: int) -> tuple[str, str, str]:
    return f"ins_{trial}", f"cp_{trial}", f"tx_{trial}"


def ddl_step(trial: int, step: int) -> list[DdlOp]:
    base = f"d{trial}_{step}"
    ops = [
        DdlOp(f"CREATE TABLE {base} (a int, b text)", (Created(base, "table"),)),
        DdlOp(f"INSERT INTO {base} VALUES (1, 'one')", writes=base),
        DdlOp(f"CREATE VIEW {base}_v AS SELECT a, b FROM {base} WHERE a > 0", (Created(f"{base}_v", "view", base),)),
        DdlOp(f"CREATE INDEX {base}_i ON {base} (a)", (Created(f"{base}_i", "index", base),)),
    ]
    if step % 8 == 0:  # the previous step's objects stay
        return ops
    prev = f"d{trial}_{step - 1}"
    match step % 3:
        case 0:
            ops.append(DdlOp(f"DROP TABLE {prev} CASCADE", drops=(prev,), cascade=True))
        case 1:
            ops.append(DdlOp(f"DROP INDEX {prev}_i", drops=(f"{prev}_i",)))
            ops.append(DdlOp(f"DROP VIEW {prev}_v", drops=(f"{prev}_v",)))
            ops.append(DdlOp(f"DROP TABLE {prev}", drops=(prev,)))
        case _:
            ops.append(DdlOp(f"DROP VIEW {prev}_v", drops=(f"{prev}_v",)))
            ops.append(DdlOp(f"DROP TABLE {prev} CASCADE", drops=(prev,), cascade=True))
    return ops


class Clients:
    INSERT_WRITERS = 2

    def __init__(self, dsn: str, trial: int, pace: Pace) -> None:
        self.dsn = dsn
        self.trial = trial
        self.pace = pace
        self.killing = threading.Event()
        self.inserts = Ledger()
        self.batches = Ledger()
        self.txns = Ledger()
        self.ddl_acked: list[DdlOp] = []
        self.ddl_in_flight: DdlOp | None = None
        self.errors: list[str] = []
        self.started = 0.0
        self.kill_after = 0.0
        self._threads: list[threading.Thread] = []

    def setup_ops(self) -> list[DdlOp]:
        ins, cp, tx = data_tables(self.trial)
        return [
            DdlOp(f"CREATE TABLE {ins} (k text NOT NULL, w int NOT NULL, v int NOT NULL)", (Created(ins, "table"),)),
            DdlOp(f"CREATE TABLE {cp} (b text NOT NULL, s int NOT NULL, v text)", (Created(cp, "table"),)),
            DdlOp(f"CREATE TABLE {tx} (x text NOT NULL, s int NOT NULL)", (Created(tx, "table"),)),
        ]

    def start(self, conn: Conn, model: Model) -> None:
        """Create the trial's tables on `conn` (recorded in `model`), then start the client threads."""
        for op in self.setup_ops():
            conn.execute(op.sql)
            model.apply(op, self.trial)
        bodies: list[tuple[str, Callable[[Conn, int], None], float]] = [
            *((f"insert{w}", self._insert_body(w), self.pace.insert) for w in range(self.INSERT_WRITERS)),
            ("copy", self._copy, self.pace.copy),
            ("txn", self._txn, self.pace.txn),
            ("ddl", self._ddl, self.pace.ddl),
        ]
        self.started = time.monotonic()
        for name, body, pause in bodies:
            thread = threading.Thread(target=self._run, args=(name, body, pause), name=f"crash-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def join(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                self.errors.append(f"{thread.name}: still running {timeout:.0f} s after the kill")

    def record(self, model: Model) -> None:
        """Enter this trial's DDL into `model` (after the kill and `join`)."""
        for op in self.ddl_acked:
            model.apply(op, self.trial)
        if self.ddl_in_flight is not None:
            model.in_flight(self.ddl_in_flight, self.trial)

    # ---- the client threads --------------------------------------------------------------------------------

    def _run(self, name: str, body: Callable[[Conn, int], None], pause: float) -> None:
        try:
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=30) as conn:
                step = 0
                while not self.killing.is_set():
                    body(conn, step)
                    step += 1
                    self.killing.wait(pause)
        except psycopg.Error as exc:
            if not self.killing.is_set():
                self.errors.append(f"{name}: {type(exc).__name__}: {exc}")
        except Exception as exc:  # a bug in the bench: reported, not lost in the thread
            self.errors.append(f"{name}: {type(exc).__name__}: {exc}")

    def _insert_body(self, writer: int) -> Callable[[Conn, int], None]:
        ins = data_tables(self.trial)[0]

        def body(conn: Conn, step: int) -> None:
            key = f"{self.trial}.{writer}.{step}"
            self.inserts.attempted.add(key)
            conn.execute(f"INSERT INTO {ins} (k, w, v) VALUES (%s, %s, %s)", (key, writer, step))
            self.inserts.acked.add(key)

        return body

    def _copy(self, conn: Conn, step: int) -> None:
        """One batch, sent in `COPY_CHUNKS` CopyData messages a moment apart (so that a kill may land mid-stream)."""
        cp = data_tables(self.trial)[1]
        batch = f"{self.trial}.{step}"
        lines = [f"{batch}\t{seq}\t{PAYLOAD}\n" for seq in range(COPY_ROWS)]
        per_chunk = COPY_ROWS // COPY_CHUNKS
        self.batches.attempted.add(batch)
        sql = f"COPY {cp} (b, s, v) FROM STDIN"
        with conn.cursor() as cur, cur.copy(sql, writer=LibpqWriter(cur, flush_threshold=0)) as copy:
            for start in range(0, COPY_ROWS, per_chunk):
                copy.write("".join(lines[start : start + per_chunk]))
                time.sleep(self.pace.within)
        self.batches.acked.add(batch)

    def _txn(self, conn: Conn, step: int) -> None:
        tx = data_tables(self.trial)[2]
        txn = f"{self.trial}.{step}"
        self.txns.attempted.add(txn)
        conn.execute("BEGIN")
        for sql, params in (
            (f"INSERT INTO {tx} (x, s) VALUES (%s, 0)", (txn,)),
            (f"INSERT INTO {tx} (x, s) VALUES (%s, 1)", (txn,)),
            (f"INSERT INTO {tx} (x, s) VALUES (%s, 2), (%s, 3), (%s, 4)", (txn, txn, txn)),
        ):
            conn.execute(sql, params)
            time.sleep(self.pace.within)  # a kill may land inside the block
        conn.execute("COMMIT")
        self.txns.acked.add(txn)

    def _ddl(self, conn: Conn, step: int) -> None:
        for op in ddl_step(self.trial, step):
            if self.killing.is_set():
                return
            self.ddl_in_flight = op
            conn.execute(op.sql)
            self.ddl_acked.append(op)
            self.ddl_in_flight = None
