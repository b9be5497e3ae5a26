"""The declarative experiment spec of the MAB domain: what the ExperimentDesigner writes and the
simulators run. No code: instances, policies, horizons, repetitions, and the bounds to check as
claim expressions over T and the instance variables (theory.instance_variables)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from domains.mab.compat import family_problem
from domains.mab.policies import COST, HORIZON_DEPENDENT, PolicyName
from domains.mab.streams import Family
from domains.mab.theory import BOUND_EXPRESSIONS

# Cost-weighted (run x arm x time step) units a spec may use: about a minute on one core of a
# loaded two-core machine (UCB1 runs at roughly 2-4e7 units per second there).
MAX_WORK = 1.5e9
MAX_INSTANCES = 6
MAX_POLICIES = 8
MAX_HORIZONS = 12
MAX_BOUNDS = 16
MAX_ARMS = 1000
MAX_HORIZON = 10_000_000
MAX_REPETITIONS = 10_000

Rate = Literal["log", "sqrt", "sqrt_log", "linear"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChangeSpec(_Strict):
    t: int = Field(ge=2, description="first step with the new means")
    means: list[float] = Field(min_length=2, description="mean reward of each arm from step t on")


class InstanceSpec(_Strict):
    name: str = Field(default="", description="short identifier; filled in as inst1, inst2, ... when empty")
    family: Literal["bernoulli", "gaussian", "pareto", "exponential", "poisson"] = "bernoulli"
    means: list[float] = Field(min_length=2, description="mean reward of each arm")
    sigma: float = Field(default=1.0, gt=0, description="noise level of gaussian rewards")
    alpha: float = Field(default=2.5, gt=1, description="tail index of pareto rewards")
    changes: list[ChangeSpec] = Field(
        default_factory=list,
        description=("piecewise-stationary instance: from step t on the arms have these means (breakpoints)"),
    )


class PolicySpec(_Strict):
    name: PolicyName
    params: dict[str, float] = Field(
        default_factory=dict,
        description=("epsilon, c, d, m, zeta, b, sigma, eps, u, eta, gamma, tau, xi, B (see the policy list)"),
    )


class BoundSpec(_Strict):
    name: str
    known: str | None = Field(default=None, description=f"a named known bound: {', '.join(BOUND_EXPRESSIONS)}")
    expression: str | None = Field(default=None, description="claim expression in T and instance variables")
    direction: Literal["upper", "lower"] = "upper"
    asymptotic: bool = False
    rate: Rate | None = Field(default=None, description="claimed growth of the regret in T")
    policies: list[str] = Field(default_factory=list, description="policies the bound is about (empty: all)")
    instances: list[str] = Field(default_factory=list, description="instances it applies to (empty: all)")
    lemma_id: str | None = Field(default=None, description="the lemma whose claim this bound tests")


class MABExperimentSpec(_Strict):
    rationale: str = ""
    instances: list[InstanceSpec] = Field(min_length=1)
    policies: list[PolicySpec] = Field(min_length=1)
    horizons: list[int] = Field(min_length=1)
    repetitions: int = Field(ge=2)
    seed: int = 0
    crn: bool = True
    bounds: list[BoundSpec] = Field(default_factory=list)

    def normalised(self) -> MABExperimentSpec:
        """Names filled in, horizons sorted, bounds resolved against the named known bounds."""
        spec = self.model_copy(deep=True)
        for i, inst in enumerate(spec.instances, start=1):
            inst.name = inst.name.strip() or f"inst{i}"
        spec.horizons = sorted(set(spec.horizons))
        for b in spec.bounds:
            if b.known and b.known in BOUND_EXPRESSIONS:
                meta = BOUND_EXPRESSIONS[b.known]
                b.expression = b.expression or meta["expression"]
                fields = b.model_fields_set
                if "direction" not in fields:
                    b.direction = meta["direction"]
                if "asymptotic" not in fields:
                    b.asymptotic = meta["asymptotic"]
                if "rate" not in fields:
                    b.rate = meta["rate"]
                if "policies" not in fields:
                    b.policies = list(meta["policies"])
        return spec


def work_units(spec: MABExperimentSpec) -> float:
    """Cost-weighted run x arm x step units the spec needs. Horizon-dependent policies (MOSS,
    ETC) are run once per horizon; the others once, to the largest horizon."""
    total = 0.0
    for inst in spec.instances:
        for pol in spec.policies:
            steps = sum(spec.horizons) if pol.name in HORIZON_DEPENDENT else max(spec.horizons)
            total += spec.repetitions * len(inst.means) * steps * COST[pol.name]
    return total


def check_spec(spec: MABExperimentSpec, max_work: float = MAX_WORK) -> list[str]:
    """Problems that make the spec unusable (empty when it can run), one readable line each.
    Each step checks one concern; the order of the lines is the order of the steps."""
    return [
        *_size_problems(spec),
        *_horizon_problems(spec),
        *_instances_problems(spec),
        *_policy_problems(spec),
        *_bounds_problems(spec),
        *_work_problems(spec, max_work),
    ]


def _size_problems(spec: MABExperimentSpec) -> list[str]:
    """How many of each thing the spec asks for, against the caps."""
    caps = [
        (len(spec.instances), "instances", MAX_INSTANCES),
        (len(spec.policies), "policies", MAX_POLICIES),
        (len(spec.horizons), "horizons", MAX_HORIZONS),
        (len(spec.bounds), "bounds", MAX_BOUNDS),
    ]
    errors = [f"{n} {what}: at most {cap}" for n, what, cap in caps if n > cap]
    if spec.repetitions > MAX_REPETITIONS:
        errors.append(f"repetitions {spec.repetitions}: at most {MAX_REPETITIONS}")
    return errors


def _horizon_problems(spec: MABExperimentSpec) -> list[str]:
    bad_h = [h for h in spec.horizons if not 10 <= h <= MAX_HORIZON]
    return [f"horizons {bad_h}: each must lie in [10, {MAX_HORIZON}]"] if bad_h else []


def _instances_problems(spec: MABExperimentSpec) -> list[str]:
    """Distinct names, then each instance's arms, means and change points."""
    errors: list[str] = []
    names = [i.name for i in spec.instances]
    if len(set(names)) != len(names):
        errors.append(f"instance names must be distinct: {names}")
    horizon = max(spec.horizons)
    for inst in spec.instances:
        if len(inst.means) > MAX_ARMS:
            errors.append(f"instance {inst.name}: {len(inst.means)} arms, at most {MAX_ARMS}")
        errors.extend(f"instance {inst.name}: {e}" for e in _instance_problems(inst, horizon))
    return errors


