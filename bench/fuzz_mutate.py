"""Mutations of bench/fuzz_protocol.py: each fuzzed connection (`Case`) is a list of `Step`s built from the corpus.

`plan_case(rng, corpus, with_auth)` picks a kind of connection and builds its steps:
- "session": a recorded startup as is, then 3–30 units (round trips) — a run of one recorded session or units
  spliced from all of them — most of them mutated, sometimes a Terminate at the end, sometimes a CancelRequest
  for the session itself (right or wrong key, or mutated) sent on the side while it runs;
- "startup": mutated startup-family packets (a recorded SSLRequest + StartupMessage), maybe followed by units;
- "cancel": a mutated CancelRequest;
- "auth": a recorded password login against the password server with its 'p' frames mutated, then units.
Frame mutations: bit flips, byte replacement, truncation (with and without fixing the length), hostile length
fields (negative, < 4, 0x7fffffff, 1 GiB, 1 GiB + 1), type byte swaps, interesting integers in the int16/int32
fields of Parse, Bind, Execute and binary COPY data (counts, format codes, parameter and value lengths, row
limits), invalid UTF-8 and NULs inserted into strings, missing NULs, cloned chunks. Unit mutations: duplication,
deletion, reordering and reversal of frames, frames spliced from other sessions, random frames inserted, a unit cut
short.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.fuzz_corpus import CANCEL_REQUEST_CODE, GSSENC_REQUEST_CODE, SSL_REQUEST_CODE, Corpus

HOSTILE_LENGTHS = (-1, 0, 1, 3, 4, 5, 7, 8, 0x7FFFFFFF, -0x80000000, 1 << 30, (1 << 30) + 1, (1 << 30) - 1, 10_001)
INTERESTING_16 = (0, 1, -1, 2, -2, 3, 0x7F, 0x80, 0xFF, 0x100, 1000, 1664, 0x7FFF, -0x8000)
INTERESTING_32 = (
    0, 1, -1, 2, -2, 4, 8, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 1 << 30, (1 << 30) + 1, 0x7FFFFFFF,
    -0x80000000,
)
INTERESTING_BYTES = b"\x00\xff\x7f\x80\n\r\t\\'\";$%?-/*()"
INVALID_UTF8 = (
    b"\xff", b"\x80", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xfe\xfe",
)
COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\0"
TYPE_BYTES = b"QPBDECHSXdcfpFvG?\x00\xff"
PROTOCOL_CODES = (
    3 << 16, (3 << 16) | 1, (3 << 16) | 0xFFFF, 2 << 16, 4 << 16, 0, -1, 1234 << 16,
    SSL_REQUEST_CODE, GSSENC_REQUEST_CODE, CANCEL_REQUEST_CODE, CANCEL_REQUEST_CODE + 3,
)
STARTUP_PARAMS = (
    b"user\0materialize\0", b"user\0\0", b"database\0fz_nowhere\0", b"options\0-c\0", b"options\0-cfoo\0",
    b"options\0--x=1 -c search_path=\\ a\0", b"_pq_.fz\0on\0", b"application_name\0\xff\xfe\0", b"\0",
    b"client_encoding\0LATIN1\0", b"replication\0database\0", b"statement_timeout\0-1\0",
)


@dataclass
class Step:
    """Bytes sent at once; `wait`: then read the answer (ReadyForQuery, EOF or a quiet moment) before going on."""

    data: bytes
    frames: int
    mutated: int
    wait: bool = True


@dataclass
class Case:
    """`cancel_after`: right after sending that step, a CancelRequest for this very session (its BackendKeyData) goes
    out on another connection — `cancel_secret` XORed into the secret (0: the right key), or mutated as a whole
    when `cancel_mutated`."""

    kind: str
    steps: list[Step] = field(default_factory=list)
    cancel_after: int | None = None
    cancel_secret: int = 0
    cancel_mutated: bool = False

    @property
    def frames(self) -> int:
        return sum(s.frames for s in self.steps)


Frame = bytes
Unit = list[tuple[Frame, bool]]  # frames of one round trip, each with "was mutated"


def typed(type_byte: int, body: bytes) -> Frame:
    return bytes([type_byte]) + struct.pack("!i", len(body) + 4) + body


def _body(frame: Frame) -> bytes:
    return frame[5:]


# ---- frame mutations --------------------------------------------------------------------------------------------


def _fields(frame: Frame) -> list[tuple[int, int]]:
    """(offset, size) of the int16/int32 fields of a Parse, Bind, Execute or binary COPY data frame, as far as
    they parse."""
    found: list[tuple[int, int]] = []
    data, pos = frame, 5

    def cstr() -> bool:
        nonlocal pos
        end = data.find(b"\0", pos)
        pos = end + 1
        return end >= 0

    def ints(size: int, count: int) -> bool:
        nonlocal pos
        for _ in range(max(0, count)):
            if pos + size > len(data):
                return False
            found.append((pos, size))
            pos += size
        return True

    def i16() -> int:
        (value,) = struct.unpack_from("!h", data, pos) if pos + 2 <= len(data) else (-1,)
        ints(2, 1)
        return int(value)

    kind = frame[:1]
    if kind == b"P" and cstr() and cstr():
        ints(4, i16())
    elif kind == b"B" and cstr() and cstr() and ints(2, i16()):
        for _ in range(max(0, i16())):
            if pos + 4 > len(data):
                break
            (size,) = struct.unpack_from("!i", data, pos)
            ints(4, 1)
            pos += max(0, size)
        ints(2, i16())
    elif kind == b"E" and cstr():
        ints(4, 1)
    elif kind == b"d" and data[5:16] == COPY_SIGNATURE:
        pos = 5 + 19  # signature, flags, header extension length
        while pos + 2 <= len(data):
            columns = i16()
            for _ in range(max(0, columns)):
                if pos + 4 > len(data):
                    break
                (size,) = struct.unpack_from("!i", data, pos)
                ints(4, 1)
                pos += max(0, size)
    return found


def _with_body(frame: Frame, body: bytes) -> Frame:
    return typed(frame[0], body) if frame else body


def _bitflip(rng: random.Random, f: Frame) -> Frame:
    data = bytearray(f)
    for _ in range(rng.choice((1, 1, 2, 4))):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def _replace(rng: random.Random, f: Frame) -> Frame:
    body = bytearray(_body(f))
    if not body:
        return _bitflip(rng, f)
    body[rng.randrange(len(body))] = rng.choice(INTERESTING_BYTES) if rng.random() < 0.5 else rng.randrange(256)
    return _with_body(f, bytes(body))


def _truncate_body(rng: random.Random, f: Frame) -> Frame:
    body = _body(f)
    return _with_body(f, body[: rng.randrange(len(body))] if body else b"")


def _truncate_raw(rng: random.Random, f: Frame) -> Frame:
    return f[: rng.randrange(1, len(f))] if len(f) > 1 else b""


def _length(rng: random.Random, f: Frame) -> Frame:
    length = len(f) - 1
    value = rng.choice(HOSTILE_LENGTHS) if rng.random() < 0.7 else length + rng.choice((-2, -1, 1, 2, 100))
    return f[:1] + struct.pack("!i", value) + f[5:]


def _type_swap(rng: random.Random, f: Frame) -> Frame:
    return bytes([rng.choice(TYPE_BYTES) if rng.random() < 0.8 else rng.randrange(256)]) + f[1:]


def _int_field(rng: random.Random, f: Frame) -> Frame:
    fields = _fields(f)
    if not fields:
        return _replace(rng, f)
    pos, size = rng.choice(fields)
    value = rng.choice(INTERESTING_16) if size == 2 else rng.choice(INTERESTING_32)
    return f[:pos] + struct.pack("!h" if size == 2 else "!i", value) + f[pos + size :]


def _string_pos(rng: random.Random, body: bytes) -> int:
    nuls = [i for i, b in enumerate(body) if b == 0]
    return rng.randrange(nuls[0] + 1) if nuls and rng.random() < 0.7 else rng.randrange(len(body) + 1)


def _invalid_utf8(rng: random.Random, f: Frame) -> Frame:
    body = _body(f)
    pos = _string_pos(rng, body)
    return _with_body(f, body[:pos] + rng.choice(INVALID_UTF8) + body[pos:])


def _drop_nul(rng: random.Random, f: Frame) -> Frame:
    body = _body(f)
    nuls = [i for i, b in enumerate(body) if b == 0]
    if not nuls:
        return _insert_nul(rng, f)
    pos = rng.choice(nuls)
    return _with_body(f, body[:pos] + body[pos + 1 :])


def _insert_nul(rng: random.Random, f: Frame) -> Frame:
    body = _body(f)
    pos = _string_pos(rng, body)
    return _with_body(f, body[:pos] + b"\0" + body[pos:])


def _clone_chunk(rng: random.Random, f: Frame) -> Frame:
    body = _body(f)
    if not body:
        return _insert_random(rng, f)
    start = rng.randrange(len(body))
    chunk = body[start : start + rng.randint(1, 16)] * rng.choice((1, 1, 2, 8))
    pos = rng.randrange(len(body) + 1)
    return _with_body(f, body[:pos] + chunk + body[pos:])


def _insert_random(rng: random.Random, f: Frame) -> Frame:
    body = _body(f)
    pos = rng.randrange(len(body) + 1)
    return _with_body(f, body[:pos] + rng.randbytes(rng.randint(1, 8)) + body[pos:])


FRAME_MUTATIONS: tuple[tuple[Callable[[random.Random, Frame], Frame], int], ...] = (
    (_bitflip, 10), (_replace, 10), (_truncate_body, 4), (_truncate_raw, 3), (_length, 4), (_type_swap, 4),
    (_int_field, 12), (_invalid_utf8, 6), (_drop_nul, 4), (_insert_nul, 3), (_clone_chunk, 5), (_insert_random, 4),
)
_FRAME_OPS = [op for op, _ in FRAME_MUTATIONS]
_FRAME_WEIGHTS = [w for _, w in FRAME_MUTATIONS]


def mutate_frame(rng: random.Random, frame: Frame) -> Frame:
    if len(frame) < 5:
        return frame
    op = rng.choices(_FRAME_OPS, _FRAME_WEIGHTS)[0]
    return op(rng, frame)


# ---- unit mutations ---------------------------------------------------------------------------------------------


def random_frame(rng: random.Random) -> Frame:
    kind = rng.choice(TYPE_BYTES)
    if rng.random() < 0.5:
        return typed(kind, rng.randbytes(rng.randint(0, 24)))
    ints = b"".join(struct.pack("!h", rng.choice(INTERESTING_16)) for _ in range(rng.randint(1, 4)))
    return typed(kind, b"fz\0SELECT 1\0" + ints)


def mutate_unit(rng: random.Random, unit: Unit, pool: list[Frame]) -> None:
    """One mutation of `unit`, in place; the frames it touched are marked mutated."""
    choice = rng.random()
    if choice < 0.6 or not unit:
        if unit:
            i = rng.randrange(len(unit))
            unit[i] = (mutate_frame(rng, unit[i][0]), True)
        return
    i = rng.randrange(len(unit))
    if choice < 0.67:
        unit.insert(i, (unit[i][0], True))
    elif choice < 0.72 and len(unit) > 1:
        del unit[i]
    elif choice < 0.79:
        j = rng.randrange(len(unit))
        unit[i], unit[j] = (unit[j][0], True), (unit[i][0], True)
    elif choice < 0.88:
        unit.insert(i, (rng.choice(pool), True))
    elif choice < 0.95:
        unit.insert(i, (random_frame(rng), True))
    elif choice < 0.97:
        unit.reverse()
        unit[:] = [(f, True) for f, _ in unit]
    else:
        del unit[i:]


def _pick_units(rng: random.Random, corpus: Corpus, count: int) -> list[Unit]:
    runs = [[u for u in s.units() if u[-1][:1] != b"X"] for s in corpus.query_sessions()]
    runs = [r for r in runs if r]
    if rng.random() < 0.5:
        units = rng.choice(runs)
        start = rng.randrange(len(units))
        picked = (units * (1 + count // len(units)))[start : start + count]
    else:
        every = [u for r in runs for u in r]
        picked = [rng.choice(every) for _ in range(count)]
    return [[(f, False) for f in u] for u in picked]


def _unit_steps(rng: random.Random, corpus: Corpus, count: int, rate: float) -> list[Step]:
    pool = [f for s in corpus.sessions for f in s.frames]
    steps: list[Step] = []
    for unit in _pick_units(rng, corpus, count):
        if rng.random() < rate:
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                mutate_unit(rng, unit, pool)
        if unit:
            steps.append(Step(b"".join(f for f, _ in unit), len(unit), sum(m for _, m in unit)))
    return steps


# ---- startup-family mutations -----------------------------------------------------------------------------------


def mutate_packet(rng: random.Random, packet: bytes) -> bytes:
    """A startup-family packet (length, code, payload) mutated once."""
    choice = rng.random()
    code, rest = packet[4:8], packet[8:]
    if choice < 0.15:
        return struct.pack("!i", rng.choice(HOSTILE_LENGTHS)) + packet[4:]
    if choice < 0.3:
        code = struct.pack("!i", rng.choice(PROTOCOL_CODES))
    elif choice < 0.45:
        return _bitflip(rng, packet)
    elif choice < 0.55:
        return packet[: rng.randrange(len(packet))]
    elif choice < 0.65:
        rest = rest.replace(b"user\0", rng.choice((b"usr\0", b"user\0\0", b"")), 1)
    elif choice < 0.8:
        pos = rng.randrange(len(rest) + 1)
        rest = rest[:pos] + rng.choice((*STARTUP_PARAMS, *INVALID_UTF8)) + rest[pos:]
    elif choice < 0.9:
        nuls = [i for i, b in enumerate(rest) if b == 0]
        if nuls:
            pos = rng.choice(nuls)
            rest = rest[:pos] + rest[pos + 1 :]
    else:
        rest += rng.randbytes(rng.randint(1, 16))
    return struct.pack("!i", len(rest) + 8) + code + rest


def _startup_case(rng: random.Random, corpus: Corpus, rate: float) -> Case:
    packets = list(rng.choice(corpus.startups()))
    for _ in range(rng.choice((1, 1, 2, 3))):
        i = rng.randrange(len(packets))
        packets[i] = mutate_packet(rng, packets[i])
        if rng.random() < 0.1:
            packets.insert(i, packets[i])
    case = Case("startup", [Step(b"".join(packets), len(packets), len(packets))])
    if rng.random() < 0.5:
        case.steps += _unit_steps(rng, corpus, rng.randint(1, 5), rate)
    return case


def _cancel_case(rng: random.Random, corpus: Corpus) -> Case:
    packet = rng.choice(corpus.cancels())
    if rng.random() < 0.5:
        packet = packet[:8] + rng.randbytes(8)
    packet = mutate_packet(rng, packet) if rng.random() < 0.7 else packet
    return Case("cancel", [Step(packet, 1, 1)])


def _auth_case(rng: random.Random, corpus: Corpus, rate: float) -> Case:
    session = rng.choice(corpus.auth_sessions())
    steps = [Step(b"".join(session.untyped), len(session.untyped), 0)]
    for frame in session.frames:
        if frame[:1] != b"p":
            break
        mutated = rng.random() < 0.8
        steps.append(Step(mutate_frame(rng, frame) if mutated else frame, 1, int(mutated)))
    return Case("auth", steps + _unit_steps(rng, corpus, rng.randint(0, 3), rate))


def plan_case(rng: random.Random, corpus: Corpus, with_auth: bool, rate: float = 0.6) -> Case:
    """One connection's worth of fuzz; `rate`: the share of units that are mutated."""
    roll = rng.random()
    if roll < 0.12:
        return _startup_case(rng, corpus, rate)
    if roll < 0.16 and corpus.cancels():
        return _cancel_case(rng, corpus)
    if roll < 0.22 and with_auth and corpus.auth_sessions():
        return _auth_case(rng, corpus, rate)
    startup = rng.choice(corpus.startups())
    case = Case("session", [Step(b"".join(startup), len(startup), 0)])
    case.steps += _unit_steps(rng, corpus, rng.randint(3, 30), rate)
    if rng.random() < 0.5:
        case.steps.append(Step(typed(ord("X"), b""), 1, 0))
    if rng.random() < 0.15:
        case.cancel_after = rng.randrange(1, len(case.steps))
        case.cancel_secret = 0 if rng.random() < 0.6 else 1 << rng.randrange(32)
        case.cancel_mutated = rng.random() < 0.2
    return case
