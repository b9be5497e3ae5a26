"""ParsedClaim → SMT formula (z3py, or cvc5.pythonic which mirrors its API).

The query asserts domains ∧ assumptions ∧ definedness ∧ ¬conclusion; unsat proves the claim.
Everything is kept in real arithmetic (integer variables enter through ToReal) so `/` is always
real division. Square roots and other fractional powers become fresh variables (y ≥ 0,
y^q = x); absolute value, min, max, floor and ceiling become if-then-else / ToInt; log, exp,
symbolic powers, harmonic numbers, unclosed power sums, pi and e become fresh variables with
true axioms instantiated at the terms that occur (smt_axioms.py); sympy's piecewise closed forms
become if-then-else. Anything else (trigonometry, factorial, binomial) is untranslatable and the
answer is "unknown" — never a pass.

Soundness: the expressions are translated as written (claims.py builds them unevaluated). Each
translated term records where it is defined over the reals (`needs`: a root's base ≥ 0, a
denominator ≠ 0); the worker proves that the claim's own premises imply every need before it
reports a proof, so a translation can never narrow the claim's domain. Fresh-variable
definitions (`defs`) always have a solution once the needs hold. When the as-written form is
untranslatable, sympy's simplified form (exp(log(x)) → x) is tried under the same rule.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from eurekaclaw.verify.claims import ParsedClaim, Relation
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.smt_axioms import Axioms

MAX_POWER = 64
MAX_ROOT = 6


class Untranslatable(Exception):
    """The claim uses something the SMT backend cannot express."""


class Translator:
    """`simplified=True` translates sympy's evaluated form of every relation instead of the
    form as written; `bare=True` drops the domains' bounds (kinds stay: integers stay Int)."""

    def __init__(self, zz: Any, parsed: ParsedClaim, *, simplified: bool = False, bare: bool = False,
                 relax_ints: bool = False) -> None:
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

    def _const(self, value: sp.Rational) -> Any:
        return self.zz.RealVal(str(value))

    def _new_real(self, hint: str) -> Any:
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
        zz = self.zz
        if e.is_Symbol:
            if e not in self.real_of:
                raise Untranslatable(f"symbol {e} (a sum index) cannot be translated")
            return self.real_of[e]
        if e.is_Rational:
            return self._const(e)
        if e is sp.pi:
            return self.ax.constant("pi")
        if e is sp.E:
            return self.ax.exp(sp.E, self._const(sp.Integer(1)), sp.Integer(1))
        if e.is_number:
            # A constant has no domain to lose: fold it (2^(1/2)*2^(1/2) is just 2), and keep
            # the structure only when its value is irrational.
            value = evaluated(e)
            if value.is_Rational:
                return self._const(value)
            if value.is_real is False:
                raise Untranslatable(f"the constant {e} is not real")
        if isinstance(e, sp.Add):
            terms = [self.expr(a) for a in e.args]
            out = terms[0]
            for t in terms[1:]:
                out = out + t
            return out
        if isinstance(e, sp.Mul):
            num, den = [], []
            for a in e.args:
                if isinstance(a, sp.Pow) and a.exp.is_Rational and a.exp.is_negative:
                    den.append(self.expr(sp.Pow(a.base, -a.exp, evaluate=False) if a.exp != -1 else a.base))
                else:
                    num.append(self.expr(a))
            out = num[0] if num else self._const(sp.Integer(1))
            for t in num[1:]:
                out = out * t
            for t in den:
                self.needs.append(t != self._const(sp.Integer(0)))
                out = out / t
            return out
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, sp.Abs):
            a = self.expr(e.args[0])
            return zz.If(a >= 0, a, -a)
        if isinstance(e, sp.Min | sp.Max):
            items = [self.expr(a) for a in e.args]
            out = items[0]
            for t in items[1:]:
                out = zz.If(t < out, t, out) if isinstance(e, sp.Min) else zz.If(t > out, t, out)
            return out
        if isinstance(e, sp.log):
            return self._log(e)
        if isinstance(e, sp.exp):
            arg = e.args[0]
            value = evaluated(arg) if arg.is_number else None
            return self.ax.exp(e, self.expr(arg), value if value is not None and value.is_Rational else None)
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, sp.harmonic):
            return self._harmonic(e)
        if isinstance(e, sp.Sum):
            return self._power_sum(e)
        if isinstance(e, sp.floor):
            return zz.ToReal(zz.ToInt(self.expr(e.args[0])))
        if isinstance(e, sp.ceiling):
            return -zz.ToReal(zz.ToInt(-self.expr(e.args[0])))
        raise Untranslatable(f"{_describe(e)} has no SMT translation")

    def _pow(self, e: sp.Pow) -> Any:
        base, exp = e.base, e.exp
        if exp.is_number and not exp.is_Rational:
            value = evaluated(exp)
            if value.is_Rational:
                exp = value
        if not exp.is_Rational:
            return self._symbolic_pow(e)
        if exp.is_integer:
            n = int(exp)
            if abs(n) > MAX_POWER:
                raise Untranslatable(f"the power {e} has too large an exponent")
            b = self.expr(base)
            out = self._int_power(b, abs(n))
            if n < 0:
                self.needs.append(b != self._const(sp.Integer(0)))
                return self._const(sp.Integer(1)) / out
            return out
        p, q = int(exp.p), int(exp.q)
        if q > MAX_ROOT or abs(p) > MAX_POWER:
            raise Untranslatable(f"the power {e} has no SMT translation")
        b = self.expr(base)
        root = self._new_real("root")
        zero = self._const(sp.Integer(0))
        # Conditional, so that a definition never constrains the variables by itself (root^2 == b
        # alone would force b >= 0): the needs say where the root is defined, the defs what it is.
        self.defs.append(self.zz.Implies(b >= zero, self.zz.And(root >= zero, self._int_power(root, q) == b)))
        if p < 0:
            self.needs.append(b > zero)
            return self._const(sp.Integer(1)) / self._int_power(root, abs(p))
        self.needs.append(b >= zero)
        return self._int_power(root, p)

    # -- transcendental terms (axioms in smt_axioms.py) -------------------------------------------
    def _log(self, e: sp.log) -> Any:
        arg = e.args[0]
        t = self.expr(arg)
        self.needs.append(t > self._const(sp.Integer(0)))
        return self._log_term(e, arg, t, depth=0)

    def _log_term(self, key: sp.Basic, arg: sp.Expr, t: Any, depth: int) -> Any:
        """The variable for log(arg) (t = arg translated), with no definedness need of its own
        (its axioms are guarded by t > 0); a product of powers is also decomposed into the
        logs of its bases, valid where every base is positive."""
        value = evaluated(arg) if arg.is_number else None
        var, new = self.ax.log(key, t, value if value is not None and value.is_Rational else None)
        if not new:
            return var
        if self.has_root:
            root = self._new_real("sqrtlog")
            zero = self._const(sp.Integer(0))
            self.defs.append(self.zz.Implies(t >= zero, self.zz.And(root >= zero, root * root == t)))
            self.ax.roots_of_logs.append((self.ax.logs[-1], root))
        if depth < 2 and not arg.is_number:
            parts = _power_factors(arg)
            if parts is not None and (len(parts) > 1 or parts[0][1] != 1):
                zero = self._const(sp.Integer(0))
                state = self.snapshot()
                try:
                    guards, total = [], None
                    for base, q in parts:
                        b = self.expr(base)
                        guards.append(b > zero)
                        lb = self._log_term(sp.log(base, evaluate=False), base, b, depth + 1)
                        item = lb if q == 1 else self._const(q) * lb
                        total = item if total is None else total + item
                    # log(Π b_i^q_i) = Σ q_i log(b_i) where every b_i > 0 (not merely the product)
                    self.defs.append(self.zz.Implies(self.zz.And(*guards), var == total))
                except Untranslatable:
                    self.restore(state)
        return var

    def _symbolic_pow(self, e: sp.Pow) -> Any:
        """b^x with a symbolic exponent: exp(x*log b) where b > 0."""
        base, exponent = e.base, e.exp
        x = self.expr(exponent)
        if base is sp.E:
            return self.ax.exp(e, x)
        zero = self._const(sp.Integer(0))
        b_val = evaluated(base) if base.is_number else None
        if b_val is not None and b_val.is_Rational:
            if b_val <= 0:
                raise Untranslatable(f"the power {e} has a non-positive constant base and a symbolic exponent")
            if b_val == 1:
                return self._const(sp.Integer(1))
            lb = self._log_term(sp.log(b_val, evaluate=False), b_val, self._const(b_val), 1)
            var = self.ax.exp(e, x * lb)
            self.ax.cpow(b_val, exponent, var)
            return var
        b = self.expr(base)
        self.needs.append(b > zero)
        lb = self._log_term(sp.log(base, evaluate=False), base, b, 1)
        return self.ax.exp(e, x * lb)

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

    def _harmonic(self, e: sp.harmonic) -> Any:
        """harmonic(n, m): the closed form sympy gives Σ_{k=1}^{n} 1/k^m (claims.py), n >= 0."""
        n_expr = e.args[0]
        m = e.args[1] if len(e.args) > 1 else sp.Integer(1)
        if not (m.is_Rational and m > 0) or n_expr.is_integer is not True:
            raise Untranslatable(f"{e} has no SMT translation")
        n = self.expr(n_expr)
        zero, one = self._const(sp.Integer(0)), self._const(sp.Integer(1))
        self.needs.append(n >= zero)
        log_n = log_n1 = None
        if m == 1:
            log_n = self._log_term(sp.log(n_expr, evaluate=False), n_expr, n, 1)
            n1 = sp.Add(n_expr, sp.Integer(1), evaluate=False)
            log_n1 = self._log_term(sp.log(n1, evaluate=False), n1, n + one, 1)
        return self.ax.harmonic(e, n, m, log_n, log_n1)

    def _power_sum(self, e: sp.Sum) -> Any:
        """Σ_{k=1}^{N} c*k^p that sympy left unclosed: bounded by integrals (k^p is monotonic)."""
        (k, low, high), = e.limits
        summand = evaluated(e.function)
        coeff, rest = summand.as_coeff_Mul()
        p = sp.Integer(1) if rest == k else (rest.exp if isinstance(rest, sp.Pow) and rest.base == k else None)
        if low != 1 or p is None or not p.is_Rational or p in (0, -1) or not coeff.is_Rational or coeff <= 0 or p.q > 6:
            raise Untranslatable(f"the sum {e} has no closed form and no SMT translation")
        if high.free_symbols & {k} or not high.free_symbols <= set(self.real_of):
            raise Untranslatable(f"the sum {e} has no SMT translation")
        zz = self.zz
        zero, one = self._const(sp.Integer(0)), self._const(sp.Integer(1))
        N = self.expr(high)
        q = p + 1
        n = len(self.needs)
        up = self.expr(sp.Pow(high, q, evaluate=False))
        up1 = self.expr(sp.Pow(sp.Add(high, sp.Integer(1), evaluate=False), q, evaluate=False))
        del self.needs[n:]  # the powers are used only under N >= 0 below
        S = self.ax.fresh("sum", e)
        c, qq = self._const(coeff), self._const(q)
        if p < 0:
            lower = (up1 - one) / qq
            upper = one + (up - one) / qq
            facts = [zz.Implies(N >= zero, S >= c * lower), zz.Implies(N >= one, S <= c * upper)]
        else:
            facts = [zz.Implies(N >= zero, S >= c * up / qq), zz.Implies(N >= zero, S <= c * (up1 - one) / qq)]
        facts += [zz.Implies(N == zero, S == zero), zz.Implies(N >= zero, S >= zero)]
        self.ax.facts.extend(facts)
        return S

    def _int_power(self, b: Any, n: int) -> Any:
        if n == 0:
            return self._const(sp.Integer(1))
        if n <= 8:
            out = b
            for _ in range(n - 1):
                out = out * b
            return out
        return b**n

    # -- relations and the query ------------------------------------------------------------------
    def relation(self, rel: Relation) -> Any:
        if self.simplified:
            rel = rel.simplified
        lhs, rhs = self.expr(rel.lhs), self.expr(rel.rhs)
        return {"<=": lhs <= rhs, "<": lhs < rhs, ">=": lhs >= rhs, ">": lhs > rhs, "==": lhs == rhs, "!=": lhs != rhs}[rel.op]

    def domains(self) -> list[Any]:
        out: list[Any] = []
        if self.bare:
            return out
        for name, dom in self.parsed.domains.items():
            v = self.vars[name]
            if dom.lo is not None:
                lo = self.zz.IntVal(int(dom.lo)) if dom.kind == "int" else self._const(dom.lo)
                out.append(v > lo if dom.lo_open else v >= lo)
            if dom.hi is not None:
                hi = self.zz.IntVal(int(dom.hi)) if dom.kind == "int" else self._const(dom.hi)
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


