"""Prepared statements and portals of one session, and result-format expansion.

Contract: a `Prepared` holds the plan of a Parse or SQL PREPARE. A `Portal` is a bound statement (Bind) or a
SQL cursor (DECLARE) — PostgreSQL keeps both in one namespace: its parameters, the client's result format
codes, and once executed its fields and `RowSource` (so a later Execute or FETCH resumes), or the result of a
statement that returns no rows. `decode_bind_params` decodes Bind's values (08P01 on count mismatches).
`expand_formats(codes, n)` turns Bind's result format codes into one per column (none = all text, one = all
alike, else exactly n, or 08P01).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.api import Field, FormatCode, Result
from sparkwire.introspection.history.records import Execution
from sparkwire.pgtypes.interval import Interval
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_param, exact_decimal_text
from sparkwire.planner.bind.fields import UNCONSTRAINED_DECIMAL
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.planning.plan import Plan

Formats = Callable[[int], tuple[FormatCode, ...]]  # the result format codes for n columns


@dataclass(slots=True)
class Prepared:
    """A Parse or SQL PREPARE. `plan` was made at schema `generation` from `sql` under `search_path` (the schemas it
    searched); the session re-plans it (keeping the parameter types, as PostgreSQL does) when the generation moved
    or search_path changed. `described`/`fields` cache its Describe."""

    plan: Plan
    sql: str
    generation: int
    described: bool = False
    fields: tuple[Field, ...] | None = None
    search_path: tuple[str, ...] = ("public",)


@dataclass(slots=True)
class Portal:
    plan: Plan
    params: tuple[object, ...] = ()
    result_formats: tuple[int, ...] = ()
    fields: tuple[Field, ...] | None = None
    formats: tuple[FormatCode, ...] = ()
    source: RowSource | None = None
    tag: str | None = None  # the complete tag of a DML … RETURNING portal
    hold: bool = False  # a WITH HOLD cursor survives the end of its transaction
    done: Result | None = None  # a non-row portal already executed
    statement: Prepared | None = None  # what it was bound from: Describe results are cached there
    statement_name: str = ""  # the prepared statement's name ("" for the unnamed one)
    execution: Execution | None = None  # its statement history record, finished when the portal is (activity.py)


def _engine_value(value: object, duck_type: str) -> object:
    """Decoded parameter values the engine cannot take as they are (DuckDB reads interval text; an unconstrained
    numeric[] goes as the exact text of each element, since a DuckDB DECIMAL list has one scale for all)."""
    if isinstance(value, Interval):
        return f"{value.months} months {value.days} days {value.micros} microseconds"
    if isinstance(value, list) and duck_type.replace(" ", "").upper().startswith(UNCONSTRAINED_DECIMAL + "["):
        return exact_decimal_text(value)
    return value


def decode_bind_params(
    statement: str, plan: Plan, formats: list[int], params: list[bytes | None], options: EncodeOptions
) -> tuple[object, ...]:
    """Bind's parameter values decoded (pgtypes) as the statement's parameter types, checked like PostgreSQL."""
    if len(params) != len(plan.param_types):
        raise e.ProtocolViolation(
            f'bind message supplies {len(params)} parameters, but prepared statement "{statement}" '
            f"requires {len(plan.param_types)}"
        )
    if len(formats) not in (0, 1, len(params)):
        raise e.ProtocolViolation(f"bind message has {len(formats)} parameter formats but {len(params)} parameters")
    values: list[object] = []
    for i, data in enumerate(params):
        fmt = formats[0] if len(formats) == 1 else (formats[i] if formats else 0)
        if data is None:
            values.append(None)
        else:
            value = decode_param(data, plan.param_types[i][0], fmt, options=options, index=i + 1)
            values.append(_engine_value(value, plan.param_types[i][1]))
    return tuple(values)


def _format(code: int) -> FormatCode:
    return 1 if code else 0


def all_text(count: int) -> tuple[FormatCode, ...]:
    text: FormatCode = 0
    return (text,) * count


def expand_formats(codes: tuple[int, ...], count: int) -> tuple[FormatCode, ...]:
    if not codes:
        return all_text(count)
    if len(codes) == 1:
        return (_format(codes[0]),) * count
    if len(codes) != count:
        raise e.ProtocolViolation(f"bind message has {len(codes)} result formats but query has {count} columns")
    return tuple(_format(c) for c in codes)
