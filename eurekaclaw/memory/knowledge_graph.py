"""Tier 3: the cross-session theorem graph in $EUREKACLAW_DIR/memory/knowledge_graph.json.

A node is a statement proved in some session with the verification level it reached; an edge
says how two statements relate (uses / generalizes / specializes / contradicts). Statements
are deduplicated by a normalised form, and the node id is a hash of that form, so two
processes adding the same statement agree on its id without talking to each other.
Only nodes at `cited` or stronger are offered for reuse (search_theorems).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from eurekaclaw.store.files import read_json, update_json
from eurekaclaw.types.artifacts import VERIFICATION_ORDER, VerificationLevel, level_rank
from eurekaclaw.types.memory import KnowledgeEdge, KnowledgeNode

if TYPE_CHECKING:
    import networkx as nx

    from eurekaclaw.memory.embeddings import Embedder

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
FILE_NAME = "knowledge_graph.json"
RELATIONS = ("uses", "generalizes", "specializes", "contradicts")
# Below this cosine similarity a statement is not offered as related to a query at all.
MIN_SIMILARITY = 0.05

_LATEX_SPACING = re.compile(r"\\[,;:! ]|\\q?quad\b|\\left\b|\\right\b|\\displaystyle\b")


def normalize_statement(statement: str) -> str:
    """The form two statements share when they differ only in spacing, case, $…$ delimiters,
    LaTeX spacing commands or a final full stop."""
    text = _LATEX_SPACING.sub(" ", statement or "")
    text = text.replace("$", " ").lower()
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([=<>+\-*/^_(){}\[\],])\s*", r"\1", text)
    # A space before a control word never matters in LaTeX (one after it may: "\le c").
    text = re.sub(r"\s+\\", r"\\", text)
    return text.rstrip(" .")


def node_id_for(normalized: str) -> str:
    return "thm-" + hashlib.sha256(normalized.encode("utf-8")).hexdigest()[:12]


def _lazy() -> Embedder:
    from eurekaclaw.memory.embeddings import LazyEmbedder

    return LazyEmbedder()


def _empty() -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "nodes": {}, "edges": []}


def _coerce(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return _empty()
    data.setdefault("schema_version", SCHEMA_VERSION)
    if not isinstance(data.get("nodes"), dict):
        data["nodes"] = {}
    if not isinstance(data.get("edges"), list):
        data["edges"] = []
    return data


class KnowledgeGraph:
    def __init__(self, path: Path, embedder: Embedder | None = None) -> None:
        self.path = Path(path)
        self.embedder: Embedder = embedder if embedder is not None else _lazy()
        self._vec_cache: dict[tuple[str, str], Any] = {}

    # --- writes -----------------------------------------------------------------------------
    def add_theorem(
        self,
        statement: str,
        domain: str,
        verification_level: VerificationLevel,
        proof_summary: str = "",
        session_id: str | None = None,
        tags: Iterable[str] = (),
    ) -> str:
        """Add a statement (or strengthen the existing one) and return its node id.

        A statement already present keeps one node; a stronger verification level replaces
        the weaker one together with its proof summary and session.
        """
        if verification_level not in VERIFICATION_ORDER:
            raise ValueError(f"unknown verification level {verification_level!r}")
        normalized = normalize_statement(statement)
        if not normalized:
            raise ValueError("cannot add an empty statement to the knowledge graph")
        node_id = node_id_for(normalized)
        tags = list(dict.fromkeys(tags))

        def apply(data: Any) -> dict[str, Any]:
            data = _coerce(data)
            existing = _node(data["nodes"].get(node_id))
            if existing is None:
                node = KnowledgeNode(
                    node_id=node_id,
                    statement=statement.strip(),
                    normalized=normalized,
                    domain=domain or "general",
                    verification_level=verification_level,
                    proof_summary=proof_summary,
                    session_id=session_id,
                    tags=tags,
                )
            else:
                node = existing
                if level_rank(verification_level) > level_rank(existing.verification_level):
                    node.verification_level = verification_level
                    node.proof_summary = proof_summary or existing.proof_summary
                    node.session_id = session_id or existing.session_id
                elif not existing.proof_summary and proof_summary:
                    node.proof_summary = proof_summary
                node.tags = list(dict.fromkeys([*existing.tags, *tags]))
            data["nodes"][node_id] = node.model_dump(mode="json")
            return data

        update_json(self.path, apply, default=_empty())
        return node_id

    def link_theorems(self, from_id: str, to_id: str, relation: str) -> None:
        """Record that `from_id` <relation> `to_id` (e.g. A uses B). Linking is idempotent."""
        if relation not in RELATIONS:
            raise ValueError(f"unknown relation {relation!r}: use one of {', '.join(RELATIONS)}")
        if from_id == to_id:
            raise ValueError("a theorem cannot be linked to itself")

        def apply(data: Any) -> dict[str, Any]:
            data = _coerce(data)
            missing = [n for n in (from_id, to_id) if n not in data["nodes"]]
            if missing:
                raise KeyError(f"no theorem {missing[0]!r} in the knowledge graph")
            edge = {"source": from_id, "target": to_id, "relation": relation}
            if edge not in data["edges"]:
                data["edges"].append(edge)
            return data

        update_json(self.path, apply, default=_empty())

    # --- reads ------------------------------------------------------------------------------
    def _load(self) -> tuple[dict[str, KnowledgeNode], list[KnowledgeEdge]]:
        data = _coerce(read_json(self.path, _empty()))
        nodes = {}
        for nid, raw in data["nodes"].items():
            node = _node(raw)
            if node is not None:
                nodes[nid] = node
        edges = []
        for raw in data["edges"]:
            try:
                edge = KnowledgeEdge.model_validate(raw)
            except ValidationError:
                log.warning("knowledge graph edge is malformed and ignored: %r", raw)
                continue
            if edge.source in nodes and edge.target in nodes:
                edges.append(edge)
        return nodes, edges

    def get(self, node_id: str) -> KnowledgeNode | None:
        return self._load()[0].get(node_id)

    def nodes(self) -> list[KnowledgeNode]:
        return sorted(self._load()[0].values(), key=lambda n: n.created_at)

    def edges(self) -> list[KnowledgeEdge]:
        return self._load()[1]

    def find(self, statement: str) -> KnowledgeNode | None:
        return self.get(node_id_for(normalize_statement(statement)))

    def find_related_theorems(self, node_id: str, depth: int = 2) -> list[KnowledgeNode]:
        """Theorems within `depth` links of `node_id` in either direction, nearest first."""
        nodes, edges = self._load()
        if node_id not in nodes or depth < 1:
            return []
        neighbours: dict[str, set[str]] = {}
        for e in edges:
            neighbours.setdefault(e.source, set()).add(e.target)
            neighbours.setdefault(e.target, set()).add(e.source)
        seen = {node_id: 0}
        queue = deque([node_id])
        while queue:
            current = queue.popleft()
            if seen[current] >= depth:
                continue
            for nxt in sorted(neighbours.get(current, ())):
                if nxt not in seen:
                    seen[nxt] = seen[current] + 1
                    queue.append(nxt)
        ordered = sorted((d, nid) for nid, d in seen.items() if nid != node_id)
        return [nodes[nid] for _, nid in ordered]

    def search_theorems(
        self, query: str, k: int = 5, min_level: VerificationLevel = "cited"
    ) -> list[KnowledgeNode]:
        """The k statements most similar to `query` among those verified at `min_level` or
        stronger. Unverified results are never offered for reuse."""
        import numpy as np

        from eurekaclaw.memory.embeddings import similarities

        threshold = level_rank(min_level)
        candidates = [n for n in self._load()[0].values() if level_rank(n.verification_level) >= threshold]
        if not candidates or k <= 0 or not (query or "").strip():
            return []
        emb = self.embedder
        missing = [n for n in candidates if (emb.name, n.node_id) not in self._vec_cache]
        if missing:
            vecs = emb.embed([n.statement + "\n" + n.proof_summary[:300] for n in missing])
            for n, v in zip(missing, vecs, strict=True):
                self._vec_cache[(emb.name, n.node_id)] = v
        rows = np.stack([self._vec_cache[(emb.name, n.node_id)] for n in candidates])
        scores = similarities(emb.embed([query])[0], rows)
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], candidates[i].node_id))
        return [candidates[i] for i in order[:k] if scores[i] >= MIN_SIMILARITY]

    def to_networkx(self) -> nx.DiGraph:
        import networkx as nx

        nodes, edges = self._load()
        graph = nx.DiGraph()
        for node in nodes.values():
            graph.add_node(node.node_id, **node.model_dump(mode="json", exclude={"node_id"}))
        for e in edges:
            graph.add_edge(e.source, e.target, relation=e.relation)
        return graph


def _node(raw: Any) -> KnowledgeNode | None:
    if raw is None:
        return None
    try:
        return KnowledgeNode.model_validate(raw)
    except ValidationError as exc:
        log.warning("knowledge graph node is malformed and ignored: %s", exc.errors()[0]["msg"])
        return None
