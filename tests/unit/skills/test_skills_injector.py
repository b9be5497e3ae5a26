"""SkillInjector: relevance × success prior, role filter, k and the token budget."""

from __future__ import annotations

import pytest
from skillkit import write_skill

from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.skills.format import estimate_tokens
from eurekaclaw.skills.injector import SkillInjector, render_skill, success_prior
from eurekaclaw.skills.registry import SkillRegistry

FILLER = " ".join(["Further remarks on applying the technique."] * 20)


@pytest.fixture
def registry(tmp_path) -> SkillRegistry:
    user = tmp_path / "user"
    write_skill(
        user,
        "martingale-tail",
        tags=("martingale", "azuma", "concentration"),
        description="Azuma-Hoeffding for martingale differences",
        body="Centre the increments, bound them, apply Azuma-Hoeffding to the martingale. " + FILLER,
    )
    write_skill(
        user,
        "telescoping",
        tags=("telescoping", "potential", "sum"),
        description="Collapse sums of potential differences",
        body="Write each term as a difference of a potential and sum. " + FILLER,
    )
    write_skill(
        user,
        "kl-lower-bound",
        tags=("kl-divergence", "lower-bound", "change-of-measure"),
        description="Lower bounds by change of measure",
        body="Two instances, divergence decomposition, Bretagnolle-Huber. " + FILLER,
    )
    write_skill(
        user,
        "paper-style",
        tags=("writing", "latex"),
        roles=("writer",),
        description="Write theorem statements with explicit constants",
        body="Explicit constants; amsthm. " + FILLER,
    )
    return SkillRegistry(user, builtin_dir=tmp_path / "none")


def names(skills):
    return [s.meta.name for s in skills]


TASK = "Bound the martingale of regret increments with Azuma-Hoeffding (bounded differences)"


def test_most_relevant_skill_first_for_every_strategy(registry):
    inj = SkillInjector(registry, HashingEmbedder())
    for strategy in ("tag", "semantic", "hybrid"):
        chosen = inj.top_k(TASK, "prover", k=3, strategy=strategy)
        assert names(chosen)[0] == "martingale-tail", strategy
    lower = inj.top_k("a regret lower bound via KL divergence and change of measure", "prover", k=1)
    assert names(lower) == ["kl-lower-bound"]
    with pytest.raises(ValueError):
        inj.top_k(TASK, "prover", strategy="random")  # type: ignore[arg-type]


def test_role_filter_and_irrelevant_tasks(registry):
    inj = SkillInjector(registry, HashingEmbedder())
    assert "paper-style" not in names(inj.top_k("write theorem statements with explicit constants", "prover"))
    assert names(inj.top_k("write theorem statements with explicit constants", "writer")) == ["paper-style"]
    assert inj.top_k("", "prover") == []
    assert inj.top_k(TASK, "prover", k=0) == []


def test_success_prior_reorders_equally_relevant_skills(tmp_path):
    user = tmp_path / "user"
    body = "Peel the horizon into geometric blocks and union bound over blocks. " + FILLER
    write_skill(user, "peeling-a", tags=("peeling", "union-bound"), description="peeling", body=body)
    write_skill(user, "peeling-b", tags=("peeling", "union-bound"), description="peeling", body=body)
    reg = SkillRegistry(user, builtin_dir=tmp_path / "none")
    inj = SkillInjector(reg, HashingEmbedder())
    task = "peeling union bound over geometric blocks"
    # tag relevance ties exactly (the names differ only in a one-letter word) → by name
    assert names(inj.top_k(task, "prover", k=2, strategy="tag")) == ["peeling-a", "peeling-b"]
    for _ in range(3):
        reg.update_stats("peeling-a", False)
        reg.update_stats("peeling-b", True)
    assert names(inj.top_k(task, "prover", k=2, strategy="tag")) == ["peeling-b", "peeling-a"]
    a, b = reg.get("peeling-a"), reg.get("peeling-b")
    assert success_prior(b) > 1.0 > success_prior(a) >= 0.5
    # the prior is (n·rate + 1)/(n + 2) + 0.5: three failures from scratch → rate 0, prior 0.7
    assert success_prior(a) == pytest.approx(0.5 + 1 / 5)


def test_token_budget_and_k(registry):
    inj = SkillInjector(registry, HashingEmbedder())
    one = estimate_tokens(render_skill(registry.get("martingale-tail")))
    every = "martingale Azuma concentration, telescoping potential sum, KL divergence lower bound"
    assert len(inj.top_k(every, "prover", k=5, token_budget=10_000)) == 3
    assert len(inj.top_k(every, "prover", k=5, token_budget=2 * one + 20)) == 2
    assert len(inj.top_k(TASK, "prover", k=1, token_budget=10_000)) == 1
    tight = inj.top_k(TASK, "prover", k=5, token_budget=one + 20)
    assert names(tight) == ["martingale-tail"]
    rendered = inj.render_for_prompt(tight)
    assert estimate_tokens(rendered) <= one + 20
    assert inj.top_k(TASK, "prover", k=5, token_budget=one // 2) == []


def test_render_for_prompt(registry):
    inj = SkillInjector(registry, HashingEmbedder())
    chosen = inj.top_k(TASK, "prover", k=2)
    block = inj.render_for_prompt(chosen)
    assert block.startswith('<skills>\n<skill name="martingale-tail">\n')
    assert block.endswith("</skill>\n</skills>")
    assert block.count("<skill name=") == len(chosen)
    assert inj.render_for_prompt([]) == ""


def test_seed_skills_are_ranked_sensibly(tmp_path):
    reg = SkillRegistry(tmp_path / "user")
    inj = SkillInjector(reg, HashingEmbedder())
    cases = {
        "Azuma-Hoeffding bound for the martingale of regret increments": "martingale-arguments",
        "Any consistent algorithm must pull a suboptimal arm log T / KL times (lower bound)": "change-of-measure",
        "The minimum of a continuous function on a closed bounded set is attained": "compactness-arguments",
    }
    for task, expected in cases.items():
        chosen = inj.top_k(task, "prover")
        assert names(chosen)[0] == expected, task
        assert 1 <= len(chosen) <= 5
        assert estimate_tokens(inj.render_for_prompt(chosen)) <= 1500
