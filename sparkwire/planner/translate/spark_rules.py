"""Tree rewrites that give a parsed PostgreSQL query PostgreSQL semantics once it is printed as Spark SQL.

Contract: every rule is a pure function `rule(expression) -> expression` over a PostgreSQL-parsed sqlglot tree
whose nodes carry types from `annotate_types` where they are known (`node.type`); rules may build nodes that only
the Spark generator can print (lambdas, Spark functions). `RULES` is the ordered tuple the translator applies.
`EARLY_RULES` run before type annotation (they reshape FROM items, whose aliases qualification would rename).
Each rule fixes one place where sqlglot's postgres -> spark output differs from PostgreSQL:

- integer_division: int / int truncates in PostgreSQL (Spark `/` gives a double) -> CAST(a DIV b AS int type)
- concatenation: concat() with non-text arguments (sqlglot's COALESCE(x, '') fails under ANSI), text spelling
- date_difference: date - date is integer days
- substring_bounds: a start before 1 counts the missing positions (Spark counts from the end)
- text_casts: float::text and timestamptz::text spelled as PostgreSQL prints them
- any_all: `x op ANY/ALL(array)` (sqlglot's lambda shadows the column `x`) and `= ANY(subquery)` -> IN
- ordered_array_agg: array_agg keeps NULLs, honours ORDER BY and is NULL over no rows (collect_list does none)
- distinct_on: DISTINCT ON with ORDER BY / LIMIT (sqlglot applies LIMIT before picking the first row)
- generate_series: PostgreSQL's empty result for an empty range and its column naming
- regexp_replace_flags: without 'g' only the first match is replaced; 'i' flag; \\1 back-references
- extract_fields: dow (0 = Sunday), isodow, epoch
- array_subscripts: arr[i] outside the array is NULL (Spark's ANSI subscript raises)
- result_types: bigint row_number/rank/dense_rank, numeric avg(integer) (EXTRACT's numeric is in extract_fields)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp
from sqlglot.optimizer.annotate_types import annotate_types

from sparkwire.planner.bind.naming import column_name

Rule = Callable[[exp.Expr], exp.Expr]

INTEGER_TYPES = frozenset({exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT})
FLOAT_TYPES = frozenset({exp.DType.FLOAT, exp.DType.DOUBLE})
DATETIME_TYPES = frozenset({exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ, exp.DType.DATE})


def type_of(node: exp.Expr) -> exp.DType | None:
    data_type = node.type
    if data_type is None or data_type.this == exp.DType.UNKNOWN:
        return None
    kind: exp.DType = data_type.this
    return kind


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _lambda(body: exp.Expr, *params: str) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(p) for p in params])


# ---- integer division -----------------------------------------------------------------------------------------


def integer_division(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Div):
            return node
        left, right = type_of(node.this), type_of(node.expression)
        if left not in INTEGER_TYPES or right not in INTEGER_TYPES:
            return node
        wide = exp.DType.BIGINT if exp.DType.BIGINT in (left, right) else exp.DType.INT
        result = exp.cast(exp.IntDiv(this=node.this, expression=node.expression), exp.DataType(this=wide))
        result.type = exp.DataType(this=wide)
        return exp.Paren(this=result) if isinstance(node.parent, exp.Binary) else result

    return tree.transform(rewrite, copy=False)


# ---- string concatenation --------------------------------------------------------------------------------------

TEXT_TYPES = frozenset({exp.DType.TEXT, exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.UNKNOWN})


def _as_text(node: exp.Expr, boolean_letter: bool = False) -> exp.Expr:
    """`node::text` when its type is known and not text (text_casts then spells it as PostgreSQL does)."""
    kind = type_of(node)
    if kind is None or kind in TEXT_TYPES or kind == exp.DType.ARRAY:
        return node
    if kind == exp.DType.BOOLEAN and boolean_letter:  # concat() prints with boolout: 't' / 'f' (|| casts: 'true')
        spelled = exp.Case(  # NULL stays NULL
            ifs=[
                exp.If(this=node, true=exp.Literal.string("t")),
                exp.If(this=exp.Not(this=node.copy()), true=exp.Literal.string("f")),
            ]
        )
        spelled.type = exp.DataType.build("text")
        return spelled
    cast = exp.Cast(this=node, to=exp.DataType.build("text"))
    cast.type = exp.DataType.build("text")
    return cast


def concatenation(tree: exp.Expr) -> exp.Expr:
    """concat() skips NULLs and `||` yields NULL, both printing non-text operands as PostgreSQL does; sqlglot's
    COALESCE(x, '') fails for a non-text x under ANSI mode."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if type(node) is exp.Concat:  # not ConcatWs, a subclass, which Spark implements as PostgreSQL does
            parts = [
                exp.Coalesce(this=exp.cast(_as_text(e, True), "text"), expressions=[exp.Literal.string("")])
                for e in node.expressions
            ]
            return _fn("concat", *parts)
        if isinstance(node, exp.DPipe):
            node.set("this", _as_text(node.this))
            node.set("expression", _as_text(node.expression))
        return node

    return tree.transform(rewrite, copy=False)


