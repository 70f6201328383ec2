"""SUBSCRIBE (docs/subscribe.md): Materialize's change feed of a relation or a query, pulled by its client.

Modules: `stream` (one relation's change feed shared by its subscribers, memoized; the process-wide registry),
`subscription` (one subscriber: a frontier and the RowSource a COPY, a plain statement or a cursor reads),
`output` (the output columns and envelopes), `start` (resolving, privileges, which stream), `live` (the
introspection relations mz_subscriptions and mz_subscription_streams).
"""
