"""ts_beta's lazy sampler with its steps compiled by numba (the optional `fast` extra).

The scheme is thompson.py's, unchanged; only the per-step part (fill the values of a step, draw
the direct pairs, argmax per run, pull, mark pulled pairs direct) runs as one compiled loop over
a whole range of steps instead of ~20 numpy calls per step. What needs scipy stays in Python:
a new block (betainc, geometric gaps, betainccinv) and a run with no value above its threshold.

The kernel draws from the policy's own numpy Generator (numba's Generator methods are ports of
numpy's, on the same bit generator) in exactly the order the numpy path draws, so a seed gives
the same runs with or without numba (tests/unit/mab/test_mab_thompson_kernel.py checks it bit
for bit). Without numba, `compiled_available()` is False and ts_beta uses the numpy path.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from typing import Any

import numpy as np

from domains.mab.thompson import LazyBetaThompson

DONE, NEW_BLOCK, BELOW_THRESHOLD = 0, 1, 2  # why the kernel returned


def compiled_available() -> bool:
    """numba is optional (`pip install eurekaclaw[fast]`); it is imported only when ts_beta
    first needs the kernel (importing it takes about half a second)."""
    return importlib.util.find_spec("numba") is not None


def _steps(  # noqa: C901 -- one compiled loop per step range is the point (numba); a split adds calls per step
    rng: Any,
    nsteps: int,
    pending: bool,
    k: int,
    rows: int,
    shapes: np.ndarray,
    table_a: np.ndarray,
    table_b: np.ndarray,
    ptr: np.ndarray,
    row: np.ndarray,
    base: np.ndarray,
    direct: np.ndarray,
    dbuf: np.ndarray,
    nd: np.ndarray,
    ev_pair: np.ndarray,
    ev_val: np.ndarray,
    ev_bounds: np.ndarray,
    s: np.ndarray,
    arms: int,
    flat: np.ndarray,
    gam: np.ndarray,
) -> tuple[int, int, int]:
    """Up to `nsteps` steps from step k of the block; returns (steps done, k, status). On
    BELOW_THRESHOLD the step's values and `flat` are set but nothing is pulled: the caller
    resolves the runs below their thresholds, then calls again with pending=True, which pulls
    `flat` first (that step counts as done). Plain Python here; kernel() compiles it."""
    P = base.size
    R = s.size
    done = 0
    while True:
        if pending:
            # Policy.pull, then LazyBetaThompson.pulled: a lazy pair pulled is drawn directly
            # for the rest of the block (its events were drawn for its old posterior)
            for r in range(R):
                f = flat[r]
                p = ptr[f] + 1
                ptr[f] = p
                shapes[f] = table_a[p]
                shapes[P + f] = table_b[p]
            for r in range(R):
                f = flat[r]
                if not direct[f]:
                    direct[f] = True
                    base[f] = 0.0
                    dbuf[nd[0]] = f
                    nd[0] += 1
            done += 1
            pending = False
        if done >= nsteps:
            return done, k, DONE
        if k == rows:
            return done, k, NEW_BLOCK
        for i in range(P):
            row[i] = base[i]
        for e in range(ev_bounds[k], ev_bounds[k + 1]):
            row[ev_pair[e]] = ev_val[e]
        k += 1
        # numpy draws the alpha gammas of all direct pairs, then their beta gammas: same order
        n = nd[0]
        for j in range(n):
            gam[j] = rng.standard_gamma(shapes[dbuf[j]])
        for j in range(n):
            gam[n + j] = rng.standard_gamma(shapes[dbuf[j] + P])
        for j in range(n):
            row[dbuf[j]] = gam[j] / (gam[j] + gam[n + j])
        low = False
        for r in range(R):
            best = r * arms
            for i in range(r * arms + 1, (r + 1) * arms):
                if row[i] > row[best]:  # strict: ties to the lowest arm, like numpy's argmax
                    best = i
            flat[r] = best
            if row[best] <= s[r]:
                low = True
        if low:
            return done, k, BELOW_THRESHOLD
        pending = True


@cache
def kernel() -> Any:
    """_steps compiled: once per machine, later loaded from numba's cache."""
    import numba

    try:
        return numba.njit(cache=True)(_steps)
    except RuntimeError:  # no writable cache location: compile in every process instead
        return numba.njit(_steps)


class CompiledLazyThompson(LazyBetaThompson):
    """LazyBetaThompson whose steps, pulls included, run in the compiled kernel: `run(n)` does n
    steps of ts_beta (shapes: [alpha..., beta...] of every pair; ptr, table_a, table_b: the
    PairWindow's pointers and feature tables the posteriors are read from on a pull)."""

    def __init__(
        self,
        rng: np.random.Generator,
        shapes: np.ndarray,
        arms: int,
        ptr: np.ndarray,
        table_a: np.ndarray,
        table_b: np.ndarray,
        **knobs: Any,
    ) -> None:
        P = shapes.size // 2
        super().__init__(rng, shapes[:P], shapes[P:], arms, **knobs)
        self.shapes, self.ptr, self.table_a, self.table_b = shapes, ptr, table_a, table_b
        self.dbuf = np.empty(P, dtype=np.intp)
        self.nd = np.zeros(1, dtype=np.intp)
        self.flat = np.empty(self.R, dtype=np.intp)
        self.gam = np.empty(2 * P)
        self.base = np.zeros(P)
        self.s = np.zeros(self.R)
        self.ev_pair, self.ev_val = np.empty(0, dtype=np.intp), np.empty(0)
        self.ev_bounds_arr = np.zeros(self.rows + 1, dtype=np.intp)

    def _new_block(self) -> None:
        super()._new_block()
        n = self.direct_idx.size
        self.dbuf[:n] = self.direct_idx
        self.nd[0] = n
        self.ev_pair = self.ev_pair.astype(np.intp, copy=False)
        self.ev_bounds_arr = np.asarray(self.ev_bounds, dtype=np.intp)

    def run(self, nsteps: int) -> None:
        steps = kernel()
        pending = False
        while nsteps > 0:
            done, self.k, status = steps(
                self.rng,
                nsteps,
                pending,
                self.k,
                self.rows,
                self.shapes,
                self.table_a,
                self.table_b,
                self.ptr,
                self.row,
                self.base,
                self.direct,
                self.dbuf,
                self.nd,
                self.ev_pair,
                self.ev_val,
                self.ev_bounds_arr,
                self.s,
                self.K,
                self.flat,
                self.gam,
            )
            nsteps -= done
            pending = status == BELOW_THRESHOLD
            if status == NEW_BLOCK:
                self._new_block()
            elif pending:
                self._below(np.flatnonzero(self.row[self.flat] <= self.s), self.flat)
