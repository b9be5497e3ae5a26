"""Compile a ParsedClaim into fast numeric functions (numpy, vectorised) and into mpmath
functions (50+ digits) for the high-precision path of the exact re-check.

Sums without a closed form are replaced by small implemented functions, because lambdify's
own translation (`builtins.sum(... for k in range(a, b + 1))`) cannot take arrays or mpf bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from sympy.utilities.lambdify import implemented_function

MAX_NUMERIC_SUM_TERMS = 2_000  # per sample point; longer sums give NaN (the point is skipped)
MP_SUM_TERMS = 100_000
CELLS_PER_CALL = 1_000_000


def _numeric_rewrite(expr: sp.Expr) -> sp.Expr:
    """Forms numpy/scipy can evaluate: factorial/binomial via gamma, harmonic via digamma."""
    return expr.replace(
        lambda e: isinstance(e, sp.factorial), lambda e: sp.gamma(e.args[0] + 1)
    ).replace(lambda e: isinstance(e, sp.harmonic) and len(e.args) == 1, lambda e: e.rewrite(sp.digamma))


def _numpy_sum(summand: Callable[..., Any]) -> Callable[..., Any]:
    def total(low: Any, high: Any, *free: Any) -> np.ndarray:
        low_a, high_a, *free_a = np.broadcast_arrays(np.asarray(low, float), np.asarray(high, float), *[np.asarray(f, float) for f in free])
        out = np.full(low_a.shape, np.nan)
        ok = np.isfinite(low_a) & np.isfinite(high_a) & (high_a - low_a < MAX_NUMERIC_SUM_TERMS)
        if not ok.any():
            return out
        lo, hi = low_a[ok], high_a[ok]
        fr = [f[ok] for f in free_a]
        acc = np.zeros(lo.shape)
        start, stop = int(np.floor(lo.min())), int(np.ceil(hi.max()))
        # Evaluate blocks of indices against all points at once (about a million values per call).
        block = max(1, CELLS_PER_CALL // max(1, lo.size))
        for first in range(start, stop + 1, block):
            ks = np.arange(first, min(first + block, stop + 1), dtype=float)[:, None]
            vals = np.asarray(summand(ks, *[f[None, :] for f in fr]), float)
            vals = np.broadcast_to(vals, (ks.shape[0], lo.size))
            active = (ks >= lo[None, :]) & (ks <= hi[None, :])
            acc = acc + np.where(active, vals, 0.0).sum(axis=0)
        out[ok] = acc
        return out

    return total


def _mpmath_sum(summand: Callable[..., Any]) -> Callable[..., Any]:
    def total(low: Any, high: Any, *free: Any) -> Any:
        lo, hi = int(mpmath.nint(low)), int(mpmath.nint(high))
        if hi - lo > MP_SUM_TERMS:
            return mpmath.nan
        return mpmath.fsum(summand(mpmath.mpf(k), *free) for k in range(lo, hi + 1))

    return total


def replace_sums(expr: sp.Expr, backend: str, modules: Sequence[Any]) -> sp.Expr:
    """Replace every unevaluated Sum by an implemented function for `backend`."""
    counter = [0]

    def swap(node: sp.Sum) -> sp.Expr:
        (index, low, high) = node.limits[0]
        summand = node.function
        free = sorted(summand.free_symbols - {index}, key=str)
        fn = sp.lambdify([index, *free], summand, modules=list(modules))
        impl = _numpy_sum(fn) if backend == "numpy" else _mpmath_sum(fn)
        counter[0] += 1
        f = implemented_function(f"eureka_sum_{backend}_{counter[0]}", impl)
        return f(low, high, *free)

    while expr.has(sp.Sum):
        innermost = [s for s in expr.atoms(sp.Sum) if not s.function.has(sp.Sum)]
        expr = expr.xreplace({s: swap(s) for s in innermost})
    return expr


NUMPY_MODULES: list[Any] = ["scipy", "numpy"]


def compile_numpy(symbols: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]) -> Callable[..., list[np.ndarray]]:
    """One function f(*arrays) -> list of float arrays (broadcast), NaN where undefined."""
    prepared = [replace_sums(_numeric_rewrite(e), "numpy", NUMPY_MODULES) for e in exprs]
    raw = sp.lambdify(list(symbols), prepared, modules=NUMPY_MODULES)

    def run(*arrays: np.ndarray) -> list[np.ndarray]:
        shape = np.broadcast_shapes(*[np.shape(a) for a in arrays]) if arrays else ()
        with np.errstate(all="ignore"):
            try:
                values = raw(*arrays)
            except (ZeroDivisionError, OverflowError, ValueError, TypeError, FloatingPointError):
                return [np.full(shape, np.nan) for _ in prepared]
        out = []
        for v in values:
            arr = np.asarray(v)
            if np.iscomplexobj(arr):
                arr = np.where(np.abs(arr.imag) > 0, np.nan, arr.real)
            out.append(np.broadcast_to(arr.astype(float, copy=False), shape).copy() if arr.shape != shape else arr.astype(float))
        return out

    return run


def compile_mpmath(symbols: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]) -> Callable[..., list[Any]]:
    prepared = [replace_sums(e, "mpmath", ["mpmath"]) for e in exprs]
    return sp.lambdify(list(symbols), prepared, modules=["mpmath"])
