"""LOAD GENERATOR AUCTION … FOR ALL TABLES: an auction house, with Materialize's subsources and columns.

- `organizations` (id bigint, name text), `users` (id bigint, org_id bigint, name text) and `accounts` (id bigint,
  org_id bigint, balance bigint) are fixed: tick 0 inserts them all (the snapshot).
- Each later tick inserts one row of an endless sequence of auctions and their bids: auction n (id n, a seller,
  an item, end_time 10 s after it starts) followed by its 2-9 bids (`bids`: id 10n + i, buyer, auction_id n, amount
  int 1-99, bid_time i seconds after the auction starts). Every value but the times depends only on n (seeded by
  it), so contents are deterministic; the times are the wall clock when the tick runs.
Append-only, as Materialize's.
"""

from __future__ import annotations

import bisect
import datetime
import random
from typing import Any

from sparkwire.sources.generators.base import INT4, INT8, TEXT, TIMESTAMPTZ, Generator, LoadGenerator, column, table
from sparkwire.sources.reader import Changes, SubsourceSpec

ORGANIZATIONS = SubsourceSpec("organizations", "organizations", (column("id", INT8), column("name", TEXT)), ("id",))
USERS = SubsourceSpec(
    "users", "users", (column("id", INT8), column("org_id", INT8), column("name", TEXT)), ("id",)
)
ACCOUNTS = SubsourceSpec(
    "accounts", "accounts", (column("id", INT8), column("org_id", INT8), column("balance", INT8)), ("id",)
)
AUCTIONS = SubsourceSpec(
    "auctions",
    "auctions",
    (column("id", INT8), column("seller", INT8), column("item", TEXT), column("end_time", TIMESTAMPTZ)),
    ("id",),
)
BIDS = SubsourceSpec(
    "bids",
    "bids",
    (
        column("id", INT8),
        column("buyer", INT8),
        column("auction_id", INT8),
        column("amount", INT4),
        column("bid_time", TIMESTAMPTZ),
    ),
    ("id",),
)
COMPANIES = ("Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Cyberdyne")
_FIRST = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Ken")
_LAST = ("Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Hamilton", "Thompson")
NAMES = tuple(f"{first} {last}" for last in _LAST for first in _FIRST)  # 100 users
ITEMS = ("Signed Poster", "City Tour", "Best Pizza in Town", "Gift Basket", "Custom Art")
MAX_BIDS = 10


def _auction(n: int) -> tuple[int, str, list[tuple[int, int]]]:
    """Auction n's seller, item and bids (buyer, amount), from its own seed."""
    rng = random.Random(n)
    seller = rng.randint(1, len(NAMES))
    item = rng.choice(ITEMS)
    bids = [(rng.randint(1, len(NAMES)), rng.randrange(1, 100)) for _ in range(rng.randrange(2, MAX_BIDS))]
    return seller, item, bids


class _Auction:
    outputs: tuple[SubsourceSpec, ...] = (ACCOUNTS, AUCTIONS, BIDS, ORGANIZATIONS, USERS)

    def __init__(self) -> None:
        self._starts = [1]  # _starts[n-1]: the tick that starts auction n (tick 0 is the snapshot)

    def _locate(self, tick: int) -> tuple[int, int]:
        """(auction n, event i) of a tick ≥ 1: i = 0 the auction itself, i ≥ 1 its bid i-1."""
        while self._starts[-1] <= tick:
            n = len(self._starts)
            self._starts.append(self._starts[-1] + 1 + len(_auction(n)[2]))
        n = bisect.bisect_right(self._starts, tick)
        return n, tick - self._starts[n - 1]

    def _snapshot(self) -> dict[str, Changes]:
        orgs = range(1, len(COMPANIES) + 1)
        users = range(1, len(NAMES) + 1)
        return {
            "organizations": Changes(table(ORGANIZATIONS, {"id": orgs, "name": COMPANIES})),
            "users": Changes(
                table(USERS, {"id": users, "org_id": [(u - 1) % len(COMPANIES) + 1 for u in users], "name": NAMES})
            ),
            "accounts": Changes(
                table(ACCOUNTS, {"id": [o + 42 for o in orgs], "org_id": list(orgs), "balance": [10_000] * len(orgs)})
            ),
        }

    def changes(self, start: int, end: int) -> dict[str, Changes]:
        out = self._snapshot() if start == 0 else {}
        auctions: dict[str, list[Any]] = {c.name: [] for c in AUCTIONS.columns}
        bids: dict[str, list[Any]] = {c.name: [] for c in BIDS.columns}
        now = datetime.datetime.now(datetime.UTC)
        for tick in range(max(start, 1), end):
            n, i = self._locate(tick)
            seller, item, placed = _auction(n)
            if i == 0:
                for name, value in zip(auctions, (n, seller, item, now + datetime.timedelta(seconds=10)), strict=True):
                    auctions[name].append(value)
            else:
                buyer, amount = placed[i - 1]
                bid = (n * MAX_BIDS + i - 1, buyer, n, amount, now + datetime.timedelta(seconds=i - 1))
                for name, value in zip(bids, bid, strict=True):
                    bids[name].append(value)
        if auctions["id"]:
            out["auctions"] = Changes(table(AUCTIONS, auctions))
        if bids["id"]:
            out["bids"] = Changes(table(BIDS, bids))
        return out


class Auction(LoadGenerator):
    name = "AUCTION"
    requires_selection = True
    snapshot_ticks = 1

    def generator(self, config: dict[str, Any]) -> Generator:
        return _Auction()


AUCTION = Auction()
