"""The Stage contract the orchestrator runs. Each stage sub-package (agents/<stage>/) exposes
one Stage subclass; orchestrator/stages.py lists the ones that exist."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Literal

from pydantic import BaseModel

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.types.tasks import InputSpec, StageName


class StageOutcome(BaseModel):
    """completed: did its job; partial: produced output but not everything it should (e.g. an
    unproved theorem); failed: nothing usable (the orchestrator may retry); skipped: not needed."""

    status: Literal["completed", "partial", "failed", "skipped"]
    summary: str = ""
    reason: str = ""
    # False when trying again cannot help (e.g. none of the requested papers exists)
    retryable: bool = True


class Stage(ABC):
    name: StageName
    produces: tuple[str, ...] = ()

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        """A reason to skip when what this stage needs is not on the bus, else None."""
        return None

    @abstractmethod
    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        """Do the stage's work. With resume=True, continue from ctx.session's checkpoint."""
