"""How relevant does the injector think the seed skills are to lemmas they do and do not fit?

Scores every (task, seed skill) pair of a hand-labelled table of 24 lemma-like tasks with the
project's embedder and the injector's relevance (tag overlap, embedding cosine, and their mean
`hybrid`, the default), and prints the distribution of related and unrelated pairs, one
`name value` figure per line. The injector's floor (skills/injector.py, MIN_RELEVANCE) is chosen
from these figures: the smallest value (step 0.01) that at most 10 % of unrelated pairs reach
(`*_suggested_floor`).
The labels say which skills a careful prover would want for the task; "unrelated" is every
other seed skill. Run:

    python benchmarks/skill_relevance_floor.py [--embedder hashing|minilm] [--show-misses]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from eurekaclaw.memory.embeddings import get_embedder
from eurekaclaw.skills.format import load_skill_file
from eurekaclaw.skills.injector import MIN_RELEVANCE, SkillInjector

# The floor rule: the smallest value (step 0.01) that at most this share of unrelated pairs reach.
UNRELATED_SHARE = 0.10
SEED = Path(__file__).resolve().parents[1] / "seed_skills"

# (task text as the prover's injector sees it: informal + statement, related seed skills)
TASKS: list[tuple[str, set[str]]] = [
    (
        "Hoeffding bound for the empirical mean of a bounded arm: P(|mu_hat_n - mu| >= eps) <= 2 exp(-2 n eps^2)",
        {"concentration-inequalities"},
    ),
    (
        "The UCB index exceeds the true mean with high probability: for each round t, mu_i <= mu_hat_i + sqrt(2 log t / n_i) except with probability t^-4",
        {"concentration-inequalities", "union-bound-and-peeling"},
    ),
    (
        "Union over all arms and rounds: the probability that some confidence interval fails is at most sum_t K t^-3",
        {"union-bound-and-peeling"},
    ),
    ("Regret decomposition: R_T = sum_i Delta_i E[N_i(T)] for a K-armed stochastic bandit", {"lemma-decomposition"}),
    (
        "Number of pulls of a suboptimal arm under UCB1 is at most 8 log T / Delta_i^2 + 1 + pi^2/3",
        {"concentration-inequalities", "union-bound-and-peeling", "proof-by-contradiction"},
    ),
    ("Lower bound: any consistent policy has liminf E[N_i(T)] / log T >= 1 / KL(mu_i, mu*)", {"change-of-measure"}),
    (
        "Pinsker's inequality relates total variation to KL divergence: TV(P,Q) <= sqrt(KL(P||Q)/2)",
        {"change-of-measure"},
    ),
    (
        "Azuma-Hoeffding for a martingale difference sequence with bounded increments |X_t| <= c_t",
        {"martingale-arguments", "concentration-inequalities"},
    ),
    (
        "Freedman's inequality for a supermartingale with bounded predictable variance, via a stopping time",
        {"martingale-arguments", "concentration-inequalities"},
    ),
    (
        "Jensen's inequality: for convex f, f(E[X]) <= E[f(X)]; apply to the log-sum-exp potential",
        {"convexity-and-jensen"},
    ),
    ("Sum over arms of sqrt(n_i) is at most sqrt(K T) when sum_i n_i = T", {"cauchy-schwarz-and-holder"}),
    (
        "Hölder's inequality bounds the inner product of the loss vector and the weights by the product of dual norms",
        {"cauchy-schwarz-and-holder"},
    ),
    (
        "A covering of the unit ball with an epsilon-net of size (3/epsilon)^d and a union bound over its points",
        {"covering-and-epsilon-nets", "union-bound-and-peeling"},
    ),
    (
        "Sum_{t=1}^T (Phi_t - Phi_{t+1}) telescopes to Phi_1 - Phi_{T+1} for the exponential weights potential",
        {"telescoping-sums"},
    ),
    ("For all n >= 1, sum_{k=1}^n 1/k^2 <= 2 - 1/n, by induction on n", {"induction", "telescoping-sums"}),
    (
        "The sequence of empirical maximisers has a convergent subsequence and its limit attains the supremum on the compact parameter set",
        {"compactness-arguments"},
    ),
    (
        "Suppose the optimal arm is pulled fewer than T/2 times; derive a contradiction with the elimination rule",
        {"proof-by-contradiction"},
    ),
    (
        "Peeling over geometric scales 2^k of the number of samples to get a law-of-iterated-logarithm style bound",
        {"union-bound-and-peeling", "concentration-inequalities"},
    ),
    (
        "Exponential weights regret: log(W_{T+1}/W_1) is at most eta sum losses plus eta^2 T / 8, using Hoeffding's lemma",
        {"concentration-inequalities", "telescoping-sums", "convexity-and-jensen"},
    ),
    (
        "Chernoff bound for a sum of independent Bernoulli variables with mean mu: P(S >= (1+delta) mu) <= exp(-delta^2 mu / 3)",
        {"concentration-inequalities"},
    ),
    (
        "Split the main theorem into a per-arm pull-count lemma and a regret decomposition lemma, proved bottom-up",
        {"lemma-decomposition"},
    ),
    (
        "Check the proof: every inequality step names its lemma, constants are tracked, and no case is missing",
        {"proof-review-checklist"},
    ),
    (
        "Simulate the policy over 100 seeds, report mean regret with standard errors, and compare with the theoretical bound",
        {"experiment-habits"},
    ),
    ("Find prior work on Thompson sampling regret bounds and identify the gap in the literature", {"survey-habits"}),
]


def pairs(injector: SkillInjector, skills: list, strategy: str) -> tuple[list[float], list[float], list[str]]:
    related, unrelated, misses = [], [], []
    for task, wanted in TASKS:
        scores = injector._scores(task, skills, strategy)  # noqa: SLF001 - raw score, prior 1.0
        for skill, score in zip(skills, scores, strict=True):
            # seed skills are unused: prior is exactly 1.0, so score == relevance (0 below floor)
            rel = injector.relevance(task, skill, strategy)
            (related if skill.meta.name in wanted else unrelated).append(rel)
            if skill.meta.name in wanted and score == 0:
                misses.append(f"{skill.meta.name} <- {task[:60]}")
    return related, unrelated, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    embedder = get_embedder(args.embedder)
    skills = [load_skill_file(p / "SKILL.md") for p in sorted(SEED.iterdir()) if (p / "SKILL.md").is_file()]
    injector = SkillInjector(registry=None, embedder=embedder)  # type: ignore[arg-type]
    print(f"embedder {embedder.name}")
    print(f"tasks {len(TASKS)}")
    print(f"seed_skills {len(skills)}")
    for strategy in ("hybrid", "semantic", "tag"):
        related, unrelated, misses = pairs(injector, skills, strategy)
        r, u = np.array(related), np.array(unrelated)
        floor = MIN_RELEVANCE[strategy]
        for label, arr in (("related", r), ("unrelated", u)):
            q = np.quantile(arr, [0.05, 0.25, 0.5, 0.75, 0.9, 0.95])
            print(f"{strategy}_{label}_pairs {len(arr)}")
            print(f"{strategy}_{label}_min {arr.min():.3f}")
            for name, value in zip(("p05", "p25", "p50", "p75", "p90", "p95"), q, strict=True):
                print(f"{strategy}_{label}_{name} {value:.3f}")
            print(f"{strategy}_{label}_max {arr.max():.3f}")
        suggested = next(f / 100 for f in range(1, 100) if (u >= f / 100).mean() <= UNRELATED_SHARE)
        print(f"{strategy}_suggested_floor {suggested:.2f}")
        print(f"{strategy}_floor {floor:.3f}")
        print(f"{strategy}_related_kept_share {(r >= floor).mean():.3f}")
        print(f"{strategy}_unrelated_kept_share {(u >= floor).mean():.3f}")
        print(f"{strategy}_old_floor_0.05_unrelated_kept_share {(u >= 0.05).mean():.3f}")
        if args.show_misses:
            for miss in misses:
                print(f"# {strategy} miss: {miss}")


if __name__ == "__main__":
    main()
