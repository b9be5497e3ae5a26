"""ParsedClaim → SMT formula (z3py, or cvc5.pythonic which mirrors its API).

The query asserts domains ∧ assumptions ∧ definedness ∧ ¬conclusion; unsat proves the claim.
Everything is kept in real arithmetic (integer variables enter through ToReal) so `/` is always
real division. Square roots and other fractional powers become fresh variables (y ≥ 0,
y^q = x); absolute value, min, max, floor and ceiling become if-then-else / ToInt; log, exp,
symbolic powers, pi and e become fresh variables (smt_terms.py) with true, sourced axioms
instantiated at the terms that occur (smt_axioms.py, axiom_sources.py). A sum arrives as
written (never a computer-algebra closed form): a few concrete terms are added up, Σ 1/k^m and
Σ k^p get their sourced axioms, and any other sum — a geometric sum, an identity that needs
induction — is untranslatable. So is anything else (trigonometry, factorial, binomial): the
answer is "unknown" — never a pass.

Soundness: the expressions are translated as written (claims.py builds them unevaluated). Each
translated term records where it is defined over the reals (`needs`: a root's base ≥ 0, a
denominator ≠ 0); the worker proves that the claim's own premises imply every need before it
reports a proof, so a translation can never narrow the claim's domain. Fresh-variable
definitions (`defs`) always have a solution once the needs hold. When the as-written form is
untranslatable, sympy's simplified form (exp(log(x)) → x) is tried under the same rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from eurekaclaw.verify import smt_terms
from eurekaclaw.verify.claims import ParsedClaim, Relation
from eurekaclaw.verify.forms import evaluated, node_handler
from eurekaclaw.verify.smt_axioms import Axioms
from eurekaclaw.verify.smt_terms import Untranslatable as Untranslatable  # re-exported

MAX_POWER = 64
MAX_ROOT = 6


class Translator:
    """`simplified=True` translates sympy's evaluated form of every relation instead of the
    form as written; `bare=True` drops the domains' bounds (kinds stay: integers stay Int)."""

    def __init__(
        self, zz: Any, parsed: ParsedClaim, *, simplified: bool = False, bare: bool = False, relax_ints: bool = False
    ) -> None:
        self.zz = zz
        self.parsed = parsed
        self.simplified = simplified
        self.bare = bare
        # relax_ints: integer variables become reals (with the same bounds). Every integer
        # counterexample is a real one, so unsat still proves the claim; a model may then be
        # fractional, which the exact re-check rejects as outside the domain.
        self.relax_ints = relax_ints
        self.ax = Axioms(zz)
        self.finished = False
        self.has_root = _has_root(parsed)
        self.defs: list[Any] = []  # definitions of fresh variables (base >= 0 → root >= 0 ∧ root^q == base)
        self.needs: list[Any] = []  # where the translated terms are defined (base >= 0, den != 0)
        self.fresh = 0
        self.vars: dict[str, Any] = {}
        self.real_of: dict[sp.Symbol, Any] = {}
        for name, sym in parsed.symbols.items():
            if parsed.domains[name].kind == "int" and not relax_ints:
                v = zz.Int(name)
                self.real_of[sym] = zz.ToReal(v)
            else:
                v = zz.Real(name)
                self.real_of[sym] = v
            self.vars[name] = v
        self._cache: dict[sp.Expr, Any] = {}

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, e: sp.Expr) -> Any:
        if e in self._cache:
            return self._cache[e]
        out = self._expr(e)
        self._cache[e] = out
        return out

    def const(self, value: sp.Rational) -> Any:
        return self.zz.RealVal(str(value))

    def new_real(self, hint: str) -> Any:
        self.fresh += 1
        return self.zz.Real(f"_{hint}{self.fresh}")

    @property
    def side(self) -> list[Any]:
        return self.defs + self.needs

    def snapshot(self) -> tuple[Any, ...]:
        return len(self.defs), len(self.needs), self.fresh, dict(self._cache), self.ax.snapshot()

    def restore(self, state: tuple[Any, ...]) -> None:
        """Forget what a failed translation added (its cached terms would lack their defs)."""
        d, n, self.fresh, self._cache, ax = state
        del self.defs[d:], self.needs[n:]
        self.ax.restore(ax)

    def finish(self) -> None:
        """Add the axioms of every transcendental term the translation created to `defs`
        (once, after the premises and the conclusion are translated)."""
        if not self.finished:
            self.finished = True
            self.defs.extend(self.ax.axioms())

    def _expr(self, e: sp.Expr) -> Any:
        atom = self._atom(e)
        if atom is not None:
            return atom
        handler = node_handler(self._NODES, e)
        if handler is None:
            raise Untranslatable(f"{_describe(e)} has no SMT translation")
        return handler(self, e)

    def _atom(self, e: sp.Expr) -> Any:
        """A symbol or a constant; None for anything else (an irrational constant keeps its
        structure and goes on to the node translators)."""
        if e.is_Symbol:
            if e not in self.real_of:
                raise Untranslatable(f"symbol {e} (a sum index) cannot be translated")
            return self.real_of[e]
        if e.is_Rational:
            return self.const(e)
        if e is sp.pi:
            return self.ax.constant("pi")
        if e is sp.E:
            return self.ax.exp(sp.E, self.const(sp.Integer(1)), sp.Integer(1))
        if e.is_number:
            # A constant has no domain to lose: fold it (2^(1/2)*2^(1/2) is just 2), and keep
            # the structure only when its value is irrational.
            value = evaluated(e)
            if value.is_Rational:
                return self.const(value)
            if value.is_real is False:
                raise Untranslatable(f"the constant {e} is not real")
        return None

    def _add(self, e: sp.Add) -> Any:
        terms = [self.expr(a) for a in e.args]
        out = terms[0]
        for t in terms[1:]:
            out = out + t
        return out

    def _mul(self, e: sp.Mul) -> Any:
        num, den = [], []
        for a in e.args:
            if isinstance(a, sp.Pow) and a.exp.is_Rational and a.exp.is_negative:
                den.append(self.expr(sp.Pow(a.base, -a.exp, evaluate=False) if a.exp != -1 else a.base))
            else:
                num.append(self.expr(a))
        out = num[0] if num else self.const(sp.Integer(1))
        for t in num[1:]:
            out = out * t
        for t in den:
            self.needs.append(t != self.const(sp.Integer(0)))
            out = out / t
        return out

    def _abs(self, e: sp.Abs) -> Any:
        a = self.expr(e.args[0])
        return self.zz.If(a >= 0, a, -a)

    def _min_max(self, e: sp.Min | sp.Max) -> Any:
        items = [self.expr(a) for a in e.args]
        out = items[0]
        for t in items[1:]:
            out = self.zz.If(t < out, t, out) if isinstance(e, sp.Min) else self.zz.If(t > out, t, out)
        return out

    def _floor(self, e: sp.floor) -> Any:
        return self.zz.ToReal(self.zz.ToInt(self.expr(e.args[0])))

    def _ceiling(self, e: sp.ceiling) -> Any:
        return -self.zz.ToReal(self.zz.ToInt(-self.expr(e.args[0])))

    def _pow(self, e: sp.Pow) -> Any:
        base, exp = e.base, e.exp
        if exp.is_number and not exp.is_Rational:
            value = evaluated(exp)
            if value.is_Rational:
                exp = value
        if not exp.is_Rational:
            return smt_terms.symbolic_pow(self, e)
        if exp.is_integer:
            n = int(exp)
            if abs(n) > MAX_POWER:
                raise Untranslatable(f"the power {e} has too large an exponent")
            b = self.expr(base)
            out = self._int_power(b, abs(n))
            if n < 0:
                self.needs.append(b != self.const(sp.Integer(0)))
                return self.const(sp.Integer(1)) / out
            return out
        p, q = int(exp.p), int(exp.q)
        if q > MAX_ROOT or abs(p) > MAX_POWER:
            raise Untranslatable(f"the power {e} has no SMT translation")
        b = self.expr(base)
        root = self.new_real("root")
        zero = self.const(sp.Integer(0))
        # Conditional, so that a definition never constrains the variables by itself (root^2 == b
        # alone would force b >= 0): the needs say where the root is defined, the defs what it is.
        self.defs.append(self.zz.Implies(b >= zero, self.zz.And(root >= zero, self._int_power(root, q) == b)))
        if p < 0:
            self.needs.append(b > zero)
            return self.const(sp.Integer(1)) / self._int_power(root, abs(p))
        self.needs.append(b >= zero)
        return self._int_power(root, p)

    def _piecewise(self, e: sp.Piecewise) -> Any:
        """Nested if-then-else; the definedness needs of a branch count only where it is taken."""
        zz = self.zz
        if not _is_true(e.args[-1][1]):
            raise Untranslatable("a piecewise expression without a final 'otherwise' branch")
        branches = []
        earlier: list[Any] = []
        for value, cond in e.args:
            c = zz.BoolVal(True) if _is_true(cond) else self._condition(cond)
            taken = zz.And(*earlier, c) if earlier else c
            n = len(self.needs)
            v = self.expr(value)
            new = self.needs[n:]
            del self.needs[n:]
            self.needs += [zz.Implies(taken, need) for need in new]
            branches.append((c, v))
            earlier.append(zz.Not(c))
        out = branches[-1][1]
        for c, v in reversed(branches[:-1]):
            out = zz.If(c, v, out)
        return out

    def _condition(self, cond: Any) -> Any:
        zz = self.zz
        if cond is sp.true or cond is True:
            return True
        if cond is sp.false or cond is False:
            return zz.BoolVal(False)
        if isinstance(cond, sp.And | sp.Or):
            items = [self._condition(a) for a in cond.args]
            items = [zz.BoolVal(True) if i is True else i for i in items]
            return zz.And(*items) if isinstance(cond, sp.And) else zz.Or(*items)
        if isinstance(cond, sp.Not):
            inner = self._condition(cond.args[0])
            return zz.BoolVal(False) if inner is True else zz.Not(inner)
        ops = {sp.Eq: "==", sp.Ne: "!=", sp.Lt: "<", sp.Le: "<=", sp.Gt: ">", sp.Ge: ">="}
        for cls, op in ops.items():
            if isinstance(cond, cls):
                a, b = self.expr(cond.lhs), self.expr(cond.rhs)
                return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        raise Untranslatable(f"the condition {cond} has no SMT translation")

    def _int_power(self, b: Any, n: int) -> Any:
        if n == 0:
            return self.const(sp.Integer(1))
        if n <= 8:
            out = b
            for _ in range(n - 1):
                out = out * b
            return out
        return b**n

    # sympy node class -> its translation (anything not here is untranslatable)
    _NODES: dict[type, Callable[..., Any]] = {
        sp.Add: _add,
        sp.Mul: _mul,
        sp.Pow: _pow,
        sp.Abs: _abs,
        sp.Min: _min_max,
        sp.Max: _min_max,
        sp.log: smt_terms.log,
        sp.exp: smt_terms.exp,
        sp.Piecewise: _piecewise,
        sp.harmonic: smt_terms.harmonic,
        sp.Sum: smt_terms.finite_sum,
        sp.floor: _floor,
        sp.ceiling: _ceiling,
    }

    # -- relations and the query ------------------------------------------------------------------
    def relation(self, rel: Relation) -> Any:
        if self.simplified:
            rel = rel.simplified
        lhs, rhs = self.expr(rel.lhs), self.expr(rel.rhs)
        return {"<=": lhs <= rhs, "<": lhs < rhs, ">=": lhs >= rhs, ">": lhs > rhs, "==": lhs == rhs, "!=": lhs != rhs}[
            rel.op
        ]

    def domains(self) -> list[Any]:
        out: list[Any] = []
        if self.bare:
            return out
        for name, dom in self.parsed.domains.items():
            v = self.vars[name]
            if dom.lo is not None:
                lo = self.zz.IntVal(int(dom.lo)) if dom.kind == "int" else self.const(dom.lo)
                out.append(v > lo if dom.lo_open else v >= lo)
            if dom.hi is not None:
                hi = self.zz.IntVal(int(dom.hi)) if dom.kind == "int" else self.const(dom.hi)
                out.append(v < hi if dom.hi_open else v <= hi)
        return out

    def premises(self, *, partial: bool = False) -> list[Any]:
        """Domains, assumptions and definedness conditions (fresh-variable definitions and the
        translation's own definedness needs are collected in `defs` and `needs`). With
        `partial`, a relation that does not translate is left out and its text recorded in
        `dropped`: fewer premises prove less, never more, but may hide a contradiction (the
        caller must then show that the left-out ones can hold)."""
        facts = self.domains()
        self.dropped: list[str] = []
        for rel in self.parsed.assumptions + self.parsed.conditions:
            state = self.snapshot()
            try:
                facts.append(self.relation(rel))
            except Untranslatable:
                if not partial:
                    raise
                self.restore(state)
                if rel.text not in self.dropped:
                    self.dropped.append(rel.text)
        return facts

    def negated_conclusion(self) -> Any:
        rels = [self.relation(r) for r in self.parsed.conclusion]
        return self.zz.Not(self.zz.And(*rels)) if len(rels) > 1 else self.zz.Not(rels[0])


