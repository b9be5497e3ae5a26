"""Skills and tools for the proof writers: the few relevant skills (budgeted, top-k by
relevance, never all of them) and the domain plugin's tools."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.tools.base import ToolRegistry
from eurekaclaw.types.artifacts import LemmaNode

log = logging.getLogger(__name__)

SKILL_K = 5
SKILL_TOKEN_BUDGET = 1500
# Skills written for the prover, then skills written for the theory stage as a whole.
SKILL_ROLES = ("prover", "theory")


@dataclass
class Skills:
    names: list[str] = field(default_factory=list)
    block: str = ""


def skills_for(ctx: AgentContext, lemma: LemmaNode) -> Skills:
    injector = ctx.services.get("skill_injector")
    if injector is None:
        return Skills()
    task = f"{lemma.informal}\n{lemma.statement}".strip()
    chosen: list = []
    budget = SKILL_TOKEN_BUDGET
    try:
        for role in SKILL_ROLES:
            if len(chosen) >= SKILL_K or budget <= 0:
                break
            picked = injector.top_k(task, role, k=SKILL_K - len(chosen), strategy="hybrid",
                                    token_budget=budget)
            fresh = [s for s in picked if s.meta.name not in {c.meta.name for c in chosen}]
            chosen.extend(fresh)
            budget = SKILL_TOKEN_BUDGET - len(injector.render_for_prompt(chosen)) // 4
        block = injector.render_for_prompt(chosen)
    except BudgetExceededError:
        raise
    except Exception as exc:  # skills help; a broken skill store must not stop the proof
        log.warning("skill injection failed for lemma %s: %s", lemma.id, exc)
        return Skills()
    return Skills(names=[s.meta.name for s in chosen], block=block)


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
