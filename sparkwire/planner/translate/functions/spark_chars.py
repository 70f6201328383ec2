"""chr(n) on Spark as PostgreSQL's (UTF-8 database), and char(n) values in a concatenation on both engines.

Contract: `CHAR_RULES` are rules `rule(tree) -> tree` over a PostgreSQL-parsed sqlglot tree, applied by the Spark
translator after `spark_rules.RULES` (translate/spark_semantics.py POST_RULES). `unicode_chr` makes chr(n) the
UTF-8 encoding of n decoded as text, with PostgreSQL's errors: 22023 `character number must be positive` below 0,
54000 `null character not permitted` for 0, `requested character too large for encoding: n` above U+10FFFF and
`requested character not valid for encoding: n` for a surrogate (U+D800–U+DFFF). Spark's chr takes n modulo 256
(chr(26086) was 'æ', PostgreSQL's '旦'). DuckDB's chr is already Unicode (its errors: duckdb_rules/strings.py).

`character_concatenation(tree)` (Spark: PRE_RULES, before spark_text.char_casts pads; DuckDB:
duckdb_rules/strings.text_concatenation): an operand of `||` cast to char(n) / bpchar is that value without its
trailing spaces, as PostgreSQL converts character to text for textcat (`'ab'::char(4) || '|'` is 'ab|'); concat()
and format() print the padded value, as PostgreSQL's output function does, and are left alone.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.translate.spark_math import Rule, raise_error
from sparkwire.planner.translate.spark_rules import _fn


def _continuation(n: str, shift: int) -> str:
    shifted = f"shiftright({n}, {shift})" if shift else n
    return f"hex(128 + ({shifted} & 63))"


def _utf8(n: str) -> exp.Expr:
    """decode(unhex(the UTF-8 bytes' hex), 'UTF-8'): each byte at or above 0x80 is two hex digits."""
    one = f"lpad(hex({n}), 2, '0')"
    two = f"concat(hex(192 + shiftright({n}, 6)), {_continuation(n, 0)})"
    three = f"concat(hex(224 + shiftright({n}, 12)), {_continuation(n, 6)}, {_continuation(n, 0)})"
    four = (
        f"concat(hex(240 + shiftright({n}, 18)), {_continuation(n, 12)}, {_continuation(n, 6)}, {_continuation(n, 0)})"
    )
    sql = (
        f"decode(unhex(CASE WHEN {n} < 128 THEN {one} WHEN {n} < 2048 THEN {two} WHEN {n} < 65536 THEN {three} "
        f"ELSE {four} END), 'UTF-8')"
    )
    parsed: exp.Expr = exp.maybe_parse(sql, dialect="spark")
    return parsed


def _raised(sqlstate: str, message: str, n: exp.Expr | None = None) -> exp.Expr:
    if n is None:
        return raise_error(sqlstate, message)
    text = raise_error(sqlstate, message).expressions[0]
    return _fn("raise_error", _fn("concat", text, exp.cast(n.copy(), "string")))


def _chr(node: exp.Chr) -> exp.Expr:
    n = exp.Paren(this=node.expressions[0].copy())
    spelled = n.sql("spark")
    number = exp.Literal.number
    checks = [
        (exp.LT(this=n.copy(), expression=number(0)), _raised("22023", "character number must be positive")),
        (exp.EQ(this=n.copy(), expression=number(0)), _raised("54000", "null character not permitted")),
        (
            exp.GT(this=n.copy(), expression=number(0x10FFFF)),
            _raised("54000", "requested character too large for encoding: ", n),
        ),
        (
            exp.Between(this=n.copy(), low=number(0xD800), high=number(0xDFFF)),
            _raised("54000", "requested character not valid for encoding: ", n),
        ),
    ]
    case = exp.Case(ifs=[exp.If(this=check, true=raised) for check, raised in checks], default=_utf8(spelled))
    return exp.Paren(this=case)


def unicode_chr(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Chr) and len(node.expressions) == 1 and not node.args.get("charset"):
            return _chr(node)
        return node

    return tree.transform(rewrite, copy=False)


_CHARACTER = (exp.DType.CHAR, exp.DType.BPCHAR, exp.DType.NCHAR)


def _character_value(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Cast) and node.to.this in _CHARACTER


def character_concatenation(tree: exp.Expr) -> exp.Expr:
    for node in list(tree.find_all(exp.DPipe)):
        for key in ("this", "expression"):
            operand = node.args.get(key)
            if isinstance(operand, exp.Expr) and _character_value(operand):
                node.set(key, exp.Trim(this=operand.copy(), position="TRAILING"))
    return tree


CHAR_RULES: tuple[Rule, ...] = (unicode_chr,)
