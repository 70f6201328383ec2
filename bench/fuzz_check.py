"""What bench/fuzz_protocol.py checks in the server's answers, and how it reads them.

`ResponseReader` reads one connection's backend stream and checks every message as it completes:
- the type byte is a backend message type and the body has that message's exact shape (ReadyForQuery one of
  I/T/E, ErrorResponse/NoticeResponse well-formed fields with severity, a 5-character SQLSTATE and a message,
  DataRow/RowDescription/ParameterDescription/CopyResponse counts that add up to the body, …);
- nothing follows a FATAL ErrorResponse, and a clean EOF does not cut a message in half;
- no ErrorResponse or NoticeResponse carries a Python traceback or a Java stack trace;
- internal errors (SQLSTATE XX000) are collected.
Single 'N' bytes before the first message are answers to SSLRequest / GSSENCRequest.

`wait_ready(quiet)` reads until a new ReadyForQuery, EOF, or `quiet` seconds without a byte; `finish(timeout)`
half-closes the client side and reads to EOF: a server that neither closes nor sends a byte for `timeout` seconds
after that (or keeps going for `FINISH_CAP` seconds) hangs.
"""

from __future__ import annotations

import contextlib
import re
import socket
import struct
import time

LEAK_MARKERS = (b"Traceback", b"java.", b"at org.", b'File "')
FINISH_CAP = 60.0
_SQLSTATE = re.compile(r"[0-9A-Z]{5}")
_EMPTY = frozenset(b"123nsIc")
_SEVERITIES = {
    ord("E"): frozenset({"ERROR", "FATAL", "PANIC"}),
    ord("N"): frozenset({"WARNING", "NOTICE", "DEBUG", "INFO", "LOG"}),
}


class Malformed(Exception):
    pass


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise Malformed(what)


def error_fields(body: bytes) -> dict[str, str]:
    fields: dict[str, str] = {}
    pos = 0
    while True:
        _need(pos < len(body), "error fields not terminated")
        if body[pos] == 0:
            _need(pos == len(body) - 1, "bytes after the error fields")
            return fields
        end = body.find(b"\0", pos + 1)
        _need(end > 0, "unterminated error field")
        try:
            fields[chr(body[pos])] = body[pos + 1 : end].decode()
        except UnicodeDecodeError:
            raise Malformed("error field is not UTF-8") from None
        pos = end + 1


def _counted(body: bytes, size: int, offset: int = 0) -> None:
    """An int16 count at `offset`, then that many `size`-byte items, then the end of the body."""
    _need(len(body) >= offset + 2, "truncated count")
    (count,) = struct.unpack_from("!h", body, offset)
    _need(count >= 0 and len(body) == offset + 2 + count * size, "count does not match the body")


def _data_row(body: bytes) -> None:
    _need(len(body) >= 2, "truncated DataRow")
    (count,) = struct.unpack_from("!h", body)
    pos = 2
    for _ in range(count):
        _need(pos + 4 <= len(body), "truncated DataRow value")
        (size,) = struct.unpack_from("!i", body, pos)
        pos += 4 + max(size, 0)
        _need(size >= -1 and pos <= len(body), "bad DataRow value length")
    _need(pos == len(body), "bytes after the DataRow values")


def _row_description(body: bytes) -> None:
    _need(len(body) >= 2, "truncated RowDescription")
    (count,) = struct.unpack_from("!h", body)
    pos = 2
    for _ in range(count):
        end = body.find(b"\0", pos)
        _need(end >= 0, "unterminated column name")
        pos = end + 1 + 18
    _need(pos == len(body), "RowDescription size")


