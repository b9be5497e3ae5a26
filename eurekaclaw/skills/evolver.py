"""SkillEvolver: new skills distilled from one session's failures and successes.

The fast model sees the session's failed attempts (deduplicated) and its proofs (each
compressed to about 300 characters) and returns reusable strategies as structured output.
Each valid one is written to the user skill dir with source "distilled". A distilled skill
never overwrites a skill the user wrote or installed: it takes a "-distilled" name instead.

A skill carries the provenance of its session (SkillProvenance). When that session did not
establish its result, the skill is marked so in its front matter and its body opens with a
warning — the body is what reaches a prover's prompt. When a result of the session is later
refuted, flag_retracted_skills marks its skills retracted and the registry stops offering them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, field_validator

from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.memory.text import normalize_whitespace, slugify
from eurekaclaw.templates import render_prompt
from eurekaclaw.types.artifacts import VerificationLevel
from eurekaclaw.types.skills import SkillMeta, SkillRecord

if TYPE_CHECKING:
    from eurekaclaw.llm.session_client import SessionLLM
    from eurekaclaw.skills.registry import SkillRegistry

log = logging.getLogger(__name__)

SUCCESS_CHARS = 300
MAX_FAILURES = 12
MAX_SUCCESSES = 8
MAX_SKILLS = 4
MAX_COUNTEREXAMPLES = 8
MAX_VIOLATIONS = 4
# Default reply limit of a Learn-stage call (Settings.max_tokens_learn overrides it): up to
# four skills of 3-8 steps each, as JSON, take about 2-3k tokens.
MAX_TOKENS = 4096
NAME_LIMIT = 64  # skills/format.py NAME_RE
DISTILLED_SUFFIX = "-distilled"
MAX_NAME_TRIES = 9
UNVERIFIED_MARK = "> **Unverified.**"
RETRACTED_MARK = "> **Retracted.**"


@dataclass(frozen=True)
class SkillProvenance:
    """The session a skill is distilled from and how far its result can be trusted."""

    source_session: str | None = None
    session_status: str = ""
    established: bool = True
    verification_level: VerificationLevel | None = None
    self_reviewed: bool = False
    note: str = ""  # why the session's result is not established
    shown_false: bool = False  # a claim of the session was refuted/contradicted


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


def _warning(provenance: SkillProvenance) -> str:
    session = f"session {provenance.source_session}" if provenance.source_session else "a session"
    why = f" ({provenance.note})" if provenance.note else ""
    return (
        f"{UNVERIFIED_MARK} Distilled from {session}, whose result was not established{why}. "
        "Its steps were not checked independently: verify each one before relying on it."
    )


class SkillEvolver:
    def __init__(
        self,
        llm: SessionLLM,
        registry: SkillRegistry,
        *,
        domain: str = "general",
        provenance: SkillProvenance | None = None,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        self.llm = llm
        self.registry = registry
        self.domain = domain
        self.provenance = provenance or SkillProvenance()
        self.max_tokens = max_tokens
        self.skipped: list[tuple[str, str]] = []

    async def distill_from_session(
        self,
        failures: list[str],
        successes: list[str],
        counterexamples: list[str] | None = None,
        violations: list[str] | None = None,
    ) -> list[SkillRecord]:
        """Ask the fast model for reusable strategies and upsert them as distilled skills.

        `failures` carry the checkers' verdicts; `counterexamples` are points where a lemma was
        shown false, `violations` bounds the experiment violated — the sharpest lessons of a
        session, shown to the model as pitfalls to learn from. The proofs of a session whose
        claim was shown false are not shown: what proved a false statement is not a strategy.
        Raises LLMOutputError when the reply cannot be used (schema-invalid after the repair
        round, or truncated at the reply limit): nothing is stored from a reply that was cut
        off, and the caller records that and carries on. One skill that cannot be stored is
        skipped with a warning; the others are kept.
        """
        prov = self.provenance
        failures = dedupe(failures)[:MAX_FAILURES]
        successes = [] if prov.shown_false else [compress(s) for s in dedupe(successes)][:MAX_SUCCESSES]
        counterexamples = [compress(c, 2 * SUCCESS_CHARS) for c in dedupe(counterexamples or [])][:MAX_COUNTEREXAMPLES]
        violations = [compress(v, 2 * SUCCESS_CHARS) for v in dedupe(violations or [])][:MAX_VIOLATIONS]
        self.skipped = []
        if not failures and not successes and not counterexamples and not violations:
            return []
        prompt = render_learn_prompt(
            "learn_distill_skills",
            domain=self.domain,
            failures=[compress(f, 2 * SUCCESS_CHARS) for f in failures],
            successes=successes,
            counterexamples=counterexamples,
            violations=violations,
            max_skills=MAX_SKILLS,
            established=prov.established,
            session_status=prov.session_status,
            trust_note=prov.note,
            shown_false=prov.shown_false,
        )
        request = fast_request(prompt, DistilledSkills, max_tokens=self.max_tokens)
        reply = await self.llm.structured(request, DistilledSkills)
        stored: list[SkillRecord] = []
        for skill in reply.skills[:MAX_SKILLS]:
            try:
                record = self._store(skill)
            except (ValueError, OSError) as exc:  # one bad skill must not cost the others
                log.warning("distilled skill %r not stored: %s", skill.name, exc)
                self.skipped.append((skill.name, f"could not be stored: {exc}"))
                continue
            if record is not None:
                stored.append(record)
        return stored

    def _free_name(self, base: str) -> str | None:
        """The name a distilled skill called `base` is stored under: `base` itself unless a
        skill the user wrote or installed holds it, then `<base>-distilled`, then
        `<base>-distilled-2` … `-9`, each cut to the name limit. None when all are taken."""
        candidates = [base]
        for n in range(1, MAX_NAME_TRIES + 1):
            suffix = DISTILLED_SUFFIX if n == 1 else f"{DISTILLED_SUFFIX}-{n}"
            candidates.append(base[: NAME_LIMIT - len(suffix)].rstrip("-_") + suffix)
        for name in candidates:
            existing = self.registry.get(name)
            if existing is None or existing.meta.source == "distilled":
                return name
        return None

    def _store(self, skill: DistilledSkill) -> SkillRecord | None:
        name = slugify(skill.name, max_len=NAME_LIMIT, fallback="")
        steps = [s for s in skill.steps if s.strip()]
        if not name:
            self.skipped.append((skill.name, "no usable name"))
            return None
        if len(steps) < 2 or not (skill.description.strip() or skill.when_to_use.strip()):
            self.skipped.append((name, "too thin to be a skill (needs a description and two steps)"))
            return None
        free = self._free_name(name)
        if free is None:
            self.skipped.append((name, "every distilled variant of the name is held by another skill"))
            return None
        name = free
        existing = self.registry.get(name)
        version = "1.0"
        if existing is not None and existing.meta.source == "distilled":
            version = _bump(existing.meta.version)
        tags = [slugify(t, max_len=32, fallback="") for t in skill.tags]
        tags = list(dict.fromkeys([t for t in tags if t][:6] + ["distilled"]))
        prov = self.provenance
        meta = SkillMeta(
            name=name,
            version=version,
            tags=tags,
            agent_roles=["prover", "refiner"],
            pipeline_stages=["theory"],
            description=normalize_whitespace(skill.description or skill.when_to_use)[:300],
            source="distilled",
            source_session=prov.source_session,
            session_status=prov.session_status,
            established=prov.established,
            verification_level=prov.verification_level if prov.established else "unverified",
            self_reviewed=prov.self_reviewed,
        )
        clean = skill.model_copy(update={"name": name, "steps": steps})
        body = skill_body(clean)
        if not prov.established:
            body = f"{_warning(prov)}\n\n{body}"
        return self.registry.upsert(SkillRecord(meta=meta, body=body))


def flag_retracted_skills(registry: SkillRegistry, sessions: Iterable[str], reason: str) -> list[str]:
    """Mark retracted every distilled skill learned in one of `sessions` (a result of theirs was
    refuted or contradicted): the front matter says so, the body opens with the reason, and
    the registry no longer offers the skill to agents. Returns the names flagged."""
    wanted = {s for s in sessions if s}
    flagged: list[str] = []
    if not wanted:
        return flagged
    for record in registry.list():
        meta = record.meta
        if meta.source != "distilled" or meta.source_session not in wanted or record.origin != "user":
            continue
        if meta.retracted and reason in meta.retraction:
            continue
        retraction = f"{meta.retraction}; {reason}" if meta.retraction else reason
        body = record.body
        if not body.startswith(RETRACTED_MARK):
            body = (
                f"{RETRACTED_MARK} A result of the session this skill was distilled from was later "
                f"shown false ({compress(reason, 200)}). Do not rely on it.\n\n{body}"
            )
        new_meta = meta.model_copy(update={"retracted": True, "retraction": retraction, "established": False})
        registry.upsert(SkillRecord(meta=new_meta, body=body))
        flagged.append(meta.name)
    return flagged


def _bump(version: str) -> str:
    head, _, minor = version.rpartition(".")
    if head and minor.isdigit():
        return f"{head}.{int(minor) + 1}"
    return f"{version}.1"
