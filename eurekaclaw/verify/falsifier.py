"""Numeric falsifier: look hard for a point where a claim fails, and report it only when the
exact re-check (exact.py) confirms it.

Search (falsifier_search.py) = random samples within the domains + special values and their
grid + a local search (Nelder–Mead on the real variables, hill-climbing on the integers) started
from the worst points, minimising the conclusion's normalised slack. This module decides what the
points found mean: which are re-checked exactly, and the report. Points floating point cannot evaluate
(nan/inf from overflow or 0*inf) and points just beyond constants too large for floats are
decided exactly instead of being dropped. Deterministic for a given seed unless the time budget
cuts the search short. Passing is evidence, never a proof.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import sympy as sp

from eurekaclaw.types.artifacts import CheckResult, CheckVerdict, Claim
from eurekaclaw.verify.claims import ParsedClaim, VarDomain
from eurekaclaw.verify.exact import ClaimEvaluation, evaluate_parsed, parsed_for
from eurekaclaw.verify.falsifier_search import Search, SearchTimeout, sample_rows

MAX_CONFIRM = 8
MAX_NEAR = 4
LOCAL_STARTS = 6
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
        verdicts: dict[str, CheckVerdict] = {
            "counterexample": "failed",
            "no_counterexample": "passed",
            "inconclusive": "unknown",
        }
        verdict = verdicts[self.verdict]
        return CheckResult(
            checker="falsifier",
            verdict=verdict,
            detail=self.detail,
            version=_versions(),
            counterexample=self.counterexample,
            seconds=round(self.seconds, 3),
        )


def _versions() -> str:
    import scipy

    return f"numpy {np.__version__}, scipy {scipy.__version__}, sympy {sp.__version__}"


def falsify(claim: Claim, *, seed: int = 0, budget_s: float = 2.0, samples: int = 4000) -> FalsifierReport:
    """Search for a confirmed counterexample to `claim`. Raises ClaimError if it does not parse."""
    started = time.monotonic()
    parsed = parsed_for(claim)
    search = Search(parsed, started + max(budget_s, 0.05))
    rng = np.random.default_rng(seed)
    rows, branches = sample_rows(search, max(samples, 1), rng)
    norm, raw, tol, ok, uncertain = search.evaluate(rows)
    checked = len(rows)
    seen: dict[tuple[Any, ...], ClaimEvaluation] = {}
    # Points floats could not evaluate, and points beyond the float range built from the
    # claim's own huge constants, are decided exactly instead of being dropped.
    recheck_until = started + max(budget_s, 0.05) / 2
    exact = _exact_checks(
        parsed, [*_uncertain_points(search, rows, uncertain), *_huge_probes(parsed)], seen, recheck_until
    )
    for pt, ev in exact:
        if ev.holds is False:
            return _exact_counterexample(pt, ev, checked + len(exact), int(ok.sum()), started, seed)
    first = _conclude(search, parsed, rows, norm, raw, tol, ok, checked, started, seed, seen, exact)
    if first.confirmed:
        return first  # the samples already hold a confirmed counterexample
    if ok.any():
        rows, norm, raw, tol, ok = _local_search(search, rows, branches, norm, raw, tol, ok)
        checked += search.fevals
    return _conclude(search, parsed, rows, norm, raw, tol, ok, checked, started, seed, seen, exact)


def _local_search(
    search: Search,
    rows: np.ndarray,
    branches: np.ndarray,
    norm: np.ndarray,
    raw: np.ndarray,
    tol: np.ndarray,
    ok: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The samples plus what a local search from the worst distinct feasible points found, with
    their (norm, raw, tol, ok); stops quietly at the time budget."""
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
    except SearchTimeout:
        pass
    if not extra:
        return rows, norm, raw, tol, ok
    more = search.complete(np.array(extra), np.array(extra_branches))
    m_norm, m_raw, m_tol, m_ok, _ = search.evaluate(more)
    return (
        np.vstack([rows, more]),
        np.concatenate([norm, m_norm]),
        np.concatenate([raw, m_raw]),
        np.concatenate([tol, m_tol]),
        np.concatenate([ok, m_ok]),
    )