def _policy_problems(spec: MABExperimentSpec) -> list[str]:
    """Policies that cannot run on an instance's reward family."""
    problems = {family_problem(pol.name, inst.family) for pol in spec.policies for inst in spec.instances}
    return sorted(p for p in problems if p)


def _bounds_problems(spec: MABExperimentSpec) -> list[str]:
    policy_names: set[str] = {p.name for p in spec.policies}
    instance_names = {i.name for i in spec.instances}
    return [e for b in spec.bounds for e in _bound_problems(b, policy_names, instance_names)]


def _bound_problems(b: BoundSpec, policy_names: set[str], instance_names: set[str]) -> list[str]:
    """A bound needs an expression (its own or a known one's) and may name only what the spec has."""
    errors: list[str] = []
    if not b.expression:
        errors.append(f"bound {b.name}: give `known` (one of {', '.join(BOUND_EXPRESSIONS)}) or an `expression`")
    if b.known and b.known not in BOUND_EXPRESSIONS:
        errors.append(f"bound {b.name}: unknown known bound {b.known!r}; known: {', '.join(BOUND_EXPRESSIONS)}")
    missing = [p for p in b.policies if p not in policy_names]
    if missing:
        errors.append(f"bound {b.name}: policies {missing} are not in the spec")
    missing_i = [i for i in b.instances if i not in instance_names]
    if missing_i:
        errors.append(f"bound {b.name}: instances {missing_i} are not in the spec")
    return errors


def _work_problems(spec: MABExperimentSpec, max_work: float) -> list[str]:
    work = work_units(spec)
    if work > max_work:
        return [
            f"spec too large: {work:.3g} cost-weighted run x arm x step units exceed the limit "
            f"{max_work:.3g}; reduce repetitions, horizons, arms or expensive policies (kl_ucb, ts_beta)"
        ]
    return []


def _instance_problems(inst: InstanceSpec, horizon: int) -> list[str]:
    fam = Family(inst.family, inst.sigma, inst.alpha)
    problems = []
    for label, means in [("", inst.means)] + [(f"the change at t={c.t}: ", c.means) for c in inst.changes]:
        try:
            fam.check_means(np.asarray(means, dtype=np.float64))
        except ValueError as exc:
            problems.append(f"{label}{exc}".replace(" arm means", " means"))
        if len(means) != len(inst.means):
            problems.append(f"{label}{len(means)} means for {len(inst.means)} arms")
    times = [c.t for c in inst.changes]
    if any(b <= a for a, b in zip(times, times[1:], strict=False)):
        problems.append(f"change times must increase: {times}")
    if times and times[-1] > horizon:
        problems.append(f"change at t={times[-1]} is after the largest horizon {horizon}")
    return problems


LEVEL1_MEANS = [round(0.9 - 0.08 * i, 10) for i in range(10)]


def default_spec() -> MABExperimentSpec:
    """The deterministic fallback: UCB1 on the level-1 instance (Bernoulli, mu_i = 0.9 - 0.08 i,
    K = 10) against the UCB1 bound of Auer et al. (2002) and the Lai-Robbins lower bound. About
    1e7 work units: well under a second."""
    return MABExperimentSpec(
        rationale="default: UCB1 on the level-1 Bernoulli instance",
        instances=[InstanceSpec(name="level1", family="bernoulli", means=LEVEL1_MEANS)],
        policies=[PolicySpec(name="ucb1")],
        horizons=[1000, 3000, 10000],
        repetitions=100,
        seed=0,
        bounds=[
            BoundSpec(name="ucb1_auer2002", known="ucb1_auer2002"),
            BoundSpec(name="lai_robbins", known="lai_robbins"),
        ],
    ).normalised()
