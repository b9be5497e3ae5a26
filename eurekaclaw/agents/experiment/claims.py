"""Numeric violation rate of a lemma's claim: sample its variables from their domains, keep the
samples that satisfy the assumptions, and count how often the conclusion fails.

This is a measurement for the experiment report, not a verdict: the Theory stage's falsifier
searches for counterexamples adversarially; here the sampling is plain and seeded so the rate
is comparable across runs.

The claim is read in the claim language the checkers use (verify/claims.py: `Sum`, `factorial`,
`e`, ...), so the rate is about the same statement they checked. Floating point only proposes
violations: a relation is compared with the falsifier's tolerance (1e-9 (1 + |lhs| + |rhs|)),
so `==`, `<=` and `>=` hold at equality up to rounding, and every proposed violation (plus each
strict relation or `!=` whose sides are equal up to rounding) is re-checked in exact arithmetic
(verify/exact.py) before it counts. A true identity therefore shows no violations, however
badly its two sides cancel in float64. When there are more candidates than MAX_EXACT, a seeded
random subset is re-checked and the count is extrapolated from it (the detail says so).

A claim that does not parse, or whose assumptions leave fewer than MIN_VALID samples, is
reported as not simulable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import sympy as sp

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify.claims import ParsedClaim, Relation
from eurekaclaw.verify.exact import evaluate_parsed, parsed_for
from eurekaclaw.verify.falsifier_search import ATOL, RTOL
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.numeric import compile_numpy
from eurekaclaw.verify.sampling import in_domain

SAMPLES = 4000
MIN_VALID = 50
SPAN = 1e3
MAX_EXACT = 32  # exact re-checks per claim; beyond that the count is extrapolated
EXACT_BUDGET_S = 3.0  # a safety net for slow exact arithmetic, not the normal limit


@dataclass
class ClaimSampling:
    """What sampling found. rate is None when the claim could not be simulated."""

    rate: float | None
    detail: str
    valid: int = 0
    violations: float = 0.0  # an estimate when only part of the candidates was re-checked
    rounding: int = 0  # float-level violations that exact arithmetic cleared
    rechecked: int = 0
    candidates: int = 0
    undefined: int = 0


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


def _guard_holds(rel: Relation, d: np.ndarray) -> np.ndarray:
    """Assumptions and definedness conditions, decided as the falsifier decides them."""
    if rel.op == "==":
        return np.abs(d) <= ATOL * (1 + np.abs(d))
    if rel.op == "!=":
        return d != 0
    return (d > 0) if rel.strict else (d >= 0)


def _conclusion_state(rel: Relation, lhs: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(clear float violation, too close to equality to call, undefined) per sample.

    Within the tolerance, ==, <= and >= hold (rounding at equality is no violation); a strict
    relation or != there is undecidable in floating point, so exact arithmetic decides it."""
    undefined = ~(np.isfinite(lhs) & np.isfinite(rhs))
    tol = ATOL + RTOL * (np.abs(lhs) + np.abs(rhs))
    if rel.op in ("<=", "<"):
        d = rhs - lhs
    elif rel.op in (">=", ">"):
        d = lhs - rhs
    elif rel.op == "==":
        d = -np.abs(lhs - rhs)
    else:
        d = np.abs(lhs - rhs)
    fails = ~undefined & (d < -tol)
    near = ~undefined & ~fails & (np.abs(d) <= tol) if rel.strict else np.zeros_like(fails)
    return fails, near, undefined


def _point(parsed: ParsedClaim, env: dict[str, np.ndarray], i: int) -> dict[str, float | int]:
    return {n: (int(env[n][i]) if parsed.domains[n].kind == "int" else float(env[n][i])) for n in parsed.names}


