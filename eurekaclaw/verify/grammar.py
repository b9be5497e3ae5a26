"""Tokenizer and recursive-descent parser for the claim language.

The text never reaches `eval`, `sympify` or `parse_expr`: it is checked against a character
whitelist, split into tokens by a fixed regular expression and parsed into a tiny AST here.
Turning the AST into sympy objects (and deciding which names are allowed) is claims.py's job.

Grammar (docs/verification.md):

    chain    := expr (RELOP expr)*            RELOP: <= >= < > == != =
    expr     := term (('+' | '-') term)*
    term     := unary (('*' | '/') unary)*
    unary    := ('+' | '-') unary | power
    power    := atom (('^' | '**') unary)?    right-associative; -x^2 = -(x^2)
    atom     := NUMBER | NAME | NAME '(' args ')' | '(' expr ')' | '(' expr ',' expr (',' expr)* ')'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from eurekaclaw.errors import BadInputError

MAX_EXPRESSION_CHARS = 5_000
MAX_DEPTH = 60
MAX_NODES = 10_000
MAX_NUMBER_CHARS = 40
MAX_NAME_CHARS = 40

RELOPS = ("<=", ">=", "==", "!=", "<", ">", "=")

_ALLOWED_CHARS = re.compile(r"[A-Za-z0-9_+\-*/^().,<>=!\s]*")
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z][A-Za-z0-9_]*)
  | (?P<op>\*\*|<=|>=|==|!=|[-+*/^(),<>=])
    """,
    re.VERBOSE,
)
_HINTS = {
    "[": "brackets are not part of the claim language (use parentheses; no indexing)",
    "]": "brackets are not part of the claim language (use parentheses; no indexing)",
    "{": "braces are not part of the claim language (write plain expressions, not LaTeX)",
    "}": "braces are not part of the claim language (write plain expressions, not LaTeX)",
    "\\": "LaTeX commands are not part of the claim language (write sqrt(x), not \\sqrt{x})",
    "'": "strings are not part of the claim language",
    '"': "strings are not part of the claim language",
    ":": "':' is not part of the claim language (no lambdas or slices)",
    "|": "use abs(x) instead of |x|",
    "&": "write several assumptions instead of '&'",
    ";": "';' is not part of the claim language",
    "≤": "use <= instead of ≤",
    "≥": "use >= instead of ≥",
    "≠": "use != instead of ≠",
    "·": "use * for multiplication",
    "−": "use the ASCII minus sign -",
}


class ClaimError(BadInputError):
    """A claim that cannot be parsed, or that tries something the claim language forbids."""


@dataclass(frozen=True)
class Node:
    """One AST node. kind: num | name | call | binop | neg | tuple | chain."""

    kind: str
    value: str = ""  # number text, name, operator, or relation operators joined by spaces
    args: tuple[Node, ...] = ()
    pos: int = 0


@dataclass(frozen=True)
class Token:
    kind: str  # number | name | op | end
    text: str
    pos: int


def _check_text(text: str, what: str) -> None:
    if not isinstance(text, str):
        raise ClaimError(f"{what}: expected a string, got {type(text).__name__}")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ClaimError(f"{what}: expression is {len(text):,} characters long; the limit is {MAX_EXPRESSION_CHARS:,}")
    if not text.strip():
        raise ClaimError(f"{what}: expression is empty")
    if "__" in text:
        raise ClaimError(f"{what}: '__' is not allowed in a claim")
    if not _ALLOWED_CHARS.fullmatch(text):
        bad = next(ch for ch in text if not _ALLOWED_CHARS.fullmatch(ch))
        hint = _HINTS.get(bad, "only letters, digits, spaces and + - * / ^ ( ) , < > = ! . are allowed")
        raise ClaimError(f"{what}: character {bad!r} is not allowed ({hint})")


def tokenize(text: str, what: str = "expression") -> list[Token]:
    _check_text(text, what)
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            ch = text[pos]
            if ch == ".":
                raise ClaimError(f"{what}: '.' at position {pos} is only allowed inside numbers (no attribute access)")
            if ch == "!":
                raise ClaimError(f"{what}: '!' at position {pos}: write factorial(n) instead of n!")
            raise ClaimError(f"{what}: unexpected character {ch!r} at position {pos}")
        kind = m.lastgroup or ""
        tok = m.group()
        if kind == "number":
            if len(tok) > MAX_NUMBER_CHARS:
                raise ClaimError(f"{what}: number {tok[:20]}... is too long (limit {MAX_NUMBER_CHARS} characters)")
            nxt = m.end()
            if nxt < len(text) and (text[nxt] == "." or text[nxt].isalpha() or text[nxt] == "_"):
                raise ClaimError(
                    f"{what}: missing operator after the number {tok!r} at position {pos} (write 2*x, not 2x)"
                )
        if kind == "name" and len(tok) > MAX_NAME_CHARS:
            raise ClaimError(f"{what}: name {tok[:20]}... is too long (limit {MAX_NAME_CHARS} characters)")
        if kind != "ws":
            tokens.append(Token(kind, tok, pos))
        pos = m.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


