"""LOAD GENERATOR TPCH (SCALE FACTOR x) FOR ALL TABLES: the eight TPC-H tables with Materialize's columns and types.

Row counts follow the TPC-H specification (supplier 10,000 × SF, part 200,000 × SF with 4 partsupp rows each,
customer 150,000 × SF, orders 1,500,000 × SF with 1-7 lineitems each, 25 nations, 5 regions; at least one row
each), values its distributions in spirit (not dbgen's exact text). Every value is a hash of (table, key,
generation, field), computed vectorized with numpy, so the snapshot is deterministic and fast (SCALE FACTOR 0.01:
~60,000 lineitems in well under a second). Tick 0 is the snapshot; each later tick n replaces one order and its
lineitems by a new generation of them (order key (n-1) mod orders + 1: its old rows deleted, the new inserted),
as Materialize's TPCH source keeps changing. Default SCALE FACTOR 0.01.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.sources.generators.base import (
    DATE,
    INT4,
    INT8,
    NUMERIC,
    POSITIVE,
    TEXT,
    Extra,
    Generator,
    LoadGenerator,
    column,
)
from sparkwire.sources.reader import Changes, SubsourceSpec

U64 = npt.NDArray[np.uint64]
MONEY = (15 << 16 | 2) + 4  # numeric(15,2)
MONEY_TYPE = pa.decimal128(15, 2)
CENT = Decimal("0.01")
_MASK = (1 << 64) - 1


def _spec(name: str, key: tuple[str, ...], *columns: tuple[str, int]) -> SubsourceSpec:
    return SubsourceSpec(name, name, tuple(column(n, t, MONEY if t == NUMERIC else -1) for n, t in columns), key)


SUPPLIER = _spec("supplier", ("s_suppkey",), ("s_suppkey", INT8), ("s_name", TEXT), ("s_address", TEXT),
                 ("s_nationkey", INT8), ("s_phone", TEXT), ("s_acctbal", NUMERIC), ("s_comment", TEXT))  # fmt: skip
PART = _spec("part", ("p_partkey",), ("p_partkey", INT8), ("p_name", TEXT), ("p_mfgr", TEXT), ("p_brand", TEXT),
             ("p_type", TEXT), ("p_size", INT4), ("p_container", TEXT), ("p_retailprice", NUMERIC),
             ("p_comment", TEXT))  # fmt: skip
PARTSUPP = _spec("partsupp", ("ps_partkey", "ps_suppkey"), ("ps_partkey", INT8), ("ps_suppkey", INT8),
                 ("ps_availqty", INT4), ("ps_supplycost", NUMERIC), ("ps_comment", TEXT))  # fmt: skip
CUSTOMER = _spec("customer", ("c_custkey",), ("c_custkey", INT8), ("c_name", TEXT), ("c_address", TEXT),
                 ("c_nationkey", INT8), ("c_phone", TEXT), ("c_acctbal", NUMERIC), ("c_mktsegment", TEXT),
                 ("c_comment", TEXT))  # fmt: skip
ORDERS = _spec("orders", ("o_orderkey",), ("o_orderkey", INT8), ("o_custkey", INT8), ("o_orderstatus", TEXT),
               ("o_totalprice", NUMERIC), ("o_orderdate", DATE), ("o_orderpriority", TEXT), ("o_clerk", TEXT),
               ("o_shippriority", INT4), ("o_comment", TEXT))  # fmt: skip
LINEITEM = _spec("lineitem", ("l_orderkey", "l_linenumber"), ("l_orderkey", INT8), ("l_partkey", INT8),
                 ("l_suppkey", INT8), ("l_linenumber", INT4), ("l_quantity", NUMERIC), ("l_extendedprice", NUMERIC),
                 ("l_discount", NUMERIC), ("l_tax", NUMERIC), ("l_returnflag", TEXT), ("l_linestatus", TEXT),
                 ("l_shipdate", DATE), ("l_commitdate", DATE), ("l_receiptdate", DATE), ("l_shipinstruct", TEXT),
                 ("l_shipmode", TEXT), ("l_comment", TEXT))  # fmt: skip
NATION = _spec("nation", ("n_nationkey",), ("n_nationkey", INT8), ("n_name", TEXT), ("n_regionkey", INT8),
               ("n_comment", TEXT))  # fmt: skip
REGION = _spec("region", ("r_regionkey",), ("r_regionkey", INT8), ("r_name", TEXT), ("r_comment", TEXT))

REGIONS = ("AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST")
NATIONS = (("ALGERIA", 0), ("ARGENTINA", 1), ("BRAZIL", 1), ("CANADA", 1), ("EGYPT", 4), ("ETHIOPIA", 0),
           ("FRANCE", 3), ("GERMANY", 3), ("INDIA", 2), ("INDONESIA", 2), ("IRAN", 4), ("IRAQ", 4), ("JAPAN", 2),
           ("JORDAN", 4), ("KENYA", 0), ("MOROCCO", 0), ("MOZAMBIQUE", 0), ("PERU", 1), ("CHINA", 2), ("ROMANIA", 3),
           ("SAUDI ARABIA", 4), ("VIETNAM", 2), ("RUSSIA", 3), ("UNITED KINGDOM", 3), ("UNITED STATES", 1))  # fmt: skip
_WORDS_TEXT = (
    "furiously quickly carefully blithely slyly final pending regular express special ironic bold even "
    "silent deposits requests packages accounts instructions theodolites foxes pinto beans dependencies "
    "platelets ideas courts asymptotes sleep wake haggle nag cajole use boost"
)
WORDS = np.array(_WORDS_TEXT.split())
_COLORS_TEXT = (
    "almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood chartreuse "
    "chocolate coral cornflower cream cyan dark deep dim dodger drab firebrick forest frosted gainsboro "
    "ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen "
    "magenta maroon medium metallic midnight mint misty moccasin navajo navy olive orange orchid pale "
    "papaya peach peru pink plum powder puff purple red rose rosy royal saddle salmon sandy seashell "
    "sienna sky slate smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow"
)
COLORS = np.array(_COLORS_TEXT.split())
TYPES = (np.array(["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]),
         np.array(["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"]),
         np.array(["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]))  # fmt: skip
CONTAINERS = (np.array(["SM", "LG", "MED", "JUMBO", "WRAP"]),
              np.array(["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"]))  # fmt: skip
SEGMENTS = np.array(["AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"])
PRIORITIES = np.array(["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"])
INSTRUCTIONS = np.array(["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"])
MODES = np.array(["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"])
START_DATE = np.datetime64("1992-01-01")
CURRENT_DATE = np.datetime64("1995-06-17")
ORDER_DAYS = 2405 - 151  # order dates 1992-01-01 … 1998-08-02 minus 151 days


def _mix(x: U64) -> U64:
    """splitmix64's finalizer: a good 64-bit hash, vectorized (uint64 arithmetic wraps)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


