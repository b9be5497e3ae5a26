"""SkillEvolver: new skills distilled from one session's failures and successes.

The fast model sees the session's failed attempts (deduplicated) and its proofs (each
compressed to about 300 characters) and returns reusable strategies as structured output.
Each valid one is written to the user skill dir with source "distilled". A distilled skill
never overwrites a skill the user wrote or installed: it takes a "-distilled" name instead.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, field_validator

from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.memory.text import normalize_whitespace, slugify
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.skills import SkillMeta, SkillRecord

if TYPE_CHECKING:
    from eurekaclaw.llm.session_client import SessionLLM
    from eurekaclaw.skills.registry import SkillRegistry

log = logging.getLogger(__name__)

SUCCESS_CHARS = 300
MAX_FAILURES = 12
MAX_SUCCESSES = 8
MAX_SKILLS = 4
MAX_TOKENS = 1024
def render_learn_prompt(name: str, **context: object) -> str:
    """Render templates/prompts/<name>.j2 (the learn_* prompts)."""
    return render_prompt(name, **context)


def fast_request(prompt: str, output: type[BaseModel], max_tokens: int = MAX_TOKENS) -> LLMRequest:
    """A Learn-stage call: the fast model, a bounded reply, structured output."""
    return LLMRequest(
        role="learn",
        system_stable=render_learn_prompt("learn_system"),
        messages=[Message(role="user", content=prompt)],
        output=output,
        tier="fast",
        max_tokens=max_tokens,
    )


class DistilledSkill(BaseModel):
    name: str
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    when_to_use: str = ""
    steps: list[str] = Field(default_factory=list)
    pitfalls: list[str] = Field(default_factory=list)

    @field_validator("tags", "steps", "pitfalls", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        # Small models often send one string where a list belongs.
        if isinstance(value, str):
            return [p.strip() for p in value.replace("\n", ";").split(";") if p.strip()]
        return value


class DistilledSkills(BaseModel):
    skills: list[DistilledSkill] = Field(default_factory=list)


def compress(text: str, limit: int = SUCCESS_CHARS) -> str:
    """Whitespace collapsed and cut at a word boundary to about `limit` characters."""
    text = normalize_whitespace(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def dedupe(items: list[str]) -> list[str]:
    """Drop repeats that differ only in case and whitespace, keeping the first."""
    seen: set[str] = set()
    out = []
    for item in items:
        key = normalize_whitespace(item).lower()
        if key and key not in seen:
            seen.add(key)
            out.append(normalize_whitespace(item))
    return out


def skill_body(skill: DistilledSkill) -> str:
    parts = [f"# {skill.name.replace('-', ' ').capitalize()}", ""]
    if skill.description:
        parts += [skill.description.strip(), ""]
    if skill.when_to_use:
        parts += ["## When to use", skill.when_to_use.strip(), ""]
    parts += ["## Steps", *[f"{i}. {s.strip()}" for i, s in enumerate(skill.steps, 1)], ""]
    if skill.pitfalls:
        parts += ["## Pitfalls", *[f"- {p.strip()}" for p in skill.pitfalls], ""]
    return "\n".join(parts).strip()


class SkillEvolver:
    def __init__(self, llm: SessionLLM, registry: SkillRegistry, *, domain: str = "general") -> None:
        self.llm = llm
        self.registry = registry
        self.domain = domain
        self.skipped: list[tuple[str, str]] = []

    async def distill_from_session(self, failures: list[str], successes: list[str]) -> list[SkillRecord]:
        """Ask the fast model for reusable strategies and upsert them as distilled skills.

        Raises LLMOutputError when the reply cannot be used after the repair round; the
        caller records that and carries on.
        """
        failures = dedupe(failures)[:MAX_FAILURES]
        successes = [compress(s) for s in dedupe(successes)][:MAX_SUCCESSES]
        self.skipped = []
        if not failures and not successes:
            return []
        prompt = render_learn_prompt(
            "learn_distill_skills",
            domain=self.domain,
            failures=[compress(f, 2 * SUCCESS_CHARS) for f in failures],
            successes=successes,
            max_skills=MAX_SKILLS,
        )
        reply = await self.llm.structured(fast_request(prompt, DistilledSkills), DistilledSkills)
        return [r for r in (self._store(s) for s in reply.skills[:MAX_SKILLS]) if r is not None]

    def _store(self, skill: DistilledSkill) -> SkillRecord | None:
        name = slugify(skill.name, max_len=56, fallback="")
        steps = [s for s in skill.steps if s.strip()]
        if not name:
            self.skipped.append((skill.name, "no usable name"))
            return None
        if len(steps) < 2 or not (skill.description.strip() or skill.when_to_use.strip()):
            self.skipped.append((name, "too thin to be a skill (needs a description and two steps)"))
            return None
        existing = self.registry.get(name)
        version = "1.0"
        if existing is not None and existing.meta.source != "distilled":
            name = f"{name}-distilled"
            existing = self.registry.get(name)
        if existing is not None and existing.meta.source == "distilled":
            version = _bump(existing.meta.version)
        tags = [slugify(t, max_len=32, fallback="") for t in skill.tags]
        tags = list(dict.fromkeys([t for t in tags if t][:6] + ["distilled"]))
        meta = SkillMeta(
            name=name,
            version=version,
            tags=tags,
            agent_roles=["prover", "refiner"],
            pipeline_stages=["theory"],
            description=normalize_whitespace(skill.description or skill.when_to_use)[:300],
            source="distilled",
        )
        clean = skill.model_copy(update={"name": name, "steps": steps})
        return self.registry.upsert(SkillRecord(meta=meta, body=skill_body(clean)))


def _bump(version: str) -> str:
    head, _, minor = version.rpartition(".")
    if head and minor.isdigit():
        return f"{head}.{int(minor) + 1}"
    return f"{version}.1"
