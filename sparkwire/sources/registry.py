"""Source types: adding one is one module (a `SourceType`) and one line in `SOURCE_TYPES` below.

The planner's generic grammar (planner/grammar/sources.py) reads every CREATE SOURCE's shape:

    CREATE SOURCE [IF NOT EXISTS] name [IN CLUSTER c]
      FROM LOAD GENERATOR <TYPE> [(option, …)] | FROM <TYPE> CONNECTION conn [(option, …)]
      [FOR ALL TABLES | FOR TABLES (upstream [AS name], …) | FOR SCHEMAS (schema, …)]
      [EXPOSE PROGRESS AS name]

and hands the type-specific part to the type's module as a `SourceRequest`: the options as `(NAME, value)` pairs
(NAME the option's words upper-cased and joined by one space: `TICK INTERVAL`, `TEXT COLUMNS`; a value is a
string, a number's text, a word, a tuple of (possibly dotted) names for a parenthesized list, or None), the
connection's catalog item (None for load generators) and the selection.

Contract of a `SourceType` (one instance per type, stateless; called from any thread):
- `name` is the word after LOAD GENERATOR / FROM (`COUNTER`, `AUCTION`, `TPCH`, `POSTGRES`); `load_generator` says
  which form it takes; `mz_type` is Materialize's mz_sources.type (`load-generator`, `postgres`).
- `configure(request, context)` validates the options (a PgError with Materialize's SQLSTATE and wording for a
  bad one) and returns the type's configuration as JSON text; the catalog stores it (Item.source_options) and every
  later call gets it back, so a restarted server opens the same reader. It may reach the upstream (PostgreSQL:
  check the publication); it must not leave anything behind there (a replication slot is made by the reader).
- `open(config, context)` returns the `UpstreamReader` (sparkwire/sources/reader.py). At CREATE SOURCE its
  `subsources()` decide the subsources; then ingestion calls `run` on a thread of its own and `close` on DROP.
- `primary_output(config)` names the reader output that feeds the source relation itself (COUNTER's `counter`),
  or None when the source relation has no columns and every output is a subsource (AUCTION, TPCH, POSTGRES).
- `requires_selection`: FOR ALL TABLES / FOR TABLES / FOR SCHEMAS is required (a multi-output source) when True,
  refused when False.
- `progress_columns` are the `<source>_progress` relation's columns (load generators: `offset`; PostgreSQL:
  `lsn`); `progress_row(offset)` turns a batch's opaque offset into that relation's one row, and
  `resume_offset(row)` turns the row read back at a restart into the offset `run` resumes from. The round trip
  must be exact: the progress relation is the durable record of where ingestion is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.sources.reader import SubsourceColumn, UpstreamReader

OptionValue = str | tuple[str, ...] | None
Options = tuple[tuple[str, OptionValue], ...]


@dataclass(frozen=True, slots=True)
class Selection:
    """FOR ALL TABLES (`all`), FOR TABLES (`tables`: (upstream reference, name or None)) or FOR SCHEMAS
    (`schemas`); none of them: `given` False. Names are as written (dotted parts joined with `.`)."""

    given: bool = False
    all: bool = False
    tables: tuple[tuple[str, str | None], ...] = ()
    schemas: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceRequest:
    type_name: str
    options: Options = ()
    connection: Item | None = None
    selection: Selection = Selection()


@dataclass(frozen=True, slots=True)
class SourceContext:
    """What a type may need beyond its configuration: the catalog state (connections, secrets), the data
    directory (secrets at rest), the source's catalog id (None while planning CREATE SOURCE) and name."""

    state: CatalogState
    data_dir: Path | None = None
    source_id: str | None = None
    source_name: str = ""


class SourceType(Protocol):
    name: str
    mz_type: str
    load_generator: bool
    requires_selection: bool
    progress_columns: tuple[SubsourceColumn, ...]

    def configure(self, request: SourceRequest, context: SourceContext) -> str: ...

    def open(self, config: str, context: SourceContext) -> UpstreamReader: ...

    def primary_output(self, config: str) -> str | None: ...

    def progress_row(self, offset: str) -> dict[str, object]: ...

    def resume_offset(self, row: dict[str, object]) -> str | None: ...


def _types() -> dict[str, SourceType]:
    from sparkwire.sources.generators import auction, counter, tpch
    from sparkwire.sources.postgres.source_type import POSTGRES

    found: list[SourceType] = [counter.COUNTER, auction.AUCTION, tpch.TPCH, POSTGRES]
    return {t.name: t for t in found}


_REGISTRY: dict[str, SourceType] = {}


def source_type(name: str, *, load_generator: bool | None = None) -> SourceType:
    """The type named `name` (case-insensitive); 0A000 for one sparkwire does not have."""
    if not _REGISTRY:
        _REGISTRY.update(_types())
    found = _REGISTRY.get(name.upper())
    if found is None or (load_generator is not None and found.load_generator != load_generator):
        what = f"LOAD GENERATOR {name.upper()}" if load_generator else name.upper()
        raise e.FeatureNotSupported(f"CREATE SOURCE … FROM {what} is not supported")
    return found


def source_types() -> tuple[SourceType, ...]:
    if not _REGISTRY:
        _REGISTRY.update(_types())
    return tuple(_REGISTRY.values())
