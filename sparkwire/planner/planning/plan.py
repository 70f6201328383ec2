"""Planning one statement: classify it, guard it, translate it, infer its parameters — never execute it.

Contract: `plan_statement(sql, ctx, declared_oids, describe)` returns a frozen `Plan`:
- kind "empty" (nothing but comments), "utility" (`utility` holds the parsed statement, see grammar/utility.py),
  "query" (row-returning SELECT/VALUES/set operation), "dml" (INSERT/UPDATE/DELETE, `returning` when it has
  RETURNING), "ddl" (CREATE/DROP/ALTER: `statement` from our grammar, grammar/ddl.py, checked before sqlglot;
  TRUNCATE and what only sqlglot parses keep `tree`), "show" (SHOW TABLES/INDEXES/… of our grammar) or
  "explain" (`inner` is the plan of the explained query, `explain` its options: grammar/explain.py) or "subscribe"
  (`subscribe` the statement, grammar/subscribe.py; `inner` the plan of the SELECT it subscribes to);
- `tag` (the CommandComplete tag, or its verb for counted tags), `duck()` (DuckDB text with typed `$n`; a query's
  is translated at its first use: one over user relations runs on Spark and never needs it), `param_types`
  ((oid, DuckDB type) per `$n`), `names` (PostgreSQL output names per projection, None for `*`);
- `inner`: for DECLARE … CURSOR FOR q, the plan of q; `void_columns`: pg_sleep projections (typed `void`);
- `constant`: True for a SELECT without FROM whose projections are literals, casts and operators only (no
  functions, so deterministic): the session may compute it once and answer from memory. Security checks
  (guard.py) run here, so nothing refused ever reaches the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.notices.alter import TAG as ALTER_NOTICE
from sparkwire.notices.alter import AlterNotice
from sparkwire.planner.bind.naming import column_name, projection_names
from sparkwire.planner.bind.output_types import declared_types
from sparkwire.planner.grammar.alter_notice import parse_alter_notice
from sparkwire.planner.grammar.as_of import AsOf, split_as_of
from sparkwire.planner.grammar.comment import CommentOn, parse_comment
from sparkwire.planner.grammar.ddl import CreateTable, CreateView, DdlStatement, parse_materialize_ddl
from sparkwire.planner.grammar.explain import ExplainOptions, parse_explain
from sparkwire.planner.grammar.rbac import RbacStatement, parse_rbac
from sparkwire.planner.grammar.secrets import SecretShow, SecretStatement, parse_secret_statement
from sparkwire.planner.grammar.show import ShowColumns, ShowCreate, ShowObjects, ShowStatement
from sparkwire.planner.grammar.split import mask_comments, split_statements
from sparkwire.planner.grammar.subscribe import Subscribe, parse_subscribe
from sparkwire.planner.grammar.utility import Declare, Utility, parse_utility
from sparkwire.planner.planning.params import Describe, ParamType, infer_parameter_types
from sparkwire.planner.security import guard
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb
from sparkwire.planner.translate.duckdb_rules.literals import check_literal_inputs
from sparkwire.planner.translate.functions.transaction_time import uses_transaction_time
from sparkwire.planner.translate.literal_templates import LiteralTemplates
from sparkwire.planner.translate.mz_now import uses_mz_now


@dataclass(frozen=True, slots=True)
class Plan:
    sql: str
    kind: str  # "empty" | "utility" | "query" | "dml" | "ddl"
    tag: str = ""
    utility: Utility | None = None
    tree: exp.Expression | None = None
    duck_sql: str = ""
    param_types: tuple[ParamType, ...] = ()
    names: tuple[str | None, ...] | None = None
    returning: bool = False
    constant: bool = False
    counts_rows: bool = False  # CREATE TABLE AS: the tag is "SELECT n"
    inner: Plan | None = None  # the query of DECLARE … CURSOR FOR (its `$n` are the statement's parameters)
    void_columns: tuple[int, ...] = ()  # projections that are pg_sleep(…): PostgreSQL types them `void`
    declared_types: tuple[tuple[int, int] | None, ...] | None = None  # per result column, see output_types.py
    # "ddl"/"show": a statement of our own grammars (grammar/ddl.py, grammar/rbac.py)
    statement: (
        DdlStatement | ShowStatement | RbacStatement | AlterNotice | CommentOn | SecretStatement | SecretShow | None
    ) = None
    explain: ExplainOptions | None = None  # "explain": its options (ANALYZE, VERBOSE, FORMAT, redacted)
    subscribe: Subscribe | None = None  # "subscribe": the statement; `inner` plans the query it subscribes to
    as_of: AsOf | None = None  # "query": Materialize's AS OF [AT LEAST] t (grammar/as_of.py)
    mz_now: bool = False  # "query", "dml": it calls mz_now() (translate/mz_now.py: a literal of the read timestamp)
    transaction_time: bool = False  # "query": it calls now() or its kin (functions/transaction_time.py: literals)
    duck_later: Callable[[], str] | None = None  # "query": makes `duck_sql` at the first `duck()`

    def duck(self) -> str:
        """The statement's DuckDB SQL; a query's is translated at first use, once (a query over user relations runs
        on Spark and never needs it; a translation error surfaces where it is first needed, Describe or Execute)."""
        later = self.duck_later
        if later is not None:
            object.__setattr__(self, "duck_sql", later())  # frozen: filled in once, as a cache
            object.__setattr__(self, "duck_later", None)
        return self.duck_sql


_CONSTANT_NODES = (
    exp.Select,
    exp.Alias,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Cast,
    exp.DataType,
    exp.DataTypeParam,
    exp.Identifier,
    exp.Paren,
    exp.Neg,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
    exp.DPipe,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Var,
)


# Casts to these types give the same result in every session (unlike timestamptz, whose text follows TimeZone).
_SESSION_INDEPENDENT_TYPES = frozenset(
    {
        exp.DataType.Type.BOOLEAN,
        exp.DataType.Type.SMALLINT,
        exp.DataType.Type.INT,
        exp.DataType.Type.BIGINT,
        exp.DataType.Type.FLOAT,
        exp.DataType.Type.DOUBLE,
        exp.DataType.Type.DECIMAL,
        exp.DataType.Type.TEXT,
        exp.DataType.Type.VARCHAR,
        exp.DataType.Type.CHAR,
    }
)


def _is_constant(tree: exp.Expression) -> bool:
    if not isinstance(tree, exp.Select) or any(
        tree.args.get(k)
        for k in (
            "from",
            "joins",
            "where",
            "group",
            "having",
            "order",
            "limit",
            "offset",
            "with",
            "distinct",
            "qualify",
            "windows",
            "into",
            "locks",
        )
    ):
        return False
    return all(
        isinstance(n, _CONSTANT_NODES) and (not isinstance(n, exp.DataType) or n.this in _SESSION_INDEPENDENT_TYPES)
        for n in tree.walk()
    )


def _void_columns(tree: exp.Expression) -> tuple[int, ...]:
    if not isinstance(tree, exp.Select):
        return ()
    return tuple(
        i
        for i, p in enumerate(tree.expressions)
        if isinstance(p.unalias(), exp.Anonymous) and p.unalias().name.lower() == "pg_sleep"
    )


def _ddl_tag(tree: exp.Expression) -> str:
    kind = str(tree.args.get("kind") or "").upper()
    if isinstance(tree, exp.Create):
        return f"CREATE {kind}".strip()
    if isinstance(tree, exp.Drop):
        return f"DROP {kind}".strip()
    if isinstance(tree, exp.Alter):
        return f"ALTER {kind or 'TABLE'}"
    return "TRUNCATE TABLE"


_STATEMENT_KEYWORDS = frozenset(
    [
        "select",
        "with",
        "values",
        "insert",
        "update",
        "delete",
        "create",
        "drop",
        "alter",
        "truncate",
        "table",
        "explain",
        "merge",
        "comment",
        "grant",
        "revoke",
        "analyze",
        "vacuum",
        "refresh",
        "listen",
        "notify",
        "unlisten",
        "lock",
        "reindex",
        "cluster",
        "do",
        "checkpoint",
        "load",
    ]
)
_FIRST_WORD = re.compile(r"(?:\s|--[^\n]*\n?|/\*.*?\*/)*([A-Za-z_]\w*)", re.S)


def _check_keyword(sql: str) -> None:
    """PostgreSQL reports an unknown leading word itself as the syntax error (`selec 1`)."""
    m = _FIRST_WORD.match(sql)
    if m and m.group(1).lower() not in _STATEMENT_KEYWORDS:
        raise e.SyntaxError(f'syntax error at or near "{m.group(1)}"', position=m.start(1) + 1)


def plan_statement(
    sql: str,
    ctx: SessionContext,
    declared_oids: Sequence[int],
    describe: Describe,
    templates: LiteralTemplates | None = None,
    generation: int = 0,
) -> Plan:
    """`templates` (with the catalog `generation`) translate queries that differ from an earlier one only in
    inline OIDs without the sqlglot passes (literal_templates.py)."""
    if not split_statements(sql):
        return Plan(sql, "empty")
    sql = mask_comments(sql)
    guard.check_statement_head(sql)
    explain = parse_explain(sql)  # grammar/explain.py: PostgreSQL's options, Materialize's PLAN … FOR
    if explain is not None:
        options, offset = explain
        inner = plan_statement(sql[offset:], ctx, declared_oids, describe)
        if inner.kind != "query":
            raise e.FeatureNotSupported("EXPLAIN is supported for queries only")
        return Plan(sql, "explain", tag="EXPLAIN", inner=inner, param_types=inner.param_types, explain=options)
    alter = parse_alter_notice(sql)
    if alter is not None:
        return Plan(sql, "ddl", tag=ALTER_NOTICE, statement=alter)
    comment = parse_comment(sql)
    if comment is not None:
        return Plan(sql, "ddl", tag="COMMENT", statement=comment)
    rbac = parse_rbac(sql)
    if rbac is not None:
        return Plan(sql, "ddl", statement=rbac)
    secret = parse_secret_statement(sql)  # CREATE SECRET / CONNECTION …: grammar/secrets.py
    if secret is not None:
        show = isinstance(secret, SecretShow)
        return Plan(sql, "show" if show else "ddl", tag="SHOW" if show else "", statement=secret)
    own = parse_materialize_ddl(sql)
    if isinstance(own, CreateView | CreateTable) and own.query is not None:
        guard.check_tree(parse(own.query), own.query)  # a view's query must pass the same checks as a query
    if own is not None:
        kind = "show" if isinstance(own, ShowObjects | ShowColumns | ShowCreate) else "ddl"
        return Plan(sql, kind, tag="SHOW" if kind == "show" else "", statement=own)
    subscribe = parse_subscribe(sql)  # grammar/subscribe.py: its query is planned as a SELECT
    if subscribe is not None:
        inner = plan_statement(subscribe.select, ctx, declared_oids, describe)
        if inner.kind != "query":
            raise e.SyntaxError("SUBSCRIBE can only be used with a relation or a SELECT query")
        return Plan(sql, "subscribe", tag="SUBSCRIBE", inner=inner, param_types=inner.param_types, subscribe=subscribe)
    utility = parse_utility(sql)
    if isinstance(utility, Declare):
        inner = plan_statement(utility.query, ctx, declared_oids, describe)
        return Plan(sql, "utility", utility=utility, param_types=inner.param_types, inner=inner)
    if utility is not None:
        return Plan(sql, "utility", utility=utility)
    query_sql, as_of = split_as_of(sql)  # SELECT … AS OF [AT LEAST] t: grammar/as_of.py
    _check_keyword(query_sql)
    tree = parse(query_sql)
    guard.check_tree(tree, query_sql)
    if as_of is not None:
        if not isinstance(tree, exp.Query | exp.Values):
            raise e.SyntaxError('syntax error at or near "AS"')
        guard.check_tree(parse("SELECT " + as_of.expression), "SELECT " + as_of.expression)
    if isinstance(tree, exp.Command):
        head = tree.name.upper()
        raise e.FeatureNotSupported(f"{head} is not supported")
    params = tuple(infer_parameter_types(tree, declared_oids, describe))
    duck_types = [p[1] for p in params]
    if isinstance(tree, exp.Query | exp.Values):
        later: Callable[[], str] | None
        if templates is not None and isinstance(tree, exp.Query):
            later = partial(templates.translate, query_sql, tree, ctx, duck_types, generation)
        else:
            later = partial(to_duckdb, tree, ctx, duck_types)
        if tree.find(exp.Table) is None:
            duck_sql, later = later(), None  # no relation: DuckDB answers it, translate now
        else:
            check_literal_inputs(tree)  # PostgreSQL reads typed literals at Parse: so do we, translation or not
            duck_sql = ""  # over user relations it runs on Spark and never needs its DuckDB SQL: `duck()` makes it
        return Plan(
            sql,
            "query",
            tag="SELECT",
            tree=tree,
            duck_sql=duck_sql,
            duck_later=later,
            param_types=params,
            names=projection_names(tree),
            constant=not params and _is_constant(tree),
            void_columns=_void_columns(tree),
            declared_types=declared_types(tree),
            as_of=as_of,
            mz_now=uses_mz_now(tree),
            transaction_time=uses_transaction_time(tree),
        )
    if isinstance(tree, exp.Insert | exp.Update | exp.Delete):
        verb = {exp.Insert: "INSERT", exp.Update: "UPDATE", exp.Delete: "DELETE"}[type(tree)]
        returning = tree.args.get("returning")
        names = tuple(column_name(p) for p in returning.expressions) if returning else None
        return Plan(
            sql,
            "dml",
            tag=verb,
            tree=tree,
            duck_sql="",  # writes to user tables never reach DuckDB as SQL; `dml_duck_sql` when one does
            param_types=params,
            names=names,
            returning=returning is not None,
            mz_now=uses_mz_now(tree),
        )
    if isinstance(tree, exp.Create | exp.Drop | exp.Alter | exp.TruncateTable):
        ctas = (
            isinstance(tree, exp.Create)
            and str(tree.args.get("kind")).upper() == "TABLE"
            and isinstance(tree.expression, exp.Query)
        )
        return Plan(
            sql,
            "ddl",
            tag="SELECT" if ctas else _ddl_tag(tree),
            tree=tree,
            duck_sql=to_duckdb(tree, ctx, duck_types),
            param_types=params,
            counts_rows=ctas,
        )
    raise e.FeatureNotSupported(f"{type(tree).__name__.upper()} statements are not supported")


def dml_duck_sql(plan: Plan, ctx: SessionContext) -> str:
    """The DuckDB SQL of an INSERT / UPDATE / DELETE that runs on DuckDB itself (not on a user table), translated
    only then: a 10,000-row VALUES list is never translated for nothing."""
    assert plan.kind == "dml" and plan.tree is not None
    return to_duckdb(plan.tree, ctx, [t[1] for t in plan.param_types])
