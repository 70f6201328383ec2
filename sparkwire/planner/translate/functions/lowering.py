"""PostgreSQL functions neither DuckDB nor Spark has, lowered into expressions both translators print.

Contract: `lower_functions(tree)` rewrites a PostgreSQL-parsed sqlglot tree in place and returns it; both
translators call it first (translate/duckdb.py `to_duckdb`, translate/spark.py `to_spark_sql`), so the DuckDB
description of a query over user tables and its Spark values come from the same expression. Each rule builds
sqlglot nodes with PostgreSQL's meaning that both generators print (LogicalAnd, Case, Replace, RegexpExtract, …):

- every(x) → bool_and(x);
- quote_literal(x) → x as text between single quotes, quotes doubled, and with an E prefix and doubled
  backslashes when it has a backslash (PostgreSQL's quote_literal); quote_nullable(x) → 'NULL' for NULL;
  quote_ident(x) → x bare when it is lower-case ASCII letters, digits and `_` (no leading digit) and no keyword but
  an unreserved one, else double-quoted with quotes doubled;
- width_bucket(x, low, high, count) → PostgreSQL's float8 bucket arithmetic as a CASE: 0 below the range,
  count + 1 above it (the bounds may be given in either order); an integer;
- scale(x) → the number of digits after the point in x's text, min_scale(x) → the same without trailing zeros;
  integers (PostgreSQL prints a numeric with its display scale, so its text is the scale); trim_scale(x) → x's text
  without trailing fractional zeros: a result column keeps that text (described as numeric, bind/output_types.py),
  elsewhere it is cast back to numeric;
- regexp_match(s, pattern) with a written pattern (and no flags, or 'i'): NULL without a match, else the array
  of its capture groups (of the whole match when the pattern has none); each group one regexp_extract;
- regexp_matches(s, pattern[, flags]) in a select list → an unnest: with 'g' of every match (patterns of at most
  one capture group), else of the first match's regexp_match array (no row without a match);
- regexp_substr(s, pattern) → the first match (regexp_extract's group 0), NULL without one; substring(s FROM
  'pattern') (a written text start is a regular expression) → its first capture group, or the whole match;
- regexp_split_to_table(s, pattern) → unnest(regexp_split_to_array(s, pattern)): in FROM a lateral unnest whose
  column takes the alias, in a select list an unnest (Spark's regexp_split_to_array: functions/spark_arrays.py).
generate_series in a join's FROM item → a lateral unnest named by its alias (functions/series_in_from.py);
encode / decode (hex, base64), convert_to / convert_from (UTF8) → the engines' own (functions/binary_strings.py);
`(s1, e1) OVERLAPS (s2, e2)` → PostgreSQL's overlaps_timestamp as a CASE (functions/overlaps.py).
Typed literals PostgreSQL reads and the engines do not (free-form dates, ISO 8601 intervals, `::name`) are
respelled first (functions/typed_literals.py).
Calls these rules cannot express (another arity, a pattern that is not a literal, other flags) are left as
written and fail as before (42883).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from sqlglot import exp

from sparkwire.catalog.relations.pg_keywords import KEYWORDS
from sparkwire.planner.translate.functions.binary_strings import binary_strings
from sparkwire.planner.translate.functions.duckdb_to_char import duckdb_to_char
from sparkwire.planner.translate.functions.intervals.justify import duckdb_interval_text, duckdb_justify, spark_justify
from sparkwire.planner.translate.functions.overlaps import overlaps
from sparkwire.planner.translate.functions.series_in_from import series_in_from
from sparkwire.planner.translate.functions.typed_literals import typed_literals

Lowering = Callable[[list[exp.Expr]], exp.Expr | None]
Tree = TypeVar("Tree", bound=exp.Expr)
_QUOTED_KEYWORDS = frozenset(word for word, catcode, _ in KEYWORDS if catcode != "U")  # as quote_ident quotes


def _text(node: exp.Expr) -> exp.Expr:
    return node if isinstance(node, exp.Literal) and node.is_string else exp.cast(node, "text")


def _string(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _concat(*parts: exp.Expr) -> exp.Expr:
    out = parts[0]
    for part in parts[1:]:
        out = exp.DPipe(this=out, expression=part)
    return out


def _quote_literal(args: list[exp.Expr]) -> exp.Expr | None:
    if len(args) != 1:
        return None
    value = _text(args[0])
    quotes_doubled = exp.Replace(this=value.copy(), expression=_string("'"), replacement=_string("''"))
    both_doubled = exp.Replace(
        this=exp.Replace(this=value.copy(), expression=_string("\\"), replacement=_string("\\\\")),
        expression=_string("'"),
        replacement=_string("''"),
    )
    has_backslash = exp.GT(this=exp.StrPosition(this=value.copy(), substr=_string("\\")), expression=_number(0))
    return exp.Paren(
        this=exp.Case(
            ifs=[exp.If(this=has_backslash, true=_concat(_string("E'"), both_doubled, _string("'")))],
            default=_concat(_string("'"), quotes_doubled, _string("'")),
        )
    )


def _quote_ident(args: list[exp.Expr]) -> exp.Expr | None:
    if len(args) != 1:
        return None
    value = _text(args[0])
    plain = exp.and_(
        exp.RegexpLike(this=value.copy(), expression=_string("^[a-z_][a-z0-9_]*\\z")),
        exp.not_(exp.In(this=value.copy(), expressions=[_string(word) for word in sorted(_QUOTED_KEYWORDS)])),
    )
    quoted = _concat(
        _string('"'), exp.Replace(this=value.copy(), expression=_string('"'), replacement=_string('""')), _string('"')
    )
    return exp.Paren(this=exp.Case(ifs=[exp.If(this=plain, true=value.copy())], default=quoted))


def _quote_nullable(args: list[exp.Expr]) -> exp.Expr | None:
    quoted = _quote_literal(args)
    return exp.Coalesce(this=quoted, expressions=[_string("NULL")]) if quoted is not None else None


def _number(value: int) -> exp.Expr:
    return exp.Literal.number(value)


def _double(node: exp.Expr) -> exp.Expr:
    return exp.cast(node.copy(), "double precision")


def _bucket(count: exp.Expr, offset: exp.Expr, span: exp.Expr) -> exp.Expr:
    """(int) (count * (offset / span)), at most count - 1, plus one: PostgreSQL's width_bucket_float8."""
    fraction = exp.Div(this=exp.Paren(this=offset), expression=exp.Paren(this=span))
    whole = exp.cast(exp.Floor(this=exp.Mul(this=_double(count), expression=exp.Paren(this=fraction))), "int")
    return exp.Case(
        ifs=[exp.If(this=exp.GTE(this=whole, expression=count.copy()), true=count.copy())],
        default=exp.Add(this=whole.copy(), expression=_number(1)),
    )


