"""Roles, memberships and privileges: `has_privilege` through superuser, ownership, inherited memberships and
PUBLIC; grant/revoke validation; what blocks DROP ROLE."""

from __future__ import annotations

from sparkwire.catalog import Catalog
from sparkwire.catalog.builtins import PUBLIC_ROLE_ID
from sparkwire.catalog.objects import SYSTEM_OBJECT, ObjectRef
from sparkwire.catalog.ops import (
    AlterOwner,
    AlterRole,
    CreateRole,
    DropItems,
    DropRole,
    GrantPrivileges,
    GrantRole,
    RevokePrivileges,
    RevokeRole,
)
from tests.catalog.test_catalog_ops import MATERIALIZE_ROLE, PUBLIC_SCHEMA, create, error, fails, spec


def roles(catalog: Catalog, *names: str, inherit: bool = True) -> list[str]:
    result = catalog.transact([CreateRole(n, login=True, inherit=inherit) for n in names])
    return [r.id for r in result.created]


def test_privileges_flow_through_inherited_memberships(catalog: Catalog) -> None:
    alice, readers, staff = roles(catalog, "alice", "readers", "staff")
    (t,) = create(catalog, spec("table", "t"))
    table = ObjectRef("item", t)
    state = catalog.state
    assert not state.has_privilege(alice, table, "r")
    assert error(lambda: state.check_privilege(alice, table, "r"))[:2] == (
        "42501",
        "permission denied for table t",
    )
    catalog.transact(
        [
            GrantPrivileges(table, readers, MATERIALIZE_ROLE, "r"),
            GrantRole(readers, staff, MATERIALIZE_ROLE),
            GrantRole(staff, alice, MATERIALIZE_ROLE),
        ]
    )
    state = catalog.state
    assert state.effective_roles(alice) == {alice, staff, readers, PUBLIC_ROLE_ID}
    assert state.has_privilege(alice, table, "r")
    assert not state.has_privilege(alice, table, "a")
    catalog.transact([AlterRole(staff, inherit=False)])  # staff no longer passes readers' privileges on
    assert not catalog.state.has_privilege(alice, table, "r")
    assert catalog.state.has_privilege(staff, table, "r") is False
    catalog.transact([AlterRole(staff, inherit=True), RevokeRole(staff, alice)])
    assert not catalog.state.has_privilege(alice, table, "r")
    assert catalog.state.has_privilege(staff, table, "r")


def test_superuser_owner_and_public(catalog: Catalog) -> None:
    (bob,) = roles(catalog, "bob")
    (t,) = create(catalog, spec("table", "t", owner=bob))
    table = ObjectRef("item", t)
    (carol,) = roles(catalog, "carol")
    state = catalog.state
    assert state.has_privilege(bob, table, "w")  # owner
    assert state.has_privilege(MATERIALIZE_ROLE, table, "d")  # superuser
    assert not state.has_privilege(carol, table, "r")
    catalog.transact([GrantPrivileges(table, PUBLIC_ROLE_ID, bob, "r")])
    assert catalog.state.has_privilege(carol, table, "r")
    catalog.transact([AlterOwner(table, carol)])
    assert catalog.state.has_privilege(carol, table, "w") and not catalog.state.has_privilege(bob, table, "w")
    assert not catalog.state.has_privilege("u999", table, "r")
    catalog.transact([GrantPrivileges(SYSTEM_OBJECT, carol, MATERIALIZE_ROLE, "B")])
    assert catalog.state.has_privilege(carol, SYSTEM_OBJECT, "B")
    assert not catalog.state.has_privilege(bob, SYSTEM_OBJECT, "B")


