"""Violated theorem bounds as evidence: readable lines for the result and the paper, and a
machine-readable summary of the worst one that the orchestrator turns into a Counterexample
(checker "experiment") for a re-plan.

Only bound checks that failed the 99% one-sided test (`held` False) and whose bound came from
the theorem (`from_theorem`: the designer's spec or the model's code experiment, not the
domain's default spec) count. Rate fits do not: a shape fitted over one decade is a hint, not
a test with a known error rate.

The stage keeps what the simulation reported about its series, instances and bounds in
`result.spec["checked"]` (see `checked_metadata`), so everything here works from the
ExperimentResult alone, e.g. after a resume.

Violations stick (`apply_required`): a violated theorem bound becomes a RequiredCheck of every
later experiment on the same statement (a re-formalization after the contradiction, a rerun),
re-checked from its stored measurement whatever the new spec says (the measurement is a fact
about the algorithm; only the bound could change). While the formalized theorem is unchanged
(the same root claim up to renaming, or the same formal statement) the bound is the one that
was violated, so the contradiction is final; when the theorem changed, the new spec's bound of
the same name is used where it has one, and otherwise the old one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from eurekaclaw.agents.experiment.checks import ROUNDING_TOL, Z_ONE_SIDED
from eurekaclaw.agents.experiment.report import SimulationReport
from eurekaclaw.types.artifacts import BoundCheck, ExperimentResult, RequiredCheck, TheoryState

CONFIDENCE = 0.99  # of the one-sided test behind `held` (Z_ONE_SIDED)
Z_CAP = 10.0  # beyond 10 standard errors a violation is certain; then the larger excess is worse


@dataclass
class BoundViolation:
    """One theorem bound violated on one series, at its worst horizon."""

    bound: str
    series: str
    check: BoundCheck
    direction: str
    violated: int  # horizons where the check failed
    checked: int  # horizons checked for this bound and series
    policy: str = ""
    instance: str = ""
    lemma_id: str | None = None
    expression: str = ""

    @property
    def limit(self) -> float:
        c = self.check
        return (
            c.empirical_mean - Z_ONE_SIDED * c.std_error
            if self.direction == "upper"
            else c.empirical_mean + Z_ONE_SIDED * c.std_error
        )

    @property
    def excess(self) -> float:
        """How far the mean lies on the wrong side of the bound (> 0 for a violation)."""
        c = self.check
        return c.empirical_mean - c.theoretical if self.direction == "upper" else c.theoretical - c.empirical_mean


def checked_metadata(report: SimulationReport) -> dict[str, Any]:
    """What a violation summary needs from the report, small enough to keep in result.spec."""
    return {
        "series": {s.name: {"policy": s.policy, "instance": s.instance, "runs": s.runs} for s in report.series},
        "variables": {k: dict(v) for k, v in report.variables.items()},
        "bounds": {
            b.name: {
                "expression": b.expression,
                "direction": b.direction,
                "asymptotic": b.asymptotic,
                "rate": b.rate,
                "lemma_id": b.lemma_id,
                "series": list(b.series),
            }
            for b in report.bounds
        },
    }


def _severity(check: BoundCheck, excess: float) -> tuple[float, float]:
    z = excess / check.std_error if check.std_error > 0 else math.inf
    return min(z, Z_CAP), excess / max(abs(check.theoretical), 1e-12)


def _split(name: str, checked: dict[str, Any]) -> tuple[str, str]:
    """(bound, series) of a check named "<bound>@<series>" (series names may contain "@")."""
    for bound in checked.get("bounds", {}):
        series = name[len(bound) + 1 :]
        if name.startswith(bound + "@") and series in checked.get("series", {}):
            return bound, series
    bound, _, series = name.partition("@")
    return bound, series


def _direction(check: BoundCheck, declared: str | None) -> str:
    if declared in ("upper", "lower"):
        return declared
    # Without the report's metadata, the margin tells: check_bound computes it from the limit
    # on the side the direction implies.
    if check.margin is None:
        return "upper"
    upper = check.theoretical - (check.empirical_mean - Z_ONE_SIDED * check.std_error)
    lower = (check.empirical_mean + Z_ONE_SIDED * check.std_error) - check.theoretical
    return "upper" if abs(check.margin - upper) <= abs(check.margin - lower) else "lower"


def theorem_violations(result: ExperimentResult) -> list[BoundViolation]:
    """Violated theorem bounds, one per bound and series at its worst horizon, worst first."""
    checked = result.spec.get("checked") or {}
    groups: dict[str, list[BoundCheck]] = {}
    for c in result.bound_checks:
        if c.from_theorem:
            groups.setdefault(c.name, []).append(c)
    found: list[BoundViolation] = []
    for name, checks in groups.items():
        failed = [c for c in checks if not c.held]
        if not failed:
            continue
        bound, series = _split(name, checked)
        meta = checked.get("bounds", {}).get(bound, {})
        smeta = checked.get("series", {}).get(series, {})
        direction = _direction(failed[0], meta.get("direction"))
        v = [
            BoundViolation(
                bound,
                series,
                c,
                direction,
                len(failed),
                len(checks),
                smeta.get("policy", ""),
                smeta.get("instance", ""),
                meta.get("lemma_id"),
                meta.get("expression", ""),
            )
            for c in failed
        ]
        found.append(max(v, key=lambda x: _severity(x.check, x.excess)))
    return sorted(found, key=lambda x: _severity(x.check, x.excess), reverse=True)


def violation_line(v: BoundViolation) -> str:
    c = v.check
    where = f" on instance {v.instance}" if v.instance else ""
    side, cmp = ("lower", ">") if v.direction == "upper" else ("upper", "<")
    line = (
        f"bound {v.bound}@{v.series}{where} at T={c.horizon}: measured {c.empirical_mean:.4g} ± {c.std_error:.2g}, "
        f"bound {c.theoretical:.4g} ({CONFIDENCE:.0%} one-sided {side} limit {v.limit:.4g} {cmp} bound)"
    )
    line += f"; violated at {v.violated}/{v.checked} horizon{'s' if v.checked != 1 else ''}"
    if v.lemma_id:
        line += f"; tests lemma {v.lemma_id}"
    return line


def violation_lines(result: ExperimentResult) -> list[str]:
    """One readable line per violated theorem bound and series (what ExperimentResult.violations holds)."""
    return [violation_line(v) for v in theorem_violations(result)]


def _finite(value: Any) -> float | None:
    """A finite float, else None (a stored result keeps inf and nan as null)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _arms(result: ExperimentResult, instance: str) -> dict[str, Any]:
    """Arm means and gaps of a spec instance (domains whose spec lists instances with means)."""
    instances = result.spec.get("instances")
    if not isinstance(instances, list):
        return {}
    for inst in instances:
        if isinstance(inst, dict) and inst.get("name") == instance and isinstance(inst.get("means"), list):
            means = [float(m) for m in inst["means"]]
            best = max(means)
            arms: dict[str, Any] = {"means": means, "gaps": [round(best - m, 12) for m in means]}
            arms.update({k: inst[k] for k in ("family", "sigma", "alpha") if k in inst})
            return arms
    return {}


