"""Spark exceptions -> `PgError` with a PostgreSQL SQLSTATE and a one-line PostgreSQL-style message.

Contract: `to_pg_error(exc)` never returns a Java stack trace or a multi-line Spark message. Known Spark error
conditions (`PySparkException.getCondition()`, e.g. "UNRESOLVED_COLUMN.WITH_SUGGESTION") are looked up in
`_RULES` by their full name, then by the part before the first dot; each rule builds the message PostgreSQL would
give from the condition's message parameters. An unknown condition keeps Spark's own SQLSTATE (Spark uses the SQL
standard classes) and the first line of Spark's message without its "[CONDITION]" prefix and "SQLSTATE:" suffix.
A py4j error (a job that failed while its result was collected: PySpark does not convert those) is mapped by the
innermost Java cause that carries an error condition ("Caused by: ...: [CONDITION] message SQLSTATE: 21000"): a
rule without parameters, else the condition's SQLSTATE and its message. Anything else (a dead JVM) becomes XX000
`internal error`, and so does every internal SQLSTATE (XX…) Spark gives: the engine's text goes to the log, never
to a client.
Resource failures come first, whatever the exception: a result over `spark.driver.maxResultSize` is 54000 and
running out of memory (the JVM's OutOfMemoryError, Spark's memory manager, a broadcast that could not be built)
is 53200 `out of memory`, with a detail saying which and a hint.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from pyspark.errors import PySparkException

from sparkwire import errors

log = logging.getLogger(__name__)
Params = dict[str, str]
Rule = Callable[[Params], errors.PgError]

# Spark type names (as they appear quoted in messages, e.g. '"INT"') -> PostgreSQL type names.
_PG_TYPE_NAMES = {
    "TINYINT": "smallint",
    "SMALLINT": "smallint",
    "INT": "integer",
    "BIGINT": "bigint",
    "FLOAT": "real",
    "DOUBLE": "double precision",
    "BOOLEAN": "boolean",
    "STRING": "text",
    "DATE": "date",
    "TIMESTAMP": "timestamp with time zone",
    "TIMESTAMP_NTZ": "timestamp without time zone",
    "BINARY": "bytea",
}
_DATETIME_TYPES = {"date", "timestamp with time zone", "timestamp without time zone"}


def _unquote(name: str) -> str:
    """'`a`.`b`' -> 'a.b'; '"INT"' -> 'INT'; "'x'" -> 'x'."""
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "'\"":
        return name[1:-1]
    return ".".join(part.strip("`") for part in re.findall(r"`(?:[^`]|``)*`|[^.]+", name))


def _pg_type(spark_type: str) -> str:
    raw = _unquote(spark_type).upper()
    if raw.startswith("DECIMAL"):
        return "numeric"
    if raw.startswith(("VARCHAR", "CHAR")):
        return "character varying"
    return _PG_TYPE_NAMES.get(raw, raw.lower())


def _relation_missing(p: Params) -> errors.PgError:
    return errors.UndefinedTable(f'relation "{_unquote(p.get("relationName", ""))}" does not exist')


def _column_missing(p: Params) -> errors.PgError:
    return errors.UndefinedColumn(f'column "{_unquote(p.get("objectName", ""))}" does not exist')


def _syntax(p: Params) -> errors.PgError:
    near = p.get("error", "")
    if near in ("end of input", "'<EOF>'", "<EOF>"):
        return errors.SyntaxError("syntax error at end of input")
    return errors.SyntaxError(f'syntax error at or near "{_unquote(near)}"')


def _cast_input(p: Params) -> errors.PgError:
    pg_type = _pg_type(p.get("targetType", ""))
    message = f'invalid input syntax for type {pg_type}: "{_unquote(p.get("expression", ""))}"'
    if pg_type in _DATETIME_TYPES:
        return errors.InvalidDatetimeFormat(message)
    return errors.InvalidTextRepresentation(message)


def _cast_overflow(p: Params) -> errors.PgError:
    return errors.NumericValueOutOfRange(f"{_pg_type(p.get('targetType', ''))} out of range")


def _function_missing(p: Params) -> errors.PgError:
    return errors.UndefinedFunction(f"function {_unquote(p.get('routineName', '')).lower()} does not exist")


def _ambiguous(p: Params) -> errors.PgError:
    return errors.AmbiguousColumn(f'column reference "{_unquote(p.get("name", ""))}" is ambiguous')


def _grouping(p: Params) -> errors.PgError:
    column = _unquote(p.get("expression", p.get("expr", "")))
    return errors.GroupingError(
        f'column "{column}" must appear in the GROUP BY clause or be used in an aggregate function'
    )


# The translator's raise_error('<marker><SQLSTATE>:<message>') for a value PostgreSQL refuses (planner/translate/
# spark_math.py): Spark's USER_RAISED_EXCEPTION carrying it becomes that SQLSTATE and message.
RAISED_MARKER = errors.RAISED_MARKER


def _raised(p: Params) -> errors.PgError:
    text = p.get("errorMessage", "")
    found = errors.raised(text)
    return found or errors.PgError.for_sqlstate("P0001")(text or "raised exception", sqlstate="P0001")


@dataclass(frozen=True)
class _Fixed:
    """A rule whose message needs no parameters (so it also serves a condition found in a Java cause's text)."""

    cls: type[errors.PgError]
    message: str

    def __call__(self, _params: Params) -> errors.PgError:
        return self.cls(self.message)


def _fixed(cls: type[errors.PgError], message: str) -> Rule:
    return _Fixed(cls, message)


_RULES: dict[str, Rule] = {
    "TABLE_OR_VIEW_NOT_FOUND": _relation_missing,
    "UNRESOLVED_COLUMN": _column_missing,
    "UNRESOLVED_ROUTINE": _function_missing,
    "PARSE_SYNTAX_ERROR": _syntax,
    "PARSE_EMPTY_STATEMENT": _fixed(errors.SyntaxError, "syntax error at end of input"),
    "DIVIDE_BY_ZERO": _fixed(errors.DivisionByZero, "division by zero"),
    "REMAINDER_BY_ZERO": _fixed(errors.DivisionByZero, "division by zero"),
    "INTERVAL_DIVIDED_BY_ZERO": _fixed(errors.DivisionByZero, "division by zero"),
    "CAST_INVALID_INPUT": _cast_input,
    "CAST_OVERFLOW": _cast_overflow,
    "ARITHMETIC_OVERFLOW": _fixed(errors.NumericValueOutOfRange, "value out of range: overflow"),
    "NUMERIC_VALUE_OUT_OF_RANGE": _fixed(errors.NumericValueOutOfRange, "numeric field overflow"),
    "AMBIGUOUS_REFERENCE": _ambiguous,
    "MISSING_AGGREGATION": _grouping,
    "MISSING_GROUP_BY": _fixed(
        errors.GroupingError, "column must appear in the GROUP BY clause or be used in an aggregate function"
    ),
    "TABLE_OR_VIEW_ALREADY_EXISTS": lambda p: errors.DuplicateTable(
        f'relation "{_unquote(p.get("relationName", ""))}" already exists'
    ),
    "USER_RAISED_EXCEPTION": _raised,
    "OPERATION_CANCELED": _fixed(errors.QueryCanceled, "canceling statement due to user request"),
    "SCALAR_SUBQUERY_TOO_MANY_ROWS": _fixed(
        errors.CardinalityViolation, "more than one row returned by a subquery used as an expression"
    ),
}

# Conditions whose PostgreSQL SQLSTATE differs from Spark's while Spark's message is fine once cleaned.
_SQLSTATE_OVERRIDES = {"DATATYPE_MISMATCH": "42804", "INVALID_ARRAY_INDEX": "2202E"}


# Texts that mean the statement ran out of memory somewhere in Spark (the JVM's own error, Spark's memory manager,
# a broadcast that could not be built or stored), with the detail the client gets. Searched in the exception's
# text, Java causes included, so that a wrapped OutOfMemoryError is still found.
_OUT_OF_MEMORY = {
    "java.lang.OutOfMemoryError": "the JVM ran out of heap memory",
    "SparkOutOfMemoryError": "Spark could not get the memory the statement needs",
    "Not enough memory to build and broadcast": "not enough memory to build a broadcast relation",
    "Retried waiting for GCLocker too often": "garbage collection could not free memory in time",
    "GC overhead limit exceeded": "the JVM spent nearly all its time in garbage collection",
    "Unable to acquire": "Spark could not get the memory the statement needs",
}
_SCANNED_CHARS = 200_000
_PG_ERROR_IN_UDF = re.compile(r"sparkwire\.errors\.(\w+): ([^\n]*)")
# a Java cause with an error condition, in a py4j error's text
_JAVA_CONDITION = re.compile(r"^(?:: |Caused by: )?[\w.$]+: \[([A-Z0-9_.]+)\] ([^\n]*?)(?: SQLSTATE: (\w{5}))?$", re.M)


def exception_text(exc: BaseException) -> str:
    """The exception's text with its Java causes; a py4j error asks the JVM for it, which may fail when the JVM is
    out of memory or gone: then its Python-side message."""
    try:
        return str(exc)
    except Exception:
        return str(exc.args[0]) if exc.args else type(exc).__name__


def spark_message(exc: PySparkException) -> str:
    """Spark's message reduced to one line: no "[CONDITION] " prefix, no " SQLSTATE: …" suffix, no plan."""
    text = exc.getMessage() if exc.getCondition() else str(exc)
    line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    line = re.sub(r"^\[[A-Z0-9_.]+\]\s*", "", line)
    line = re.sub(r"\s*SQLSTATE: \w+.*$", "", line)
    return line.strip()


def to_pg_error(exc: BaseException) -> errors.PgError:
    """Map any exception raised by a Spark call to a `PgError` (see the module docstring)."""
    if isinstance(exc, errors.PgError):
        return exc
    text = exception_text(exc)[:_SCANNED_CHARS]
    if "spark.driver.maxResultSize" in text:  # the driver refused to collect a result this large
        return errors.ProgramLimitExceeded(
            "result exceeds max size of spark.driver.maxResultSize",
            hint="Narrow the query (WHERE, LIMIT, fewer columns), or start the server with a larger "
            "--spark-max-result-size.",
        )
    marker = next((m for m in _OUT_OF_MEMORY if m in text), None)
    if marker is not None:
        return errors.out_of_memory(f"Spark: {_OUT_OF_MEMORY[marker]}")
    raised = _PG_ERROR_IN_UDF.search(text)
    if raised is not None:  # a PgError raised by one of our Python UDFs (engine/pg_functions.py)
        cls = getattr(errors, raised.group(1), None)
        if isinstance(cls, type) and issubclass(cls, errors.PgError):
            return cls(raised.group(2).strip())
    if not isinstance(exc, PySparkException):
        causes = _JAVA_CONDITION.findall(text)
        if causes:
            return _from_condition(*causes[-1])
        log.warning("Spark failed with an error that has no SQLSTATE: %s", text)
        return errors.InternalError("internal error")  # the engine's text stays in the log, never with a client
    condition = exc.getCondition() or ""
    params = exc.getMessageParameters() or {}
    rule = _RULES.get(condition) or _RULES.get(condition.split(".", 1)[0])
    if rule is not None:
        return rule(params)
    base = condition.split(".", 1)[0]
    sqlstate = _SQLSTATE_OVERRIDES.get(base) or exc.getSqlState() or "XX000"
    return _mapped(sqlstate, spark_message(exc))


def _mapped(sqlstate: str, message: str) -> errors.PgError:
    """The error for a SQLSTATE Spark gave; an internal one (XX…) carries no engine text to the client (logged)."""
    if sqlstate.startswith("XX"):
        log.warning("Spark failed with an internal error (%s): %s", sqlstate, message)
        return errors.PgError.for_sqlstate(sqlstate)("internal error", sqlstate=sqlstate)
    return errors.PgError.for_sqlstate(sqlstate)(message, sqlstate=sqlstate)


def _from_condition(condition: str, message: str, sqlstate: str) -> errors.PgError:
    """A Java cause's error condition, message and SQLSTATE as a PgError (no message parameters to build from)."""
    base = condition.split(".", 1)[0]
    rule = _RULES.get(condition) or _RULES.get(base)
    if isinstance(rule, _Fixed):
        return rule({})
    state = _SQLSTATE_OVERRIDES.get(base) or sqlstate or "XX000"
    return _mapped(state, message.strip())
