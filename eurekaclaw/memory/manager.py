"""MemoryManager: one facade over the four memory tiers of a workspace.

    tier 1  episodic        RAM only, this session's events
    tier 2  persistent      <root>/memory/persistent.json
    tier 3  knowledge graph <root>/memory/knowledge_graph.json
    tier 4  insights        <root>/memories/<domain>/YYYYMMDD_<slug>.md + _index.json

`workspace_root` is $EUREKACLAW_DIR. The embedder is created on first use, so building a
manager is cheap and never loads a model.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from eurekaclaw.memory.embeddings import LazyEmbedder
from eurekaclaw.memory.episodic import EpisodicMemory
from eurekaclaw.memory.insights import DomainInsights, render_memories_block
from eurekaclaw.memory.knowledge_graph import KnowledgeGraph, Retraction, TheoremOutcome
from eurekaclaw.memory.persistent import PersistentMemory
from eurekaclaw.types.artifacts import VerificationLevel
from eurekaclaw.types.memory import CrossRunRecord, DomainInsight, EpisodicEntry, KnowledgeNode

if TYPE_CHECKING:
    import networkx as nx

    from eurekaclaw.memory.embeddings import Embedder


class MemoryManager:
    def __init__(
        self,
        workspace_root: Path,
        session_id: str,
        embedder: Embedder | None = None,
        *,
        episodic: EpisodicMemory | None = None,
        domain: str = "general",
    ) -> None:
        self.root = Path(workspace_root)
        self.session_id = session_id
        self.domain = domain  # the session's domain, for callers that hold only the manager
        self.embedder: Embedder = embedder if embedder is not None else LazyEmbedder()
        # Pass the session's EpisodicMemory (ctx.episodic) to share one event log.
        self.episodic = episodic if episodic is not None else EpisodicMemory(session_id)
        self.persistent = PersistentMemory(self.root / "memory" / "persistent.json")
        self.graph = KnowledgeGraph(self.root / "memory" / "knowledge_graph.json", self.embedder)
        self.insights = DomainInsights(self.root / "memories", self.embedder)

    # --- tier 1 -----------------------------------------------------------------------------
    def log_event(self, agent_role: str, content: str, metadata: dict[str, Any] | None = None) -> EpisodicEntry:
        return self.episodic.log_event(agent_role, content, metadata)

    def recent_events(self, n: int = 20, agent_role: str | None = None) -> list[EpisodicEntry]:
        return self.episodic.recent_events(n, agent_role)

    # --- tier 2 -----------------------------------------------------------------------------
    def remember(
        self, key: str, value: Any, tags: Iterable[str] = (), source_session: str | None = None
    ) -> CrossRunRecord:
        return self.persistent.remember(key, value, tags, source_session or self.session_id)

    def recall(self, key: str) -> Any | None:
        return self.persistent.recall(key)

    def recall_by_tag(self, tag: str) -> list[CrossRunRecord]:
        return self.persistent.recall_by_tag(tag)

    # --- tier 3 -----------------------------------------------------------------------------
    def add_theorem(
        self,
        statement: str,
        domain: str,
        verification_level: VerificationLevel,
        proof_summary: str = "",
        session_id: str | None = None,
        tags: Iterable[str] = (),
        **outcome: Unpack[TheoremOutcome],
    ) -> str:
        """Store a result (for this session unless `session_id` says otherwise); it is offered
        to later sessions as known only when `established` (see KnowledgeGraph.add_theorem)."""
        return self.graph.add_theorem(
            statement, domain, verification_level, proof_summary, session_id or self.session_id, tags, **outcome
        )

    def retract_theorem(
        self,
        statement: str,
        domain: str,
        reason: str,
        evidence: str = "",
        insight_categories: frozenset[str] | None = None,
    ) -> Retraction:
        """Retract `statement` in the graph and the insights learned by the sessions that had
        stored it (`insight_categories`; all when None). Skills are the registry's business."""
        result = self.graph.retract(statement, domain, reason, self.session_id, evidence)
        others = set(result.sessions) - {self.session_id}
        if others:
            self.insights.retract_sessions(others, reason, insight_categories)
        return result

    def link_theorems(self, from_id: str, to_id: str, relation: str) -> None:
        self.graph.link_theorems(from_id, to_id, relation)

    def find_related_theorems(self, node_id: str, depth: int = 2) -> list[KnowledgeNode]:
        return self.graph.find_related_theorems(node_id, depth)

    def search_theorems(self, query: str, k: int = 5, min_level: VerificationLevel = "cited") -> list[KnowledgeNode]:
        return self.graph.search_theorems(query, k, min_level)

    def search_unverified(self, query: str, k: int = 3) -> list[KnowledgeNode]:
        return self.graph.search_unverified(query, k)

    def search_retracted(self, query: str, k: int = 3) -> list[KnowledgeNode]:
        return self.graph.search_retracted(query, k)

    def to_networkx(self) -> nx.DiGraph:
        return self.graph.to_networkx()

    # --- tier 4 -----------------------------------------------------------------------------
    def save_insight(self, insight: DomainInsight, replaces: str | None = None) -> Path | None:
        if insight.source_session is None:
            insight = insight.model_copy(update={"source_session": self.session_id})
        return self.insights.save(insight, replaces=replaces)

    def near_duplicate_insights(self, insight: DomainInsight) -> list[DomainInsight]:
        return self.insights.near_duplicates(insight)

    def is_repeat_insight(self, insight: DomainInsight) -> bool:
        return self.insights.is_repeat(insight)

    def list_insights(self, domain: str) -> list[DomainInsight]:
        return self.insights.list(domain)

    def load_for_injection(self, domain: str, k: int = 4, query: str = "") -> list[DomainInsight]:
        return self.insights.load_for_injection(domain, k, query)

    @staticmethod
    def render_memories_block(insights: list[DomainInsight]) -> str:
        return render_memories_block(insights)
