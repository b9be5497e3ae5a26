"""The Stage contract the orchestrator runs. Each stage sub-package (agents/<stage>/) exposes
one Stage subclass; orchestrator/stages.py registers them, and the orchestrator's stage graph is
built from what the classes declare here: the artifacts (bus keys) a stage needs and produces,
whether `review --revise` may run it again, whether an `explore` direction may hand over before
it, and the transition it returns after a run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Literal

from pydantic import BaseModel

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.transitions import NEXT, Transition
from eurekaclaw.types.tasks import InputSpec


class StageOutcome(BaseModel):
    """completed: did its job; partial: produced output but not everything it should (e.g. an
    unproved theorem); failed: nothing usable (the orchestrator may retry); skipped: not needed."""

    status: Literal["completed", "partial", "failed", "skipped"]
    summary: str = ""
    reason: str = ""
    # False when trying again cannot help (e.g. none of the requested papers exists)
    retryable: bool = True


class Stage(ABC):
    # A str, not the built-ins' Literal: a new stage is one module plus its registration.
    name: str
    # Bus keys whose content this stage's output is built from (read, required or not). What a
    # stage needs is what makes it stale when an earlier stage runs again.
    needs: ClassVar[tuple[str, ...]] = ()
    # Bus keys this stage writes; a damaged one is made again by its first producer on resume.
    produces: tuple[str, ...] = ()
    # `review --revise` may run this stage again on a copy of a finished session.
    rerunnable: ClassVar[bool] = False
    # `explore`: a direction that ended (refuted, abandoned, contradicted) hands over to the next
    # one before this stage runs.
    pivot_point: ClassVar[bool] = False
    # Its output describes the whole finished session (e.g. its lessons): whatever ran before it
    # running again makes that output stale, whether or not it reads the changed artifact.
    reads_finished_session: ClassVar[bool] = False

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        """A reason to skip when what this stage needs is not on the bus, else None."""
        return None

    @abstractmethod
    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        """Do the stage's work. With resume=True, continue from ctx.session's checkpoint."""

    @classmethod
    def transition(cls, ctx: AgentContext, spec: InputSpec) -> Transition:
        """Where the pipeline goes after this stage ran (its record is final). A class method:
        the transition belongs to the declared graph, so it holds for whatever implementation
        runs the stage (tests swap implementations, never the graph)."""
        return NEXT
