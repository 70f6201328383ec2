"""The input syntax of typed string literals, as PostgreSQL reads them: `'42'::int`, `int4 '42'`, `bool 'on'`.

Contract: `literal_inputs(tree)` reads every cast of a string literal to an integer type, a float type or boolean
with PostgreSQL 15's input function, at plan time as PostgreSQL does (it converts a typed literal while it parses
the statement): an integer is optional spaces, a sign and decimal digits (`'42.5'`, `'0x10'`: 22P02; out of the
type's range: 22003); a float out of range is 22003; a boolean is a prefix of true/false/yes/no/on/off or 1/0,
any case, spaces around (else 22P02) and becomes that boolean; `'NaN'::numeric` (or infinity) cast to an integer type
is 0A000 `cannot convert NaN to integer`. `check_literal_inputs(tree)` raises the same errors and changes nothing.
DuckDB rounds `'42.5'::int`, reads hex, answers `'1e400'::float8` with Infinity and knows no `'on'`/`'off'`.
`exponent_literals(tree)`: a number written with an exponent (`1e3`, `1.5e-3`) is numeric in PostgreSQL, DuckDB
reads a double: it becomes the same number written out (`1000.`, `0.0015`) where it takes at most 18 digits, as
PostgreSQL's numeric would print it.
`set_operation_literals(tree)`: in a UNION / INTERSECT / EXCEPT whose other branches give a column integers written
as such, a string literal of that column is read as an integer, as PostgreSQL resolves an unknown literal to the
column's type (`SELECT 1 UNION SELECT 'a'` is 22P02; DuckDB makes the column text). `negative_literals(tree)`:
`-2147483648` is an integer and `-9223372036854775808` a bigint, as PostgreSQL folds the minus into the constant
(DuckDB types them one size up, so `-2147483648 / -1` answered 2147483648 for 22003). `numeric_input_text(text)`
is the text PostgreSQL's numeric input keeps of a valid numeric literal (`'1e3'` → `1000`, `'-.5'` → `-0.5`,
`'nan'` → `NaN`).
"""

from __future__ import annotations

import decimal
import math
import re

from sqlglot import exp

from sparkwire import errors as e

_INTEGERS = {
    exp.DType.SMALLINT: ("smallint", 16),
    exp.DType.INT: ("integer", 32),
    exp.DType.BIGINT: ("bigint", 64),
}
_FLOATS = {exp.DType.FLOAT: "real", exp.DType.DOUBLE: "double precision"}
_FLOAT_MAX = {exp.DType.FLOAT: 3.4028235e38, exp.DType.DOUBLE: math.inf}
_INTEGER_TEXT = re.compile(r"\s*[+-]?\d+\s*")
_INFINITE = re.compile(r"\s*[+-]?inf(inity)?\s*", re.I)


def _integer(text: str, kind: exp.DType) -> None:
    name, bits = _INTEGERS[kind]
    if not _INTEGER_TEXT.fullmatch(text):
        raise e.InvalidTextRepresentation(f'invalid input syntax for type {name}: "{text}"')
    if not -(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1):
        raise e.NumericValueOutOfRange(f'value "{text}" is out of range for type {name}')


def _float(text: str, kind: exp.DType) -> None:
    try:
        value = float(text)
    except ValueError:
        return  # DuckDB refuses it too (22P02), or reads NaN as PostgreSQL does
    if (math.isinf(value) or abs(value) > _FLOAT_MAX[kind]) and not _INFINITE.fullmatch(text):
        raise e.NumericValueOutOfRange(f'"{text.strip()}" is out of range for type {_FLOATS[kind]}')


def boolean_input(text: str) -> bool:
    """PostgreSQL's boolin: a prefix of true/false/yes/no, of on/off from two letters, or 1/0 (spaces around)."""
    word = text.strip().lower()
    for words, value in ((("true", "yes"), True), (("false", "no"), False), (("on",), True), (("off",), False)):
        short = 2 if words[0].startswith("o") else 1
        if len(word) >= short and any(w.startswith(word) for w in words):
            return value
    if word in ("1", "0"):
        return word == "1"
    raise e.InvalidTextRepresentation(f'invalid input syntax for type boolean: "{text}"')


def numeric_input_text(text: str) -> str:
    value = decimal.Decimal(text.strip())
    if value.is_zero() and not value.is_nan():
        value = abs(value)
    return format(value, "f")


