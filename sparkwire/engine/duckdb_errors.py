"""DuckDB exceptions → PostgreSQL errors: SQLSTATE plus a one-line message in PostgreSQL's wording.

Contract: `map_duckdb_error(exc)` never returns DuckDB internals (no "Binder Error:" prefixes, candidate
lists, LINE excerpts or hints to DuckDB settings). Rules are a table of (exception class name, message regex,
builder) tried in order; the first match wins; otherwise the exception class decides the SQLSTATE and the
first line of the message, stripped of its "<Kind> Error: " prefix, is the message. Interrupts map to
`QueryCanceled` with a generic message: the session, which knows whether it was a cancel or a timeout, rewords
it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sparkwire import errors as e

_PG_TYPE_NAMES = {
    "INT8": "smallint",
    "INT16": "smallint",
    "INT32": "integer",
    "INT64": "bigint",
    "INT128": "numeric",
    "UINT8": "smallint",
    "UINT16": "integer",
    "UINT32": "bigint",
    "UINT64": "numeric",
    "DOUBLE": "double precision",
    "FLOAT": "real",
    "BOOL": "boolean",
    "UUID": "uuid",
    "DATE": "date",
    "TIMESTAMP": "timestamp",
    "DECIMAL": "numeric",
}

Builder = Callable[[re.Match[str]], e.PgError]


def _pg_type(name: str) -> str:
    return _PG_TYPE_NAMES.get(name.upper(), name.lower())


def _relation_missing(m: re.Match[str]) -> e.PgError:
    return e.UndefinedTable(f'relation "{m.group(1).strip(chr(34))}" does not exist')


def _udf_error(m: re.Match[str]) -> e.PgError:
    """A PgError a Python UDF raised (e.g. regclass input of an unknown name): the same error, unwrapped."""
    cls = getattr(e, m.group(1), None)
    if isinstance(cls, type) and issubclass(cls, e.PgError):
        return cls(m.group(2).strip())
    return e.InvalidParameterValue(m.group(2).strip())


_INTEGER_TEXT = re.compile(r"\s*[+-]?\d+\s*")
_NUMERIC_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def _integer_input(m: re.Match[str]) -> e.PgError:
    """Digits DuckDB could not hold are out of the type's range (22003), anything else bad input (22P02)."""
    text, name = m.group(1), _pg_type(m.group(2))
    if _INTEGER_TEXT.fullmatch(text):
        return e.NumericValueOutOfRange(f'value "{text}" is out of range for type {name}')
    return e.InvalidTextRepresentation(f'invalid input syntax for type {name}: "{text}"')


def _numeric_input(m: re.Match[str]) -> e.PgError:
    """A number too wide for a numeric(p, s) is 22003, anything else bad input (22P02)."""
    if _NUMERIC_TEXT.fullmatch(m.group(1)):
        return e.NumericValueOutOfRange("numeric field overflow")
    return e.InvalidTextRepresentation(f'invalid input syntax for type numeric: "{m.group(1)}"')


# RE2's errors (DuckDB's regular expressions) in PostgreSQL's words where they differ
_REGEX_WORDS = {
    "missing )": "parentheses () not balanced",
    "unexpected )": "parentheses () not balanced",
    "missing ]": "brackets [] not balanced",
    "bad repetition operator": "quantifier operand invalid",
    "no argument for repetition operator": "quantifier operand invalid",
    "trailing \\": "invalid escape \\ sequence",
    "invalid escape sequence": "invalid escape \\ sequence",
}
_REGEX_ERROR = (
    r"^Invalid Input Error: (missing \)|unexpected \)|missing \]|bad repetition operator|no argument for repetition "
    r"operator|trailing \\|invalid escape sequence|bad character class|invalid character class(?: range)?|"
    r"invalid repetition size|invalid perl operator|invalid named capture group|bad named capture group)"
)


def _regex_error(m: re.Match[str]) -> e.PgError:
    return e.PgError.for_sqlstate("2201B")(
        f"invalid regular expression: {_REGEX_WORDS.get(m.group(1), m.group(1))}", sqlstate="2201B"
    )


