"""SQLAlchemy 2 (psycopg 3 dialect) against sparkwire: engine start-up (the dialect's own introspection
queries on first connect), Core table operations and a text() query."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support.clients import unique, url
from tests.support.server import SparkwireServer


@pytest.fixture
def engine(server: SparkwireServer) -> Iterator[sa.Engine]:
    address = url("127.0.0.1", server.port, "materialize", "materialize", "postgresql+psycopg")
    engine = sa.create_engine(address)
    yield engine
    engine.dispose()


def test_connect_and_text_query(engine: sa.Engine) -> None:
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT CAST(:x AS int4) + 1 AS y"), {"x": 41}).scalar_one() == 42
        rows = conn.execute(sa.text("SELECT i, 'r' || i AS r FROM generate_series(1, 3) i ORDER BY i")).all()
        assert [tuple(r) for r in rows] == [(1, "r1"), (2, "r2"), (3, "r3")]
    assert engine.dialect.server_version_info is not None
    assert engine.dialect.server_version_info[0] == 15


def test_core_table(engine: sa.Engine) -> None:
    metadata = sa.MetaData()
    table = sa.Table(
        unique("sa"), metadata,
        sa.Column("id", sa.BigInteger), sa.Column("name", sa.Text), sa.Column("price", sa.Numeric(10, 2)),
    )
    with engine.begin() as conn:
        conn.execute(sa.text(f"CREATE TABLE {table.name} (id int8, name text, price numeric(10,2))"))
    try:
        with engine.begin() as conn:
            conn.execute(table.insert(), [{"id": i, "name": f"n{i}", "price": i * 1.5} for i in range(4)])
        with engine.connect() as conn:
            query = sa.select(table.c.name, table.c.price).where(table.c.id >= 2).order_by(table.c.id)
            assert [(r.name, float(r.price)) for r in conn.execute(query)] == [("n2", 3.0), ("n3", 4.5)]
            assert conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one() == 4
        with pytest.raises(sa.exc.DataError), engine.begin() as conn:
            conn.execute(sa.text("SELECT 1 / 0"))
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f"DROP TABLE {table.name}"))
