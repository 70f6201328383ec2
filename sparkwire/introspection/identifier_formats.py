"""The sqlglot pass that gives format()'s `%I` PostgreSQL's meaning: the argument quoted as quote_ident quotes it.

psql lists operator classes and families with `pg_catalog.format('%I', c.opcname)` / `format('%I.%I', …)`, and
DuckDB's format() has no `%I`. `identifier_formats` is a pure node transform `(node, ctx) → node`: a format() call
whose format string is a literal made of text, `%%`, `%s` and `%I` becomes DuckDB's printf() of the same arguments
with each `%I` written `%s` and its argument passed through the store's quote_ident UDF (functions.py). Any other
format string (positions, widths, `%L`) is left as it is.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sparkwire.introspection.functions import udf_name

_SPECIFIER = re.compile(r"%(.)", re.S)


def _arguments(call: exp.Expression) -> tuple[exp.Expression, list[exp.Expression]] | None:
    """(format string, arguments) of a format() call, else None."""
    if isinstance(call, exp.Format) and isinstance(call.this, exp.Expression):
        return call.this, list(call.expressions)
    if isinstance(call, exp.Anonymous) and call.name.lower() == "format" and call.expressions:
        first, *rest = call.expressions
        return first, rest
    return None


def identifier_formats(node: exp.Expression, ctx: object) -> exp.Expression:
    found = _arguments(node)
    if found is None or not (isinstance(found[0], exp.Literal) and found[0].is_string):
        return node
    template, args = found[0].this, found[1]
    specifiers = _SPECIFIER.findall(template)
    if "I" not in specifiers or not set(specifiers) <= {"%", "s", "I"}:
        return node
    quoted = list(args)
    for position, specifier in enumerate(s for s in specifiers if s != "%"):
        if specifier == "I" and position < len(quoted):
            text = exp.Cast(this=args[position].copy(), to=exp.DataType.build("VARCHAR"))
            quoted[position] = exp.Anonymous(this=udf_name("quote_ident"), expressions=[text])
    literal = exp.Literal.string(_SPECIFIER.sub(lambda m: "%s" if m.group(1) == "I" else m.group(0), template))
    return exp.Anonymous(this="printf", expressions=[literal, *quoted])
