"""Which statement a Spark Connect operation ran for, so that an application's jobs name their statement.

sparkwire tags a statement's Spark work with its job tag (`sw-<n>.<execution id>`). On Spark Connect that tag is a
session tag (`SparkSession.addTag`), which the Connect server keeps for `interruptTag` but does not give the jobs:
it tags each operation's jobs `SparkConnect_OperationTag_User_<user>_Session_<session>_Operation_<operation id>`
(Spark 4). The client picks the operation id and sends the session tags with it, in one ExecutePlanRequest. So
`OperationTags.watch(spark)` wraps that request's construction on one Connect session's client and remembers each
request's operation id with its tags, and `job_tags(tags)` gives a job's Spark tags plus the session tags of the
operation that ran it — what a classic SparkContext's job carries directly.

Contract: `OperationTags(keep)` remembers the newest `keep` operations (older ones: their jobs show no statement).
`watch(spark)` is a no-op for a session without a Connect client; it relies on the PySpark 4 client's
`_execute_plan_request_with_metadata` (tests/clusters/test_clusters_applications.py fails if that changes).
Thread-safe.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

KEEP = 4096
_OPERATION = re.compile(r"SparkConnect_OperationTag_.*_Operation_(?P<operation>[0-9a-f-]{36})\Z")


class OperationTags:
    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._tags: OrderedDict[str, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def watch(self, spark: object) -> None:
        try:
            client: Any = getattr(spark, "client", None)
        except Exception:  # a classic session's `client` raises
            return
        build = getattr(client, "_execute_plan_request_with_metadata", None)
        if build is None:
            return

        def request(*args: Any, **kwargs: Any) -> Any:
            req = build(*args, **kwargs)
            if req.tags:
                self._remember(str(req.operation_id), tuple(req.tags))
            return req

        client._execute_plan_request_with_metadata = request

    def _remember(self, operation: str, tags: tuple[str, ...]) -> None:
        with self._lock:
            self._tags[operation] = tags
            while len(self._tags) > self._keep:
                self._tags.popitem(last=False)

    def job_tags(self, tags: Sequence[str]) -> tuple[str, ...]:
        """`tags` (a job's Spark job tags) and the session tags of the operation among them, if known."""
        extra: tuple[str, ...] = ()
        for tag in tags:
            match = _OPERATION.match(tag)
            if match:
                with self._lock:
                    extra = self._tags.get(match.group("operation"), ())
                break
        return (*tags, *extra)
