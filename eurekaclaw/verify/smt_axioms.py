"""True facts about log, exp, powers, harmonic numbers and constants, instantiated for SMT.

The SMT translation (smt_translate.py) turns every distinct transcendental term of a claim —
log(t), exp(t), c^e, b^e with a symbolic exponent, harmonic(n, m) (= Σ_{k=1}^{n} 1/k^m), pi, e —
into a fresh real variable, and this module adds axioms about those variables, *instantiated at
the terms that occur* (no quantifier is ever handed to the solver). Every axiom is a theorem
about the real functions, guarded by the term's definedness (log needs t > 0), so giving every
fresh variable its true value satisfies all of them at every point: the axioms relax the claim,
never narrow it. Hence unsat ⇒ proved, while a model is only a candidate that the exact re-check
(exact.py) must confirm.

Where each family is proved, and the check that a claim is merely one of them (such a claim is
`cited`, not `smt`): axiom_sources.py. Sums reach this module as written (claims.py never
closes them): Σ 1/k^m as a harmonic number, Σ k^p with the integral bounds, nothing else.

Axioms (L = log t, E = exp t; each guarded by t > 0 for log, n >= 0 for harmonic numbers):

- log: L <= t - 1; L*t >= t - 1 (log t >= 1 - 1/t); L > 0 ⇔ t > 1, L < 0 ⇔ t < 1; for two
  terms t1 < t2 ⇒ L1 < L2 and t1 = t2 ⇒ L1 = L2; with a root in the claim, L <= 2(√t - 1) and
  L*√t >= 2(√t - 1) (the same bounds at √t); log of a product of powers Π b_i^q_i equals
  Σ q_i log b_i when every b_i > 0 (not merely when the product is); a rational constant's log
  lies in a rigorous interval (mpmath interval arithmetic).
- exp: E > 0; E >= 1 + t; E >= 1 + t + t²/2 + t³/6 (for every real t); E*(1 - t) <= 1 when
  t < 1; E <= 1 + t + t² when t <= 1; monotonicity and equality between terms; E1*E2 = E3 when
  t1 + t2 = t3 and E1*E2 = 1 when t1 + t2 = 0; for a log term log u (u > 0): exp(log u) = u
  and exp(-log u) = 1/u, hence by monotonicity t <= log u ⇒ E <= u, t <= -log u ⇒ E*u <= 1
  (and the other directions, strict and not); log(exp t) = t (u = exp t); a rational
  constant's exp lies in a rigorous interval.
- c^e (c > 0 a constant) is exp(e*log c); b^e with a symbolic base is exp(e*log b) where b > 0
  (a definedness need the premises must imply); c^e1 = c^d * c^e2 when e1 - e2 = d is an integer.
- harmonic(n) = Σ_{k=1}^{n} 1/k (n >= 0): log(n + 1) <= H <= 1 + log n (n >= 1), H <= n,
  H >= 1 (n >= 1), H_0 = 0, strictly increasing in n, H_{n+1} = H_n + 1/(n + 1).
- harmonic(n, m), m > 1: 1 <= H <= ζ(m) (n >= 1), H <= 2 - 1/n for m >= 2, and for m = 2
  ζ(2) - 1/n <= H <= ζ(2) - 1/(n + 1) (integral bounds on the tail), increasing in n.
- Σ_{k=1}^{N} c*k^p (p rational, not a negative integer): the integral bounds, which
  hold because k^p is monotonic — for p < 0: ((N+1)^(p+1) - 1)/(p+1) <= Σ <= 1 + (N^(p+1) - 1)/(p+1)
  (N >= 1); for p > 0: N^(p+1)/(p+1) <= Σ <= ((N+1)^(p+1) - 1)/(p+1).
- pi and e lie in rigorous rational intervals (3.14159265… < pi < 3.14159265…).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

MAX_TRIPLE_TERMS = 8  # exp product rule over triples only for this many exp terms
MAX_BRACKET_ARG = 1000  # exp(c) is bracketed only for |c| <= this (larger is just its axioms)
MAX_SHIFT = 64


@dataclass
class Term:
    key: sp.Basic
    arg: Any  # the solver expression of the argument
    var: Any  # the fresh variable standing for the term
    guard: Any  # where the term is defined (log: arg > 0); None = everywhere


@dataclass
class Harmonic:
    n: Any
    m: sp.Rational
    var: Any
    log_n: Any
    log_n1: Any


def _bracket(kind: str, value: sp.Rational | None = None) -> tuple[Fraction, Fraction]:
    """A rigorous rational interval around log(value), exp(value), pi or e (mpmath's interval
    arithmetic, rounded outwards to about 30 significant digits)."""
    from mpmath import iv, libmp

    iv.dps = 60
    if kind in ("log", "exp"):
        assert value is not None
        x = iv.mpf(int(value.p)) / iv.mpf(int(value.q))
        y = iv.log(x) if kind == "log" else iv.exp(x)
    elif kind == "pi":
        y = iv.pi
    else:
        y = iv.e
    lo_raw, hi_raw = y._mpi_
    lo = Fraction(*libmp.to_rational(lo_raw))
    hi = Fraction(*libmp.to_rational(hi_raw))
    return _round_down(lo), _round_up(hi)


def _round_down(x: Fraction) -> Fraction:
    scale = _scale(x)
    return Fraction(x.numerator * scale // x.denominator, scale)


def _round_up(x: Fraction) -> Fraction:
    scale = _scale(x)
    return Fraction(-((-x.numerator * scale) // x.denominator), scale)


def _scale(x: Fraction) -> int:
    mag = abs(x)
    digits = 0
    while mag >= 10 and digits < 2000:
        mag /= 10
        digits += 1
    return 10 ** max(0, 30 - digits)


def zeta_upper(m: sp.Rational) -> Fraction:
    """ζ(m) for a rational m > 1, rounded up: a 60-digit evaluation widened by 10^-40 (far
    beyond its error)."""
    from mpmath import mp, mpf, zeta

    with mp.workdps(60):
        value = zeta(mpf(int(m.p)) / int(m.q)) * (1 + mpf(10) ** -40)
        return _round_up(Fraction(mp.nstr(value, 55, min_fixed=-mp.inf, max_fixed=mp.inf)))


class Axioms:
    """The registry of fresh transcendental terms of one translation, and their axioms."""

    def __init__(self, zz: Any) -> None:
        self.zz = zz
        self.logs: list[Term] = []
        self.exps: list[Term] = []
        self.roots_of_logs: list[tuple[Term, Any]] = []  # (log term, √t) pairs
        self.cpows: list[tuple[sp.Rational, sp.Expr, Any]] = []  # (base, exponent, var)
        self.harmonics: list[Harmonic] = []
        self.facts: list[Any] = []  # axioms stated when their term was created
        self.index: dict[tuple[str, sp.Basic], Any] = {}
        self.count = 0
        # every fresh variable with the sympy term it stands for (tests check the axioms by
        # giving the variables these values)
        self.meaning: list[tuple[Any, sp.Basic]] = []

    # -- bookkeeping ---------------------------------------------------------------------------
    def snapshot(self) -> tuple[int, ...]:
        return (
            len(self.logs),
            len(self.exps),
            len(self.roots_of_logs),
            len(self.cpows),
            len(self.harmonics),
            len(self.facts),
        )

    def restore(self, state: tuple[int, ...]) -> None:
        nl, ne, nr, nc, nh, nf = state
        for term in self.logs[nl:]:
            self.index.pop(("log", term.key), None)
        for term in self.exps[ne:]:
            self.index.pop(("exp", term.key), None)
        for h in self.harmonics[nh:]:
            self.index = {k: v for k, v in self.index.items() if v is not h.var}
        del self.logs[nl:], self.exps[ne:], self.roots_of_logs[nr:], self.cpows[nc:], self.harmonics[nh:]
        del self.facts[nf:]

    def fresh(self, hint: str, meaning: sp.Basic | None = None) -> Any:
        self.count += 1
        var = self.zz.Real(f"_{hint}{self.count}")
        if meaning is not None:
            self.meaning.append((var, meaning))
        return var

    def val(self, x: Fraction | sp.Rational | int) -> Any:
        if isinstance(x, Fraction):
            return self.zz.RealVal(f"{x.numerator}/{x.denominator}")
        return self.zz.RealVal(str(x))

    @property
    def empty(self) -> bool:
        return not (self.logs or self.exps or self.harmonics or self.facts)

    # -- terms ----------------------------------------------------------------------------------
    def log(self, key: sp.Basic, arg: Any, value: sp.Rational | None = None) -> tuple[Any, bool]:
        """The variable for log(arg); second item: whether it is new."""
        found = self.index.get(("log", key))
        if found is not None:
            return found, False
        var = self.fresh("log", key)
        zero = self.val(0)
        self.logs.append(Term(key, arg, var, arg > zero))
        self.index[("log", key)] = var
        if value is not None and value > 0:
            lo, hi = _bracket("log", value)
            self.facts += [var >= self.val(lo), var <= self.val(hi)]
        return var, True

    def exp(self, key: sp.Basic, arg: Any, value: sp.Rational | None = None) -> Any:
        found = self.index.get(("exp", key))
        if found is not None:
            return found
        var = self.fresh("exp", key)
        self.exps.append(Term(key, arg, var, None))
        self.index[("exp", key)] = var
        if value is not None and abs(value) <= MAX_BRACKET_ARG:
            lo, hi = _bracket("exp", value)
            self.facts += [var >= self.val(lo), var <= self.val(hi)]
        return var

    def constant(self, name: str) -> Any:
        found = self.index.get(("const", sp.Symbol(name)))
        if found is not None:
            return found
        var = self.fresh(name, {"pi": sp.pi, "e": sp.E}[name])
        lo, hi = _bracket(name)
        self.facts += [var >= self.val(lo), var <= self.val(hi)]
        self.index[("const", sp.Symbol(name))] = var
        return var

    def cpow(self, base: sp.Rational, exponent: sp.Expr, var: Any) -> None:
        self.cpows.append((base, exponent, var))

    def harmonic(self, key: sp.Basic, n: Any, m: sp.Rational, log_n: Any, log_n1: Any) -> Any:
        found = self.index.get(("harmonic", key))
        if found is not None:
            return found
        var = self.fresh("harmonic", key)
        self.harmonics.append(Harmonic(n, m, var, log_n, log_n1))
        self.index[("harmonic", key)] = var
        return var

    # -- the axioms -----------------------------------------------------------------------------
    def axioms(self) -> list[Any]:
        zz = self.zz
        zero, one, two = self.val(0), self.val(1), self.val(2)
        if any(h.m == 2 for h in self.harmonics):
            self.constant("pi")  # ζ(2) = pi²/6 below; its bracket must be among the facts
        out: list[Any] = list(self.facts)
        six = self.val(6)

        def mirror(t: Any) -> Any:  # 6 * (1 - t + t²/2 - t³/6) / 6, kept polynomial
            return (six - six * t + self.val(3) * t * t - t * t * t) / six

        for term in self.logs:
            t, L, g = term.arg, term.var, term.guard
            out += [
                zz.Implies(g, L <= t - one),
                zz.Implies(g, L * t >= t - one),
                zz.Implies(g, (L > zero) == (t > one)),
                zz.Implies(g, (L < zero) == (t < one)),
            ]
        for term, s in self.roots_of_logs:
            t, L, g = term.arg, term.var, term.guard
            out += [zz.Implies(g, L <= two * (s - one)), zz.Implies(g, L * s >= two * (s - one))]
        out += self._monotone(self.logs)
        for term in self.exps:
            t, E = term.arg, term.var
            out += [
                E > zero,
                E >= one + t,
                E * self.val(6) >= self.val(6) + self.val(6) * t + self.val(3) * t * t + t * t * t,
                zz.Implies(t < one, E * (one - t) <= one),
                zz.Implies(t <= one, E <= one + t + t * t),
                # exp(t) = 1/exp(-t) and exp(-t) >= p(-t), p the cubic Taylor polynomial
                zz.Implies(mirror(t) > zero, E * mirror(t) <= one),
            ]
        out += self._monotone(self.exps)
        exps = self.exps
        for i, a in enumerate(exps):
            for b in exps[i:]:
                out.append(zz.Implies(a.arg + b.arg == zero, a.var * b.var == one))
            if len(exps) <= MAX_TRIPLE_TERMS:
                for b in exps[i:]:
                    for c in exps:
                        if c is not a and c is not b:
                            out.append(zz.Implies(a.arg + b.arg == c.arg, a.var * b.var == c.var))
        for e in exps:
            for lg in self.logs:
                u, E, t, L = e.arg, e.var, lg.arg, lg.var
                # exp(log t) = t and exp(-log t) = 1/t, with exp increasing on either side
                out.append(
                    zz.Implies(
                        lg.guard,
                        zz.And(
                            zz.Implies(u == L, E == t),
                            zz.Implies(u <= L, E <= t),
                            zz.Implies(u >= L, E >= t),
                            zz.Implies(u < L, E < t),
                            zz.Implies(u > L, E > t),
                            zz.Implies(u == -L, E * t == one),
                            zz.Implies(u <= -L, E * t <= one),
                            zz.Implies(u >= -L, E * t >= one),
                        ),
                    )
                )
                out.append(zz.Implies(t == E, L == u))
        out += self._power_shifts()
        out += self._harmonic_axioms()
        return out

    def _monotone(self, terms: list[Term]) -> list[Any]:
        zz = self.zz
        out = []
        for i, a in enumerate(terms):
            for b in terms[i + 1 :]:
                facts = zz.And(
                    zz.Implies(a.arg < b.arg, a.var < b.var),
                    zz.Implies(b.arg < a.arg, b.var < a.var),
                    zz.Implies(a.arg == b.arg, a.var == b.var),
                )
                guards = [g for g in (a.guard, b.guard) if g is not None]
                out.append(zz.Implies(zz.And(*guards), facts) if guards else facts)
        return out

    def _power_shifts(self) -> list[Any]:
        out = []
        for i, (c1, e1, v1) in enumerate(self.cpows):
            for c2, e2, v2 in self.cpows[i + 1 :]:
                if c1 != c2:
                    continue
                d = sp.simplify(sp.expand(e1 - e2))
                if d.is_Integer and abs(int(d)) <= MAX_SHIFT:
                    out.append(v1 == self.val(sp.Rational(c1) ** int(d)) * v2)
        return out

    def _harmonic_axioms(self) -> list[Any]:
        zz = self.zz
        zero, one, two = self.val(0), self.val(1), self.val(2)
        out = []
        for h in self.harmonics:
            n, H, m = h.n, h.var, h.m
            g, pos = n >= zero, n >= one
            out += [
                zz.Implies(n == zero, H == zero),
                zz.Implies(g, H >= zero),
                zz.Implies(pos, H >= one),
                zz.Implies(g, H <= n),
            ]
            if m == 1:
                out += [zz.Implies(g, H >= h.log_n1), zz.Implies(pos, H <= one + h.log_n)]
            elif m > 1:
                if m >= 2:
                    out.append(zz.Implies(pos, H * n <= two * n - one))
                if m == 2:
                    # ζ(2) = pi²/6; the tail Σ_{k>n} 1/k² lies between 1/(n + 1) and 1/n
                    pi = self.constant("pi")
                    z2 = pi * pi / self.val(6)
                    out += [
                        zz.Implies(g, H * (n + one) <= z2 * (n + one) - one),
                        zz.Implies(pos, H * n >= z2 * n - one),
                    ]
                else:
                    out.append(zz.Implies(pos, H <= self.val(zeta_upper(m))))
        for i, a in enumerate(self.harmonics):
            for b in self.harmonics[i + 1 :]:
                if a.m != b.m:
                    continue
                guard = zz.And(a.n >= zero, b.n >= zero)
                out.append(
                    zz.Implies(
                        guard,
                        zz.And(
                            zz.Implies(a.n < b.n, a.var < b.var),
                            zz.Implies(b.n < a.n, b.var < a.var),
                            zz.Implies(a.n == b.n, a.var == b.var),
                        ),
                    )
                )
                if a.m == 1:
                    out.append(
                        zz.Implies(zz.And(guard, b.n == a.n + one), b.var * (a.n + one) == a.var * (a.n + one) + one)
                    )
                    out.append(
                        zz.Implies(zz.And(guard, a.n == b.n + one), a.var * (b.n + one) == b.var * (b.n + one) + one)
                    )
        return out
