"""Typed literals as PostgreSQL reads them, for both translators (called by functions/lowering.py).

Contract: `typed_literals(tree)` rewrites a PostgreSQL-parsed tree in place; each rule only respells a literal
PostgreSQL reads at parse time (as its input function would) into a form both engines read alike, and leaves
anything it does not recognise as written (the engine then answers as before):
- a date literal (`'Jan 15 2024'::date`, `date '15-Jan-2024'`, `'20240115'::date`) → its ISO text: PostgreSQL's
  date_in reads month names (full or three letters) with a day and a year of more than two digits in any order,
  `YYYYMMDD`, `YYMMDD` and a year first (`2024/01/15`, `2024.1.15`); a day-of-week word is ignored. A number
  cast to text first (`20240115::text::date`) is read as its text. Forms whose order DateStyle decides
  (`1/15/2024`) are left alone;
- an ISO 8601 interval (`'P1Y2M3DT4H5M6S'::interval`, `'P2W'`; a leading minus is 22007 as in
  PostgreSQL) → unit words (`14 months 3 days 14706 seconds`), the months, days and microseconds PostgreSQL keeps;
- a cast to `name` → a cast to text (PostgreSQL's name is text limited to 63 bytes; the result column is still
  described as name, bind/output_types.py): neither engine has the type (DuckDB: 42704).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from sqlglot import exp

from sparkwire.errors import InvalidDatetimeFormat
from sparkwire.pgtypes.interval import parse_interval

_MONTHS = {
    name: number
    for number, full in enumerate(
        ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
         "november", "december"),
        start=1,
    )
    for name in (full, full[:3], *(["sept"] if full == "september" else []))
}  # fmt: skip
_WEEKDAYS = frozenset(
    w for day in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday") for w in (day, day[:3])
)
_ISO_DATE = re.compile(r"\s*\d{4}-\d{1,2}-\d{1,2}\s*")
_FIELDS = re.compile(r"[a-z]+|\d+")
_SEPARATORS = re.compile(r"[\s,./-]*")


def _year_first(numbers: list[str]) -> tuple[int, int, int] | None:
    if len(numbers) == 3 and len(numbers[0]) >= 3:
        return int(numbers[0]), int(numbers[1]), int(numbers[2])
    if len(numbers) == 1 and len(numbers[0]) == 8:
        digits = numbers[0]
        return int(digits[:4]), int(digits[4:6]), int(digits[6:])
    if len(numbers) == 1 and len(numbers[0]) == 6:
        digits = numbers[0]
        year = int(digits[:2])
        return year + (2000 if year < 70 else 1900), int(digits[2:4]), int(digits[4:])
    return None


def date_input(text: str) -> str | None:
    """The ISO text of a date PostgreSQL reads from `text` in one of the forms above, else None."""
    lowered = text.strip().lower()
    if _ISO_DATE.fullmatch(lowered) or not lowered:
        return None
    fields = _FIELDS.findall(lowered)
    if "".join(_SEPARATORS.split(lowered)) != "".join(fields):
        return None  # other characters: a time, a zone, BC, …
    words = [f for f in fields if f.isalpha() and f not in _WEEKDAYS]
    numbers = [f for f in fields if f.isdigit()]
    if len(words) + len(numbers) + sum(f in _WEEKDAYS for f in fields) != len(fields):
        return None
    if not words:
        ymd = _year_first(numbers)
    elif len(words) == 1 and words[0] in _MONTHS and len(numbers) == 2:
        long = [n for n in numbers if len(n) >= 3]
        if len(long) != 1:
            return None  # a two-digit year: DateStyle decides
        day = next(n for n in numbers if n is not long[0])
        ymd = int(long[0]), _MONTHS[words[0]], int(day)
    else:
        return None
    if ymd is None:
        return None
    try:
        return dt.date(*ymd).isoformat()
    except ValueError:
        return None  # out of range: the engine's error


def interval_input(text: str) -> str | None:
    """Unit words for an ISO 8601 interval, else None."""
    spelled = text.strip().lower()
    if not spelled.startswith("p"):
        return None
    try:
        value = parse_interval(text)
    except InvalidDatetimeFormat:
        return None
    seconds = Decimal(value.micros).scaleb(-6).normalize()
    parts = [f"{value.months} months"] if value.months else []
    parts += [f"{value.days} days"] if value.days else []
    parts += [f"{seconds:f} seconds"] if value.micros or not parts else []
    return " ".join(parts)


def _literal_text(node: exp.Expr) -> str | None:
    if isinstance(node, exp.Literal) and node.is_string:
        return str(node.this)
    if (  # a number cast to text: its text
        isinstance(node, exp.Cast)
        and node.to.is_type(exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR)
        and isinstance(node.this, exp.Literal)
        and not node.this.is_string
    ):
        return str(node.this.this)
    return None


def _rewrite(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.NAME:
        return exp.DataType.build("text")
    if not isinstance(node, exp.Cast):
        return node
    text = _literal_text(node.this)
    if text is None:
        return node
    if node.to.is_type(exp.DataType.Type.DATE):
        respelled = date_input(text)
    elif node.to.is_type(exp.DataType.Type.INTERVAL) and not node.to.expressions:
        respelled = interval_input(text)
    else:
        return node
    if respelled is not None:
        node.set("this", exp.Literal.string(respelled))
    return node


def typed_literals(tree: exp.Expr) -> exp.Expr:
    if any(isinstance(n, exp.Cast | exp.DataType) for n in tree.walk()):
        tree = tree.transform(_rewrite, copy=False)
    return tree
