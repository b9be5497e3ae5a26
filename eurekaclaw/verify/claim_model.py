"""What a parsed claim is: variable domains, relations (as written) and the ParsedClaim that
the checkers share. Built by claims.parse_claim."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import sympy as sp

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.forms import evaluated, subtract

RelOp = Literal["<=", "<", ">=", ">", "==", "!="]


@dataclass(frozen=True)
class VarDomain:
    """Where a variable ranges: kind real|int with optional bounds (None = unbounded)."""

    kind: Literal["real", "int"]
    lo: sp.Rational | None = None
    hi: sp.Rational | None = None
    lo_open: bool = False
    hi_open: bool = False

    def contains(self, value: sp.Rational) -> bool:
        if self.kind == "int" and not value.is_integer:
            return False
        if self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)):
            return False
        return not (self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi)))

    def describe(self) -> str:
        lo = "-inf" if self.lo is None else str(self.lo)
        hi = "inf" if self.hi is None else str(self.hi)
        left = "(" if self.lo is None or self.lo_open else "["
        right = ")" if self.hi is None or self.hi_open else "]"
        return f"{'integers' if self.kind == 'int' else 'reals'} in {left}{lo}, {hi}{right}"


@dataclass(frozen=True)
class Relation:
    """One link `lhs op rhs`; the sides are the expressions as written (see the module doc).
    `index` is the assumption it came from (0-based), -1 for the conclusion."""

    op: RelOp
    lhs: sp.Expr
    rhs: sp.Expr
    text: str
    index: int = -1

    def difference(self) -> sp.Expr:
        """An expression that is >= 0 (or > 0) exactly when an inequality holds; lhs - rhs for
        == and !=. Unevaluated, like the sides."""
        if self.op in ("<=", "<"):
            return subtract(self.rhs, self.lhs)
        return subtract(self.lhs, self.rhs)

    @cached_property
    def simplified(self) -> Relation:
        """The same relation with sympy's automatic evaluation applied to both sides."""
        return Relation(self.op, evaluated(self.lhs), evaluated(self.rhs), self.text, self.index)

    @property
    def strict(self) -> bool:
        return self.op in ("<", ">", "!=")


@dataclass
class ParsedClaim:
    claim: Claim
    symbols: dict[str, sp.Symbol]
    domains: dict[str, VarDomain]
    assumptions: list[Relation]
    conclusion: list[Relation]
    # Where every sub-expression is defined (log argument > 0, denominators != 0, ...), recorded
    # before sympy's automatic simplification can hide them (sqrt(x)^2 becomes x).
    conditions: list[Relation] = field(default_factory=list)
    has_unresolved_sum: bool = False
    # The conditions of the conclusion's own expressions (a subset of `conditions`).
    conclusion_conditions: list[Relation] = field(default_factory=list)
    # Compiled evaluators, built once per parsed claim by their users (exact.py).
    cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def definedness(self) -> list[Relation]:
        """The conditions the parser added so that every expression is defined (x != 0 for 1/x,
        x > 0 for log(x), ...) — premises of every check, beyond the domains and assumptions the
        claim states. Only those the domains, sum index ranges and earlier assumptions do not
        already guarantee are here (claim_builder.py, signs.py); render.py shows each one and
        the trivial/narrowing checks compare claims with them. The same list as `conditions`."""
        return list(self.conditions)

    @property
    def names(self) -> list[str]:
        return list(self.symbols)

    def all_expressions(self) -> list[sp.Expr]:
        rels = self.assumptions + self.conditions + self.conclusion
        return [e for rel in rels for e in (rel.lhs, rel.rhs)]

    def describe(self) -> str:
        doms = ", ".join(f"{n} ∈ {d.describe()}" for n, d in self.domains.items())
        assume = "; ".join(r.text for r in self.assumptions)
        return f"for {doms or 'no variables'}{'; assuming ' + assume if assume else ''}: {self.claim.conclusion}"
