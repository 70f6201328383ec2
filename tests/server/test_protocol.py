"""The pgwire frontend: byte-level codec fixtures, the query-phase state machine (I/O-free, driven with a
recording test double session), and the real `sparkwire serve` process over raw sockets and psycopg."""

from __future__ import annotations

import signal
import struct
import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pyarrow as pa
import pytest

from sparkwire.api import (
    CommandComplete,
    Field,
    Notice,
    Result,
    Rows,
    StatementDescription,
    TransactionStatus,
)
from sparkwire.errors import (
    CharacterNotInRepertoire,
    FeatureNotSupported,
    PgError,
    ProtocolViolation,
    SyntaxError,
)
from sparkwire.pgtypes import EncodeOptions
from sparkwire.server import backend as be
from sparkwire.server.frontend import (
    MAX_MESSAGE_SIZE,
    Bind,
    CancelRequest,
    Close,
    CopyFail,
    Describe,
    Execute,
    Framer,
    Parse,
    Query,
    SSLRequest,
    StartupMessage,
    decode,
    decode_startup,
)
from sparkwire.server.protocol import QueryProtocol, Wait
from sparkwire.server.startup import interpret_startup, parse_options, split_options
from tests.fixtures import wire
from tests.fixtures.wire import RawClient, types_of
from tests.support.server import SparkwireServer

# ---- codec: frontend byte fixtures ------------------------------------------------------------------------


def test_decode_parse_bind_describe_execute_close() -> None:
    assert decode(ord("P"), b"s1\0SELECT $1\0\x00\x01\x00\x00\x00\x17") == Parse("s1", "SELECT $1", [23])
    bind_body = (
        b"p\0s1\0" + b"\x00\x01\x00\x01" + b"\x00\x02" + b"\x00\x00\x00\x02hi" + b"\xff\xff\xff\xff"
        + b"\x00\x01\x00\x01"
    )
    assert decode(ord("B"), bind_body) == Bind("p", "s1", [1], [b"hi", None], [1])
    assert decode(ord("D"), b"Pp\0") == Describe("P", "p")
    assert decode(ord("E"), b"p\0\x00\x00\x00\x0a") == Execute("p", 10)
    assert decode(ord("C"), b"Ss1\0") == Close("S", "s1")
    assert decode(ord("Q"), b"SELECT 1\0") == Query("SELECT 1")
    assert decode(ord("f"), b"oops\0") == CopyFail("oops")


@pytest.mark.parametrize(
    ("type_byte", "body"),
    [
        (ord("P"), b"s1\0SELECT 1"),  # unterminated string
        (ord("B"), b"p\0s\0\x00\x05"),  # format count larger than the body
        (ord("D"), b"Xname\0"),  # neither S nor P
        (ord("E"), b"p\0\x00\x00"),  # truncated int32
        (ord("Q"), b"SELECT 1\0extra"),  # trailing bytes
        (ord("?"), b""),  # unknown message type
    ],
)
def test_malformed_frontend_messages_are_fatal_protocol_violations(type_byte: int, body: bytes) -> None:
    with pytest.raises(ProtocolViolation) as info:
        decode(type_byte, body)
    assert info.value.severity == "FATAL"


def test_invalid_utf8_is_an_ordinary_error() -> None:
    with pytest.raises(CharacterNotInRepertoire) as info:
        decode(ord("Q"), b"SELECT '\xff'\0")
    assert info.value.severity == "ERROR"


def test_framer_reassembles_frames_split_anywhere() -> None:
    stream = wire.query("SELECT 1") + wire.SYNC + wire.execute("", 5)
    for cut in range(len(stream) + 1):
        framer = Framer()
        frames = framer.feed(stream[:cut]) + framer.feed(stream[cut:])
        assert [t for t, _ in frames] == [ord("Q"), ord("S"), ord("E")]
        assert framer.pending() == 0


@pytest.mark.parametrize("length", [0, 3, -1, MAX_MESSAGE_SIZE + 1])
def test_framer_rejects_bad_lengths_from_the_header_alone(length: int) -> None:
    with pytest.raises(ProtocolViolation):
        Framer().feed(b"Q" + struct.pack("!i", length))


