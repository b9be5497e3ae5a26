"""Where every SMT axiom comes from, and whether a claim is merely one of them.

smt_axioms.py hands Z3/cvc5 true facts about log, exp, powers, harmonic numbers and power sums,
instantiated at the claim's own terms. Each fact is a theorem one could be asked to prove, so:

- every axiom family is listed here with its exact statement and where it is proved (a textbook
  identity, or an integral comparison for a monotone function), and the tests check each one
  numerically — the sums with exact rationals for n up to 60 (tests/unit/verify/
  test_axiom_sources.py);
- a claim that *is* an axiom (up to adding a non-negative constant or a positive factor) was not
  proved by the solver: the solver only looked the axiom up. `axiom_instance` names the axiom;
  the level code then records the lemma as `cited` (the axiom's source), never `smt`.

Deciding "is an instance" uses sympy's simplification, which is fine here: it can only lower a
level (a missed instance keeps today's behaviour; a found one is re-stated as a citation).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import sympy as sp

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify.claims import ParsedClaim, parse_claim
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.grammar import ClaimError

SIMPLIFY_MAX_OPS = 80


@dataclass(frozen=True)
class AxiomSource:
    name: str
    statement: str
    source: str


AXIOM_SOURCES: dict[str, AxiomSource] = {
    a.name: a
    for a in [
        AxiomSource(
            "log-tangent",
            "log t <= t - 1 and log t >= 1 - 1/t for t > 0",
            "concavity of log: the tangent line at t = 1 (any analysis text, e.g. Rudin, Principles, ch. 8)",
        ),
        AxiomSource(
            "log-sign-monotone",
            "log t > 0 iff t > 1; t1 < t2 implies log t1 < log t2 (t1, t2 > 0)",
            "log is strictly increasing with log 1 = 0",
        ),
        AxiomSource(
            "log-root",
            "log t <= 2(sqrt t - 1) and log t * sqrt t >= 2(sqrt t - 1) for t > 0",
            "log-tangent applied at sqrt t, since log t = 2 log sqrt t",
        ),
        AxiomSource(
            "log-product",
            "log(prod b_i^q_i) = sum q_i log b_i when every b_i > 0",
            "the functional equation of log",
        ),
        AxiomSource(
            "exp-taylor",
            "exp t >= 1 + t and exp t >= 1 + t + t^2/2 + t^3/6 (all real t); exp t (1 - t) <= 1 (t < 1); "
            "exp t <= 1 + t + t^2 (t <= 1)",
            "Taylor's theorem with Lagrange remainder (even-order remainders are non-negative) and 1/exp(-t)",
        ),
        AxiomSource(
            "exp-log",
            "exp(a) exp(b) = exp(a + b), exp(log u) = u (u > 0), log(exp t) = t, exp increasing",
            "the functional equation of exp and log as its inverse",
        ),
        AxiomSource(
            "power-shift",
            "c^(e + d) = c^d c^e for a constant c > 0 and an integer d",
            "c^x = exp(x log c) and exp-log",
        ),
        AxiomSource(
            "constant-bracket",
            "pi, e, log(r), exp(r) (r rational) lie in the given rational intervals",
            "mpmath interval arithmetic, rounded outwards (smt_axioms._bracket)",
        ),
        AxiomSource(
            "harmonic-log",
            "log(n + 1) <= H_n <= 1 + log n (n >= 1), H_n = sum_{k=1}^{n} 1/k",
            "integral test: 1/x is decreasing, so int_k^{k+1} dx/x <= 1/k <= int_{k-1}^{k} dx/x",
        ),
        AxiomSource(
            "harmonic-basic",
            "H_0 = 0, 1 <= H_n <= n (n >= 1), H_{n+1} = H_n + 1/(n + 1), H increasing (any order m > 0)",
            "the definition of the finite sum",
        ),
        AxiomSource(
            "harmonic-tail",
            "sum_{k=1}^{n} 1/k^m <= 2 - 1/n (m >= 2, n >= 1); zeta(2) - 1/n <= sum 1/k^2 <= zeta(2) - 1/(n+1); "
            "sum 1/k^m <= zeta(m) (m > 1)",
            "integral test on the tail sum_{k>n} 1/k^2 (between 1/(n+1) and 1/n); 1/k^2 <= 1/(k(k-1)) telescoping; "
            "zeta(2) = pi^2/6 (Euler)",
        ),
        AxiomSource(
            "power-sum-integral",
            "for p > 0: N^(p+1)/(p+1) <= sum_{k=1}^{N} k^p <= ((N+1)^(p+1) - 1)/(p+1); for p < 0, p != -1: "
            "((N+1)^(p+1) - 1)/(p+1) <= sum <= 1 + (N^(p+1) - 1)/(p+1)",
            "integral comparison for the monotone function x^p",
        ),
    ]
}


def _sums(e: sp.Expr) -> Iterator[tuple[sp.Expr, sp.Rational, sp.Expr]]:
    """(N, p, c) for every Σ_{k=1}^{N} c*k^p in e (the shape smt_terms.power_sum translates)."""
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Sum) and len(node.limits) == 1:
            k, low, high = node.limits[0]
            coeff, rest = evaluated(node.function).as_coeff_Mul()
            p = sp.Integer(1) if rest == k else (rest.exp if isinstance(rest, sp.Pow) and rest.base == k else None)
            if low == 1 and p is not None and p.is_Rational and p != 0 and coeff.is_Rational and coeff > 0:
                yield high, p, coeff


def _candidates(e: sp.Expr) -> Iterator[tuple[str, sp.Expr, sp.Expr]]:
    """(axiom name, the axiom's instance written as X >= 0, the term it is about)."""
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.log):
            t = node.args[0]
            yield "log-tangent", t - 1 - node, node
            yield "log-tangent", node - 1 + 1 / t, node
            yield "log-root", 2 * (sp.sqrt(t) - 1) - node, node
        elif isinstance(node, sp.exp):
            t = node.args[0]
            yield "exp-taylor", node - 1 - t, node
            yield "exp-taylor", node - (1 + t + t**2 / 2 + t**3 / 6), node
    for n, p, c in _sums(e):
        k = sp.Dummy("k", integer=True, positive=True)
        s = sp.Sum(c * k**p, (k, 1, n))
        q = p + 1
        if p == -1:
            yield "harmonic-log", c * (1 + sp.log(n)) - s, s
            yield "harmonic-log", s - c * sp.log(n + 1), s
        elif p <= -2:
            yield "harmonic-tail", c * (2 - 1 / n) - s, s
            if p == -2:
                yield "harmonic-tail", c * (sp.pi**2 / 6) - s, s
                yield "harmonic-tail", c * (sp.pi**2 / 6 - 1 / (n + 1)) - s, s
        if p != -1:
            if p < 0:
                yield "power-sum-integral", c * (1 + (n**q - 1) / q) - s, s
                yield "power-sum-integral", s - c * ((n + 1) ** q - 1) / q, s
            else:
                yield "power-sum-integral", c * ((n + 1) ** q - 1) / q - s, s
                yield "power-sum-integral", s - c * n**q / q, s


