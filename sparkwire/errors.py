"""The one error hierarchy every layer raises: a PostgreSQL error keyed by SQLSTATE.

Contract: anything that should reach a client as an ErrorResponse is a `PgError` (or a subclass). The server maps
it to ErrorResponse fields (severity, SQLSTATE, message, detail, hint, position) in exactly one place; any other
exception is logged with its traceback and reaches the client only as `XX000 internal error` with no trace.

Subclasses register their SQLSTATE (like psycopg's `errors.py`); `PgError.for_sqlstate(code)` finds the class for a
code, falling back to the class of its two-character class prefix, then to `PgError` itself.
"""

from __future__ import annotations

from typing import ClassVar


class PgError(Exception):
    """An error with a PostgreSQL SQLSTATE. `severity` is ERROR unless the connection must close (FATAL)."""

    sqlstate: ClassVar[str] = "XX000"
    _by_sqlstate: ClassVar[dict[str, type[PgError]]] = {}

    def __init__(
        self,
        message: str,
        *,
        detail: str | None = None,
        hint: str | None = None,
        position: int | None = None,
        severity: str = "ERROR",
        sqlstate: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.hint = hint
        self.position = position  # 1-based character offset into the statement text, as PostgreSQL reports it
        self.severity = severity
        if sqlstate is not None:
            self.code = sqlstate
        else:
            self.code = type(self).sqlstate

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        PgError._by_sqlstate.setdefault(cls.sqlstate, cls)

    @classmethod
    def for_sqlstate(cls, code: str) -> type[PgError]:
        found = cls._by_sqlstate.get(code) or cls._by_sqlstate.get(code[:2] + "000")
        return found or PgError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}: {self.message!r})"


# Class 08 - connection exception
class ConnectionException(PgError):
    sqlstate = "08000"


class ProtocolViolation(PgError):
    sqlstate = "08P01"


# Class 0A - feature not supported
class FeatureNotSupported(PgError):
    sqlstate = "0A000"


# Class 21/22 - data exception
class CardinalityViolation(PgError):
    sqlstate = "21000"


class DataException(PgError):
    sqlstate = "22000"


class StringDataRightTruncation(PgError):
    sqlstate = "22001"


class NumericValueOutOfRange(PgError):
    sqlstate = "22003"


class InvalidDatetimeFormat(PgError):
    sqlstate = "22007"


class DatetimeFieldOverflow(PgError):
    sqlstate = "22008"


class DivisionByZero(PgError):
    sqlstate = "22012"


class InvalidArgumentForLogarithm(PgError):
    sqlstate = "2201E"


class InvalidArgumentForPowerFunction(PgError):
    sqlstate = "2201F"


class InvalidParameterValue(PgError):
    sqlstate = "22023"


class CharacterNotInRepertoire(PgError):
    sqlstate = "22021"


class InvalidTextRepresentation(PgError):
    sqlstate = "22P02"


class InvalidBinaryRepresentation(PgError):
    sqlstate = "22P03"


class BadCopyFileFormat(PgError):
    sqlstate = "22P04"


class NotNullViolation(PgError):
    sqlstate = "23502"


class UniqueViolation(PgError):
    sqlstate = "23505"


# Class 25 - invalid transaction state
class InvalidTransactionState(PgError):
    sqlstate = "25000"


class ActiveSqlTransaction(PgError):
    sqlstate = "25001"


class NoActiveSqlTransaction(PgError):
    sqlstate = "25P01"


class InFailedSqlTransaction(PgError):
    sqlstate = "25P02"


class ReadOnlySqlTransaction(PgError):
    sqlstate = "25006"


# Class 26 / 34 - invalid names of statements and cursors
class InvalidSqlStatementName(PgError):
    sqlstate = "26000"


class InvalidCursorName(PgError):
    sqlstate = "34000"


# Class 28 - invalid authorization specification
class InvalidAuthorizationSpecification(PgError):
    sqlstate = "28000"


class InvalidPassword(PgError):
    sqlstate = "28P01"


# Class 3B - savepoint exception
class InvalidSavepointSpecification(PgError):
    sqlstate = "3B001"


# Class 3D / 3F - invalid catalog / schema name
class InvalidCatalogName(PgError):
    sqlstate = "3D000"


class InvalidSchemaName(PgError):
    sqlstate = "3F000"


# Class 42 - syntax error or access rule violation
class SyntaxError(PgError):  # the PostgreSQL name; shadows the builtin inside this module only
    sqlstate = "42601"


class InsufficientPrivilege(PgError):
    sqlstate = "42501"


class UndefinedColumn(PgError):
    sqlstate = "42703"


class UndefinedFunction(PgError):
    sqlstate = "42883"


class UndefinedTable(PgError):
    sqlstate = "42P01"


