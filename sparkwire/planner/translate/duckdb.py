"""PostgreSQL SQL → DuckDB SQL, as sqlglot parsing plus an ordered tuple of tree transforms.

Contract: `parse(sql)` parses one statement with sqlglot's postgres dialect (syntax errors → 42601 with PostgreSQL's
wording and a 1-based position) and folds unquoted identifiers to lower case, as PostgreSQL does. `to_duckdb(tree,
ctx, param_types)` returns DuckDB SQL text: every transform in `TRANSFORMS` is a pure function (node, ctx) → node
applied over the whole tree, then sqlglot's DuckDB generator prints it. Engine settings already give PostgreSQL
semantics for integer `/`, NULL ordering and division by zero (see engine/duckdb.py), so the transforms here cover
what settings cannot: session information functions (current_user, version(), current_setting, set_config, pg_sleep,
pg_backend_pid, …), catalog relations, functions and casts (introspection/rewrite.py), LIKE's default backslash
escape (like_escape.py), PostgreSQL's value semantics where DuckDB's differ (duckdb_rules/: errors, literal input,
interval division) and typed parameters (`$n` becomes `CAST($n AS <type>)` so DuckDB binds values with the
inferred PostgreSQL type).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from sparkwire import errors as e
from sparkwire.introspection import rewrite as introspection
from sparkwire.pgtypes import decode_param
from sparkwire.planner.bind.fields import UNCONSTRAINED_DECIMAL
from sparkwire.planner.grammar.dialect import PG
from sparkwire.planner.translate.duckdb_numeric import pg_numerics
from sparkwire.planner.translate.duckdb_rules import pg_semantics
from sparkwire.planner.translate.duckdb_rules.literals import numeric_input_text
from sparkwire.planner.translate.functions.array_text import constant_array_text
from sparkwire.planner.translate.functions.intervals.interval_results import duckdb_interval_results
from sparkwire.planner.translate.functions.intervals.time_ops import time_ops
from sparkwire.planner.translate.functions.lowering import lower_functions
from sparkwire.planner.translate.functions.pg_div import lower_div
from sparkwire.planner.translate.functions.pg_format import lower_format
from sparkwire.planner.translate.functions.pg_typeof import lower_typeof
from sparkwire.planner.translate.functions.to_char_values import to_char_values
from sparkwire.planner.translate.inner_names import inner_names
from sparkwire.planner.translate.like_escape import like_escapes
from sparkwire.planner.translate.mz_now import (
    MZ_NOW_DESCRIBE_TS,
    mentions_mz_time,
    with_mz_timestamp_casts,
    with_read_ts,
)
from sparkwire.planner.translate.numeric_types import Columns
from sparkwire.version import MZ_VERSION, mz_version_num, version_string


@dataclass(frozen=True, slots=True)
class SessionContext:
    """What the session-information functions need: the session id keys the per-session Python UDFs."""

    session_id: int
    user: str
    backend_pid: int
    database: str = "materialize"
    schema: str = "public"  # current_schema(): the first existing schema of search_path ("" when none: NULL)
    search_path: tuple[str, ...] = ("public",)  # current_schemas(false): the existing schemas of search_path


# UDF names registered by the planner service (see planner/execute/udfs.py); each takes the session id first.
UDF_CURRENT_SETTING = "sw_current_setting"
UDF_SET_CONFIG = "sw_set_config"
UDF_PG_SLEEP = "sw_pg_sleep"
UDF_PG_SIGNAL = "sw_pg_signal"  # pg_cancel_backend / pg_terminate_backend

BYTEA_OID = 17


def _position(sql: str, line: int, col: int) -> int:
    lines = sql.split("\n")
    return sum(len(x) + 1 for x in lines[: max(line - 1, 0)]) + max(col, 1)


_WANTS_MORE = ("Required keyword", "Expecting", "Expected")


def parse(sql: str) -> exp.Expression:
    try:
        tree = sqlglot.parse_one(sql, read=PG)
    except ParseError as err:
        info = err.errors[0] if err.errors else {}
        near = str(info.get("highlight") or "").strip()
        at_end = not str(info.get("end_context") or "").strip()
        if not near or (at_end and str(info.get("description", "")).startswith(_WANTS_MORE)):
            raise e.SyntaxError("syntax error at end of input", position=len(sql.rstrip()) + 1) from None
        line, col = int(info.get("line") or 1), int(info.get("col") or 1)
        position = _position(sql, line, col - len(near) + 1)
        raise e.SyntaxError(f'syntax error at or near "{near}"', position=position) from None
    except TokenError:
        raise e.SyntaxError("unterminated quoted string or comment", position=1) from None
    if not isinstance(tree, exp.Expression):
        raise e.SyntaxError("syntax error at end of input", position=1)
    # PostgreSQL folds unquoted identifiers to lower case: `INFORMATION_SCHEMA.columns`, `SELECT A FROM T`
    normalized: exp.Expression = normalize_identifiers(tree, dialect=PG)
    return normalized


Transform = Callable[[exp.Expression, SessionContext], exp.Expression]


def with_session_facts(tree: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """A copy of `tree` with current_user & co., version(), current_database() and current_schema replaced by this
    session's values: what a query sent to Spark must carry, since Spark's own answer is the server process's
    (its OS user, Spark's version, its `default` database)."""
    return tree.transform(lambda node: _session_info(node, ctx))  # transform copies


def _unqualify_builtins(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """`pg_catalog.version()` → `version()`: built-in functions live in pg_catalog, which is always searched."""
    if (
        isinstance(node, exp.Dot)
        and isinstance(node.this, exp.Identifier | exp.Column)
        and node.this.name.lower() == "pg_catalog"
        and isinstance(node.expression, exp.Func)
        and isinstance(node.expression, exp.Expression)
    ):
        return node.expression
    return node


def _current_database(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """`materialize.public.t` → `public.t`: DuckDB holds one database, whose shadows are named schema.relation."""
    if isinstance(node, exp.Table) and node.catalog and node.catalog == ctx.database:
        node.set("catalog", None)
    return node


_INT4_RANGE = range(-(2**31), 2**31)


def _int4_literal(node: exp.Expression) -> bool:
    if isinstance(node, exp.Neg):
        return _int4_literal(node.this)
    number = isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()
    return number and int(node.this) in _INT4_RANGE


def _int4_series(node: exp.Expression) -> bool:
    """generate_series of int4 bounds (integer literals here) yields int4 in PostgreSQL."""
    bounds = [node.args.get(k) for k in ("start", "end", "step")]
    return isinstance(node, exp.GenerateSeries) and all(b is None or _int4_literal(b) for b in bounds)


def _is_bytea(node: exp.Expression) -> bool:
    return isinstance(node, exp.Cast) and node.to.is_type(exp.DataType.Type.VARBINARY, exp.DataType.Type.BINARY)


def _int4_results(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """length(), array_length() and generate_series(int4, int4) are int4 in PostgreSQL; DuckDB returns BIGINT.
    A set-returning generate_series in a FROM clause keeps its type: DuckDB cannot cast a table function.
    length(bytea) counts bytes (DuckDB has no length(BLOB)): octet_length of a `::bytea` argument."""
    if isinstance(node, exp.Length) and _is_bytea(node.this):
        octets = exp.Anonymous(this="octet_length", expressions=[node.this])
        return octets if isinstance(node.parent, exp.Cast) else exp.Cast(this=octets, to=exp.DataType.build("INTEGER"))
    if isinstance(node.parent, exp.Cast):
        return node
    if isinstance(node, exp.Length | exp.ArraySize) or (
        _int4_series(node) and not isinstance(node.parent, exp.From | exp.Join | exp.Table)
    ):
        return exp.Cast(this=node, to=exp.DataType.build("INTEGER"))
    return node


def _int4_series_tables(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """`FROM generate_series(1, 250) AS i` of int4 bounds yields int4 in PostgreSQL: DuckDB's table function gives
    BIGINT and cannot be cast, so it becomes a subquery that casts its one column, named as PostgreSQL names it (the
    column alias, else the table alias, else generate_series) under the same table alias."""
    if not (
        isinstance(node, exp.Table)
        and isinstance(node.this, exp.ExplodingGenerateSeries)
        and _int4_series(node.this)
        and not node.args.get("ordinality")
        and not node.args.get("joins")
    ):
        return node
    alias = node.args.get("alias")
    table = alias.name if isinstance(alias, exp.TableAlias) and alias.name else "generate_series"
    columns = alias.columns if isinstance(alias, exp.TableAlias) else []
    if len(columns) > 1:
        return node
    column = columns[0].name if columns else table
    value = exp.Cast(this=exp.column("generate_series"), to=exp.DataType.build("INTEGER"))
    series = exp.Table(this=exp.GenerateSeries(**node.this.args))
    select = exp.select(exp.alias_(value, exp.to_identifier(column, quoted=True))).from_(series)
    return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(table, quoted=True)))


_SESSION_INFO_FUNCTIONS: dict[str, Callable[[SessionContext], str]] = {
    "version": lambda ctx: version_string(),
    "current_database": lambda ctx: ctx.database,
    "current_schema": lambda ctx: ctx.schema,
    "current_user": lambda ctx: ctx.user,
    "session_user": lambda ctx: ctx.user,
    "mz_version": lambda ctx: MZ_VERSION,
}


def _session_info(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """current_user & co., version(), Materialize's mz_version() / mz_version_num(), current_database(),
    current_schema → literals of this session."""
    if isinstance(node, exp.CurrentUser | exp.SessionUser):
        return exp.Literal.string(ctx.user)
    if (
        isinstance(node, exp.Column)
        and not node.table
        and isinstance(node.this, exp.Identifier)
        and not node.this.quoted
        and node.name.lower() in ("user", "current_role")
    ):
        return exp.Literal.string(ctx.user)
    if isinstance(node, exp.CurrentDatabase | exp.CurrentCatalog):
        return exp.Literal.string(ctx.database)
    if isinstance(node, exp.CurrentSchema) or (
        isinstance(node, exp.Anonymous) and not node.expressions and node.name.lower() == "current_schema"
    ):
        return exp.Literal.string(ctx.schema) if ctx.schema else exp.cast(exp.null(), "TEXT")
    if isinstance(node, exp.CurrentVersion):
        return exp.Literal.string(version_string())
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):  # pg_catalog.version()
        qualifier = node.this.name.lower() if isinstance(node.this, exp.Identifier) else ""
        called = _session_info(node.expression, ctx) if qualifier in ("pg_catalog", "mz_catalog") else node.expression
        return called if called is not node.expression else node
    if isinstance(node, exp.Anonymous) and not node.expressions and node.name.lower() == "mz_version_num":
        return exp.Literal.number(mz_version_num())
    if isinstance(node, exp.Anonymous) and not node.expressions and node.name.lower() in _SESSION_INFO_FUNCTIONS:
        return exp.Literal.string(_SESSION_INFO_FUNCTIONS[node.name.lower()](ctx))
    return node


def _session_functions(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """current_setting / set_config / pg_sleep / pg_cancel_backend / pg_terminate_backend → the per-session UDFs;
    pg_backend_pid() → the pid;
    clock_timestamp() / statement_timestamp() → DuckDB's time of the call, transaction_timestamp() → now()."""
    if not isinstance(node, exp.Anonymous):
        return node
    name = node.name.lower()
    sid = exp.Literal.number(ctx.session_id)
    args = list(node.expressions)
    if name == "pg_backend_pid" and not args:
        return exp.Literal.number(ctx.backend_pid)
    if name in ("clock_timestamp", "statement_timestamp") and not args:  # the time of the call
        return exp.Anonymous(this="get_current_timestamp", expressions=[])
    if name == "transaction_timestamp" and not args:
        return exp.CurrentTimestamp()
    if name == "current_setting" and len(args) in (1, 2):
        missing_ok = args[1] if len(args) == 2 else exp.false()
        return exp.Anonymous(this=UDF_CURRENT_SETTING, expressions=[sid, args[0], missing_ok])
    if name == "set_config" and len(args) == 3:
        return exp.Anonymous(this=UDF_SET_CONFIG, expressions=[sid, *args])
    if (name == "pg_cancel_backend" and len(args) == 1) or (name == "pg_terminate_backend" and len(args) in (1, 2)):
        terminate = exp.true() if name == "pg_terminate_backend" else exp.false()
        pid = exp.Cast(this=args[0], to=exp.DataType.build("bigint"))
        return exp.Anonymous(this=UDF_PG_SIGNAL, expressions=[sid, pid, terminate])
    if name == "pg_sleep" and len(args) == 1:
        return exp.Anonymous(
            this=UDF_PG_SLEEP, expressions=[sid, exp.Cast(this=args[0], to=exp.DataType.build("double"))]
        )
    return node


def _is_unconstrained_decimal(datatype: exp.DataType) -> bool:
    """`numeric` or `numeric[]` without precision."""
    if datatype.is_type(exp.DataType.Type.ARRAY) and len(datatype.expressions) == 1:
        element = datatype.expressions[0]
        return isinstance(element, exp.DataType) and _is_unconstrained_decimal(element)
    return datatype.is_type(exp.DataType.Type.DECIMAL) and not datatype.expressions


def _result_select(node: exp.Expression) -> bool:
    """`node` is a projection of the statement's own (outermost) SELECT."""
    select = node.parent.parent if isinstance(node.parent, exp.Alias) else node.parent
    return isinstance(select, exp.Select) and select.parent is None


def _is_projection(node: exp.Expression) -> bool:
    parent = node.parent
    return isinstance(parent, exp.Select) or (isinstance(parent, exp.Alias) and isinstance(parent.parent, exp.Select))


def _exact_numeric_parameters(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """`$1::numeric` → `$1`: DuckDB would cast to DECIMAL(18,3); the uncast Decimal keeps its exact digits. Same for
    `$1::numeric[]`, whose value is bound as the exact text of each element (portals); `_typed_parameters` decides
    where that text list needs a cast."""
    if (
        isinstance(node, exp.Cast)
        and isinstance(node.this, exp.Parameter | exp.Placeholder)
        and _is_unconstrained_decimal(node.to)
    ):
        return node.this
    return node


_NUMERIC_TEXT = re.compile(r"\s*(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|[+-]?inf(?:inity)?)\s*", re.I)


def _exact_numeric_literals(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """A projection `'1.50'::numeric` (or 'NaN') → the text PostgreSQL keeps of it (`'1e3'` is 1000), typed numeric
    by the planner: PostgreSQL keeps the literal's digits and NaN, which DuckDB's DECIMAL(18,3) cannot. So is
    `1.50::numeric` among the statement's own result columns (DuckDB would print 1.500, or fail past 18 digits).
    Inside an expression (`'1.123456'::numeric + 1`, `numeric '1.50'::text`) the literal becomes a DECIMAL of its
    own scale: DECIMAL(18,3) rounded it to 3 places (2.123, 1.500) where PostgreSQL keeps its digits (2.123456,
    1.50). Past DuckDB's 38 digits, or NaN / infinity, it is left to DuckDB."""
    if not (
        isinstance(node, exp.Cast)
        and isinstance(node.this, exp.Literal)
        and _is_unconstrained_decimal(node.to)
        and not node.to.is_type(exp.DataType.Type.ARRAY)
        and _NUMERIC_TEXT.fullmatch(node.this.this)
    ):
        return node
    written = numeric_input_text(node.this.this)
    if _is_projection(node) and (node.this.is_string or _result_select(node)):
        return exp.Literal.string(written)
    digits = written.lstrip("-")
    if not digits.replace(".", "").isdigit() or len(digits.replace(".", "")) > _DECIMAL_WIDTH:
        return node
    scale = len(digits.partition(".")[2])
    return exp.Cast(this=exp.Literal.string(written), to=exp.DataType.build(f"DECIMAL({_DECIMAL_WIDTH}, {scale})"))


_DECIMAL_WIDTH = 38  # DuckDB's widest DECIMAL


def _bytea_literals(node: exp.Expression, ctx: SessionContext) -> exp.Expression:
    """`'\\x00ff'::bytea` → `unhex('00ff')`: DuckDB reads a BLOB literal with its own escapes (`\\x00` is one byte
    there), PostgreSQL with bytea input syntax (hex `\\x…` or escape format). Decode at plan time with pgtypes'
    bytea reader, which raises PostgreSQL's errors for bad input."""
    if (
        isinstance(node, exp.Cast)
        and isinstance(node.this, exp.Literal)
        and node.this.is_string
        and node.to.is_type(exp.DataType.Type.VARBINARY, exp.DataType.Type.BINARY)
    ):
        value = decode_param(node.this.this.encode(), BYTEA_OID, 0)
        if isinstance(value, bytes):
            return exp.Unhex(this=exp.Literal.string(value.hex()))
    return node


TRANSFORMS: tuple[Transform, ...] = (
    inner_names,
    _current_database,
    _unqualify_builtins,
    _int4_results,
    _int4_series_tables,
    _bytea_literals,
    like_escapes,
    _session_info,
    *introspection.TRANSFORMS,
    _session_functions,
    _exact_numeric_parameters,
    _exact_numeric_literals,
)


def _apply(transform: Transform, ctx: SessionContext, node: exp.Expression) -> exp.Expression:
    return transform(node, ctx)


def _typed_parameters(tree: exp.Expression, duck_types: Sequence[str], nulls: bool) -> exp.Expression:
    def cast(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Parameter | exp.Placeholder):
            index = parameter_index(node)
            if index is not None and 1 <= index <= len(duck_types):
                duck_type = duck_types[index - 1]
                if nulls:
                    if duck_type.replace(" ", "").upper().startswith(UNCONSTRAINED_DECIMAL + "["):
                        duck_type = "DECIMAL(38,10)[]"
                    elif duck_type.upper() == UNCONSTRAINED_DECIMAL:
                        duck_type = "DECIMAL(38,10)"
                    return exp.Cast(this=exp.Null(), to=exp.DataType.build(duck_type, dialect="duckdb"))
                spelled = duck_type.replace(" ", "").upper()
                decimal_list = spelled == UNCONSTRAINED_DECIMAL + "[]"  # bound as exact element text
                if spelled == UNCONSTRAINED_DECIMAL or (decimal_list and _is_projection(node)):
                    return exp.Parameter(this=exp.Literal.number(index))
                if decimal_list:  # used as numbers
                    duck_type = "DECIMAL(38,10)[]"
                plain = exp.Parameter(this=exp.Literal.number(index))
                return exp.Cast(this=plain, to=exp.DataType.build(duck_type, dialect="duckdb"))
        return node

    return tree.transform(cast)


def to_duckdb_result(tree: exp.Expression, ctx: SessionContext, duck_param_types: Sequence[str] = ()) -> str:
    """`to_duckdb` of a query whose rows go to a client (`results_as_text`)."""
    return to_duckdb(tree, ctx, duck_param_types, results_as_text=True)


def parameter_index(node: exp.Expression) -> int | None:
    """The n of a `$n` node (sqlglot spells it Parameter or Placeholder), else None."""
    if isinstance(node, exp.Parameter | exp.Placeholder):
        text = node.this.name if isinstance(node.this, exp.Expression) else str(node.this or "")
        if text.isdigit():
            return int(text)
    return None


def parameter_count(tree: exp.Expression) -> int:
    indexes = [parameter_index(n) for n in tree.find_all(exp.Parameter, exp.Placeholder)]
    return max((i for i in indexes if i is not None), default=0)


def to_duckdb(
    tree: exp.Expression,
    ctx: SessionContext,
    duck_param_types: Sequence[str] = (),
    *,
    null_parameters: bool = False,
    columns: Columns | None = None,
    results_as_text: bool = False,
) -> str:
    """`null_parameters` replaces each `$n` by a NULL of its type: SQL to describe a statement with. `columns`: the
    user relations' column types, where known; `results_as_text`: the rows go to a client, so numeric quotients
    among them are PostgreSQL's exact text (translate/duckdb_numeric.py; not for views, CREATE TABLE AS, writes)."""
    # mz_now() not made a literal of the read timestamp yet (session/queries.py does): describing the statement
    out = constant_array_text(lower_div(lower_typeof(tree.copy(), columns)))  # pg_typeof, div, arrays as text,
    out = lower_format(out)  # format and the functions
    out = cast(exp.Expression, to_char_values(out, columns or {}, duckdb=True))  # to_char of intervals, numbers
    out = lower_functions(out, duckdb=True)  # the engines lack (translate/functions/)
    out = cast(exp.Expression, duckdb_interval_results(time_ops(out, columns or {}, duckdb=True), columns))  # time
    if mentions_mz_time(tree):  # and `x::mz_timestamp` as the engine's mz_timestamp type
        out = with_mz_timestamp_casts(with_read_ts(out, MZ_NOW_DESCRIBE_TS, "duckdb", columns), "duckdb", columns)
    pg_numerics(out, columns or {}, results_as_text)
    out = cast(exp.Expression, pg_semantics(out))  # a rule rewrites calls, never the root
    for transform in TRANSFORMS:
        out = out.transform(partial(_apply, transform, ctx), copy=False)  # `out` is already a copy
    if duck_param_types:
        out = _typed_parameters(out, duck_param_types, null_parameters)
    return out.sql(dialect="duckdb")