def _is_true(cond: Any) -> bool:
    return cond is sp.true or cond is True


def _has_root(parsed: ParsedClaim) -> bool:
    for e in parsed.all_expressions():
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Pow) and node.exp.is_Rational and not node.exp.is_integer:
                return True
    return False


def _describe(e: sp.Expr) -> str:
    if e.is_Function:
        return f"{type(e).__name__.lower()}(...)"
    if e in (sp.pi, sp.E) or e.is_NumberSymbol:
        return f"the constant {e}"
    return f"{type(e).__name__} ({e})"


def model_value(zz: Any, value: Any) -> tuple[str | int, bool]:
    """(value, exact) from a model entry: ints, "p/q" strings when rational, an algebraic
    number as exact text ("sqrt(2)", "CRootOf(x^5 - x - 1, 0)", read back by exact.to_exact),
    else a decimal approximation (not exact)."""
    if zz.is_int_value(value):
        return value.as_long(), True
    if zz.is_rational_value(value):
        num, den = value.numerator_as_long(), value.denominator_as_long()
        return (num if den == 1 else f"{num}/{den}"), True
    if hasattr(zz, "is_algebraic_value") and zz.is_algebraic_value(value):
        text = _algebraic_text(value)
        if text is not None:
            return text, True
        return value.approx(40).as_decimal(40).rstrip("?"), False
    return str(value), False


MAX_ALGEBRAIC_DEGREE = 12


def _algebraic_text(value: Any) -> str | None:
    """Z3's algebraic number (a polynomial and the index of its real root, counted from 1 in
    increasing order) as sympy's exact root, checked against Z3's own enclosing interval; None
    when anything does not fit (the caller then falls back to an inexact decimal)."""
    try:
        coeffs = [int(str(c)) for c in value.poly()]
        index = int(value.index())
    except (AttributeError, ValueError, TypeError):
        return None
    if not 2 <= len(coeffs) <= MAX_ALGEBRAIC_DEGREE + 1 or index < 1:
        return None
    poly = sp.Poly(list(reversed(coeffs)), sp.Symbol("x"))
    real_roots = poly.count_roots()
    if index > real_roots:
        return None
    root = sp.rootof(poly, index - 1, radicals=True)  # sqrt(2) rather than CRootOf(x^2 - 2, 1)
    # sympy counts real roots in increasing order too; the approximations must agree
    approx = sp.Rational(str(value.approx(30).as_decimal(30).rstrip("?")))
    if abs(sp.N(root, 40) - approx) > sp.Rational(1, 10**25):
        return None
    return sp.sstr(root).replace("**", "^")