# ---- date arithmetic ---------------------------------------------------------------------------------------------


def date_difference(tree: exp.Expr) -> exp.Expr:
    """date - date is an integer number of days in PostgreSQL (Spark: an interval)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Sub) and type_of(node.this) == type_of(node.expression) == exp.DType.DATE:
            return _fn("datediff", node.this, node.expression)
        return node

    return tree.transform(rewrite, copy=False)


# ---- substring ---------------------------------------------------------------------------------------------------


def substring_bounds(tree: exp.Expr) -> exp.Expr:
    """substring(s, start[, n]) with start < 1 counts the positions before 1 (Spark counts from the end)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Substring) or node.args.get("start") is None:
            return node
        start = node.args["start"]
        if isinstance(start, exp.Literal) and not start.is_string and int(start.this) >= 1:
            return node
        one = exp.Literal.number(1)
        clamped = exp.Greatest(this=start.copy(), expressions=[one.copy()])
        length = node.args.get("length")
        if length is None:
            return exp.Substring(this=node.this, start=clamped)
        shortened = exp.Sub(
            this=exp.Add(this=length.copy(), expression=exp.Least(this=start.copy(), expressions=[one.copy()])),
            expression=one.copy(),
        )
        return exp.Substring(
            this=node.this, start=clamped, length=exp.Greatest(this=shortened, expressions=[exp.Literal.number(0)])
        )

    return tree.transform(rewrite, copy=False)


# ---- casts to text ---------------------------------------------------------------------------------------------


def _float_text(value: exp.Expr, kind: exp.DType) -> exp.Expr:
    """PostgreSQL prints floats shortest-round-trip, plain in [1e-4, 1e15) (1e6 for float4), else d.ddde+XX.

    Java's replacement "$10" is group 1 then "0" when there is no group 10."""
    plain_limit = "1e15" if kind == exp.DType.DOUBLE else "1e6"
    v = value.sql("spark")
    sql = (
        f"CASE WHEN isnan({v}) THEN 'NaN' "
        f"WHEN {v} = double('infinity') THEN 'Infinity' WHEN {v} = double('-infinity') THEN '-Infinity' "
        f"WHEN {v} = 0 THEN IF(CAST({v} AS STRING) LIKE '-%', '-0', '0') "
        f"WHEN abs({v}) >= 1e-4 AND abs({v}) < {plain_limit} THEN "
        f"regexp_replace(regexp_replace(CAST(CAST(CAST({v} AS STRING) AS DECIMAL(38, 20)) AS STRING), "
        f"'(\\\\.[0-9]*[1-9])0+$', '$1'), '\\\\.0+$', '') "
        f"ELSE regexp_replace(regexp_replace(regexp_replace(regexp_replace(CAST({v} AS STRING), "
        f"'\\\\.0E', 'E'), 'E([0-9])', 'e+$1'), 'E-', 'e-'), 'e([+-])([0-9])$', 'e$10$2') END"
    )
    parsed: exp.Expr = exp.maybe_parse(sql, dialect="spark")
    return exp.Paren(this=parsed)


def text_casts(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Cast) or node.to.this not in (exp.DType.TEXT, exp.DType.VARCHAR):
            return node
        source = type_of(node.this)
        if isinstance(node.this, exp.CurrentTimestamp):
            source = exp.DType.TIMESTAMPTZ
        if source in FLOAT_TYPES:
            return _float_text(node.this, source)
        if source == exp.DType.TIMESTAMPTZ:
            return exp.DPipe(this=node, expression=exp.Literal.string("+00"))
        return node

    return tree.transform(rewrite, copy=False)


