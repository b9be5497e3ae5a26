"""The falsifier's search (falsifier.py decides what its points mean): the claim compiled for
numpy, rows of sample points evaluated in bulk (normalised slack of the conclusion, feasibility
under the domains, assumptions and definedness conditions), and a local search from a point.

Equality assumptions are solved for one real variable (degree <= 2) so samples satisfy them
instead of hoping to hit them; the local search works in unbounded coordinates (a logistic or
log transform of a bounded variable) so Nelder–Mead never leaves a domain.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import sympy as sp
from scipy.optimize import minimize

from eurekaclaw.verify.claims import ParsedClaim, Relation, VarDomain
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.numeric import compile_numpy
from eurekaclaw.verify.sampling import in_domain, random_values, special_grid

# Tolerance of a float comparison: the experiment stage compares sides with the same one.
ATOL = 1e-9
RTOL = 1e-9
LOCAL_MAXFEV = 300
PENALTY = 1e3  # objective of an infeasible point in the local search


class SearchTimeout(Exception):
    """The time budget ran out during the local search."""


class Search:
    def __init__(self, parsed: ParsedClaim, deadline: float) -> None:
        self.parsed = parsed
        self.deadline = deadline
        self.names = parsed.names
        self.domains: list[VarDomain] = [parsed.domains[n] for n in self.names]
        syms = list(parsed.symbols.values())
        self.guards: list[Relation] = parsed.assumptions + parsed.conditions
        exprs = [e for rel in parsed.conclusion for e in (rel.lhs, rel.rhs)]
        exprs += [rel.difference() for rel in self.guards]
        self.fn = compile_numpy(syms, exprs)
        self.solved = self._solve_equalities()
        self.fevals = 0  # single-point evaluations made by the local search

    # -- equality assumptions: solve for a variable instead of hoping to hit them ------------
    def _solve_equalities(self) -> list[tuple[int, list[Any]]]:
        solved: list[tuple[int, list[Any]]] = []
        blocked: set[sp.Symbol] = set()
        syms = list(self.parsed.symbols.values())
        for rel in self.parsed.assumptions:
            if rel.op != "==":
                continue
            diff = evaluated(rel.difference())  # solving wants sympy's normal form; roots are re-checked
            for i, sym in enumerate(syms):
                if sym in blocked or self.domains[i].kind != "real" or sym not in diff.free_symbols:
                    continue
                try:
                    if not diff.is_polynomial(sym) or sp.Poly(diff, sym).degree() > 2:
                        continue
                    roots = [r for r in sp.solve(diff, sym) if r.is_real is not False][:2]
                except (sp.PolynomialError, NotImplementedError, ValueError):
                    continue
                if not roots:
                    continue
                fns = [compile_numpy(syms, [r]) for r in roots]
                solved.append((i, fns))
                blocked |= {sym} | set().union(*(r.free_symbols for r in roots))
                break
        return solved

    def complete(self, rows: np.ndarray, branches: np.ndarray) -> np.ndarray:
        """Fill in the variables solved from equality assumptions (branch per row and equation)."""
        for j, (i, fns) in enumerate(self.solved):
            cols = [rows[:, c] for c in range(rows.shape[1])]
            options = np.stack([fn(*cols)[0] for fn in fns])
            rows[:, i] = options[np.minimum(branches[:, j], len(fns) - 1), np.arange(rows.shape[0])]
        return rows

    # -- evaluation ---------------------------------------------------------------------------
    def evaluate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(normalised slack, raw slack, tolerance, feasible, uncertain) per row. `uncertain`:
        in the domain, no guard fails, but floats gave nan/inf for a guard or the conclusion
        (overflow, 0*inf, ...): only the exact re-check can say what happens there."""
        with np.errstate(all="ignore"):
            return self._evaluate(rows)

    def _evaluate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        m = rows.shape[0]
        outs = self.fn(*[rows[:, c] for c in range(rows.shape[1])])
        outs = [np.broadcast_to(np.asarray(o, float), (m,)) for o in outs]
        feasible = np.ones(m, bool)
        for c, dom in enumerate(self.domains):
            feasible &= in_domain(dom, rows[:, c])
        unknown = np.zeros(m, bool)
        k = 2 * len(self.parsed.conclusion)
        for rel, d in zip(self.guards, outs[k:], strict=True):
            finite = np.isfinite(d)
            unknown |= ~finite
            if rel.op == "==":
                holds = np.abs(d) <= 1e-9 * (1 + np.abs(d))
            elif rel.op == "!=":
                holds = d != 0
            else:
                holds = (d > 0) if rel.strict else (d >= 0)
            feasible &= holds | ~finite
        norm = np.full(m, np.inf)
        raw = np.full(m, np.inf)
        tol = np.zeros(m)
        for n, rel in enumerate(self.parsed.conclusion):
            lhs, rhs = outs[2 * n], outs[2 * n + 1]
            scale = 1 + np.abs(lhs) + np.abs(rhs)
            d = (rhs - lhs) if rel.op in ("<=", "<") else (lhs - rhs)
            if rel.op == "==":
                d = -np.abs(d)
            elif rel.op == "!=":
                d = np.abs(d)
            better = d / scale < norm
            norm = np.where(better, d / scale, norm)
            raw = np.where(better, d, raw)
            tol = np.where(better, ATOL + RTOL * scale, tol)
        unknown |= ~np.isfinite(norm)
        return norm, raw, tol, feasible & ~unknown, feasible & unknown

    def point(self, row: np.ndarray) -> dict[str, float | int]:
        return {
            n: (int(v) if d.kind == "int" else float(v)) for n, d, v in zip(self.names, self.domains, row, strict=True)
        }

    # -- local search ------------------------------------------------------------------------
    def _objective(self, row: np.ndarray, branch: np.ndarray) -> float:
        if time.monotonic() > self.deadline:
            raise SearchTimeout
        self.fevals += 1
        full = self.complete(row[None, :].copy(), branch[None, :])
        norm, _, _, ok, _ = self.evaluate(full)
        return float(norm[0]) if ok[0] else PENALTY

    def local_search(self, row: np.ndarray, branch: np.ndarray) -> list[np.ndarray]:
        solved = {i for i, _ in self.solved}
        reals = [i for i, d in enumerate(self.domains) if d.kind == "real" and i not in solved]
        ints = [i for i, d in enumerate(self.domains) if d.kind == "int"]
        found = [row.copy()]
        current = row.copy()
        if reals:
            u0 = np.array([_to_u(self.domains[i], current[i]) for i in reals])
            steps = np.array(
                [0.5 if _is_transformed(self.domains[i]) else max(0.05, 0.1 * abs(u0[k])) for k, i in enumerate(reals)]
            )
            simplex = np.vstack([u0] + [u0 + np.eye(len(reals))[k] * steps[k] for k in range(len(reals))])

            def f(u: np.ndarray) -> float:
                trial = current.copy()
                for k, i in enumerate(reals):
                    trial[i] = _from_u(self.domains[i], u[k])
                return self._objective(trial, branch)

            res = minimize(
                f,
                u0,
                method="Nelder-Mead",
                options={"maxfev": LOCAL_MAXFEV, "initial_simplex": simplex, "xatol": 1e-12, "fatol": 1e-15},
            )
            for k, i in enumerate(reals):
                current[i] = _from_u(self.domains[i], res.x[k])
            found.append(current.copy())
        best = self._objective(current, branch)
        for _ in range(8 if ints else 0):
            trials = []
            for i in ints:
                v = current[i]
                for cand in (v - 1, v + 1, v - 2, v + 2, v - 5, v + 5, 2 * v, v // 2, 10 * v, v // 10):
                    t = current.copy()
                    t[i] = cand
                    trials.append(t)
            scores = [self._objective(t, branch) for t in trials]
            k = int(np.argmin(scores))
            if scores[k] >= best:
                break
            best, current = scores[k], trials[k]
            found.append(current.copy())
        return found


def _is_transformed(dom: VarDomain) -> bool:
    return dom.lo is not None or dom.hi is not None


def _to_u(dom: VarDomain, x: float) -> float:
    lo, hi = (None if dom.lo is None else float(dom.lo)), (None if dom.hi is None else float(dom.hi))
    if lo is not None and hi is not None:
        p = min(max((x - lo) / (hi - lo), 1e-12), 1 - 1e-12)
        return math.log(p / (1 - p))
    if lo is not None:
        return math.log(max(x - lo, 1e-300))
    if hi is not None:
        return math.log(max(hi - x, 1e-300))
    return x


def _from_u(dom: VarDomain, u: float) -> float:
    lo, hi = (None if dom.lo is None else float(dom.lo)), (None if dom.hi is None else float(dom.hi))
    u = min(max(u, -700.0), 700.0)
    if lo is not None and hi is not None:
        return lo + (hi - lo) / (1 + math.exp(-u))
    if lo is not None:
        return lo + math.exp(u)
    if hi is not None:
        return hi - math.exp(u)
    return u


def sample_rows(search: Search, samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    nvars = len(search.domains)
    if nvars == 0:
        return np.zeros((1, 0)), np.zeros((1, 0), int)
    grid = special_grid(search.domains, rng)
    rand = np.stack([random_values(d, samples, rng) for d in search.domains], axis=1)
    mixed = rand[: samples // 2].copy()
    if len(grid):
        pick = rng.random(mixed.shape) < 0.5
        mixed = np.where(pick, grid[rng.integers(0, len(grid), len(mixed))], mixed)
    rows = np.vstack([grid, rand, mixed])
    if not search.solved:
        return rows, np.zeros((len(rows), 0), int)
    combos = (
        np.array(np.meshgrid(*[np.arange(len(f)) for _, f in search.solved], indexing="ij"))
        .reshape(len(search.solved), -1)
        .T
    )
    all_rows = np.vstack([rows] * len(combos))
    branches = np.repeat(combos, len(rows), axis=0)
    return search.complete(all_rows, branches), branches
