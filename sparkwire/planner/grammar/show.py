"""Materialize's SHOW statements for objects: SHOW TABLES / VIEWS / MATERIALIZED VIEWS / INDEXES / SCHEMAS /
DATABASES / CLUSTERS / CLUSTER REPLICAS / OBJECTS / SOURCES / SUBSOURCES [FROM s] [IN CLUSTER c] [ON obj]
[LIKE 'p' | WHERE …], SHOW [EXTENDED] [FULL] COLUMNS FROM obj, SHOW CREATE TABLE | VIEW | MATERIALIZED VIEW | INDEX |
SOURCE obj.

Contract: `parse_show(p)` continues a `DdlParser` positioned after SHOW and returns a `ShowObjects`,
`ShowColumns` or `ShowCreate`, or None when what follows SHOW is none of those (a variable: `utility.py`'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sparkwire.planner.grammar.ddl_parser import DdlParser, Name, RelationKind, relation_kind

ShowWhat = Literal[
    "tables", "views", "materialized-views", "indexes", "schemas", "databases", "clusters", "objects",
    "cluster-replicas", "sources", "subsources",
]


@dataclass(frozen=True, slots=True)
class ShowObjects:
    what: ShowWhat
    from_: Name | None = None  # FROM schema (FROM database for SCHEMAS)
    on: Name | None = None  # SHOW INDEXES ON obj
    cluster: str | None = None  # IN CLUSTER c
    like: str | None = None
    where: str | None = None


@dataclass(frozen=True, slots=True)
class ShowColumns:
    name: Name
    like: str | None = None
    where: str | None = None


@dataclass(frozen=True, slots=True)
class ShowCreate:
    kind: RelationKind | Literal["source"]
    name: Name

ShowStatement = ShowObjects | ShowColumns | ShowCreate


_SHOW_WORDS: tuple[tuple[tuple[str, ...], ShowWhat], ...] = (
    (("tables",), "tables"),
    (("views",), "views"),
    (("materialized", "views"), "materialized-views"),
    (("indexes",), "indexes"),
    (("index",), "indexes"),
    (("keys",), "indexes"),
    (("schemas",), "schemas"),
    (("databases",), "databases"),
    (("clusters",), "clusters"),
    (("cluster", "replicas"), "cluster-replicas"),
    (("objects",), "objects"),
    (("sources",), "sources"),
    (("subsources",), "subsources"),
)


def parse_show(p: DdlParser) -> ShowStatement | None:
    if p.accept("create"):
        kind: RelationKind | Literal["source"] | None = "source" if p.accept("source") else relation_kind(p)
        if kind is None:
            return None
        name = p.object_name()
        p.end()
        return ShowCreate(kind, name)
    p.accept("extended")
    p.accept("full")
    if p.accept("columns") or p.accept("fields"):
        if not (p.accept("from") or p.accept("in")):
            raise p.error()
        name = p.object_name()
        like, where = p.like_or_where()
        return ShowColumns(name, like, where)
    what: ShowWhat | None = next((found for words, found in _SHOW_WORDS if p.accept(*words)), None)
    if what is None:
        return None
    from_: Name | None = None
    on: Name | None = None
    cluster: str | None = None
    while True:
        if (p.accept("from") or p.accept("in")) and not p.at("cluster"):
            from_ = p.object_name()
        elif p.accept("cluster"):
            cluster = p.name()
        elif what in ("indexes", "subsources") and p.accept("on"):
            on = p.object_name()
        else:
            break
    like, where = p.like_or_where()
    return ShowObjects(what, from_, on, cluster, like, where)