class _Hash:
    def __init__(self, table: int, keys: npt.NDArray[np.int64], generation: int = 0) -> None:
        self._base = _mix(keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(table << 40 | generation))

    def uniform(self, field: int, low: int, high: int) -> npt.NDArray[np.int64]:
        """Uniform in low … high (inclusive)."""
        r = _mix(self._base + np.uint64((field * 0x632BE59BD9B4E019) & _MASK))
        return (r % np.uint64(high - low + 1)).astype(np.int64) + low

    def pick(self, field: int, choices: npt.NDArray[np.str_]) -> npt.NDArray[np.str_]:
        return choices[self.uniform(field, 0, len(choices) - 1)]

    def words(self, field: int, count: int, choices: npt.NDArray[np.str_] = WORDS) -> npt.NDArray[np.str_]:
        out = self.pick(field, choices)
        for k in range(1, count):
            out = np.char.add(np.char.add(out, " "), self.pick(field * 31 + k, choices))
        return out

    def money(self, field: int, low_cents: int, high_cents: int) -> pa.Array:
        return _cents(self.uniform(field, low_cents, high_cents))


def _cents(cents: npt.NDArray[np.int64]) -> pa.Array:
    return pc.multiply(pa.array(cents, pa.int64()).cast(pa.decimal128(19, 0)), pa.scalar(CENT)).cast(MONEY_TYPE)


def _keyed(prefix: str, keys: npt.NDArray[np.int64]) -> npt.NDArray[np.str_]:
    return np.char.add(prefix, np.char.zfill(keys.astype(str), 9))


def _phone(h: _Hash, nations: npt.NDArray[np.int64]) -> npt.NDArray[np.str_]:
    parts = [(nations + 10).astype(str), h.uniform(20, 100, 999).astype(str), h.uniform(21, 100, 999).astype(str),
             h.uniform(22, 1000, 9999).astype(str)]  # fmt: skip
    out = parts[0]
    for part in parts[1:]:
        out = np.char.add(np.char.add(out, "-"), part)
    return out


def _table(spec: SubsourceSpec, values: dict[str, Any]) -> pa.Table:
    from sparkwire.pgtypes.mapping import arrow_type_for_pg

    return pa.table({c.name: pa.array(values[c.name]).cast(arrow_type_for_pg(c.type_oid, c.typmod))
                     for c in spec.columns})  # fmt: skip


