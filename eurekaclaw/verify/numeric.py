"""Compile a ParsedClaim into fast numeric functions (numpy, vectorised) and into mpmath
functions (50+ digits) for the high-precision path of the exact re-check.

Sums without a closed form are replaced by small implemented functions, because lambdify's
own translation (`builtins.sum(... for k in range(a, b + 1))`) cannot take arrays or mpf bounds.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from sympy.printing.numpy import SciPyPrinter
from sympy.printing.pycode import MpmathPrinter
from sympy.utilities.lambdify import implemented_function

MAX_NUMERIC_SUM_TERMS = 2_000  # per sample point; longer sums give NaN (the point is skipped)
MP_SUM_TERMS = 100_000
CELLS_PER_CALL = 1_000_000


class _FloatPrinter(SciPyPrinter):
    """Rationals as float literals: an exact 10^400 (or 1/3 with 500-digit parts) would make
    Python raise OverflowError inside the generated function; as a float it is inf (or 0),
    and the falsifier re-checks such points exactly."""

    def _print_Integer(self, expr: sp.Integer) -> str:
        return self._print_Rational(expr)

    def _print_Rational(self, expr: sp.Rational) -> str:
        value = _to_float(expr)
        if math.isinf(value):
            return "1e999" if value > 0 else "(-1e999)"
        text = repr(value)
        return f"({text})" if value < 0 else text


def _float_printer() -> _FloatPrinter:
    # the settings lambdify gives its own default printer (implemented functions need them)
    return _FloatPrinter(
        {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True, "user_functions": {}}
    )


def _to_float(value: Any) -> float:
    """float(value), ±inf instead of OverflowError for numbers beyond the float range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _as_float_array(value: Any) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == object:
        # Python ints and sympy/mpmath numbers: convert one by one, overflow becomes ±inf
        flat = [_scalar(v) for v in arr.ravel()]
        return np.asarray(flat, float).reshape(arr.shape)
    if np.iscomplexobj(arr):
        return np.where(np.abs(arr.imag) > 0, np.nan, arr.real).astype(float)
    return arr.astype(float)


def _scalar(v: Any) -> float:
    if isinstance(v, complex):
        return v.real if v.imag == 0 else math.nan
    try:
        return _to_float(v)
    except (TypeError, ValueError):
        return math.nan


def raw_replace(expr: sp.Expr, change: Callable[[sp.Expr], sp.Expr | None]) -> sp.Expr:
    """Bottom-up replacement (`change` returns a new node or None) that rebuilds the nodes
    above a change *unevaluated*: sympy's automatic evaluation would otherwise redo the
    rewrites claims.py avoids (sqrt(x*y) -> sqrt(x)*sqrt(y))."""
    memo: dict[sp.Basic, sp.Basic] = {}

    def walk(e: sp.Basic) -> sp.Basic:
        if e in memo:
            return memo[e]
        out = e
        if e.args:
            args = tuple(walk(a) for a in e.args)
            if args != e.args:
                with sp.evaluate(False):
                    out = e.func(*args)
        new = change(out)
        memo[e] = out if new is None else new
        return memo[e]

    return walk(expr)


def _numeric_rewrite(expr: sp.Expr) -> sp.Expr:
    """Forms numpy/scipy can evaluate: factorial/binomial via gamma, harmonic via digamma."""

    def change(e: sp.Expr) -> sp.Expr | None:
        if isinstance(e, sp.factorial):
            return sp.gamma(sp.Add(e.args[0], sp.Integer(1), evaluate=False), evaluate=False)
        if isinstance(e, sp.harmonic) and len(e.args) == 1:
            return e.rewrite(sp.digamma)
        return None

    return raw_replace(expr, change)


def _numpy_sum(summand: Callable[..., Any]) -> Callable[..., Any]:
    def total(low: Any, high: Any, *free: Any) -> np.ndarray:
        low_a, high_a, *free_a = np.broadcast_arrays(
            np.asarray(low, float), np.asarray(high, float), *[np.asarray(f, float) for f in free]
        )
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


_SUM_IDS = itertools.count(1)


