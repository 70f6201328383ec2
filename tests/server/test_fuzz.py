"""Hostile byte streams against a running server (hypothesis): random bytes before startup, random frames and
mutated valid message sequences after startup. Every answer must be well-formed protocol with no Python
traceback, and afterwards a session opened before the fuzzing and a fresh psycopg connection still work."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures import wire
from tests.fixtures.wire import RawClient
from tests.support.server import SparkwireServer

VALID = [
    wire.query("SELECT 1"),
    wire.query(""),
    wire.parse("", "SELECT 1"),
    wire.parse("s", "SELECT $1::int", [23]),
    wire.bind("", ""),
    wire.bind("", "s", [b"5"]),
    wire.describe("P", ""),
    wire.describe("S", "s"),
    wire.execute("", 0),
    wire.execute("", 1),
    wire.close("S", "s"),
    wire.msg(b"d", b"1\n"),
    wire.msg(b"c", b""),
    wire.FLUSH,
    wire.SYNC,
]
HOSTILE_LENGTHS = [-1, 0, 3, 4, 5, 1 << 30, (1 << 30) + 1]
valid_sequences = st.lists(st.sampled_from(VALID), min_size=1, max_size=10).map(b"".join)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(valid_sequences))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "length"]))
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif len(data) >= pos + 4:
            data[pos : pos + 4] = struct.pack("!i", draw(st.sampled_from(HOSTILE_LENGTHS)))
    return bytes(data)


random_frames = st.lists(
    st.tuples(st.sampled_from(b"QPBDECHSXdcfp?\x00"), st.binary(max_size=40)), min_size=1, max_size=6
).map(lambda frames: b"".join(wire.msg(bytes([t]), body) for t, body in frames))

before_startup = st.one_of(
    st.binary(min_size=1, max_size=64),
    st.builds(
        lambda params, major, minor, cut: wire.startup_packet(params, major, minor)[:cut],
        st.dictionaries(st.sampled_from(["user", "database", "options", "application_name", "_pq_.x", "x"]),
                        st.text(max_size=12), max_size=4),
        st.sampled_from([2, 3, 4, 1234]),
        st.integers(0, 3),
        st.integers(0, 200),
    ),
)


def _check_answer(data: bytes) -> None:
    """Whatever came back is a sequence of backend messages (after any 'N' SSL answers) without tracebacks."""
    assert b"Traceback" not in data
    while data[:1] == b"N":
        data = data[1:]
    while data:
        assert len(data) >= 5
        (length,) = struct.unpack_from("!i", data, 1)
        assert 4 <= length <= len(data) - 1
        if data[:1] in (b"E", b"N"):
            fields = wire.error_fields(data[5 : 1 + length])
            assert len(fields["C"]) == 5 and fields["S"] in ("ERROR", "FATAL", "WARNING", "NOTICE")
        data = data[1 + length :]


def _exchange(port: int, payload: bytes, startup: bool) -> bytes:
    c = RawClient(port, timeout=10)
    try:
        if startup:
            c.connect()
        c.send(payload)
        c.sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := c.sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except ConnectionResetError:
        return b""
    finally:
        c.close()


@pytest.fixture(scope="module")
def survivor(server: SparkwireServer) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
        yield conn


FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    database=None,
)


@FUZZ
@given(payload=before_startup)
def test_garbage_before_startup(
    server: SparkwireServer, survivor: psycopg.Connection[tuple[object, ...]], payload: bytes
) -> None:
    _check_answer(_exchange(server.port, payload, startup=False))


@FUZZ
@given(payload=st.one_of(mutated(), random_frames))
def test_hostile_frames_after_startup(
    server: SparkwireServer, survivor: psycopg.Connection[tuple[object, ...]], payload: bytes
) -> None:
    _check_answer(_exchange(server.port, payload, startup=True))


def test_everyone_else_is_fine_after_the_fuzzing(
    server: SparkwireServer, survivor: psycopg.Connection[tuple[object, ...]]
) -> None:
    assert survivor.execute("SELECT 2").fetchone() == (2,)
    with psycopg.connect(server.dsn) as conn:
        assert conn.execute("SELECT 3").fetchone() == (3,)
    assert server.process.poll() is None
