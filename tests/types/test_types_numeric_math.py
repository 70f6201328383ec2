"""PostgreSQL's numeric sqrt, ln, log, exp and power (pgtypes/numeric_math.py, what Spark computes through
sw_numeric_math) checked value by value against the PostgreSQL 15 oracle: the digits, the scale and the errors."""

from __future__ import annotations

from decimal import Decimal

import psycopg
import pytest

from sparkwire import errors as e
from sparkwire.pgtypes.numeric_math import numeric_math_text

Conn = psycopg.Connection[tuple[object, ...]]
VALUES = ("12.34", "0.00", "0.50", "0.0001", "1.5000", "5", "2", "99999999.99", "3.1416", "0.9", "1.05", "1e-20",
          "123456789012.123", "1.0000001")  # fmt: skip


@pytest.mark.parametrize("x", VALUES)
def test_one_argument_functions_match_postgres(pg: Conn, x: str) -> None:
    row = pg.execute(
        "SELECT sqrt(x)::text, ln(x + 1)::text, log(x + 1)::text, exp(least(x, 50))::text "
        "FROM (SELECT %s::numeric AS x) v",
        (x,),
    ).fetchone()
    assert row is not None
    value = Decimal(x)
    ours = (
        numeric_math_text("sqrt", value),
        numeric_math_text("ln", value + 1),
        numeric_math_text("log", value + 1),
        numeric_math_text("exp", value if value < 50 else Decimal(50)),
    )
    assert ours == row


@pytest.mark.parametrize(("x", "y"), [("12.34", "2"), ("2", "0.5"), ("2.5", "-2"), ("-3", "3"), ("0.0001", "2"),
                                      ("10", "20"), ("1.5", "0"), ("0", "0.5"), ("7", "1"), ("2", "8")])  # fmt: skip
def test_power_and_log_match_postgres(pg: Conn, x: str, y: str) -> None:
    row = pg.execute("SELECT power(%s::numeric, %s::numeric)::text", (x, y)).fetchone()
    assert row is not None
    assert numeric_math_text("power", Decimal(x), Decimal(y)) == row[0]
    if Decimal(x) > 0 and Decimal(x) != 1 and Decimal(y) > 0:
        logged = pg.execute("SELECT log(%s::numeric, %s::numeric)::text", (x, y)).fetchone()
        assert logged is not None
        assert numeric_math_text("log", Decimal(x), Decimal(y)) == logged[0]


def test_domain_errors_are_postgres_sqlstates() -> None:
    cases = [("sqrt", ("-1",), "2201F"), ("ln", ("0",), "2201E"), ("ln", ("-2",), "2201E"),
             ("power", ("0", "-1"), "2201F"), ("power", ("-2", "0.5"), "2201F"),
             ("log", ("1", "5"), "22012")]  # fmt: skip
    for function, args, sqlstate in cases:
        with pytest.raises(e.PgError) as raised:
            numeric_math_text(function, *(Decimal(a) for a in args))
        assert raised.value.sqlstate == sqlstate, (function, args)
    assert numeric_math_text("sqrt", None) is None
    assert numeric_math_text("ln", Decimal("NaN")) == "NaN"
