"""The sqlglot pass that serves pg_catalog's table functions from the introspection store.

`table_functions` is a pure node transform `(node, ctx) → node` (run after `builtin_tables`): a FROM item `f()` or
`pg_catalog.f()` calling a function of `relations.pg.TABLE_FUNCTIONS` (pg_get_keywords) becomes the store's table
of the function's rows (tables.py names it), aliased `f` unless the call has an alias of its own, as PostgreSQL
names a function's FROM item after the function; so `f.word`, `AS k`, `AS k(w, c, …)`, WHERE, ORDER BY and joins
read it as they read PostgreSQL's. A call with arguments is left as it is (these functions take none: DuckDB then
reports the function as unknown).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.catalog.relations.pg import TABLE_FUNCTIONS
from sparkwire.introspection.tables import STORE_CATALOG, engine_name

_BY_NAME = {rel.name: rel for rel in TABLE_FUNCTIONS}


def table_functions(node: exp.Expression, ctx: object) -> exp.Expression:
    if not (isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous)) or node.this.expressions:
        return node
    rel = _BY_NAME.get(node.this.name.lower())
    if rel is None or node.db.lower() not in ("", rel.schema) or node.catalog:
        return node
    routed = node.copy()
    # `(f() JOIN b ON …)` hangs the joins on this table: the pass does not revisit what a replaced node holds
    routed.set("joins", [join.transform(table_functions, ctx) for join in routed.args.get("joins") or []] or None)
    routed.set("this", exp.to_identifier(rel.name, quoted=True))
    routed.set("db", exp.to_identifier(engine_name(rel.schema)))
    routed.set("catalog", exp.to_identifier(STORE_CATALOG))
    if not routed.alias:
        routed.set("alias", exp.TableAlias(this=exp.to_identifier(rel.name)))
    return routed