def integer_casts(tree: exp.Expr) -> exp.Expr:
    """numeric → integer rounds half away from zero in PostgreSQL, float → integer rounds half to even (rint);
    Spark truncates both."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Cast) or node.to.this not in INTEGER_CASTS:
            return node
        source = type_of(node.this)
        inner = node.this
        while isinstance(inner, exp.Paren | exp.Neg):
            inner = inner.this
        literal = isinstance(inner, exp.Literal) and not inner.is_string  # 2.5 is numeric in PostgreSQL
        if source == exp.DType.DECIMAL or (literal and source in FLOAT_TYPES):
            node.set("this", _fn("ROUND", node.this.copy(), exp.Literal.number(0)))
        elif source in FLOAT_TYPES:
            node.set("this", _fn("BROUND", node.this.copy(), exp.Literal.number(0)))
        return node

    return tree.transform(rewrite, copy=False)


INTEGER_CASTS = frozenset({exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT})


# ---- ANY / ALL ---------------------------------------------------------------------------------------------------


def _quantified(node: exp.Expr) -> tuple[str, exp.Expression] | None:
    """('any' | 'all', operand) for the right side of a comparison, or None."""
    if isinstance(node, exp.Any):
        return "any", node.this
    if isinstance(node, exp.All):
        return "all", node.this
    if isinstance(node, exp.Anonymous) and str(node.this).lower() in ("any", "all") and len(node.expressions) == 1:
        return str(node.this).lower(), node.expressions[0]
    return None


def any_all(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)):
            return node
        quantified = _quantified(node.expression)
        if quantified is None:
            return node
        kind, operand = quantified
        operand = operand.this if isinstance(operand, exp.Paren) else operand
        if kind == "any" and isinstance(node, exp.EQ):
            if isinstance(operand, exp.Array):
                return exp.In(this=node.this, expressions=operand.expressions)
            if isinstance(operand, (exp.Subquery, exp.Select)):
                query = operand.this if isinstance(operand, exp.Subquery) else operand
                return exp.In(this=node.this, query=exp.Subquery(this=query))
        if isinstance(operand, (exp.Subquery, exp.Select)):
            return node
        element = "_sparkwire_e"
        compare = type(node)(this=node.this.copy(), expression=exp.column(element))
        return _fn("exists" if kind == "any" else "forall", operand, _lambda(compare, element))

    return tree.transform(rewrite, copy=False)


# ---- array_agg ---------------------------------------------------------------------------------------------------


def _compare_key(key: str, ordered: exp.Ordered) -> exp.Expr:
    """-1/0/1 comparing field `key` of structs l and r under one ORDER BY item (with its NULLS placement)."""
    desc = bool(ordered.args.get("desc"))
    nulls_first = bool(ordered.args.get("nulls_first"))
    null_left = "-1" if nulls_first else "1"
    null_right = "1" if nulls_first else "-1"
    less, greater = ("1", "-1") if desc else ("-1", "1")
    sql = (
        f"CASE WHEN l.{key} IS NULL AND r.{key} IS NULL THEN 0 WHEN l.{key} IS NULL THEN {null_left} "
        f"WHEN r.{key} IS NULL THEN {null_right} WHEN l.{key} < r.{key} THEN {less} "
        f"WHEN l.{key} > r.{key} THEN {greater} ELSE 0 END"
    )
    return exp.maybe_parse(sql, dialect="spark")


def _array_agg(node: exp.ArrayAgg) -> exp.Expr:
    inner = node.this
    order: list[exp.Ordered] = []
    if isinstance(inner, exp.Order):
        order = list(inner.expressions)
        inner = inner.this
    distinct = bool(node.args.get("distinct"))
    if isinstance(inner, exp.Distinct):  # array_agg(DISTINCT x ORDER BY x)
        inner, distinct = inner.expressions[0], True
    struct_args: list[exp.Expr] = []
    for i, ordered in enumerate(order):
        struct_args += [exp.Literal.string(f"k{i}"), ordered.this]
    struct_args += [exp.Literal.string("v"), inner]
    collected: exp.Expr = exp.ArrayAgg(this=_fn("named_struct", *struct_args))
    if distinct:
        collected = _fn("array_distinct", collected)
    if order:
        body: exp.Expr = exp.Literal.number(0)
        for i in reversed(range(len(order))):
            cmp = _compare_key(f"k{i}", order[i])
            body = exp.If(this=exp.NEQ(this=cmp, expression=exp.Literal.number(0)), true=cmp.copy(), false=body)
        collected = _fn("array_sort", collected, _lambda(body, "l", "r"))
    element_value = exp.Dot(this=exp.column("s"), expression=exp.to_identifier("v"))
    values = _fn("transform", collected, _lambda(element_value, "s"))
    empty = exp.EQ(this=_fn("size", collected.copy()), expression=exp.Literal.number(0))
    return exp.If(this=empty, true=exp.null(), false=values)


def _wrapped_array_agg(node: exp.Window | exp.Filter, rewrite: Rule) -> exp.Expr | None:
    """array_agg(…) FILTER (…) / OVER (…): the FILTER and the window go on each collect_list of the rewrite (on the
    whole IF(…) Spark refuses both: 42000, 42803)."""
    wrappers: list[exp.Window | exp.Filter] = []
    inner: exp.Expr = node
    while isinstance(inner, exp.Window | exp.Filter):
        wrappers.append(inner)
        inner = inner.this
    if not isinstance(inner, exp.ArrayAgg) or isinstance(inner.this, exp.Anonymous):
        return None
    replacement = rewrite(inner)
    for collected in list(replacement.find_all(exp.ArrayAgg)):
        wrapped: exp.Expr = collected.copy()
        for wrapper in reversed(wrappers):
            outer = wrapper.copy()
            outer.set("this", wrapped)
            wrapped = outer
        collected.replace(wrapped)
    return replacement


def ordered_array_agg(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Window | exp.Filter):
            return _wrapped_array_agg(node, rewrite) or node
        if isinstance(node, exp.ArrayAgg) and not isinstance(node.this, exp.Anonymous):
            if isinstance(node.this, exp.Distinct):
                distinct = node.this
                replacement = exp.ArrayAgg(this=distinct.expressions[0], distinct=True)
                return _array_agg(replacement)
            return _array_agg(node)
        return node

    return tree.transform(rewrite, copy=False)


# ---- DISTINCT ON -------------------------------------------------------------------------------------------------


def _resolve_output_reference(node: exp.Expr, projections: list[exp.Expr]) -> exp.Expr:
    """ORDER BY 2 / ORDER BY alias -> the projection's expression (PostgreSQL resolves both to outputs)."""
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        target = projections[int(node.this) - 1]
        chosen: exp.Expr = target.this if isinstance(target, exp.Alias) else target
        return chosen.copy()
    if isinstance(node, exp.Column) and not node.table:
        for projection in projections:
            if isinstance(projection, exp.Alias) and projection.alias == node.name:
                named: exp.Expr = projection.this
                return named.copy()
    return node.copy()


