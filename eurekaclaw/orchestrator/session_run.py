"""SessionRun: one session in progress, as the orchestrator's steps share it (the stage loop,
one stage's attempts, a pivot, a revision's re-run), instead of half a dozen loose arguments."""

from __future__ import annotations

from dataclasses import dataclass

from eurekaclaw.agents.base import AgentContext, EventSink
from eurekaclaw.config import Settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.tasks import InputSpec, PipelineState


@dataclass
class SessionRun:
    # the agents' context: settings (after any backend profile), the bus, the models, services
    ctx: AgentContext
    session: SessionDir
    pipeline: PipelineState
    spec: InputSpec
    # the event sink: the session log and the live display (the agents report through it too)
    events: EventSink
    gate_mode: str = "none"
    # entered through `resume`: an interrupted stage continues from its checkpoint
    resume: bool = False

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    @property
    def bus(self) -> KnowledgeBus:
        return self.ctx.bus

    def save_pipeline(self) -> None:
        self.bus.put_pipeline(self.pipeline)
