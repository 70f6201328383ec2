"""Materialized views maintained as their inputs change (docs/continual.md): the dataflows and their maintainers.

One way through, bottom up:
- `plan.py`: the maintenance plan the planner builds (planner/planning/dataflow.py): branches of select-project-join
  over storage tables, an optional Reduce; or the reason there is none (the view is recomputed).
- `expressions.py`: the scalar subset, evaluated on Arrow exactly as PostgreSQL does.
- `linear.py`: a branch's join, filter and projection over input batches with diffs, and the delta terms of a join.
- `collection.py`: contents without a Reduce, keyed by the row ids they came from. `reduce.py`: per-group state.
- `dataflow.py`: one view's contents, hydrated from whole inputs, then stepped by the inputs' changes
  (storage/deltas.py).
- `maintainer.py`: one thread per maintained object, following storage's commits and publishing versions that
  readers take without computing (planner/execute/resident.py asks it first). `live.py`: its introspection relation.
"""
