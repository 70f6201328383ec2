"""Keywords as column labels in a select list, as PostgreSQL's grammar reads them, applied to sqlglot's tokens.

PostgreSQL takes any keyword as a column label after AS (`SELECT a AS select`, `AS not`, `AS from`), and a keyword
its pg_get_keywords() marks "can be bare label" without AS (`SELECT a and FROM t`, `SELECT 1 in`); the others
("requires AS": `year`, `limit`, `as`, …) are a syntax error there. sqlglot reads some of them as operators or
clauses (`SELECT 1 in` as an IN test), refuses others (`AS select`) and accepts some PostgreSQL refuses.

Contract: `relabel(tokens)` returns the tokens with each keyword that stands as a label in a select list made a
quoted identifier of its lower-case spelling (the name PostgreSQL gives the column), and raises 42601 `syntax error
at or near "…"` at a bare keyword that requires AS. A keyword stands as a label when it directly follows AS, or an
expression's last token (a literal, a name, `)`, `]`, `*`), and directly precedes what ends a select item (`,`,
FROM, INTO, `;`, the end, or the `)` that closes the select). The select list (and RETURNING's) is tracked per
parenthesis depth, from SELECT to the clause that ends it; `CASE … END` and `INTERVAL '1' DAY` keep their keywords.
"""

from __future__ import annotations

from sqlglot.tokenizer_core import Token, TokenType

from sparkwire import errors as e
from sparkwire.catalog.relations.pg_keywords import KEYWORDS

_BARE = frozenset(word for word, _, bare in KEYWORDS if bare)
_POSTFIX_OPERATORS = frozenset({"isnull", "notnull"})  # `SELECT x isnull` tests x
_REQUIRES_AS = frozenset(word for word, _, bare in KEYWORDS if not bare) - _POSTFIX_OPERATORS
_PLAIN = (TokenType.IDENTIFIER, TokenType.STRING, TokenType.NUMBER)
_EXPRESSION_END = frozenset(
    {
        TokenType.NUMBER,
        TokenType.STRING,
        TokenType.VAR,
        TokenType.IDENTIFIER,
        TokenType.R_PAREN,
        TokenType.R_BRACKET,
        TokenType.STAR,
        TokenType.NULL,
        TokenType.TRUE,
        TokenType.FALSE,
    }
)
_ITEM_END = frozenset({TokenType.COMMA, TokenType.FROM, TokenType.INTO, TokenType.SEMICOLON})
_LIST_END = frozenset(
    {
        TokenType.FROM,
        TokenType.INTO,
        TokenType.WHERE,
        TokenType.GROUP_BY,
        TokenType.HAVING,
        TokenType.ORDER_BY,
        TokenType.LIMIT,
        TokenType.OFFSET,
        TokenType.FETCH,
        TokenType.UNION,
        TokenType.INTERSECT,
        TokenType.EXCEPT,
        TokenType.WINDOW,
        TokenType.SEMICOLON,
    }
)


def _keyword(token: Token) -> str | None:
    word = token.text.lower()
    if token.token_type in _PLAIN or not word.isidentifier():
        return None
    return word if word in _BARE or word in _REQUIRES_AS else None


class _SelectLists:
    """Which parenthesis depths are inside a select list, and how many CASEs are open."""

    def __init__(self) -> None:
        self.depth = 0
        self.listing: set[int] = set()
        self.cases = 0

    def follow(self, token: Token, previous: Token | None) -> None:
        kind = token.token_type
        if kind == TokenType.L_PAREN:
            self.depth += 1
        elif kind == TokenType.R_PAREN:
            self.listing.discard(self.depth)
            self.depth = max(self.depth - 1, 0)
        elif kind in (TokenType.SELECT, TokenType.RETURNING):
            self.listing.add(self.depth)
        elif kind == TokenType.CASE:
            self.cases += 1
        elif kind == TokenType.END and self.cases:
            self.cases -= 1
        elif kind in _LIST_END and not (previous is not None and previous.token_type == TokenType.DISTINCT):
            self.listing.discard(self.depth)  # `IS DISTINCT FROM` is no FROM clause


def _ends_item(token: Token | None, lists: _SelectLists) -> bool:
    if token is None:
        return True
    return token.token_type in _ITEM_END or (token.token_type == TokenType.R_PAREN and lists.depth > 0)


def _is_label(tokens: list[Token], i: int, lists: _SelectLists) -> bool:
    token = tokens[i]
    previous = tokens[i - 1] if i else None
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if previous is None or lists.depth not in lists.listing or not _ends_item(following, lists):
        return False
    if token.token_type == TokenType.END and lists.cases:
        return False
    if token.token_type == TokenType.ALIAS and following is not None and following.token_type in _LIST_END:
        return False  # `AS from FROM …`: AS introduces the label
    if previous.token_type == TokenType.ALIAS:
        return True
    if previous.token_type not in _EXPRESSION_END:
        return False
    before = tokens[i - 2] if i >= 2 else None
    return not (
        previous.token_type == TokenType.STRING and before is not None and before.token_type == TokenType.INTERVAL
    )


def _identifier(token: Token, word: str) -> Token:
    return Token(TokenType.IDENTIFIER, word, token.line, token.col, token.start, token.end, token.comments)


def relabel(tokens: list[Token]) -> list[Token]:
    lists = _SelectLists()
    out: list[Token] = []
    for i, token in enumerate(tokens):
        word = _keyword(token)
        if word is not None and _is_label(tokens, i, lists):
            if tokens[i - 1].token_type != TokenType.ALIAS and word not in _BARE:
                if token.token_type == TokenType.ALIAS:  # `SELECT 1 AS`: the label is missing
                    raise e.SyntaxError("syntax error at end of input", position=token.end + 2)
                raise e.SyntaxError(f'syntax error at or near "{token.text}"', position=token.start + 1)
            out.append(_identifier(token, word))
            continue
        lists.follow(token, tokens[i - 1] if i else None)
        out.append(token)
    return out