_RULES: tuple[tuple[str, re.Pattern[str], Builder], ...] = tuple(
    (kind, re.compile(pattern, re.S), builder)
    for kind, pattern, builder in (
        ("InvalidInputException", r"Python exception occurred while executing the UDF: (\w+): ([^\n]*)", _udf_error),
        (
            "CatalogException",
            r'Table with name "?([^"!]+?)"? does not exist because schema "([^"]+)"',
            lambda m: e.InvalidSchemaName(f'schema "{m.group(2)}" does not exist'),
        ),
        ("CatalogException", r'(?:Table|View) with name "?([^"!]+?)"? does not exist', _relation_missing),
        (
            "CatalogException",
            r'(?:Table|View) with name "?([^"!]+?)"? already exists',
            lambda m: e.DuplicateTable(f'relation "{m.group(1)}" already exists'),
        ),
        (
            "CatalogException",
            r'Schema with name "?([^"!]+?)"? does not exist',
            lambda m: e.InvalidSchemaName(f'schema "{m.group(1)}" does not exist'),
        ),
        (
            "CatalogException",
            r'Schema with name "?([^"!]+?)"? already exists',
            lambda m: e.DuplicateSchema(f'schema "{m.group(1)}" already exists'),
        ),
        (
            "CatalogException",
            r'(?:Scalar|Table|Aggregate|Macro) Function with name "?([^"!]+?)"? does not exist',
            lambda m: e.UndefinedFunction(f"function {m.group(1)} does not exist"),
        ),
        (
            "CatalogException",
            r'Type with name "?([^"!]+?)"? does not exist',
            lambda m: e.UndefinedObject(f'type "{m.group(1).lower()}" does not exist'),
        ),
        (
            "BinderException",
            r'Referenced column "([^"]+)" not found',
            lambda m: e.UndefinedColumn(f'column "{m.group(1)}" does not exist'),
        ),
        (
            "BinderException",
            r'Table "([^"]+)" does not have a column (?:with name|named) "([^"]+)"',
            lambda m: e.UndefinedColumn(f'column "{m.group(2)}" of relation "{m.group(1)}" does not exist'),
        ),
        (
            "BinderException",
            r'Referenced table "([^"]+)" not found',
            lambda m: e.UndefinedTable(f'missing FROM-clause entry for table "{m.group(1)}"'),
        ),
        (
            "BinderException",
            r'Ambiguous reference to column name "([^"]+)"',
            lambda m: e.AmbiguousColumn(f'column reference "{m.group(1)}" is ambiguous'),
        ),
        (
            "BinderException",
            r'column "([^"]+)" must appear in the GROUP BY clause',
            lambda m: e.GroupingError(
                f'column "{m.group(1)}" must appear in the GROUP BY clause or be used in an aggregate function'
            ),
        ),
        (
            "BinderException",
            r"No function matches the given name and argument types '([^(']+)\(([^']*)\)'",
            lambda m: e.UndefinedFunction(f"function {m.group(1)}({m.group(2).lower()}) does not exist"),
        ),
        (
            "BinderException",
            r'Could not choose a best candidate function for the function call "([^(]+)\(([^"]*)\)"',
            lambda m: e.UndefinedFunction(f"function {m.group(1)}({m.group(2).lower()}) is not unique"),
        ),
        (
            "BinderException",
            r"has (\d+) columns but (\d+) values were supplied",
            lambda m: (
                e.SyntaxError("INSERT has more target columns than expressions")
                if int(m.group(1)) > int(m.group(2))
                else e.SyntaxError("INSERT has more expressions than target columns")
            ),
        ),
        (
            "BinderException",
            r"Cannot (?:compare|mix) values of type (\S+) and (?:type )?(\S+)",
            lambda m: e.DatatypeMismatch(
                f"operator does not exist: {_pg_type(m.group(1))} = {_pg_type(m.group(2).rstrip(' -'))}"
            ),
        ),
        ("ConversionException", r"Could not convert string '(.*?)' to (INT\d+)", _integer_input),
        (
            "ConversionException",
            r"Could not convert string '(.*?)' to (INTERVAL|DATE|TIME|TIMESTAMP)\b",
            lambda m: e.InvalidDatetimeFormat(f'invalid input syntax for type {m.group(2).lower()}: "{m.group(1)}"'),
        ),
        (
            "ConversionException",
            r"Could not convert string '(.*?)' to (\w+)",
            lambda m: e.InvalidTextRepresentation(
                f'invalid input syntax for type {_pg_type(m.group(2))}: "{m.group(1)}"'
            ),
        ),
        ("ConversionException", r'Could not convert string "(.*?)" to DECIMAL', _numeric_input),
        (
            "ConversionException",
            r'Casting value "(.*?)" to type DECIMAL\(\d+,\d+\) failed: value is out of range',
            lambda m: e.NumericValueOutOfRange("numeric field overflow"),
        ),
        (
            "ConversionException",
            r'invalid (date|timestamp|time) field format: "(.*?)"',
            lambda m: e.InvalidDatetimeFormat(f'invalid input syntax for type {m.group(1)}: "{m.group(2)}"'),
        ),
        (
            "ConversionException",
            r'(date|timestamp|time) field value out of range: "(.*?)"',
            lambda m: e.DatetimeFieldOverflow(f'date/time field value out of range: "{m.group(2)}"'),
        ),
        (
            "ConversionException",
            r"out of range for the destination type (\w+)",
            lambda m: e.NumericValueOutOfRange(f"{_pg_type(m.group(1))} out of range"),
        ),
        (
            "ConversionException",
            r"Failed to cast decimal value \S+ to type (INT\d+)",
            lambda m: e.NumericValueOutOfRange(f"{_pg_type(m.group(1))} out of range"),
        ),
        (
            "ConversionException",
            r"Unimplemented type for cast \((\S+) -> (\S+)\)",
            lambda m: e.CannotCoerce(f"cannot cast type {m.group(1).lower()} to {m.group(2).lower()}"),
        ),
        (
            "OutOfRangeException",
            r"Overflow in \w+ of (\w+)",
            lambda m: e.NumericValueOutOfRange(f"{_pg_type(m.group(1))} out of range"),
        ),
        ("InvalidInputException", r"Division by zero", lambda m: e.DivisionByZero("division by zero")),
        ("InvalidInputException", _REGEX_ERROR, _regex_error),
        (
            "ConversionException",
            r"Date out of range: (\d+)-(\d+)-(\d+)",
            lambda m: e.DatetimeFieldOverflow(
                f"date field value out of range: {int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d}"
            ),
        ),
        (
            "ConversionException",
            r'extract specifier "([^"]+)" not recognized',
            lambda m: e.InvalidParameterValue(f'unit "{m.group(1).lower()}" not recognized for type timestamp'),
        ),
        (
            "BinderException",
            r"Subquery returns \d+ columns - expected 1",
            lambda m: e.SyntaxError("subquery must return only one column"),
        ),
        (
            "BinderException",
            r"Set operations can only apply to expressions with the same number of result columns",
            lambda m: e.SyntaxError("each UNION query must have the same number of columns"),
        ),
        (
            "BinderException",
            r'table "([^"]+)" has (\d+) columns available but (\d+) columns specified',
            lambda m: e.PgError.for_sqlstate("42P10")(m.group(0), sqlstate="42P10"),
        ),
        (
            "ConstraintException",
            r'Duplicate key "([^:]+): (.*?)" violates (?:primary key|unique) constraint',
            lambda m: e.UniqueViolation(
                "duplicate key value violates unique constraint",
                detail=f"Key ({m.group(1)})=({m.group(2)}) already exists.",
            ),
        ),
        (
            "ConstraintException",
            r"NOT NULL constraint failed: (\w+)\.(\w+)",
            lambda m: e.NotNullViolation(
                f'null value in column "{m.group(2)}" of relation "{m.group(1)}" violates not-null constraint'
            ),
        ),
        (
            "ConstraintException",
            r'CHECK constraint failed on table "?(\w+)"?',
            lambda m: e.CheckViolation(f'new row for relation "{m.group(1)}" violates check constraint'),
        ),
        (
            "ConstraintException",
            r"foreign key",
            lambda m: e.ForeignKeyViolation("insert or update violates foreign key constraint"),
        ),
        (
            "TransactionException",
            r"[Cc]onflict",
            lambda m: e.SerializationFailure("could not serialize access due to concurrent update"),
        ),
        (
            "PermissionException",
            r".",
            lambda m: e.InsufficientPrivilege("permission denied: sparkwire does not access server files"),
        ),
        ("InterruptException", r".", lambda m: e.QueryCanceled("canceling statement")),
        # past DuckDB's memory_limit (engine/duckdb.py): the statement fails, the server goes on
        ("OutOfMemoryException", r".", lambda m: e.out_of_memory("DuckDB: past the server's DuckDB memory limit")),
    )
)

