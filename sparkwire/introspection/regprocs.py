"""The sqlglot pass that compares the builtin relations' regproc columns by OID.

The store holds a regproc value as the function's name (what PostgreSQL prints for it, see tables.py). PostgreSQL
clients also use it as the OID it is: Npgsql joins `pg_proc.oid = pg_type.typreceive`, others write
`typreceive::oid` or `typinput = 2`. `regproc_oids` is a pure node transform `(node, ctx) → node` over references
to those columns, recognised by name (`typinput`, `typreceive`, `amhandler`, …: every regproc column of
`relations.RELATIONS`):
- a cast of one to a number type (`::oid`, `::int`, …) casts the function's OID;
- a comparison of one with something that is not a name (another column, a number, a cast to a number) compares
  the function's OID.
The OID comes from the UDF `sw_regproc_oid` (functions.py: the function's pg_proc OID, 0 for `-`). Comparisons
with a name (`typinput = 'boolin'`, `typinput = 'boolin'::regproc`, another regproc column) stay by name.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.introspection.functions import udf_name
from sparkwire.introspection.relations import RELATIONS

REGPROC_COLUMNS = frozenset(name for rel in RELATIONS for name, pg_type in rel.columns if pg_type == "regproc")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def _is_regproc(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier) and node.name in REGPROC_COLUMNS


def _is_number_type(datatype: exp.DataType) -> bool:
    return datatype.this in exp.DataType.INTEGER_TYPES or datatype.this in exp.DataType.REAL_TYPES


def _numeric(node: exp.Expression) -> bool:
    """The other side of a comparison is an OID, not a function name."""
    if isinstance(node, exp.Column):
        return not _is_regproc(node)
    if isinstance(node, exp.Literal):
        return not node.is_string
    return isinstance(node, exp.Cast) and _is_number_type(node.to)


def _oid(column: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=udf_name("regproc_oid"), expressions=[column.copy()])


def regproc_oids(node: exp.Expression, ctx: object) -> exp.Expression:
    if isinstance(node, exp.Cast) and _is_regproc(node.this) and _is_number_type(node.to):
        return exp.Cast(this=_oid(node.this), to=node.to.copy())
    if isinstance(node, _COMPARISONS):
        left, right = node.this, node.expression
        if _is_regproc(left) and _numeric(right):
            return node.__class__(this=_oid(left), expression=right.copy())
        if _is_regproc(right) and _numeric(left):
            return node.__class__(this=left.copy(), expression=_oid(right))
    return node
