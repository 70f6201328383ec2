"""The memory-limit checks of bench/fuzz_protocol.py: absurd length claims are refused before any allocation.

`check_limits(port, pid)` sends, each on its own connection, typed frames (after a normal startup) claiming 2 GiB
(length 0x7fffffff; 0x80000000, which is negative as an int32) and 1 GiB + 1, and startup packets claiming 2 GiB and
10,001 bytes (PostgreSQL's MAX_STARTUP_PACKET_LENGTH + 1). Each must be answered with exactly one FATAL 08P01
ErrorResponse, then EOF, and the server's RSS must not grow by more than `RSS_SLACK`. Then a frame claiming 1 GiB (the
largest allowed) whose first 8 MiB arrive before EOF: the server must close without an answer, and its RSS while it
holds those bytes must stay within 4x of them. Returns (report lines, failures).
"""

from __future__ import annotations

import gc
import socket
import struct
import time

from bench.fuzz_check import error_fields
from bench.pgwire import rss_bytes
from tests.fixtures import wire
from tests.fixtures.wire import RawClient

MIB = 1 << 20
RSS_SLACK = 16 * MIB
PARTIAL = 8 * MIB

REFUSED: tuple[tuple[str, bool, bytes], ...] = (
    ("typed frame claiming 2 GiB (length 0x7fffffff)", True, b"Q" + struct.pack("!I", 0x7FFFFFFF) + b"SELECT 1"),
    ("typed frame claiming 2 GiB (length 0x80000000)", True, b"d" + struct.pack("!I", 0x80000000) + b"x" * 64),
    ("typed frame claiming 1 GiB + 1", True, b"Q" + struct.pack("!i", (1 << 30) + 1) + b"SELECT 1"),
    ("startup packet claiming 2 GiB", False, struct.pack("!Ii", 0x7FFFFFFF, 3 << 16) + b"user\0"),
    ("startup packet claiming 10,001 bytes", False, struct.pack("!ii", 10_001, 3 << 16) + b"user\0"),
)


def _rss(pid: int) -> int:
    gc.collect()
    time.sleep(0.2)
    return rss_bytes(pid)


def _answer(port: int, after_startup: bool, data: bytes) -> tuple[list[tuple[str, bytes]], str]:
    """The messages the server sent after `data` (a startup first if asked), and how the connection ended."""
    client = RawClient(port, timeout=10)
    try:
        if after_startup:
            client.connect()
        client.send(data)
        messages: list[tuple[str, bytes]] = []
        while (message := client.read()) is not None:
            messages.append(message)
        return messages, "EOF"
    except TimeoutError:
        return [], "no answer within 10 s"
    except OSError as exc:
        return [], f"{type(exc).__name__}"
    finally:
        client.close()


def check_limits(port: int, pid: int) -> tuple[list[str], list[str]]:
    lines: list[str] = []
    failures: list[str] = []
    for name, after_startup, data in REFUSED:
        before = _rss(pid)
        messages, end = _answer(port, after_startup, data)
        after = _rss(pid)
        fields = error_fields(messages[0][1]) if messages and messages[0][0] == "E" else {}
        verdict = f"{fields.get('S')} {fields.get('C')} {fields.get('M')!r}, then {end}"
        lines.append(f"{name}: {verdict}; RSS {before / MIB:.1f} -> {after / MIB:.1f} MiB")
        if len(messages) != 1 or fields.get("S") != "FATAL" or fields.get("C") != "08P01" or end != "EOF":
            failures.append(f"{name}: got {[t for t, _ in messages]} {verdict}")
        if after - before > RSS_SLACK:
            failures.append(f"{name}: RSS grew by {(after - before) / MIB:.1f} MiB")
    lines.append(_partial_gigabyte(port, pid, failures))
    return lines, failures


def _partial_gigabyte(port: int, pid: int, failures: list[str]) -> str:
    before = _rss(pid)
    client = RawClient(port, timeout=10)
    try:
        client.connect()
        client.send(b"d" + struct.pack("!i", 1 << 30) + bytes(PARTIAL))
        holding = _rss(pid)
        client.sock.shutdown(socket.SHUT_WR)
        rest = client.read_all()
    finally:
        client.close()
    after = _rss(pid)
    name = f"frame claiming 1 GiB, {PARTIAL // MIB} MiB of it sent, then EOF"
    if rest:
        failures.append(f"{name}: answered {wire.types_of(rest)}")
    if holding - before > 4 * PARTIAL:
        failures.append(f"{name}: RSS grew by {(holding - before) / MIB:.1f} MiB")
    return (
        f"{name}: closed with {wire.types_of(rest) or 'no answer'}; RSS {before / MIB:.1f} -> "
        f"{holding / MIB:.1f} (holding) -> {after / MIB:.1f} MiB"
    )
