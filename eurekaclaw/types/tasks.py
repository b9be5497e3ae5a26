"""Sessions, pipeline progress and what a run returns."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from eurekaclaw.types.artifacts import Artifact, Model, utcnow

Mode = Literal["prove", "from-papers", "explore"]
StageName = Literal["survey", "formalize", "theory", "experiment", "write", "evaluate", "learn"]
STAGE_ORDER: tuple[StageName, ...] = (
    "survey",
    "formalize",
    "theory",
    "experiment",
    "write",
    "evaluate",
    "learn",
)


def _as_utc(value: datetime) -> datetime:
    """A timestamp written without a time zone (by hand, or by an older tool) is read as UTC, so
    it still sorts and subtracts against the aware ones every writer stores."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]
StageStatus = Literal["pending", "running", "completed", "skipped", "failed", "absent", "interrupted"]
SessionStatus = Literal["running", "paused", "completed", "partial", "failed", "budget_exceeded", "interrupted"]


class InputSpec(Model):
    mode: Mode
    statement: str = ""
    paper_ids: list[str] = Field(default_factory=list)
    domain: str | None = None
    budget_usd: float | None = None
    gate_mode: Literal["none", "auto", "human"] | None = None
    output_dir: str | None = None
    # explore: how many times a failed direction may hand over to the next scored one
    max_pivots: int = Field(default=2, ge=0, le=10)


class StageRecord(Model):
    # any registered stage (orchestrator/stages.py), not only the built-ins of StageName
    name: str
    status: StageStatus = "pending"
    reason: str = ""
    attempts: int = 0
    started_at: UtcDatetime | None = None
    finished_at: UtcDatetime | None = None


class PipelineState(Artifact):
    stages: list[StageRecord] = Field(default_factory=lambda: [StageRecord(name=name) for name in STAGE_ORDER])

    def record(self, name: str) -> StageRecord:
        for rec in self.stages:
            if rec.name == name:
                return rec
        raise KeyError(name)


class SessionMeta(Artifact):
    session_id: str
    mode: Mode
    statement: str = ""
    paper_ids: list[str] = Field(default_factory=list)
    domain: str = "general"
    status: SessionStatus = "running"
    status_reason: str = ""
    created_at: UtcDatetime = Field(default_factory=utcnow)
    updated_at: UtcDatetime = Field(default_factory=utcnow)
    backend: str = ""
    model: str = ""
    budget_usd: float | None = None
    gate_mode: str = "auto"
    output_dir: str | None = None
    cost_usd: float = 0.0
    theory_status: str | None = None


class ResearchOutput(Model):
    """What a run returns to the CLI (also printed with --json)."""

    session_id: str
    status: SessionStatus
    status_reason: str = ""
    theory_status: str | None = None
    theory_reason: str = ""
    weakest_level: str | None = None
    self_reviewed: int = 0  # lemmas at "reviewed" whose only reviewer was the proving model
    stages: list[StageRecord] = Field(default_factory=list)
    cost_usd: float = 0.0
    llm_calls: int = 0
    session_dir: str = ""
    output_dir: str | None = None
    files: list[str] = Field(default_factory=list)
