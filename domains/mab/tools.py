"""The MAB helpers as agent tools (BaseTool subclasses), registered by MABPlugin.register_tools."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from domains.mab import theory
from domains.mab.compat import require_family
from domains.mab.policies import COST, POLICIES
from domains.mab.simulator import simulate
from domains.mab.streams import FAMILIES, Family
from eurekaclaw.tools.base import BaseTool, ToolRegistry

# A tool call must stay interactive: cost-weighted (run x arm x step) units, about a second.
TOOL_MAX_WORK = 3e7

_MEANS = {
    "type": "array",
    "items": {"type": "number"},
    "minItems": 2,
    "maxItems": 1000,
    "description": "mean reward of each arm",
}
_FAMILY = {"type": "string", "enum": list(FAMILIES), "default": "bernoulli"}


class ConfidenceRadiusTool(BaseTool):
    name = "mab_confidence_radius"
    description = (
        "Confidence radius of an empirical mean after n samples at level delta: hoeffding "
        "(rewards in [low, high]), subgaussian (sigma), bernstein (variance, range b), "
        "empirical_bernstein (sample variance, rewards in [0, b]), or truncated_mean (heavy tails: "
        "E|X|^(1+eps) <= u; Bubeck, Cesa-Bianchi & Lugosi 2013)."
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "kind": {
                    "type": "string",
                    "enum": ["hoeffding", "subgaussian", "bernstein", "empirical_bernstein", "truncated_mean"],
                },
                "n": {"type": "number", "exclusiveMinimum": 0},
                "delta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                "low": {"type": "number", "default": 0},
                "high": {"type": "number", "default": 1},
                "sigma": {"type": "number", "default": 1},
                "variance": {"type": "number"},
                "b": {"type": "number", "default": 1},
                "two_sided": {"type": "boolean", "default": False},
                "u": {"type": "number", "description": "bound on E|X|^(1+eps) (truncated_mean)"},
                "eps": {"type": "number", "default": 1, "description": "moment order minus 1, in (0, 1]"},
            },
            "required": ["kind", "n", "delta"],
        }

    async def call(self, **kw: Any) -> Any:
        kind, n, delta, two = kw["kind"], float(kw["n"]), float(kw["delta"]), bool(kw.get("two_sided", False))
        if kind == "hoeffding":
            r = theory.hoeffding_radius(n, delta, kw.get("low", 0.0), kw.get("high", 1.0), two)
        elif kind == "subgaussian":
            r = theory.subgaussian_radius(n, delta, kw.get("sigma", 1.0), two)
        elif kind == "bernstein":
            r = theory.bernstein_radius(n, delta, _required(kw, "variance"), kw.get("b", 1.0), two)
        elif kind == "empirical_bernstein":
            r = theory.empirical_bernstein_radius(n, delta, _required(kw, "variance"), kw.get("b", 1.0))
        elif kind == "truncated_mean":
            r = theory.truncated_mean_radius(n, delta, _required(kw, "u"), float(kw.get("eps", 1.0)))
        else:
            raise ValueError(f"unknown radius kind {kind!r}")
        return {"kind": kind, "radius": r}


class KLTool(BaseTool):
    name = "mab_kl"
    description = (
        "KL divergence between two laws of one family given by their means p and q: bernoulli, "
        'gaussian (common sigma), exponential or poisson. Infinite values are returned as "inf".'
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "p": {"type": "number"},
                "q": {"type": "number"},
                "family": {"type": "string", "enum": list(theory.KL_FAMILIES)},
                "sigma": {"type": "number", "default": 1},
            },
            "required": ["p", "q"],
        }

    async def call(self, **kw: Any) -> Any:
        family = kw.get("family", "bernoulli")
        return {
            "kl": _finite(theory.kl_divergence(float(kw["p"]), float(kw["q"]), family, float(kw.get("sigma", 1.0))))
        }


class LaiRobbinsTool(BaseTool):
    name = "mab_lai_robbins"
    description = (
        "Lai-Robbins constant sum_i Delta_i / KL(nu_i, nu*) of an instance (lower bound: c ln T). "
        "It is 0 for Bernoulli rewards with mu* = 1 (KL infinite: bounded regret is possible)."
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "means": _MEANS,
                "family": {"type": "string", "enum": list(theory.KL_FAMILIES)},
                "sigma": {"type": "number", "default": 1},
            },
            "required": ["means"],
        }

    async def call(self, **kw: Any) -> Any:
        family = kw.get("family", "bernoulli")
        c = theory.lai_robbins_constant(kw["means"], family, float(kw.get("sigma", 1.0)))
        out: dict[str, Any] = {"constant": c}
        if theory.lai_robbins_degenerate(kw["means"], family):
            out["note"] = "mu* = 1: KL(nu_i, nu*) is infinite for every suboptimal arm, so the constant is 0"
        return out


class RegretDecompositionTool(BaseTool):
    name = "mab_regret_decomposition"
    description = "Regret decomposition R_T = sum_i Delta_i E[N_i(T)] from arm means and (expected) pull counts."

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"means": _MEANS, "pulls": {"type": "array", "items": {"type": "number"}}},
            "required": ["means", "pulls"],
        }

    async def call(self, **kw: Any) -> Any:
        return theory.regret_decomposition(kw["means"], kw["pulls"])


class KnownBoundsTool(BaseTool):
    name = "mab_known_bounds"
    description = (
        "Known regret bounds evaluated on an instance at horizon T: UCB1 instance-dependent "
        "(Auer et al. 2002) and minimax, MOSS minimax, Exp3 and Exp3-IX minimax, the asymptotic "
        "bound of KL-UCB (all families), Bayes-UCB and IMED, and the Lai-Robbins lower bound."
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "means": _MEANS,
                "horizon": {"type": "integer", "minimum": 2},
                "family": _FAMILY,
                "sigma": {"type": "number", "default": 1},
            },
            "required": ["means", "horizon"],
        }

    async def call(self, **kw: Any) -> Any:
        return theory.known_bounds(
            kw["means"], int(kw["horizon"]), kw.get("family", "bernoulli"), float(kw.get("sigma", 1.0))
        )


class SimulateBanditTool(BaseTool):
    name = "simulate_bandit"
    description = (
        "Simulate a bandit policy on an instance (vectorised over runs, seeded): pseudo-regret "
        "curve (mean, s.e., 10/50/90% quantiles, mean +- s.e. band) with the realised regret and "
        "the best-arm rate at log-spaced times, final values, mean pulls. "
        f"Policies: {', '.join(POLICIES)}. Kept small: runs x arms x horizon is capped."
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "means": _MEANS,
                "policy": {"type": "string", "enum": list(POLICIES)},
                "horizon": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
                "runs": {"type": "integer", "minimum": 1, "maximum": 2000, "default": 50},
                "family": _FAMILY,
                "sigma": {"type": "number", "default": 1},
                "alpha": {"type": "number", "default": 2.5},
                "params": {
                    "type": "object",
                    "description": "policy parameters (epsilon, m, c, zeta, b, sigma, eps, u, eta, gamma, tau, xi, B)",
                },
                "changes": {
                    "type": "array",
                    "description": "piecewise-stationary arms: [{t, means}], the means from step t on",
                    "items": {
                        "type": "object",
                        "properties": {
                            "t": {"type": "integer", "minimum": 2},
                            "means": {"type": "array", "items": {"type": "number"}},
                        },
                        "required": ["t", "means"],
                    },
                },
                "seed": {"type": "integer", "default": 0},
            },
            "required": ["means", "policy", "horizon"],
        }

    async def call(self, **kw: Any) -> Any:
        runs, horizon, means = int(kw.get("runs", 50)), int(kw["horizon"]), kw["means"]
        require_family(kw["policy"], kw.get("family", "bernoulli"))  # one clear line, before any work
        work = runs * horizon * len(means) * COST.get(kw["policy"], 1.0)
        if work > TOOL_MAX_WORK:
            raise ValueError(
                f"runs x horizon x arms x policy cost = {work:.3g} exceeds the tool limit "
                f"{TOOL_MAX_WORK:.3g}; lower runs or horizon"
            )
        family = Family(kw.get("family", "bernoulli"), float(kw.get("sigma", 1.0)), float(kw.get("alpha", 2.5)))
        result = await asyncio.to_thread(
            simulate,
            family,
            means,
            kw["policy"],
            horizon,
            runs,
            int(kw.get("seed", 0)),
            params=kw.get("params") or {},
            n_checkpoints=30,
            changes=[(int(c["t"]), c["means"]) for c in kw.get("changes") or []],
        )
        return result.summary(max_points=30)


def _finite(x: float) -> float | str:
    """JSON has no infinity: infinite values travel as the string "inf"."""
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _required(kw: dict[str, Any], key: str) -> float:
    if kw.get(key) is None:
        raise ValueError(f"{key} is required for this radius")
    return float(kw[key])


TOOLS = (ConfidenceRadiusTool, KLTool, LaiRobbinsTool, RegretDecompositionTool, KnownBoundsTool, SimulateBanditTool)


def register_tools(registry: ToolRegistry) -> None:
    for cls in TOOLS:
        registry.register(cls())
