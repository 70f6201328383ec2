"""Session variables (GUCs): one declarative table and the per-session store with PostgreSQL's transaction
rules.

Contract: `VARIABLES` lists every variable sparkwire knows: canonical name, default, description, whether it
is reported to the client via ParameterStatus (PostgreSQL's GUC_REPORT set), whether users may change it, and
a `normalize` function that validates a proposed value and returns its canonical text (raising PgError like
PostgreSQL: 22023 for bad values, 0A000 for values we do not support). Names are case-insensitive.

`SessionVariables` holds one session's values. `set(name, value, local=…)`: a session-level SET inside a
transaction is undone if the transaction rolls back; SET LOCAL lasts until the transaction ends either way.
`end_transaction (committed)` applies those rules. Every change to the effective value of a reported variable
calls the ParameterStatus sink with the new value. Values given at startup (`overrides`) are validated like
SET.

A value is looked up, first match wins, in: SET LOCAL, SET, the startup options, the ALTER SYSTEM values
(`system()`, the catalog's `CatalogState.system_defaults`, read on every access and compared by identity, so a
session that has not SET a variable follows ALTER SYSTEM at its next statement), the built-in default. RESET and
SET … TO DEFAULT drop the SET value (PostgreSQL's reset value: startup option, else the server's default). Stored
ALTER SYSTEM values of unknown or non-settable variables, or that no longer validate, are ignored.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from sparkwire import errors as e
from sparkwire.api import ParameterStatusSink
from sparkwire.introspection.history.throttle import DEFAULT_MAX_DATA_CREDIT, DEFAULT_TARGET_DATA_RATE
from sparkwire.planner.grammar.search_path import split_list
from sparkwire.planner.statements.byte_sizes import normalize_byte_size
from sparkwire.planner.statements.materialize_variables import MZ_VARIABLES
from sparkwire.planner.statements.notice_service import NOTICE_VARIABLES
from sparkwire.version import MZ_VERSION, SERVER_VERSION, SERVER_VERSION_NUM

Normalizer = Callable[[str, str], str]  # (canonical name, proposed value) -> canonical value


def _invalid(name: str, value: str) -> e.PgError:
    return e.InvalidParameterValue(f'invalid value for parameter "{name}": "{value}"')


def _text(name: str, value: str) -> str:
    return value


def _schema_list(name: str, value: str) -> str:
    split_list(value)  # 22023 unless PostgreSQL reads it as a list of names
    return value


def _boolean(name: str, value: str) -> str:
    v = value.strip().lower()
    if v in ("on", "true", "yes", "1", "t", "y", "tru", "ye"):
        return "on"
    if v in ("off", "false", "no", "0", "f", "n", "of", "fa", "fal", "fals"):
        return "off"
    raise e.InvalidParameterValue(f'parameter "{name}" requires a Boolean value')


def _only(*allowed: str) -> Normalizer:
    def normalize(name: str, value: str) -> str:
        v = value.strip().lower()
        if v not in allowed:
            raise _invalid(name, value)
        return v

    return normalize


def _integer(low: int, high: int) -> Normalizer:
    def normalize(name: str, value: str) -> str:
        try:
            number = int(value.strip())
        except ValueError:
            raise _invalid(name, value) from None
        if not low <= number <= high:
            raise e.InvalidParameterValue(
                f'{number} is outside the valid range for parameter "{name}" ({low} .. {high})'
            )
        return str(number)

    return normalize


_DURATION = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*(ms|s|min|h|d)?\s*$", re.I)
_MS_PER_UNIT = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}


def duration_ms(value: str) -> int:
    """A canonical duration ("5s", "1500ms", "0") in milliseconds."""
    m = _DURATION.match(value)
    if not m:
        return 0
    return int(float(m.group(1)) * _MS_PER_UNIT[(m.group(2) or "ms").lower()])


def _duration(name: str, value: str, most: int = 2_147_483_647) -> str:
    m = _DURATION.match(value)
    if not m:
        raise _invalid(name, value)
    ms = int(float(m.group(1)) * _MS_PER_UNIT[(m.group(2) or "ms").lower()])
    if ms < 0 or ms > most:
        raise e.InvalidParameterValue(f'{ms} ms is outside the valid range for parameter "{name}"')
    if ms == 0:
        return "0"
    for unit in ("d", "h", "min", "s"):
        if ms % _MS_PER_UNIT[unit] == 0:
            return f"{ms // _MS_PER_UNIT[unit]}{unit}"
    return f"{ms}ms"


_PG_ENCODINGS = frozenset(
    [
        "sql_ascii",
        "euc_jp",
        "euc_cn",
        "euc_kr",
        "euc_tw",
        "euc_jis_2004",
        "mule_internal",
        "latin1",
        "latin2",
        "latin3",
        "latin4",
        "latin5",
        "latin6",
        "latin7",
        "latin8",
        "latin9",
        "latin10",
        "win1256",
        "win1258",
        "win866",
        "win874",
        "koi8r",
        "win1251",
        "win1252",
        "iso_8859_5",
        "iso_8859_6",
        "iso_8859_7",
        "iso_8859_8",
        "win1250",
        "win1253",
        "win1254",
        "win1255",
        "win1257",
        "koi8u",
        "sjis",
        "big5",
        "gbk",
        "uhc",
        "gb18030",
        "johab",
        "shift_jis_2004",
        "win932",
        "win950",
        "windows1252",
        "alt",
    ]
)


def _client_encoding(name: str, value: str) -> str:
    v = re.sub(r"[^a-z0-9]", "", value.lower())  # PostgreSQL's clean_encoding_name: 'utf-8' is UTF8
    if v in ("utf8", "unicode"):
        return "UTF8"
    if v in {re.sub(r"[^a-z0-9]", "", enc) for enc in _PG_ENCODINGS}:
        raise e.FeatureNotSupported(f'client_encoding "{value}" is not supported: sparkwire speaks UTF8 only')
    raise e.InvalidParameterValue(f'invalid value for parameter "client_encoding": "{value}"')


@cache
def _zone_names() -> dict[str, str]:
    return {z.lower(): z for z in zoneinfo.available_timezones()} | {"utc": "UTC", "gmt": "GMT", "z": "UTC"}


def _timezone(name: str, value: str) -> str:
    found = _zone_names().get(value.strip().lower())
    if found is None:
        raise _invalid(name, value)
    return found


_DATE_STYLES = {"iso": "ISO", "sql": "SQL", "postgres": "Postgres", "german": "German"}
_DATE_ORDERS = {
    "mdy": "MDY",
    "us": "MDY",
    "noneuropean": "MDY",
    "dmy": "DMY",
    "european": "DMY",
    "euro": "DMY",
    "ymd": "YMD",
}


def _datestyle(name: str, value: str) -> str:
    style, order = "ISO", "MDY"
    for part in re.split(r"[\s,]+", value.strip()):
        p = part.lower()
        if p in _DATE_STYLES:
            style = _DATE_STYLES[p]
        elif p in _DATE_ORDERS:
            order = _DATE_ORDERS[p]
        elif p != "default":
            raise _invalid(name, value)
    if style != "ISO":
        raise e.FeatureNotSupported(f'DateStyle "{style}" is not supported: sparkwire only outputs ISO dates')
    return f"{style}, {order}"


def _intervalstyle(name: str, value: str) -> str:
    v = value.strip().lower()
    if v not in ("postgres", "postgres_verbose", "sql_standard", "iso_8601"):
        raise _invalid(name, value)
    if v != "postgres":
        raise e.FeatureNotSupported(f'IntervalStyle "{v}" is not supported: sparkwire only outputs "postgres"')
    return v


def _standard_strings(name: str, value: str) -> str:
    if _boolean(name, value) != "on":
        raise e.FeatureNotSupported("standard_conforming_strings = off is not supported")
    return "on"


def _bytea_output(name: str, value: str) -> str:
    v = _only("hex", "escape")(name, value)
    if v != "hex":
        raise e.FeatureNotSupported('bytea_output "escape" is not supported')
    return v


_ISOLATION = _only("read uncommitted", "read committed", "repeatable read", "serializable", "strict serializable")
_MESSAGE_LEVELS = ("debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error")


def _retention(name: str, value: str) -> str:
    """A duration of up to ten years (a retention, not a timeout: int32 milliseconds are only 24.8 days)."""
    return _duration(name, value, most=10 * 366 * 86_400_000)


def _ratio(name: str, value: str) -> str:
    try:
        number = float(value.strip())
    except ValueError:
        raise _invalid(name, value) from None
    if not 0.0 <= number <= 1.0:
        raise e.InvalidParameterValue(f'{value} is outside the valid range for parameter "{name}" (0 .. 1)')
    return format(number, "g")


_BYTES = _integer(0, 2**63 - 1)


def _optional_bytes(name: str, value: str) -> str:
    """A number of bytes (per second) or '' for unlimited (Materialize's NULL)."""
    return _BYTES(name, value) if value.strip() else ""


_MZ_KINDS: dict[str, Normalizer] = {
    "bool": _boolean,
    "text": _text,
    "duration": _duration,
    "ratio": _ratio,
    "count": _integer(1, 1000),
}


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    default: str
    description: str
    normalize: Normalizer = _text
    report: bool = False
    settable: bool = True
    system_only: bool = False  # ALTER SYSTEM sets it; a session's SET cannot (the statement history's limits)


VARIABLES: tuple[Variable, ...] = (
    Variable(
        "application_name",
        "",
        "Sets the application name to be reported in statistics and logs.",
        report=True,
    ),
    Variable("bytea_output", "hex", "Sets the output format for bytea.", _bytea_output),
    Variable("client_encoding", "UTF8", "Sets the client's character set encoding.", _client_encoding, report=True),
    Variable(
        "client_min_messages",
        "notice",
        "Sets the message levels that are sent to the client.",
        _only(*_MESSAGE_LEVELS),
    ),
    Variable("cluster", "quickstart", "Sets the current cluster (Materialize)."),
    Variable("database", "materialize", "Sets the current database (Materialize).", settable=False),
    Variable("DateStyle", "ISO, MDY", "Sets the display format for date and time values.", _datestyle, report=True),
    Variable(
        "default_transaction_isolation",
        "strict serializable",
        "Sets the transaction isolation level of each new transaction.",
        _ISOLATION,
    ),
    Variable(
        "default_transaction_read_only",
        "off",
        "Sets the default read-only status of new transactions.",
        _boolean,
        report=True,
    ),
    Variable(
        "extra_float_digits",
        "1",
        "Sets the number of digits displayed for floating-point values.",
        _integer(-15, 3),
    ),
    Variable(
        "idle_in_transaction_session_timeout",
        "0",
        "Sets the maximum allowed idle time between queries, when in a transaction.",
        _duration,
    ),
    Variable("in_hot_standby", "off", "Shows whether hot standby is currently active.", settable=False, report=True),
    Variable("integer_datetimes", "on", "Shows whether datetimes are integer based.", settable=False, report=True),
    Variable(
        "IntervalStyle",
        "postgres",
        "Sets the display format for interval values.",
        _intervalstyle,
        report=True,
    ),
    Variable("is_superuser", "on", "Shows whether the current user is a superuser.", settable=False, report=True),
    Variable("jit", "off", "Allow JIT compilation (accepted for client compatibility; no effect).", _boolean),
    Variable("lock_timeout", "0", "Sets the maximum allowed duration of any wait for a lock.", _duration),
    Variable("max_identifier_length", "63", "Shows the maximum identifier length.", settable=False),
    Variable(
        "max_query_result_size",
        "1GB",
        "The maximum size in bytes for a single query's result (Materialize).",
        normalize_byte_size,
    ),
    Variable("role", "none", "Sets the current session's role.", settable=False),
    Variable(
        "search_path",
        "public",
        "Sets the schema search order for names that are not schema-qualified.",
        _schema_list,
    ),
    Variable(
        "server_encoding",
        "UTF8",
        "Shows the server (database) character set encoding.",
        settable=False,
        report=True,
    ),
    Variable("server_version", SERVER_VERSION, "Shows the server version.", settable=False, report=True),
    Variable("server_version_num", SERVER_VERSION_NUM, "Shows the server version as an integer.", settable=False),
    Variable("session_authorization", "materialize", "Sets the session user name.", settable=False, report=True),
    Variable(
        "standard_conforming_strings",
        "on",
        "Causes '...' strings to treat backslashes literally.",
        _standard_strings,
        report=True,
    ),
    Variable("statement_timeout", "0", "Sets the maximum allowed duration of any statement.", _duration),
    Variable(
        "TimeZone",
        "UTC",
        "Sets the time zone for displaying and interpreting time stamps.",
        _timezone,
        report=True,
    ),
    Variable(
        "transaction_isolation",
        "strict serializable",
        "Sets the current transaction's isolation level.",
        _ISOLATION,
    ),
    Variable("transaction_read_only", "off", "Sets the current transaction's read-only status.", _boolean),
    Variable("progress_notices", "off", "Sends a NOTICE with a Spark query's progress every few seconds.", _boolean),
    *(Variable(name, default, description, _boolean) for name, default, description in NOTICE_VARIABLES),
    Variable("mz_version", MZ_VERSION, "Shows the Materialize server version.", settable=False, report=True),
    Variable(
        "statement_logging_max_sample_rate",
        "1",
        "The most any session's statement_logging_sample_rate may log (ALTER SYSTEM only).",
        _ratio,
        system_only=True,
    ),
    Variable(
        "statement_logging_retention",
        "30d",
        "How long the statement history keeps statements and sessions (ALTER SYSTEM only).",
        _retention,
        system_only=True,
    ),
    Variable(
        "statement_logging_target_data_rate",
        str(DEFAULT_TARGET_DATA_RATE),
        "The sustained bytes per second the statement history may take, or '' for unlimited (ALTER SYSTEM only).",
        _optional_bytes,
        system_only=True,
    ),
    Variable(
        "statement_logging_max_data_credit",
        str(DEFAULT_MAX_DATA_CREDIT),
        "The most bytes the statement history may take in a burst above its data rate, or '' for unlimited "
        "(ALTER SYSTEM only).",
        _optional_bytes,
        system_only=True,
    ),
    *(Variable(name, default, description, _MZ_KINDS[kind]) for name, default, kind, description in MZ_VARIABLES),
)

_BY_NAME: dict[str, Variable] = {v.name.lower(): v for v in VARIABLES}
_ALIASES = {
    "names": "client_encoding",
    "time zone": "timezone",
    "transaction isolation level": "transaction_isolation",
}


def lookup(name: str) -> Variable:
    """The variable called `name` (any case, aliases allowed) or 42704."""
    key = name.strip().lower()
    found = _BY_NAME.get(_ALIASES.get(key, key))
    if found is None and key.startswith("spark."):
        raise e.InsufficientPrivilege(f'permission denied to set parameter "{name}"')
    if found is None:
        raise e.UndefinedObject(f'unrecognized configuration parameter "{name}"')
    return found


SystemDefaults = Callable[[], Mapping[str, str]]  # ALTER SYSTEM values by canonical name (catalog state)


def _no_system_defaults() -> Mapping[str, str]:
    return {}


class SessionVariables:
    def __init__(
        self,
        report: ParameterStatusSink,
        overrides: dict[str, str],
        system: SystemDefaults = _no_system_defaults,
    ) -> None:
        self._report = report
        self._system_source = system
        self._system_seen: Mapping[str, str] | None = None  # the mapping `_system` was last read from
        self._system: dict[str, str] = {}
        self._startup: dict[str, str] = {}
        for name, value in overrides.items():
            var = lookup(name)
            self._startup[var.name] = var.normalize(var.name, value)
        self._session: dict[str, str] = {}  # SET values; absent: the reset value (see `reset_value`)
        self._local: dict[str, str] = {}
        self._saved: dict[str, str] | None = None  # session values at transaction start
        self._version = 0
        self._sync_system()

    @property
    def version(self) -> int:
        """Bumped on every change of an effective value, so callers can cache values derived from the settings."""
        self._sync_system()
        return self._version

    def reset_value(self, name: str) -> str:
        """What RESET returns `name` to: its startup value, else its ALTER SYSTEM value, else its default."""
        var = lookup(name)
        self._sync_system()
        return _first(var, self._startup, self._system)

    def get(self, name: str) -> str:
        var = lookup(name)
        self._sync_system()
        return self._effective(var)

    def reported(self) -> dict[str, str]:
        return {v.name: self.get(v.name) for v in VARIABLES if v.report}

    def all(self) -> list[tuple[str, str, str]]:
        return [(v.name, self.get(v.name), v.description) for v in sorted(VARIABLES, key=lambda v: v.name.lower())]

    def set(
        self,
        name: str,
        value: str | None,
        *,
        local: bool = False,
        in_transaction: bool = False,
        internal: bool = False,
    ) -> None:
        """SET name = value (None = DEFAULT, the reset value). `local` changes last until the transaction ends;
        `internal`: a value sparkwire sets for a statement of its own (SET ROLE), allowed for read-only ones."""
        var = lookup(name)
        if (not var.settable or var.system_only) and not internal:
            hint = "Change it for the whole system with ALTER SYSTEM." if var.settable else None
            raise e.CantChangeRuntimeParam(f'parameter "{var.name}" cannot be changed', hint=hint)
        canonical = None if value is None else var.normalize(var.name, value)
        before = self.get(var.name)
        if local:
            self._local[var.name] = self.reset_value(var.name) if canonical is None else canonical
        else:
            if in_transaction and self._saved is None:
                self._saved = dict(self._session)
            if canonical is None:
                self._session.pop(var.name, None)
            else:
                self._session[var.name] = canonical
            self._local.pop(var.name, None)
        self._announce(var, before)

    def set_internal(self, name: str, value: str) -> None:
        """Set a value sparkwire controls (e.g. transaction_isolation at BEGIN) without user-facing checks."""
        var = lookup(name)
        before = self.get(var.name)
        self._local[var.name] = var.normalize(var.name, value)
        self._announce(var, before)

    def reset_all(self, *, in_transaction: bool = False) -> None:
        for var in VARIABLES:
            if var.settable and not var.system_only:
                self.set(var.name, None, in_transaction=in_transaction)

    def end_transaction(self, committed: bool) -> None:
        if self._saved is None and not self._local:
            return
        before = {v.name: self.get(v.name) for v in VARIABLES}
        if not committed and self._saved is not None:
            self._session = self._saved
        self._saved = None
        self._local.clear()
        for var in VARIABLES:
            self._announce(var, before[var.name])

    def _sync_system(self) -> None:
        """Take up a changed set of ALTER SYSTEM values; variables that follow them announce their new value."""
        source = self._system_source()
        if source is self._system_seen:
            return
        self._system_seen = source
        known = {}
        for name, value in source.items():
            var = _BY_NAME.get(name.lower())
            try:
                if var is not None and var.settable:
                    known[var.name] = var.normalize(var.name, value)
            except e.PgError:
                continue  # stored under rules this version no longer accepts: the built-in default applies
        if known == self._system:
            return
        before = {v.name: self._effective(v) for v in VARIABLES}
        self._system = known
        for var in VARIABLES:
            self._announce(var, before[var.name])

    def _effective(self, var: Variable) -> str:
        return _first(var, self._local, self._session, self._startup, self._system)

    def _announce(self, var: Variable, before: str) -> None:
        self._version += 1
        after = self._effective(var)
        if var.report and after != before:
            self._report(var.name, after)


def _first(var: Variable, *layers: Mapping[str, str]) -> str:
    """The value of `var` in the first layer that has one, else its built-in default."""
    for layer in layers:
        value = layer.get(var.name)
        if value is not None:
            return value
    return var.default
