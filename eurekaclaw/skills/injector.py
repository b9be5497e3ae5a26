"""SkillInjector: the few skills worth putting in one agent's prompt, within a token budget.

score = relevance(task, skill) × prior(success record)

relevance  tag:      keyword overlap of the task with the skill's name, tags and description
           semantic: cosine similarity of embeddings of the task and the skill
           hybrid:   the mean of the two (default)
prior      0.5 + p, where p is the skill's success rate shrunk towards 0.5 by two pseudo-uses
           (p = (n·rate + 1) / (n + 2)); an unused skill gets 1.0, a reliable one up to 1.5,
           one that keeps failing down to 0.5, so relevance still dominates.

Skills are taken best first until k are chosen; one that would overflow the token budget is
passed over for a smaller one further down.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

from eurekaclaw.memory.text import keywords, sha256_text
from eurekaclaw.skills.format import estimate_tokens
from eurekaclaw.types.skills import SkillRecord

if TYPE_CHECKING:
    import numpy as np

    from eurekaclaw.memory.embeddings import Embedder
    from eurekaclaw.skills.registry import SkillRegistry

Strategy = Literal["tag", "semantic", "hybrid"]
STRATEGIES = ("tag", "semantic", "hybrid")
MIN_RELEVANCE = 0.05
PSEUDO_USES = 2.0


def success_prior(record: SkillRecord) -> float:
    rate = record.meta.success_rate
    if rate is None:
        return 1.0
    n = max(0, record.meta.usage_count)
    p = (n * rate + PSEUDO_USES * 0.5) / (n + PSEUDO_USES)
    return 0.5 + p


def _terms(record: SkillRecord) -> set[str]:
    meta = record.meta
    return keywords(" ".join([meta.name.replace("-", " ").replace("_", " "), *meta.tags, meta.description]))


def tag_relevance(task_terms: set[str], record: SkillRecord) -> float:
    terms = _terms(record)
    if not task_terms or not terms:
        return 0.0
    return len(task_terms & terms) / math.sqrt(len(task_terms) * len(terms))


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def render_skill(record: SkillRecord) -> str:
    return f'<skill name="{_attr(record.meta.name)}">\n{record.body.strip()}\n</skill>'


class SkillInjector:
    def __init__(self, registry: SkillRegistry, embedder: Embedder | None = None) -> None:
        self.registry = registry
        if embedder is None:
            from eurekaclaw.memory.embeddings import LazyEmbedder

            embedder = LazyEmbedder()
        self.embedder = embedder
        self._vectors: dict[tuple[str, str, str], np.ndarray] = {}

    def _skill_vector(self, record: SkillRecord) -> np.ndarray:
        meta = record.meta
        text = f"{meta.name.replace('-', ' ')}\n{meta.description}\n{' '.join(meta.tags)}\n{record.body[:1500]}"
        key = (self.embedder.name, meta.name, sha256_text(text))
        if key not in self._vectors:
            self._vectors[key] = self.embedder.embed([text])[0]
        return self._vectors[key]

    def score(self, task: str, record: SkillRecord, strategy: Strategy = "hybrid") -> float:
        """relevance × prior for one skill (0 when it is not relevant at all)."""
        return self._scores(task, [record], strategy)[0]

    def _scores(self, task: str, records: list[SkillRecord], strategy: Strategy) -> list[float]:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
        import numpy as np

        task_terms = keywords(task)
        query = self.embedder.embed([task])[0] if strategy != "tag" else None
        out = []
        for record in records:
            tag = tag_relevance(task_terms, record) if strategy != "semantic" else 0.0
            sem = 0.0
            if query is not None:
                sem = max(0.0, float(np.dot(self._skill_vector(record), query)))
            relevance = {"tag": tag, "semantic": sem, "hybrid": (tag + sem) / 2}[strategy]
            out.append(relevance * success_prior(record) if relevance >= MIN_RELEVANCE else 0.0)
        return out

    def top_k(
        self,
        task: str,
        role: str,
        k: int = 5,
        strategy: Strategy = "hybrid",
        token_budget: int = 1500,
    ) -> list[SkillRecord]:
        """The best skills for `role` working on `task`, at most k and within token_budget."""
        if k <= 0 or token_budget <= 0 or not (task or "").strip():
            return []
        candidates = self.registry.get_by_role(role)
        if not candidates:
            return []
        scores = self._scores(task, candidates, strategy)
        ranked = sorted(
            ((s, r) for s, r in zip(scores, candidates, strict=True) if s > 0),
            key=lambda sr: (-sr[0], sr[1].meta.name),
        )
        chosen: list[SkillRecord] = []
        # The <skills> wrapper costs a few tokens too.
        remaining = token_budget - estimate_tokens("<skills>\n</skills>")
        for _, record in ranked:
            cost = estimate_tokens(render_skill(record)) + 1
            if cost > remaining:
                continue
            chosen.append(record)
            remaining -= cost
            if len(chosen) >= k:
                break
        return chosen

    @staticmethod
    def render_for_prompt(skills: list[SkillRecord]) -> str:
        """`<skills><skill name="…">…</skill></skills>`; empty when no skill was chosen."""
        if not skills:
            return ""
        return "<skills>\n" + "\n".join(render_skill(s) for s in skills) + "\n</skills>"
