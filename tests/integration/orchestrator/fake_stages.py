"""Small Stage implementations used to test the orchestrator itself (the subject under test is
the MetaOrchestrator; these stages only do observable, deterministic work)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.llm.types import LLMRequest, Message
from eurekaclaw.types.tasks import InputSpec, StageName


class CountingStage(Stage):
    """Counts its runs in a file; fails its first `fail_times` attempts."""

    def __init__(self, name: StageName, counter: Path | None = None, fail_times: int = 0, needs: str | None = None):
        self.name = name
        self.counter = counter
        self.fail_times = fail_times
        self.needs = needs
        self.runs = 0

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        if self.needs and not ctx.bus.has(self.needs):
            return f"needs {self.needs}, which no earlier stage produced"
        return None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        if self.counter is not None:
            with self.counter.open("a") as fh:
                fh.write(f"{self.name}\n")
        if self.runs <= self.fail_times:
            raise RuntimeError(f"{self.name} attempt {self.runs} broke")
        ctx.bus.put(f"{self.name}_done", {"runs": self.runs})
        return StageOutcome(status="completed", summary=f"{self.name} ok")


class StepStage(Stage):
    """Does `steps` LLM-backed steps, checkpointing each on the bus; resumes from the last one."""

    def __init__(self, name: StageName, steps: int, delay_s: float = 0.0, log: Path | None = None):
        self.name = name
        self.steps = steps
        self.delay_s = delay_s
        self.log = log

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        done: list[str] = list(ctx.bus.get("steps", [])) if resume else []
        for i in range(len(done), self.steps):
            response = await ctx.llm.complete(
                LLMRequest(role="worker", messages=[Message(role="user", content=f"step {i}")], max_tokens=100)
            )
            if self.log is not None:
                with self.log.open("a") as fh:
                    fh.write(f"{i}\n")
            await asyncio.sleep(self.delay_s)
            done.append(response.text)
            ctx.bus.put("steps", done)
        return StageOutcome(status="completed", summary=f"{len(done)} steps")