def _power_factors(arg: sp.Expr) -> list[tuple[sp.Expr, sp.Rational]] | None:
    """arg as Π base^q (rational q, positive constant factors merged into one), or None when
    a factor is a non-positive constant."""
    factors = list(arg.args) if isinstance(arg, sp.Mul) else [arg]
    out: list[tuple[sp.Expr, sp.Rational]] = []
    const = sp.Integer(1)
    stack = factors[::-1]
    while stack:
        f = stack.pop()
        if isinstance(f, sp.Mul):
            stack.extend(f.args[::-1])
        elif f.is_number:
            value = evaluated(f)
            if not value.is_Rational:
                out.append((f, sp.Integer(1)))
            else:
                const *= value
        elif isinstance(f, sp.Pow) and f.exp.is_Rational:
            out.append((f.base, f.exp))
        else:
            out.append((f, sp.Integer(1)))
    if const <= 0:
        return None
    if const != 1:
        out.append((const, sp.Integer(1)))
    return out


def _describe(e: sp.Expr) -> str:
    if e.is_Function:
        return f"{type(e).__name__.lower()}(...)"
    if e in (sp.pi, sp.E) or e.is_NumberSymbol:
        return f"the constant {e}"
    return f"{type(e).__name__} ({e})"


def model_value(zz: Any, value: Any) -> tuple[str | int, bool]:
    """(value, exact) from a model entry: ints, "p/q" strings when rational, else a decimal
    approximation of an algebraic number."""
    if zz.is_int_value(value):
        return value.as_long(), True
    if zz.is_rational_value(value):
        num, den = value.numerator_as_long(), value.denominator_as_long()
        return (num if den == 1 else f"{num}/{den}"), True
    if hasattr(zz, "is_algebraic_value") and zz.is_algebraic_value(value):
        return value.approx(40).as_decimal(40).rstrip("?"), False
    return str(value), False
