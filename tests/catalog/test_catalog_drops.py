"""The dependency graph: transitive dependents, drop planning (RESTRICT/CASCADE, drop order, PostgreSQL's
error text) and `DropItems` applying a plan."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog, plan_drop
from sparkwire.catalog.ops import CreateSchema, DropItems
from sparkwire.catalog.state import NameContext
from tests.catalog.test_catalog_ops import MATERIALIZE_ROLE, PUBLIC_SCHEMA, create, error, fails, spec

HINT = "Use DROP ... CASCADE to drop the dependent objects too."


def test_dependents_are_transitive(catalog: Catalog) -> None:
    t, u = create(catalog, spec("table", "t"), spec("table", "u"))
    v, w = create(catalog, spec("view", "v", deps=(t,)), spec("view", "w", deps=(t, u)))
    (x,) = create(catalog, spec("materialized-view", "x", deps=(v, w)))
    state = catalog.state
    assert state.direct_dependents(t) == {v, w}
    assert state.dependents(t) == {v, w, x}
    assert state.dependents(u) == {w, x}
    assert state.dependents(x) == set()


def test_restrict_lists_every_dependency_like_postgres(catalog: Catalog) -> None:
    (t,) = create(catalog, spec("table", "t"))
    (v,) = create(catalog, spec("view", "v", deps=(t,)))
    (w,) = create(catalog, spec("view", "w", deps=(v,)))
    assert error(lambda: plan_drop(catalog.state, [t], cascade=False)) == (
        "2BP01",
        "cannot drop table t because other objects depend on it",
        "view v depends on table t\nview w depends on view v",
        HINT,
    )
    (u,) = create(catalog, spec("table", "u"))
    (uv,) = create(catalog, spec("view", "uv", deps=(u,)))
    code, message, _, _ = error(lambda: plan_drop(catalog.state, [t, u], cascade=False))
    assert (code, message) == ("2BP01", "cannot drop desired object(s) because other objects depend on them")
    plan = plan_drop(catalog.state, [w, v, t], cascade=False)  # everything requested: RESTRICT is satisfied
    assert plan.order == (w, v, t) and plan.cascaded == ()
    assert uv in catalog.state.items


def test_cascade_order_puts_dependents_first(catalog: Catalog) -> None:
    a, b = create(catalog, spec("table", "a"), spec("table", "b"))
    (c,) = create(catalog, spec("view", "c", deps=(a,)))
    (d,) = create(catalog, spec("view", "d", deps=(a, c, b)))  # a diamond: d -> c -> a and d -> a
    (e,) = create(catalog, spec("view", "e", deps=(b,)))
    (a_idx,) = create(catalog, spec("index", "a_idx", on=a))
    plan = plan_drop(catalog.state, [a], cascade=True)
    assert set(plan.order) == {a, c, d, a_idx}
    position = {item_id: n for n, item_id in enumerate(plan.order)}
    for item_id in plan.order:
        for ref in catalog.state.items[item_id].references:
            if ref in position:
                assert position[item_id] < position[ref], (item_id, ref)
    assert set(plan.cascaded) == {c, d}  # the index goes silently, as in PostgreSQL
    result = catalog.transact([DropItems(plan.order)])
    assert [r.id for r in result.dropped] == list(plan.order)
    assert set(catalog.state.items) == {b, e}
    assert catalog.state.direct_dependents(b) == {e}


def test_indexes_go_with_their_object_under_restrict(catalog: Catalog) -> None:
    (t,) = create(catalog, spec("table", "t"))
    i1, i2 = create(catalog, spec("index", "i1", on=t), spec("index", "i2", on=t))
    plan = plan_drop(catalog.state, [t], cascade=False)
    assert plan.order == (i1, i2, t) and plan.cascaded == ()


def test_drop_items_refuses_a_plan_that_leaves_dependents(catalog: Catalog) -> None:
    (t,) = create(catalog, spec("table", "t"))
    (v,) = create(catalog, spec("view", "v", deps=(t,)))
    before = catalog.state
    assert fails(catalog, [DropItems((t,))]) == (
        "2BP01",
        "cannot drop table t because other objects depend on it",
        "view v depends on table t",
        HINT,
    )
    assert catalog.state is before
    assert fails(catalog, [DropItems(("u404",))])[:2] == ("42704", "catalog item u404 does not exist")
    assert fails(catalog, [DropItems((v, v))])[0] == "42704"  # the second drop finds nothing


def test_messages_qualify_names_not_visible_in_the_session(catalog: Catalog) -> None:
    s_id = catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)]).created[0].id
    (t,) = create(catalog, spec("table", "t", schema=s_id))
    (v,) = create(catalog, spec("view", "v", deps=(t,), schema=PUBLIC_SCHEMA))
    names = NameContext("materialize", ("public",))
    assert error(lambda: plan_drop(catalog.state, [t], cascade=False, names=names))[1:3] == (
        "cannot drop table s.t because other objects depend on it",
        "view v depends on table s.t",
    )
    visible = NameContext("materialize", ("s", "public"))
    assert error(lambda: plan_drop(catalog.state, [t], cascade=False, names=visible))[2] == (
        "view v depends on table t"
    )
    assert v in catalog.state.items


@pytest.mark.parametrize("cascade", [False, True])
def test_plan_drop_of_unknown_id(catalog: Catalog, cascade: bool) -> None:
    assert error(lambda: plan_drop(catalog.state, ["u9"], cascade=cascade))[0] == "42704"
