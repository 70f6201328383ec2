"""Process-wide registry of cancellable backends, keyed by the (pid, secret) pair sent in BackendKeyData.

Contract: `register(target)` assigns a fresh random non-zero 31-bit pid (unique among live entries) and a
random 32-bit secret; `cancel(pid, secret)` calls `target.cancel()` only when both match (constant-time
comparison of the secret) and says whether it did; `unregister(pid)` forgets the entry. `signal(pid, terminate)`
is `api.BackendSignals` for pg_cancel_backend / pg_terminate_backend (the session checks privileges first). Calls
come from any connection thread; each is one dict operation.

"""

from __future__ import annotations

import secrets
from typing import Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...

    def shutdown(self) -> None: ...


class CancelRegistry:
    def __init__(self) -> None:
        self._entries: dict[int, tuple[int, Cancellable]] = {}

    def register(self, target: Cancellable) -> tuple[int, int]:
        while True:
            pid = secrets.randbits(31)
            if pid and pid not in self._entries:
                break
        secret = secrets.randbits(32)
        self._entries[pid] = (secret, target)
        return pid, secret

    def unregister(self, pid: int) -> None:
        self._entries.pop(pid, None)

    def cancel(self, pid: int, secret: int) -> bool:
        entry = self._entries.get(pid)
        if entry is None or not secrets.compare_digest(entry[0].to_bytes(4), secret.to_bytes(4)):
            return False
        entry[1].cancel()
        return True

    def signal(self, pid: int, terminate: bool) -> bool:
        """`api.BackendSignals`: cancel what backend `pid` runs, or end its connection (FATAL 57P01)."""
        entry = self._entries.get(pid)
        if entry is None:
            return False
        if terminate:
            entry[1].shutdown()
        else:
            entry[1].cancel()
        return True

    def __len__(self) -> int:
        return len(self._entries)
