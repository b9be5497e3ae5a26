"""BaseAgent and the context every agent receives.

An agent reads its inputs from the KnowledgeBus, writes its outputs back, and logs what it does
to episodic memory. Prompts live in templates (eurekaclaw/templates/prompts/*.j2) so a user can
read exactly what the model is told.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from eurekaclaw.config import Settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.llm.types import LLMRequest, Message, ModelTier
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.base import ToolRegistry

if TYPE_CHECKING:
    from eurekaclaw.domains import DomainPlugin
    from eurekaclaw.memory.manager import MemoryManager
    from eurekaclaw.skills.injector import SkillInjector
    from eurekaclaw.skills.registry import SkillRegistry
    from eurekaclaw.store.session import SessionDir, Workspace
    from eurekaclaw.tools.literature.service import LiteratureService

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


class EventSink(Protocol):
    """Where agents report progress (the orchestrator shows it and writes events.jsonl)."""

    def __call__(self, kind: str, **data: Any) -> None: ...


def _no_events(kind: str, **data: Any) -> None:
    return None


@dataclass
class Services:
    """What the orchestrator attaches to a session beside the LLM and the tools. Each may be
    absent (None): a stage without memory or skills still runs, it just has less help."""

    memory: MemoryManager | None = None
    skill_registry: SkillRegistry | None = None
    skill_injector: SkillInjector | None = None
    # The session's `<memories>` block, added to every agent's system prompt ("" for none).
    memories_block: str = ""
    # A literature service the caller owns (tests, a shared pool); else the survey builds one.
    literature: LiteratureService | None = None
    # The user's own guidance for a re-run (`review --revise` feedback), shown to the agents that
    # do the work but never to a reviewing role: a reviewer judges the proof, not the request.
    guidance: str = ""


@dataclass
class AgentContext:
    session_id: str
    settings: Settings
    bus: KnowledgeBus
    llm: SessionLLM
    tools: ToolRegistry
    episodic: EpisodicMemory
    workspace: Workspace | None = None
    session: SessionDir | None = None
    domain: str = "general"
    plugin: DomainPlugin | None = None
    events: EventSink = _no_events
    services: Services = field(default_factory=Services)
    # The reviewers' model when one is configured (REVIEW_LLM / --review-llm); else reviews
    # come from `llm`, the model that wrote the proofs, and are recorded as self-reviews.
    review_llm: SessionLLM | None = None

    def reviewer(self) -> SessionLLM:
        return self.review_llm or self.llm

    def self_review(self) -> bool:
        return self.reviewer().identity() == self.llm.identity()

    def checkpoint(self, **data: Any) -> None:
        """Persist the stage-internal position (e.g. the theory loop's lemma) for resume."""
        if self.session is None:
            return
        current = self.session.load_checkpoint()
        current.update(data)
        self.session.save_checkpoint(current)


class BaseAgent:
    """An LLM role: its prompts, its client (the review model for a reviewing role) and its
    episodic log. What an agent does is its own named methods, called by its stage."""

    role: str = "agent"
    max_tokens_key: str = "default"
    reviews: bool = False  # a reviewing role asks the review model when one is configured

    def __init__(self, ctx: AgentContext) -> None:
        self.ctx = ctx

    # --- helpers for subclasses -------------------------------------------------------------
    def log(self, content: str, **metadata: Any) -> None:
        self.ctx.episodic.log_event(self.role, content, metadata)

    def system_dynamic(self) -> str:
        """Per-call system text: domain hint, memories and skills where services provide them."""
        parts = []
        plugin = self.ctx.plugin
        if plugin is not None:
            hint = plugin.get_workflow_hint().strip()
            if hint:
                parts.append(f'<domain name="{plugin.name}">\n{hint}\n</domain>')
        if self.ctx.services.memories_block:
            parts.append(self.ctx.services.memories_block)
        if self.ctx.services.guidance and not self.reviews:
            parts.append(self.ctx.services.guidance)
        return "\n\n".join(parts)

    def request(
        self,
        prompt: str,
        *,
        system: str | None = None,
        output: type[BaseModel] | None = None,
        tier: ModelTier = "main",
        max_tokens: int | None = None,
        extra_system: str = "",
        lemma_id: str | None = None,
    ) -> LLMRequest:
        dynamic = "\n\n".join(p for p in (self.system_dynamic(), extra_system) if p)
        return LLMRequest(
            role=self.role,
            system_stable=system if system is not None else render_prompt(f"{self.role}_system"),
            system_dynamic=dynamic,
            messages=[Message(role="user", content=prompt)],
            output=output,
            tier=tier,
            max_tokens=max_tokens or self.ctx.settings.max_tokens_for(self.max_tokens_key),
            lemma_id=lemma_id,
        )

    @property
    def client(self) -> SessionLLM:
        return self.ctx.reviewer() if self.reviews else self.ctx.llm

    def identity(self) -> str:
        return self.client.identity()

    async def ask_structured(self, request: LLMRequest, output: type[M]) -> M:
        self.log(f"asks for {output.__name__}", lemma_id=request.lemma_id)
        result = await self.client.structured(request, output)
        self.log(f"received {output.__name__}", lemma_id=request.lemma_id)
        return result