def worst_violation(result: ExperimentResult) -> dict[str, Any] | None:
    """The worst violated theorem bound, machine-readable, or None when no theorem bound failed.

    Keys: bound, series, check (the BoundCheck name), policy, instance, direction, lemma_id,
    expression, horizon, empirical_mean, std_error, theoretical, confidence_limit, confidence,
    violation (mean minus bound, signed so that > 0 is the wrong side), violated_horizons,
    checked_horizons, variables (the instance's variables: K, gaps sums, ...), arms (means, gaps,
    family when the spec lists them), assignment (variables + T + means/gaps: ready for
    Counterexample.assignment) and description (the readable line)."""
    found = theorem_violations(result)
    if not found:
        return None
    v = found[0]
    c = v.check
    checked = result.spec.get("checked") or {}
    all_vars = checked.get("variables", {})
    variables = {k: _finite(x) for k, x in {**all_vars.get("", {}), **all_vars.get(v.instance, {})}.items()}
    arms = _arms(result, v.instance)
    assignment: dict[str, Any] = {**variables, "T": c.horizon}
    assignment.update({k: arms[k] for k in ("means", "gaps") if k in arms})
    return {
        "bound": v.bound,
        "series": v.series,
        "check": c.name,
        "policy": v.policy,
        "instance": v.instance,
        "direction": v.direction,
        "lemma_id": v.lemma_id,
        "expression": v.expression,
        "horizon": c.horizon,
        "empirical_mean": c.empirical_mean,
        "std_error": c.std_error,
        "theoretical": c.theoretical,
        "confidence_limit": v.limit,
        "confidence": CONFIDENCE,
        "violation": v.excess,
        "violated_horizons": v.violated,
        "checked_horizons": v.checked,
        "variables": variables,
        "arms": arms,
        "assignment": assignment,
        "description": violation_line(v),
    }


# --------------------------------------------------------------------------------------------
# violations that stick
# --------------------------------------------------------------------------------------------


