"""The checks the Experiment stage runs on a simulation report.

Bound check: at each horizon, an upper bound holds when the one-sided lower confidence limit
mean - z * stderr is at most the bound (z = Z_ONE_SIDED, 99%); a lower bound when the upper limit
mean + z * stderr is at least the bound. `margin` is the distance from that limit to the bound
(>= 0 when the bound held; a limit equal to the bound up to float rounding, ROUNDING_TOL, also
holds, which matters for deterministic output with stderr 0). Asymptotic bounds are not
inequalities at finite T and are checked through their rate instead.

Rate fit: over the tail of the curve (its last TAIL_DECADES decades of t), least-squares
fits regret ~ a + b g(t) for g in log t, sqrt t, sqrt(t log t), t. The check is one-sided:
an upper bound says the curve grows no faster than claimed, a lower bound no slower.
- First, does the tail grow at all? Its rise under the claimed shape's fit must exceed the
  noise (z times the end points' stderr and the fit's scatter). A tail that does not grow is
  slower than every rate: consistent with an upper bound; a lower bound fails unless its own
  rise over the range is within the noise too (then nothing can be seen either way).
- A growing tail's observed growth is the best fit (largest R^2). An upper-bound claim is
  consistent when that is no faster than the claimed one (or the claimed shape fits within
  R2_TIE of the best); a lower-bound claim when it is no slower.
- For bounds whose expression can be evaluated, the theoretical slope is the bound's own
  increase per unit of g over the same range; asymptotic bounds must also respect it within
  SLOPE_TOL, one-sidedly (upper: fitted <= (1 + tol) theory, any smaller slope is fine; lower:
  fitted >= (1 - tol) theory).

Alignment score: the mean of the available parts: fraction of bound checks that held, fraction
of rate fits that are consistent, and 1 - the mean claim violation rate. The stage passes only
the checks of the theorem's own bounds (not those of a domain's default spec).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from eurekaclaw.agents.experiment.expr import Compiled
from eurekaclaw.agents.experiment.report import ReportBound, Series, SimulationReport
from eurekaclaw.types.artifacts import BoundCheck

Z_ONE_SIDED = 2.326  # 99% one-sided normal quantile
TAIL_DECADES = 1
MIN_TAIL_POINTS = 4
R2_TIE = 0.01
SLOPE_TOL = 0.5
ROUNDING_TOL = 1e-9  # relative float tolerance: equality up to rounding is no violation
RATE_ORDER = ("log", "sqrt", "sqrt_log", "linear")
# A growth shape g(T), applied to the tail's times (an array) and to single end points.
Shape = Callable[[npt.NDArray[np.float64] | np.float64], npt.NDArray[np.float64] | np.float64]
SHAPES: dict[str, Shape] = {
    "log": np.log,
    "sqrt": np.sqrt,
    "sqrt_log": lambda t: np.sqrt(t * np.log(t)),
    "linear": lambda t: t,
}


def evaluate_bound(fn: Compiled, variables: dict[str, float], t: float | np.ndarray) -> Any:
    return fn({**variables, "T": t})


def check_bound(
    bound: ReportBound, fn: Compiled, series: Series, variables: dict[str, float]
) -> tuple[list[BoundCheck], list[str]]:
    checks: list[BoundCheck] = []
    notes: list[str] = []
    for p in series.points:
        theory = float(evaluate_bound(fn, variables, float(p.horizon)))
        if not math.isfinite(theory):
            notes.append(f"bound {bound.name} is not finite at T={p.horizon} on {series.name}; not checked there")
            continue
        if bound.direction == "upper":
            limit = p.mean - Z_ONE_SIDED * p.stderr
            margin = theory - limit
        else:
            limit = p.mean + Z_ONE_SIDED * p.stderr
            margin = limit - theory
        # With stderr 0 (deterministic output) a mean equal to the bound up to float rounding
        # must not read as a violation.
        rounding = ROUNDING_TOL * (1.0 + abs(theory) + abs(limit))
        quantiles = {k: float(v) for k, v in (("q10", p.q10), ("q50", p.q50), ("q90", p.q90)) if v is not None}
        checks.append(
            BoundCheck(
                name=f"{bound.name}@{series.name}",
                horizon=p.horizon,
                empirical_mean=p.mean,
                std_error=p.stderr,
                quantiles=quantiles,
                theoretical=theory,
                held=margin >= -rounding,
                margin=margin,
            )
        )
    return checks, notes


def fit_shapes(t: np.ndarray, y: np.ndarray) -> dict[str, dict[str, float]]:
    """Least-squares fit y ~ a + b g(t) for every shape g, with R^2."""
    fits = {}
    total = float(((y - y.mean()) ** 2).sum())
    for name, g in SHAPES.items():
        x = g(t.astype(np.float64))
        A = np.vstack([np.ones_like(x), x]).T
        (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
        resid = float(((y - (a + b * x)) ** 2).sum())
        r2 = 1.0 - resid / total if total > 0 else (1.0 if resid == 0 else 0.0)
        fits[name] = {"slope": float(b), "intercept": float(a), "r2": float(r2)}
    return fits


def tail(series: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times, means and standard errors over the last TAIL_DECADES decades of the curve."""
    t = np.asarray(series.t, dtype=np.float64)
    y = np.asarray(series.mean, dtype=np.float64)
    se = np.asarray(series.stderr, dtype=np.float64)
    keep = t >= max(2.0, t[-1] / 10**TAIL_DECADES)
    if keep.sum() < MIN_TAIL_POINTS:
        keep = t >= 2.0
    return t[keep], y[keep], se[keep]


