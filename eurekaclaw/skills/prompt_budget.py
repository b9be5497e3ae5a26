"""One token budget per prompt, shared by what memory and skills add to it.

Every agent's system prompt carries the session's `<memories>` block (agents/base.py); the
Formalizer and the proof writers also carry memory hints (THEORY_PIPELINE=memory_guided); and
each role is offered the skills written for it. All of that together stays within
MEMORY_SKILL_TOKEN_BUDGET (Settings.memory_skill_token_budget, default 2,000 tokens):

    memories block   at most MEMORY_SHARE of the budget (built once per session)
    memory hints     at most what the memories block left of that share
    skills           whatever the memories block and the hints left of the whole budget

Tokens are estimated the way the skill system always has (skills/format.py estimate_tokens,
about four characters per token). A skill is offered only above the injector's measured
relevance floor (skills/injector.py), so a small budget is rarely the limit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.skills.format import estimate_tokens

if TYPE_CHECKING:
    from eurekaclaw.config import Settings
    from eurekaclaw.skills.injector import SkillInjector
    from eurekaclaw.types.skills import SkillRecord

log = logging.getLogger(__name__)

MEMORY_SHARE = 0.5
SKILL_K = 5
DEFAULT_BUDGET = 2000


class PromptServices(Protocol):
    """What skills are offered from: the session's services (agents/base.py `Services`,
    which this layer may not import)."""

    @property
    def skill_injector(self) -> SkillInjector | None: ...

    @property
    def memories_block(self) -> str: ...


class PromptContext(Protocol):
    """The part of an agent's context (agents/base.py `AgentContext`) a skills block needs."""

    @property
    def settings(self) -> Settings: ...

    @property
    def services(self) -> PromptServices: ...


@dataclass
class OfferedSkills:
    names: list[str] = field(default_factory=list)
    block: str = ""


def tokens(*blocks: str) -> int:
    """Estimated tokens of the non-empty blocks."""
    return sum(estimate_tokens(b) for b in blocks if b)


def memory_share(total: int) -> int:
    return int(total * MEMORY_SHARE)


def skills_budget(total: int, *used_blocks: str) -> int:
    """What is left of `total` for skills once the given memory blocks are in the prompt."""
    return max(0, total - tokens(*used_blocks))


def trim_lines_to_tokens(text: str, budget: int) -> str:
    """`text` cut at a line boundary to fit `budget` tokens; a cut block says it was cut.
    Heading lines (ending in ":") left without any item below them are dropped."""
    if tokens(text) <= budget:
        return text
    note = "(more memories left out: token budget)"
    kept: list[str] = []
    for line in text.splitlines():
        if tokens("\n".join([*kept, line, note])) > budget:
            break
        kept.append(line)
    while kept and kept[-1].rstrip().endswith(":"):
        kept.pop()
    return "\n".join([*kept, note]) if kept else ""


def offer_skills(
    services: PromptServices,
    total_budget: int,
    roles: str | Iterable[str],
    task: str,
    *,
    used: Iterable[str] = (),
    k: int = SKILL_K,
) -> OfferedSkills:
    """The relevant skills for the first role in `roles`, then the next… (at most k, no
    duplicates) within what `used` (the memories block, memory hints) left of `total_budget`.
    The session's `<memories>` block (services.memories_block) always counts as used.
    Never raises for a broken skill store: skills help, a run must not stop for them."""
    injector = services.skill_injector
    if injector is None or not (task or "").strip():
        return OfferedSkills()
    role_list = [roles] if isinstance(roles, str) else list(roles)
    budget = skills_budget(total_budget, services.memories_block, *used)
    chosen: list[SkillRecord] = []
    try:
        for role in role_list:
            left = budget - tokens(injector.render_for_prompt(chosen))
            if len(chosen) >= k or left <= 0:
                break
            taken = {c.meta.name for c in chosen}
            picked = injector.top_k(task, role, k=k - len(chosen), strategy="hybrid", token_budget=left)
            chosen.extend(s for s in picked if s.meta.name not in taken)
        block = injector.render_for_prompt(chosen)
        while chosen and tokens(block) > budget:  # wrappers of several roles' picks add up
            chosen.pop()
            block = injector.render_for_prompt(chosen)
    except BudgetExceededError:
        raise
    except Exception as exc:
        log.warning("skill injection for %s failed: %s", "/".join(role_list), exc)
        return OfferedSkills()
    return OfferedSkills(names=[s.meta.name for s in chosen], block=block)


def lemma_task(informal: str, statement: str) -> str:
    """The text a lemma's skills are chosen for (and Learn re-checks their relevance on)."""
    return f"{informal}\n{statement}".strip()


# What an agent of each role is doing, put before its topic when skills are chosen: a skill
# about *how to work* (survey-habits, theorem-proof-style, proof-review-checklist…) matches the
# activity, not the mathematics, and scored 0.00–0.10 on a topic alone (below the floor).
# Keyed by the role's first word, as skills name roles (registry.role_matches).
ROLE_ACTIVITY: dict[str, str] = {
    "survey": "Survey the literature: search for, read and summarise related work and its citations, and find the gap.",
    "formalizer": "Formalize the statement: precise assumptions, a lemma decomposition, a checkable claim per lemma.",
    "verifier": "Review the proof step by step: check every inequality, case and constant.",
    "writer": "Write the paper in theorem-proof style: state each theorem and lemma precisely, then its proof.",
    "experiment": "Design a numerical experiment: simulate over seeds, measure with standard errors, "
    "compare with the bound.",
}


def role_task(role: str, topic: str) -> str:
    activity = ROLE_ACTIVITY.get(role.replace("-", "_").split("_")[0], "")
    return f"{activity}\n{topic}".strip() if topic.strip() else ""


def skills_block(ctx: PromptContext, role: str, topic: str, *, used: Iterable[str] = ()) -> str:
    """The `<skills>` block an agent of `role` adds to its system prompt (`ctx` is its
    AgentContext: services and settings), chosen for what the role does (`ROLE_ACTIVITY`) on
    `topic`; "" when no skill is relevant or there is no topic."""
    total = ctx.settings.memory_skill_token_budget
    return offer_skills(ctx.services, total, role, role_task(role, topic), used=used).block
