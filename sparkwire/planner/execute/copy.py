"""COPY … TO STDOUT / FROM STDIN: turning the parsed COPY statement into what the server streams.

Contract: `copy_format(stmt)` is the wire format of the COPY ("text", "csv" or "binary"). `copy_out_query(stmt)`
gives the PostgreSQL-dialect SELECT whose rows COPY TO sends (the query itself, or `SELECT cols FROM table`).
`copy_parser(stmt, oids, names, typmods, options)` is the parser of COPY FROM's
data (pgtypes' CopyInParser, or BinaryCopyInParser for FORMAT binary); the sink that appends the parsed rows to a
storage table is planner/execute/copy_storage.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from sqlglot import exp

from sparkwire.pgtypes.copy.binary import BinaryCopyInParser
from sparkwire.pgtypes.copy.text_in import CopyInParser
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.grammar.copy_statement import CopyFrom, CopyTo


def _table(name: str) -> exp.Table:
    return exp.to_table(name, dialect="postgres")


def copy_format(stmt: CopyTo | CopyFrom) -> Literal["text", "csv", "binary"]:
    fmt = stmt.options.format
    return "csv" if fmt == "csv" else "binary" if fmt == "binary" else "text"


def copy_out_query(stmt: CopyTo) -> str:
    if stmt.query is not None:
        return stmt.query
    assert stmt.table is not None
    columns: list[exp.Expression] = [exp.column(c, quoted=True) for c in stmt.columns] or [exp.Star()]
    return exp.select(*columns).from_(_table(stmt.table)).sql(dialect="postgres")


def copy_parser(
    stmt: CopyFrom, oids: Sequence[int], names: Sequence[str], typmods: Sequence[int], options: EncodeOptions
) -> CopyInParser | BinaryCopyInParser:
    """The parser of COPY FROM's data for columns of these types, in the statement's format."""
    opts = stmt.options
    if opts.format == "binary":
        return BinaryCopyInParser(list(oids), table=stmt.table, columns=list(names), typmods=list(typmods))
    return CopyInParser(
        list(oids),
        opts.format,
        opts.delimiter,
        opts.null,
        opts.quote,
        opts.escape,
        opts.header,
        table=stmt.table,
        columns=list(names),
        typmods=list(typmods),
        options=options,
    )
