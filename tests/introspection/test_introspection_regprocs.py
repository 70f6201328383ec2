"""regproc columns of the builtin relations: every function they name is in pg_proc (`pgtypes.functions`), and the
rewrite compares them by OID where the other side is an OID, by name where it is a name."""

from __future__ import annotations

import pytest

from sparkwire.introspection.regprocs import REGPROC_COLUMNS, regproc_oids
from sparkwire.introspection.relations import RELATIONS
from sparkwire.introspection.store import bootstrap_state
from sparkwire.pgtypes.functions import BUILTIN_FUNCTIONS, function_oid
from sparkwire.planner.translate.duckdb import parse


def test_every_named_function_is_listed() -> None:
    state = bootstrap_state()
    named = {
        row[i]
        for rel in RELATIONS
        for i, (_, pg_type) in enumerate(rel.columns)
        if pg_type == "regproc"
        for row in rel.rows(state)
    }
    assert named, "no regproc values at all"
    assert {name for name in named if name is not None and function_oid(str(name)) is None} == set()
    assert {"array_recv", "boolin", "int2vectorrecv", "bthandler"} <= {name for _, name, *_ in BUILTIN_FUNCTIONS}


def test_function_oids() -> None:
    assert function_oid("array_recv") == 2400
    assert function_oid("boolin") == 1242
    assert function_oid("-") == 0
    assert function_oid("no_such_function") is None
    assert function_oid(None) is None
    assert {"typinput", "typreceive", "typsubscript", "amhandler"} <= REGPROC_COLUMNS


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1 FROM t WHERE proc.oid = typ.typreceive", "proc.oid = SW_REGPROC_OID(typ.typreceive)"),
        ("SELECT 1 FROM t WHERE typ.typreceive = proc.oid", "SW_REGPROC_OID(typ.typreceive) = proc.oid"),
        ("SELECT 1 FROM t WHERE typinput <> 2", "SW_REGPROC_OID(typinput) <> 2"),
        ("SELECT 1 FROM t WHERE typinput::oid = 2", "CAST(SW_REGPROC_OID(typinput) AS UINTEGER) = 2"),
        ("SELECT 1 FROM t WHERE typinput = 'boolin'", "typinput = 'boolin'"),
        ("SELECT 1 FROM t WHERE typinput = typoutput", "typinput = typoutput"),
    ],
)
def test_comparisons(sql: str, expected: str) -> None:
    rewritten = parse(sql).transform(lambda node: regproc_oids(node, None))
    assert expected in rewritten.sql(dialect="duckdb")