def _root_claim(theory: TheoryState) -> Any:
    root = theory.root_id()
    node = theory.lemma_dag.get(root) if root else None
    return node.claim if node is not None else None


def required_check(v: BoundViolation, theory: TheoryState, result: ExperimentResult) -> RequiredCheck:
    """A violated bound of `theory`, as a check later experiments re-run."""
    checked = result.spec.get("checked") or {}
    all_vars = checked.get("variables", {})
    variables = {k: _finite(x) for k, x in {**all_vars.get("", {}), **all_vars.get(v.instance, {})}.items()}
    return RequiredCheck(
        statement=theory.informal_statement,
        formal_statement=theory.formal_statement,
        root_claim=_root_claim(theory),
        bound=v.bound,
        series=v.series,
        instance=v.instance,
        expression=v.expression,
        direction="lower" if v.direction == "lower" else "upper",
        variables=variables,
        check=v.check.model_copy(),
        line=violation_line(v),
    )


def same_theorem(req: RequiredCheck, theory: TheoryState) -> bool:
    """Whether `theory` formalizes the statement as the theorem the check was violated for:
    the same root claim up to renaming, or (without claims) the same formal statement."""
    from eurekaclaw.verify.claim_match import same_up_to_renaming

    claim = _root_claim(theory)
    if req.root_claim is not None and claim is not None:
        try:
            return same_up_to_renaming(claim, req.root_claim) is not None
        except Exception:  # a matcher failure keeps the old bound: fail closed
            return True
    return " ".join(req.formal_statement.split()).lower() == " ".join(theory.formal_statement.split()).lower()


def _bound_value(expression: str, variables: dict[str, float | None], horizon: int) -> float | None:
    from eurekaclaw.agents.experiment.expr import ExpressionError, compile_expression

    env = {k: v for k, v in variables.items() if v is not None}
    try:
        fn = compile_expression(expression, set(env) | {"T"}, relation=False)
        value = float(fn({**env, "T": float(horizon)}))
    except (ExpressionError, ValueError, TypeError, ArithmeticError):
        return None
    return value if math.isfinite(value) else None


def recheck(req: RequiredCheck, theory: TheoryState, result: ExperimentResult) -> BoundCheck:
    """The stored measurement against the bound the theorem now states (see the module doc)."""
    old = req.check
    theory_value = old.theoretical
    if not same_theorem(req, theory):
        bounds = (result.spec.get("checked") or {}).get("bounds", {})
        new = bounds.get(req.bound, {}).get("expression") if isinstance(bounds.get(req.bound), dict) else None
        value = _bound_value(new, req.variables, old.horizon) if new else None
        theory_value = value if value is not None else old.theoretical
    if req.direction == "upper":
        limit = old.empirical_mean - Z_ONE_SIDED * old.std_error
        margin = theory_value - limit
    else:
        limit = old.empirical_mean + Z_ONE_SIDED * old.std_error
        margin = limit - theory_value
    rounding = ROUNDING_TOL * (1.0 + abs(theory_value) + abs(limit))
    return old.model_copy(
        update={"theoretical": theory_value, "margin": margin, "held": margin >= -rounding, "from_theorem": True}
    )


def apply_required(previous: ExperimentResult | None, theory: TheoryState, result: ExperimentResult) -> int:
    """Re-check in `result` every bound an earlier experiment on the same statement violated,
    record this result's own violations as required for later ones, and recompute
    `result.violations`. Returns how many re-checked bounds are still violated."""
    carried = [r for r in (previous.required_checks if previous else []) if r.statement == theory.informal_statement]
    still = 0
    checked = result.spec.setdefault("checked", {})
    for req in carried:
        check = recheck(req, theory, result)
        result.bound_checks.append(check)
        meta = checked.setdefault("bounds", {}).setdefault(req.bound, {})
        meta.setdefault("direction", req.direction)
        meta.setdefault("expression", req.expression)
        checked.setdefault("series", {}).setdefault(req.series, {"policy": "", "instance": req.instance, "runs": 0})
        if not check.held:
            still += 1
            result.notes.append(
                f"required check {check.name} (violated by an earlier experiment on this statement) "
                f"is still violated: measured {check.empirical_mean:.4g}, bound {check.theoretical:.4g}"
            )
    own = [required_check(v, theory, result) for v in theorem_violations(result)]
    keys: set[tuple[str, str, int]] = set()
    kept: list[RequiredCheck] = []
    for req in carried + own:
        key = (req.bound, req.series, req.check.horizon)
        if key not in keys:
            keys.add(key)
            kept.append(req)
    result.required_checks = kept
    result.violations = violation_lines(result)
    return still