def test_grant_and_revoke_merge_acl_letters(catalog: Catalog) -> None:
    (dan,) = roles(catalog, "dan")
    (t,) = create(catalog, spec("table", "t"))
    table = ObjectRef("item", t)
    catalog.transact(
        [GrantPrivileges(table, dan, MATERIALIZE_ROLE, "w"), GrantPrivileges(table, dan, "s1", "r")]
    )
    catalog.transact([GrantPrivileges(table, dan, MATERIALIZE_ROLE, "da")])
    acl = {(p.grantee_id, p.grantor_id): p.privileges for p in catalog.state.privileges_on(table)}
    assert acl == {(dan, MATERIALIZE_ROLE): "awd", (dan, "s1"): "r"}
    catalog.transact([RevokePrivileges(table, dan, "wd", grantor_id=MATERIALIZE_ROLE)])
    catalog.transact([RevokePrivileges(table, dan, "r")])
    acl = {(p.grantee_id, p.grantor_id): p.privileges for p in catalog.state.privileges_on(table)}
    assert acl == {(dan, MATERIALIZE_ROLE): "a"}
    catalog.transact([DropItems((t,))])
    assert catalog.state.privileges_on(table) == []


def test_grant_validation(catalog: Catalog) -> None:
    (erin,) = roles(catalog, "erin")
    t, v = create(catalog, spec("table", "t"), spec("view", "v"))
    assert fails(catalog, [GrantPrivileges(ObjectRef("item", t), erin, MATERIALIZE_ROLE, "U")])[:2] == (
        "0LP01",
        "invalid privilege type USAGE for table",
    )
    assert fails(catalog, [GrantPrivileges(ObjectRef("item", v), erin, MATERIALIZE_ROLE, "a")])[:2] == (
        "0LP01",
        "invalid privilege type INSERT for view",
    )
    assert fails(catalog, [GrantPrivileges(ObjectRef("schema", "s2"), erin, MATERIALIZE_ROLE, "C")])[:2] == (
        "42501",
        "system schema 'pg_catalog' cannot be modified",
    )
    assert (
        fails(catalog, [GrantPrivileges(ObjectRef("item", "u77"), erin, MATERIALIZE_ROLE, "r")])[0] == "42704"
    )
    assert (
        fails(catalog, [GrantPrivileges(ObjectRef("schema", PUBLIC_SCHEMA), "u77", erin, "C")])[0] == "42704"
    )


def test_role_membership_cycles_are_rejected(catalog: Catalog) -> None:
    a, b, c = roles(catalog, "a", "b", "c")
    catalog.transact([GrantRole(a, b, MATERIALIZE_ROLE), GrantRole(b, c, MATERIALIZE_ROLE)])
    assert fails(catalog, [GrantRole(c, a, MATERIALIZE_ROLE)])[:2] == (
        "0LP01",
        'role "c" is a member of role "a"',
    )
    assert fails(catalog, [GrantRole(a, a, MATERIALIZE_ROLE)])[:2] == (
        "0LP01",
        'role "a" is a member of role "a"',
    )
    before = catalog.revision
    catalog.transact([GrantRole(a, b, MATERIALIZE_ROLE)])  # already a member: nothing changes
    assert catalog.revision == before
    assert catalog.state.all_roles_of(c) == {a, b}
    catalog.transact([GrantRole("g1", c, MATERIALIZE_ROLE)])  # predefined roles can be granted
    assert "g1" in catalog.state.effective_roles(c)
    assert fails(catalog, [GrantRole(a, "s1", MATERIALIZE_ROLE)])[0] == "42939"


def test_drop_role_blocked_by_ownership_and_privileges(catalog: Catalog) -> None:
    frank, gina = roles(catalog, "frank", "gina")
    (t,) = create(catalog, spec("table", "t", owner=frank))
    (u,) = create(catalog, spec("table", "u"))
    catalog.transact([GrantPrivileges(ObjectRef("item", u), frank, MATERIALIZE_ROLE, "r")])
    assert fails(catalog, [DropRole(frank)]) == (
        "2BP01",
        'role "frank" cannot be dropped because some objects depend on it',
        "owner of table t\nprivileges for table u",
        None,
    )
    catalog.transact(
        [
            AlterOwner(ObjectRef("item", t), gina),
            RevokePrivileges(ObjectRef("item", u), frank, "r"),
            GrantRole(gina, frank, MATERIALIZE_ROLE),
        ]
    )
    catalog.transact([DropRole(frank)])
    assert frank not in catalog.state.roles
    assert catalog.state.memberships == {}