def filtered_by_window(
    select: exp.Select,
    clear: Sequence[str],
    window: Callable[[list[exp.Ordered]], exp.Expr],
    keep: exp.Expr,
    alias: str,
) -> exp.Select:
    """`select` (its `clear` clauses removed) under an outer SELECT: inside, its projections are `_p<i>`, its ORDER BY
    keys `_k<i>` and `window(ORDER BY keys)` is `_w`; the outer one keeps the rows where `keep` (over `_w`) holds,
    names the projections as `select` named them and orders by the keys. DISTINCT ON and FETCH … WITH TIES."""
    projections = list(select.expressions)
    order: list[exp.Ordered] = list(select.args["order"].expressions) if select.args.get("order") else []
    inner = select.copy()
    for key in clear:
        inner.set(key, None)
    names = [column_name(p) or "*" for p in projections]
    inner_projections: list[exp.Expr] = []
    for i, projection in enumerate(projections):
        value: exp.Expr = projection.this if isinstance(projection, exp.Alias) else projection
        inner_projections.append(exp.alias_(value.copy(), f"_p{i}"))
    window_order: list[exp.Ordered] = []
    outer_order: list[exp.Ordered] = []
    for i, ordered in enumerate(order):
        sort_key = _resolve_output_reference(ordered.this, projections)
        inner_projections.append(exp.alias_(sort_key.copy(), f"_k{i}"))
        item = ordered.copy()
        item.set("this", sort_key)
        window_order.append(item)
        outer_item = ordered.copy()
        outer_item.set("this", exp.column(f"_k{i}"))
        outer_order.append(outer_item)
    inner_projections.append(exp.alias_(window(window_order), "_w"))
    inner.set("expressions", inner_projections)
    outer = (
        exp.select(*[exp.alias_(exp.column(f"_p{i}"), name, quoted=True) for i, name in enumerate(names)])
        .from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(alias))))
        .where(keep)
    )
    if outer_order:
        outer.set("order", exp.Order(expressions=outer_order))
    return outer