_DECIMAL_DIGITS = 18  # DuckDB's DECIMAL holds 38; a product of two such literals still fits


def exponent_literals(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not (isinstance(node, exp.Literal) and not node.is_string and "e" in node.this.lower()):
            return node
        written = numeric_input_text(node.this)
        if len(written.lstrip("-").replace(".", "")) > _DECIMAL_DIGITS:
            return node
        return exp.Literal.number(written if "." in written else written + ".")  # `1000.` is DECIMAL, `1000` not

    return tree.transform(rewrite, copy=False)


_SPECIAL_NUMERIC = {"nan": "NaN", "infinity": "infinity", "inf": "infinity"}


def _special_numeric_to_integer(node: exp.Cast) -> None:
    """`'NaN'::numeric::int` (and infinity): PostgreSQL's numeric_int4 & co. raise 0A000 (DuckDB: 22P02 at input)."""
    inner = node.this
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if not (isinstance(inner, exp.Cast) and inner.to.this == exp.DType.DECIMAL and not inner.to.expressions):
        return
    if isinstance(inner.this, exp.Literal) and inner.this.is_string:
        special = _SPECIAL_NUMERIC.get(inner.this.this.strip().lower().lstrip("+-"))
        if special is not None:
            raise e.FeatureNotSupported(f"cannot convert {special} to {_INTEGERS[node.to.this][0]}")


def check_literal_inputs(tree: exp.Expr) -> None:
    """The errors `literal_inputs` raises, without rewriting anything: what PostgreSQL reports at Parse for a
    statement whose translation waits until it is needed (planning/plan.py)."""
    for node in tree.find_all(exp.Cast):
        if node.to.this in _INTEGERS:
            _special_numeric_to_integer(node)
        if isinstance(node.this, exp.Literal) and node.this.is_string:
            if node.to.this in _INTEGERS:
                _integer(node.this.this, node.to.this)
            elif node.to.this in _FLOATS:
                _float(node.this.this, node.to.this)
            elif node.to.this == exp.DType.BOOLEAN:
                boolean_input(node.this.this)


def literal_inputs(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Cast) and node.to.this in _INTEGERS:
            _special_numeric_to_integer(node)
        if not (isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string):
            return node
        text, kind = node.this.this, node.to.this
        if kind in _INTEGERS:
            _integer(text, kind)
        elif kind in _FLOATS:
            _float(text, kind)
        elif kind == exp.DType.BOOLEAN:
            return exp.Boolean(this=boolean_input(text))
        return node

    return tree.transform(rewrite, copy=False)


def _branches(node: exp.Expr) -> list[exp.Select] | None:
    if isinstance(node, exp.Select):
        return [node]
    if isinstance(node, exp.SetOperation):
        left, right = _branches(node.this), _branches(node.expression)
        return left + right if left is not None and right is not None else None
    return None


def _integer_literal(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()


def set_operation_literals(tree: exp.Expr) -> exp.Expr:
    for operation in list(tree.find_all(exp.SetOperation)):
        if isinstance(operation.parent, exp.SetOperation):
            continue  # the outermost one sees every branch
        branches = _branches(operation)
        if not branches or len({len(b.expressions) for b in branches}) != 1:
            continue
        for i in range(len(branches[0].expressions)):
            column = [b.expressions[i].unalias() for b in branches]
            texts = [c for c in column if isinstance(c, exp.Literal) and c.is_string]
            others = [c for c in column if not (isinstance(c, exp.Literal) and c.is_string)]
            if texts and others and all(_integer_literal(c) for c in others):
                for text in texts:
                    _integer(text.this, exp.DType.INT)
                    text.replace(exp.Cast(this=text.copy(), to=exp.DataType.build("INT")))
    return tree


_FOLDED = {2**31: "INT", 2**63: "BIGINT"}


def negative_literals(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        literal = node.this if isinstance(node, exp.Neg) else None
        if isinstance(literal, exp.Literal) and not literal.is_string and literal.this.isdigit():
            kind = _FOLDED.get(int(literal.this))
            if kind is not None and not isinstance(node.parent, exp.Cast):
                return exp.Cast(this=node.copy(), to=exp.DataType.build(kind))
        return node

    return tree.transform(rewrite, copy=False)
