"""Which reward families each policy is defined for, checked before anything runs.

A policy whose computation assumes a reward family (a Beta posterior over {0, 1}, a Bernoulli
KL divergence, rewards in [0, 1] for importance weighting) gives an error or meaningless numbers
on another family; `simulate`, the `simulate_bandit` tool and the experiment spec check all
refuse such a pairing with the same one-line message, naming the policies that do suit.
Policies not listed in FAMILIES run on every family (on heavy-tailed or unbounded rewards their
guarantees may not hold; the experiment notes say so).
"""

from __future__ import annotations

from eurekaclaw.errors import BadInputError

# policy -> (families it is defined for, why)
FAMILIES: dict[str, tuple[tuple[str, ...], str]] = {
    "ts_beta": (("bernoulli",), "its Beta posterior needs rewards in {0, 1}"),
    "kl_ucb": (("bernoulli",), "it uses the Bernoulli KL divergence"),
    "bayes_ucb": (("bernoulli",), "it uses quantiles of a Beta posterior"),
    "kl_ucb_gaussian": (("gaussian", "bernoulli"), "it uses the Gaussian KL divergence (sub-Gaussian rewards)"),
    "kl_ucb_exp": (("exponential",), "it uses the exponential-family KL divergence of exponential rewards"),
    "kl_ucb_poisson": (("poisson",), "it uses the Poisson KL divergence"),
    "imed": (
        ("bernoulli", "gaussian", "exponential", "poisson"),
        "it needs the KL divergence of a one-parameter exponential family",
    ),
    "exp3": (("bernoulli",), "its importance-weighted estimates need rewards in [0, 1]"),
    "exp3_ix": (("bernoulli",), "its importance-weighted estimates need rewards in [0, 1]"),
}


class PolicyFamilyError(BadInputError, ValueError):
    """A policy was asked to run on a reward family it is not defined for (exit code 2)."""


def suited_policies(family: str, policies: tuple[str, ...]) -> list[str]:
    return [p for p in policies if p not in FAMILIES or family in FAMILIES[p][0]]


def family_problem(policy: str, family: str) -> str | None:
    """One readable line when `policy` does not suit `family`, else None."""
    entry = FAMILIES.get(policy)
    if entry is None or family in entry[0]:
        return None
    families, why = entry
    alternatives = [p for p in FAMILIES if family in FAMILIES[p][0] and p != policy]
    hint = {"gaussian": "ts_gaussian", "pareto": "robust_ucb"}.get(family)
    if hint:
        alternatives.insert(0, hint)
    suggestion = f"; for {family} rewards try {', '.join(dict.fromkeys(alternatives))}" if alternatives else ""
    return f"policy {policy} needs {' or '.join(families)} rewards ({why}), not {family}{suggestion}"


def require_family(policy: str, family: str) -> None:
    problem = family_problem(policy, family)
    if problem:
        raise PolicyFamilyError(problem)
