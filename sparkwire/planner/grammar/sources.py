"""Materialize's CREATE SOURCE, our grammar for its generic shape (called by grammar/ddl.py after CREATE SOURCE):

    CREATE SOURCE [IF NOT EXISTS] name [IN CLUSTER c]
      FROM LOAD GENERATOR <type> [(option, …)]          -- COUNTER, AUCTION, TPCH
      | FROM <type> CONNECTION conn [(option, …)]       -- POSTGRES
      [FOR ALL TABLES | FOR TABLES (upstream [AS name], …) | FOR SCHEMAS (schema, …)]
      [EXPOSE PROGRESS AS name]

Contract: `parse_create_source(p)` continues a `DdlParser` positioned after `CREATE SOURCE` and returns a
`CreateSource`. Options are `NAME [=] value` pairs, NAME the option's words upper-cased and joined by one space
(`TICK INTERVAL`, `SCALE FACTOR`, `PUBLICATION`, `TEXT COLUMNS`), a value a string, a (signed) number's text, a word,
a parenthesized list of (dotted) names as a tuple, or None when absent; the source type's module decides what they
mean (sparkwire/sources/registry.py). `WITH (SIZE …)` (sources sized on their own, before clusters) is 0A000.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sparkwire import errors as e
from sparkwire.planner.grammar.ddl_parser import DdlParser, Name
from sparkwire.sources.registry import Options, OptionValue, Selection


@dataclass(frozen=True, slots=True)
class CreateSource:
    name: Name
    type_name: str  # upper case: COUNTER, AUCTION, TPCH, POSTGRES
    load_generator: bool
    options: Options = ()
    connection: Name | None = None
    selection: Selection = field(default_factory=Selection)
    progress: Name | None = None  # EXPOSE PROGRESS AS
    cluster: str | None = None
    if_not_exists: bool = False


def _dotted(p: DdlParser) -> str:
    return p.object_name().written


def _value(p: DdlParser) -> OptionValue:
    t = p.peek()
    if t is None or (t.kind == "op" and t.text in ",)"):
        return None
    if t.kind == "op" and t.text == "(":
        p.i += 1
        names: list[str] = []
        if not p.accept_op(")"):
            while True:
                names.append(_dotted(p))
                if p.accept_op(")"):
                    break
                p.expect_op(",")
        return tuple(names)
    return p.value()


def _options(p: DdlParser) -> Options:
    if not p.accept_op("("):
        return ()
    found: list[tuple[str, OptionValue]] = []
    while True:
        words: list[str] = []
        while (t := p.peek()) is not None and t.kind == "word" and not (words and _starts_value(p)):
            words.append(t.text.upper())
            p.i += 1
        if not words:
            raise p.error()
        p.accept_op("=")
        found.append((" ".join(words), _value(p)))
        if p.accept_op(")"):
            return tuple(found)
        p.expect_op(",")


def _starts_value(p: DdlParser) -> bool:
    """A word after an option's first word is part of its name unless a value follows it (`TICK INTERVAL '1s'`:
    both words name it; `SCALE FACTOR 1`; a word value such as `SSL MODE require` is read as a value when it is the
    last word before `,` or `)`)."""
    following = p.peek(1)
    return following is None or (following.kind == "op" and following.text in ",)")


def _selection(p: DdlParser) -> Selection:
    if not p.accept("for"):
        return Selection()
    if p.accept("all", "tables"):
        return Selection(given=True, all=True)
    if p.accept("tables"):
        p.expect_op("(")
        tables: list[tuple[str, str | None]] = []
        while True:
            upstream = _dotted(p)
            alias = _dotted(p) if p.accept("as") else None
            tables.append((upstream, alias))
            if p.accept_op(")"):
                return Selection(given=True, tables=tuple(tables))
            p.expect_op(",")
    if p.accept("schemas"):
        p.expect_op("(")
        schemas = [p.name()]
        while p.accept_op(","):
            schemas.append(p.name())
        p.expect_op(")")
        return Selection(given=True, schemas=tuple(schemas))
    raise p.error()


def parse_create_source(p: DdlParser) -> CreateSource:
    if_not_exists = p.accept("if", "not", "exists")
    name = p.object_name()
    cluster = p.name() if p.accept("in", "cluster") else None
    p.expect("from")
    connection: Name | None = None
    if p.accept("load", "generator"):
        type_name, load_generator = p.name().upper(), True
    else:
        type_name, load_generator = p.name().upper(), False
        p.expect("connection")
        connection = p.object_name()
    options = _options(p)
    selection = _selection(p)
    progress = p.object_name() if p.accept("expose", "progress", "as") else None
    if p.at("with"):
        raise e.FeatureNotSupported(
            "CREATE SOURCE … WITH is not supported", hint="A source runs on a cluster: CREATE SOURCE … IN CLUSTER c."
        )
    if (word := p.word()) in ("format", "envelope", "include"):
        raise e.FeatureNotSupported(f"CREATE SOURCE … {(word or '').upper()} is not supported")
    p.end()
    return CreateSource(
        name, type_name, load_generator, options, connection, selection, progress, cluster, if_not_exists
    )


def render(stmt: CreateSource) -> str:
    """The statement as Materialize's SHOW CREATE SOURCE prints it (qualified names, options as given)."""
    parts = [f"CREATE SOURCE {stmt.name.sql()}"]
    if stmt.cluster is not None:
        parts.append(f"IN CLUSTER {Name((stmt.cluster,)).sql()}")
    if stmt.load_generator:
        parts.append(f"FROM LOAD GENERATOR {stmt.type_name}")
    else:
        assert stmt.connection is not None
        parts.append(f"FROM {stmt.type_name} CONNECTION {stmt.connection.sql()}")
    if stmt.options:
        parts.append(f"({', '.join(_render_option(n, v) for n, v in stmt.options)})")
    selection = stmt.selection
    if selection.all:
        parts.append("FOR ALL TABLES")
    elif selection.tables:
        tables = ", ".join(f"{u} AS {a}" if a else u for u, a in selection.tables)
        parts.append(f"FOR TABLES ({tables})")
    elif selection.schemas:
        parts.append(f"FOR SCHEMAS ({', '.join(selection.schemas)})")
    if stmt.progress is not None:
        parts.append(f"EXPOSE PROGRESS AS {stmt.progress.sql()}")
    return " ".join(parts)


def _render_option(name: str, value: OptionValue) -> str:
    if value is None:
        return name
    if isinstance(value, tuple):
        return f"{name} = ({', '.join(value)})"
    if value.replace(".", "", 1).lstrip("-").isdigit():
        return f"{name} = {value}"
    return f"{name} = '{value.replace(chr(39), chr(39) * 2)}'"
