"""Backend (server → client) messages of PostgreSQL protocol 3.0, encoded to bytes with no I/O.

Contract: every function returns one complete message (type byte, int32 length, body). Messages without a body
are module constants. `_fields` (behind `error_response`/`notice_response`) is the one place where a `PgError`
becomes ErrorResponse/NoticeResponse fields (S, V, C, M, D, H, P).

"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from functools import lru_cache

from sparkwire.api import Field, Notice, TransactionStatus
from sparkwire.errors import PgError

_I32 = struct.Struct("!i")
_FIELD = struct.Struct("!IhIhih")


def _msg(type_byte: bytes, body: bytes) -> bytes:
    return type_byte + _I32.pack(len(body) + 4) + body


def _cstr(value: str) -> bytes:
    return value.encode() + b"\0"


AUTH_OK = _msg(b"R", _I32.pack(0))
AUTH_CLEARTEXT = _msg(b"R", _I32.pack(3))
PARSE_COMPLETE = _msg(b"1", b"")
BIND_COMPLETE = _msg(b"2", b"")
CLOSE_COMPLETE = _msg(b"3", b"")
NO_DATA = _msg(b"n", b"")
PORTAL_SUSPENDED = _msg(b"s", b"")
EMPTY_QUERY_RESPONSE = _msg(b"I", b"")
COPY_DONE = _msg(b"c", b"")
SSL_NO = b"N"
SSL_YES = b"S"
_READY: dict[str, bytes] = {status: _msg(b"Z", status.encode()) for status in ("I", "T", "E")}


def ready_for_query(status: TransactionStatus) -> bytes:
    return _READY[status]


def auth_sasl(mechanisms: Sequence[str]) -> bytes:
    return _msg(b"R", _I32.pack(10) + b"".join(_cstr(m) for m in mechanisms) + b"\0")


def auth_sasl_continue(data: bytes) -> bytes:
    return _msg(b"R", _I32.pack(11) + data)


def auth_sasl_final(data: bytes) -> bytes:
    return _msg(b"R", _I32.pack(12) + data)


def parameter_status(name: str, value: str) -> bytes:
    return _msg(b"S", _cstr(name) + _cstr(value))


def backend_key_data(pid: int, secret: int) -> bytes:
    return _msg(b"K", struct.pack("!iI", pid, secret))


def negotiate_protocol_version(newest_minor: int, unrecognized: Sequence[str]) -> bytes:
    body = _I32.pack(newest_minor) + _I32.pack(len(unrecognized)) + b"".join(_cstr(o) for o in unrecognized)
    return _msg(b"v", body)


@lru_cache(maxsize=1024)
def row_description(fields: tuple[Field, ...], formats: tuple[int, ...] | None = None) -> bytes:
    """RowDescription; `formats` per field (None = all text, as for Describe of a statement)."""
    parts = [struct.pack("!h", len(fields))]
    for i, f in enumerate(fields):
        fmt = formats[i] if formats else 0
        parts.append(_cstr(f.name))
        parts.append(_FIELD.pack(f.table_oid, f.column_attr, f.type_oid, f.type_size, f.type_modifier, fmt))
    return _msg(b"T", b"".join(parts))


def parameter_description(oids: Sequence[int]) -> bytes:
    return _msg(b"t", struct.pack(f"!h{len(oids)}I", len(oids), *oids))


@lru_cache(maxsize=1024)
def command_complete(tag: str) -> bytes:
    return _msg(b"C", _cstr(tag))


def _copy_response(type_byte: bytes, binary: bool, columns: int) -> bytes:
    code = 1 if binary else 0
    return _msg(type_byte, struct.pack(f"!bh{columns}h", code, columns, *([code] * columns)))


def copy_in_response(binary: bool, columns: int) -> bytes:
    return _copy_response(b"G", binary, columns)


def copy_out_response(binary: bool, columns: int) -> bytes:
    return _copy_response(b"H", binary, columns)


def copy_data(data: bytes) -> bytes:
    return _msg(b"d", data)


def _text(value: str) -> bytes:
    """A field value that may echo client input: never lets a NUL or a lone surrogate break the message."""
    return value.replace("\0", "").encode(errors="replace") + b"\0"


def _fields(
    severity: str,
    sqlstate: str,
    message: str,
    detail: str | None,
    hint: str | None,
    position: int | None,
) -> bytes:
    parts = [b"S", _text(severity), b"V", _text(severity), b"C", _text(sqlstate), b"M", _text(message)]
    if detail is not None:
        parts += [b"D", _text(detail)]
    if hint is not None:
        parts += [b"H", _text(hint)]
    if position is not None:
        parts += [b"P", _cstr(str(position))]
    parts.append(b"\0")
    return b"".join(parts)


def error_response(err: PgError) -> bytes:
    return _msg(b"E", _fields(err.severity, err.code, err.message, err.detail, err.hint, err.position))


def notice_response(notice: Notice) -> bytes:
    fields = _fields(notice.severity, notice.sqlstate, notice.message, notice.detail, notice.hint, None)
    return _msg(b"N", fields)
