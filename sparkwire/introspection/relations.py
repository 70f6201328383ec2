"""Every builtin relation the introspection store hosts, in one tuple: pg_catalog (code-defined and item
relations), information_schema and mz_catalog. `rewrite` routes names to them, `store` creates them, `listener`
keeps the catalog-defined ones in step with the catalog."""

from __future__ import annotations

from sparkwire.catalog.cluster_relations import CLUSTER_RELATIONS
from sparkwire.catalog.maintenance_relations import MAINTENANCE_RELATIONS
from sparkwire.catalog.relations.comments import COMMENT_RELATIONS
from sparkwire.catalog.relations.info import INFO_RELATIONS
from sparkwire.catalog.relations.info_routines import ROUTINE_RELATIONS
from sparkwire.catalog.relations.mz import MZ_RELATIONS
from sparkwire.catalog.relations.mz_history import HISTORY_RELATIONS
from sparkwire.catalog.relations.pg import BUILTIN_RELATIONS
from sparkwire.catalog.relations.pg_depend import PG_DEPEND_RELATIONS
from sparkwire.catalog.relations.pg_items import PG_ITEM_RELATIONS
from sparkwire.catalog.relations.relation import BuiltinRelation
from sparkwire.catalog.secret_relations import SECRET_RELATIONS
from sparkwire.catalog.source_relations import SOURCE_RELATIONS
from sparkwire.catalog.subscription_relations import SUBSCRIPTION_RELATIONS
from sparkwire.introspection.workload.relations import WORKLOAD_RELATIONS
from sparkwire.notices.relations import NOTICE_RELATIONS

RELATIONS: tuple[BuiltinRelation, ...] = (
    *BUILTIN_RELATIONS,
    *PG_ITEM_RELATIONS,
    *PG_DEPEND_RELATIONS,
    *COMMENT_RELATIONS,
    *INFO_RELATIONS,
    *ROUTINE_RELATIONS,
    *MZ_RELATIONS,
    *CLUSTER_RELATIONS,
    *SECRET_RELATIONS,
    *SOURCE_RELATIONS,
    *SUBSCRIPTION_RELATIONS,
    *MAINTENANCE_RELATIONS,
    *NOTICE_RELATIONS,
    *WORKLOAD_RELATIONS,
    *HISTORY_RELATIONS,
)
STATE_RELATIONS: tuple[BuiltinRelation, ...] = tuple(rel for rel in RELATIONS if rel.from_state)
