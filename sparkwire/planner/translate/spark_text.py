"""PostgreSQL's text semantics on Spark (tree rules like spark_rules.py, applied after it).

- char_casts: `x::varchar(n)` / `x::char(n)` keep the first n characters (an explicit cast truncates in
  PostgreSQL; Spark's VARCHAR(n) cast keeps the whole string) and char(n) pads with spaces
- negative_lengths: left(s, -n) is all but the last n characters and right(s, -n) all but the first n (Spark: '')
- case_insensitive_regex: `~*` / `!~*` are RLIKE with (?i) (sqlglot prints REGEXP_I_LIKE, which Spark lacks)
- hex_case: to_hex() is lower case (Spark's hex(): upper case)
- posix_classes: `[[:alpha:]]` and the other POSIX bracket classes of a regular expression literal become Java's
  `\\p{Alpha}` (Java reads `[:alpha:]` as the characters ':', 'a', 'l', …)
- unicode_classes: every Spark regular expression starts with Java's `(?U)`, so `\\w`, `\\b`, `\\p{Alpha}`, `\\s` and
  case-insensitive matching know non-ASCII letters, as PostgreSQL's do in a UTF-8 LC_CTYPE (`'é' ~ '\\w'`); Java's
  classes are ASCII only without it
- spark_case_mapping: upper / lower one character at a time, as PostgreSQL (functions/case_mapping.py)
- byte_order_collations: `COLLATE "C"` / `"POSIX"` / `"default"` / `ucs_basic` are Spark's own order (UTF8_BINARY
  compares bytes, as the C collation does), so the clause is dropped (Spark knows no collation named C); any other
  collation is left to Spark, which refuses an unknown name with 42704 as PostgreSQL does
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from sparkwire.planner.translate.functions.case_mapping import spark_case_mapping

Rule = Callable[[exp.Expr], exp.Expr]


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _length(data_type: exp.DataType) -> int | None:
    if not data_type.expressions:
        return None
    size = data_type.expressions[0]
    value = size.this if isinstance(size, exp.DataTypeParam) else size
    text = value.name if isinstance(value, exp.Expr) else str(value)
    return int(text) if text.isdigit() else None


def char_casts(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Cast) or node.to.this not in (exp.DType.VARCHAR, exp.DType.CHAR):
            return node
        size = _length(node.to)
        if size is None:
            return node
        as_text = exp.cast(node.this, exp.DType.TEXT)
        kept: exp.Expr = exp.Substring(this=as_text, start=exp.Literal.number(1), length=exp.Literal.number(size))
        if node.to.this == exp.DType.CHAR:
            kept = _fn("rpad", kept, exp.Literal.number(size), exp.Literal.string(" "))
        result = exp.Cast(this=kept, to=node.to.copy())
        result.type = node.type
        return result

    return tree.transform(rewrite, copy=False)


def _negative_safe(node: exp.Left | exp.Right) -> exp.Expr:
    text, count = node.this, node.expression
    length = _fn("char_length", text.copy())
    if isinstance(node, exp.Left):
        negative: exp.Expr = exp.Substring(
            this=text.copy(),
            start=exp.Literal.number(1),
            length=exp.Greatest(
                this=exp.Add(this=length, expression=count.copy()), expressions=[exp.Literal.number(0)]
            ),
        )
    else:
        negative = exp.Substring(this=text.copy(), start=exp.Sub(this=exp.Literal.number(1), expression=count.copy()))
    positive = type(node)(this=text.copy(), expression=count.copy())
    case = exp.Case(
        ifs=[exp.If(this=exp.LT(this=count.copy(), expression=exp.Literal.number(0)), true=negative)], default=positive
    )
    return exp.Paren(this=case)


def negative_lengths(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Left | exp.Right):
            return node
        count = node.expression
        literal = count.this if isinstance(count, exp.Paren) else count
        if isinstance(literal, exp.Literal) and not literal.is_string:
            return node  # a written non-negative count: Spark agrees
        return _negative_safe(node)

    return tree.transform(rewrite, copy=False)


def hex_case(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Hex) and not isinstance(node.parent, exp.Lower):
            return exp.Lower(this=node)
        if isinstance(node, exp.Anonymous) and str(node.this).lower() == "to_hex":
            return exp.Lower(this=_fn("hex", *node.expressions))
        return node

    return tree.transform(rewrite, copy=False)


def case_insensitive_regex(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.RegexpILike):
            return node
        pattern = node.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            flagged: exp.Expr = exp.Literal.string("(?i)" + pattern.this)
        else:
            flagged = _fn("concat", exp.Literal.string("(?i)"), pattern)
        return exp.RegexpLike(this=node.this, expression=flagged)

    return tree.transform(rewrite, copy=False)


POSIX_CLASSES = {
    "alpha": r"\p{Alpha}",
    "digit": r"\p{Digit}",
    "alnum": r"\p{Alnum}",
    "upper": r"\p{Upper}",
    "lower": r"\p{Lower}",
    "space": r"\s",
    "punct": r"\p{Punct}",
    "xdigit": r"\p{XDigit}",
    "blank": r"\p{Blank}",
    "cntrl": r"\p{Cntrl}",
    "print": r"\p{Print}",
    "graph": r"\p{Graph}",
    "word": r"\w",
}
_POSIX = re.compile(r"\[:([a-z]+):\]")
REGEX_NODES = (
    exp.RegexpLike,
    exp.RegexpILike,
    exp.RegexpReplace,
    exp.RegexpExtract,
    exp.RegexpExtractAll,
    exp.RegexpSplit,
)
_UNICODE = "(?U)"


def _java_classes(pattern: str) -> str:
    return _POSIX.sub(lambda m: POSIX_CLASSES.get(m.group(1), m.group(0)), pattern)


def posix_classes(tree: exp.Expr) -> exp.Expr:
    for node in tree.find_all(*REGEX_NODES):
        pattern = node.args.get("expression")
        if isinstance(pattern, exp.Literal) and pattern.is_string and "[:" in pattern.this:
            pattern.replace(exp.Literal.string(_java_classes(pattern.this)))
    return tree


def unicode_classes(tree: exp.Expr) -> exp.Expr:
    for node in tree.find_all(*REGEX_NODES):
        pattern = node.args.get("expression")
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            if not pattern.this.startswith(_UNICODE):
                pattern.replace(exp.Literal.string(_UNICODE + pattern.this))
        elif isinstance(pattern, exp.Expr):
            pattern.replace(_fn("concat", exp.Literal.string(_UNICODE), pattern.copy()))
    return tree


# char_casts runs before spark_rules (spark_semantics.PRE_RULES): its cast to text is then spelled as PostgreSQL
# spells a float (spark_rules.text_casts)
_BYTE_ORDER_COLLATIONS = frozenset({"c", "posix", "default", "ucs_basic"})


def byte_order_collations(tree: exp.Expr) -> exp.Expr:
    def drop(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Collate) and node.expression.name.lower() in _BYTE_ORDER_COLLATIONS:
            collated: exp.Expr = node.this
            return collated
        return node

    return tree.transform(drop, copy=False)


TEXT_RULES: tuple[Rule, ...] = (
    negative_lengths,
    hex_case,
    case_insensitive_regex,
    posix_classes,
    unicode_classes,
    byte_order_collations,
    spark_case_mapping,
)