class UndefinedParameter(PgError):
    sqlstate = "42P02"


class UndefinedObject(PgError):
    sqlstate = "42704"


class DuplicateObject(PgError):
    sqlstate = "42710"


class DuplicateTable(PgError):
    sqlstate = "42P07"


class DuplicateSchema(PgError):
    sqlstate = "42P06"


class DuplicateCursor(PgError):
    sqlstate = "42P03"


class DuplicatePreparedStatement(PgError):
    sqlstate = "42P05"


class DatatypeMismatch(PgError):
    sqlstate = "42804"


class WrongObjectType(PgError):
    sqlstate = "42809"


class AmbiguousColumn(PgError):
    sqlstate = "42702"


class GroupingError(PgError):
    sqlstate = "42803"


class IndeterminateDatatype(PgError):
    sqlstate = "42P18"


class DependentObjectsStillExist(PgError):
    sqlstate = "2BP01"


# Class 53 / 54 - resources, limits
class ProgramLimitExceeded(PgError):
    sqlstate = "54000"


def result_too_large(limit: str) -> ProgramLimitExceeded:
    """A query's result is larger than `max_query_result_size` (`limit` as Materialize prints it: `1.0 GiB`)."""
    return ProgramLimitExceeded(
        f"result exceeds max size of {limit}",
        hint="Narrow the query (WHERE, LIMIT, fewer columns), or raise max_query_result_size.",
    )


class OutOfMemory(PgError):
    sqlstate = "53200"


def out_of_memory(detail: str | None = None) -> OutOfMemory:
    """A statement that needed more memory than the engine has: it is cancelled, the server keeps serving."""
    return OutOfMemory(
        "out of memory",
        detail=detail,
        hint="Narrow the statement (WHERE, LIMIT, fewer or smaller joins and aggregates) and try again, or give "
        "the server more memory (sparkwire serve --spark-memory for Spark).",
    )


# Class 58 - system error
class SystemFailure(PgError):
    """58000: the engine under the statement failed (a dead or wedged Spark); the server itself is fine."""

    sqlstate = "58000"


# Class 55 / 57 - object state, operator intervention
class ObjectNotInPrerequisiteState(PgError):
    sqlstate = "55000"


class LockNotAvailable(PgError):
    sqlstate = "55P03"


class QueryCanceled(PgError):
    sqlstate = "57014"


class IdleInTransactionSessionTimeout(PgError):
    sqlstate = "25P03"


class AdminShutdown(PgError):
    sqlstate = "57P01"


# Class XX - internal error
class InternalError(PgError):
    sqlstate = "XX000"


# Appended for the catalog (catalog/): duplicate/reserved names, grants, object definitions
class DuplicateDatabase(PgError):
    sqlstate = "42P04"


class DuplicateFunction(PgError):
    sqlstate = "42723"


class InvalidObjectDefinition(PgError):
    sqlstate = "42P17"


class ReservedName(PgError):
    sqlstate = "42939"


class InvalidGrantOperation(PgError):
    sqlstate = "0LP01"


# Appended by the planner: SQLSTATEs the planner and the DuckDB engine raise
class CheckViolation(PgError):
    sqlstate = "23514"


class ForeignKeyViolation(PgError):
    sqlstate = "23503"


class SerializationFailure(PgError):
    sqlstate = "40001"


class CannotCoerce(PgError):
    sqlstate = "42846"


class CantChangeRuntimeParam(PgError):
    sqlstate = "55P02"


# Appended by the server: connection limits
class TooManyConnections(PgError):
    sqlstate = "53300"


# Appended by pgtypes: date/time input
class InvalidTimeZoneDisplacementValue(PgError):
    sqlstate = "22009"


# Appended by planner/ddl: CREATE TABLE definitions
class DuplicateColumn(PgError):
    sqlstate = "42701"


class InvalidTableDefinition(PgError):
    sqlstate = "42P16"


# Appended by planner/rbac: DROP ROLE of the session's own role
class ObjectInUse(PgError):
    sqlstate = "55006"


# Appended by the translators: an error PostgreSQL raises for a value, raised by the engine itself
# (Spark's raise_error, DuckDB's error()) as '<RAISED_MARKER><SQLSTATE>:<message>'; each engine's error mapper
# turns that text back into the error (engine/spark_errors.py, engine/duckdb_errors.py).
RAISED_MARKER = "sparkwire-sqlstate:"


def raised(text: str) -> PgError | None:
    """The error a translator's raise carried in `text`, or None when `text` carries none."""
    _, marker, rest = text.partition(RAISED_MARKER)
    if not marker:
        return None
    sqlstate, _, message = rest.partition(":")
    return PgError.for_sqlstate(sqlstate)(message.splitlines()[0] if message else message, sqlstate=sqlstate)