def _outside(
    x: exp.Expr,
    lo: exp.Expr,
    hi: exp.Expr,
    count: exp.Expr,
    before: type[exp.Binary],
    beyond: type[exp.Binary],
    inside: exp.Expr,
) -> exp.Expr:
    """0 before the range's first bound, count + 1 from its second on, else `inside`."""
    above = exp.Add(this=count.copy(), expression=_number(1))
    return exp.Case(
        ifs=[
            exp.If(this=before(this=x.copy(), expression=lo.copy()), true=_number(0)),
            exp.If(this=beyond(this=x.copy(), expression=hi.copy()), true=above),
        ],
        default=inside.copy(),
    )


def _width_bucket(node: exp.WidthBucket) -> exp.Expr | None:
    value, low, high, count = (node.args.get(k) for k in ("this", "min_value", "max_value", "num_buckets"))
    if not all(isinstance(a, exp.Expr) for a in (value, low, high, count)) or node.args.get("threshold"):
        return None
    assert isinstance(value, exp.Expr) and isinstance(low, exp.Expr)
    assert isinstance(high, exp.Expr) and isinstance(count, exp.Expr)
    x, lo, hi = _double(value), _double(low), _double(high)
    # (lo - x) / (lo - hi) of a falling range is (x - lo) / (hi - lo) to the last bit: both signs flip exactly
    inside = _bucket(count, exp.Sub(this=x.copy(), expression=lo.copy()), exp.Sub(this=hi.copy(), expression=lo.copy()))
    rising = _outside(x, lo, hi, count, exp.LT, exp.GTE, inside)
    falling = _outside(x, lo, hi, count, exp.GT, exp.LTE, inside)
    return exp.Paren(
        this=exp.Case(
            ifs=[
                exp.If(this=exp.LT(this=lo.copy(), expression=hi.copy()), true=rising),
                exp.If(this=exp.GT(this=lo.copy(), expression=hi.copy()), true=falling),
            ]
        )
    )


def _fraction_digits(value: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this="split_part", expressions=[exp.cast(value.copy(), "text"), _string("."), _number(2)])


def _scale(args: list[exp.Expr]) -> exp.Expr | None:
    if len(args) != 1:
        return None
    return exp.cast(exp.Length(this=_fraction_digits(args[0])), "int")


def _min_scale(args: list[exp.Expr]) -> exp.Expr | None:
    if len(args) != 1:
        return None
    trimmed = exp.Trim(this=_fraction_digits(args[0]), expression=_string("0"), position="TRAILING")
    return exp.cast(exp.Length(this=trimmed), "int")


