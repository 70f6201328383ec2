"""PostgreSQL's bytea ↔ text functions for both translators (called by functions/lowering.py).

Contract: `binary_strings(tree)` rewrites these calls in place, innermost first (encode(convert_to(…), 'hex')),
leaving a call with another format or encoding than these, or one that is not a literal, as written. sqlglot reads
PostgreSQL's encode / decode as a character-set conversion (`Expected utf-8 character set, got 'hex'`; DuckDB:
42883 encode(blob)):
- encode(bytes, 'hex') → lower(hex(bytes)); encode(bytes, 'base64') → base64 of the bytes (PostgreSQL also breaks
  lines every 76 characters, which this does not: values of up to 57 bytes agree);
- decode(text, 'hex') → unhex(text); decode(text, 'base64') → the bytes of the base64 text;
- convert_to(text, 'UTF8') → the text's UTF-8 bytes; convert_from(bytes, 'UTF8') → the text of UTF-8 bytes (the
  database encoding is UTF8, so these are the only conversions without a change of encoding).
"""

from __future__ import annotations

from sqlglot import exp

_UTF8 = frozenset({"utf8", "utf-8", "unicode"})


def _word(node: exp.Expr | None) -> str | None:
    return str(node.this).lower() if isinstance(node, exp.Literal) and node.is_string else None


def _lowered(node: exp.Expr) -> exp.Expr | None:
    if isinstance(node, exp.Encode):
        fmt = _word(node.args.get("charset"))
        if fmt == "hex":
            return exp.Lower(this=exp.Hex(this=node.this))
        if fmt == "base64":
            return exp.ToBase64(this=node.this)
        return None
    if isinstance(node, exp.Decode):
        fmt = _word(node.args.get("charset"))
        if fmt == "hex":
            return exp.Unhex(this=node.this)
        if fmt == "base64":
            return exp.FromBase64(this=node.this)
        return None
    if isinstance(node, exp.Anonymous) and len(node.expressions) == 2:
        name, (value, encoding) = node.name.lower(), node.expressions
        if name in ("convert_to", "convert_from") and _word(encoding) in _UTF8:
            kind = exp.Encode if name == "convert_to" else exp.Decode
            return kind(this=value, charset=exp.Literal.string("utf-8"))
    return None


def binary_strings(tree: exp.Expr) -> exp.Expr:
    calls = [n for n in tree.walk() if isinstance(n, exp.Encode | exp.Decode | exp.Anonymous)]
    for node in reversed(calls):  # walk() is pre-order: reversed, a call comes after the calls inside it
        lowered = _lowered(node)
        if lowered is not None:
            if node is tree:
                return lowered
            node.replace(lowered)
    return tree
