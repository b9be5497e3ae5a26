"""Numeric violation rate of a lemma's claim: sample its variables from their domains, keep the
samples that satisfy the assumptions, and count how often the conclusion fails.

This is a measurement for the experiment report, not a verdict: the Theory stage's falsifier
searches for counterexamples adversarially; here the sampling is plain and seeded so the rate
is comparable across runs. A claim that does not parse in the expression language, or whose
assumptions leave fewer than MIN_VALID samples, is reported as not simulable.
"""

from __future__ import annotations

import numpy as np

from eurekaclaw.agents.experiment.expr import ExpressionError, compile_expression
from eurekaclaw.types.artifacts import Claim, ClaimVariable

SAMPLES = 4000
MIN_VALID = 50
SPAN = 1e3


def _sample(var: ClaimVariable, n: int, rng: np.random.Generator) -> np.ndarray:
    lo, hi = var.low, var.high
    if var.domain == "interval":
        a = lo if lo is not None else -SPAN
        b = hi if hi is not None else SPAN
        x = rng.uniform(a, b, n)
        edges = rng.random(n)
        # Put some mass on the ends: bounds are where claims break.
        x = np.where(edges < 0.05, a, np.where(edges > 0.95, b, x))
        if var.open_low:
            x = np.where(x <= a, np.nextafter(a, np.inf), x)
        if var.open_high:
            x = np.where(x >= b, np.nextafter(b, -np.inf), x)
        return x
    if var.domain in ("integer", "natural"):
        a = int(lo) if lo is not None else (0 if var.domain == "natural" else -100)
        b = int(hi) if hi is not None else a + 1000
        small = rng.integers(a, min(b, a + 20) + 1, n)
        wide = rng.integers(a, b + 1, n)
        return np.where(rng.random(n) < 0.5, small, wide).astype(np.float64)
    magnitude = np.exp(rng.uniform(np.log(1e-3), np.log(SPAN), n))
    if var.domain == "positive":
        x = magnitude
    elif var.domain == "nonnegative":
        x = np.where(rng.random(n) < 0.05, 0.0, magnitude)
    else:
        x = np.where(rng.random(n) < 0.5, -magnitude, magnitude)
        x = np.where(rng.random(n) < 0.05, 0.0, x)
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def violation_rate(claim: Claim, seed: int = 0, samples: int = SAMPLES) -> tuple[float | None, str]:
    """(rate of samples violating the conclusion, explanation); rate None when not simulable."""
    names = [v.name for v in claim.variables]
    try:
        conclusion = compile_expression(claim.conclusion, names, relation=True)
        assumptions = [compile_expression(a, names, relation=True) for a in claim.assumptions]
    except ExpressionError as exc:
        return None, f"not simulable: {exc}"
    rng = np.random.default_rng(seed)
    env = {v.name: _sample(v, samples, rng) for v in claim.variables}
    valid = np.ones(samples, dtype=bool)
    for a in assumptions:
        valid &= np.broadcast_to(np.asarray(a(env)), valid.shape) == 1.0
    truth = np.broadcast_to(np.asarray(conclusion(env), dtype=np.float64), valid.shape)
    undefined = int((valid & np.isnan(truth)).sum())
    valid &= ~np.isnan(truth)
    n_valid = int(valid.sum())
    if n_valid < MIN_VALID:
        return None, f"not simulable: only {n_valid} of {samples} samples satisfy the assumptions"
    violations = int((valid & (truth == 0.0)).sum())
    extra = f"; {undefined} samples where the conclusion is undefined were left out" if undefined else ""
    return violations / n_valid, f"{violations} violations in {n_valid} samples satisfying the assumptions{extra}"