_BY_CLASS: dict[str, str] = {
    "ParserException": "42601",
    "SyntaxException": "42601",
    "CatalogException": "42704",
    "BinderException": "42804",
    "ConversionException": "22P02",
    "OutOfRangeException": "22003",
    "ConstraintException": "23000",
    "NotImplementedException": "0A000",
    "TransactionException": "25000",
    "InvalidInputException": "22023",
    "TypeMismatchException": "42804",
    "DependencyException": "2BP01",
    "SequenceException": "55000",
}

_PREFIX = re.compile(r"^[A-Z][A-Za-z ]*? Error: ")


def _first_line(message: str) -> str:
    body = _PREFIX.sub("", message.strip())
    lines = [line.strip() for line in body.split("\n") if line.strip()]
    return lines[0].rstrip("!") if lines else "error"


_KIND_BY_PREFIX = {
    "INTERRUPT": "InterruptException",
    "TransactionContext": "TransactionException",
    "Invalid Input": "InvalidInputException",
    "Out of Range": "OutOfRangeException",
    "Not implemented": "NotImplementedException",
}


def _kind_from_message(message: str) -> str:
    """DuckDB errors crossing Arrow's C stream arrive as OSError; their text starts with "<Kind> Error: "."""
    m = re.match(r"^([A-Za-z ]+?) Error: ", message)
    if not m:
        return "InternalException"
    prefix = m.group(1)
    return _KIND_BY_PREFIX.get(prefix, prefix.title().replace(" ", "") + "Exception")


def map_duckdb_error(exc: Exception) -> e.PgError:
    """`exc`: a duckdb.Error, or an OSError/ArrowException carrying a DuckDB error from a batch reader. A
    translator's `error('<RAISED_MARKER><SQLSTATE>:<message>')` is that error."""
    message = str(exc)
    carried = e.raised(message)
    if carried is not None:
        return carried
    kind = type(exc).__name__
    if not kind.endswith("Exception") or kind in ("ArrowException", "ArrowInvalid"):
        kind = _kind_from_message(message)
    for rule_kind, pattern, build in _RULES:
        if rule_kind == kind:
            m = pattern.search(message)
            if m:
                return build(m)
    code = _BY_CLASS.get(kind, "XX000")
    return e.PgError.for_sqlstate(code)(_first_line(message), sqlstate=code)
