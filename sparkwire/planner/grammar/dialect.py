"""The PostgreSQL dialect sparkwire parses with: sqlglot's postgres dialect plus the type names it lacks.

Contract: `PG` is a sqlglot Dialect class to pass as `read=`/`dialect=` wherever planner code parses PostgreSQL
or prints a type back in PostgreSQL spelling. It adds `oid` as a type (sqlglot's postgres dialect cannot parse
`$1::oid[]`, which drivers such as asyncpg send): it reads as an unsigned 32-bit integer and prints as `oid`.
Identifiers named `oid` (pg_catalog columns) still parse as identifiers. Arrays of the OID alias types parse
(`proargtypes::regtype[]`, as pgcli writes it; sqlglot stops after `regtype`): an ARRAY DataType whose element is
the ObjectIdentifier. An interval literal of several parts keeps them all (`INTERVAL '1 day 02:03:04'`; sqlglot
keeps only `'1' DAY` when one "number unit" pair is found in a longer string), spelled in unit words both engines
read (`'1 days 7384 seconds'`: the same days and microseconds, which is what PostgreSQL keeps and prints), and a
unit PostgreSQL abbreviates (`INTERVAL '1 mon'`, `'3 hrs'`) by its full name. `concat()` with no argument is
42883, as in PostgreSQL (sqlglot cannot build it: 42601). The prefix operator `@ x` is abs(x) (sqlglot read a
parameter: `@ -5` was 42601). CUBE, ROLLUP and GROUPING SETS take any expression (`ROLLUP (a, b > 30)`; sqlglot
stopped at a comparison).
The operators after a typed literal apply to its typed value (`date '2024-01-15'::text` is text; sqlglot cast the
string to text first and typed the result date). Keywords stand as column labels where PostgreSQL lets them
(labels.py). An EXTRACT written `date_part(…)` carries
`meta[DATE_PART]` (the two differ only in their result type).
"""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.postgres import Postgres
from sqlglot.expressions.builders import INTERVAL_STRING_RE
from sqlglot.generators.postgres import PostgresGenerator
from sqlglot.parsers.postgres import PostgresParser
from sqlglot.tokenizer_core import Token, TokenType

from sparkwire.errors import InvalidDatetimeFormat, UndefinedFunction
from sparkwire.pgtypes.interval import parse_interval
from sparkwire.planner.grammar.labels import relabel

DATE_PART = "date_part"  # meta key of an Extract node written date_part(field, source)


def _concat(args: list[exp.Expr], dialect: Dialect) -> exp.Expr:
    """concat(…) as sqlglot builds it; concat() is PostgreSQL's 42883 (it has only a variadic overload)."""
    if not args:
        raise UndefinedFunction(
            "function concat() does not exist",
            hint="No function matches the given name and argument types. You might need to add explicit type casts.",
        )
    return PostgresParser.FUNCTIONS["CONCAT"](args, dialect)  # type: ignore[no-any-return]


