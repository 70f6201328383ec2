"""The rule tables the Spark translator applies around `spark_rules.RULES`, one module per concern.

Contract: `PRE_RULES` run on the type-annotated tree before `spark_rules.RULES` (checks and rewrites that must see
the tree as PostgreSQL wrote it), `POST_RULES` after them. Each rule is `rule(expression) -> expression` and may
raise a `PgError` for a statement PostgreSQL refuses at parse analysis (spark_typecheck.py).
"""

from __future__ import annotations

from sparkwire.planner.translate.functions.spark_arrays import ARRAY_RULES, JSON_RULES
from sparkwire.planner.translate.functions.spark_chars import CHAR_RULES, character_concatenation
from sparkwire.planner.translate.functions.spark_windows import WINDOW_RULES
from sparkwire.planner.translate.spark_aggregates import AGGREGATE_RULES
from sparkwire.planner.translate.spark_datetime import DATETIME_RULES
from sparkwire.planner.translate.spark_limits import LIMIT_RULES
from sparkwire.planner.translate.spark_math import MATH_RULES, Rule
from sparkwire.planner.translate.spark_subqueries import SUBQUERY_RULES
from sparkwire.planner.translate.spark_text import TEXT_RULES, char_casts
from sparkwire.planner.translate.spark_typecheck import type_errors

PRE_RULES: tuple[Rule, ...] = (
    type_errors, *AGGREGATE_RULES, *DATETIME_RULES, *LIMIT_RULES, character_concatenation, char_casts, *JSON_RULES,
    *WINDOW_RULES,
)  # fmt: skip
POST_RULES: tuple[Rule, ...] = (*MATH_RULES, *TEXT_RULES, *CHAR_RULES, *SUBQUERY_RULES, *ARRAY_RULES)
