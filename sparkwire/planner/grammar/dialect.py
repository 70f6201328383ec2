"""The PostgreSQL dialect sparkwire parses with: sqlglot's postgres dialect plus the type names it lacks.

Contract: `PG` is a sqlglot Dialect class to pass as `read=`/`dialect=` wherever planner code parses PostgreSQL
or prints a type back in PostgreSQL spelling. It adds `oid` as a type (sqlglot's postgres dialect cannot parse
`$1::oid[]`, which drivers such as asyncpg send): it reads as an unsigned 32-bit integer and prints as `oid`.
Identifiers named `oid` (pg_catalog columns) still parse as identifiers.
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.generators.postgres import PostgresGenerator
from sqlglot.tokenizer_core import TokenType


class PG(Postgres):
    class Tokenizer(Postgres.Tokenizer):
        KEYWORDS: ClassVar = {**Postgres.Tokenizer.KEYWORDS, "OID": TokenType.UINT}

    class Generator(PostgresGenerator):
        TYPE_MAPPING: ClassVar = {**PostgresGenerator.TYPE_MAPPING, exp.DataType.Type.UINT: "OID"}
