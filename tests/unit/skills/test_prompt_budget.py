"""Issue 18 item 6: skills offered to every role they are written for, above the measured
relevance floor, within one token budget shared with memories; memories for sessions without a
statement; memory hints kept to their own domain and counterexamples read back."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from skillkit import write_skill

from eurekaclaw.agents.base import Services
from eurekaclaw.agents.formalize.memory_hints import memory_hints
from eurekaclaw.agents.learn.services import (
    memories_block_for,
    session_memories_block,
    session_memory_query,
    watch_session_papers,
)
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.skills.injector import MIN_RELEVANCE, SkillInjector
from eurekaclaw.skills.prompt_budget import (
    memory_share,
    offer_skills,
    skills_block,
    tokens,
    trim_lines_to_tokens,
)
from eurekaclaw.skills.registry import SkillRegistry
from eurekaclaw.types.artifacts import Bibliography, Paper
from eurekaclaw.types.memory import DomainInsight

BANDIT = (
    "Regret of UCB1 on a K-armed stochastic bandit with sub-Gaussian rewards: "
    "the number of pulls of a suboptimal arm is at most 8 log T / Delta^2"
)


@pytest.fixture
def seeds(tmp_path) -> SkillInjector:
    """The built-in seed skills, the built-in hashing embedder (the one the floor was measured on)."""
    return SkillInjector(SkillRegistry(tmp_path / "user"), HashingEmbedder())


def ctx_with(injector, budget: int = 2000, memories_block: str = ""):
    return SimpleNamespace(
        settings=load_settings(memory_skill_token_budget=budget),
        services=Services(skill_injector=injector, memories_block=memories_block),
    )


@pytest.mark.parametrize(
    ("role", "skill"),
    [
        ("survey", "survey-habits"),
        ("verifier", "proof-review-checklist"),
        ("writer", "theorem-proof-style"),
        ("experiment", "experiment-habits"),
        ("formalizer", "lemma-decomposition"),
    ],
)
def test_every_role_is_offered_the_seed_skill_written_for_it(seeds, role, skill):
    block = skills_block(ctx_with(seeds), role, BANDIT)
    assert f"{skill}" in block, role


def test_a_role_gets_only_skills_written_for_it(seeds):
    block = skills_block(ctx_with(seeds), "survey", BANDIT)
    assert "survey-habits" in block
    for other in ("theorem-proof-style", "proof-review-checklist", "experiment-habits"):
        assert other not in block


def test_unrelated_skills_are_not_offered_to_the_prover(seeds):
    offered = offer_skills(ctx_with(seeds).services, 2000, ("prover", "theory"), BANDIT)
    assert "compactness-arguments" not in offered.names
    assert "covering-and-epsilon-nets" not in offered.names
    # everything offered clears the floor: the old 0.05 floor let 3-4 unrelated skills through
    for name in offered.names:
        record = seeds.registry.get(name)
        assert seeds.relevance(BANDIT, record) >= MIN_RELEVANCE["hybrid"], name


def test_no_topic_no_skills(seeds):
    assert skills_block(ctx_with(seeds), "writer", "   ") == ""
    assert skills_block(SimpleNamespace(settings=load_settings(), services=Services()), "writer", BANDIT) == ""


RICH = (
    BANDIT + ": a union bound over arms and peeling over epochs, Hoeffding's concentration "
    "inequality for the empirical means, and a telescoping sum of the per-round regret"
)


def test_skills_take_only_what_the_memories_left_of_the_budget(seeds):
    full = offer_skills(ctx_with(seeds).services, 2000, ("prover", "theory"), RICH)
    assert len(full.names) >= 2
    memories = "<memories>\n" + "An insight about regret and pull counts.\n" * 160 + "</memories>"
    used = tokens(memories)
    assert 1000 < used < 2000
    squeezed = offer_skills(ctx_with(seeds, memories_block=memories).services, 2000, ("prover", "theory"), RICH)
    assert tokens(memories) + tokens(squeezed.block) <= 2000
    assert len(squeezed.names) < len(full.names)
    hints = "Strategies that failed before:\n" + "- a failed strategy about union bounds\n" * 200
    none_left = offer_skills(ctx_with(seeds, memories_block=memories).services, 2000, ("prover",), RICH, used=(hints,))
    assert none_left.names == [] and none_left.block == ""


def test_a_broken_skill_store_costs_the_skills_not_the_run(tmp_path):
    class Broken(SkillInjector):
        def top_k(self, *a, **k):
            raise OSError("unreadable SKILL.md")

    broken = Broken(SkillRegistry(tmp_path / "user"), HashingEmbedder())
    assert offer_skills(Services(skill_injector=broken), 2000, "prover", BANDIT).names == []


def test_trim_keeps_whole_lines_says_so_and_drops_orphan_headings():
    text = "Heading one:\n- " + "a " * 30 + "\nHeading two:\n- " + "b " * 400
    cut = trim_lines_to_tokens(text, 40)
    assert tokens(cut) <= 40
    assert cut.splitlines()[0] == "Heading one:" and cut.endswith("(more memories left out: token budget)")
    assert "Heading two:" not in cut
    assert trim_lines_to_tokens("short", 40) == "short"
    assert trim_lines_to_tokens("Only a heading:\n- " + "x " * 400, 5) == ""


# --- memories: budget, sessions without a statement ---------------------------------------------


def insight(title: str, content: str) -> DomainInsight:
    return DomainInsight(
        domain="mab",
        category="proof_strategy",
        title=title,
        content=content,
        confidence=0.9,
        established=True,
        verification_level="smt",
        session_status="proved",
    )


@pytest.fixture
def memory(tmp_path) -> MemoryManager:
    mm = MemoryManager(tmp_path / "ws", "s0", HashingEmbedder())
    mm.save_insight(
        insight(
            "Peeling for UCB",
            "Peel the horizon into geometric epochs to bound UCB pull counts. "
            + "Detail on the epochs and the union bound. " * 20,
        )
    )
    mm.save_insight(
        insight(
            "Thompson posterior",
            "For Thompson sampling bound the posterior sample's "
            "deviation with a Beta tail. " + "More on Beta tails. " * 20,
        )
    )
    mm.save_insight(
        insight(
            "KL lower bound", "Change of measure gives the Lai-Robbins lower bound. " + "More on divergences. " * 20
        )
    )
    return mm


def test_the_memories_block_is_cut_to_its_share(memory):
    whole = memories_block_for(memory, "mab", "UCB pull counts")
    assert whole.count("Peeling for UCB") == 1 and tokens(whole) > 300
    cut = memories_block_for(memory, "mab", "UCB pull counts", token_budget=300)
    assert 0 < tokens(cut) <= 300
    assert "Peeling for UCB" in cut  # the least relevant are dropped first
    assert memory_share(2000) == 1000


def test_a_session_without_a_statement_still_gets_memories(memory, tmp_path):
    assert session_memory_query("", "mab", titles=[]).strip()  # never empty
    assert memory.load_for_injection("mab", k=4, query="") != []
    bus = KnowledgeBus("s1", tmp_path / "session")
    ctx = SimpleNamespace(
        bus=bus,
        domain="mab",
        plugin=None,
        settings=load_settings(memory_skill_token_budget=2000),
        services=Services(memory=memory),
    )
    # before any paper: chosen by the domain (build_services), never "nothing"
    ctx.services.memories_block = session_memories_block(memory, "mab", "")
    assert "<memories>" in ctx.services.memories_block
    watch_session_papers(ctx, "")
    bus.put_bibliography(
        Bibliography(
            papers=[
                Paper(paper_id="arxiv:1", title="Analysis of Thompson sampling for the multi-armed bandit problem"),
            ]
        )
    )
    block = ctx.services.memories_block
    # chosen by the papers once the survey has them: the Thompson insight comes first
    assert block.startswith("<memories>")
    assert block.index("Thompson posterior") < block.index("Peeling for UCB")
    assert block.index("Thompson posterior") < block.index("KL lower bound")


def test_a_session_with_a_statement_is_not_rechosen(memory, tmp_path):
    bus = KnowledgeBus("s1", tmp_path / "session")
    ctx = SimpleNamespace(
        bus=bus,
        domain="mab",
        plugin=None,
        settings=load_settings(),
        services=Services(memory=memory, memories_block="<memories>kept</memories>"),
    )
    watch_session_papers(ctx, "UCB1 pull counts are logarithmic")
    bus.put_bibliography(Bibliography(papers=[Paper(paper_id="arxiv:1", title="Thompson sampling")]))
    assert ctx.services.memories_block == "<memories>kept</memories>"


# --- memory hints: one domain's failures and counterexamples ---------------------------------------


async def test_hints_show_this_domains_failures_and_counterexamples_only(memory):
    memory.remember(
        "theory.failed_strategies.mab", ["Hoeffding without a union bound over arms"], tags=["failed_strategy"]
    )
    memory.remember("theory.failed_strategies.graphs", ["Induction on the number of edges"], tags=["failed_strategy"])
    memory.remember(
        "theory.counterexamples.mab", ["constant regret for UCB1 — false at Delta=0.01, T=1e5"], tags=["counterexample"]
    )
    memory.remember(
        "theory.counterexamples.graphs", ["every planar graph is 3-colourable — false at K4"], tags=["counterexample"]
    )
    ctx = SimpleNamespace(
        domain="mab", settings=load_settings(theory_pipeline="memory_guided"), services=Services(memory=memory)
    )
    hints = await memory_hints(ctx, "UCB1 regret union bound")
    assert "Hoeffding without a union bound" in hints
    assert "constant regret for UCB1" in hints and "Counterexamples found" in hints
    assert "edges" not in hints and "planar" not in hints
    assert tokens(hints) <= memory_share(load_settings().memory_skill_token_budget)


async def test_hints_do_not_repeat_insights_already_in_the_memories_block(memory):
    block = memories_block_for(memory, "mab", "UCB pull counts")
    ctx = SimpleNamespace(
        domain="mab",
        settings=load_settings(theory_pipeline="memory_guided"),
        services=Services(memory=memory, memories_block=block),
    )
    hints = await memory_hints(ctx, "UCB pull counts")
    for title in ("Peeling for UCB", "Thompson posterior", "KL lower bound"):
        if title in block:
            assert title not in hints


def test_written_skill_for_two_roles_is_not_offered_twice(tmp_path):
    user = tmp_path / "user"
    write_skill(
        user,
        "regret-peeling",
        tags=("regret", "ucb", "peeling"),
        roles=("prover", "theory"),
        description="Peel the horizon to bound UCB regret and pull counts",
        body="Split the horizon into epochs; union bound per epoch; sum the geometric series.",
    )
    inj = SkillInjector(SkillRegistry(user, builtin_dir=tmp_path / "none"), HashingEmbedder())
    offered = offer_skills(Services(skill_injector=inj), 2000, ("prover", "theory"), BANDIT)
    assert offered.names == ["regret-peeling"]  # picked for "prover", not again for "theory"
    assert offered.block.count("Split the horizon into epochs") == 1