def test_decode_startup_family() -> None:
    assert decode_startup(struct.pack("!i", 80877103)) == SSLRequest()
    assert decode_startup(struct.pack("!iiI", 80877102, 42, 0xDEADBEEF)) == CancelRequest(42, 0xDEADBEEF)
    packet = wire.startup_packet({"user": "u", "database": "d"}, minor=2)
    assert decode_startup(packet[4:]) == StartupMessage(3, 2, {"user": "u", "database": "d"})
    with pytest.raises(FeatureNotSupported, match=r"unsupported frontend protocol 2\.0"):
        decode_startup(wire.startup_packet({"user": "u"}, major=2)[4:])


def test_startup_options_and_settings() -> None:
    assert split_options(r"-c a=b\ c  --x-y=1") == ["-c", "a=b c", "--x-y=1"]
    assert parse_options("-c search_path=s1 -cTimeZone=UTC --extra-float-digits=3") == {
        "search_path": "s1",
        "TimeZone": "UTC",
        "extra_float_digits": "3",
    }
    with pytest.raises(SyntaxError):
        parse_options("-x")
    req = interpret_startup(
        StartupMessage(
            3,
            0,
            {"user": "u", "options": "-c a=1 -c b=2", "b": "3", "application_name": "app", "_pq_.x": "1"},
        )
    )
    assert (req.user, req.database, req.application_name) == ("u", "materialize", "app")
    assert req.settings == {"a": "1", "b": "3"}
    assert req.unrecognized_protocol_options == ["_pq_.x"] and req.needs_negotiation


def test_backend_byte_fixtures() -> None:
    assert be.ready_for_query("T") == b"Z\x00\x00\x00\x05T"
    assert be.command_complete("SELECT 1") == b"C\x00\x00\x00\x0dSELECT 1\x00"
    assert be.parameter_description([23, 25]) == b"t\x00\x00\x00\x0e\x00\x02\x00\x00\x00\x17\x00\x00\x00\x19"
    assert be.row_description((Field("a", 23, 4),), (1,)) == (
        b"T\x00\x00\x00\x1a\x00\x01a\x00"
        + b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x17\x00\x04\xff\xff\xff\xff\x00\x01"
    )
    err = PgError("boom", sqlstate="22012", detail="d", hint="h", position=7)
    body = be.error_response(err)[5:]
    assert wire.error_fields(body) == {
        "S": "ERROR", "V": "ERROR", "C": "22012", "M": "boom", "D": "d", "H": "h", "P": "7"
    }
    assert be.negotiate_protocol_version(0, ["_pq_.a"]) == (
        b"v\x00\x00\x00\x13\x00\x00\x00\x00\x00\x00\x00\x01_pq_.a\x00"
    )


# ---- the state machine, driven without I/O ---------------------------------------------------------------


class _Stream:
    def __init__(self, batches: list[pa.RecordBatch]) -> None:
        self._it = iter(batches)
        self.closed = False

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        return next(self._it)

    def close(self) -> None:
        self.closed = True


_INT = (Field("x", 23, 4),)


def _ints(*values: int) -> pa.RecordBatch:
    return pa.record_batch([pa.array(values, pa.int32())], names=["x"])


