"""Tier 3: the cross-session theorem graph in $EUREKACLAW_DIR/memory/knowledge_graph.json.

A node is a statement a session recorded as proved, with the level it claimed and whether it is
*established* (checked mechanically or by an independent review, in a session that did not end
refuted/contradicted/abandoned); an edge says how two statements relate (uses / generalizes /
specializes / contradicts). Statements are deduplicated by a normalised form, and the node id
is a hash of that form, so two processes adding the same statement agree on its id without
talking to each other. Only established nodes are offered for reuse (search_theorems); a
refuted or contradicted statement is retracted (retract), with its evidence linked by a
`contradicts` edge, and the results that use it lose their established status.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import ValidationError

from eurekaclaw.memory.text import sha256_text
from eurekaclaw.store.files import read_json, update_json
from eurekaclaw.types.artifacts import VERIFICATION_ORDER, VerificationLevel, level_rank
from eurekaclaw.types.memory import FALSE_OUTCOMES, MECHANICAL_LEVELS, KnowledgeEdge, KnowledgeNode

if TYPE_CHECKING:
    import networkx as nx

    from eurekaclaw.memory.embeddings import Embedder

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
FILE_NAME = "knowledge_graph.json"
RELATIONS = ("uses", "generalizes", "specializes", "contradicts")
# Levels whose evidence does not depend on the proof a retracted result was part of.
UNSUSPECTED_LEVELS = MECHANICAL_LEVELS | {"cited"}
# Below this cosine similarity a statement is not offered as related to a query at all.
MIN_SIMILARITY = 0.05

_LATEX_SPACING = re.compile(r"\\[,;:! ]|\\q?quad\b|\\left\b|\\right\b|\\displaystyle\b")


@dataclass
class Retraction:
    node_id: str
    sessions: list[str] = field(default_factory=list)  # sessions that had stored the statement
    demoted: list[str] = field(default_factory=list)  # established results that lost their standing
    was_established: bool = False


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


class TheoremOutcome(TypedDict, total=False):
    """How the session that recorded a theorem ended (the keyword arguments of add_theorem)."""

    established: bool
    session_status: str
    self_reviewed: bool
    note: str
    claim: str


class KnowledgeGraph:
    def __init__(self, path: Path, embedder: Embedder | None = None) -> None:
        self.path = Path(path)
        self.embedder: Embedder = embedder if embedder is not None else _lazy()
        self._vec_cache: dict[tuple[str, str, str], Any] = {}

    # --- writes -----------------------------------------------------------------------------
    def add_theorem(
        self,
        statement: str,
        domain: str,
        verification_level: VerificationLevel,
        proof_summary: str = "",
        session_id: str | None = None,
        tags: Iterable[str] = (),
        *,
        established: bool = False,
        session_status: str = "",
        self_reviewed: bool = False,
        note: str = "",
        claim: str = "",
    ) -> str:
        """Add a statement (or strengthen the existing one) and return its node id.

        `verification_level` is the level the session recorded; the node keeps it as
        `claimed_level` and relies on it (`verification_level`) only when `established`.
        A statement already present keeps one node; an established record beats one that is
        not, and among equals a stronger level wins (with its proof summary and session).
        A retracted statement stays retracted whatever a later session claims.
        """
        if verification_level not in VERIFICATION_ORDER:
            raise ValueError(f"unknown verification level {verification_level!r}")
        normalized = normalize_statement(statement)
        if not normalized:
            raise ValueError("cannot add an empty statement to the knowledge graph")
        node_id = node_id_for(normalized)
        tags = list(dict.fromkeys(tags))
        fresh = KnowledgeNode(
            node_id=node_id,
            statement=statement.strip(),
            normalized=normalized,
            domain=domain or "general",
            verification_level=verification_level if established else "unverified",
            claimed_level=verification_level,
            established=established,
            session_status=session_status,
            self_reviewed=self_reviewed,
            note="" if established else note,
            claim=claim.strip(),
            proof_summary=proof_summary,
            session_id=session_id,
            sessions=[session_id] if session_id else [],
            tags=tags,
        )

        def apply(data: Any) -> dict[str, Any]:
            data = _coerce(data)
            existing = _node(data["nodes"].get(node_id))
            if existing is None:
                node = fresh
            else:
                node = existing
                node.sessions = list(dict.fromkeys([*_sessions(existing), *fresh.sessions]))
                if existing.retracted:
                    pass  # a confirmed refutation outweighs a later proof of the same words
                elif _strength(fresh) > _strength(existing):
                    for key in (
                        "verification_level",
                        "claimed_level",
                        "established",
                        "session_status",
                        "self_reviewed",
                        "note",
                        "kind",
                        "claim",
                    ):
                        setattr(node, key, getattr(fresh, key))
                    node.proof_summary = proof_summary or existing.proof_summary
                    node.session_id = session_id or existing.session_id
                elif not existing.proof_summary and proof_summary:
                    node.proof_summary = proof_summary
                node.tags = list(dict.fromkeys([*existing.tags, *tags]))
            data["nodes"][node_id] = node.model_dump(mode="json")
            return data

        update_json(self.path, apply, default=_empty())
        return node_id

    def retract(
        self,
        statement: str,
        domain: str,
        reason: str,
        session_id: str | None = None,
        evidence: str = "",
    ) -> Retraction:
        """Mark `statement` (by its normalised form) as false: it is no longer established nor
        offered for reuse. The results that use it lose their established status (their proofs
        rest on it), and so do the results it used that only a review stood behind (one of them,
        or the step that combined them, is wrong — a review cannot say which).

        The statement gets a node even if no session ever proved it, so a later "proof" of it
        is stored retracted too. `evidence` (a counterexample, a violated bound) becomes a
        refutation node linked to the statement by a `contradicts` edge. Returns the node and
        the sessions that had stored the statement, whose insights and skills callers flag.
        """
        normalized = normalize_statement(statement)
        if not normalized:
            raise ValueError("cannot retract an empty statement")
        node_id = node_id_for(normalized)
        out = Retraction(node_id=node_id)

        def apply(data: Any) -> dict[str, Any]:
            data = _coerce(data)
            node = _node(data["nodes"].get(node_id)) or KnowledgeNode(
                node_id=node_id,
                statement=statement.strip(),
                normalized=normalized,
                domain=domain or "general",
                session_status="",
                note="never established",
            )
            out.sessions = [s for s in _sessions(node) if s]
            out.was_established = node.established
            node.retracted = True
            node.established = False
            node.verification_level = "unverified"
            if reason not in node.retraction:
                node.retraction = f"{node.retraction}; {reason}" if node.retraction else reason
            data["nodes"][node_id] = node.model_dump(mode="json")
            if evidence.strip():
                ev_norm = normalize_statement(evidence)
                ev_id = node_id_for(ev_norm)
                if ev_id != node_id:
                    ev = _node(data["nodes"].get(ev_id)) or KnowledgeNode(
                        node_id=ev_id,
                        statement=evidence.strip(),
                        normalized=ev_norm,
                        domain=domain or "general",
                        kind="refutation",
                        session_id=session_id,
                        sessions=[session_id] if session_id else [],
                        tags=["refutation"],
                    )
                    data["nodes"][ev_id] = ev.model_dump(mode="json")
                    edge = {"source": ev_id, "target": node_id, "relation": "contradicts"}
                    if edge not in data["edges"]:
                        data["edges"].append(edge)
            out.demoted = _demote_related(data, node_id)
            return data

        update_json(self.path, apply, default=_empty())
        return out

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

    def search_theorems(self, query: str, k: int = 5, min_level: VerificationLevel = "cited") -> list[KnowledgeNode]:
        """The k established results most similar to `query` among those at `min_level` or
        stronger. Unverified, retracted and refutation nodes are never offered for reuse."""
        threshold = level_rank(min_level)
        return self._search(
            query,
            k,
            lambda n: (
                n.kind == "result"
                and n.established
                and not n.retracted
                and level_rank(n.verification_level) >= threshold
            ),
        )

    def search_unverified(self, query: str, k: int = 3) -> list[KnowledgeNode]:
        """Results stored but not established (self-reviewed, unchecked, or from an unfinished
        session), excluding retracted ones and those of sessions whose claim was shown false."""
        return self._search(
            query,
            k,
            lambda n: (
                n.kind == "result" and not n.established and not n.retracted and n.session_status not in FALSE_OUTCOMES
            ),
        )

    def search_retracted(self, query: str, k: int = 3) -> list[KnowledgeNode]:
        """Statements refuted or contradicted in some session: pitfalls, never results."""
        return self._search(query, k, lambda n: n.kind == "result" and n.retracted)

    def _search(self, query: str, k: int, keep: Callable[[KnowledgeNode], bool]) -> list[KnowledgeNode]:
        import numpy as np

        from eurekaclaw.memory.embeddings import similarities

        candidates = [n for n in self._load()[0].values() if keep(n)]
        if not candidates or k <= 0 or not (query or "").strip():
            return []
        emb = self.embedder
        texts = {n.node_id: n.statement + "\n" + n.proof_summary[:300] for n in candidates}
        # Keyed by the text too: an upgraded node carries a new proof summary.
        keys = {nid: (emb.name, nid, sha256_text(text)) for nid, text in texts.items()}
        missing = [n for n in candidates if keys[n.node_id] not in self._vec_cache]
        if missing:
            vecs = emb.embed([texts[n.node_id] for n in missing])
            for n, v in zip(missing, vecs, strict=True):
                self._vec_cache[keys[n.node_id]] = v
        rows = np.stack([self._vec_cache[keys[n.node_id]] for n in candidates])
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


def _sessions(node: KnowledgeNode) -> list[str]:
    """Every session that stored the node (older files name only the one that set its level)."""
    return list(dict.fromkeys([*node.sessions, *([node.session_id] if node.session_id else [])]))


def _strength(node: KnowledgeNode) -> tuple[bool, int]:
    # An established record beats any that is not; among equals the stronger claim wins.
    return node.established, level_rank(node.claimed_level or node.verification_level)


def _demote_related(data: dict[str, Any], node_id: str) -> list[str]:
    """Demote (not retract: each statement may still be true) the results around a retracted
    one: every result that uses it, directly or through others, and every result it used,
    transitively, that only a review stood behind (not a machine check, not a verified
    citation of a known result). Returns those that had been established."""
    users: dict[str, set[str]] = {}
    used: dict[str, set[str]] = {}
    for e in data["edges"]:
        if isinstance(e, dict) and e.get("relation") == "uses":
            users.setdefault(str(e.get("target")), set()).add(str(e.get("source")))
            used.setdefault(str(e.get("source")), set()).add(str(e.get("target")))
    demoted: list[str] = []
    users_of = _reachable(users, node_id)
    for nid in users_of:
        _demote(data, nid, f"uses the retracted result {node_id}", demoted)
    for nid in _reachable(used, node_id):
        node = _node(data["nodes"].get(nid))
        if nid in users_of or node is None or (node.claimed_level or node.verification_level) in UNSUSPECTED_LEVELS:
            continue
        _demote(data, nid, f"used by the retracted result {node_id}, whose proof has a wrong step", demoted)
    return demoted


def _reachable(links: dict[str, set[str]], start: str) -> list[str]:
    seen = {start}
    order: list[str] = []
    queue = deque([start])
    while queue:
        for nxt in sorted(links.get(queue.popleft(), ())):
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
                queue.append(nxt)
    return order


def _demote(data: dict[str, Any], nid: str, reason: str, demoted: list[str]) -> None:
    node = _node(data["nodes"].get(nid))
    if node is None or node.retracted:
        return
    if node.established:
        demoted.append(nid)
    node.established = False
    node.verification_level = "unverified"
    if reason not in node.note:
        node.note = f"{node.note}; {reason}" if node.note else reason
    data["nodes"][nid] = node.model_dump(mode="json")


def _node(raw: Any) -> KnowledgeNode | None:
    if raw is None:
        return None
    try:
        return KnowledgeNode.model_validate(raw)
    except ValidationError as exc:
        log.warning("knowledge graph node is malformed and ignored: %s", exc.errors()[0]["msg"])
        return None
