"""The server's round-trip fast paths behave exactly like the general ones.

- Bind and Execute are decoded without the generic reader: every truncation and every trailing byte of a valid
  body is still a FATAL protocol violation, and valid bodies decode as before.
- The protocol reuses the DataRow bytes of a repeated small constant result (same batch object): the reused
  bytes must follow the format codes and the session settings of each round trip, through a real server.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from sparkwire.errors import CharacterNotInRepertoire, ProtocolViolation
from sparkwire.server.frontend import Bind, Execute, decode

BIND = (
    b"portal\0stmt\0" + b"\x00\x02\x00\x00\x00\x01" + b"\x00\x03" + b"\x00\x00\x00\x03abc" + b"\xff\xff\xff\xff"
    + b"\x00\x00\x00\x00" + b"\x00\x02\x00\x01\x00\x00"
)
EXECUTE = b"portal\0\x00\x00\x00\x07"


def test_valid_bind_and_execute() -> None:
    assert decode(ord("B"), BIND) == Bind("portal", "stmt", [0, 1], [b"abc", None, b""], [1, 0])
    assert decode(ord("B"), b"\0\0\0\0\0\0\0\0") == Bind("", "", [], [], [])
    assert decode(ord("E"), EXECUTE) == Execute("portal", 7)


@pytest.mark.parametrize(("type_byte", "body"), [(ord("B"), BIND), (ord("E"), EXECUTE)])
def test_every_truncation_or_extension_is_fatal(type_byte: int, body: bytes) -> None:
    for bad in [body[:cut] for cut in range(len(body))] + [body + b"\0", body + b"x" * 3]:
        with pytest.raises(ProtocolViolation) as info:
            decode(type_byte, bad)
        assert info.value.severity == "FATAL", bad


def test_negative_lengths_and_counts_are_fatal() -> None:
    for bad in (
        b"p\0s\0\xff\xff",  # negative format count
        b"p\0s\0\x00\x00\xff\xff",  # negative parameter count
        b"p\0s\0\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x00",  # parameter length -2
        b"p\0s\0\x00\x00\x00\x00\xff\xff",  # negative result format count
    ):
        with pytest.raises(ProtocolViolation):
            decode(ord("B"), bad)


def test_invalid_utf8_names_are_ordinary_errors() -> None:
    for type_byte, body in ((ord("B"), b"\xff\0s\0" + b"\0" * 6), (ord("E"), b"\xff\0\0\0\0\0")):
        with pytest.raises(CharacterNotInRepertoire) as info:
            decode(type_byte, body)
        assert info.value.severity == "ERROR"


CONSTANT = "SELECT 0.1::float8 + 0.2::float8 AS f, 7 AS i, 'x' AS t"


@pytest.mark.parametrize("prepare", [False, True])
def test_repeated_constant_follows_formats_and_settings(sw: psycopg.Connection[Any], prepare: bool) -> None:
    def run(binary: bool) -> tuple[Any, ...]:
        with sw.cursor(binary=binary) as cur:
            row = cur.execute(CONSTANT, prepare=prepare).fetchone()
            assert row is not None
            return tuple(row)

    for _ in range(3):
        assert run(binary=False) == (0.30000000000000004, 7, "x")
        assert run(binary=True) == (0.30000000000000004, 7, "x")
    with sw.cursor() as cur:
        cur.execute("SET extra_float_digits = 0")
        assert cur.execute(CONSTANT, prepare=prepare).fetchone() == (0.3, 7, "x")
        cur.execute("RESET extra_float_digits")
    assert run(binary=False) == (0.30000000000000004, 7, "x")