def _uncertain_points(search: Search, rows: np.ndarray, uncertain: np.ndarray) -> list[dict[str, Any]]:
    """A deterministic handful of the rows floats could not evaluate: the simplest, the
    largest (overflow lives there) and an even spread of the rest."""
    idx = np.flatnonzero(uncertain)
    if not len(idx):
        return []
    simple = idx[np.argsort([_simplicity(rows[i]) for i in idx], kind="stable")]
    large = idx[np.argsort(-np.max(np.abs(rows[idx]), axis=1), kind="stable")] if rows.shape[1] else idx
    spread = idx[np.linspace(0, len(idx) - 1, MAX_RECHECK // 3).astype(int)]
    out: list[dict[str, Any]] = []
    for i in [*simple[: MAX_RECHECK // 3], *large[: MAX_RECHECK // 3], *spread]:
        pt = search.point(rows[int(i)])
        if pt not in out:
            out.append(pt)
    return out


def _huge_probes(parsed: ParsedClaim) -> list[dict[str, Any]]:
    """Points just beyond the claim's constants that exceed the float range (x <= 10^600 fails
    at 10^600 + 1), one variable at a time, others at a simple value of their domain."""
    huge = sorted(
        {
            abs(int(a))
            for e in parsed.all_expressions()
            for a in e.atoms(sp.Rational)
            if abs(a) > HUGE and abs(int(a)).bit_length() < MAX_PROBE_BITS
        },
        key=lambda v: -v,
    )[:3]
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


def _exact_checks(
    parsed: ParsedClaim, points: list[dict[str, Any]], seen: dict[tuple[Any, ...], ClaimEvaluation], until: float
) -> list[tuple[dict[str, Any], ClaimEvaluation]]:
    out: list[tuple[dict[str, Any], ClaimEvaluation]] = []
    for pt in points:
        if out and time.monotonic() > until:
            break  # an expensive claim (long sums at 60 digits): the rest is left unchecked
        key = tuple(pt.items())
        if key not in seen:
            seen[key] = evaluate_parsed(
                parsed, {k: (str(v) if isinstance(v, sp.Rational) else v) for k, v in pt.items()}
            )
        out.append((pt, seen[key]))
        if seen[key].holds is False:
            break
    return out


def _exact_counterexample(
    pt: dict[str, Any], ev: ClaimEvaluation, checked: int, feasible: int, started: float, seed: int
) -> FalsifierReport:
    point = {k: (str(v) if isinstance(v, sp.Rational) and not v.is_integer else v) for k, v in pt.items()}
    return FalsifierReport(
        "counterexample",
        checked=checked,
        feasible=feasible,
        counterexample=point,
        evaluation=ev,
        seed=seed,
        seconds=time.monotonic() - started,
        detail=f"counterexample {_fmt(point)}: {ev.detail} (floating point could not evaluate it; "
        f"decided exactly; seed {seed})",
    )


def _conclude(
    search: Search,
    parsed: ParsedClaim,
    rows: np.ndarray,
    norm: np.ndarray,
    raw: np.ndarray,
    tol: np.ndarray,
    ok: np.ndarray,
    checked: int,
    started: float,
    seed: int,
    seen: dict[tuple[Any, ...], ClaimEvaluation],
    exact: list[tuple[dict[str, Any], ClaimEvaluation]],
) -> FalsifierReport:
    held = [(pt, ev) for pt, ev in exact if ev.holds is True]
    report = FalsifierReport(
        "no_counterexample", checked=checked + len(exact), feasible=int(ok.sum()) + len(held), seed=seed
    )
    if not ok.any() and held:
        pt, ev = min(held, key=lambda item: item[1].slack)
        report.worst_point, report.worst_slack = pt, ev.slack
        report.seconds = time.monotonic() - started
        report.detail = (
            f"no counterexample: floating point could not evaluate the claim, the {len(held)} point(s) "
            f"decided exactly all satisfy it (worst {_fmt(pt)}, slack {ev.slack:.3g}). "
            "Numeric evidence only, not a proof."
        )
        return report
    if not ok.any():
        report.verdict = "inconclusive"
        report.detail = (
            f"none of {checked} sampled points satisfied the domains, assumptions and definedness "
            "conditions (the assumptions may be contradictory or too narrow to sample)"
        )
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
        report.detail = (
            f"counterexample {_fmt(report.counterexample)}: {report.evaluation.detail if report.evaluation else ''} "
            f"(found among {checked} points, seed {seed})"
        )
    elif undecided:
        report.verdict = "inconclusive"
        report.detail = (
            f"{undecided} point(s) violate the claim in floating point but the high-precision re-check "
            f"could not decide them; worst {_fmt(report.worst_point)} slack {report.worst_slack:.3g}"
        )
    else:
        artefacts = (
            f"; {report.unconfirmed} float-level violation(s) were rounding artefacts" if report.unconfirmed else ""
        )
        rounding = " (within floating-point rounding)" if -tol[worst] <= report.worst_slack < 0 else ""
        report.detail = (
            f"no counterexample among {checked} points ({report.feasible} feasible, seed {seed}); "
            f"worst slack {report.worst_slack:.3g}{rounding} at {_fmt(report.worst_point)}{artefacts}. "
            "Numeric evidence only, not a proof."
        )
    return report


def _simplicity(row: np.ndarray) -> int:
    """Characters needed to write the point: special values such as 0 or 1/2 come first."""
    return sum(len(repr(float(v))) for v in row)


def _candidates(
    search: Search,
    parsed: ParsedClaim,
    rows: np.ndarray,
    norm: np.ndarray,
    raw: np.ndarray,
    tol: np.ndarray,
    ok: np.ndarray,
    order: np.ndarray,
) -> list[dict[str, float | int]]:
    """Points worth an exact re-check: the worst violations, the simplest violations, and for
    strict relations the points where the float difference is (nearly) zero. Mixing the
    criteria keeps a cluster of rounding artefacts from using up the re-check budget."""
    violating = order[(ok & (raw < -tol))[order]]
    picks = list(violating[: MAX_CONFIRM - 2])
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