def _trim_scale(node: exp.Anonymous) -> exp.Expr | None:
    """trim_scale(x): x's text without trailing fractional zeros (and without a point left bare). A result column
    keeps that text (it is described as numeric, pg_function_types, and a numeric result's text is its value, with
    its own scale); inside an expression it is cast back to numeric."""
    args = list(node.expressions)
    if len(args) != 1:
        return None
    text = exp.cast(args[0].copy(), "text")
    zeros = exp.Trim(this=text.copy(), expression=_string("0"), position="TRAILING")
    trimmed = exp.Trim(this=zeros, expression=_string("."), position="TRAILING")
    has_point = exp.GT(this=exp.StrPosition(this=text.copy(), substr=_string(".")), expression=_number(0))
    value = exp.Paren(this=exp.Case(ifs=[exp.If(this=has_point, true=trimmed)], default=text.copy()))
    projected = isinstance(node.parent, exp.Select) or (
        isinstance(node.parent, exp.Alias) and isinstance(node.parent.parent, exp.Select)
    )
    return value if projected else exp.cast(value, "numeric")


def capture_groups(pattern: str) -> int:
    """The capturing groups of a regular expression: `(` outside brackets, not escaped, not `(?`."""
    groups, i, in_bracket = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_bracket:
            in_bracket = ch != "]"
        elif ch == "[":
            in_bracket = True
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif ch == "(" and pattern[i + 1 : i + 2] != "?":
            groups += 1
        i += 1
    return groups


def _regexp_match(args: list[exp.Expr]) -> exp.Expr | None:
    if len(args) not in (2, 3) or not (isinstance(args[1], exp.Literal) and args[1].is_string):
        return None
    pattern = args[1].name
    if len(args) == 3:
        flags = args[2]
        if not (isinstance(flags, exp.Literal) and flags.is_string and flags.name in ("", "i")):
            return None
        pattern = ("(?i)" if flags.name else "") + pattern
    regex = _string(pattern)
    groups = capture_groups(args[1].name)
    extracts = [
        exp.RegexpExtract(this=args[0].copy(), expression=regex.copy(), group=_number(g))
        for g in (range(1, groups + 1) if groups else [0])
    ]
    matches = exp.RegexpLike(this=args[0].copy(), expression=regex.copy())
    return exp.Paren(this=exp.Case(ifs=[exp.If(this=matches, true=exp.Array(expressions=extracts))]))


def _regexp_matches(args: list[exp.Expr]) -> exp.Expr | None:
    """regexp_matches(s, pattern[, flags]) in a select list: one row per match with 'g' (a pattern of at most one
    capture group: that group's, or the whole match, as a one-element array), else one row for the first match (the
    regexp_match array), none without a match."""
    flags = args[2] if len(args) == 3 else _string("")
    if len(args) not in (2, 3) or not (isinstance(flags, exp.Literal) and flags.is_string):
        return None
    if "g" not in flags.name:
        first = _regexp_match([*args[:2], _string(flags.name.replace("g", ""))])
        if first is None:
            return None
        matches = exp.RegexpLike(this=args[0].copy(), expression=args[1].copy())
        return exp.Explode(this=exp.Case(ifs=[exp.If(this=matches, true=exp.Array(expressions=[first]))]))
    pattern = args[1]
    if flags.name != "g" or not (isinstance(pattern, exp.Literal) and pattern.is_string):
        return None
    groups = capture_groups(pattern.name)
    if groups > 1:
        return None
    every = exp.RegexpExtractAll(this=args[0].copy(), expression=pattern.copy(), group=_number(groups))
    element = exp.to_identifier("_sparkwire_m")
    one_array = exp.Lambda(this=exp.Array(expressions=[exp.column(element)]), expressions=[element])
    return exp.Explode(this=exp.Transform(this=every, expression=one_array))


def _regexp_substr(node: exp.RegexpSubstr) -> exp.Expr | None:
    """regexp_substr(s, pattern): the first match, NULL without one."""
    if any(node.args.get(k) is not None for k in ("position", "occurrence", "parameters", "group")):
        return None
    value, pattern = node.this, node.expression
    matches = exp.RegexpLike(this=value.copy(), expression=pattern.copy())
    first = exp.RegexpExtract(this=value.copy(), expression=pattern.copy(), group=_number(0))
    return exp.Paren(this=exp.Case(ifs=[exp.If(this=matches, true=first)]))


def _regex_substring(node: exp.Substring) -> exp.Expr | None:
    """substring(s FROM 'pattern'): a written text start is a regular expression (PostgreSQL's textregexsubstr):
    its first capture group, or the whole match when it has none; NULL without a match."""
    start = node.args.get("start")
    if not (isinstance(start, exp.Literal) and start.is_string) or node.args.get("length") is not None:
        return None
    group = 1 if capture_groups(start.name) else 0
    matches = exp.RegexpLike(this=node.this.copy(), expression=start.copy())
    found = exp.RegexpExtract(this=node.this.copy(), expression=start.copy(), group=_number(group))
    return exp.Paren(this=exp.Case(ifs=[exp.If(this=matches, true=found)]))


