"""Numeric falsifier: look hard for a point where a claim fails, and report it only when the
exact re-check (exact.py) confirms it.

Search = random samples within the domains + special values and their grid + a local search
(Nelder–Mead on the real variables, hill-climbing on the integers) started from the worst
points, minimising the conclusion's normalised slack. Points floating point cannot evaluate
(nan/inf from overflow or 0*inf) and points just beyond constants too large for floats are
decided exactly instead of being dropped. Deterministic for a given seed unless the time budget
cuts the search short. Passing is evidence, never a proof.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import sympy as sp
from scipy.optimize import minimize

from eurekaclaw.types.artifacts import CheckResult, CheckVerdict, Claim
from eurekaclaw.verify.claims import ParsedClaim, Relation, VarDomain
from eurekaclaw.verify.exact import ClaimEvaluation, evaluate_parsed, parsed_for
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.numeric import compile_numpy
from eurekaclaw.verify.sampling import in_domain, random_values, special_grid

ATOL = 1e-9
RTOL = 1e-9
MAX_CONFIRM = 8
MAX_NEAR = 4
LOCAL_STARTS = 6
LOCAL_MAXFEV = 300
PENALTY = 1e3
MAX_RECHECK = 12  # points floats could not evaluate that are decided exactly
HUGE = sp.Integer(2) ** 1000  # constants beyond this are probed with exact points
MAX_PROBE_BITS = 10_000  # ... up to about 3,000 digits (Python prints at most 4,300)


@dataclass
class FalsifierReport:
    verdict: Literal["counterexample", "no_counterexample", "inconclusive"]
    checked: int = 0
    feasible: int = 0
    worst_point: dict[str, float | int] | None = None
    worst_slack: float | None = None
    # exact rationals that are not integers are kept as their "p/q" text
    counterexample: dict[str, float | int | str] | None = None
    evaluation: ClaimEvaluation | None = None
    unconfirmed: int = 0
    seconds: float = 0.0
    seed: int = 0
    detail: str = ""

    @property
    def confirmed(self) -> bool:
        return self.counterexample is not None

    def to_check_result(self) -> CheckResult:
        verdicts: dict[str, CheckVerdict] = {"counterexample": "failed", "no_counterexample": "passed",
                                             "inconclusive": "unknown"}
        verdict = verdicts[self.verdict]
        return CheckResult(checker="falsifier", verdict=verdict, detail=self.detail, version=_versions(),
                           counterexample=self.counterexample, seconds=round(self.seconds, 3))


def _versions() -> str:
    import scipy

    return f"numpy {np.__version__}, scipy {scipy.__version__}, sympy {sp.__version__}"


class _Timeout(Exception):
    pass


class _Search:
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
        return {n: (int(v) if d.kind == "int" else float(v)) for n, d, v in zip(self.names, self.domains, row, strict=True)}

    # -- local search ------------------------------------------------------------------------
    def _objective(self, row: np.ndarray, branch: np.ndarray) -> float:
        if time.monotonic() > self.deadline:
            raise _Timeout
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
            steps = np.array([0.5 if _is_transformed(self.domains[i]) else max(0.05, 0.1 * abs(u0[k])) for k, i in enumerate(reals)])
            simplex = np.vstack([u0] + [u0 + np.eye(len(reals))[k] * steps[k] for k in range(len(reals))])

            def f(u: np.ndarray) -> float:
                trial = current.copy()
                for k, i in enumerate(reals):
                    trial[i] = _from_u(self.domains[i], u[k])
                return self._objective(trial, branch)

            res = minimize(f, u0, method="Nelder-Mead", options={"maxfev": LOCAL_MAXFEV, "initial_simplex": simplex, "xatol": 1e-12, "fatol": 1e-15})
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


def _sample(search: _Search, samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
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
    combos = np.array(np.meshgrid(*[np.arange(len(f)) for _, f in search.solved], indexing="ij")).reshape(len(search.solved), -1).T
    all_rows = np.vstack([rows] * len(combos))
    branches = np.repeat(combos, len(rows), axis=0)
    return search.complete(all_rows, branches), branches


def falsify(claim: Claim, *, seed: int = 0, budget_s: float = 2.0, samples: int = 4000) -> FalsifierReport:
    """Search for a confirmed counterexample to `claim`. Raises ClaimError if it does not parse."""
    started = time.monotonic()
    parsed = parsed_for(claim)
    search = _Search(parsed, started + max(budget_s, 0.05))
    rng = np.random.default_rng(seed)
    rows, branches = _sample(search, max(samples, 1), rng)
    norm, raw, tol, ok, uncertain = search.evaluate(rows)
    checked = len(rows)
    seen: dict[tuple[Any, ...], ClaimEvaluation] = {}
    # Points floats could not evaluate, and points beyond the float range built from the
    # claim's own huge constants, are decided exactly instead of being dropped.
    recheck_until = started + max(budget_s, 0.05) / 2
    exact = _exact_checks(parsed, [*_uncertain_points(search, rows, uncertain), *_huge_probes(parsed)], seen, recheck_until)
    for pt, ev in exact:
        if ev.holds is False:
            return _exact_counterexample(pt, ev, checked + len(exact), int(ok.sum()), started, seed)
    first = _conclude(search, parsed, rows, norm, raw, tol, ok, checked, started, seed, seen, exact)
    if first.confirmed:
        return first  # the samples already hold a confirmed counterexample
    if ok.any():
        # local search from the worst distinct feasible points
        order = np.argsort(np.where(ok, norm, np.inf))
        starts: list[int] = []
        for idx in order[: 50 * LOCAL_STARTS]:
            if not ok[idx] or any(np.allclose(rows[idx], rows[s]) for s in starts):
                continue
            starts.append(int(idx))
            if len(starts) == LOCAL_STARTS:
                break
        extra: list[np.ndarray] = []
        extra_branches: list[np.ndarray] = []
        try:
            for s in starts:
                for found in search.local_search(rows[s], branches[s]):
                    extra.append(found)
                    extra_branches.append(branches[s])
        except _Timeout:
            pass
        if extra:
            more = search.complete(np.array(extra), np.array(extra_branches))
            m_norm, m_raw, m_tol, m_ok, _ = search.evaluate(more)
            rows, norm, raw, tol, ok = (np.vstack([rows, more]), np.concatenate([norm, m_norm]), np.concatenate([raw, m_raw]),
                                         np.concatenate([tol, m_tol]), np.concatenate([ok, m_ok]))
        checked += search.fevals
    return _conclude(search, parsed, rows, norm, raw, tol, ok, checked, started, seed, seen, exact)


def _uncertain_points(search: _Search, rows: np.ndarray, uncertain: np.ndarray) -> list[dict[str, Any]]:
    """A deterministic handful of the rows floats could not evaluate: the simplest, the
    largest (overflow lives there) and an even spread of the rest."""
    idx = np.flatnonzero(uncertain)
    if not len(idx):
        return []
    simple = idx[np.argsort([_simplicity(rows[i]) for i in idx], kind="stable")]
    large = idx[np.argsort(-np.max(np.abs(rows[idx]), axis=1), kind="stable")] if rows.shape[1] else idx
    spread = idx[np.linspace(0, len(idx) - 1, MAX_RECHECK // 3).astype(int)]
    out: list[dict[str, Any]] = []
    for i in [*simple[:MAX_RECHECK // 3], *large[:MAX_RECHECK // 3], *spread]:
        pt = search.point(rows[int(i)])
        if pt not in out:
            out.append(pt)
    return out


def _huge_probes(parsed: ParsedClaim) -> list[dict[str, Any]]:
    """Points just beyond the claim's constants that exceed the float range (x <= 10^600 fails
    at 10^600 + 1), one variable at a time, others at a simple value of their domain."""
    huge = sorted({abs(int(a)) for e in parsed.all_expressions() for a in e.atoms(sp.Rational)
                   if abs(a) > HUGE and abs(int(a)).bit_length() < MAX_PROBE_BITS}, key=lambda v: -v)[:3]
    if not huge:
        return []
    base = {n: _simple_value(d) for n, d in parsed.domains.items()}
    if any(v is None for v in base.values()):
        return []
    out: list[dict[str, Any]] = []
    for name, dom in parsed.domains.items():
        for c in huge:
            for value in (c + 1, -c - 1, 2 * c, -2 * c):
                if dom.contains(sp.Integer(value)):
                    out.append({**base, name: value})
    return out[:MAX_RECHECK]


def _simple_value(dom: VarDomain) -> int | sp.Rational | None:
    for v in (sp.Integer(0), sp.Integer(1), dom.lo, dom.hi, None if dom.lo is None else dom.lo + 1):
        if v is not None and dom.contains(v):
            return int(v) if v.is_integer else v
    return None


def _exact_checks(parsed: ParsedClaim, points: list[dict[str, Any]], seen: dict[tuple[Any, ...], ClaimEvaluation],
                  until: float) -> list[tuple[dict[str, Any], ClaimEvaluation]]:
    out: list[tuple[dict[str, Any], ClaimEvaluation]] = []
    for pt in points:
        if out and time.monotonic() > until:
            break  # an expensive claim (long sums at 60 digits): the rest is left unchecked
        key = tuple(pt.items())
        if key not in seen:
            seen[key] = evaluate_parsed(parsed, {k: (str(v) if isinstance(v, sp.Rational) else v) for k, v in pt.items()})
        out.append((pt, seen[key]))
        if seen[key].holds is False:
            break
    return out


def _exact_counterexample(pt: dict[str, Any], ev: ClaimEvaluation, checked: int, feasible: int, started: float,
                          seed: int) -> FalsifierReport:
    point = {k: (str(v) if isinstance(v, sp.Rational) and not v.is_integer else v) for k, v in pt.items()}
    return FalsifierReport("counterexample", checked=checked, feasible=feasible, counterexample=point, evaluation=ev,
                           seed=seed, seconds=time.monotonic() - started,
                           detail=f"counterexample {_fmt(point)}: {ev.detail} (floating point could not evaluate it; "
                                  f"decided exactly; seed {seed})")


def _conclude(search: _Search, parsed: ParsedClaim, rows: np.ndarray, norm: np.ndarray, raw: np.ndarray, tol: np.ndarray,
              ok: np.ndarray, checked: int, started: float, seed: int,
              seen: dict[tuple[Any, ...], ClaimEvaluation],
              exact: list[tuple[dict[str, Any], ClaimEvaluation]]) -> FalsifierReport:
    held = [(pt, ev) for pt, ev in exact if ev.holds is True]
    report = FalsifierReport("no_counterexample", checked=checked + len(exact), feasible=int(ok.sum()) + len(held), seed=seed)
    if not ok.any() and held:
        pt, ev = min(held, key=lambda item: item[1].slack)
        report.worst_point, report.worst_slack = pt, ev.slack
        report.seconds = time.monotonic() - started
        report.detail = (f"no counterexample: floating point could not evaluate the claim, the {len(held)} point(s) "
                         f"decided exactly all satisfy it (worst {_fmt(pt)}, slack {ev.slack:.3g}). "
                         "Numeric evidence only, not a proof.")
        return report
    if not ok.any():
        report.verdict = "inconclusive"
        report.detail = (f"none of {checked} sampled points satisfied the domains, assumptions and definedness "
                         "conditions (the assumptions may be contradictory or too narrow to sample)")
        report.seconds = time.monotonic() - started
        return report
    masked = np.where(ok, norm, np.inf)
    order = np.argsort(masked, kind="stable")
    worst = int(order[0])
    report.worst_point, report.worst_slack = search.point(rows[worst]), float(raw[worst])
    candidates = _candidates(search, parsed, rows, norm, raw, tol, ok, order)
    undecided = 0
    for pt in candidates:
        key = tuple(pt.items())
        if key not in seen:
            seen[key] = evaluate_parsed(parsed, pt)
        ev = seen[key]
        if ev.holds is False:
            report.verdict, report.counterexample, report.evaluation = "counterexample", dict(pt), ev
            break
        report.unconfirmed += 1
        undecided += ev.status == "undecided"
    report.seconds = time.monotonic() - started
    if report.counterexample is not None:
        report.detail = (f"counterexample {_fmt(report.counterexample)}: {report.evaluation.detail if report.evaluation else ''} "
                         f"(found among {checked} points, seed {seed})")
    elif undecided:
        report.verdict = "inconclusive"
        report.detail = (f"{undecided} point(s) violate the claim in floating point but the high-precision re-check "
                         f"could not decide them; worst {_fmt(report.worst_point)} slack {report.worst_slack:.3g}")
    else:
        artefacts = f"; {report.unconfirmed} float-level violation(s) were rounding artefacts" if report.unconfirmed else ""
        rounding = " (within floating-point rounding)" if -tol[worst] <= report.worst_slack < 0 else ""
        report.detail = (f"no counterexample among {checked} points ({report.feasible} feasible, seed {seed}); "
                         f"worst slack {report.worst_slack:.3g}{rounding} at {_fmt(report.worst_point)}{artefacts}. "
                         "Numeric evidence only, not a proof.")
    return report


def _simplicity(row: np.ndarray) -> int:
    """Characters needed to write the point: special values such as 0 or 1/2 come first."""
    return sum(len(repr(float(v))) for v in row)


def _candidates(search: _Search, parsed: ParsedClaim, rows: np.ndarray, norm: np.ndarray, raw: np.ndarray,
                tol: np.ndarray, ok: np.ndarray, order: np.ndarray) -> list[dict[str, float | int]]:
    """Points worth an exact re-check: the worst violations, the simplest violations, and for
    strict relations the points where the float difference is (nearly) zero. Mixing the
    criteria keeps a cluster of rounding artefacts from using up the re-check budget."""
    violating = order[(ok & (raw < -tol))[order]]
    picks = list(violating[:MAX_CONFIRM - 2])
    if len(violating) > len(picks):
        pool = violating[:2000]
        picks += list(pool[np.argsort([_simplicity(rows[i]) for i in pool], kind="stable")][:2])
    # Where the float difference is (nearly) zero, floats cannot tell: a strict relation may
    # fail exactly there, and a non-strict one may fail by less than the rounding error.
    near = np.flatnonzero(ok & (np.abs(norm) <= 1e-9) & ~(raw < -tol))[:2000]
    if len(near):
        picks += list(near[np.argsort(np.abs(raw[near]), kind="stable")][: MAX_NEAR // 2])
        picks += list(near[np.argsort([_simplicity(rows[i]) for i in near], kind="stable")][: MAX_NEAR // 2])
    out: list[dict[str, float | int]] = []
    for i in picks:
        pt = search.point(rows[int(i)])
        if pt not in out:
            out.append(pt)
    return out


def _fmt(point: dict[str, Any] | None) -> str:
    if not point:
        return "{}"
    return "{" + ", ".join(f"{k}={_fmt_value(v)}" for k, v in point.items()) + "}"


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int) and v.bit_length() > 14_000:
        return f"an exact integer of about {int(v.bit_length() * 0.30103)} digits"
    text = str(v)
    if isinstance(v, int) and len(text.lstrip("-")) > 24:  # 10^600 + 1: the shape, not 601 digits
        sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
        return f"{sign}{digits[0]}.{digits[1:7]}...e+{len(digits) - 1} (an exact integer)"
    return text