def _normal(e: sp.Expr) -> sp.Expr:
    """Sums with their summation dummies renamed, so that two spellings of one sum compare
    equal; no sum is ever evaluated."""
    repl = {}
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Sum) and len(node.limits) == 1:
            k, low, high = node.limits[0]
            j = sp.Symbol("_k", integer=True, positive=True)
            repl[node] = sp.Sum(evaluated(node.function).xreplace({k: j}), (j, low, high))
    return evaluated(e).xreplace(repl)


def _same_up_to_slack(d: sp.Expr, a: sp.Expr) -> bool:
    """d >= 0 follows from a >= 0 by adding a non-negative constant or scaling by a positive
    constant factor (or by the axiom's own term t, for log t >= 1 - 1/t written times t)."""
    if sp.count_ops(d) > SIMPLIFY_MAX_OPS or sp.count_ops(a) > SIMPLIFY_MAX_OPS:
        return False
    d, a = _normal(d), _normal(a)
    diff = sp.simplify(d - a)
    if diff.is_number and diff.is_nonnegative:
        return True
    if a == 0:
        return False
    ratio = sp.simplify(d / a)
    return ratio.is_positive is True and not ratio.has(sp.log, sp.exp, sp.Sum)


def instance_of(parsed: ParsedClaim) -> str | None:
    """The name of the axiom the claim's conclusion restates, or None."""
    for rel in parsed.conclusion:
        if rel.op in ("==", "!="):
            continue
        d = rel.difference()
        for name, a, _term in _candidates(evaluated(d)):
            if _same_up_to_slack(d, a):
                return name
    return None


def axiom_instance(claim: Claim | None) -> str | None:
    """ "<name>: <statement> (source: ...)" when the claim is an instance of an SMT axiom —
    then a solver's proof of it is a look-up, and the lemma is `cited` with this source — else
    None (also for a claim that does not parse)."""
    if claim is None:
        return None
    try:
        name = instance_of(parse_claim(claim))
    except (ClaimError, TypeError, ValueError, RecursionError, AttributeError):
        return None
    if name is None:
        return None
    a = AXIOM_SOURCES[name]
    return f"{a.name}: {a.statement} (source: {a.source})"