class PG(Postgres):
    class Tokenizer(Postgres.Tokenizer):
        KEYWORDS: ClassVar = {**Postgres.Tokenizer.KEYWORDS, "OID": TokenType.UINT}

    class Parser(PostgresParser):
        FUNCTIONS: ClassVar = {**PostgresParser.FUNCTIONS, "CONCAT": _concat}

        def parse(self, raw_tokens: list[Token], sql: str) -> list[exp.Expr | None]:
            return super().parse(relabel(raw_tokens), sql)  # keywords as column labels (labels.py)

        def _parse_types(
            self,
            check_func: bool = False,
            schema: bool = False,
            allow_identifiers: bool = True,
            with_collation: bool = False,
        ) -> exp.Expr | None:
            parsed = super()._parse_types(check_func, schema, allow_identifiers, with_collation)
            if check_func and not allow_identifiers and isinstance(parsed, exp.DataType):
                self._literal_ops = self._curr is not None and self._curr.token_type == TokenType.STRING
            while isinstance(parsed, exp.DataType) and _is_object_identifier(parsed):
                if not self._match_pair(TokenType.L_BRACKET, TokenType.R_BRACKET):
                    break
                parsed = exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[parsed], nested=True)
            return parsed

        def _parse_type(self, parse_interval: bool = True, fallback_to_identifier: bool = False) -> exp.Expr | None:
            """`date '2024-01-15'::text` is the typed literal cast to text (sqlglot applied the `::text` to the
            string and typed the result date): the operators after a typed literal apply to the typed value."""
            self._literal_ops = False
            parsed = super()._parse_type(parse_interval, fallback_to_identifier)
            if getattr(self, "_deferred_ops", False) and parsed is not None:
                self._deferred_ops = False
                return self._parse_column_ops(parsed)
            return parsed

        def _parse_column_ops(self, this: exp.Expr | None) -> exp.Expr | None:
            if getattr(self, "_literal_ops", False):  # the string of a typed literal: its operators come after it
                self._literal_ops = False
                if isinstance(this, exp.Literal) and this.is_string:
                    self._deferred_ops = True
                    return this
            return super()._parse_column_ops(this)

        def _parse_interval_span(self, this: exp.Expr, parse_function_unit: bool = True) -> exp.Interval:
            interval = super()._parse_interval_span(this, parse_function_unit)
            text = this.name if isinstance(this, exp.Literal) and this.is_string else None
            unit = interval.args.get("unit")
            if isinstance(unit, exp.Var) and unit.name.lower() in _UNIT_ABBREVIATIONS:
                unit.set("this", _UNIT_ABBREVIATIONS[unit.name.lower()])  # '1 mon': MONTH, as both engines read
            if text is not None and interval.this is not this and not INTERVAL_STRING_RE.fullmatch(text):
                # more than the one pair sqlglot kept: PostgreSQL reads the whole text
                interval.set("this", exp.Literal.string(_unit_words(text)))
                interval.set("unit", None)
                interval.set("fraction_in_string", None)
            return interval

        def _parse_parameter(self) -> exp.Expr:  # type: ignore[override]
            if self._prev.text != "@":
                return super()._parse_parameter()
            operand = self._parse_bitwise()  # `@ -5 + 1`: a prefix operator binds looser than + and -
            if operand is None:
                self.raise_error("Expected an expression after @")
            return exp.Abs(this=operand)

        def _parse_cube_or_rollup(self, with_prefix: bool = False) -> exp.Cube | exp.Rollup | None:
            if with_prefix or not self._match_set((TokenType.CUBE, TokenType.ROLLUP)):
                return super()._parse_cube_or_rollup(with_prefix)
            kind: type[exp.Cube | exp.Rollup] = exp.Cube if self._prev.token_type == TokenType.CUBE else exp.Rollup
            return self.expression(kind(expressions=self._parse_wrapped_csv(self._parse_disjunction)))

        def _parse_grouping_set(self) -> exp.Expr | None:  # any expression, as in ROLLUP (a > 30)
            return self._parse_grouping_sets() or self._parse_cube_or_rollup() or self._parse_disjunction()

        def _parse_date_part(self) -> exp.Expr:
            parsed = super()._parse_date_part()
            parsed.meta[DATE_PART] = True  # date_part() is double precision where EXTRACT is numeric
            return parsed

    class Generator(PostgresGenerator):
        TYPE_MAPPING: ClassVar = {**PostgresGenerator.TYPE_MAPPING, exp.DataType.Type.UINT: "OID"}


# PostgreSQL's unit abbreviations sqlglot keeps as written (INTERVAL '1' MON), by the unit both engines read
_UNIT_ABBREVIATIONS = {
    **dict.fromkeys(("y", "yr", "yrs"), "YEAR"),
    **dict.fromkeys(("mon", "mons"), "MONTH"),
    **dict.fromkeys(("hr", "hrs"), "HOUR"),
    **dict.fromkeys(("min", "mins"), "MINUTE"),
    **dict.fromkeys(("sec", "secs"), "SECOND"),
    **dict.fromkeys(("msec", "msecs"), "MILLISECOND"),
    **dict.fromkeys(("usec", "usecs", "us"), "MICROSECOND"),
}


def _is_object_identifier(datatype: exp.Expr) -> bool:
    """An OID alias type (`regtype`), or an array of one (`regtype[]`, so that `regtype[][]` parses too)."""
    while isinstance(datatype, exp.DataType) and datatype.is_type(exp.DataType.Type.ARRAY) and datatype.expressions:
        datatype = datatype.expressions[0]
    return isinstance(datatype, exp.ObjectIdentifier)


def _unit_words(text: str) -> str:
    """PostgreSQL interval input (`1 day 02:03:04`) as unit words; text with months, or invalid, stays as it is."""
    try:
        value = parse_interval(text)
    except InvalidDatetimeFormat:
        return text
    if value.months:
        return text
    seconds = Decimal(value.micros).scaleb(-6).normalize()
    return f"{value.days} days {seconds:f} seconds"