def _distinct_on(select: exp.Select) -> exp.Expr:
    projections = list(select.expressions)
    on_exprs = [_resolve_output_reference(e, projections) for e in select.args["distinct"].args["on"].expressions]

    def first_row(order: list[exp.Ordered]) -> exp.Expr:
        return exp.Window(
            this=exp.RowNumber(), partition_by=on_exprs, order=exp.Order(expressions=order) if order else None
        )

    first = exp.EQ(this=exp.column("_w"), expression=exp.Literal.number(1))
    outer = filtered_by_window(select, ("distinct", "order", "limit", "offset"), first_row, first, "_distinct_on")
    outer.set("limit", select.args.get("limit"))
    outer.set("offset", select.args.get("offset"))
    return outer


def distinct_on(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Select) and node.args.get("distinct") and node.args["distinct"].args.get("on"):
            return _distinct_on(node)
        return node

    return tree.transform(rewrite, copy=False)


# ---- generate_series ---------------------------------------------------------------------------------------------


def _series_array(node: exp.Expr) -> exp.Expr:
    """sequence(start, stop, step), or an empty array where PostgreSQL's range is empty."""
    start, stop = node.args["start"], node.args["end"]
    step = node.args.get("step") or exp.Literal.number(1)
    sequence = _fn("sequence", start.copy(), stop.copy(), step.copy())
    if type_of(annotate_types(start.copy(), dialect="postgres")) in DATETIME_TYPES:
        non_empty: exp.Expr = exp.LTE(this=start.copy(), expression=stop.copy())
    else:
        ascending = exp.and_(
            exp.GT(this=step.copy(), expression=exp.Literal.number(0)),
            exp.LTE(this=start.copy(), expression=stop.copy()),
        )
        descending = exp.and_(
            exp.LT(this=step.copy(), expression=exp.Literal.number(0)),
            exp.GTE(this=start.copy(), expression=stop.copy()),
        )
        non_empty = exp.or_(ascending, descending)
    return exp.If(this=non_empty, true=sequence, false=_fn("array"))


def generate_series(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Table) and isinstance(node.this, (exp.ExplodingGenerateSeries, exp.GenerateSeries)):
            alias = node.args.get("alias")
            table_name = alias.name if alias is not None and alias.name else "generate_series"
            columns = alias.columns if alias is not None else []
            column = (
                columns[0].name if columns else (alias.name if alias is not None and alias.name else "generate_series")
            )
            select = exp.select(exp.alias_(exp.Explode(this=_series_array(node.this)), column, quoted=True))
            return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(table_name, quoted=True)))
        if isinstance(node, (exp.ExplodingGenerateSeries, exp.GenerateSeries)):  # an unnest's array: not exploded
            return _series_array(node) if isinstance(node.parent, exp.Unnest) else exp.Explode(this=_series_array(node))
        return node

    return tree.transform(rewrite, copy=False)


# ---- regexp_replace ----------------------------------------------------------------------------------------------


def _java_replacement(pg: str, shift: int) -> str:
    """PostgreSQL replacement text (\\1, \\&) -> Java's ($1, $0), with literal '$' escaped."""
    out: list[str] = []
    i = 0
    while i < len(pg):
        ch = pg[i]
        if ch == "\\" and i + 1 < len(pg):
            nxt = pg[i + 1]
            if nxt.isdigit():
                out.append(f"${int(nxt) + shift}")
            elif nxt == "&":
                out.append(f"${shift}" if shift else "$0")
            else:
                out.append("\\\\" if nxt == "\\" else nxt)
            i += 2
            continue
        out.append("\\$" if ch == "$" else ch)
        i += 1
    return "".join(out)


