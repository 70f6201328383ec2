"""upper() and lower() character by character, as PostgreSQL maps case in a UTF-8 LC_CTYPE.

PostgreSQL changes the case of each character on its own (towupper / towlower: Unicode's simple case mapping), so
`upper('straße')` is `STRAßE` and `lower('ΟΔΟΣ')` is `οδοσ`. Java's String.toUpperCase / toLowerCase, which Spark's
upper / lower use, apply Unicode's full mapping: `ß` becomes `SS`, `ﬁ` `FI`, `ᾳ` `ΑΙ`, a final `Σ` `ς`, `İ` two
characters. DuckDB maps one character at a time too but makes `ß` the capital `ẞ`.

Contract:
- `spark_case_mapping(tree)`: an upper / lower call whose argument holds one of the characters the full mapping
  treats otherwise (`UPPER_SPECIAL`, `LOWER_SPECIAL`) is mapped one character at a time, those characters by
  PostgreSQL's table (read off PostgreSQL 15 in C.UTF-8); any other argument keeps Spark's upper / lower, which
  then agrees with PostgreSQL.
  `initcap` is PostgreSQL's on every argument: a word starts after any character that is not a letter or digit.
- `duckdb_case_mapping(tree)`: upper keeps `ß` (NUL, which PostgreSQL text never holds, stands in for it while
  DuckDB upper-cases the rest).
"""

from __future__ import annotations

from sqlglot import exp

# The characters whose full upper-case mapping is longer than one character, and PostgreSQL's upper() of each
# (the simple mapping: most stay as they are, the Greek letters with ypogegrammeni take the title-case form).
_UPPER = {
    **{c: c for c in "ßŉǰΐΰևẖẗẘẙẚὐὒὔὖᾈᾉᾊᾋᾌᾍᾎᾏᾘᾙᾚᾛᾜᾝᾞᾟᾨᾩᾪᾫᾬᾭᾮᾯᾲᾴᾶᾷᾼῂῄῆῇῌῒΐῖῗῢΰῤῦῧῲῴῶῷῼﬀﬁﬂﬃﬄﬅﬆﬓﬔﬕﬖﬗ"},
    **dict(zip("ᾀᾁᾂᾃᾄᾅᾆᾇᾐᾑᾒᾓᾔᾕᾖᾗᾠᾡᾢᾣᾤᾥᾦᾧᾳῃῳ", "ᾈᾉᾊᾋᾌᾍᾎᾏᾘᾙᾚᾛᾜᾝᾞᾟᾨᾩᾪᾫᾬᾭᾮᾯᾼῌῼ", strict=True)),
}
# Java lower-cases İ to two characters and a word-final Σ to ς; PostgreSQL to i and σ.
_LOWER = {"İ": "i", "Σ": "σ"}
UPPER_SPECIAL = "".join(_UPPER)
LOWER_SPECIAL = "".join(_LOWER)
_NUL = "\x00"
_ALNUM = "(?U)\\p{Alnum}"


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _string(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def _holds(value: exp.Expr, table: dict[str, str]) -> exp.Expr:
    return exp.RegexpLike(this=value.copy(), expression=_string(f"[{''.join(table)}]"))


def _char_case(char: exp.Expr, name: str, table: dict[str, str]) -> exp.Expr:
    """PostgreSQL's upper / lower of the one character `char`."""
    special = _fn("translate", char.copy(), _string("".join(table)), _string("".join(table.values())))
    return exp.Case(ifs=[exp.If(this=_holds(char, table), true=special)], default=_fn(name, char.copy()))


def _characters(value: exp.Expr) -> exp.Expr:
    return _fn("regexp_extract_all", value.copy(), _string("(?s)(.)"), exp.Literal.number(1))


def _joined(value: exp.Expr, mapped: exp.Expr, *names: str) -> exp.Expr:
    each = exp.Lambda(this=mapped, expressions=[exp.to_identifier(n) for n in names])
    return _fn("array_join", _fn("transform", _characters(value), each), _string(""))


def _initcap(value: exp.Expr) -> exp.Expr:
    """A letter after a character that is not a letter or digit (or first) upper-cased, every other lower-cased,
    as PostgreSQL's initcap (Spark's capitalizes after spaces only)."""
    char, index = exp.column("sw_c"), exp.column("sw_i")
    previous = _fn("element_at", _characters(value), index.copy())  # 1-based: the character before sw_i
    starts = exp.Or(
        this=exp.EQ(this=index, expression=exp.Literal.number(0)),
        expression=exp.Not(this=exp.RegexpLike(this=previous, expression=_string(_ALNUM))),
    )
    mapped = exp.Case(
        ifs=[exp.If(this=starts, true=_char_case(char, "upper", _UPPER))], default=_char_case(char, "lower", _LOWER)
    )
    return _joined(value, mapped, "sw_c", "sw_i")


def _named(node: exp.Expr, new: exp.Expr, name: str) -> exp.Expr:
    """`new` in place of the call `node`, keeping the call's column name where it is a select item of its own (the
    engine names such a column, e.g. under `SELECT *` from a derived table, after the expression it sees)."""
    if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
        return exp.alias_(new, name, quoted=True)
    return new


def spark_case_mapping(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Upper | exp.Lower | exp.Initcap):
            return node
        value = spark_case_mapping(node.this)  # an upper / lower inside it: the new node is not visited again
        if isinstance(node, exp.Initcap):
            return _named(node, _initcap(value), "initcap")
        name, table = ("upper", _UPPER) if isinstance(node, exp.Upper) else ("lower", _LOWER)
        per_character = _joined(value, _char_case(exp.column("sw_c"), name, table), "sw_c")
        case = exp.Case(ifs=[exp.If(this=_holds(value, table), true=per_character)], default=_fn(name, value.copy()))
        return _named(node, exp.Paren(this=case), name)

    return tree.transform(rewrite, copy=False)


def duckdb_case_mapping(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Upper):
            hidden = exp.Replace(
                this=duckdb_case_mapping(node.this).copy(), expression=_string("ß"), replacement=_string(_NUL)
            )
            shown = exp.Replace(this=_fn("upper", hidden), expression=_string(_NUL), replacement=_string("ß"))
            return _named(node, shown, "upper")
        return node

    return tree.transform(rewrite, copy=False)