def _split_to_array(args: list[exp.Expr]) -> exp.Expr:
    return exp.Anonymous(this="regexp_split_to_array", expressions=[a.copy() for a in args])


def _split_to_table(node: exp.Table) -> exp.Expr | None:
    """`FROM …, regexp_split_to_table(s, pattern) [AS] t`: a lateral unnest of regexp_split_to_array, its column
    named as the alias (a function in FROM is lateral, and its one column takes the table alias)."""
    call = node.this
    if (
        not isinstance(call, exp.Anonymous)
        or call.name.lower() != "regexp_split_to_table"
        or len(call.expressions) != 2
    ):
        return None
    alias = node.args.get("alias")
    name = alias.name if isinstance(alias, exp.TableAlias) and alias.name else "regexp_split_to_table"
    columns = list(alias.columns) if isinstance(alias, exp.TableAlias) and alias.columns else [exp.to_identifier(name)]
    return exp.Lateral(
        this=exp.Unnest(expressions=[_split_to_array(list(call.expressions))]),
        alias=exp.TableAlias(this=exp.to_identifier(name), columns=columns),
    )


_BY_NAME: dict[str, Lowering] = {
    "every": lambda args: exp.LogicalAnd(this=args[0]) if len(args) == 1 else None,
    "quote_ident": _quote_ident,
    "quote_literal": _quote_literal,
    "quote_nullable": _quote_nullable,
    "scale": _scale,
    "min_scale": _min_scale,
    "regexp_match": _regexp_match,
    "regexp_matches": _regexp_matches,
    "regexp_split_to_table": lambda args: exp.Explode(this=_split_to_array(args)) if len(args) == 2 else None,
}


def _lower(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.WidthBucket):
        return _width_bucket(node) or node
    if isinstance(node, exp.RegexpSubstr):
        return _regexp_substr(node) or node
    if isinstance(node, exp.Substring):
        return _regex_substring(node) or node
    if isinstance(node, exp.Table):
        return _split_to_table(node) or node
    if isinstance(node, exp.Overlaps):
        return overlaps(node) or node
    if isinstance(node, exp.Dot) and isinstance(node.this, exp.Identifier) and node.this.name.lower() == "pg_catalog":
        call = node.expression  # pg_catalog.quote_ident(x): the call, lowered, replaces the qualified name
        lowered = _lower(call) if isinstance(call, exp.Anonymous) else call
        return lowered if lowered is not call else node
    if isinstance(node, exp.Anonymous) and node.name.lower() == "trim_scale":
        return _trim_scale(node) or node
    if isinstance(node, exp.Anonymous):
        lowering = _BY_NAME.get(node.name.lower())
        lowered = lowering(list(node.expressions)) if lowering is not None else None
        return lowered if lowered is not None else node
    return node


def _duckdb_json_agg(node: exp.Expr) -> exp.Expr:
    """json_agg(x [ORDER BY …]) is DuckDB's to_json(list(x [ORDER BY …])) (typed json)."""
    if isinstance(node, exp.JSONArrayAgg):
        return exp.Anonymous(this="to_json", expressions=[exp.Anonymous(this="list", expressions=[node.this])])
    return node


def lower_functions(tree: Tree, duckdb: bool = False) -> Tree:
    """`duckdb`: the tree is for DuckDB, which also takes json_agg as to_json(list(…)) (Spark: spark_arrays.py)
    and justify_* through an engine function (functions/intervals/justify.py)."""
    out: exp.Expr = typed_literals(tree)  # date, interval and name literals as PostgreSQL reads them
    out = binary_strings(out)  # encode / decode / convert_to / convert_from (functions/binary_strings.py)
    out = series_in_from(out, duckdb)  # generate_series as a lateral join item (functions/series_in_from.py)
    if duckdb:  # an interval's text before its justify_* calls are lowered (they tell it is an interval)
        out = duckdb_to_char(duckdb_interval_text(out))  # and to_char's template (functions/duckdb_to_char.py)
    out = duckdb_justify(out) if duckdb else spark_justify(out)  # justify_hours, _days, _interval (justify.py)
    if duckdb and any(isinstance(n, exp.JSONArrayAgg) for n in out.walk()):
        out = out.transform(_duckdb_json_agg, copy=False)
    lowered = exp.WidthBucket | exp.RegexpSubstr | exp.Substring | exp.Anonymous | exp.Overlaps
    if any(isinstance(n, lowered) for n in out.walk()):
        out = out.transform(_lower, copy=False)
    return cast(Tree, out)  # the root is never replaced: only calls and FROM items are
