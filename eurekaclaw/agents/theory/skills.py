"""Skills and tools for the proof writers: the few relevant skills (top-k above the measured
relevance floor, within the token budget shared with memories — skills/prompt_budget.py) and
the domain plugin's tools."""

from __future__ import annotations

import logging

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.skills.prompt_budget import OfferedSkills, lemma_task, offer_skills
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import LemmaNode

log = logging.getLogger(__name__)

# After the writer's own role: skills written for any prover, then for the theory stage.
FALLBACK_ROLES = ("prover", "theory")

Skills = OfferedSkills  # the name the theory agents use


def skill_roles(role: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((role, *FALLBACK_ROLES)))


def skills_for(ctx: AgentContext, lemma: LemmaNode, role: str = "prover", memory_hints: str = "") -> Skills:
    """Skills for `role` (prover or refiner) working on `lemma`; `memory_hints` is the hints
    block already in the prompt, which shares the budget."""
    return offer_skills(
        ctx.services,
        ctx.settings.memory_skill_token_budget,
        skill_roles(role),
        lemma_task(lemma.informal, lemma.statement),
        used=(memory_hints,),
    )


def domain_tool_names(ctx: AgentContext) -> list[str]:
    """The tools the domain plugin registered (not the literature tools): the prover may use
    them to compute or simulate while it works."""
    if ctx.plugin is None:
        return []
    scratch = ToolRegistry()
    try:
        ctx.plugin.register_tools(scratch)
    except Exception as exc:
        log.warning("domain plugin %s could not list its tools: %s", ctx.plugin.name, exc)
        return []
    return [n for n in scratch.names() if ctx.tools.get(n) is not None]
