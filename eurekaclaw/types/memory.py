"""Memory records for the four tiers (see docs/memory.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from eurekaclaw.types.artifacts import Model, VerificationLevel, utcnow


class EpisodicEntry(Model):
    entry_id: str
    session_id: str
    agent_role: str
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime = Field(default_factory=utcnow)


class CrossRunRecord(Model):
    key: str  # namespaced, e.g. "theory.failed_strategies.<topic>"
    value: Any = None
    tags: list[str] = Field(default_factory=list)
    source_session: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class KnowledgeNode(Model):
    node_id: str
    statement: str
    normalized: str = ""
    domain: str = "general"
    verification_level: VerificationLevel = "unverified"
    proof_summary: str = ""
    session_id: str | None = None
    tags: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)


class KnowledgeEdge(Model):
    source: str
    target: str
    relation: Literal["uses", "generalizes", "specializes", "contradicts"]


InsightCategory = Literal["domain_knowledge", "proof_strategy", "open_problems", "pitfalls"]


class DomainInsight(Model):
    domain: str
    category: InsightCategory
    title: str
    content: str
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    source_session: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    sha256: str = ""
    file: str = ""
