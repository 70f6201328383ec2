"""search_path's text, as PostgreSQL writes and reads it (a GUC_LIST_QUOTE list of schema names).

Contract:
- `format_list(elements)`: the value `SET search_path = a, "B", 'c d'` stores: each element (an identifier already
  folded, or a string literal's text, which is one element whatever it holds) quoted as quote_ident quotes, joined
  by `, ` — what SHOW prints, as PostgreSQL prints it (`s1, "My", "$user", public`).
- `split_list(value)`: the schema names a stored value lists, as PostgreSQL's SplitIdentifierString reads them
  (`set_config('search_path', 'S1, "My"', false)` lists `s1` and `My`): comma-separated, unquoted names folded to
  lower case, `""` inside quotes one quote (`""` alone: the empty name); an empty unquoted element or an
  unbalanced quote makes the list invalid
  (22023 `invalid value for parameter "search_path"`).
- `schemas_of(value, user)`: the schemas to search, in order: `split_list` with `$user` replaced by the session
  user's name (PostgreSQL searches a schema of that name when one exists).
"""

from __future__ import annotations

from sparkwire import errors as e
from sparkwire.catalog.relations.relation import quote_ident

USER_ELEMENT = "$user"


def format_list(elements: list[str]) -> str:
    return ", ".join(quote_ident(element) for element in elements)


def _invalid(value: str) -> e.PgError:
    return e.InvalidParameterValue(
        f'invalid value for parameter "search_path": "{value}"', detail="List syntax is invalid."
    )


def split_list(value: str) -> tuple[str, ...]:
    names: list[str] = []
    i, n = 0, len(value)
    while True:
        while i < n and value[i].isspace():
            i += 1
        if i >= n:
            if names:  # a trailing comma
                raise _invalid(value)
            return ()
        if value[i] == '"':
            end = i + 1
            chars: list[str] = []
            while True:
                if end >= n:
                    raise _invalid(value)
                if value[end] == '"':
                    if end + 1 < n and value[end + 1] == '"':
                        chars.append('"')
                        end += 2
                        continue
                    break
                chars.append(value[end])
                end += 1
            name = "".join(chars)  # `""` is a name, of no schema
            i = end + 1
        else:
            end = i
            while end < n and value[end] != "," and not value[end].isspace():
                end += 1
            name = value[i:end].lower()
            i = end
            if not name:
                raise _invalid(value)
        names.append(name)
        while i < n and value[i].isspace():
            i += 1
        if i >= n:
            return tuple(names)
        if value[i] != ",":
            raise _invalid(value)
        i += 1
        if value[i:].strip() == "":
            raise _invalid(value)


def schemas_of(value: str, user: str) -> tuple[str, ...]:
    return tuple(user if name == USER_ELEMENT else name for name in split_list(value))
