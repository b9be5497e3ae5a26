"""The SMT translation of transcendental terms and unclosed sums (smt_translate.py dispatches here).

Each term becomes a fresh variable whose true facts smt_axioms.py instantiates: log(t), b^x with a
symbolic exponent (exp(x*log b)), harmonic numbers, and Σ c*k^p bounded by integrals. The
definedness rule of smt_translate.py holds here too: what a term needs goes to `tr.needs`, what a
fresh variable is goes to `tr.defs` (guarded, so it never constrains the claim by itself).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy as sp

from eurekaclaw.verify.forms import evaluated

if TYPE_CHECKING:
    from eurekaclaw.verify.smt_translate import Translator


class Untranslatable(Exception):
    """The claim uses something the SMT backend cannot express."""


def _rational_value(arg: sp.Expr) -> sp.Expr | None:
    value = evaluated(arg) if arg.is_number else None
    return value if value is not None and value.is_Rational else None


def log(tr: Translator, e: sp.log) -> Any:
    arg = e.args[0]
    t = tr.expr(arg)
    tr.needs.append(t > tr.const(sp.Integer(0)))
    return log_term(tr, e, arg, t, depth=0)


def exp(tr: Translator, e: sp.exp) -> Any:
    arg = e.args[0]
    return tr.ax.exp(e, tr.expr(arg), _rational_value(arg))


def log_term(tr: Translator, key: sp.Basic, arg: sp.Expr, t: Any, depth: int) -> Any:
    """The variable for log(arg) (t = arg translated), with no definedness need of its own
    (its axioms are guarded by t > 0); a product of powers is also decomposed into the
    logs of its bases, valid where every base is positive."""
    var, new = tr.ax.log(key, t, _rational_value(arg))
    if not new:
        return var
    if tr.has_root:
        root = tr.new_real("sqrtlog")
        zero = tr.const(sp.Integer(0))
        tr.defs.append(tr.zz.Implies(t >= zero, tr.zz.And(root >= zero, root * root == t)))
        tr.ax.roots_of_logs.append((tr.ax.logs[-1], root))
    if depth < 2 and not arg.is_number:
        parts = _power_factors(arg)
        if parts is not None and (len(parts) > 1 or parts[0][1] != 1):
            _log_of_product(tr, var, parts, depth)
    return var


def _log_of_product(tr: Translator, var: Any, parts: list[tuple[sp.Expr, sp.Rational]], depth: int) -> None:
    """log(Π b_i^q_i) = Σ q_i log(b_i) where every b_i > 0 (not merely the product); nothing
    is added when a base does not translate."""
    zero = tr.const(sp.Integer(0))
    state = tr.snapshot()
    try:
        guards, total = [], None
        for base, q in parts:
            b = tr.expr(base)
            guards.append(b > zero)
            lb = log_term(tr, sp.log(base, evaluate=False), base, b, depth + 1)
            item = lb if q == 1 else tr.const(q) * lb
            total = item if total is None else total + item
        tr.defs.append(tr.zz.Implies(tr.zz.And(*guards), var == total))
    except Untranslatable:
        tr.restore(state)


def symbolic_pow(tr: Translator, e: sp.Pow) -> Any:
    """b^x with a symbolic exponent: exp(x*log b) where b > 0."""
    base, exponent = e.base, e.exp
    x = tr.expr(exponent)
    if base is sp.E:
        return tr.ax.exp(e, x)
    zero = tr.const(sp.Integer(0))
    b_val = evaluated(base) if base.is_number else None
    if b_val is not None and b_val.is_Rational:
        if b_val <= 0:
            raise Untranslatable(f"the power {e} has a non-positive constant base and a symbolic exponent")
        if b_val == 1:
            return tr.const(sp.Integer(1))
        lb = log_term(tr, sp.log(b_val, evaluate=False), b_val, tr.const(b_val), 1)
        var = tr.ax.exp(e, x * lb)
        tr.ax.cpow(b_val, exponent, var)
        return var
    b = tr.expr(base)
    tr.needs.append(b > zero)
    lb = log_term(tr, sp.log(base, evaluate=False), base, b, 1)
    return tr.ax.exp(e, x * lb)


def harmonic(tr: Translator, e: sp.harmonic) -> Any:
    """harmonic(n, m) = Σ_{k=1}^{n} 1/k^m for n >= 0, the name under which the sum's sourced
    axioms are kept (smt_axioms.py)."""
    n_expr = e.args[0]
    m = e.args[1] if len(e.args) > 1 else sp.Integer(1)
    if not (m.is_Rational and m > 0) or n_expr.is_integer is not True:
        raise Untranslatable(f"{e} has no SMT translation")
    n = tr.expr(n_expr)
    zero, one = tr.const(sp.Integer(0)), tr.const(sp.Integer(1))
    tr.needs.append(n >= zero)
    log_n = log_n1 = None
    if m == 1:
        log_n = log_term(tr, sp.log(n_expr, evaluate=False), n_expr, n, 1)
        n1 = sp.Add(n_expr, sp.Integer(1), evaluate=False)
        log_n1 = log_term(tr, sp.log(n1, evaluate=False), n1, n + one, 1)
    return tr.ax.harmonic(e, n, m, log_n, log_n1)


def finite_sum(tr: Translator, e: sp.Sum) -> Any:
    """A sum as written (claims.py never replaces it by a closed form). With a few terms it is
    its definition, f(a) + ... + f(b); Σ_{k=1}^{N} c/k^m is a harmonic number with its sourced
    axioms; Σ_{k=1}^{N} c*k^p is bounded by integrals (k^p is monotonic). Anything else — a
    geometric sum, an identity that needs induction — is untranslatable."""
    if len(e.limits) != 1:
        raise Untranslatable(f"the nested sum {e} has no SMT translation")
    ((k, low, high),) = e.limits
    span = evaluated(high) - evaluated(low) if high.is_number and low.is_number else None
    if span is not None and span.is_Integer and span <= MAX_EXPANDED_TERMS:
        if span < 0:
            return tr.const(sp.Integer(0))
        a = int(evaluated(low))
        terms = [e.function.xreplace({k: sp.Integer(a + i)}) for i in range(int(span) + 1)]
        return tr.expr(terms[0] if len(terms) == 1 else sp.Add(*terms, evaluate=False))
    return power_sum(tr, e)


MAX_EXPANDED_TERMS = 64


def power_sum(tr: Translator, e: sp.Sum) -> Any:
    """Σ_{k=1}^{N} c*k^p: a harmonic number for p = -m (m a positive integer), else bounded by
    integrals (smt_axioms.AXIOM_SOURCES, "power-sum-integral")."""
    ((k, low, high),) = e.limits
    summand = evaluated(e.function)
    coeff, rest = summand.as_coeff_Mul()
    p = sp.Integer(1) if rest == k else (rest.exp if isinstance(rest, sp.Pow) and rest.base == k else None)
    if low != 1 or p is None or not p.is_Rational or p == 0 or not coeff.is_Rational or coeff <= 0 or p.q > 6:
        raise Untranslatable(f"the sum {e} has no SMT translation (no sourced axiom applies)")
    if high.free_symbols & {k} or not high.free_symbols <= set(tr.real_of):
        raise Untranslatable(f"the sum {e} has no SMT translation")
    if p.is_Integer and p < 0:
        var = harmonic(tr, sp.harmonic(high, -p, evaluate=False))
        return var if coeff == 1 else tr.const(coeff) * var
    zz = tr.zz
    zero, one = tr.const(sp.Integer(0)), tr.const(sp.Integer(1))
    N = tr.expr(high)
    q = p + 1
    n = len(tr.needs)
    up = tr.expr(sp.Pow(high, q, evaluate=False))
    up1 = tr.expr(sp.Pow(sp.Add(high, sp.Integer(1), evaluate=False), q, evaluate=False))
    del tr.needs[n:]  # the powers are used only under N >= 0 below
    S = tr.ax.fresh("sum", e)
    c, qq = tr.const(coeff), tr.const(q)
    if p < 0:
        lower = (up1 - one) / qq
        upper = one + (up - one) / qq
        facts = [zz.Implies(N >= zero, S >= c * lower), zz.Implies(N >= one, S <= c * upper)]
    else:
        facts = [zz.Implies(N >= zero, S >= c * up / qq), zz.Implies(N >= zero, S <= c * (up1 - one) / qq)]
    facts += [zz.Implies(N == zero, S == zero), zz.Implies(N >= zero, S >= zero)]
    tr.ax.facts.extend(facts)
    return S


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