def _rise(fit: dict[str, float], g: Shape, lo: float, hi: float) -> float:
    """How much the fitted curve a + b g(t) rises from lo to hi."""
    return fit["slope"] * float(g(np.float64(hi)) - g(np.float64(lo)))


def fit_rate(
    bound: ReportBound, fn: Compiled | None, series: Series, variables: dict[str, float]
) -> dict[str, Any] | None:
    t, y, se = tail(series)
    if t.size < MIN_TAIL_POINTS:
        return None
    claimed = bound.rate or ("log" if bound.asymptotic else None)
    if claimed is None:
        return None
    fits = fit_shapes(t, y)
    best = max(RATE_ORDER, key=lambda k: (round(fits[k]["r2"], 6), -RATE_ORDER.index(k)))
    lo, hi = float(t[0]), float(t[-1])
    g = SHAPES[claimed]
    # Does the tail grow at all beyond its noise? Without growth the R^2 ranking of the shapes
    # ranks noise, so it must not decide: no growth is slower than every claimed rate.
    rise = _rise(fits[claimed], g, lo, hi)
    # stderr of the end points, plus the curve's own scatter for output that reports none
    scatter = float(np.sqrt(np.mean((y - fits[claimed]["intercept"] - fits[claimed]["slope"] * g(t)) ** 2)))
    noise = Z_ONE_SIDED * math.hypot(float(se[0]), float(se[-1]), scatter) + ROUNDING_TOL * (
        1.0 + float(np.abs(y).max())
    )
    growing = rise > noise
    theory_slope = theory_rise = None
    if fn is not None:
        v_lo, v_hi = (float(evaluate_bound(fn, variables, x)) for x in (lo, hi))
        dg = float(g(np.float64(hi)) - g(np.float64(lo)))
        if all(math.isfinite(v) for v in (v_lo, v_hi)) and dg > 0:
            theory_slope = (v_hi - v_lo) / dg
            theory_rise = v_hi - v_lo
    tie = fits[claimed]["r2"] >= fits[best]["r2"] - R2_TIE
    fitted = fits[claimed]["slope"]
    upper = bound.direction == "upper"
    if upper:
        # growing no faster than claimed is what an upper bound says; only faster growth fails
        shape_ok = not growing or RATE_ORDER.index(best) <= RATE_ORDER.index(claimed) or tie
    elif growing:
        shape_ok = RATE_ORDER.index(best) >= RATE_ORDER.index(claimed) or tie
    else:
        # a flat tail contradicts a lower bound only when the bound itself rises beyond the noise
        shape_ok = theory_rise is not None and theory_rise <= noise
    slope_ok = True
    if bound.asymptotic and theory_slope is not None and theory_slope > 0:
        # one-sided: a slope far below an upper bound's (or far above a lower bound's) is fine
        slope_ok = fitted <= (1.0 + SLOPE_TOL) * theory_slope if upper else fitted >= (1.0 - SLOPE_TOL) * theory_slope
    observed = best if growing else "none"
    return {
        "bound": bound.name,
        "series": series.name,
        "claimed_rate": claimed,
        "direction": bound.direction,
        "asymptotic": bound.asymptotic,
        "best_rate": best,
        "observed_rate": observed,
        "growing": bool(growing),
        "rise": rise,
        "noise": noise,
        "fits": fits,
        "fitted_slope": fitted,
        "theory_slope": theory_slope,
        "slope_ratio": (fitted / theory_slope) if theory_slope else None,
        "t_range": [int(t[0]), int(t[-1])],
        "consistent": bool(shape_ok and slope_ok),
        "why": _why(upper, observed, claimed, shape_ok, slope_ok, fitted, theory_slope),
        "lemma_id": bound.lemma_id,
    }