def sample_claim(claim: Claim, seed: int = 0, samples: int = SAMPLES) -> ClaimSampling:
    try:
        parsed = parsed_for(claim)
        names = parsed.names
        guards = parsed.conditions + parsed.assumptions
        exprs = [e for rel in parsed.conclusion for e in (rel.lhs, rel.rhs)] + [g.difference() for g in guards]
        fn = compile_numpy(list(parsed.symbols.values()), exprs)
    except (ClaimError, sp.SympifyError, TypeError, ValueError, NotImplementedError, RecursionError) as exc:
        return ClaimSampling(None, f"not simulable: {exc}")
    rng = np.random.default_rng(seed)
    by_name = {v.name: v for v in claim.variables}
    env = {n: _sample(by_name[n], samples, rng) for n in names}
    outs = fn(*[env[n] for n in names])
    outs = [np.broadcast_to(np.asarray(o, dtype=np.float64), (samples,)) for o in outs]
    k = 2 * len(parsed.conclusion)
    in_scope = np.ones(samples, dtype=bool)  # in the domains and the assumptions hold
    for n in names:
        in_scope &= in_domain(parsed.domains[n], env[n])
    defined = np.ones(samples, dtype=bool)
    for g, (rel, d) in enumerate(zip(guards, outs[k:], strict=True)):
        if g < len(parsed.conditions):
            defined &= _guard_holds(rel, d)
        else:
            in_scope &= _guard_holds(rel, d)
    fails = np.zeros(samples, dtype=bool)
    near = np.zeros(samples, dtype=bool)
    undefined = ~defined
    for j, rel in enumerate(parsed.conclusion):
        f, m, u = _conclusion_state(rel, outs[2 * j], outs[2 * j + 1])
        fails |= f & defined
        near |= m
        undefined |= u
    undefined &= in_scope & ~fails  # a chain that fails in one link is a violation whatever the others say
    valid = in_scope & ~undefined
    candidates = np.flatnonzero(valid & (fails | near))
    return _recheck(parsed, env, int(valid.sum()), int(undefined.sum()), candidates, samples, rng)


def _recheck(
    parsed: ParsedClaim,
    env: dict[str, np.ndarray],
    n_valid: int,
    n_undefined: int,
    candidates: np.ndarray,
    samples: int,
    rng: np.random.Generator,
) -> ClaimSampling:
    """Confirm float-level violations in exact arithmetic and turn them into a rate."""
    picked = candidates if candidates.size <= MAX_EXACT else np.sort(rng.choice(candidates, MAX_EXACT, replace=False))
    confirmed = cleared = other = 0
    started = time.monotonic()
    for i in picked:
        ev = evaluate_parsed(parsed, _point(parsed, env, int(i)))
        if ev.holds is False:
            confirmed += 1
        elif ev.holds is True:
            cleared += 1
        else:  # outside, undefined or undecided in exact arithmetic: not a sample of the claim
            other += 1
        if time.monotonic() - started > EXACT_BUDGET_S:
            break
    checked = confirmed + cleared + other
    scale = candidates.size / checked if checked else 0.0
    violations = confirmed * scale
    left_out = n_undefined + other * scale
    n_eff = n_valid - other * scale
    result = ClaimSampling(
        None,
        "",
        valid=n_valid,
        violations=violations,
        rounding=round(cleared * scale),
        rechecked=checked,
        candidates=int(candidates.size),
        undefined=round(left_out),
    )
    if n_eff < MIN_VALID:
        result.detail = f"not simulable: only {max(0, round(n_eff))} of {samples} samples satisfy the assumptions"
        return result
    result.rate = violations / n_eff
    result.detail = _describe(result, round(n_eff), stopped=checked < picked.size)
    return result


def _describe(r: ClaimSampling, n: int, *, stopped: bool) -> str:
    extrapolated = r.rechecked < r.candidates
    where = f"in {n} samples satisfying the assumptions"
    count = round(r.violations)
    if count == 0:
        text = f"no violation {where}"
    elif extrapolated:
        text = f"about {count} violations {where} (estimated: {r.candidates} in floating point, {r.rechecked} of them re-checked in exact arithmetic)"
    else:
        text = f"{count} violation{'s' if count != 1 else ''} {where}, confirmed in exact arithmetic"
    if r.rounding:
        sampled = f", judging by {r.rechecked} re-checked" if extrapolated else ""
        text += (
            f"; {'about ' if extrapolated else ''}{r.rounding} floating-point difference(s) were rounding "
            f"(the claim holds there in exact arithmetic{sampled})"
        )
    if r.undefined:
        text += f"; {r.undefined} samples where the claim is undefined or undecidable were left out"
    if stopped:
        text += f"; the exact re-check stopped after {EXACT_BUDGET_S:g} s"
    return text


def violation_rate(claim: Claim, seed: int = 0, samples: int = SAMPLES) -> tuple[float | None, str]:
    """(rate of samples violating the conclusion, explanation); rate None when not simulable."""
    found = sample_claim(claim, seed, samples)
    return found.rate, found.detail
