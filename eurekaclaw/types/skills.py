"""Skill metadata (SKILL.md front matter) and loaded skill records."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from eurekaclaw.types.artifacts import Model, utcnow

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


class SkillRecord(Model):
    meta: SkillMeta
    body: str
    path: str = ""
    origin: Literal["user", "domain", "builtin"] = "builtin"
