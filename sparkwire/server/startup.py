"""Interpret a StartupMessage: who connects to what, with which session settings. No I/O.

Contract: `interpret_startup(msg)` returns a `StartupRequest` or raises a FATAL `PgError`:
- `user` is required (28000); `database` defaults to `materialize` (Materialize's default, not the user name).
- `options` is split like PostgreSQL's pg_split_opts (whitespace separates, backslash escapes the next
  character) and understands `-c name=value`, `-cname=value` and `--name=value`; dashes in names become
  underscores.
- every other key except `_pq_.*` protocol options is a setting; keys in the packet override `options` (as in
  PostgreSQL). `application_name` is lifted into its own field.
- `_pq_.*` keys and a minor version > 0 are reported for NegotiateProtocolVersion.

"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire.errors import InvalidAuthorizationSpecification, SyntaxError
from sparkwire.server.frontend import StartupMessage

DEFAULT_DATABASE = "materialize"
NEWEST_MINOR = 0


@dataclass(frozen=True, slots=True)
class StartupRequest:
    user: str
    database: str
    application_name: str
    settings: dict[str, str]
    requested_minor: int
    unrecognized_protocol_options: list[str]

    @property
    def needs_negotiation(self) -> bool:
        return self.requested_minor > NEWEST_MINOR or bool(self.unrecognized_protocol_options)


def split_options(value: str) -> list[str]:
    """pg_split_opts: split on whitespace; a backslash makes the next character literal."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    escaped = False
    for ch in value:
        if escaped:
            current.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
            in_word = True
        elif ch.isspace():
            if in_word:
                words.append("".join(current))
                current = []
                in_word = False
        else:
            current.append(ch)
            in_word = True
    if in_word:
        words.append("".join(current))
    return words


def _setting(arg: str, switch: str) -> tuple[str, str]:
    name, sep, value = arg.partition("=")
    if not sep or not name:
        raise SyntaxError(f"{switch} {arg} requires a value", severity="FATAL")
    return name.replace("-", "_"), value


def parse_options(value: str) -> dict[str, str]:
    """The settings in a startup `options` string."""
    settings: dict[str, str] = {}
    words = split_options(value)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-c":
            if i + 1 >= len(words):
                raise SyntaxError("-c requires a value", severity="FATAL")
            name, val = _setting(words[i + 1], "-c")
            i += 2
        elif word.startswith("-c"):
            name, val = _setting(word[2:], "-c")
            i += 1
        elif word.startswith("--") and len(word) > 2:
            name, val = _setting(word[2:], "--")
            i += 1
        else:
            raise SyntaxError(
                f"invalid command-line argument for server process: {word}",
                hint='Use "-c name=value" or "--name=value".',
                severity="FATAL",
            )
        settings[name] = val
    return settings


def interpret_startup(msg: StartupMessage) -> StartupRequest:
    params = dict(msg.params)
    user = params.pop("user", "")
    if not user:
        raise InvalidAuthorizationSpecification(
            "no PostgreSQL user name specified in startup packet", severity="FATAL"
        )
    database = params.pop("database", "") or DEFAULT_DATABASE
    settings = parse_options(params.pop("options", ""))
    unrecognized = sorted(key for key in params if key.startswith("_pq_."))
    settings.update((k, v) for k, v in params.items() if not k.startswith("_pq_."))
    application_name = settings.pop("application_name", "")
    return StartupRequest(user, database, application_name, settings, msg.minor, unrecognized)
