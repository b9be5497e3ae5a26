"""Claim → the Lean 4 / Mathlib proposition a formal proof of the claim must prove.

The same contract as coq_statement.py: domain bounds, assumptions and definedness conditions
become hypotheses (Mathlib's `/`, `Real.sqrt`, `Real.log` are total), every term equals the
mathematical value wherever those hypotheses hold, and anything without such a translation
raises LeanUntranslatable. Every compound term is parenthesised and every number in a real
position is typed `(p : ℝ)`, so no precedence or numeral-elaboration rule of Lean can change
what the text means (`1 / 2` alone would be a natural number, 0).

| claim (sympy)                | Lean (Mathlib)                                          | exact when          |
| ---------------------------- | ------------------------------------------------------- | ------------------- |
| real x / natural n / integer | `(x : ℝ)` / `(n : ℕ)`, used as `(n : ℝ)` / `(z : ℤ)`    | always              |
| `+ - * /`, rationals         | `+ - * /`, `((p : ℝ) / q)`                              | denominators ≠ 0    |
| `x^k`, k natural expression  | `x ^ k` (Monoid.npow)                                   | always              |
| `x^e`, e integer expression  | `x ^ (e : ℤ)` (zpow)                                    | x ≠ 0 when e < 0    |
| `sqrt(x)`, `x^(p/2^j)`       | `Real.sqrt` j times, then `^ p`                         | x ≥ 0               |
| other `x^(p/q)`, `x^y`       | `x ^ (y : ℝ)` (Real.rpow; 0 ^ y = 0 for y ≠ 0)          | x ≥ 0 / x > 0       |
| log, exp, sin, cos, tan      | `Real.log`, `Real.exp`, `Real.sin`, `Real.cos`, `Real.tan` | as the claim requires |
| abs, min, max, pi, e         | `|a|`, `min`, `max`, `Real.pi`, `Real.exp 1`            | always              |
| floor, ceil, factorial       | `(⌊a⌋ : ℝ)`, `(⌈a⌉ : ℝ)`, `((Nat.factorial n : ℕ) : ℝ)` | n ≥ 0               |
| Σ_{k=a}^{b} f(k), harmonic   | `Finset.sum (Finset.Icc a b) (fun k => f)` (ℕ or ℤ)     | always (empty if b < a) |
| Piecewise                    | `if a = b then … else …`                                | always              |
| `<= < >= > == !=`, chains    | `≤ < ≥ > = ≠`, joined by `∧`                            |                     |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import sympy as sp

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.claims import ParsedClaim, Relation, parse_claim
from eurekaclaw.verify.forms import evaluated, node_handler
from eurekaclaw.verify.grammar import ClaimError

LEAN_HEADER = "import Mathlib\n"
LEAN_RESERVED = frozenset(
    {
        "fun",
        "let",
        "in",
        "if",
        "then",
        "else",
        "match",
        "with",
        "do",
        "by",
        "have",
        "show",
        "from",
        "at",
        "theorem",
        "lemma",
        "def",
        "example",
        "forall",
        "exists",
        "Type",
        "Prop",
        "Sort",
        "where",
        "end",
        "open",
        "namespace",
        "section",
        "variable",
        "universe",
        "instance",
        "structure",
        "class",
        "calc",
        "Real",
        "Nat",
        "Int",
        "Finset",
        "min",
        "max",
        "abs",
        "π",
        "rfl",
        "sorry",
        "True",
        "False",
    }
)
_OPS = {"<=": "≤", "<": "<", ">=": "≥", ">": ">", "==": "=", "!=": "≠"}


class LeanUntranslatable(ClaimError):
    """The claim uses something that has no exact Lean translation here."""


def _no_translation(e: sp.Expr) -> LeanUntranslatable:
    return LeanUntranslatable(f"{type(e).__name__}({', '.join(map(str, e.args))}) has no Lean translation")


class _Translator:
    def __init__(self, parsed: ParsedClaim) -> None:
        self.parsed = parsed
        self.taken: set[str] = set(LEAN_RESERVED)
        self.active: set[str] = set()
        self.vars: dict[sp.Symbol, tuple[Literal["real", "nat", "int"], str]] = {}
        self.positive: set[sp.Expr] = {c.lhs for c in parsed.conditions if c.op == ">" and c.rhs == 0}

    def name(self, base: str, *, binder: bool = False) -> str:
        while base in self.taken or base in self.active:
            base += "_"
        (self.active if binder else self.taken).add(base)
        return base

    def statement(self) -> str:
        binders, hyps = [], []
        for (name, sym), var in zip(self.parsed.symbols.items(), self.parsed.claim.variables, strict=True):
            dom, lean = self.parsed.domains[name], self.name(name)
            if dom.kind == "real":
                kind: Literal["real", "nat", "int"] = "real"
            else:
                kind = "nat" if var.domain == "natural" and dom.lo is not None and dom.lo >= 0 else "int"
            self.vars[sym] = (kind, lean)
            binders.append(f"({lean} : {'ℝ' if kind == 'real' else 'ℕ' if kind == 'nat' else 'ℤ'})")
            lo, hi = dom.lo, dom.hi
            if kind == "real":
                if lo is not None:
                    hyps.append(f"{self.real(lo)} {'<' if dom.lo_open else '≤'} {lean}")
                if hi is not None:
                    hyps.append(f"{lean} {'<' if dom.hi_open else '≤'} {self.real(hi)}")
            else:
                if lo is not None and not (kind == "nat" and lo == 0):
                    hyps.append(f"{self.integer(lo, kind)} ≤ {lean}")
                if hi is not None:
                    hyps.append(f"{lean} ≤ {self.integer(hi, kind)}")
        for rel in [*self.parsed.assumptions, *self.parsed.conditions]:
            text = self.relation(rel)
            if text not in hyps:
                hyps.append(text)
        conclusion = " ∧ ".join(self.relation(r) for r in self.parsed.conclusion)
        body = "".join(f"  {h} →\n" for h in hyps) + f"  {conclusion}"
        return f"∀ {' '.join(binders)},\n{body}" if binders else body.strip()

    def relation(self, rel: Relation) -> str:
        return f"{self.real(rel.lhs)} {_OPS[rel.op]} {self.real(rel.rhs)}"

    @staticmethod
    def integer(value: sp.Expr, kind: str) -> str:
        return f"({int(value)} : {'ℕ' if kind == 'nat' else 'ℤ'})"

    # -- real-valued terms (always atomic: a name, an application in parentheses, or (...)) ----
    def real(self, e: sp.Expr) -> str:
        atom = self._real_atom(e)
        if atom is not None:
            return atom
        handler = node_handler(_REAL_NODES, e)
        if handler is None:
            raise _no_translation(e)
        result: str = handler(self, e)
        return result

    def _real_atom(self, e: sp.Expr) -> str | None:
        """A number, a constant or a variable; None for anything else."""
        if e.is_Integer:
            return f"({int(e)} : ℝ)"
        if e.is_Rational:
            return f"(({e.p} : ℝ) / {e.q})"
        if e is sp.pi:
            return "Real.pi"
        if e is sp.E:
            return "(Real.exp 1)"
        if not e.is_Symbol:
            return None
        kind, name = self.vars.get(e, (None, ""))
        if kind is None:
            raise LeanUntranslatable(f"the symbol {e} is not a variable of the claim")
        return name if kind == "real" else f"({name} : ℝ)"

    def _log(self, e: sp.log) -> str:
        if len(e.args) != 1:
            raise _no_translation(e)
        return f"(Real.log {self.real(e.args[0])})"

    def _min_max(self, e: sp.Min | sp.Max) -> str:
        fn = "min" if isinstance(e, sp.Min) else "max"
        out = self.real(e.args[-1])
        for a in reversed(e.args[:-1]):
            out = f"({fn} {self.real(a)} {out})"
        return out

    def _harmonic(self, e: sp.harmonic) -> str:
        m = e.args[1] if len(e.args) > 1 else sp.Integer(1)
        if not m.is_Rational:
            raise LeanUntranslatable(f"{e} has no Lean translation")
        k = sp.Dummy("k", integer=True, positive=True)
        return self._sum(sp.Pow(k, -m), k, sp.Integer(1), e.args[0])

    def _outer_sum(self, e: sp.Sum) -> str:
        *inner, (k, a, b) = e.limits
        return self._sum(sp.Sum(e.function, *inner) if inner else e.function, k, a, b)

    def _pow(self, base: sp.Expr, exp: sp.Expr) -> str:
        if exp.is_number:
            exp = evaluated(exp)
        if exp == 1:
            return self.real(base)
        if exp.could_extract_minus_sign() and (exp.is_Rational or exp.is_integer):
            return f"((1 : ℝ) / {self._pow(base, -exp)})"
        if base is sp.E and not exp.is_Integer:
            return f"(Real.exp {self.real(exp)})"  # e^y as written
        b = self.real(base)
        if exp.is_Integer:
            return f"({b} ^ {int(exp)})"
        if exp.is_Rational:
            p, q = int(exp.p), int(exp.q)
            if q & (q - 1) == 0:
                root = b
                while q > 1:
                    root, q = f"(Real.sqrt {root})", q // 2
                return root if p == 1 else f"({root} ^ {p})"
            return f"({b} ^ (({p} : ℝ) / {q}))"  # rpow: exact for b >= 0, which the claim requires
        if exp.is_integer:
            n = self.nat(exp)
            return f"({b} ^ {n})" if n is not None else f"({b} ^ ({self.z(exp)} : ℤ))"
        if not (bool(evaluated(base).is_positive) or base in self.positive):
            raise LeanUntranslatable(f"the power {base}^({exp}) needs a base known to be positive")
        return f"({b} ^ {self.real(exp)})"

    # -- integer-valued terms -----------------------------------------------------------------
    def nat(self, e: sp.Expr) -> str | None:
        if e.is_Integer:
            return f"({int(e)} : ℕ)" if e >= 0 else None
        if e.is_Symbol:
            kind, name = self.vars.get(e, (None, ""))
            return name if kind == "nat" else None
        if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            b = self.nat(e.base)
            return None if b is None else f"({b} ^ {int(e.exp)})"
        if isinstance(e, sp.Add | sp.Mul):
            parts = [self.nat(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            return "(" + (" + " if isinstance(e, sp.Add) else " * ").join(parts) + ")"  # type: ignore[arg-type]
        return None

    def z(self, e: sp.Expr) -> str:
        if e.is_Integer:
            return f"({int(e)} : ℤ)"
        if e.is_Symbol:
            kind, name = self.vars.get(e, (None, ""))
            if kind in ("nat", "int"):
                return name if kind == "int" else f"({name} : ℤ)"
        elif isinstance(e, sp.Add | sp.Mul):
            return "(" + (" + " if isinstance(e, sp.Add) else " * ").join(self.z(a) for a in e.args) + ")"
        elif isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            return f"({self.z(e.base)} ^ {int(e.exp)})"
        elif isinstance(e, sp.floor):
            return f"⌊{self.real(e.args[0])}⌋"
        elif isinstance(e, sp.ceiling):
            return f"⌈{self.real(e.args[0])}⌉"
        raise LeanUntranslatable(f"the integer expression {e} has no Lean translation")

    def _natural(self, e: sp.Expr) -> str:
        n = self.nat(e)
        return n if n is not None else f"(Int.toNat {self.z(e)})"  # exact: the claim requires e >= 0

    def _sum(self, body: sp.Expr, k: sp.Symbol, a: sp.Expr, b: sp.Expr) -> str:
        binder = self.name(str(k.name), binder=True)
        a_nat, b_nat = self.nat(a), self.nat(b)
        # Finset.Icc a b is empty when b < a, exactly the claim's empty sum; over ℕ only when
        # both bounds are natural-number expressions (ℕ subtraction would truncate).
        kind: Literal["nat", "int"] = "nat" if a_nat is not None and b_nat is not None else "int"
        lo, hi = (a_nat, b_nat) if kind == "nat" else (self.z(a), self.z(b))
        self.vars[k] = (kind, binder)
        try:
            term = self.real(body)
        finally:
            del self.vars[k]
            self.active.discard(binder)
        return f"(Finset.sum (Finset.Icc {lo} {hi}) (fun {binder} => {term}))"

    def _piecewise(self, e: sp.Piecewise) -> str:
        pieces = list(e.args)
        if pieces[-1].cond is not sp.true:
            raise LeanUntranslatable(f"{e}: a piecewise expression without an otherwise-branch")
        out = self.real(pieces[-1].expr)
        ops = {
            sp.Eq: "=",
            sp.Ne: "≠",
            sp.StrictLessThan: "<",
            sp.LessThan: "≤",
            sp.StrictGreaterThan: ">",
            sp.GreaterThan: "≥",
        }
        for piece in reversed(pieces[:-1]):
            op = ops.get(type(piece.cond))
            if op is None:
                raise LeanUntranslatable(f"the condition {piece.cond} has no Lean translation")
            test = f"{self.real(piece.cond.lhs)} {op} {self.real(piece.cond.rhs)}"
            out = f"(if {test} then {self.real(piece.expr)} else {out})"
        return out


def _wrapped(template: str) -> Callable[[_Translator, sp.Expr], str]:
    """The translation of a one-argument function: its argument put into `template`."""
    return lambda tr, e: template.format(tr.real(e.args[0]))


# sympy node class -> its Lean real term (anything not here has no Lean translation)
_REAL_NODES: dict[type, Callable[..., str]] = {
    sp.Add: lambda tr, e: "(" + " + ".join(tr.real(a) for a in e.args) + ")",
    sp.Mul: lambda tr, e: "(" + " * ".join(tr.real(a) for a in e.args) + ")",
    sp.Pow: lambda tr, e: tr._pow(e.base, e.exp),
    sp.exp: _wrapped("(Real.exp {})"),
    sp.sin: _wrapped("(Real.sin {})"),
    sp.cos: _wrapped("(Real.cos {})"),
    sp.tan: _wrapped("(Real.tan {})"),
    sp.Abs: _wrapped("|{}|"),
    sp.log: _Translator._log,
    sp.Min: _Translator._min_max,
    sp.Max: _Translator._min_max,
    sp.floor: lambda tr, e: f"(({tr.z(e)} : ℤ) : ℝ)",
    sp.ceiling: lambda tr, e: f"(({tr.z(e)} : ℤ) : ℝ)",
    sp.factorial: lambda tr, e: f"((Nat.factorial {tr._natural(e.args[0])} : ℕ) : ℝ)",
    sp.harmonic: _Translator._harmonic,
    sp.Sum: _Translator._outer_sum,
    sp.Piecewise: _Translator._piecewise,
}


def lean_statement(claim: Claim | ParsedClaim) -> str:
    """The Lean 4 / Mathlib proposition (after `LEAN_HEADER`) that says exactly what the claim
    says. Raises ClaimError when the claim does not parse and LeanUntranslatable when it uses
    something without an exact Lean translation."""
    parsed = claim if isinstance(claim, ParsedClaim) else parse_claim(claim)
    return _Translator(parsed).statement()
