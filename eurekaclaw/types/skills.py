"""Skill metadata (SKILL.md front matter) and loaded skill records."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from eurekaclaw.types.artifacts import Model, VerificationLevel, utcnow

SkillSource = Literal["seed", "distilled", "manual"]


class SkillMeta(Model):
    name: str
    version: str = "1.0"
    tags: list[str] = Field(default_factory=list)
    agent_roles: list[str] = Field(default_factory=list)
    pipeline_stages: list[str] = Field(default_factory=list)
    description: str = ""
    source: SkillSource = "seed"
    created_at: datetime = Field(default_factory=utcnow)
    usage_count: int = 0
    success_rate: float | None = None
    # Provenance of a distilled skill: the session it was learned from and whether that session
    # established its result (docs/memory-and-skills.md). Seeds and hand-written skills keep the
    # defaults: they are not anyone's unverified result.
    source_session: str | None = None
    session_status: str = ""
    established: bool = True
    verification_level: VerificationLevel | None = None
    self_reviewed: bool = False
    # Set when a result of the source session was later refuted or contradicted; a retracted
    # skill is listed but never offered to an agent.
    retracted: bool = False
    retraction: str = ""


class SkillRecord(Model):
    meta: SkillMeta
    body: str
    path: str = ""
    # "installed": in the user folder, put there by install-skills and unchanged since
    origin: Literal["user", "installed", "domain", "builtin"] = "builtin"
