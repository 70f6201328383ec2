"""Decoding pgoutput (protocol version 1) messages: PostgreSQL's "Logical Replication Message Formats".

Contract: `decode(data)` turns one XLogData payload into one message dataclass (`Begin`, `Commit`, `Relation`,
`Insert`, `Update`, `Delete`, `Truncate`), or None for the ones the reader ignores (Origin, Type, logical decoding
Message). Tuple values stay raw: `bytes` in the column's text output format, None for NULL, `UNCHANGED` for an
unchanged TOASTed value (the new tuple of an UPDATE; its value is the old tuple's). Integers are big-endian; strings
end with a NUL byte. A payload this module does not understand raises `ValueError` with its first byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

UNCHANGED: Final = b"\x00unchanged-toast"  # a sentinel no text-format value can equal (text has no NUL)
Value = bytes | None
Row = tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Begin:
    final_lsn: int
    commit_time: int  # µs since 2000-01-01
    xid: int


@dataclass(frozen=True, slots=True)
class Commit:
    commit_lsn: int
    end_lsn: int
    commit_time: int


@dataclass(frozen=True, slots=True)
class RelationColumn:
    name: str
    type_oid: int
    typmod: int
    key: bool


@dataclass(frozen=True, slots=True)
class Relation:
    relid: int
    namespace: str
    name: str
    replica_identity: str  # d default, n nothing, f full, i index
    columns: tuple[RelationColumn, ...]

    @property
    def qualified(self) -> str:
        return f"{self.namespace}.{self.name}"


@dataclass(frozen=True, slots=True)
class Insert:
    relid: int
    new: Row


@dataclass(frozen=True, slots=True)
class Update:
    relid: int
    old: Row | None  # the old tuple (REPLICA IDENTITY FULL: every column), None when upstream sent none
    new: Row
    old_is_key: bool = False  # the old tuple holds only the replica identity's key columns


@dataclass(frozen=True, slots=True)
class Delete:
    relid: int
    old: Row
    old_is_key: bool = False


@dataclass(frozen=True, slots=True)
class Truncate:
    relids: tuple[int, ...]


Message = Begin | Commit | Relation | Insert | Update | Delete | Truncate

_I8 = struct.Struct("!b")
_I16 = struct.Struct("!h")
_I32 = struct.Struct("!i")
_U32 = struct.Struct("!I")
_I64 = struct.Struct("!q")
_U64 = struct.Struct("!Q")


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 1  # after the message type byte

    def take(self, fmt: struct.Struct) -> int:
        (value,) = fmt.unpack_from(self.data, self.pos)
        self.pos += fmt.size
        return int(value)

    def byte(self) -> str:
        value = self.data[self.pos : self.pos + 1].decode("ascii")
        self.pos += 1
        return value

    def string(self) -> str:
        end = self.data.index(b"\x00", self.pos)
        value = self.data[self.pos : end].decode("utf-8")
        self.pos = end + 1
        return value

    def tuple(self) -> Row:
        count = self.take(_I16)
        values: list[Value] = []
        for _ in range(count):
            kind = self.byte()
            if kind == "n":
                values.append(None)
            elif kind == "u":
                values.append(UNCHANGED)
            elif kind in ("t", "b"):
                length = self.take(_I32)
                values.append(self.data[self.pos : self.pos + length])
                self.pos += length
            else:
                raise ValueError(f"pgoutput: unknown tuple value kind {kind!r}")
        return tuple(values)


def decode(data: bytes) -> Message | None:
    kind = data[:1]
    r = _Reader(data)
    if kind == b"B":
        return Begin(final_lsn=r.take(_U64), commit_time=r.take(_I64), xid=r.take(_U32))
    if kind == b"C":
        r.take(_I8)  # flags, unused
        return Commit(commit_lsn=r.take(_U64), end_lsn=r.take(_U64), commit_time=r.take(_I64))
    if kind == b"R":
        return _relation(r)
    if kind == b"I":
        relid = r.take(_U32)
        r.byte()  # 'N'
        return Insert(relid, r.tuple())
    if kind == b"U":
        relid = r.take(_U32)
        marker = r.byte()
        old: Row | None = None
        if marker in ("K", "O"):
            old = r.tuple()
            r.byte()  # 'N'
        return Update(relid, old, r.tuple(), old_is_key=marker == "K")
    if kind == b"D":
        relid = r.take(_U32)
        marker = r.byte()
        return Delete(relid, r.tuple(), old_is_key=marker == "K")
    if kind == b"T":
        count = r.take(_I32)
        r.take(_I8)  # options: CASCADE / RESTART IDENTITY
        return Truncate(tuple(r.take(_U32) for _ in range(count)))
    if kind in (b"O", b"Y", b"M"):  # Origin, Type, logical decoding Message: nothing to apply
        return None
    raise ValueError(f"pgoutput: unknown message type {kind!r}")


def _relation(r: _Reader) -> Relation:
    relid = r.take(_U32)
    namespace = r.string()
    name = r.string()
    identity = r.byte()
    columns = []
    for _ in range(r.take(_I16)):
        flags = r.take(_I8)
        columns.append(RelationColumn(name=r.string(), type_oid=r.take(_U32), typmod=r.take(_I32), key=bool(flags & 1)))
    return Relation(relid, namespace or "pg_catalog", name, identity, tuple(columns))


def format_lsn(lsn: int) -> str:
    """An LSN as PostgreSQL prints it: `16/B374D848`."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def parse_lsn(text: str) -> int:
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)