class DoubleSession:
    """A protocol-unit-test double: records calls, fails where told to."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.fail_on: set[str] = set()
        self.crash_on: set[str] = set()
        self.status: TransactionStatus = "I"
        self.notices: deque[Notice] = deque()
        self.portal_rows: list[pa.RecordBatch] = [_ints(1, 2), _ints(3)]

    def _call(self, name: str) -> None:
        self.calls.append(name)
        if name in self.fail_on:
            raise SyntaxError(f"{name} failed")
        if name in self.crash_on:
            raise RuntimeError("bug")

    @property
    def transaction_status(self) -> TransactionStatus:
        return self.status

    def reported_parameters(self) -> dict[str, str]:
        return {}

    def idle_timeout(self) -> float | None:
        return None

    def encode_options(self) -> EncodeOptions:
        return EncodeOptions()

    def simple_query(self, sql: str) -> Iterator[Result]:
        for statement in sql.split(";"):
            self._call(f"query:{statement}")
            self.notices.append(Notice(f"ran {statement}"))
            if statement == "rows":
                yield Rows(_INT, _Stream([_ints(7)]), (0,))
            else:
                yield CommandComplete("SELECT 0")

    def parse(self, name: str, sql: str, param_oids: list[int]) -> None:
        self._call(f"parse:{name}")

    def bind(self, portal: str, statement: str, param_formats: list[int], params: list[bytes | None],
             result_formats: list[int]) -> None:
        self._call(f"bind:{portal}")

    def describe_statement(self, name: str) -> StatementDescription:
        self._call(f"describe_statement:{name}")
        return StatementDescription((23,), _INT)

    def describe_portal(self, name: str) -> tuple[Field, ...] | None:
        self._call(f"describe_portal:{name}")
        return _INT

    def execute(self, portal: str, max_rows: int) -> Result:
        self._call(f"execute:{portal}")
        taken: list[pa.RecordBatch] = []
        budget = max_rows or 1 << 30
        while self.portal_rows and budget > 0:
            batch = self.portal_rows.pop(0)
            if batch.num_rows > budget:
                self.portal_rows.insert(0, batch.slice(budget))
                batch = batch.slice(0, budget)
            taken.append(batch)
            budget -= batch.num_rows
        return Rows(_INT, _Stream(taken), (0,))

    def close_statement(self, name: str) -> None:
        self._call(f"close_statement:{name}")

    def close_portal(self, name: str) -> None:
        self._call(f"close_portal:{name}")

    def sync(self) -> None:
        self._call("sync")

    def fail(self) -> None:
        self.calls.append("fail")

    def cancel(self) -> None:
        self.calls.append("cancel")

    def terminate(self) -> None:
        self.calls.append("terminate")


def _run(session: DoubleSession, *frames: bytes) -> list[tuple[str, bytes]]:
    """Feed frames to a QueryProtocol until it waits for input; return the backend messages it wrote."""
    protocol = QueryProtocol(session, session.notices, deque())
    protocol.inbox.extend(Framer().feed(b"".join(frames)))
    steps = protocol.run()
    while next(steps) is not Wait.INPUT:
        pass
    out = protocol.take_output()
    msgs = []
    while out:
        length = struct.unpack_from("!i", out, 1)[0]
        msgs.append((chr(out[0]), out[5 : 1 + length]))
        out = out[1 + length :]
    return msgs


def test_extended_round_trip_messages() -> None:
    s = DoubleSession()
    frames = (wire.parse("", "q"), wire.bind("", ""), wire.describe("P", ""), wire.execute(""), wire.SYNC)
    msgs = _run(s, *frames)
    assert types_of(msgs) == "12TDDDCZ"
    assert msgs[-2][1] == b"SELECT 3\0"
    assert s.calls == ["parse:", "bind:", "describe_portal:", "execute:", "sync"]


def test_describe_statement_sends_parameter_description_then_row_description() -> None:
    msgs = _run(DoubleSession(), wire.parse("s", "q"), wire.describe("S", "s"), wire.SYNC)
    assert types_of(msgs) == "1tTZ"


def test_error_skips_everything_until_sync() -> None:
    s = DoubleSession()
    s.fail_on.add("parse:")
    msgs = _run(s, wire.parse("", "bad"), wire.bind("", ""), wire.execute(""), wire.SYNC, wire.query("ok"))
    assert s.calls[:2] == ["parse:", "sync"]  # bind and execute never reached the session
    assert types_of(msgs) == "EZNCZ"


def test_max_rows_suspends_then_completes() -> None:
    s = DoubleSession()
    frames = (wire.parse("", "q"), wire.bind("", ""), wire.execute("", 2), wire.execute("", 2), wire.SYNC)
    msgs = _run(s, *frames)
    assert types_of(msgs) == "12DDsDCZ"
    assert msgs[-2][1] == b"SELECT 1\0"


def test_exactly_max_rows_is_suspended_as_in_postgres() -> None:
    s = DoubleSession()
    s.portal_rows = [_ints(1, 2)]
    msgs = _run(s, wire.bind("", ""), wire.execute("", 2), wire.execute("", 2), wire.SYNC)
    assert types_of(msgs) == "2DDsCZ"
    assert msgs[-2][1] == b"SELECT 0\0"


def test_internal_error_is_xx000_and_the_session_goes_on() -> None:
    s = DoubleSession()
    s.crash_on.add("bind:")
    msgs = _run(s, wire.bind("", ""), wire.SYNC, wire.query("x"))
    err = wire.error_fields(msgs[0][1])
    assert (err["C"], err["M"], err["S"]) == ("XX000", "internal error", "ERROR")
    assert "fail" in s.calls
    assert types_of(msgs) == "EZNCZ"


def test_simple_query_stops_at_the_first_error_and_notices_precede_results() -> None:
    s = DoubleSession()
    s.fail_on.add("query:b")
    msgs = _run(s, wire.query("a;b;c"))
    assert types_of(msgs) == "NCEZ"
    assert "query:c" not in s.calls


def test_simple_query_rows_carry_their_row_description() -> None:
    msgs = _run(DoubleSession(), wire.query("rows"))
    assert types_of(msgs) == "NTDCZ"
    assert wire.data_row(msgs[2][1]) == [b"7"]


def test_stray_copy_messages_are_ignored_and_terminate_ends_the_run() -> None:
    s = DoubleSession()
    protocol = QueryProtocol(s, s.notices, deque())
    protocol.inbox.extend(Framer().feed(wire.msg(b"d", b"x") + wire.msg(b"c", b"") + wire.TERMINATE))
    assert list(protocol.run()) == []
    assert protocol.closed and protocol.take_output() == b""


def test_a_fatal_error_closes_without_ready_for_query() -> None:
    s = DoubleSession()
    protocol = QueryProtocol(s, s.notices, deque())
    protocol.inbox.extend(Framer().feed(wire.msg(b"p", b"pw\0") + wire.query("never")))
    assert list(protocol.run()) == []
    out = protocol.take_output()
    assert out[:1] == b"E" and protocol.closed
    assert wire.error_fields(out[5:])["S"] == "FATAL"
    assert len(out) == 1 + struct.unpack_from("!i", out, 1)[0]  # nothing after the error
    assert s.calls == []


# ---- the real server -------------------------------------------------------------------------------------


def test_startup_reports_parameters_and_key_data(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    msgs = c.connect()
    assert types_of(msgs).startswith("R") and types_of(msgs).endswith("KNZ")  # Materialize's welcome NOTICE
    assert b"connected to sparkwire" in msgs[-2][1]
    assert c.parameters["server_version"].startswith("15")
    assert c.parameters["mz_version"].startswith("v") and c.parameters["mz_version"].endswith(")")
    assert c.pid != 0
    c.send(wire.TERMINATE)
    assert c.read() is None
    quiet = RawClient(server.port)  # the way dbt-materialize connects
    options = "--auto_route_catalog_queries=on --welcome_message=off --current_object_missing_warnings=off"
    msgs = quiet.connect({"user": "materialize", "database": "materialize", "options": options})
    assert types_of(msgs).endswith("KZ")
    quiet.close()


def test_extended_protocol_on_the_server(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.connect()
    sql = "SELECT x FROM (VALUES (1), (2), (3)) AS t(x) ORDER BY x"
    c.send(wire.parse("s1", sql), wire.describe("S", "s1"), wire.bind("p1", "s1"), wire.execute("p1", 2),
           wire.execute("p1", 2), wire.SYNC)
    msgs = c.until_ready()
    assert types_of(msgs) == "1tT2DDsDCZ"
    assert [wire.data_row(b) for t, b in msgs if t == "D"] == [[b"1"], [b"2"], [b"3"]]
    # the named statement survives Sync; an unnamed one works alongside
    c.send(wire.bind("", "s1"), wire.execute(""), wire.parse("", "SELECT 'u'"), wire.bind("", ""),
           wire.describe("P", ""), wire.execute(""), wire.close("S", "s1"), wire.SYNC)
    assert types_of(c.until_ready()) == "2DDDC12TDC3Z"
    c.send(wire.bind("", "s1"), wire.SYNC)
    msgs = c.until_ready()
    assert types_of(msgs) == "EZ"
    assert wire.error_fields(msgs[0][1])["C"] == "26000"


def test_error_skips_until_sync_on_the_server(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.connect()
    c.send(wire.parse("", "SELEC 1"), wire.bind("", ""), wire.execute(""), wire.parse("", "SELECT 1"))
    c.send(wire.SYNC)
    msgs = c.until_ready()
    assert types_of(msgs) == "EZ"
    assert wire.error_fields(msgs[0][1])["C"] == "42601"
    c.send(wire.parse("", "SELECT 1"), wire.bind("", ""), wire.execute(""), wire.SYNC)
    assert types_of(c.until_ready()) == "12DCZ"


def test_simple_query_multiple_statements_and_empty_query(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.connect()
    c.send(wire.query("SELECT 1; SELECT 2"))
    assert types_of(c.until_ready()) == "TDCTDCZ"
    c.send(wire.query(""))
    assert types_of(c.until_ready()) == "IZ"
    c.send(wire.query("SELECT 1; SELECT 1/0; SELECT 3"))  # a syntax error would stop all three, as in PG
    assert types_of(c.until_ready()) == "TDCEZ"


def test_negotiate_protocol_version(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.send(wire.startup_packet({"user": "materialize", "_pq_.compression": "on"}, minor=5))
    msgs = c.until_ready()
    assert msgs[0] == ("v", b"\x00\x00\x00\x00\x00\x00\x00\x01_pq_.compression\x00")
    assert msgs[-1][0] == "Z"


def test_wrong_major_protocol_is_fatal(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.send(wire.startup_packet({"user": "materialize"}, major=2))
    msgs = c.read_all()
    assert types_of(msgs) == "E"
    fields = wire.error_fields(msgs[0][1])
    assert (fields["S"], fields["C"]) == ("FATAL", "0A000")


def test_unknown_database_is_fatal_3d000(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.send(wire.startup_packet({"user": "materialize", "database": "nope"}))
    msgs = c.read_all()
    assert types_of(msgs)[-1] == "E"
    fields = wire.error_fields(msgs[-1][1])
    assert (fields["S"], fields["C"]) == ("FATAL", "3D000")


def test_ssl_and_gssenc_requests_are_declined_without_tls(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.send(wire.ssl_request())
    assert c.read_byte() == b"N"
    c.send(struct.pack("!ii", 8, 80877104))
    assert c.read_byte() == b"N"
    assert types_of(c.connect())[-1] == "Z"


@pytest.mark.parametrize(
    "garbage",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        struct.pack("!i", 3),
        struct.pack("!ii", 8, 1234),
    ],
)
def test_garbage_before_startup_closes_only_that_client(server: SparkwireServer, garbage: bytes) -> None:
    c = RawClient(server.port)
    c.send(garbage)
    msgs = c.read_all()
    assert types_of(msgs) == "E"
    assert wire.error_fields(msgs[0][1])["S"] == "FATAL"
    with psycopg.connect(server.dsn) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_oversized_and_unknown_messages_after_startup_are_fatal(server: SparkwireServer) -> None:
    for frame in (b"Q" + struct.pack("!i", MAX_MESSAGE_SIZE + 1), wire.msg(b"?", b""), b"Q\x00\x00\x00\x02"):
        c = RawClient(server.port)
        c.connect()
        c.send(frame)
        msgs = c.read_all()
        assert types_of(msgs) == "E"
        assert wire.error_fields(msgs[0][1])["C"] == "08P01"


def test_invalid_utf8_in_a_query_is_an_error_not_a_disconnect(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.connect()
    c.send(wire.msg(b"Q", b"SELECT '\xff'\0"))
    msgs = c.until_ready()
    assert types_of(msgs) == "EZ"
    assert wire.error_fields(msgs[0][1])["C"] == "22021"
    c.send(wire.query("SELECT 1"))
    assert types_of(c.until_ready()) == "TDCZ"


def test_startup_options_reach_the_session(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, options="-c TimeZone=America/New_York --extra-float-digits=2") as conn:
        assert conn.info.parameter_status("TimeZone") == "America/New_York"
        assert conn.execute("SHOW extra_float_digits").fetchone() == ("2",)


def test_set_reports_parameter_status(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("SET TimeZone = 'Europe/Paris'")
        assert conn.info.parameter_status("TimeZone") == "Europe/Paris"


def test_notices_reach_the_client(server: SparkwireServer) -> None:
    seen: list[str] = []
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.add_notice_handler(lambda d: seen.append(f"{d.severity_nonlocalized} {d.message_primary}"))
        conn.execute("COMMIT")
    assert seen == ["WARNING there is no transaction in progress"]


def test_cancel_interrupts_a_running_statement(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        timer = threading.Timer(0.5, conn.cancel)
        timer.start()
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("SELECT pg_sleep(10)")
        timer.join()
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_cancel_with_a_wrong_secret_cancels_nothing(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.connect()
    c.send(wire.query("SELECT pg_sleep(1)"))
    for secret in (c.secret ^ 1, c.secret ^ 0x80000000):
        canceller = RawClient(server.port)
        canceller.send(wire.cancel_request(c.pid, secret))
        assert canceller.read_all() == []
    assert types_of(c.until_ready()) == "TDCZ"


def test_a_long_result_streams_completely(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn) as conn:
        count = 0
        with conn.cursor() as cur:
            cur.execute("SELECT i, repeat('x', 50) FROM generate_series(1, 200000) AS g(i)")
            for row in cur:
                count += 1
                last = row[0]
        assert (count, last) == (200000, 200000)


def test_sigterm_ends_sessions_with_57p01_and_exits_cleanly(tmp_path: Path) -> None:
    srv = SparkwireServer.start(tmp_path)
    try:
        idle, busy = RawClient(srv.port), RawClient(srv.port)
        idle.connect()
        busy.connect()
        busy.send(wire.query("SELECT pg_sleep(30)"))
        time.sleep(1)  # let the sleep start: a statement not yet started is refused with 57P01 alone
        srv.process.send_signal(signal.SIGTERM)
        idle_msgs = idle.read_all()
        assert [wire.error_fields(b)["C"] for t, b in idle_msgs if t == "E"] == ["57P01"]
        busy_errors = [wire.error_fields(b)["C"] for t, b in busy.read_all() if t == "E"]
        assert busy_errors == ["57014", "57P01"]
        assert srv.process.wait(60) == 0
    finally:
        srv.stop()


def test_copy_from_stdin_fail_and_stray_messages(server: SparkwireServer) -> None:
    c = RawClient(server.port)
    c.connect()
    c.send(wire.query("CREATE TABLE copy_fail_t (a int)"))
    assert types_of(c.until_ready()) == "CZ"
    c.send(wire.query("COPY copy_fail_t FROM STDIN"))
    assert c.read() == ("G", b"\x00\x00\x01\x00\x00")
    c.send(wire.msg(b"d", b"1\n2\n"), wire.FLUSH, wire.SYNC, wire.msg(b"f", b"client gave up\0"))
    msgs = c.until_ready()
    assert types_of(msgs) == "EZ"
    fields = wire.error_fields(msgs[0][1])
    assert (fields["C"], fields["M"]) == ("57014", "COPY from stdin failed: client gave up")
    c.send(wire.msg(b"d", b"3\n"), wire.msg(b"c", b""))  # after the failure: ignored, as in PostgreSQL
    c.send(wire.query("COPY copy_fail_t FROM STDIN"))
    assert c.read() is not None
    c.send(wire.msg(b"d", b"4\n"), wire.query("SELECT 1"))
    msgs = c.until_ready()
    assert types_of(msgs) == "EZ" and wire.error_fields(msgs[0][1])["C"] == "08P01"
    c.send(wire.query("COPY copy_fail_t FROM STDIN"))
    assert c.read() is not None
    c.send(wire.msg(b"d", b"5\n6\n"), wire.msg(b"c", b""))
    assert [m[1] for m in c.until_ready() if m[0] == "C"] == [b"COPY 2\0"]
    c.send(wire.query("SELECT count(*) FROM copy_fail_t"))
    assert [wire.data_row(b) for t, b in c.until_ready() if t == "D"] == [[b"2"]]