def _days(values: npt.NDArray[np.int64]) -> pa.Array:
    return pa.array((START_DATE + values.astype("timedelta64[D]")).astype("datetime64[D]"), pa.date32())


class _Tpch:
    outputs: tuple[SubsourceSpec, ...] = (CUSTOMER, LINEITEM, NATION, ORDERS, PART, PARTSUPP, REGION, SUPPLIER)

    def __init__(self, scale: float) -> None:
        self.suppliers = max(1, int(10_000 * scale))
        self.parts = max(1, int(200_000 * scale))
        self.customers = max(1, int(150_000 * scale))
        self.orders = max(1, int(1_500_000 * scale))
        self.clerks = max(1, int(1_000 * scale))

    def _retail_cents(self, parts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return 90_000 + (parts // 10) % 20_001 + 100 * (parts % 1_000)

    def _supplier_of(self, parts: npt.NDArray[np.int64], i: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        s = self.suppliers
        return (parts + i * (s // 4 + (parts - 1) // s)) % s + 1

    def _fixed(self) -> dict[str, Changes]:
        regions = np.arange(len(REGIONS), dtype=np.int64)
        nations = np.arange(len(NATIONS), dtype=np.int64)
        sup = np.arange(1, self.suppliers + 1, dtype=np.int64)
        hs = _Hash(1, sup)
        s_nation = hs.uniform(1, 0, 24)
        part = np.arange(1, self.parts + 1, dtype=np.int64)
        hp = _Hash(2, part)
        ps_part = np.repeat(part, 4)
        ps_i = np.tile(np.arange(4, dtype=np.int64), self.parts)
        hps = _Hash(3, ps_part * 4 + ps_i)
        cust = np.arange(1, self.customers + 1, dtype=np.int64)
        hc = _Hash(4, cust)
        c_nation = hc.uniform(1, 0, 24)
        p_type = np.char.add(np.char.add(np.char.add(np.char.add(hp.pick(3, TYPES[0]), " "), hp.pick(4, TYPES[1])),
                                         " "), hp.pick(5, TYPES[2]))  # fmt: skip
        mfgr = hp.uniform(1, 1, 5)
        tables = {
            "region": _table(REGION, {"r_regionkey": regions, "r_name": list(REGIONS),
                                      "r_comment": _Hash(5, regions).words(1, 6)}),
            "nation": _table(NATION, {"n_nationkey": nations, "n_name": [n for n, _ in NATIONS],
                                      "n_regionkey": [r for _, r in NATIONS],
                                      "n_comment": _Hash(6, nations).words(1, 8)}),
            "supplier": _table(SUPPLIER, {"s_suppkey": sup, "s_name": _keyed("Supplier#", sup),
                                          "s_address": hs.words(2, 2), "s_nationkey": s_nation,
                                          "s_phone": _phone(hs, s_nation), "s_acctbal": hs.money(3, -99_999, 999_999),
                                          "s_comment": hs.words(4, 8)}),
            "part": _table(PART, {"p_partkey": part, "p_name": hp.words(2, 5, COLORS),
                                  "p_mfgr": np.char.add("Manufacturer#", mfgr.astype(str)),
                                  "p_brand": np.char.add(np.char.add("Brand#", mfgr.astype(str)),
                                                         hp.uniform(6, 1, 5).astype(str)),
                                  "p_type": p_type, "p_size": hp.uniform(7, 1, 50),
                                  "p_container": np.char.add(np.char.add(hp.pick(8, CONTAINERS[0]), " "),
                                                             hp.pick(9, CONTAINERS[1])),
                                  "p_retailprice": _cents(self._retail_cents(part)), "p_comment": hp.words(10, 3)}),
            "partsupp": _table(PARTSUPP, {"ps_partkey": ps_part, "ps_suppkey": self._supplier_of(ps_part, ps_i),
                                          "ps_availqty": hps.uniform(1, 1, 9_999),
                                          "ps_supplycost": hps.money(2, 100, 100_000),
                                          "ps_comment": hps.words(3, 10)}),
            "customer": _table(CUSTOMER, {"c_custkey": cust, "c_name": _keyed("Customer#", cust),
                                          "c_address": hc.words(2, 2), "c_nationkey": c_nation,
                                          "c_phone": _phone(hc, c_nation), "c_acctbal": hc.money(3, -99_999, 999_999),
                                          "c_mktsegment": hc.pick(5, SEGMENTS), "c_comment": hc.words(6, 8)}),
        }  # fmt: skip
        return {name: Changes(rows) for name, rows in tables.items()}

    def _orders(self, keys: npt.NDArray[np.int64], generation: int) -> tuple[pa.Table, pa.Table]:
        """Orders `keys` of one generation with their lineitems."""
        ho = _Hash(7, keys, generation)
        lines = ho.uniform(1, 1, 7)
        orderdate = ho.uniform(2, 0, ORDER_DAYS)
        l_order = np.repeat(keys, lines)
        l_number = np.concatenate([np.arange(1, n + 1, dtype=np.int64) for n in lines]) if len(keys) else keys
        hl = _Hash(8, l_order * 8 + l_number, generation)
        l_part = hl.uniform(1, 1, self.parts)
        quantity = hl.uniform(2, 1, 50)
        extended = quantity * self._retail_cents(l_part)
        discount, tax = hl.uniform(3, 0, 10), hl.uniform(4, 0, 8)
        l_orderdate = np.repeat(orderdate, lines)
        ship = l_orderdate + hl.uniform(5, 1, 121)
        receipt = ship + hl.uniform(6, 1, 30)
        current = (CURRENT_DATE - START_DATE).astype(np.int64)
        returned = np.where(hl.uniform(7, 0, 1) == 0, "R", "A")
        linestatus = np.where(ship > current, "O", "F")
        charged = extended * (100 - discount) * (100 + tax) // 10_000
        starts = np.concatenate([[0], np.cumsum(lines)[:-1]]) if len(keys) else keys
        total = np.add.reduceat(charged, starts) if len(keys) else keys
        shipped = np.add.reduceat((linestatus == "F").astype(np.int64), starts) if len(keys) else keys
        status = np.where(shipped == lines, "F", np.where(shipped == 0, "O", "P"))
        orders = _table(ORDERS, {"o_orderkey": keys, "o_custkey": ho.uniform(3, 1, self.customers),
                                 "o_orderstatus": status, "o_totalprice": _cents(total),
                                 "o_orderdate": _days(orderdate),
                                 "o_orderpriority": ho.pick(4, PRIORITIES),
                                 "o_clerk": _keyed("Clerk#", ho.uniform(5, 1, self.clerks)), "o_shippriority": keys * 0,
                                 "o_comment": ho.words(6, 6)})  # fmt: skip
        lineitem = _table(LINEITEM, {"l_orderkey": l_order, "l_partkey": l_part,
                                     "l_suppkey": self._supplier_of(l_part, hl.uniform(8, 0, 3)),
                                     "l_linenumber": l_number,
                                     "l_quantity": _cents(quantity * 100), "l_extendedprice": _cents(extended),
                                     "l_discount": _cents(discount), "l_tax": _cents(tax),
                                     "l_returnflag": np.where(receipt <= current, returned, "N"),
                                     "l_linestatus": linestatus, "l_shipdate": _days(ship),
                                     "l_commitdate": _days(l_orderdate + hl.uniform(9, 30, 90)),
                                     "l_receiptdate": _days(receipt), "l_shipinstruct": hl.pick(10, INSTRUCTIONS),
                                     "l_shipmode": hl.pick(11, MODES), "l_comment": hl.words(12, 4)})  # fmt: skip
        return orders, lineitem

    def changes(self, start: int, end: int) -> dict[str, Changes]:
        out = self._fixed() if start == 0 else {}
        ticks = np.arange(max(start, 1), end, dtype=np.int64)
        if start == 0:  # the snapshot: every order at the generation ticks 1 … end-1 left it in
            keys = np.arange(1, self.orders + 1, dtype=np.int64)
            generations = np.where(end - 1 >= keys, (end - 1 - keys) // self.orders + 1, 0)
            made = [self._orders(keys[generations == g], int(g)) for g in np.unique(generations)]
            out["orders"] = Changes(pa.concat_tables([m[0] for m in made]))
            out["lineitem"] = Changes(pa.concat_tables([m[1] for m in made]))
            return out
        inserts: list[tuple[pa.Table, pa.Table]] = []
        deletes: list[tuple[pa.Table, pa.Table]] = []
        for tick in ticks.tolist():
            key = np.array([(tick - 1) % self.orders + 1], dtype=np.int64)
            generation = (tick - 1) // self.orders + 1
            deletes.append(self._orders(key, generation - 1))
            inserts.append(self._orders(key, generation))
        for i, name in enumerate(("orders", "lineitem")):
            out[name] = Changes(
                pa.concat_tables([pair[i] for pair in inserts]), pa.concat_tables([pair[i] for pair in deletes])
            )
        return out


class Tpch(LoadGenerator):
    name = "TPCH"
    requires_selection = True
    snapshot_ticks = 1
    extra: ClassVar[Extra] = {"SCALE FACTOR": ("scale_factor", POSITIVE, 0.01)}

    def generator(self, config: dict[str, Any]) -> Generator:
        return _Tpch(float(config["scale_factor"]))


TPCH = Tpch()
