"""Candidate points for the falsifier: random samples spread over many magnitudes, special
values (0, ±1, small integers, domain bounds, 1e-9, 1e6) and their combinations.

Everything is drawn from one numpy Generator, so a seed fixes the points.
"""

from __future__ import annotations

import itertools

import numpy as np

from eurekaclaw.verify.claims import VarDomain

WIDE = 1e6
TINY = 1e-9
MAX_GRID = 6_000

_REAL_SPECIALS = (
    0.0,
    1e-9,
    1e-6,
    1e-3,
    0.01,
    0.1,
    0.25,
    0.5,
    0.9,
    0.99,
    1.0,
    1.01,
    1.5,
    2.0,
    2.5,
    3.0,
    2.718281828459045,
    3.141592653589793,
    4.0,
    5.0,
    10.0,
    100.0,
    1e3,
    1e6,
)
_INT_SPECIALS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 50, 100, 1000, 10**4, 10**6)


def _log_uniform(rng: np.random.Generator, n: int, lo: float, hi: float) -> np.ndarray:
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def _bounds(dom: VarDomain) -> tuple[float | None, float | None]:
    return (None if dom.lo is None else float(dom.lo)), (None if dom.hi is None else float(dom.hi))


def random_values(dom: VarDomain, n: int, rng: np.random.Generator) -> np.ndarray:
    """n values inside `dom`: a mixture of narrow, wide and log-uniform draws."""
    lo, hi = _bounds(dom)
    pick = rng.integers(0, 4, n)
    if lo is not None and hi is not None:
        width = hi - lo
        near = width * _log_uniform(rng, n, TINY, 1.0)
        vals = np.where(pick == 0, lo + near, np.where(pick == 1, hi - near, rng.uniform(lo, hi, n)))
    elif lo is not None or hi is not None:
        anchor, direction = (lo, 1.0) if lo is not None else (float(hi or 0.0), -1.0)
        offset = np.where(
            pick == 0,
            rng.uniform(0, 2, n),
            np.where(pick == 1, rng.uniform(0, 20, n), _log_uniform(rng, n, TINY, WIDE)),
        )
        vals = anchor + direction * offset
    else:
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        vals = np.where(
            pick == 0,
            rng.uniform(-2, 2, n),
            np.where(pick == 1, rng.uniform(-20, 20, n), sign * _log_uniform(rng, n, TINY, WIDE)),
        )
    if dom.kind == "int":
        small = np.abs(rng.integers(-25, 26, n)).astype(float)
        if lo is not None:
            small = lo + small
        elif hi is not None:
            small = hi - small
        else:
            small = small * np.where(rng.random(n) < 0.5, -1.0, 1.0)
        vals = np.where(pick == 0, small, np.round(vals))
    return clip_to(dom, vals)


def clip_to(dom: VarDomain, vals: np.ndarray) -> np.ndarray:
    lo, hi = _bounds(dom)
    if lo is not None:
        vals = np.maximum(vals, lo)
    if hi is not None:
        vals = np.minimum(vals, hi)
    return vals


def in_domain(dom: VarDomain, vals: np.ndarray) -> np.ndarray:
    ok = np.isfinite(vals)
    lo, hi = _bounds(dom)
    if dom.kind == "int":
        ok &= vals == np.round(vals)
    if lo is not None:
        ok &= (vals > lo) if dom.lo_open else (vals >= lo)
    if hi is not None:
        ok &= (vals < hi) if dom.hi_open else (vals <= hi)
    return ok


def special_values(dom: VarDomain) -> np.ndarray:
    lo, hi = _bounds(dom)
    if dom.kind == "int":
        base = [float(s * v) for v in _INT_SPECIALS for s in (1, -1)]
        if lo is not None:
            base += [lo + k for k in (0, 1, 2, 3, 5, 10)]
        if hi is not None:
            base += [hi - k for k in (0, 1, 2, 3, 5, 10)]
    else:
        base = [s * v for v in _REAL_SPECIALS for s in (1.0, -1.0)]
        for edge, direction in ((lo, 1.0), (hi, -1.0)):
            if edge is not None:
                base += [edge + direction * d for d in (0.0, TINY, 1e-6, 1e-3, 0.1, 0.5, 1.0, 2.0, 10.0)]
        if lo is not None and hi is not None:
            base += [lo + (hi - lo) * f for f in (0.25, 0.5, 0.75)]
    vals = np.unique(np.asarray(base, float))
    return vals[in_domain(dom, vals)]


def special_grid(domains: list[VarDomain], rng: np.random.Generator, limit: int = MAX_GRID) -> np.ndarray:
    """Rows of special values: the full grid when it is small, else a random subset of it."""
    specials = [special_values(d) for d in domains]
    if any(len(s) == 0 for s in specials):
        return np.empty((0, len(domains)))
    sizes = [len(s) for s in specials]
    total = int(np.prod(sizes, dtype=float)) if sizes else 1
    if total <= limit:
        rows = list(itertools.product(*specials))
        return np.asarray(rows, float).reshape(len(rows), len(domains))
    cols = [s[rng.integers(0, len(s), limit)] for s in specials]
    return np.stack(cols, axis=1)
