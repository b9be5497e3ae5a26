"""The MAB experiment backend: runs a MABExperimentSpec with the simulators and returns the
simulation report the Experiment stage checks (docs/mab.md, "Experiment backend contract")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domains.mab import theory
from domains.mab.policies import HORIZON_DEPENDENT
from domains.mab.simulator import SimResult, log_checkpoints, simulate
from domains.mab.spec import (
    MAX_WORK,
    MABExperimentSpec,
    check_spec,
    default_spec,
    work_units,
)
from domains.mab.streams import Family

ProgressFn = Callable[[str, dict[str, Any]], None]

VARIABLE_DOCS = {
    "T": "horizon (number of rounds)",
    "K": "number of arms",
    "mu_star": "largest arm mean",
    "sum_gap": "sum of the positive gaps Delta_i",
    "sum_inv_gap": "sum of 1/Delta_i over arms with Delta_i > 0",
    "min_gap": "smallest positive gap",
    "max_gap": "largest gap",
    "n_suboptimal": "number of arms with Delta_i > 0",
    "sigma": "noise level of the instance (gaussian)",
    "lai_robbins": "sum_i Delta_i / KL(nu_i, nu*) (bernoulli, gaussian, exponential, poisson; 0 when mu* = 1 "
    "with bernoulli rewards)",
    "n_changes": "number of breakpoints of a piecewise-stationary instance (0 if stationary); gaps and "
    "means above are those of the first segment",
}

POLICY_GUIDE = {
    "ucb1": "params: none",
    "ucb_v": "params: zeta (default 1.2), b reward range (default 1)",
    "kl_ucb": "params: c (default 0) in ln t + c ln ln t; bernoulli only",
    "moss": "params: none; uses the horizon",
    "ts_beta": "Beta-Bernoulli Thompson sampling; bernoulli only",
    "ts_gaussian": "Gaussian Thompson sampling; params: sigma (default: the instance's)",
    "eps_greedy": "params: epsilon (constant) or c and d (eps_t = min(1, cK/(d^2 t)))",
    "etc": "explore-then-commit; params: m pulls per arm (default: minimises the K-arm ETC regret bound)",
    "bayes_ucb": "Bayes-UCB, Beta posterior quantile 1 - 1/(t (ln T)^c); params: c (default 0); bernoulli only",
    "kl_ucb_gaussian": "KL-UCB with the Gaussian KL; params: c, sigma (default: the instance's); gaussian or bernoulli",
    "kl_ucb_exp": "KL-UCB with the exponential KL; params: c; exponential only",
    "kl_ucb_poisson": "KL-UCB with the Poisson KL; params: c; poisson only",
    "imed": "IMED with the family's KL; bernoulli, gaussian, exponential or poisson",
    "robust_ucb": "Robust UCB with the truncated mean (heavy tails); params: eps in (0, 1], u >= E|X|^(1+eps) "
    "(defaults from the instance)",
    "exp3": "Exp3 (adversarial); params: eta (default sqrt(2 ln K / (K T))); bernoulli only",
    "exp3_ix": "Exp3-IX; params: eta, gamma (default eta / 2); bernoulli only",
    "sw_ucb": "sliding-window UCB (non-stationary); params: tau, xi (0.6), B (1); tau defaults to "
    "2 B sqrt(T ln T / max(1, n_changes))",
    "d_ucb": "discounted UCB (non-stationary); params: gamma, xi (0.6), B (1); gamma defaults to "
    "1 - sqrt(max(1, n_changes) / T) / (4 B)",
}


class MABExperimentBackend:
    """What the Experiment stage needs from a domain that can simulate (duck-typed there)."""

    name = "mab"
    spec_model = MABExperimentSpec

    def __init__(self, max_work: float = MAX_WORK) -> None:
        self.max_work = max_work

    def variable_names(self) -> list[str]:
        return list(VARIABLE_DOCS)

    def spec_guide(self) -> dict[str, Any]:
        """Facts the designer prompt shows: variables, named bounds, policies and limits."""
        return {
            "variables": VARIABLE_DOCS,
            "known_bounds": {
                k: {key: v[key] for key in ("expression", "direction", "asymptotic", "rate", "policies", "source")}
                for k, v in theory.BOUND_EXPRESSIONS.items()
            },
            "policies": POLICY_GUIDE,
            "families": {
                "bernoulli": "means in [0, 1]",
                "gaussian": "sigma > 0",
                "pareto": "alpha > 1, means > 0",
                "exponential": "means > 0",
                "poisson": "means in (0, 1000]",
            },
            "instances": "an instance with `changes` ([{t, means}]) is piecewise-stationary: from step t on the "
            "arms have those means; regret is measured against the best arm of each segment",
            "limits": {"max_work": self.max_work, "work": "repetitions x arms x horizon x policy cost, summed"},
        }

    def default_spec(self) -> MABExperimentSpec:
        return default_spec()

    def check(self, spec: MABExperimentSpec) -> list[str]:
        return check_spec(spec, self.max_work)

    def prepare(self, spec: MABExperimentSpec) -> MABExperimentSpec:
        return spec.normalised()

    def run(
        self,
        spec: MABExperimentSpec,
        progress: ProgressFn | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> dict[str, Any]:
        spec = spec.normalised()
        errors = self.check(spec)
        if errors:
            raise ValueError("; ".join(errors))
        notes = [f"work: {work_units(spec):.3g} cost-weighted units (limit {self.max_work:.3g})"]
        labels = _policy_labels(spec)
        series: list[dict[str, Any]] = []
        variables: dict[str, dict[str, float]] = {}
        one_instance = len(spec.instances) == 1
        for i, inst in enumerate(spec.instances):
            fam = Family(inst.family, inst.sigma, inst.alpha)
            variables[inst.name] = {
                **theory.instance_variables(inst.means, inst.family, inst.sigma),
                "n_changes": float(len(inst.changes)),
            }
            for pol, label in zip(spec.policies, labels, strict=True):
                name = label if one_instance else f"{label}@{inst.name}"
                if progress:
                    progress("simulate", {"series": name, "runs": spec.repetitions, "horizon": max(spec.horizons)})
                changes = [(c.t, c.means) for c in inst.changes]
                runs = self._simulate(spec, i, fam, inst.means, pol.name, dict(pol.params), should_stop, changes)
                series.append(_series_entry(name, pol.name, inst.name, runs, spec.horizons))
        bounds = []
        for b in spec.bounds:
            targets = [
                s["name"]
                for s in series
                if (not b.policies or s["policy"] in b.policies) and (not b.instances or s["instance"] in b.instances)
            ]
            if not targets:
                notes.append(f"bound {b.name}: no simulated series matches its policies/instances")
            bounds.append(
                {
                    "name": b.name,
                    "expression": b.expression,
                    "direction": b.direction,
                    "asymptotic": b.asymptotic,
                    "rate": b.rate,
                    "series": targets,
                    "lemma_id": b.lemma_id,
                }
            )
        for inst in spec.instances:
            if inst.family != "bernoulli":
                notes.append(f"instance {inst.name} is {inst.family}: bounds for rewards in [0, 1] may not apply")
            if inst.changes:
                notes.append(
                    f"instance {inst.name} is piecewise-stationary ({len(inst.changes)} changes): regret is "
                    "against the best arm of each segment; bounds for stationary arms do not apply"
                )
        for entry in series:
            for note in entry.pop("sim_notes"):
                line = f"{entry['name']}: {note}"
                if line not in notes:
                    notes.append(line)
        return {
            "series": series,
            "variables": variables,
            "bounds": bounds,
            "notes": notes,
            "spec": spec.model_dump(mode="json"),
        }

    @staticmethod
    def _simulate(
        spec: MABExperimentSpec,
        index: int,
        fam: Family,
        means: list[float],
        policy: str,
        params: dict[str, Any],
        should_stop: Callable[[], bool] | None,
        changes: list[tuple[int, list[float]]] | None = None,
    ) -> list[SimResult]:
        """One run to the largest horizon, or one per horizon for horizon-dependent policies."""
        horizons = spec.horizons if policy in HORIZON_DEPENDENT else [max(spec.horizons)]
        results = []
        for h in horizons:
            cps = log_checkpoints(h, 60, extra=[x for x in spec.horizons if x <= h])
            results.append(
                simulate(
                    fam,
                    means,
                    policy,
                    h,
                    spec.repetitions,
                    spec.seed,
                    params=dict(params),
                    checkpoints=cps,
                    crn=spec.crn,
                    stream=index,
                    should_stop=should_stop,
                    changes=[c for c in (changes or []) if c[0] <= h],
                )
            )
        return results


def _policy_labels(spec: MABExperimentSpec) -> list[str]:
    seen: dict[str, int] = {}
    labels = []
    for pol in spec.policies:
        seen[pol.name] = seen.get(pol.name, 0) + 1
        labels.append(pol.name if seen[pol.name] == 1 else f"{pol.name}#{seen[pol.name]}")
    return labels


def _series_entry(name: str, policy: str, instance: str, runs: list[SimResult], horizons: list[int]) -> dict[str, Any]:
    curve = runs[-1]  # the run to the largest horizon draws the curve
    points = []
    for h in horizons:
        source = next(r for r in runs if r.horizon >= h)
        stats = source.at(h, extra=True)
        points.append({"horizon": h, **stats, "horizon_specific": len(runs) > 1})
    return {
        "name": name,
        "policy": policy,
        "instance": instance,
        "runs": curve.runs,
        "t": [int(t) for t in curve.checkpoints],
        **{k: [float(x) for x in v] for k, v in curve.stats.items()},
        # beside the pseudo-regret: its +- 1 s.e. band, the realised regret sum_t mu*(t) - X_t and
        # the fraction of pulls of an optimal arm (mean and s.e. over runs at each t)
        **{k: [float(x) for x in v] for k, v in curve.extra.items()},
        "points": points,
        "mean_pulls": [float(x) for x in curve.pulls.mean(axis=0)],
        "params": curve.params,
        "seconds": round(sum(r.seconds for r in runs), 3),
        "sim_notes": sorted({n for r in runs for n in r.notes}),
    }