def regexp_replace_flags(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.RegexpReplace):
            return node
        modifiers = node.args.get("modifiers")
        flags = modifiers.name if isinstance(modifiers, exp.Literal) else ""
        pattern, replacement = node.expression, node.args.get("replacement")
        if not (isinstance(pattern, exp.Literal) and isinstance(replacement, exp.Literal)):
            return exp.RegexpReplace(this=node.this, expression=pattern, replacement=replacement)
        regex = pattern.name
        prefix = "(?i)" if "i" in flags else ""
        if "g" in flags:
            new_pattern, new_replacement = prefix + regex, _java_replacement(replacement.name, 0)
        else:
            new_pattern = f"{prefix}(?s)^(.*?)(?:{regex})"
            new_replacement = "$1" + _java_replacement(replacement.name, 1)
        return exp.RegexpReplace(
            this=node.this,
            expression=exp.Literal.string(new_pattern),
            replacement=exp.Literal.string(new_replacement),
        )

    return tree.transform(rewrite, copy=False)


# ---- EXTRACT fields ----------------------------------------------------------------------------------------------


def extract_fields(tree: exp.Expr) -> exp.Expr:
    """PostgreSQL's EXTRACT returns numeric: whole fields as DECIMAL(20, 0); Spark's SECOND is already
    DECIMAL(8, 6) and epoch is built as DECIMAL(38, 6) (DECIMAL(38, 0) of a date), PostgreSQL's scales."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Extract):
            return node
        field = node.name.upper()
        if field == "SECOND":
            return node
        if field == "EPOCH":  # numeric with 6 decimals (0 for a date, whose epoch is whole seconds)
            micros = _fn("unix_micros", exp.cast(node.expression, exp.DType.TIMESTAMPTZ))
            seconds = exp.Div(this=exp.cast(micros, "decimal(38, 6)"), expression=exp.Literal.number(1000000))
            scale = 0 if type_of(node.expression) == exp.DType.DATE else 6
            return exp.cast(seconds, f"decimal(38, {scale})")
        value: exp.Expr = node
        if field == "DOW":
            value = exp.Sub(this=node, expression=exp.Literal.number(1))
        elif field == "ISODOW":
            value = exp.Extract(this=exp.var("DAYOFWEEK_ISO"), expression=node.expression)
        return exp.cast(value, "decimal(20, 0)")

    return tree.transform(rewrite, copy=False)


# ---- result types --------------------------------------------------------------------------------------------------

BIGINT_WINDOW_FUNCTIONS = (exp.RowNumber, exp.Rank, exp.DenseRank)


def result_types(tree: exp.Expr) -> exp.Expr:
    """Types PostgreSQL reports differently: row_number/rank/dense_rank are bigint; avg of integers is numeric."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Window) and isinstance(node.this, BIGINT_WINDOW_FUNCTIONS):
            return exp.cast(node, exp.DType.BIGINT)
        if isinstance(node, exp.Avg) and isinstance(node.this, exp.Distinct):  # avg(DISTINCT integer)
            values = node.this.expressions
            if len(values) == 1 and type_of(values[0]) in INTEGER_TYPES:
                node.this.set("expressions", [exp.cast(values[0], "decimal(20, 0)")])
        elif isinstance(node, exp.Avg) and type_of(node.this) in INTEGER_TYPES:
            node.set("this", exp.cast(node.this, "decimal(20, 0)"))
        return node

    return tree.transform(rewrite, copy=False)


# ---- array subscripts ---------------------------------------------------------------------------------------------


def array_subscripts(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Bracket) or len(node.expressions) != 1:
            return node
        index = node.expressions[0]
        if isinstance(index, exp.Slice):
            return node
        # the parser already made the index 0-based; get() is 0-based and NULL outside the array
        return _fn("get", node.this, index)

    return tree.transform(rewrite, copy=False)


# Rules that reshape FROM items run before qualification, which would rename their aliases.
EARLY_RULES: tuple[Rule, ...] = (generate_series,)

RULES: tuple[Rule, ...] = (
    regexp_replace_flags,
    integer_division,
    concatenation,
    date_difference,
    substring_bounds,
    integer_casts,
    text_casts,
    any_all,
    ordered_array_agg,
    distinct_on,
    extract_fields,
    array_subscripts,
    result_types,
)
