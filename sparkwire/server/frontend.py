"""Frontend (client → server) messages of PostgreSQL protocol 3.0: framing and decoding, with no I/O.

Contract:
- `Framer` cuts a byte stream into `(type_byte, body)` frames. It rejects a length claim < 4 or >
  `MAX_MESSAGE_SIZE` (1 GiB, the one limit shared by every message) with `ProtocolViolation` as soon as the
  5-byte header is there, so a hostile length never makes us buffer.
- `decode_startup(body)` decodes the untyped first packet (StartupMessage, SSLRequest, GSSENCRequest,
  CancelRequest).
- `decode(type_byte, body)` decodes one typed message into a frozen dataclass. A malformed body raises
  `ProtocolViolation` (the connection is then out of step with the client: FATAL); invalid UTF-8 in a
  well-framed string raises `CharacterNotInRepertoire` (an ordinary ERROR, as in PostgreSQL).
- 'p' messages (password, SASLInitialResponse, SASLResponse) share one type byte and can only be told apart by
  the authentication state: they decode to `AuthResponse(raw)` and the auth method interprets `raw`.

"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal

from sparkwire.errors import CharacterNotInRepertoire, FeatureNotSupported, ProtocolViolation

MAX_MESSAGE_SIZE = 1 << 30
MAX_STARTUP_PACKET = 10_000  # PostgreSQL's MAX_STARTUP_PACKET_LENGTH

PROTOCOL_3 = 3 << 16
CANCEL_REQUEST_CODE = 80877102
SSL_REQUEST_CODE = 80877103
GSSENC_REQUEST_CODE = 80877104

_I16 = struct.Struct("!h")
_I32 = struct.Struct("!i")
_U32 = struct.Struct("!I")
_I32_PAIR = struct.Struct("!iI")
_HEADER = struct.Struct("!ci")


# ---- startup family (no type byte) -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartupMessage:
    major: int
    minor: int
    params: dict[str, str]


@dataclass(frozen=True, slots=True)
class SSLRequest:
    pass


@dataclass(frozen=True, slots=True)
class GSSENCRequest:
    pass


@dataclass(frozen=True, slots=True)
class CancelRequest:
    pid: int
    secret: int


StartupPacket = StartupMessage | SSLRequest | GSSENCRequest | CancelRequest


# ---- typed messages --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Query:
    sql: str


@dataclass(frozen=True, slots=True)
class Parse:
    name: str
    sql: str
    param_oids: list[int]


@dataclass(frozen=True, slots=True)
class Bind:
    portal: str
    statement: str
    param_formats: list[int]
    params: list[bytes | None]
    result_formats: list[int]


@dataclass(frozen=True, slots=True)
class Describe:
    kind: Literal["S", "P"]
    name: str


@dataclass(frozen=True, slots=True)
class Execute:
    portal: str
    max_rows: int


@dataclass(frozen=True, slots=True)
class Close:
    kind: Literal["S", "P"]
    name: str


@dataclass(frozen=True, slots=True)
class Flush:
    pass


@dataclass(frozen=True, slots=True)
class Sync:
    pass


@dataclass(frozen=True, slots=True)
class Terminate:
    pass


@dataclass(frozen=True, slots=True)
class CopyData:
    data: bytes


@dataclass(frozen=True, slots=True)
class CopyDone:
    pass


@dataclass(frozen=True, slots=True)
class CopyFail:
    message: str


@dataclass(frozen=True, slots=True)
class AuthResponse:
    raw: bytes


Message = (
    Query | Parse | Bind | Describe | Execute | Close | Flush | Sync | Terminate
    | CopyData | CopyDone | CopyFail | AuthResponse
)

FLUSH = Flush()
SYNC = Sync()
TERMINATE = Terminate()
COPY_DONE = CopyDone()


# ---- framing ---------------------------------------------------------------------------------------------


class Framer:
    """Accumulates bytes and yields complete typed frames. Owns the single size check."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes | memoryview) -> list[tuple[int, bytes]]:
        """Append `data`; return every complete frame now available (type byte as int, body bytes)."""
        buf = self._buf
        buf += data
        frames: list[tuple[int, bytes]] = []
        pos = 0
        end = len(buf)
        with memoryview(buf) as view:  # one copy per body (a bytearray slice would copy twice)
            while end - pos >= 5:
                length = _I32.unpack_from(buf, pos + 1)[0]
                if length < 4 or length > MAX_MESSAGE_SIZE:
                    raise ProtocolViolation(f"invalid message length {length}", severity="FATAL")
                stop = pos + 1 + length
                if stop > end:
                    break
                frames.append((buf[pos], bytes(view[pos + 5 : stop])))
                pos = stop
        if pos:
            del buf[:pos]
        return frames

    def pending(self) -> int:
        """Bytes received but not yet part of a complete frame."""
        return len(self._buf)


def startup_length(header: bytes) -> int:
    """The total length of the startup packet whose first 4 bytes are `header`; rejects absurd lengths."""
    length: int = _I32.unpack(header)[0]
    if length < 8 or length > MAX_STARTUP_PACKET:
        raise ProtocolViolation("invalid length of startup packet", severity="FATAL")
    return length


# ---- decoding --------------------------------------------------------------------------------------------


