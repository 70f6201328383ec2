"""to_char(datetime, 'written format') on DuckDB (called by functions/lowering.py for DuckDB trees).

Contract: `duckdb_to_char(tree)` respells in place the format of each to_char of a date or timestamp (sqlglot's
TimeToStr) as DuckDB's strftime reads it, PostgreSQL's template patterns read as spark_datetime.py reads them:
quoted text kept as it is (sqlglot kept the quotes), MS and US (milliseconds, microseconds), FM (no padding) before
DD, MM, HH24, HH12, MI, SS, DDD, FMMonth / FMDay (full names), Mon, Dy, AM / PM. A format with a pattern DuckDB
cannot print as PostgreSQL does (a padded Month, am, Q, WW, IW, …) is left as sqlglot printed it.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.translate.spark_datetime import PATTERNS, pg_format, template_tokens

_PLAIN = {
    "YYYY": "%Y", "YY": "%y", "MM": "%m", "DD": "%d", "HH24": "%H", "HH12": "%I", "HH": "%I", "MI": "%M",
    "SS": "%S", "MS": "%g", "US": "%f", "AM": "%p", "PM": "%p", "Mon": "%b", "Dy": "%a", "DDD": "%j",
}  # fmt: skip
_FILLED = {
    "MM": "%-m", "DD": "%-d", "HH24": "%-H", "HH12": "%-I", "HH": "%-I", "MI": "%-M", "SS": "%-S", "DDD": "%-j",
    "Month": "%B", "Day": "%A",
}  # fmt: skip


def strftime_format(template: str) -> str | None:
    out: list[str] = []
    for token, fill in template_tokens(template):
        if token.startswith('"'):
            out.append(token[1:-1].replace("%", "%%"))
        elif token in PATTERNS:
            code = (_FILLED.get(token) if fill else None) or _PLAIN.get(token)
            if code is None:
                return None
            out.append(code)
        else:
            out.append(token.replace("%", "%%"))
    return "".join(out)


def duckdb_to_char(tree: exp.Expr) -> exp.Expr:
    for node in tree.find_all(exp.TimeToStr):
        written = node.args.get("format")
        if isinstance(written, exp.Literal) and written.is_string:
            respelled = strftime_format(pg_format(written.this))
            if respelled is not None:
                node.set("format", exp.Literal.string(respelled))
    return tree