def replace_sums(expr: sp.Expr, backend: str, modules: Sequence[Any], *, guarded: bool = False) -> sp.Expr:
    """Replace every unevaluated Sum by an implemented function for `backend`."""

    def swap(node: sp.Sum) -> sp.Expr:
        (index, low, high) = node.limits[0]
        summand = node.function
        free = sorted(summand.free_symbols - {index}, key=str)
        printer = _float_printer() if backend == "numpy" else _mpmath_printer(guarded)
        fn = sp.lambdify([index, *free], summand, modules=list(modules), printer=printer)
        impl = _numpy_sum(fn) if backend == "numpy" else _mpmath_sum(fn)
        # unique across calls: one lambdify may receive several replaced expressions, and two
        # implementations under one name make it fail
        f = implemented_function(f"eureka_sum_{backend}_{next(_SUM_IDS)}", impl)
        return f(low, high, *free)

    while expr.has(sp.Sum):
        innermost = {s: swap(s) for s in expr.atoms(sp.Sum) if not s.function.has(sp.Sum)}
        expr = raw_replace(expr, innermost.get)
    return expr


NUMPY_MODULES: list[Any] = ["scipy", "numpy"]


def compile_numpy(symbols: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]) -> Callable[..., list[np.ndarray]]:
    """One function f(*arrays) -> list of float arrays (broadcast), NaN where undefined."""
    prepared = [replace_sums(_numeric_rewrite(e), "numpy", NUMPY_MODULES) for e in exprs]
    raw = sp.lambdify(list(symbols), prepared, modules=NUMPY_MODULES, printer=_float_printer())

    def run(*arrays: np.ndarray) -> list[np.ndarray]:
        shape = np.broadcast_shapes(*[np.shape(a) for a in arrays]) if arrays else ()
        with np.errstate(all="ignore"):
            try:
                values = raw(*arrays)
            except (ZeroDivisionError, OverflowError, ValueError, TypeError, FloatingPointError):
                return [np.full(shape, np.nan) for _ in prepared]
        out = []
        for v in values:
            arr = _as_float_array(v)
            out.append(np.broadcast_to(arr, shape).copy() if arr.shape != shape else arr)
        return out

    return run


GUARD_LIMIT = mpmath.mpf(10) ** 3000  # exp/sin at 10^3000 still take milliseconds


class TooLarge(ArithmeticError):
    """An argument so large that evaluating a function at it would take minutes (mpmath needs
    about log2|x| extra bits for exp(x) or sin(x): exp(exp(10^6)) needs 1.4 million)."""


def _huge(value: Any) -> bool:
    try:
        return bool(abs(value) > GUARD_LIMIT)
    except TypeError:
        return False


def _guarded(name: str) -> Callable[..., Any]:
    fn = getattr(mpmath, name)

    def run(*args: Any) -> Any:
        if any(_huge(a) for a in args):
            raise TooLarge(f"{name} of a number beyond 1e3000")
        return fn(*args)

    return run


def _guarded_pow(base: Any, exponent: Any) -> Any:
    # b^e is exp(e*log b) unless e is an integer (then repeated squaring, cheap at any size)
    if base != 0 and not (mpmath.isint(exponent) and abs(exponent) < 2**64) and _huge(exponent * mpmath.log(abs(base))):
        raise TooLarge("a power with an exponent beyond 1e3000")
    return mpmath.power(base, exponent)


_GUARDS: dict[str, Any] = {name: _guarded(name) for name in ("exp", "sin", "cos", "tan", "gamma", "factorial")}
_GUARDS["eureka_pow"] = _guarded_pow


class _GuardedMpmathPrinter(MpmathPrinter):
    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        if expr.exp.is_number:
            return super()._print_Pow(expr, rational)
        return f"eureka_pow({self._print(expr.base)}, {self._print(expr.exp)})"


def _mpmath_printer(guarded: bool) -> MpmathPrinter:
    cls = _GuardedMpmathPrinter if guarded else MpmathPrinter
    return cls(
        {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True, "user_functions": {}}
    )


def compile_mpmath(
    symbols: Sequence[sp.Symbol], exprs: Sequence[sp.Expr], *, guarded: bool = False
) -> Callable[..., list[Any]]:
    """mpmath functions of `exprs`. `guarded=True`: exp, trigonometric functions, gamma and
    powers with a variable exponent raise TooLarge instead of computing at arguments beyond
    10^3000 (exact.py probes every point with these before evaluating it)."""
    modules: list[Any] = [_GUARDS, "mpmath"] if guarded else ["mpmath"]
    prepared = [replace_sums(e, "mpmath", modules, guarded=guarded) for e in exprs]
    return sp.lambdify(list(symbols), prepared, modules=modules, printer=_mpmath_printer(guarded))