def _malformed(what: str) -> ProtocolViolation:
    return ProtocolViolation(f"invalid message format: {what}", severity="FATAL")


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def cstr(self) -> str:
        data = self.data
        end = data.find(b"\0", self.pos)
        if end < 0:
            raise _malformed("unterminated string")
        raw = data[self.pos : end]
        self.pos = end + 1
        return _utf8(raw)

    def i16(self) -> int:
        if self.pos + 2 > len(self.data):
            raise _malformed("truncated")
        value: int = _I16.unpack_from(self.data, self.pos)[0]
        self.pos += 2
        return value

    def i32(self) -> int:
        if self.pos + 4 > len(self.data):
            raise _malformed("truncated")
        value: int = _I32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def u32(self) -> int:
        if self.pos + 4 > len(self.data):
            raise _malformed("truncated")
        value: int = _U32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return value

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise _malformed("truncated")
        value = self.data[self.pos : self.pos + n]
        self.pos += n
        return value

    def kind(self) -> Literal["S", "P"]:
        byte = self.raw(1)
        if byte == b"S":
            return "S"
        if byte == b"P":
            return "P"
        raise _malformed(f"invalid describe/close target {byte!r}")

    def end(self) -> None:
        if self.pos != len(self.data):
            raise _malformed("trailing bytes")


def decode_startup(body: bytes) -> StartupPacket:
    """Decode the packet after its 4-byte length: a request code and (StartupMessage) key/value pairs."""
    r = _Reader(body)
    code = r.u32()
    if code == SSL_REQUEST_CODE:
        r.end()
        return SSLRequest()
    if code == GSSENC_REQUEST_CODE:
        r.end()
        return GSSENCRequest()
    if code == CANCEL_REQUEST_CODE:
        pid, secret = r.i32(), r.u32()
        r.end()
        return CancelRequest(pid, secret)
    major, minor = code >> 16, code & 0xFFFF
    if major != 3:
        raise FeatureNotSupported(
            f"unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0", severity="FATAL"
        )
    params: dict[str, str] = {}
    while True:
        key = r.cstr()
        if not key:
            break
        params[key] = r.cstr()
    r.end()
    return StartupMessage(major, minor, params)


def _parse(r: _Reader) -> Parse:
    name, sql = r.cstr(), r.cstr()
    count = r.i16()
    if count < 0:
        raise _malformed("bad parameter count")
    oids = [r.u32() for _ in range(count)]
    return Parse(name, sql, oids)


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise CharacterNotInRepertoire('invalid byte sequence for encoding "UTF8"') from None


def _bind(body: bytes) -> Bind:
    """Bind, the busiest message, decoded without a `_Reader` (same checks, same errors)."""
    first = body.find(b"\0")
    second = body.find(b"\0", first + 1) if first >= 0 else -1
    if second < 0:
        raise _malformed("unterminated string")
    portal, statement = _utf8(body[:first]), _utf8(body[first + 1 : second])
    size = len(body)
    pos = second + 1
    try:
        count = _I16.unpack_from(body, pos)[0]
        pos += 2
        if count < 0 or pos + 2 * count > size:
            raise _malformed("bad count")
        param_formats = list(struct.unpack_from(f"!{count}h", body, pos)) if count else []
        pos += 2 * count
        count = _I16.unpack_from(body, pos)[0]
        pos += 2
        if count < 0:
            raise _malformed("bad parameter count")
        params: list[bytes | None] = []
        for _ in range(count):
            length = _I32.unpack_from(body, pos)[0]
            pos += 4
            if length == -1:
                params.append(None)
                continue
            if length < 0 or pos + length > size:
                raise _malformed("truncated")
            params.append(body[pos : pos + length])
            pos += length
        count = _I16.unpack_from(body, pos)[0]
        pos += 2
    except struct.error:
        raise _malformed("truncated") from None
    if count < 0 or pos + 2 * count > size:
        raise _malformed("bad count")
    result_formats = list(struct.unpack_from(f"!{count}h", body, pos)) if count else []
    if pos + 2 * count != size:
        raise _malformed("trailing bytes")
    return Bind(portal, statement, param_formats, params, result_formats)


def _execute(body: bytes) -> Execute:
    end = len(body) - 5
    if end >= 0 and body.find(b"\0") == end:
        return Execute(_utf8(body[:end]), _I32.unpack_from(body, end + 1)[0])
    r = _Reader(body)  # malformed: let the reader say how
    msg = Execute(r.cstr(), r.i32())
    r.end()
    return msg


def decode(type_byte: int, body: bytes) -> Message:
    """Decode one typed frontend message body."""
    if type_byte == 0x53 and not body:  # 'S' Sync, the hot path first
        return SYNC
    if type_byte == 0x48 and not body:  # 'H'
        return FLUSH
    if type_byte == 0x64:  # 'd'
        return CopyData(body)
    r = _Reader(body)
    msg: Message
    match type_byte:
        case 0x51:  # 'Q'
            msg = Query(r.cstr())
        case 0x50:  # 'P'
            msg = _parse(r)
        case 0x42:  # 'B'
            return _bind(body)
        case 0x44:  # 'D'
            msg = Describe(r.kind(), r.cstr())
        case 0x45:  # 'E'
            return _execute(body)
        case 0x43:  # 'C'
            msg = Close(r.kind(), r.cstr())
        case 0x58:  # 'X'
            msg = TERMINATE
        case 0x63:  # 'c'
            msg = COPY_DONE
        case 0x66:  # 'f'
            msg = CopyFail(r.cstr())
        case 0x70:  # 'p'
            return AuthResponse(body)
        case _:
            raise ProtocolViolation(f"invalid frontend message type {type_byte}", severity="FATAL")
    r.end()
    return msg


def decode_password(raw: bytes) -> str:
    """A PasswordMessage body: one NUL-terminated string."""
    r = _Reader(raw)
    password = r.cstr()
    r.end()
    return password


def decode_sasl_initial(raw: bytes) -> tuple[str, bytes]:
    """A SASLInitialResponse body: mechanism name and the client-first message (empty if length is -1)."""
    r = _Reader(raw)
    mechanism = r.cstr()
    size = r.i32()
    data = b"" if size == -1 else r.raw(size)
    r.end()
    return mechanism, data