class _Parser:
    def __init__(self, tokens: list[Token], what: str) -> None:
        self.tokens = tokens
        self.i = 0
        self.what = what
        self.depth = 0
        self.nodes = 0

    # -- helpers -------------------------------------------------------------------------
    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def error(self, message: str, tok: Token | None = None) -> ClaimError:
        tok = tok or self.peek()
        where = "at the end" if tok.kind == "end" else f"at position {tok.pos} ({tok.text!r})"
        return ClaimError(f"{self.what}: {message} {where}")

    def expect(self, text: str) -> Token:
        if self.peek().text != text or self.peek().kind != "op":
            raise self.error(f"expected {text!r}")
        return self.take()

    def node(self, kind: str, value: str = "", args: tuple[Node, ...] = (), pos: int = 0) -> Node:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ClaimError(f"{self.what}: expression is too large (more than {MAX_NODES:,} nodes)")
        return Node(kind, value, args, pos)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ClaimError(f"{self.what}: expression is nested too deeply (limit {MAX_DEPTH} levels)")

    # -- grammar -------------------------------------------------------------------------
    def chain(self) -> Node:
        first = self.expr()
        parts = [first]
        ops: list[str] = []
        while self.peek().kind == "op" and self.peek().text in RELOPS:
            op = self.take().text
            ops.append("==" if op == "=" else op)
            parts.append(self.expr())
        if not ops:
            return first
        return self.node("chain", " ".join(ops), tuple(parts), first.pos)

    def expr(self) -> Node:
        left = self.term()
        while self.peek().kind == "op" and self.peek().text in ("+", "-"):
            op = self.take()
            left = self.node("binop", op.text, (left, self.term()), op.pos)
        return left

    def term(self) -> Node:
        left = self.unary()
        while True:
            tok = self.peek()
            if tok.kind == "op" and tok.text in ("*", "/"):
                self.take()
                left = self.node("binop", tok.text, (left, self.unary()), tok.pos)
            elif tok.kind in ("name", "number") or (tok.kind == "op" and tok.text == "("):
                raise self.error("missing operator (write a*b, not a b)")
            else:
                return left

    def unary(self) -> Node:
        tok = self.peek()
        if tok.kind == "op" and tok.text in ("+", "-"):
            self.take()
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return operand if tok.text == "+" else self.node("neg", "-", (operand,), tok.pos)
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        tok = self.peek()
        if tok.kind == "op" and tok.text in ("^", "**"):
            self.take()
            self.enter()
            exponent = self.unary()
            self.depth -= 1
            return self.node("binop", "^", (base, exponent), tok.pos)
        return base

    def atom(self) -> Node:
        tok = self.take()
        if tok.kind == "number":
            return self.node("num", tok.text, pos=tok.pos)
        if tok.kind == "name":
            if self.peek().kind == "op" and self.peek().text == "(":
                self.take()
                self.enter()
                args = self.arguments()
                self.depth -= 1
                return self.node("call", tok.text, tuple(args), tok.pos)
            return self.node("name", tok.text, pos=tok.pos)
        if tok.kind == "op" and tok.text == "(":
            self.enter()
            items = self.arguments()
            self.depth -= 1
            if len(items) == 1:
                return items[0]
            return self.node("tuple", "", tuple(items), tok.pos)
        if tok.kind == "end":
            raise self.error("expression ends unexpectedly", tok)
        raise self.error("unexpected token", tok)

    def arguments(self) -> list[Node]:
        """Comma-separated expressions up to the closing parenthesis (already past '(')."""
        if self.peek().kind == "op" and self.peek().text == ")":
            raise self.error("empty parentheses")
        items = [self.expr()]
        while self.peek().kind == "op" and self.peek().text == ",":
            self.take()
            items.append(self.expr())
        self.expect(")")
        return items


def parse_relation_text(text: str, what: str) -> Node:
    """Parse `text` (a relation or chain such as `0 <= x <= 1`, or a bare expression)."""
    parser = _Parser(tokenize(text, what), what)
    tree = parser.chain()
    if parser.peek().kind != "end":
        raise parser.error("unexpected text after the expression")
    return tree
