"""The vocabulary coq_statement.py writes terms in: Coq's R_scope printing levels, the names a
statement must not bind, and the integer-valued terms (nat and Z) of a claim.

A term is (text, level); `wrap` parenthesises it where the context binds tighter. Integer terms
are exact by construction: a nat term is used only for an expression that is >= 0, and
`Z.to_nat` only where the claim requires its argument to be >= 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sympy as sp

from eurekaclaw.verify.claims import ParsedClaim
from eurekaclaw.verify.grammar import ClaimError

# Printing levels of Coq's R_scope notations (smaller binds tighter).
ATOM, APP, POW, UNARY, MUL, ADD = 0, 10, 30, 35, 40, 50

COQ_RESERVED = frozenset(
    {
        # term keywords
        "as",
        "at",
        "cofix",
        "else",
        "end",
        "exists",
        "exists2",
        "fix",
        "for",
        "forall",
        "fun",
        "if",
        "IF",
        "in",
        "let",
        "match",
        "mod",
        "return",
        "then",
        "using",
        "where",
        "with",
        "Prop",
        "Set",
        "SProp",
        "Type",
        "struct",
        "measure",
        "wf",
        "True",
        "False",
        "S",
        "O",
        # names the statement itself may use
        "R",
        "nat",
        "Z",
        "INR",
        "IZR",
        "Nat",
        "sqrt",
        "ln",
        "exp",
        "Rpower",
        "powerRZ",
        "Rabs",
        "Rmin",
        "Rmax",
        "PI",
        "sum_f_R0",
        "Int_part",
        "fact",
        "sin",
        "cos",
        "tan",
        "Req_EM_T",
        "Rle_dec",
        "Rlt_dec",
        "Rge_dec",
        "Rgt_dec",
        "Rle",
        "Rlt",
        "Rge",
        "Rgt",
        "Rplus",
        "Rmult",
        "Ropp",
        "Rinv",
        "Rdiv",
        "Rminus",
        "pow",
    }
)


class CoqUntranslatable(ClaimError):
    """The claim uses something that has no exact Coq translation here."""


@dataclass(frozen=True)
class IntVar:
    kind: Literal["nat", "Z"]
    text: str  # a nat or Z term, atomic or parenthesised


def wrap(term: tuple[str, int], limit: int) -> str:
    text, level = term
    return text if level <= limit else f"({text})"


def describe(e: sp.Basic) -> str:
    return f"{type(e).__name__}({', '.join(str(a) for a in e.args)})" if e.args else str(e)


class IntegerTerms:
    """nat and Z terms for the integer expressions of one claim; `real` (the real-valued terms,
    needed for floor and ceiling) comes from the subclass, coq_statement._Translator."""

    def __init__(self, parsed: ParsedClaim) -> None:
        self.parsed = parsed
        self.int_vars: dict[sp.Symbol, IntVar] = {}

    def real(self, e: sp.Expr) -> tuple[str, int]:
        raise NotImplementedError

    def nat(self, e: sp.Expr) -> str | None:
        """A nat term equal to e (an integer expression that is >= 0 by construction), or None."""
        if e.is_Integer:
            return str(int(e)) if e >= 0 else None
        if e.is_Symbol:
            var = self.int_vars.get(e)
            return var.text if var is not None and var.kind == "nat" else None
        if isinstance(e, sp.Add | sp.Mul):
            parts = [self.nat(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            return "(" + (" + " if isinstance(e, sp.Add) else " * ").join(parts) + ")"  # type: ignore[arg-type]
        if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            b = self.nat(e.base)
            return None if b is None else f"({b} ^ {int(e.exp)})"
        return None

    def z(self, e: sp.Expr) -> str | None:
        """A Z term equal to the integer expression e, or None."""
        if e.is_Integer:
            return str(int(e)) if e >= 0 else f"({int(e)})"
        if e.is_Symbol:
            var = self.int_vars.get(e)
            if var is None:
                return None
            return var.text if var.kind == "Z" else f"(Z.of_nat {var.text})"
        if isinstance(e, sp.Add):
            out = ""
            for i, t in enumerate(e.as_ordered_terms()):
                negative = t.could_extract_minus_sign()
                part = self.z(-t if negative and i else t)
                if part is None:
                    return None
                out += part if not i else (" - " if negative else " + ") + part
            return f"({out})"
        if isinstance(e, sp.Mul):
            if e.args[0] == -1:
                rest = self.z(-e)
                return None if rest is None else f"(- {rest})"
            parts = [self.z(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            return "(" + " * ".join(parts) + ")"  # type: ignore[arg-type]
        if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            b = self.z(e.base)
            return None if b is None else f"({b} ^ {int(e.exp)})"
        if isinstance(e, sp.floor):
            return f"(Int_part {wrap(self.real(e.args[0]), ATOM)})"
        if isinstance(e, sp.ceiling):
            return f"(- Int_part {wrap(self.real(-e.args[0]), ATOM)})"
        return None

    def nat_or_to_nat(self, e: sp.Expr) -> str:
        if e.is_integer is not True:
            raise CoqUntranslatable(f"{e} is not an integer expression")
        n = self.nat(e)
        if n is not None:
            return n
        z = self.z(e)
        if z is None:
            raise CoqUntranslatable(f"the integer expression {e} has no Coq translation")
        return f"(Z.to_nat {z})"  # exact: the claim requires e >= 0 where it is used

    def lower_bound(self, e: sp.Expr) -> sp.Rational | None:
        """A lower bound of e over the domains (None when unknown): 0 for a natural-number
        expression, else from the bounds of the variables of a linear expression."""
        if e.is_Number:
            return sp.Rational(e)
        if self.nat(e) is not None:
            return sp.Integer(0)  # a sum of products of naturals (including enclosing indices)
        try:
            poly = sp.Poly(e, *sorted(e.free_symbols, key=str))
        except sp.PolynomialError:
            return None
        if poly.total_degree() > 1 or not all(s in self.parsed.symbols.values() for s in e.free_symbols):
            return None
        total = sp.Rational(poly.coeff_monomial(1))
        for sym in e.free_symbols:
            c = poly.coeff_monomial(sym)
            dom = self.parsed.domains[str(sym)]
            bound = dom.lo if c > 0 else dom.hi
            if bound is None:
                return None
            total += c * bound
        return total