def _why(
    upper: bool, observed: str, claimed: str, shape_ok: bool, slope_ok: bool, fitted: float, theory_slope: float | None
) -> str:
    """One line on the verdict, for notes and reports."""
    kind = "upper" if upper else "lower"
    grows = "no growth beyond the noise" if observed == "none" else f"observed growth {observed}"
    if not shape_ok:
        return f"{grows} is {'faster' if upper else 'slower'} than the claimed {claimed} of this {kind} bound"
    if not slope_ok:
        return (
            f"fitted {claimed} slope {fitted:.4g} is {'above' if upper else 'below'} the bound's "
            f"{theory_slope:.4g} beyond the {SLOPE_TOL:.0%} tolerance"
        )
    return f"{grows} is consistent with the claimed {claimed} {kind} bound"


def bound_curve(fn: Compiled, series: Series, variables: dict[str, float]) -> list[tuple[int, float]]:
    """The bound's value at the series' times (finite values only), for the plot."""
    t = np.asarray(series.t, dtype=np.float64)
    values = np.broadcast_to(np.asarray(evaluate_bound(fn, variables, t), dtype=np.float64), t.shape)
    return [(int(x), float(v)) for x, v in zip(t, values, strict=True) if math.isfinite(float(v))]


def lemma_violation_rates(checks: list[tuple[str | None, bool]]) -> dict[str, float]:
    """Per lemma id: the fraction of its checks (bound checks and rate fits) that failed."""
    totals: dict[str, list[int]] = {}
    for lemma_id, ok in checks:
        if lemma_id:
            bucket = totals.setdefault(lemma_id, [0, 0])
            bucket[0] += 0 if ok else 1
            bucket[1] += 1
    return {k: v[0] / v[1] for k, v in totals.items()}


def alignment_score(
    bound_checks: list[BoundCheck], rate_fits: list[dict[str, Any]], violations: dict[str, float]
) -> float | None:
    parts = []
    if bound_checks:
        parts.append(sum(c.held for c in bound_checks) / len(bound_checks))
    if rate_fits:
        parts.append(sum(bool(f["consistent"]) for f in rate_fits) / len(rate_fits))
    if violations:
        parts.append(1.0 - sum(violations.values()) / len(violations))
    return round(sum(parts) / len(parts), 6) if parts else None


def run_checks(report: SimulationReport, compiled: dict[str, Compiled]) -> dict[str, Any]:
    """All checks for a report whose bound expressions are compiled (by bound name)."""
    bound_checks: list[BoundCheck] = []
    rate_fits: list[dict[str, Any]] = []
    notes: list[str] = []
    curves: dict[str, list[tuple[int, float]]] = {}
    per_lemma: list[tuple[str | None, bool]] = []
    for bound in report.bounds:
        fn = compiled.get(bound.name)
        targets = [s for s in (report.series_named(n) for n in bound.series) if s is not None]
        instances = {s.instance for s in targets}
        for s in targets:
            variables = report.variables_for(s)
            if fn is not None:
                missing = fn.names - set(variables) - {"T"}
                if missing:
                    notes.append(f"bound {bound.name}: {', '.join(sorted(missing))} not defined for {s.name}; skipped")
                    continue
                curve_name = bound.name if len(instances) <= 1 else f"{bound.name}@{s.instance}"
                if curve_name not in curves:
                    curves[curve_name] = bound_curve(fn, s, variables)
                if not bound.asymptotic:
                    found, more = check_bound(bound, fn, s, variables)
                    bound_checks.extend(found)
                    notes.extend(more)
                    per_lemma.extend((bound.lemma_id, c.held) for c in found)
            fit = fit_rate(bound, fn, s, variables)
            if fit is not None:
                rate_fits.append(fit)
                per_lemma.append((bound.lemma_id, fit["consistent"]))
    return {
        "bound_checks": bound_checks,
        "rate_fits": rate_fits,
        "notes": notes,
        "curves": curves,
        "lemma_rates": lemma_violation_rates(per_lemma),
    }