def check_message(type_byte: int, body: bytes) -> dict[str, str] | None:
    """Raise `Malformed` unless `body` has the shape of backend message `type_byte`; error/notice fields."""
    if type_byte in _SEVERITIES:
        fields = error_fields(body)
        _need(fields.get("S") in _SEVERITIES[type_byte], f"severity {fields.get('S')!r}")
        code = fields.get("C", "")
        _need(_SQLSTATE.fullmatch(code) is not None, f"SQLSTATE {code!r}")
        _need("M" in fields, "no message")
        return fields
    if type_byte in _EMPTY:
        _need(not body, "non-empty body")
    elif type_byte == ord("Z"):
        _need(body in (b"I", b"T", b"E"), f"ReadyForQuery {body!r}")
    elif type_byte == ord("K"):
        _need(len(body) == 8, "BackendKeyData size")
    elif type_byte in (ord("S"), ord("C")):
        _need(body.count(b"\0") == (2 if type_byte == ord("S") else 1) and body.endswith(b"\0"), "strings")
    elif type_byte == ord("D"):
        _data_row(body)
    elif type_byte == ord("T"):
        _row_description(body)
    elif type_byte == ord("t"):
        _counted(body, 4)
    elif type_byte in (ord("G"), ord("H"), ord("W")):
        _need(len(body) >= 1 and body[0] in (0, 1), "copy format")
        _counted(body, 2, 1)
    elif type_byte in (ord("R"), ord("v")):
        _need(len(body) >= 4, "truncated")
    elif type_byte not in (ord("d"), ord("A")):
        raise Malformed(f"unknown backend message type {type_byte!r}")
    return None


class ResponseReader:
    """One connection's backend stream, checked message by message (see the module docstring)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()
        self.messages = 0
        self.ready = 0
        self.eof = False
        self.reset = False
        self.fatal = False
        self.problems: list[str] = []
        self.leaks: list[str] = []
        self.internal: list[str] = []
        self.sqlstates: list[str] = []
        self.key: bytes | None = None  # BackendKeyData: pid and secret

    def _take(self) -> None:
        buf = self.buf
        while buf:
            if self.messages == 0 and buf[0] == ord("N") and (len(buf) < 5 or buf[1] != 0):
                del buf[:1]  # the answer to an SSLRequest / GSSENCRequest (a NoticeResponse's length starts 0)
                continue
            if len(buf) < 5:
                return
            (length,) = struct.unpack_from("!i", buf, 1)
            if length < 4 or length > 1 << 30:
                self.problems.append(f"message {buf[:1]!r} with length {length}")
                buf.clear()
                return
            if len(buf) < 1 + length:
                return
            type_byte, body = buf[0], bytes(buf[5 : 1 + length])
            del buf[: 1 + length]
            self._check(type_byte, body)

    def _check(self, type_byte: int, body: bytes) -> None:
        self.messages += 1
        if self.fatal:
            self.problems.append(f"message {chr(type_byte)!r} after a FATAL error")
        try:
            fields = check_message(type_byte, body)
        except Malformed as bad:
            self.problems.append(f"{chr(type_byte)!r} {bad}: {body[:80]!r}")
            return
        if type_byte == ord("Z"):
            self.ready += 1
        elif type_byte == ord("K"):
            self.key = body
        if fields is None:
            return
        if any(marker in body for marker in LEAK_MARKERS):
            self.leaks.append(f"{fields.get('C')} {fields.get('M', '')[:200]!r}")
        if type_byte == ord("E"):
            self.sqlstates.append(fields.get("C", ""))
        if fields.get("C") == "XX000":
            self.internal.append(fields.get("M", "")[:200])
        if fields.get("S") == "FATAL":
            self.fatal = True

    def _recv(self, timeout: float) -> bool:
        """One read; False when nothing came within `timeout` (EOF sets `eof`)."""
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            return False
        except OSError:
            self.eof = self.reset = True
            return True
        if not data:
            self.eof = True
            return True
        self.buf += data
        self._take()
        return True

    def wait_ready(self, quiet: float, cap: float = 10.0) -> None:
        """Read until a new ReadyForQuery, EOF, `quiet` seconds without a byte, or `cap` seconds in all."""
        target = self.ready + 1
        end = time.monotonic() + cap
        while self.ready < target and not self.eof and time.monotonic() < end:
            if not self._recv(quiet):
                return

    def finish(self, timeout: float) -> bool:
        """Half-close, read to EOF; False when the server hung (see the module docstring)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)
        end = time.monotonic() + FINISH_CAP
        while not self.eof:
            if time.monotonic() > end or not self._recv(min(timeout, end - time.monotonic())):
                return False
        if self.buf and not self.reset:
            self.problems.append(f"connection closed in the middle of a message: {bytes(self.buf[:40])!r}")
        return True
