"""The COPY statement's grammar: `COPY table [(columns)] FROM STDIN`, `COPY table | (query) TO STDOUT`, with the
options in either syntax (`WITH (FORMAT csv, HEADER, …)` or the pre-9.0 `WITH CSV HEADER DELIMITER ','`).

Contract: `parse_copy(p)` continues a `Parser` positioned after the COPY keyword and returns a `CopyTo` (the
query's text slice, or the table and columns) or a `CopyFrom`, each with validated `CopyOptions`. Errors as
PostgreSQL: 42601 for the grammar and unknown options, 22023 for an unknown format, 0A000 for options the format
does not take, and 42501 for COPY to or from a file (only STDIN / STDOUT reach the server).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.tokens import Parser


@dataclass(frozen=True, slots=True)
class CopyOptions:
    format: str = "text"
    header: bool = False
    delimiter: str | None = None
    null: str | None = None
    quote: str = '"'
    escape: str | None = None


@dataclass(frozen=True, slots=True)
class CopyTo:
    query: str | None  # COPY (query) TO STDOUT
    table: str | None  # COPY table [(columns)] TO STDOUT
    columns: tuple[str, ...]
    options: CopyOptions


@dataclass(frozen=True, slots=True)
class CopyFrom:
    table: str
    columns: tuple[str, ...]
    options: CopyOptions


def _copy_options(p: Parser) -> CopyOptions:
    opts: dict[str, str | bool] = {}
    p.accept("with")
    if p.accept_op("("):
        while True:
            key = p.name()
            t = p.peek()
            if t is not None and not (t.kind == "op" and t.text in ",)"):
                opts[key] = p.value()
            else:
                opts[key] = True
            if p.accept_op(")"):
                break
            p.expect_op(",")
    else:  # the pre-9.0 syntax: WITH CSV HEADER DELIMITER ',' NULL '' …
        while p.peek() is not None:
            if p.accept("csv") or p.accept("binary") or p.accept("text"):
                opts["format"] = p.tokens[p.i - 1].text
            elif p.accept("header"):
                opts["header"] = True
            elif p.accept("delimiter") or p.accept("null") or p.accept("quote") or p.accept("escape"):
                key = p.tokens[p.i - 1].text
                p.accept("as")
                opts[key] = p.value()
            else:
                raise p.error()
    p.end()
    return _build_copy_options(opts)


def _build_copy_options(opts: dict[str, str | bool]) -> CopyOptions:
    fmt = str(opts.pop("format", "text")).lower()
    if fmt not in ("text", "csv", "binary"):
        raise e.InvalidParameterValue(f'COPY format "{fmt}" not recognized')
    header = opts.pop("header", False)
    header_on = header is True or str(header).lower() in ("on", "true", "1")
    result = CopyOptions(format=fmt, header=header_on)
    fields: dict[str, str] = {}
    for key, value in opts.items():
        if key not in ("delimiter", "null", "quote", "escape"):
            raise e.SyntaxError(f'option "{key}" not recognized')
        fields[key] = str(value)
    for key in ("delimiter", "null"):
        if fmt == "binary" and key in fields:
            raise e.SyntaxError(f"cannot specify {key.upper()} in BINARY mode")
    if "delimiter" in fields and len(fields["delimiter"]) != 1:
        raise e.FeatureNotSupported("COPY delimiter must be a single one-byte character")
    if fmt == "binary" and header_on:
        raise e.FeatureNotSupported("cannot specify HEADER in BINARY mode")
    for key in ("quote", "escape"):
        if fmt != "csv" and key in fields:
            raise e.FeatureNotSupported(f"COPY {key} available only in CSV mode")
    return CopyOptions(
        format=result.format,
        header=result.header,
        delimiter=fields.get("delimiter"),
        null=fields.get("null"),
        quote=fields.get("quote", '"'),
        escape=fields.get("escape"),
    )


def parse_copy(p: Parser) -> CopyTo | CopyFrom:
    query: str | None = None
    table: str | None = None
    columns: list[str] = []
    t = p.peek()
    if t is not None and t.kind == "op" and t.text == "(":
        depth = 0
        start = t.start
        while True:
            tok = p.peek()
            if tok is None:
                raise p.error()
            p.i += 1
            if tok.kind == "op" and tok.text == "(":
                depth += 1
            elif tok.kind == "op" and tok.text == ")":
                depth -= 1
                if depth == 0:
                    query = p.sql[start + 1 : tok.start].strip()
                    break
    else:
        table = p.qualified_name()
        if p.accept_op("("):
            columns.append(p.name())
            while p.accept_op(","):
                columns.append(p.name())
            p.expect_op(")")
    if p.accept("to"):
        if not p.accept("stdout"):
            raise e.InsufficientPrivilege("COPY to or from a file is prohibited", hint="Use COPY … TO STDOUT.")
        return CopyTo(query, table, tuple(columns), _copy_options(p))
    if p.accept("from"):
        if query is not None:
            raise p.error()
        if not p.accept("stdin"):
            raise e.InsufficientPrivilege("COPY to or from a file is prohibited", hint="Use COPY … FROM STDIN.")
        assert table is not None
        return CopyFrom(table, tuple(columns), _copy_options(p))
    raise p.error()
